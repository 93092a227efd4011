#!/bin/bash
# A big server's trace on this machine (issue 30): 400 000 samples, as a 40-core box sampled
# at perfcollect's 1 kHz makes them in 10 s.  merge against perf script, on one CPU and on
# all of them (taskset), side by side; and stop -> finished zip of a collection that size.
#
#   sudo bench/big.sh [--build DIR] [--binary PATH] [--before BINARY] [--data PERF.DATA]
#                     [--runs N] [--seconds S] [--freq HZ] [--only merge,stop]
#                     [--pass-threads K,K...]
#
# --binary: measure this perfcollect-c instead of DIR's (DIR still gives the workloads),
# e.g. build-static/perfcollect-c, the static binary users run.
#
# merge: without --data, records `perf record -k 1 -g -a -F HZ -e cpu-clock` for S seconds
# (default 10 s at 20 kHz: about 400 000 samples over the two busy CPUs of
# bench/workloads.sh's mix, which stops before anything is timed).  Then RUNS rounds; in
# each, in turn (so each sees the same load), perf script with perfcollect's fields to
# /dev/null and merge (symbolizing, perf.data.txt, the NetTrace, the deflated zip), each on
# CPU 0 alone and on every CPU; --before BINARY adds an older merge to the same rounds.
# Medians of wall and CPU time, peak RSS, the ratios, and merge from 1 to N CPUs.
# --pass-threads adds, on every CPU, merge with perf.data.txt formatted on K threads beside
# the pass (PERFCOLLECT_C_PASS_THREADS=K, lib/postprocess/script_pool.h), and the CPU time
# of the pass's own thread (its log's line), the path no number of CPUs shortens.
#
# stop: `collect -freq HZ -collectsec S` system-wide under the mix, RUNS times; the seconds
# from the line where the collector says it stopped until it exits with the zip written,
# and the samples it holds.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build binary= before= data= runs=3 seconds=10 freq=20000 only=merge,stop pass_threads=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--binary) binary=$(realpath "$2"); shift 2 ;;
	--before) before=$(realpath "$2"); shift 2 ;;
	--data) data=$(realpath "$2"); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--pass-threads) pass_threads=${2//,/ }; shift 2 ;;
	*) echo "usage: see the top of $0" >&2; exit 2 ;;
	esac
done
build=$(realpath "$build")
PC=${binary:-$build/perfcollect-c}
FIELDS=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
command -v perf >/dev/null || { echo "big.sh: needs perf (Debian linux-perf)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "big.sh: needs root (system-wide traces)" >&2; exit 2; }
[ -x "$PC" ] || { echo "big.sh: build first: ninja -C $build" >&2; exit 2; }
want() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
ncpu=$(nproc)
all=$(seq -s, 0 $((ncpu - 1)))

# shellcheck source=bench/workloads.sh
source "$top/bench/workloads.sh"
work=$(mktemp -d /tmp/pcbig.XXXXXX)
trap 'workloads_stop; workloads_remove_maps; rm -rf "$work"' EXIT
cd "$work"

# shellcheck source=bench/stats.sh
source "$top/bench/stats.sh"
ratio2() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }

row() { # row LABEL NAME
	printf '   %-44s %6.2f s wall %6.2f s CPU %6.1f MiB\n' "$1" "$(med "$2.wall")" "$(med "$2.cpu")" \
		"$(awk "BEGIN{print $(med "$2.rss") / 1024}")"
}

echo "big.sh: $ncpu CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each, medians"
echo "perfcollect-c: $PC ($("$PC" --version 2>/dev/null | head -1))"

if want merge; then
	if [ -z "$data" ]; then
		workloads_start "$build" "$work"
		perf record -q -k 1 -g -a -F "$freq" -e cpu-clock -o big.data -- sleep "$seconds" \
			>/dev/null 2>&1
		workloads_stop
		data=$work/big.data
	fi
	samples=$(perf report -i "$data" --stats 2>/dev/null | awk '/ SAMPLE events:/ {print $3; exit}')
	echo "== merge: $data, ${samples:-?} samples"
	for r in $(seq "$runs"); do
		for cpus in 0 "$all"; do
			n=$([ "$cpus" = 0 ] && echo 1 || echo "$ncpu")
			timed1 "script_$n" taskset -c "$cpus" perf script -i "$data" --fields "$FIELDS"
			# the two builds take turns at running first: the run right after perf script
			# was the slower one, whichever it was (bench/merge_each.sh saw the same)
			if [ -n "$before" ] && [ $((r % 2)) = 0 ]; then
				timed1 "before_$n" taskset -c "$cpus" "$before" merge "$data" -o "b$n.trace.zip"
				timed1 "merge_$n" taskset -c "$cpus" "$PC" merge "$data" -o "m$n.trace.zip"
			else
				timed1 "merge_$n" taskset -c "$cpus" "$PC" merge "$data" -o "m$n.trace.zip"
				[ -z "$before" ] ||
					timed1 "before_$n" taskset -c "$cpus" "$before" merge "$data" -o "b$n.trace.zip"
			fi
		done
		for k in $pass_threads; do
			timed1 "threads_$k" env PERFCOLLECT_C_PASS_THREADS="$k" taskset -c "$all" \
				"$PC" merge "$data" -o "t$k.trace.zip"
			unzip -p "t$k.trace.zip" '*/perfcollect.log' |
				sed -n "s/.*written in .* s (\([0-9.]*\) s of CPU on the pass's thread.*/\1/p" \
				>>"threads_$k.pass"
		done
		echo "   round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	for n in 1 "$ncpu"; do
		echo "   on $n CPU(s):"
		row "perf script (perfcollect's fields)" "script_$n"
		row "perfcollect-c merge" "merge_$n"
		[ -z "$before" ] || row "merge before ($before)" "before_$n"
		echo "     merge is $(ratio2 "$(med "script_$n.wall")" "$(med "merge_$n.wall")")x perf script" \
			"(wall), $(ratio2 "$(med "script_$n.cpu")" "$(med "merge_$n.cpu")")x (CPU)" \
			"$([ "$n" = 1 ] || echo "[goal on $ncpu CPUs: 4x wall]")"
		[ -z "$before" ] ||
			echo "     before: $(ratio2 "$(med "script_$n.wall")" "$(med "before_$n.wall")")x (wall)"
	done
	echo "   merge from 1 to $ncpu CPUs: $(ratio2 "$(med merge_1.wall)" "$(med "merge_$ncpu.wall")")x" \
		"faster (wall); perf script $(ratio2 "$(med script_1.wall)" "$(med "script_$ncpu.wall")")x"
	for k in $pass_threads; do
		row "merge, text on $k thread(s) beside the pass" "threads_$k"
		echo "     $(ratio2 "$(med "script_$ncpu.wall")" "$(med "threads_$k.wall")")x perf script" \
			"(wall); the pass's own thread: $(med "threads_$k.pass") s of CPU"
	done
fi

if want stop; then
	echo "== stop -> zip: collect -freq $freq -collectsec $seconds, system-wide under the mix"
	for r in $(seq "$runs"); do
		rm -f stop.trace.zip
		workloads_start "$build" "$work"
		"$PC" collect stop -freq "$freq" -collectsec "$seconds" 2>&1 |
			while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >stop.out
		t1=$(date +%s.%N)
		workloads_stop
		ts=$(grep -m1 'perfcollect-c: Stopped' stop.out | cut -d' ' -f1)
		[ -n "$ts" ] && [ -s stop.trace.zip ] ||
			{ echo "big.sh: collect did not stop and write its zip:" >&2; tail -5 stop.out >&2; exit 1; }
		awk "BEGIN{print $t1 - $ts}" >>stop.secs
		n=$(grep -m1 'perfcollect-c: Stopped' stop.out | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')
		echo "$n" >>stop.samples
		echo "   run $r: $(awk "BEGIN{printf \"%.2f\", $t1 - $ts}") s, $n samples," \
			"load $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	echo "   stop -> zip: $(med stop.secs) s for $(med stop.samples) samples [goal: <= 1 s]"
fi
