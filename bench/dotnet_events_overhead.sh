#!/usr/bin/env bash
# The cost of the .NET runtime events for the traced app: the test app's fixed mixed work
# (tests/workloads/dotnet Program.cs, Bench: two threads; allocation and GCs, LINQ and
# strings, an exception every 100 rounds, a shared lock every 10) timed by the app itself
# under `collect -pid` with perfcollect's default event set on and off (-nodotnetevents),
# and with no collector; interleaved, RUNS times each, medians.  Then a storm of
# exceptions (4 events with stacks each) for the events per second the collector takes
# without loss.
#
#   bench/dotnet_events_overhead.sh [BUILD_DIR] [ROUNDS] [RUNS]    # defaults: build 30000 5
#
# ON_ARGS="-events GROUP,..." measures a part of the set instead (what dominates).
#
# Needs root and the .NET SDK.  See bench/README.md.
set -euo pipefail
build=$(realpath "${1:-build}")
rounds=${2:-30000}
runs=${3:-5}
PC=$build/perfcollect-c
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$PC" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (perf_event_open)" >&2; exit 2; }
DLL=$(BUILD_DIR=$build sh "$src/tests/workloads/dotnet/build.sh" | tail -n 1)
[ -f "$DLL" ] || { echo "cannot build the .NET test app" >&2; exit 2; }

work=$(mktemp -d /tmp/pcbench.XXXXXX)
app=none
cleanup() {
	[ "$app" = none ] || kill "$app" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

# one MODE N: under MODE (none, off, on), the app's elapsed and CPU ms for the work (its
# threads and the runtime's; in app.MODE.N); the collector's CPU time in cpu.MODE.N
one() {
	local mode=$1 n=$2 go=go.$mode.$n
	dotnet "$DLL" bench "$go" "$rounds" >"app.$mode.$n" 2>&1 &
	local job=$!
	until grep -qs '^ready' "app.$mode.$n"; do sleep 0.05; done
	app=$(awk '/^ready/ { print $2 }' "app.$mode.$n")
	local coll=none
	if [ "$mode" != none ]; then
		local extra=()
		[ "$mode" = off ] && extra=(-nodotnetevents)
		# shellcheck disable=SC2206 # ON_ARGS: words
		[ "$mode" = on ] && extra=(${ON_ARGS:-})
		{ TIMEFORMAT='%U %S'; time "$PC" collect "t.$mode.$n" -pid "$app" "${extra[@]}" \
			2>"coll.$mode.$n"; } 2>"cpu.$mode.$n" &
		coll=$!
		until grep -qs Collecting "coll.$mode.$n"; do sleep 0.05; done
	fi
	touch "$go"
	wait "$job"
	app=none
	[ "$coll" = none ] || wait "$coll"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for n in $(seq "$runs"); do
	for mode in off on none; do
		one $mode "$n"
	done
done
for what in elapsed_ms cpu_ms; do
	for mode in none off on; do
		cat app.$mode.* | awk -v w="$what" '/^elapsed_ms/ { for (i = 1; i < NF; i++) if ($i == w) print $(i + 1) }' |
			median >"$what.$mode"
	done
	awk -v w="$what" -v none="$(cat "$what.none")" -v off="$(cat "$what.off")" -v on="$(cat "$what.on")" \
		-v runs="$runs" 'BEGIN {
		printf "app %s for the work, median of %d: no collector %.1f, collect -nodotnetevents %.1f, collect (default .NET events) %.1f\n",
			w, runs, none, off, on
		printf "  slowdown from the .NET events (on vs off): %+.2f%%; from the whole collection (on vs none): %+.2f%%\n",
			(on / off - 1) * 100, (on / none - 1) * 100 }'
done
# What the default set recorded in one run, and what it cost the collector.
log=$("$PC" cat t.on.1.trace.zip perfcollect.log)
echo "$log" | grep -o 'dotnet-[0-9]*.nettrace: NetTrace.*' | head -n 1
"$PC" view t.on.1.trace.zip -runtime -top 3 2>/dev/null |
	grep -E '^# (GCs|Exceptions|Lock contention|JIT|Allocation)' || true
for mode in off on; do
	awk -v m="$mode" '{ u += $1; s += $2; n++ } END {
		printf "collector CPU per run (%s): %.3f s user + %.3f s sys\n", m, u / n, s / n }' cpu.$mode.*
done

# Events per second the collector takes: an exception storm (4 events each, stacks).
dotnet "$DLL" storm go.storm 5 >app.storm 2>&1 &
app=$!
until grep -qs '^ready' app.storm; do sleep 0.05; done
"$PC" collect storm -pid "$app" -nodotnetipc 2>coll.storm &
coll=$!
until grep -qs Collecting coll.storm; do sleep 0.05; done
touch go.storm
wait "$app"
app=none
wait "$coll"
line=$("$PC" cat storm.trace.zip perfcollect.log | grep -o 'dotnet-[0-9]*.nettrace: NetTrace.*' | head -n 1)
echo "storm: $(cat app.storm | tail -n 1) exceptions; $line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "events") e = $(i - 1); if ($i == "over") s = $(i + 1) } }
	END { if (s > 0) printf "storm: %.0f events/s recorded\n", e / s }'
"$PC" cat storm.trace.zip perfcollect.log | grep -q 'dropped' && echo "storm: the runtime dropped events" ||
	echo "storm: no event lost"
