#!/bin/bash
# Issue 24, finding 1: stacks looks for a module's separate debug file (its .gnu_debuglink
# name) to name frames.  A container's program names hot.dbg; in the container that name is
# a FIFO (a blocking open hung stacks, and kept the target stopped while it was looked up
# in the stop) or a symlink to a host path (root opened the host's file: here the real debug
# file, which exists only on the host, and its line numbers showed in the report).  stacks
# must finish, leave the target running and untraced, and read neither.  Ctrl+C (SIGINT)
# during a snapshot must resume the target at once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container/helpers.sh"
need_containers
need_cmd cc
need_cmd objcopy

dir=/tmp/h24-dbglink-$$-$RANDOM
cc -g -O1 -fno-omit-frame-pointer -o hot.full "${TEST_SRCDIR:?}/workloads/hot.c" -lpthread ||
	fail "cannot build hot"
objcopy --only-keep-debug hot.full hot.dbg
objcopy --strip-debug --add-gnu-debuglink=hot.dbg hot.full hot.bin

run_case() { # NAME SETUP: a container runs hot.bin as $dir/hot after SETUP; stacks it
	local name=$1 setup=$2 u p
	start_container "$name" "mkdir -p $dir && cp hot.bin $dir/hot && $setup && exec $dir/hot 600"
	eval "u=\$${name}_u"
	ready() { p=$(container_pid1 "$u") && [ "$(cat /proc/$p/comm 2>/dev/null)" = hot ]; }
	wait_until 20 ready || { fail "$name: the container did not start: $(cat $name.out)"; return; }
	timeout -s KILL 30 "$PC" stacks -pid "$p" >"$name.txt" 2>"$name.err"
	local rc=$?
	check "$name: stacks finishes (rc $rc, 137: killed after 30 s)" test $rc = 0
	check "$name: the target's frames are shown" grep -q hot_leaf "$name.txt"
	check "$name: the target is not traced afterwards" \
		grep -q '^TracerPid:[[:space:]]*0$' "/proc/$p/status"
	check "$name: the target runs afterwards" \
		grep -Eq '^State:[[:space:]]*[RS]' "/proc/$p/status"
	eval "${name}_p=$p"
}

run_case real "cp hot.dbg $dir/hot.dbg"
check "real: the container's own debug file gives line numbers" grep -q 'hot\.c:[0-9]' real.txt
run_case fifo "mkfifo $dir/hot.dbg"
run_case link "ln -s $T/hot.dbg $dir/hot.dbg"
check "link: no line numbers from the host's debug file" eval "! grep -q 'hot\.c:[0-9]' link.txt"

finish
