#!/bin/bash
# The one static binary (scripts/build-static -> build-static/perfcollect-c) collects inside
# a root directory that holds nothing but itself and a mounted /proc: no libraries, no /sys,
# no /tmp, no perf, no zip.  It runs in its own mount and PID namespace, the workload beside
# it in that PID namespace but in the host's filesystem (a sidecar sharing the application's
# PID namespace, not its files).  From outside, real perf reads the perf.data it wrote.
source "$(dirname "$0")/lib.sh"
BIN=${TEST_SRCDIR:?}/../build-static/perfcollect-c
[ -x "$BIN" ] || skip "build-static/perfcollect-c is absent: scripts/test --all builds it (as CI does), or run scripts/build-static first"
need_root
need_perf
need_cmd unshare
need_cmd chroot
need_cmd unzip
need_cmd file

info=$(file -b "$BIN")
check "file calls it statically linked ($info)" grep -q "statically linked" <<<"$info"
check "it needs no interpreter" bash -c "! grep -q 'interpreter' <<<'$info'"

R=$T/root
mkdir -p "$R/proc"
cp "$BIN" "$R/perfcollect-c"
check "the root holds the binary and an empty proc/, nothing else" \
	test "$(cd "$R" && find . -mindepth 1 | sort | tr '\n' ' ')" = "./perfcollect-c ./proc "

# in_root NAME ARGS...: `perfcollect-c collect NAME ARGS...` chrooted into $R, in a new mount
# and PID namespace where $WORKLOADS/hot runs for 5 s beside it (its PID there is passed as
# @HOT@ in ARGS).  The zip lands in $R (the collector's cwd, its /).
in_root() {
	local name=$1
	shift
	unshare --mount --pid --fork --kill-child --propagation private sh -c '
		R=$1 hot=$2 name=$3; shift 3
		mount -t proc proc "$R/proc" || exit 97
		"$hot" 5 & h=$!
		args=""; for a in "$@"; do [ "$a" = @HOT@ ] && a=$h; args="$args $a"; done
		chroot "$R" /perfcollect-c collect "$name" $args
		rc=$?; kill $h 2>/dev/null; wait $h 2>/dev/null; exit $rc' \
		_ "$R" "$WORKLOADS/hot" "$name" "$@" >"$name.out" 2>&1
}

for variant in "pid -pid @HOT@ -collectsec 1" "all -collectsec 1"; do
	set -- $variant
	name=$1
	shift
	in_root "$name" "$@"
	rc=$?
	[ $rc = 97 ] && skip "cannot mount proc in a new PID namespace here: run as root, outside a container that forbids mounts"
	check "$name: collect in the bare root exits 0 ($(tail -1 $name.out))" test $rc -eq 0
	check "$name: $name.trace.zip written in the root" test -s "$R/$name.trace.zip"
	check "$name: no trace directory left behind" test ! -e "$R/$name.trace"
	unzip -q -o "$R/$name.trace.zip" || fail "$name: unzip"
	data=$name.trace/perf.data
	perf script -i "$data" -F pid,ip,sym,dso >"$name.script" 2>"$name.perr"
	n=$(awk 'BEGIN{RS=""} /hot_leaf/{n++} END{print n+0}' "$name.script")
	check "$name: perf script reads perf.data, hot_leaf in $n samples" test "$n" -gt 50
	check "$name: perf script prints no warnings: $(head -2 $name.perr)" test ! -s "$name.perr"
	if [ -f "$name.trace/perf.data.txt" ]; then
		# Symbolized inside the bare root: the workload's binary was read through
		# /proc/<pid>/root, since the collector's own root has no such file.
		check "$name: perf.data.txt names hot_leaf from the workload's binary" \
			grep -q "hot_leaf ($WORKLOADS/hot)" "$name.trace/perf.data.txt"
	fi
	rm -rf "$name.trace"
done
finish
