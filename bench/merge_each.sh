#!/usr/bin/env bash
# merge against perf script on each workload of bench/speed.sh alone, and on the mix (issue 30:
# ">= 5x perf script on every workload"), side by side in one run, as ratios.  See
# bench/README.md.
#
#   sudo bench/merge_each.sh [--build DIR] [--binary PATH] [--base DIR] [--runs N]
#                            [--seconds S] [--only NAMES] [--keep DIR] [--traces DIR]
#
#   --build DIR    the build whose perfcollect-c is measured (default: build)
#   --binary PATH  measure this perfcollect-c instead of the build's (the build still gives
#                  the workloads), e.g. build-static/perfcollect-c, what users run
#   --base DIR     a second build measured in the same rounds (before/after a change)
#   --runs N       rounds; in each, perf script, merge (and the base's merge, the two builds
#                  in alternate order) run in turn on every trace; medians are printed
#                  (default 3)
#   --seconds S    the length of each recording (default 20)
#   --only NAMES   a comma-separated subset of mix,native,node,dotnet,fs (default: all)
#   --keep DIR     record into DIR and keep the traces there (and the JIT processes' maps in
#                  /tmp, which merge of a bare perf.data reads; the script lists them)
#   --traces DIR   measure the NAME.data traces of an earlier --keep DIR, recording nothing
#
# Each trace is recorded as perfcollect records (perf record -k 1 -g -a -F 1000 -e
# cpu-clock): system-wide, with only that workload of bench/workloads.sh running (native:
# tests/workloads/hot, two threads, shallow frame-pointer stacks; node: deep JS recursion
# with a perf map; dotnet: the .NET test app with perf map and jitdump; fs: a file-system
# walk, kernel stacks; mix: all four, speed.sh's trace).  The workloads stop before anything
# is timed.  Needs root, perf; node and the .NET SDK for those two.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
binary=
base=
runs=3
seconds=20
only=mix,native,node,dotnet,fs
keep=
traces=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$(realpath "$2"); shift 2 ;;
	--binary) binary=$(realpath "$2"); shift 2 ;;
	--base) base=$(realpath "$2"); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--keep) mkdir -p "$2"; keep=$(realpath "$2"); shift 2 ;;
	--traces) traces=$(realpath "$2"); shift 2 ;;
	-h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "merge_each.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
PC=${binary:-$build/perfcollect-c}
FIELDS=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
[ -x "$PC" ] && [ -x "$build/tests/workloads/hot" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
[ -z "$base" ] || [ -x "$base/perfcollect-c" ] || { echo "merge_each.sh: no $base/perfcollect-c" >&2; exit 2; }
command -v perf >/dev/null || { echo "merge_each.sh: needs perf (Debian linux-perf)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "merge_each.sh: needs root (system-wide traces)" >&2; exit 2; }

# shellcheck source=bench/workloads.sh
source "$top/bench/workloads.sh"
# shellcheck source=bench/stats.sh
source "$top/bench/stats.sh"
work=$(mktemp -d /tmp/pceach.XXXXXX)
maps=()
cleanup() {
	workloads_stop
	if [ -z "$keep" ]; then
		for p in "${maps[@]}"; do
			rm -f "/tmp/perf-$p.map" "/tmp/perfinfo-$p.map" "/tmp/jit-$p.dump"
		done
	fi
	local p
	for p in "${maps[@]}"; do rm -f /tmp/dotnet-diagnostic-"$p"-*-socket /tmp/clr-debug-pipe-"$p"-*; done
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
dir=${traces:-${keep:-$work}}

echo "merge_each.sh: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds, medians"
echo "perfcollect-c: $PC${base:+; base: $base/perfcollect-c}"
IFS=, read -r -a names <<<"$only"
if [ -z "$traces" ]; then
	for n in "${names[@]}"; do
		case $n in mix) set -- native,node,dotnet,fs ;; *) set -- "$n" ;; esac
		workloads_start "$build" "$work" "$1"
		maps+=($NODE_PID $DOTNET_PID)
		perf record -q -k 1 -g -a -F 1000 -e cpu-clock -o "$dir/$n.data" -- sleep "$seconds" \
			>/dev/null 2>&1
		workloads_stop
	done
	[ -z "$keep" ] || [ ${#maps[@]} = 0 ] ||
		echo "kept in $keep; merge reads the JIT maps of pids ${maps[*]} in /tmp (remove them after)"
fi

for r in $(seq "$runs"); do
	for n in "${names[@]}"; do
		timed1 "script_$n" perf script -i "$dir/$n.data" --fields "$FIELDS"
		# the two builds take turns at running first after perf script (the first one
		# after it was measured slower: the memory perf script freed)
		if [ -n "$base" ] && [ $((r % 2)) = 0 ]; then
			timed1 "base_$n" "$base/perfcollect-c" merge "$dir/$n.data" -o "$work/m.trace.zip"
			timed1 "merge_$n" "$PC" merge "$dir/$n.data" -o "$work/m.trace.zip"
		else
			timed1 "merge_$n" "$PC" merge "$dir/$n.data" -o "$work/m.trace.zip"
			[ -z "$base" ] || timed1 "base_$n" "$base/perfcollect-c" merge "$dir/$n.data" -o "$work/m.trace.zip"
		fi
	done
	echo "   round $r done, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo
printf '   %-7s %8s  %-17s %-17s %-17s %s\n' trace samples "perf script" "merge" \
	"${base:+base merge}" "ratio wall/cpu${base:+ (base)}"
for n in "${names[@]}"; do
	samples=$(perf script -i "$dir/$n.data" -F event 2>/dev/null | grep -c 'cpu-clock:' || true)
	b= br=
	if [ -n "$base" ]; then
		b=$(printf '%.2f / %.2f s' "$(med "base_$n.wall")" "$(med "base_$n.cpu")")
		br=" ($(ratio "$(med "script_$n.wall")" "$(med "base_$n.wall")") / $(ratio "$(med "script_$n.cpu")" "$(med "base_$n.cpu")"))"
	fi
	printf '   %-7s %8s  %-17s %-17s %-17s %s\n' "$n" "$samples" \
		"$(printf '%.2f / %.2f s' "$(med "script_$n.wall")" "$(med "script_$n.cpu")")" \
		"$(printf '%.2f / %.2f s' "$(med "merge_$n.wall")" "$(med "merge_$n.cpu")")" "$b" \
		"$(ratio "$(med "script_$n.wall")" "$(med "merge_$n.wall")") / $(ratio "$(med "script_$n.cpu")" "$(med "merge_$n.cpu")")$br"
done
echo "   (wall / user+sys CPU; ratio = perf script's over merge's; goal: >= 5x wall on every trace)"
echo "   merge peak RSS (MiB):$(for n in "${names[@]}"; do printf ' %s %.1f' "$n" "$(awk "BEGIN{print $(med "merge_$n.rss") / 1024}")"; done)"
[ -z "$base" ] || echo "   base peak RSS (MiB): $(for n in "${names[@]}"; do printf ' %s %.1f' "$n" "$(awk "BEGIN{print $(med "base_$n.rss") / 1024}")"; done)"
echo "   load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
