#!/usr/bin/env bash
# start NAME records in the background and returns; stop NAME from another shell (another
# session, no shared variables) ends it and writes the zip; state kept beside the output.  A
# collector killed with SIGKILL leaves a stale state that stop explains (and merge finishes),
# a state naming a PID that another process holds now is never signalled, a collection that
# ended by itself is reported, and a second start of a running name is refused.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd setsid

"$WORKLOADS/hot" 300 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
bg_pid() { awk '$1 == "pid" { print $2 }' "$1.trace.state"; }
cleanup_hooks+=('for s in *.trace.state; do [ -e "$s" ] && kill -9 $(awk "\$1 == \"pid\" { print \$2 }" "$s") 2>/dev/null; done')

# start returns while the collection goes on
"$PC" start a -pid $hot -o out >a.start 2>&1
check "start returns 0" test $? = 0
check "start says how to stop it" grep -q "'perfcollect-c stop a -o out' ends it" a.start
check "the state is kept beside the output" test -f out/a.trace.state
pid=$(cd out && bg_pid a)
check "the collector runs on in its own session" \
	bash -c "[ -d /proc/$pid ] && [ \"\$(ps -o sid= -p $pid | tr -d ' ')\" = $pid ]"
check "a second start of the same name is refused" \
	bash -c "! '$PC' start a -o out >a.again 2>&1 && grep -q 'already collecting in the background (pid $pid' a.again"
# stop from another session, with a clean environment
setsid env -i PATH="$PATH" "$PC" stop a -o out >a.stop 2>&1 </dev/null
check "stop from another session exits 0" test $? = 0
check "stop relays the collector's words" grep -q "Trace saved to out/a.trace.zip" a.stop
check "the zip is written" test -s out/a.trace.zip
check "state and output files are removed" bash -c "! ls out/a.trace.state out/a.trace.out 2>/dev/null"
gone() { ! [ -d /proc/$1 ] || grep -q '^State:.Z' /proc/$1/status; }
check "the collector is gone" gone $pid
"$PC" view out/a.trace.zip -processfilter hot >a.view 2>&1
check "the trace has hot's samples" grep -q "hot_leaf" a.view

# A collector killed without warning: stale state, explained; merge finishes its trace.
"$PC" start b -pid $hot >b.start 2>&1
pid=$(bg_pid b)
kill -9 "$pid"
wait_until 10 gone $pid
rc=0
"$PC" stop b >b.stop 2>&1 || rc=$?
check "stop of a killed collector exits 1" test $rc = 1
check "  and explains it, naming merge" \
	grep -q "ended without finishing (killed, crashed, or the machine restarted); what it recorded is in ./b.trace: 'perfcollect-c merge ./b.trace'" b.stop
check "  and removes the stale state" test ! -e b.trace.state
"$PC" merge b.trace >b.merge 2>&1
check "merge makes the zip of what it recorded" test -s b.trace.zip

# A state whose PID belongs to another process now (reused): never signalled.
sleep 60 &
other=$!
cleanup_hooks+=("kill $other 2>/dev/null")
printf 'pid %s\nstarttime 1\nboot_id %s\nstarted 2020-01-01T00:00:00Z\nstate recording\nshown 0\n' \
	$other "$(cat /proc/sys/kernel/random/boot_id)" >c.trace.state
rc=0
"$PC" stop c >c.stop 2>&1 || rc=$?
check "a PID reused since is not the collector: stop says stale" \
	bash -c "[ $rc = 1 ] && grep -q 'ended without finishing' c.stop"
check "  and leaves that process alone" test -d /proc/$other
# ... and a state from before a reboot
"$PC" start d -pid $hot >d.start 2>&1
pid=$(bg_pid d)
sed -i 's/^boot_id .*/boot_id 00000000-0000-0000-0000-000000000000/' d.trace.state
rc=0
"$PC" stop d >d.stop 2>&1 || rc=$?
check "a state from another boot is stale, its PID not signalled" \
	bash -c "[ $rc = 1 ] && [ -d /proc/$pid ]"
kill -INT "$pid"
wait_until 30 gone $pid

# A collection that ends by itself (-collectsec) is reported by stop, status 0.
"$PC" start e -pid $hot -collectsec 0.3 >e.start 2>&1
pid=$(bg_pid e)
wait_until 30 grep -q "^state finished" e.trace.state || fail "e never finished"
rc=0
"$PC" stop e >e.stop 2>&1 || rc=$?
check "stop after -collectsec ended it: exit 0, says so" \
	bash -c "[ $rc = 0 ] && grep -q 'had already finished by itself' e.stop && grep -q 'Trace saved to ./e.trace.zip' e.stop"

# Errors
rc=0
"$PC" stop nosuch >n.stop 2>&1 || rc=$?
check "stop of an unknown name: exit 1, one line naming start" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <n.stop) = 1 ] && grep -q \"no background collection 'nosuch'\" n.stop"
rc=0
"$PC" start f -pid 999999999 >f.start 2>&1 || rc=$?
check "start whose collector cannot start: exit 1 with its reason" \
	bash -c "[ $rc = 1 ] && grep -q 'no process 999999999' f.start && ! ls f.trace* 2>/dev/null"
finish
