#!/usr/bin/env bash
# merge vs perf script, side by side on the same perf.data, recorded here by real
# `perf record -a -g` while a C program (2 threads), node running JIT code with deep JS
# stacks (--perf-basic-prof) and a file-system walk (kernel stacks) keep both CPUs busy.
#
#   bench/merge_vs_perf_script.sh [BUILD_DIR] [SECONDS] [RUNS]
#
# Prints the time and peak RSS of each (best of RUNS), the ratio, and merge's peak RSS on a
# recording a quarter as long, to show that memory does not grow with the samples.
# Needs root, perf and node.  See bench/README.md.
set -euo pipefail
build=$(realpath "${1:-build}")
secs=${2:-15}
runs=${3:-3}
PC=$build/perfcollect-c
HOT=$build/tests/workloads/hot
FIELDS=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
[ -x "$PC" ] && [ -x "$HOT" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
command -v perf >/dev/null || { echo "needs perf (Debian linux-perf)" >&2; exit 2; }
command -v node >/dev/null || { echo "needs node (the JIT process)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (perf record -a)" >&2; exit 2; }

work=$(mktemp -d /tmp/pcbench.XXXXXX)
pids=()
node_pid=none
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -f "/tmp/perf-$node_pid.map"
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

cat >deep.js <<'EOF'
// Deep recursion through several functions, so JS stacks are tens of frames deep.
function leaf(n) { let x = 0; for (let i = 0; i < 200; i++) x += i * n; return x; }
function walk(d, n) { return d === 0 ? leaf(n) : step(d - 1, n + 1); }
function step(d, n) { return d % 3 === 0 ? walk(d, n) + 1 : walk(d, n); }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0;
for (;;) { s += walk(40, 1) + fib(18); if (s < 0) break; }
EOF
node --perf-basic-prof deep.js &
pids+=($!)
node_pid=$!
for _ in $(seq 100); do grep -q leaf "/tmp/perf-$node_pid.map" 2>/dev/null && break; sleep 0.1; done
"$HOT" 100000 2 &
pids+=($!)
(while :; do find / -xdev -name '*.so*' >/dev/null 2>&1; done) &
pids+=($!)

record() { # record FILE SECONDS
	perf record -q -a -g -e cpu-clock -F 2000 -o "$1" -- sleep "$2" >/dev/null 2>&1
}
# Best of $runs runs: wall time and CPU time (user + sys, which a busy machine distorts
# far less than wall time), and the largest peak RSS.
measure() { # measure NAME COMMAND... -> sets best_s, best_cpu, best_kb
	local name=$1 s u k kb cpu
	shift
	best_s= best_cpu= best_kb=
	for _ in $(seq "$runs"); do
		/usr/bin/time -o time.out -f '%e %U %S %M' "$@" >/dev/null 2>&1 ||
			{ echo "$name failed" >&2; exit 1; }
		read -r s u k kb <time.out
		cpu=$(awk "BEGIN{print $u + $k}")
		if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s; fi
		if [ -z "$best_cpu" ] || awk "BEGIN{exit !($cpu < $best_cpu)}"; then best_cpu=$cpu; fi
		if [ -z "$best_kb" ] || [ "$kb" -gt "$best_kb" ]; then best_kb=$kb; fi
	done
}

record long.data "$secs"
record short.data "$((secs / 4 > 0 ? secs / 4 : 1))"
# The workloads stop before timing (they would compete for the CPUs); node's map stays
# in /tmp, where perf script and merge both find it.
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
samples=$(perf script -i long.data -F event 2>/dev/null | grep -c 'cpu-clock:')
echo "perf.data: $(du -h long.data | cut -f1), $samples samples in $secs s (node pid $node_pid)"
echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

measure perf perf script -i long.data --fields "$FIELDS"
perf_s=$best_s perf_cpu=$best_cpu perf_kb=$best_kb
measure merge "$PC" merge long.data -o long.trace.zip
merge_s=$best_s merge_cpu=$best_cpu merge_kb=$best_kb
measure merge "$PC" merge short.data -o short.trace.zip
short_kb=$best_kb

# Same text? (perf script prints the same fields; count differing lines.)
perf script -i long.data --fields "$FIELDS" >perf.txt 2>/dev/null
"$PC" cat long.trace.zip perf.data.txt >ours.txt
differing=$(diff perf.txt ours.txt | grep -c '^<' || true)

mb() { awk "BEGIN{printf \"%.1f\", $1/1024}"; }
printf '%-32s %7s s wall %7s s cpu %7s MB peak RSS\n' "perf script (fields above)" \
	"$perf_s" "$perf_cpu" "$(mb "$perf_kb")"
printf '%-32s %7s s wall %7s s cpu %7s MB peak RSS\n' "perfcollect-c merge (with zip)" \
	"$merge_s" "$merge_cpu" "$(mb "$merge_kb")"
printf 'ratio: merge is %sx faster (wall), %sx (cpu)\n' \
	"$(awk "BEGIN{printf \"%.1f\", $perf_s/$merge_s}")" \
	"$(awk "BEGIN{printf \"%.1f\", $perf_cpu/$merge_cpu}")"
printf 'merge peak RSS on a recording 1/4 as long: %s MB\n' "$(mb "$short_kb")"
printf 'perf.data.txt lines differing from perf script: %s of %s\n' "$differing" "$(wc -l <perf.txt)"
"$PC" log long.trace.zip | grep -o 'perf.data.txt: .*' | sed 's/^/merge, symbolizing pass alone: /'
