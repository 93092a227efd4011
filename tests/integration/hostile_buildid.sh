#!/bin/bash
# Issue 24, finding 2: collect reads the build-id of every file samples hit; a process that
# is gone by then (here: the target itself, which ends the collection by exiting) can no
# longer be reached through /proc/<pid>/root, and its file's name means another file on the
# host.  A container runs /tmp/<dir>/hot from its own /tmp; on the host that name is a FIFO
# (a collector that opens it hangs after "Stopped", Ctrl+C ignored, no zip) and, for a
# second container, a symlink to another program (whose build-id would be recorded as the
# container's, and whose symbols would name its frames: finding 11).  collect must finish,
# and neither it nor its post-processing take the host's file for the container's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container/helpers.sh"
need_containers
[ -x "$WORKLOADS/hot" ] || skip "tests/workloads/hot is not built"
need_cmd unzip

dir=/tmp/h24-buildid-$$-$RANDOM
mkdir "$dir"
cleanup_hooks+=("rm -rf $dir")
cp "$WORKLOADS/hot" "$T/hot.bin"
mkfifo "$dir/fifo"
ln -s "$WORKLOADS/blocker" "$dir/other"

run_case() { # NAME FILE: a container runs hot as /tmp/<dir>/FILE for 3 s; collect -pid it
	local name=$1 file=$2 u p
	start_container "$name" "mkdir -p $dir && cp hot.bin $dir/$file && exec $dir/$file 3"
	eval "u=\$${name}_u"
	ready() { p=$(container_pid1 "$u") && [ "$(cat /proc/$p/comm 2>/dev/null)" = "$file" ]; }
	wait_until 20 ready || { fail "$name: the container did not start: $(cat $name.out)"; return; }
	timeout -s KILL 60 "$PC" collect "$name" -pid "$p" 2>"$name.err"
	local rc=$?
	check "$name: collect finishes (rc $rc, 137: killed after 60 s)" test $rc = 0
	check "$name: the archive is written" test -s "$name.trace.zip"
	unzip -p "$name.trace.zip" "$name.trace/perfcollect.log" >"$name.log" 2>/dev/null
	check "$name: the log says the host's $dir/$file is not the file that was mapped" \
		grep -q "no build-id for $dir/$file of pid $p: $dir/$file: not the file that was mapped" "$name.log"
}

run_case fifo fifo
check "the host's FIFO is still a FIFO, never opened" test -p "$dir/fifo"
run_case other other
# Finding 11: post-processing must not take the host's file of that name for the gone
# process's either (the blocker program's symbols would name hot's addresses): the MMAP2
# record's device and inode are the container's file, not the host's.
unzip -p other.trace.zip other.trace/perf.data.txt >other.txt 2>/dev/null
total=$(grep -cE "\($dir/other\)\$" other.txt)
named=$(grep -E "\($dir/other\)\$" other.txt | grep -vc '\[unknown\]')
check "other: frames in $dir/other ($total)" test "$total" -gt 0
check "other: no frame in $dir/other named from the host's file ($named named)" test "$named" = 0
check "other: the log says why" grep -q "symbols: $dir/other of pid [0-9]*, which is gone: $dir/other: not the file that was mapped" other.log
finish
