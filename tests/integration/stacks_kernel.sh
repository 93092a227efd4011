#!/bin/bash
# `stacks -kernel`: every task on the machine, kernel threads included.  A process blocked
# reading a pipe must be found by the pipe-read function on its kernel stack (-module), with
# the state and wait channel the kernel gives it; kernel threads and kworkers' workqueues are
# shown; -state D runs and lists only D tasks; inside a PID namespace of its own the report
# says that kernel threads are hidden.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "kernel stacks need root (/proc/<pid>/task/<tid>/stack): run the tests as root"

# A reader blocked on an empty pipe whose writer sleeps.
exec 3< <(exec sleep 600)
writer=$!
cat <&3 >/dev/null &
reader=$!
exec 3<&-
cleanup_hooks+=("kill $reader $writer 2>/dev/null")
in_read() { [ "$(awk '{print $1}' /proc/$reader/syscall 2>/dev/null)" = 0 ]; }
wait_until 10 in_read || { fail "cat never blocked in read()"; finish; }
# The kernel's own word for the function it sleeps in (anon_pipe_read since 6.x, pipe_read before).
fn=$(grep -oE '\] (anon_)?pipe_read' /proc/$reader/stack | head -1 | cut -c3-)
[ -n "$fn" ] || skip "this kernel's pipe read is not on /proc/$reader/stack (a kernel with CONFIG_STACKTRACE shows it): $(head -3 /proc/$reader/stack)"

$PC stacks -kernel -module "$fn" >pipe.txt 2>err.txt
rc=$?
check "stacks -kernel -module $fn exits 0 (stderr: $(head -c 200 err.txt))" [ $rc = 0 ]
check "the header says what was kept and that nothing was stopped" \
	grep -q "^Kernel: [0-9]* of [0-9]* tasks (with $fn on the kernel stack), read in .* ms; nothing was stopped$" pipe.txt
grp=$(awk -v t=" $reader " '/^[0-9]+ tasks?:/{on=index($0" ",t)>0} on' pipe.txt)
check "the blocked reader ($reader) is in a group" [ -n "$grp" ]
check "... with state S and wchan $fn" grep -q "state S, wchan $fn" <<<"$grp"
check "... whose kernel stack starts in $fn, called from the read syscall" \
	bash -c 'sed -n 2p <<<"$1" | grep -q "^    $2+0x" && grep -Eq "^    (ksys|vfs)_read\+0x" <<<"$1"' _ "$grp" "$fn"
check "every task shown has $fn on its stack" \
	bash -c '! awk "/^[0-9]+ tasks?:/{g=\$0; has=0; next} /^    /{if (\$1 ~ /^'$fn'\\+/) has=1} /^\$/{if (g!=\"\" && !has) bad=1; g=\"\"} END{exit !bad}" pipe.txt'

$PC stacks -kernel >all.txt 2>&1
check "every task: kthreadd (PID 2) is there as a kernel thread" grep -Eq "^[0-9]+ tasks?: (.* )?2( |$).*kernel thread" all.txt
check "every task: the reader too" grep -Eq "^[0-9]+ tasks?:( [0-9/]+)* $reader( |$)" all.txt
if grep -q '^kworker/.*-' /proc/[0-9]*/comm 2>/dev/null; then
	check "kworkers show the workqueue they serve" grep -q "kworker/.*, workqueue [a-z]" all.txt
fi
n_all=$(sed -n 's/^Kernel: \([0-9]*\) of \([0-9]*\) tasks.*/\1/p' all.txt)
check "the task count is about what /proc lists ($n_all vs $(ls -d /proc/[0-9]*/task/* | wc -l))" \
	bash -c 'n=$(ls -d /proc/[0-9]*/task/* | wc -l); [ $(('$n_all' - n)) -lt 20 ] && [ $((n - '$n_all')) -lt 20 ]'

# A task in D on purpose: a vfork() parent sleeps uninterruptibly until its child is done.
dparent=
if [ -x "$WORKLOADS/dstate" ]; then
	"$WORKLOADS/dstate" >dstate.out &
	dparent=$!
	wait_until 10 grep -q ' [0-9]' dstate.out && read -r _ dchild <dstate.out
	cleanup_hooks+=("kill ${dchild:-} $dparent 2>/dev/null")
	in_d() { grep -q '^State:.*D' /proc/$dparent/status; }
	wait_until 10 in_d || fail "the vfork parent $dparent never slept in D"
fi
$PC stacks -kernel -state D >d.txt 2>&1
rc=$?
check "-state D exits 0" [ $rc = 0 ]
check "-state D says so in the header" grep -q "^Kernel: [0-9]* of [0-9]* tasks (state D)" d.txt
check "-state D lists only tasks in D" bash -c '! grep -E "^[0-9]+ tasks?:" d.txt | grep -qv ", state D"'
if [ -n "$dparent" ]; then
	dgrp=$(awk -v t=" $dparent " '/^[0-9]+ tasks?:/{on=index($0" ",t)>0} on' d.txt)
	check "-state D lists the vfork parent ($dparent) with its kernel stack in vfork" \
		bash -c 'grep -q "(dstate), state D" <<<"$1" && grep -q "^    __do_sys_vfork+0x" <<<"$1"' _ "$dgrp"
fi
echo "state D: $(head -1 d.txt)"

$PC stacks -kernel -pid $$ >bad.txt 2>&1
rc=$?
check "-kernel with -pid: one line, exit 2" [ $rc = 2 -a "$(wc -l <bad.txt)" = 1 ]
$PC stacks -kernel -state Q >bad2.txt 2>&1
rc=$?
check "-state with an unknown letter: one line, exit 2" \
	bash -c '[ '$rc' = 2 ] && [ "$(wc -l <bad2.txt)" = 1 ] && grep -q "state letters" bad2.txt'

if command -v unshare >/dev/null; then
	unshare --pid --fork --mount-proc "$PC" stacks -kernel >ns.txt 2>&1
	rc=$?
	check "in a PID namespace of its own: exit 0 and kernel threads said hidden" \
		bash -c '[ '$rc' = 0 ] && grep -q "^Hidden: no kernel threads are visible" ns.txt'
fi
finish
