#!/usr/bin/env bash
# view of a .nettrace against PerfView's own reading of it (TraceEvent 4.0.0's TraceLog
# conversion, what PerfView does when it opens one, then a walk of every event and stack:
# tests/traceevent's convert command), side by side on the same files in one run.
#
# The files: `dotnet-trace collect` (NuGet, pinned) of the .NET test app throwing and
# catching exceptions as fast as it can (its storm mode) for SHORT and LONG seconds, with the
# runtime's Exception keyword, the SampleProfiler and the rundown: events with managed stacks,
# a few hundred thousand per second.  Rows per file: events, view's wall and CPU time and
# events/s (view -event exception to folded stacks, every event through the reader and the
# exception tree), its peak RSS, TraceEvent's convert and walk time and peak RSS, and the
# ratio.  Memory must not grow with the file: the LONG file's peak RSS against the SHORT one's.
#   bench/view_nettrace.sh [BUILD_DIR] [RUNS] [SHORT] [LONG]     # defaults: build 3 5 20
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
runs=${2:-3} short=${3:-5} long=${4:-20}
PC=$build/perfcollect-c
export BUILD_DIR=$build
dll=$(sh "$src/tests/workloads/dotnet/build.sh")
te=$(sh "$src/tests/traceevent/build.sh")
dt=$(sh "$src/tests/dotnet_trace.sh")
w=$(mktemp -d /tmp/pcbench-view.XXXXXX)
trap 'rm -rf "$w"' EXIT
cd "$w"

record() { # NAME SECONDS: the storm under dotnet-trace
	local name=$1 secs=$2 go=$w/go.$1
	dotnet "$dll" storm "$go" "$secs" >"$name.app" 2>&1 &
	local app=$!
	for _ in $(seq 300); do grep -q ready "$name.app" && break; sleep 0.1; done
	"$dt" collect -p $app -o "$name.nettrace" --profile dotnet-sampled-thread-time \
		--providers 'Microsoft-Windows-DotNETRuntime:0x8000:4' >"$name.dt" 2>&1 &
	local d=$!
	for _ in $(seq 300); do grep -q "Output File" "$name.dt" && break; sleep 0.1; done
	touch "$go"
	wait $app
	wait $d
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure CMD...: "wall_s cpu_s rss_kb" medians of RUNS runs.
measure() {
	local i out=$w/m.txt
	: >"$out"
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S %M" -o "$w/t.txt" "$@" >/dev/null 2>&1
		awk '{ print $1, $2 + $3, $4 }' "$w/t.txt" >>"$out"
	done
	echo "$(cut -d' ' -f1 "$out" | median) $(cut -d' ' -f2 "$out" | median) $(cut -d' ' -f3 "$out" | median)"
}

record short "$short"
record long "$long"
printf '%-6s %9s %8s | %8s %8s %10s %8s | %10s %10s %8s | %7s\n' file MB events \
	"view s" "cpu s" "events/s" "RSS MiB" "TraceLog s" "cpu s" "RSS MiB" ratio
for f in short long; do
	mb=$(awk -v b="$(stat -c %s $f.nettrace)" 'BEGIN { printf "%.1f", b / 1048576 }')
	ev=$(dotnet "$te" convert $f.nettrace | awk '$1 == "events" { print $2 }')
	read -r vw vc vr < <(measure "$PC" view $f.nettrace -event exception -folded -)
	read -r tw tc tr < <(measure dotnet "$te" convert $f.nettrace)
	printf '%-6s %9s %8s | %8.2f %8.2f %10.0f %8.1f | %10.2f %10.2f %8.1f | %6.1fx\n' \
		$f "$mb" "$ev" "$vw" "$vc" "$(awk -v e="$ev" -v c="$vc" 'BEGIN { print (c > 0 ? e / c : 0) }')" \
		"$(awk -v k="$vr" 'BEGIN { print k / 1024 }')" "$tw" "$tc" \
		"$(awk -v k="$tr" 'BEGIN { print k / 1024 }')" "$(awk -v a="$tw" -v b="$vw" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
echo "(events/s: view's CPU time; ratio: TraceLog's wall time over view's)"
