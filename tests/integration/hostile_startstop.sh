#!/bin/bash
# Issue 24, finding 10: start/stop's files (the registry: /run/perfcollect-c for root).  `stop`
# (root) must not follow a symlink planted as the collector's output (it would print the file
# it points to), must not hang on a FIFO planted as the state, must not believe a state
# another user owns, and must not signal a process the state names unless it runs this
# program (same boot, start time and recorded executable is not enough: a state can name a
# script with its interpreter's identity).  start/stop still work.  The names are this run's
# own (other tests and users of the machine share root's registry).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
[ -x "$WORKLOADS/hot" ] || skip "tests/workloads/hot is not built"

secret=SECRET-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
echo "$secret" >"$T/secret"
chmod 600 "$T/secret"
boot=$(cat /proc/sys/kernel/random/boot_id)
reg=/run/perfcollect-c
n=hs$$x # this run's names: ${n}a ... ${n}e
if [ ! -d $reg ]; then
	mkdir -m 700 $reg || fail "cannot make $reg"
fi
cleanup_hooks+=("rm -f $reg/${n}?.state $reg/${n}?.out")
exe_id() { python3 -c 'import os, sys
st = os.stat("/proc/%s/exe" % sys.argv[1])
print("%d,%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))' "$1"; }
state() { # PID STARTTIME STATE [EXE]
	printf 'pid %s\nstarttime %s\nboot_id %s\nexe %s\nstarted 2026-01-01T00:00:00Z\nstate %s\nstatus 0\nshown 0\nzip %s\ntrace_dir %s\n' \
		"$1" "$2" "$boot" "${4:-0,0:0}" "$3" "$T/x.trace.zip" "$T/x.trace"
}
starttime() { awk '{ sub(/.*\) /, ""); print $20 }' /proc/$1/stat; }
unsignalled() { [ ! -e "$T/victim.got" ]; }
stop_bounded() { # NAME: stop ${n}NAME, killed after 20 s
	timeout -s KILL 20 "$PC" stop "$n$1" >"$1.stdout" 2>"$1.err"
	echo $? >"$1.rc"
}

# A finished collection's state, its output a symlink to the secret.
state 1 1 finished >$reg/${n}a.state
ln -s "$T/secret" $reg/${n}a.out
stop_bounded a
check "stop with a symlinked output: the secret is not shown" bash -c "! grep -q $secret a.err a.stdout"
check "stop says why it shows nothing" grep -q "${n}a.out is a symlink: refused" a.err

# A FIFO as the state: stop must not wait for a writer.
mkfifo $reg/${n}b.state
stop_bounded b
check "stop with a FIFO state: it returns (rc $(cat b.rc), not killed)" test "$(cat b.rc)" != 137
check "stop says the state is not a regular file" grep -q "${n}b.state is not a regular file" b.err

# A state naming a process that is not ours, with its true start time, boot id and executable.
# (a script of ours that says when it gets SIGINT: a plain background job ignores it)
python3 -c 'import signal, sys, time
signal.signal(signal.SIGINT, lambda *a: open(sys.argv[1], "w").write("SIGINT"))
open(sys.argv[2], "w").write("ready")
while True: time.sleep(1)' "$T/victim.got" "$T/victim.ready" &
victim=$!
wait_until 10 test -s "$T/victim.ready" || fail "the victim did not start"
cleanup_hooks+=("kill $victim 2>/dev/null")
state $victim "$(starttime $victim)" recording "$(exe_id $victim)" >$reg/${n}c.state
stop_bounded c
check "stop does not signal a process that is not a collector" unsignalled
check "stop says the state's collector is gone" grep -q "ended without finishing" c.err

# The same written by another user: not believed at all.
state $victim "$(starttime $victim)" recording "$(exe_id $victim)" >$reg/${n}d.state
chown 12345 $reg/${n}d.state
stop_bounded d
check "stop does not signal what another user's state names" unsignalled
check "stop says whose state it is" grep -q "${n}d.state is owned by uid 12345, not by us" d.err

# The real thing still works.
start_hot 60
"$PC" start ${n}e -pid $hot 2>e.start.err
check "start exits 0" test $? = 0
stop_bounded e
check "stop of a real background collection exits 0 ($(cat e.err | head -3))" test "$(cat e.rc)" = 0
check "and writes its archive" test -s ${n}e.trace.zip
finish
