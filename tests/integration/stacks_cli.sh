#!/bin/bash
# `stacks` on bad input (one clear line, non-zero exit, the target untouched), on busy
# threads (running code is interrupted and unwound), and -zip.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "stacks needs root (ptrace, /proc/<pid>/task/<tid>/stack): run the tests as root"
[ -x "$WORKLOADS/hot" ] || skip "tests/workloads/hot is not built: ninja -C build builds it"

one_line_error() { # one_line_error WANT_RC GREP_PATTERN args...
	local want=$1 pat=$2
	shift 2
	$PC stacks "$@" >out 2>err
	local rc=$?
	[ $rc = "$want" ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && grep -q -- "$pat" err ||
		{ echo "  rc=$rc stderr: $(cat err)"; return 1; }
}

check "-pid 999999: one line naming the missing process, exit 1" \
	one_line_error 1 "no process with PID 999999" -pid 999999
check "no -pid: one line, exit 2" one_line_error 2 "-pid N or -kernel is required"
check "-pid abc: one line, exit 2" one_line_error 2 "pid" -pid abc
check "unknown option: one line with a hint, exit 2" one_line_error 2 "did you mean '-module'" \
	-pid 1 -modul x

"$WORKLOADS/hot" 30 3 &
hot=$!
cleanup_hooks+=("kill -9 $hot 2>/dev/null")
threads_up() { [ "$(ls /proc/$hot/task 2>/dev/null | wc -l)" = 3 ]; }
wait_until 10 threads_up || fail "hot did not start its threads"
tid=$(ls /proc/$hot/task | grep -vx $hot | head -1)
check "-pid of a thread: one line naming its process, exit 1" \
	one_line_error 1 "is a thread of process $hot" -pid $tid
check "-o into a missing directory: one line, exit 1" \
	one_line_error 1 "no/such/dir/x.txt" -pid $hot -o "$T/no/such/dir/x.txt"

$PC stacks -pid $hot >hot.txt 2>hot.err
check "busy threads: stacks exits 0" [ $? = 0 ]
check "busy threads: all 3 threads reported" \
	[ "$(grep -E '^[0-9]+ threads?:' hot.txt | awk '{s+=$1} END{print s}')" = 3 ]
check "busy threads: workers unwound through hot_middle to the thread start" \
	[ "$(grep -c ' hot_middle+0x.*/hot) at hot.c:' hot.txt)" -ge 2 ]
check "busy threads: the process still runs afterwards" \
	bash -c 'grep -q "^State:[[:space:]]*[RS]" /proc/'$hot'/status && grep -q "^TracerPid:[[:space:]]*0$" /proc/'$hot'/status'

$PC stacks -pid $hot -zip "$T/hang.trace.zip" >zip.out 2>zip.err
check "-zip: exit 0, says where it wrote, nothing on stdout" \
	bash -c '[ ! -s zip.out ] && grep -q "written to .*hang.trace.zip" zip.err'
if command -v python3 >/dev/null; then
	check "-zip: the archive holds hang.trace/stacks-$hot.txt with the report" \
		python3 -c '
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
assert names == ["hang.trace/stacks-%s.txt" % sys.argv[2]], names
text = z.read(names[0]).decode()
assert text.startswith("Process %s (hot): 3 threads" % sys.argv[2]), text[:80]
assert "hot_middle+0x" in text
' "$T/hang.trace.zip" $hot
fi
finish
