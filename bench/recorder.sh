#!/usr/bin/env bash
# The recorder side by side with `perf record`, on this machine, at the same time (both
# system-wide, so both see the same load):
#   - lost samples with 8 KiB rings at 1 kHz (ours -buffersize 8K, perf -m 2), RUNS pairs;
#   - lost samples at 10 kHz with default rings (ours -freq 10000, perf -F 10000);
#   - lost samples at 1 kHz with default rings, hybrid call stacks (the default: a 2 KiB
#     stack copy per sample) against -callgraph fp, both ours;
#   - perf.data: bytes of records vs bytes on disk (zstd), ours and perf record -z's;
#   - -collectsec accuracy: the span of the samples of `collect -collectsec 5`;
#   - peak RSS of `collect` system-wide for SHORT and LONG seconds (memory must not grow
#     with the duration), recording and post-processing.
#
#   sudo bench/recorder.sh [BUILD_DIR] [RUNS] [SHORT] [LONG]     # defaults: build 5 60 600
#
# Two builds (or more) against each other, taking turns (the first of a round changes from
# round to round), the load average beside each figure; only these, nothing else:
#   sudo bench/recorder.sh --pairs10k ROUNDS BUILD_DIR...   # 10 kHz pairs with perf record
#   sudo bench/recorder.sh --cost ROUNDS BUILD_DIR...       # the workload's cost of sampling
#   sudo bench/recorder.sh --drain ROUNDS BUILD_DIR...      # the drain's CPU per sample
# --cost: BUILD_DIR/bench/lcg (the first's), a fixed CPU loop, in Mops per CPU-second alone,
# under perf record -F 10000 -a -g and under each build's collect -freq 10000
# (COST_FREQ=1000 for perfcollect's default rate; COST_STEPS: the loop's steps, 500 M).
# --drain: collect -freq 10000 system-wide for 10 s; the CPU time (user + system) of the
# drain (the main thread) and of the perf.data writer's thread, read just before the stop,
# per sample written.
#
# Needs root and Debian's perf.  See bench/README.md.
set -uo pipefail
mode=
if [ "${1:-}" = --pairs10k ] || [ "${1:-}" = --cost ] || [ "${1:-}" = --drain ]; then
	mode=$1 rounds=$2
	shift 2
	builds=()
	for b in "$@"; do builds+=("$(realpath "$b")"); done
	set -- "${builds[0]}"
fi
build=$(realpath "${1:-build}")
runs=${2:-5}
short=${3:-60}
long=${4:-600}
PC=$build/perfcollect-c
work=$(mktemp -d /tmp/pc-bench-recorder.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

log_value() { # log_value ZIP REGEX: the first number after REGEX in perfcollect.log
	"$PC" log "$1" 2>/dev/null | sed -n "s/.*$2 *\([0-9.]*\).*/\1/p" | head -1
}
# perf_counts FILE: "lost samples" of perf's perf.data (-D's sum read only when it has LOST
# records: it prints every record, minutes at 10 kHz on a loaded box).
perf_counts() {
	local st samples lost=0
	st=$(perf report --stats -i "$1" 2>/dev/null)
	samples=$(awk '/ SAMPLE events:/ {print $3; exit}' <<<"$st")
	if awk '/ LOST events:/ && $3 > 0 {f = 1} END {exit !f}' <<<"$st"; then
		lost=$(perf report -D -i "$1" 2>/dev/null | awk '/PERF_RECORD_LOST/ {split($NF, a, ":"); s += a[2]} END {print s + 0}')
	fi
	echo "$lost ${samples:-0}"
}

# pair FREQ SECS OURS_RING PERF_MMAP: one paired run; prints "ours_lost ours_samples perf_lost perf_samples".
pair() {
	local freq=$1 secs=$2 ring=$3 mmap=$4
	rm -rf p.trace p.trace.zip p.data
	local ringopt=() mopt=()
	[ -n "$ring" ] && ringopt=(-buffersize "$ring")
	[ -n "$mmap" ] && mopt=(-m "$mmap")
	"$PC" collect p -collectsec "$secs" -freq "$freq" "${ringopt[@]}" 2>/dev/null &
	local c=$!
	perf record -q "${mopt[@]}" -F "$freq" -a -g -e cpu-clock -o p.data -- sleep "$secs" 2>/dev/null
	wait "$c"
	echo "$(log_value p.trace.zip 'lost samples:') $(log_value p.trace.zip 'samples written:') $(perf_counts p.data)"
}

loadavg() { cut -d' ' -f1 /proc/loadavg; }

# The builds in turn, round after round, each round starting one further along.
in_turn() { # in_turn FUNCTION: FUNCTION BUILD ROUND for each
	local r i n=${#builds[@]}
	for r in $(seq "$rounds"); do
		for i in $(seq 0 $((n - 1))); do
			"$1" "${builds[$(((r - 1 + i) % n))]}" "$r"
		done
	done
}

pair10k() { # pair10k BUILD ROUND
	PC=$1/perfcollect-c
	local load0 ol os pl ps
	load0=$(loadavg)
	read -r ol os pl ps <<<"$(pair 10000 10 "" "")"
	echo "  round $2 $1: ours lost $ol of $((ol + os)); perf record -F 10000 lost $pl of $((pl + ps)); load $load0-$(loadavg)"
}

# cost_under WHAT: the loop's Mops per CPU-second while WHAT records (alone: nothing).
lcg=${builds[0]:-$build}/bench/lcg
cost_freq=${COST_FREQ:-10000} cost_steps=${COST_STEPS:-500000000}
cost_under() {
	local what=$1 rec=
	rm -rf k.trace k.trace.zip k.nettrace k.data k.err
	case $what in
	alone) ;;
	perf)
		perf record -q -F "$cost_freq" -a -g -e cpu-clock -o k.data 2>k.err &
		rec=$!
		# (perf writes the file's header once its events are open)
		while [ ! -s k.data ]; do sleep 0.05; done
		;;
	*)
		"$what/perfcollect-c" collect k -freq "$cost_freq" 2>k.err &
		rec=$!
		while ! grep -qs Collecting k.err; do sleep 0.05; done
		;;
	esac
	local load0 ops
	load0=$(loadavg)
	ops=$("$lcg" "$cost_steps")
	[ -n "$rec" ] && kill -INT "$rec" && wait "$rec"
	echo "  ${what}: $ops Mops per CPU-second; load $load0-$(loadavg)"
}
cost_round() { # cost_round BUILD ROUND: alone, perf and this build, in turn
	[ "$1" = "${builds[0]}" ] && cost_under alone && cost_under perf
	cost_under "$1"
}

# cpu_ticks PID TID: utime + stime of a thread, in clock ticks.
cpu_ticks() { sed 's/.*) //' "/proc/$1/task/$2/stat" | awk '{print $12 + $13}'; }
drain_round() { # drain_round BUILD ROUND
	PC=$1/perfcollect-c
	rm -rf d.trace d.trace.zip d.nettrace d.err
	"$PC" collect d -freq 10000 2>d.err &
	local c=$! load0 tids t main=0 writer=0
	while ! grep -qs Collecting d.err; do sleep 0.05; done
	load0=$(loadavg)
	local main0
	main0=$(cpu_ticks "$c" "$c") # (what it took to start: not the drain's)
	sleep 10
	# the writer: the thread besides the main one that took the most CPU
	for t in $(ls "/proc/$c/task"); do
		if [ "$t" = "$c" ]; then
			main=$(($(cpu_ticks "$c" "$t") - main0))
		else
			t=$(cpu_ticks "$c" "$t")
			[ "$t" -gt "$writer" ] && writer=$t
		fi
	done
	kill -INT "$c"
	wait "$c"
	local n hz
	n=$(log_value d.trace.zip 'samples written:')
	hz=$(getconf CLK_TCK)
	awk -v m="$main" -v w="$writer" -v n="$n" -v hz="$hz" -v b="$1" -v r="$2" -v l0="$load0" -v l1="$(loadavg)" \
		'BEGIN {printf "  round %d %s: drain %.2f s, writer %.2f s of CPU for %d samples: %.2f and %.2f us a sample; load %s-%s\n",
			r, b, m / hz, w / hz, n, m / hz / n * 1e6, w / hz / n * 1e6, l0, l1}'
}

case $mode in
--drain)
	echo "== the drain's CPU, collect -freq 10000, system-wide, ~10 s: ${builds[*]} in turn ($rounds rounds) =="
	in_turn drain_round
	exit 0
	;;
--pairs10k)
	echo "== lost samples, 10 kHz, 10 s, system-wide, default rings: ${builds[*]} in turn ($rounds rounds) =="
	in_turn pair10k
	exit 0
	;;
--cost)
	echo "== the workload's cost at $cost_freq Hz: $lcg, $cost_steps steps, Mops per CPU-second ($rounds rounds) =="
	in_turn cost_round
	exit 0
	;;
esac

echo "== lost samples, 8 KiB rings, 1 kHz, 10 s, system-wide ($runs paired runs) =="
for i in $(seq "$runs"); do
	read -r ol os pl ps <<<"$(pair 1000 10 8K 2)"
	echo "  run $i: ours lost $ol of $((ol + os)); perf record -m 2 lost $pl of $((pl + ps))"
done

echo "== lost samples, 10 kHz, 10 s, system-wide, default rings ($runs paired runs) =="
for i in $(seq "$runs"); do
	read -r ol os pl ps <<<"$(pair 10000 10 "" "")"
	echo "  run $i: ours lost $ol of $((ol + os)); perf record -F 10000 lost $pl of $((pl + ps))"
done

echo "== lost samples, 1 kHz, default rings, 10 s system-wide: hybrid call stacks vs -callgraph fp ($runs paired runs) =="
for i in $(seq "$runs"); do
	rm -rf h.trace h.trace.zip f.trace f.trace.zip
	"$PC" collect h -collectsec 10 2>/dev/null &
	c=$!
	"$PC" collect f -collectsec 10 -callgraph fp 2>/dev/null
	wait "$c"
	hl=$(log_value h.trace.zip 'lost samples:') hs=$(log_value h.trace.zip 'samples written:')
	fl=$(log_value f.trace.zip 'lost samples:') fs=$(log_value f.trace.zip 'samples written:')
	echo "  run $i: hybrid lost $hl of $((hl + hs)); fp lost $fl of $((fl + fs))"
done

echo "== perf.data size, 10 s system-wide at 1 kHz =="
rm -rf s.trace s.trace.zip
"$PC" collect s -collectsec 10 2>/dev/null &
c=$!
perf record -q -z -F 1000 -a -g -e cpu-clock -o z.data -- sleep 10 2>/dev/null
wait "$c"
"$PC" log s.trace.zip | grep -o 'perf.data: .* MB of records in .* MB.*' | sed 's/^/  ours: /'
echo "  perf record -z: $(stat -c %s z.data) bytes on disk, $(perf report --header-only -i z.data 2>/dev/null | grep -o 'compressed : .*')"

echo "== -collectsec 5: span of the samples =="
for i in 1 2 3; do
	rm -rf cs.trace cs.trace.zip
	"$PC" collect cs -collectsec 5 2>/dev/null
	"$PC" cat cs.trace.zip perf.data 2>/dev/null >cs.data
	perf script -i cs.data -F time,event 2>/dev/null | awk '/cpu-clock/ {t = $1 + 0; if (!f || t < f) f = t; if (t > l) l = t}
		END {printf "  run: %.3f s\n", l - f}'
done

echo "== peak RSS of collect, system-wide =="
for secs in "$short" "$long"; do
	rm -rf r.trace r.trace.zip
	/usr/bin/time -f '%M' -o rss.txt "$PC" collect r -collectsec "$secs" 2>r.err &
	c=$!
	# The recording's own peak: VmHWM just before it stops.
	rec=0
	while kill -0 "$c" 2>/dev/null && ! grep -q Stopped r.err; do
		pid=$(pgrep -P "$c" -f 'perfcollect-c collect r ' | head -1)
		[ -n "$pid" ] && rec=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "$rec")
		sleep 1
	done
	wait "$c"
	samples=$(log_value r.trace.zip 'samples written:')
	echo "  ${secs} s: $samples samples; recording peak ${rec} KiB, whole run (with post-processing) $(cat rss.txt) KiB"
done
