#!/bin/bash
# Issue 24, finding 12: post-processing reads a process's /tmp/perf-PID.map from the host once
# the process is gone, and any local user can write a file of that name for a pid.  Such a
# file is taken only when it is a regular file of one link, reached without a symlink, owned
# by root or by the user the process ran as, which collect records while it runs (its
# trace directory's process-uids).  A JIT process run as nobody until it exits (the usual
# `collect -pid` until the target ends):
# - its own map keeps naming its JIT frames (a rule without the recorded user named none);
# - a map another user planted for it is refused, one log line saying why;
# - a symlink, a second hard link of root's map and a FIFO planted as its map are refused,
#   and the FIFO blocks nothing.
# And a kallsyms beside a bare perf.data (merge /tmp/x/perf.data: a directory anybody may
# write) is taken only when root's: another user's gives no kernel frame its names.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd node
need_cmd setpriv
need_cmd unzip

nobody=65534 other=$((4100000 + $$ % 1000)) # a user planting files, not the target's
JS='const end = Date.now() + 2500;
function hotJsFunction(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * i) % 7; return s; }
let t = 0; while (Date.now() < end) t += hotJsFunction(100000);'

# start_node NAME [node options]: node as nobody (from /, its cwd) for 2.5 s; sets pid.  A
# map some earlier process of that pid left (pids wrap at pid_max) is removed first, from
# the subshell that then becomes node, before anything is planted for it: else it is root's
# file node cannot write, or ln finds it there.
start_node() {
	local name=$1; shift
	rm -f "$name.ready"
	(rm -f "/tmp/perf-$BASHPID.map" && : >"$name.ready" && cd / &&
		exec setpriv --reuid=$nobody --regid=$nobody --clear-groups node "$@" -e "$JS") &>"$name.node" &
	pid=$!
	wait_until 10 test -e "$name.ready" || fail "$name: node did not start"
	cleanup_hooks+=("kill $pid 2>/dev/null; rm -f /tmp/perf-$pid.map")
}
# collect_until_exit NAME: collect -pid $pid until it exits; unpacks perf.data.txt and the log.
collect_until_exit() {
	local name=$1
	timeout -s KILL 60 "$PC" collect "$name" -pid "$pid" >/dev/null 2>"$name.err"
	local rc=$?
	check "$name: collect finishes (rc $rc; 137: killed after 60 s)" test $rc = 0
	unzip -p "$name.trace.zip" "$name.trace/perf.data.txt" >"$name.txt" 2>/dev/null
	unzip -p "$name.trace.zip" "$name.trace/perfcollect.log" >"$name.log" 2>/dev/null
}

# The target's own map, owned by nobody, read after it exited.
start_node own --perf-basic-prof
wait_until 20 grep -qs hotJsFunction "/tmp/perf-$pid.map" || fail "node wrote no perf map"
check "own: the map is nobody's" test "$(stat -c %u "/tmp/perf-$pid.map")" = $nobody
collect_until_exit own
named=$(grep -c 'hotJsFunction' own.txt)
echo "own: $named frames named hotJsFunction"
check "own: the process was gone before post-processing" \
	grep -q "stop reason: the target process exited" own.log
check "own: its user was recorded ($pid $nobody)" grep -q "users of [1-9][0-9]* sampled processes" own.log
check "own: JIT frames named from its map ($named)" test "$named" -gt 50
check "own: its map is in the archive" bash -c "unzip -l own.trace.zip | grep -q perf-$pid.map"

# plant PATH: a map naming every address plantedName, as root; chown/link/etc. by the case.
plant() { printf '0 7fffffffffff plantedName\n' >"$1"; }

# Another user's map for it.
start_node other
plant "/tmp/perf-$pid.map" && chown $other:$other "/tmp/perf-$pid.map"
collect_until_exit other
n=$(grep -c plantedName other.txt)
check "other: no frame named from the map uid $other planted ($n)" test "$n" = 0
grep "perf-$pid.map" other.log
check "other: one log line says why" test "$(grep -c "JIT file refused: /tmp/perf-$pid.map: owned by uid $other, not the target's uid $nobody (pid $pid is gone" other.log)" = 1
check "other: the planted map is not in the archive" \
	bash -c "! unzip -l other.trace.zip | grep -q perf-$pid.map"

# A symlink to root's map, a second name of root's map, a FIFO.
for kind in symlink hardlink fifo; do
	start_node $kind
	map=/tmp/perf-$pid.map
	case $kind in
	symlink) plant "$T/root.map" && chmod 644 "$T/root.map" && ln -s "$T/root.map" "$map" ;;
	hardlink) plant "$T/root-$pid.map" && ln "$T/root-$pid.map" "$map" ;;
	fifo) mkfifo "$map" ;;
	esac
	collect_until_exit $kind
	n=$(grep -c plantedName $kind.txt)
	check "$kind: no frame named from it ($n)" test "$n" = 0
	grep "JIT file refused" $kind.log
	check "$kind: the log says it was refused" grep -q "JIT file refused: /tmp/perf-$pid.map" $kind.log
	check "$kind: not in the archive" bash -c "! unzip -l $kind.trace.zip | grep -q perf-$pid.map"
	rm -f "$map"
done

# kallsyms beside a bare perf.data: every kernel symbol renamed plantedKernel.
mkdir bare && chmod 1777 bare
perf record -q -e cpu-clock -F 1000 -g -a -o bare/perf.data -- sleep 0.5 >/dev/null 2>&1 ||
	fail "perf record failed"
awk '{ $3 = "plantedKernel"; print }' /proc/kallsyms >bare/kallsyms
for owner in root other; do
	[ $owner = other ] && chown $other bare/kallsyms
	"$PC" merge bare/perf.data -o "ks-$owner.trace.zip" 2>"ks-$owner.err"
	check "kallsyms $owner's: merge exits 0" test $? = 0
	unzip -p "ks-$owner.trace.zip" "*/perf.data.txt" >"ks-$owner.txt"
	unzip -p "ks-$owner.trace.zip" "*/perfcollect.log" >"ks-$owner.log"
	n=$(grep -c 'plantedKernel (\[kernel' "ks-$owner.txt")
	if [ $owner = root ]; then
		check "kallsyms root's: kernel frames named from it ($n)" test "$n" -gt 0
	else
		check "kallsyms other's: no kernel frame named from it ($n)" test "$n" = 0
		check "kallsyms other's: the log says why" \
			grep -q "kernel symbols: .*/bare/kallsyms not taken: .*owned by uid $other" "ks-$owner.log"
	fi
done
finish
