#!/usr/bin/env bash
# The HTML report's size and opening time (issue 27: a 2 s trace under 1 MB, a 400k-sample
# trace under 15 MB, open in Chromium in under 2 s), side by side with the goals:
#
#   bench/view_html.sh [--build DIR] [--samples N] [--runs N]
#
# Traces: a 2 s collect of the C workload (root; skipped otherwise) and a perf script text
# of N (400000) cpu-clock samples over 16 threads and 4000 distinct stacks 8 to 24 frames
# deep, one per ms per thread.  Each page is opened --runs (3) times in Debian's chromium,
# headless (tests/formats/html_check.js: one browser); the figures are medians: the
# navigation's loadEventEnd (the page's script runs inline before it: data parsed, trees
# built, flame graph, timeline and call tree drawn), and the renderer process's CPU time to
# that point (DevTools' Performance.getMetrics ProcessTime), which a loaded machine does not
# inflate as it does wall times (the load average is printed with them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
samples=400000
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--build DIR] [--samples N] [--runs N]" >&2; exit 2 ;;
	esac
done
PC=$build/perfcollect-c
NM=$(sh "$here/tests/formats/install.sh") || { echo "$NM" >&2; exit 1; }
export NODE_PATH=$NM/node_modules
W=$(mktemp -d /tmp/pcbench-html.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

awk -v n="$samples" 'BEGIN {
	srand(42)
	for (s = 0; s < 4000; s++) {
		d = 8 + int(rand() * 17); st = ""
		for (k = 0; k < d; k++) {
			f = k < 3 ? "frame_" k : "func_" int(rand() * (k < 6 ? 40 : 3000))
			st = sprintf("\t%16x %s (/usr/lib/libapp%d.so)\n", 4096 + k * 16, f, k % 7) st
		}
		stack[s] = st
	}
	for (i = 0; i < n; i++) {
		tid = 1000 + i % 16; us = int(i / 16) * 1000
		s = int(rand() ^ 3 * 4000)
		printf "app %d/%d [%03d] %d.%06d: 1000000 cpu-clock:\n%s\n", 1000, tid, i % 4,
			100 + int(us / 1000000), us % 1000000, stack[s]
	}
}' >big.txt
t0=$(date +%s.%N)
"$PC" view big.txt -format html -o big.html 2>/dev/null
t1=$(date +%s.%N)
pages='{"file":"big.html","name":"big"}'
rows=("big.txt|$samples|$(stat -c %s big.html)|15728640|$(echo "$t1 - $t0" | bc)")
if [ "$(id -u)" = 0 ]; then
	"$build/tests/workloads/hot" 5 2 &
	hot=$!
	"$PC" collect hot -pid "$hot" -collectsec 2 >/dev/null 2>&1 || true
	kill "$hot" 2>/dev/null || true
	wait "$hot" 2>/dev/null || true
	if [ -s hot.trace.zip ]; then
		t0=$(date +%s.%N)
		"$PC" view hot.trace.zip -format html -o hot.html 2>/dev/null
		t1=$(date +%s.%N)
		n=$("$PC" view hot.trace.zip 2>/dev/null | awk '/^# Event: cpu-clock/ { print $4; exit }')
		rows+=("hot.trace.zip (2 s)|$n|$(stat -c %s hot.html)|1048576|$(echo "$t1 - $t0" | bc)")
		pages="$pages,"'{"file":"hot.html","name":"hot"}'
	fi
fi
spec=$(for ((r = 0; r < runs; r++)); do printf '%s%s' "$([ $r = 0 ] || echo ,)" "$pages"; done)
echo "[$spec]" >spec.json
mkdir -p shots
node "$here/tests/formats/html_check.js" shots spec.json >res.txt
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
printf '%-22s %9s %12s %12s %10s %10s %9s %9s\n' trace samples "page bytes" "goal" "write s" \
	"load ms" "cpu ms" "goal ms"
for row in "${rows[@]}"; do
	IFS='|' read -r name n bytes goal secs <<<"$row"
	page=${name%% *}; page=${page%.txt}; page=${page%.trace.zip}
	load=$(awk -F'\t' -v p="$page" '$1 == p && $2 == "load_ms" { print $3 }' res.txt | median)
	wall=$(awk -F'\t' -v p="$page" '$1 == p && $2 == "load_ms" { print $NF }' res.txt | median)
	printf '%-22s %9s %12s %12s %10.2f %10s %9s %9s\n' "$name" "$n" "$bytes" "< $goal" "$secs" \
		"$load" "$wall" "< 2000"
done
awk -F'\t' '$2 == "console_errors" && $3 != 0 { print "console errors in " $1 ": " $4; bad = 1 } END { exit bad }' res.txt
