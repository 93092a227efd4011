#!/usr/bin/env bash
# What each entry of the trace.zip costs per sample, against perfcollect's zip of the same
# load (issue 30): SECONDS system-wide under bench/workloads.sh's mix, `collect` (default
# options: hybrid call stacks, the .NET runtime's events) and, at the same time, `perf record
# -k 1 -g -a -F 1000 -e cpu-clock` as perfcollect records; perfcollect's zip is then built
# from perf's file as its ProcessCollectedData does (perf inject --jit, perf script's
# perf.data.txt, the JIT maps, zip -r).  Prints, median of RUNS, each entry's bytes in our
# zip per sample, the whole zip's per sample against perfcollect's, and stop -> zip.
#
#   sudo bench/zip_entries.sh [BUILD_DIR] [SECONDS] [RUNS]    # defaults: build 10 3
#   VERBOSE=1: each run's entries too; KEEP=DIR: our zips kept there
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
secs=${2:-10}
runs=${3:-3}
PC=$build/perfcollect-c
FIELDS=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
for t in perf zip unzip; do
	command -v "$t" >/dev/null || { echo "zip_entries.sh: needs $t" >&2; exit 1; }
done
work=$(mktemp -d /tmp/zip-entries.XXXXXX)
trap 'workloads_stop; workloads_remove_maps; rm -rf "$work"' EXIT
cd "$work"
# shellcheck source=bench/workloads.sh
source "$top/bench/workloads.sh"

med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# perfcollect's zip of perf's recording: prints its size and its samples.
perfcollect_zip() { # DATA MAPS_DIR
	rm -rf ref && mkdir -p ref/x
	cp "$1" ref/x/perf.data
	cp "$2"/perf-*.map "$2"/perfinfo-*.map "$2"/jit-*.dump ref/x/ 2>/dev/null || true
	(cd ref/x && { perf inject -i perf.data --jit -o perf-jit.data >/dev/null 2>&1 ||
		cp perf.data perf-jit.data; } &&
		perf script -i perf-jit.data --fields "$FIELDS" >perf.data.txt 2>/dev/null &&
		cd .. && zip -qr x.zip x)
	local n
	n=$(grep -c '^[^[:space:]]' ref/x/perf.data.txt)
	unzip -v ref/x.zip | awk -v n="$n" '$NF ~ /^x\/./ {
		e = $NF; sub(/^x\//, "", e)
		if (e ~ /\.(map|dump)$/) e = "JIT maps"
		s[e] += $3; raw[e] += $1
	} END { for (e in s) printf "%s %.1f %.1f\n", e, s[e] / n, raw[e] / n }' >>ref.entries
	echo "$(stat -c %s ref/x.zip) $n"
}

for run in $(seq "$runs"); do
	rm -rf zc.* ours ref.data
	workloads_start "$build" "$work"
	{ "$PC" collect zc -collectsec "$secs" 2>&1 |
		while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >zc.out; echo "$(date +%s.%N)" >zc.end; } &
	bg=$!
	perf record -q -k 1 -g -a -F 1000 -e cpu-clock -o ref.data -- sleep "$secs" >/dev/null 2>&1
	wait "$bg"
	workloads_stop
	ts=$(grep -m1 -E '^[0-9.]+ perfcollect-c: Stopped' zc.out | cut -d' ' -f1)
	[ -n "$ts" ] && [ -s zc.trace.zip ] || { echo "zip_entries.sh: collect failed:" >&2; tail -5 zc.out >&2; exit 1; }
	awk "BEGIN{print $(cat zc.end) - $ts}" >>stop.s
	n=$("$PC" log zc.trace.zip | sed -n 's/.*records: .*, samples: \([0-9]*\),.*/\1/p' | tail -1)
	unzip -q zc.trace.zip -d ours
	unzip -v zc.trace.zip | awk -v n="$n" -v run="$run" '$NF ~ /\// {
		e = $NF; sub(/^[^\/]*\//, "", e)
		if (e ~ /^dotnet-[0-9]+\.nettrace$/) e = "dotnet-PID.nettrace"
		else if (e ~ /\.nettrace$/) e = "NAME.nettrace"
		else if (e ~ /\.(map|dump)$/) e = "JIT maps"
		s[e] += $3; raw[e] += $1
	} END { for (e in s) printf "%s %.1f %.1f\n", e, s[e] / n, raw[e] / n }' >entries.run
	cat entries.run >>entries
	[ -z "${VERBOSE:-}" ] || sort entries.run | sed 's/^/   /' >&2
	[ -z "${KEEP:-}" ] || cp zc.trace.zip "$KEEP/zc-$run.trace.zip"
	echo "$(stat -c %s zc.trace.zip) $n" | awk '{ printf "%.1f\n", $1 / $2 }' >>ours.ps
	read -r rsize rn <<<"$(perfcollect_zip ref.data "$(dirname "$(find ours -name perf.data | head -1)")")"
	awk -v s="$rsize" -v n="$rn" 'BEGIN { printf "%.1f\n", s / n }' >>ref.ps
	workloads_remove_maps
	echo "run $run: ours $n samples, $(stat -c %s zc.trace.zip) bytes; perfcollect's $rn samples, $rsize bytes" >&2
done

echo "zip bytes per sample, $secs s system-wide under the mix (median of $runs; uncompressed in brackets)"
entry() { # FILE NAME
	grep -F "$2 " "$1" | awk '{ print $(NF - 1) }' >e.tmp || true
	grep -F "$2 " "$1" | awk '{ print $NF }' >r.tmp || true
	[ -s e.tmp ] && printf '   %-22s %7.1f  (%.1f)\n' "$2" "$(med e.tmp)" "$(med r.tmp)"
	return 0
}
echo " ours:"
for e in perf.data perf.data.txt NAME.nettrace dotnet-PID.nettrace "JIT maps" perfcollect.log; do
	entry entries "$e"
done
printf '   %-22s %7.1f\n' "whole zip" "$(med ours.ps)"
echo " perfcollect's (perf record -g as it records, zip -r as it packs):"
for e in perf.data perf-jit.data perf.data.txt "JIT maps"; do
	entry ref.entries "$e"
done
printf '   %-22s %7.1f\n' "whole zip" "$(med ref.ps)"
echo "   ours / perfcollect's: $(awk "BEGIN{printf \"%.2f\", $(med ours.ps) / $(med ref.ps)}")  [goal: <= 0.9]"
echo "   stop -> zip: $(awk "BEGIN{printf \"%.2f\", $(med stop.s)}") s, under the workloads  [goal: <= 1 s]"
