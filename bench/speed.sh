#!/usr/bin/env bash
# Every figure of the speed table (issue 17), side by side against perf and perfcollect, in
# one run, as ratios.  See bench/README.md.
#
#   sudo bench/speed.sh [--build DIR] [--binary PATH] [--perfcollect PATH] [--runs N]
#                       [--long S] [--short S] [--only ROWS]
#
#   --build DIR        the build whose perfcollect-c is measured (default: build)
#   --binary PATH      measure this perfcollect-c instead of the build's (the build still
#                      gives the workloads), e.g. build-static/perfcollect-c, what users run
#   --perfcollect PATH perfcollect's script (microsoft/perfview src/perfcollect/perfcollect);
#                      without it the rows against perfcollect are skipped, saying so
#   --runs N           repetitions of each measurement; medians are printed (default 3)
#   --long S, --short S  the long and the short trace (default 60 and 20 s)
#   --only ROWS        a comma-separated subset of: merge,stop,rss,lost,callstacks (default:
#                      all)
#
# Needs root, perf, and for the full mix node and the .NET SDK (bench/workloads.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
binary=
perfcollect=
runs=3
long=60
short=20
only=merge,stop,rss,lost,callstacks
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$(realpath "$2"); shift 2 ;;
	--binary) binary=$(realpath "$2"); shift 2 ;;
	--perfcollect) perfcollect=$(realpath "$2"); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--long) long=$2; shift 2 ;;
	--short) short=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "speed.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
PC=${binary:-$build/perfcollect-c}
FIELDS=comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace
[ -x "$PC" ] && [ -x "$build/tests/workloads/hot" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
command -v perf >/dev/null || { echo "speed.sh: needs perf (Debian linux-perf)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "speed.sh: needs root (system-wide traces)" >&2; exit 2; }
want() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# shellcheck source=bench/workloads.sh
source "$top/bench/workloads.sh"
# shellcheck source=bench/stats.sh
source "$top/bench/stats.sh"
work=$(mktemp -d /tmp/pcspeed.XXXXXX)
cleanup() {
	workloads_stop
	workloads_remove_maps
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

mib() { awk "BEGIN{printf \"%.1f\", $1 / 1048576}"; }

# timed NAME COMMAND...: runs it $runs times (stats.sh's timed1).
timed() {
	for _ in $(seq "$runs"); do timed1 "$@"; done
}

echo "speed.sh: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each, medians"
echo "perfcollect-c: $PC ($("$PC" --version 2>/dev/null | head -1))"
echo "perf: $(perf --version)"

# A system-wide trace as perfcollect records one (perf record -k 1 -g -a -F 1000 -e
# cpu-clock), of the workload mix; the workloads stop before anything is timed.
perf_trace() { # perf_trace FILE SECONDS
	perf record -q -k 1 -g -a -F 1000 -e cpu-clock -o "$1" -- sleep "$2" >/dev/null 2>&1
}

if want merge || want rss; then
	workloads_start "$build" "$work"
	perf_trace short.data "$short"
	want rss && perf_trace long.data "$long"
	workloads_stop
fi

if want merge; then
	samples=$(perf script -i short.data -F event 2>/dev/null | grep -c 'cpu-clock:' || true)
	echo
	echo "== merge (zip included) vs perf script --fields $FIELDS, same perf.data"
	echo "   perf.data: $(du -h short.data | cut -f1), $samples samples in $short s"
	timed script perf script -i short.data --fields "$FIELDS"
	timed merge "$PC" merge short.data -o short.trace.zip
	printf '   %-26s %6.2f s wall %6.2f s cpu\n' "perf script" "$(med script.wall)" "$(med script.cpu)"
	printf '   %-26s %6.2f s wall %6.2f s cpu\n' "perfcollect-c merge" "$(med merge.wall)" "$(med merge.cpu)"
	echo "   merge is $(ratio "$(med script.wall)" "$(med merge.wall)")x faster (wall)," \
		"$(ratio "$(med script.cpu)" "$(med merge.cpu)")x (cpu)   [goal: 5x wall, 3x cpu]"
	perf script -i short.data --fields "$FIELDS" >perf.txt 2>/dev/null
	"$PC" cat short.trace.zip perf.data.txt >ours.txt
	echo "   perf.data.txt lines differing from perf script: $(diff perf.txt ours.txt | grep -c '^<' || true) of $(wc -l <perf.txt)"
fi

if want callstacks; then
	# Hybrid call stacks (collect's default) and perf record --call-graph dwarf of the same
	# workloads at the same time (10 s: perf's file is ~17 MB a second): the sizes, and
	# merge against perf script on each file.  The zip's perf.data (hyb.data) holds the
	# unwound chains instead of the copies (issue 30): perf script prints them, merge has
	# nothing left to unwind; the recorded file's size is the log's; perf script unwinds its
	# own file's copies.
	workloads_start "$build" "$work"
	"$PC" collect hyb -collectsec 10 >/dev/null 2>&1 &
	c=$!
	perf record -q -k 1 -a --call-graph dwarf -F 1000 -e cpu-clock -o dwarf.data -- sleep 10 \
		>/dev/null 2>&1
	wait "$c"
	workloads_stop
	"$PC" cat hyb.trace.zip hyb.trace/perf.data >hyb.data
	ours=$(stat -c %s hyb.data) theirs=$(stat -c %s dwarf.data)
	n_ours=$("$PC" log hyb.trace.zip | sed -n 's/.*samples written: \([0-9]*\).*/\1/p' | head -1)
	n_theirs=$(perf script -i dwarf.data -F event 2>/dev/null | grep -c 'cpu-clock:' || true)
	echo
	echo "== call stacks: collect's hybrid perf.data vs perf record --call-graph dwarf, 10 s system-wide"
	"$PC" log hyb.trace.zip | grep -o 'perf.data: .* of records in .*' | sed 's/^/   recorded /'
	echo "   perf.data in the zip (unwound chains): ours $(mib "$ours") MiB ($n_ours samples, $((ours / (n_ours > 0 ? n_ours : 1))) B each)," \
		"perf's $(mib "$theirs") MiB ($n_theirs samples, $((theirs / (n_theirs > 0 ? n_theirs : 1))) B each):" \
		"$(ratio "$theirs" "$ours")x   [goal: 4x]"
	"$PC" log hyb.trace.zip | grep -o 'call stacks unwound.*' | sed 's/^/   /'
	for f in hyb dwarf; do
		timed "script_$f" perf script -i "$f.data" --fields "$FIELDS"
		timed "merge_$f" "$PC" merge "$f.data" -o "m_$f.trace.zip"
		printf '   %-34s %6.2f s wall %6.2f s cpu\n' "perf script, $f.data" "$(med "script_$f.wall")" "$(med "script_$f.cpu")"
		printf '   %-34s %6.2f s wall %6.2f s cpu\n' "perfcollect-c merge, $f.data" "$(med "merge_$f.wall")" "$(med "merge_$f.cpu")"
		echo "   merge is $(ratio "$(med "script_$f.wall")" "$(med "merge_$f.wall")")x faster (wall)," \
			"$(ratio "$(med "script_$f.cpu")" "$(med "merge_$f.cpu")")x (cpu)   [goal: 5x wall]"
	done
	rm -f dwarf.data
fi

if want rss; then
	echo
	echo "== post-processing peak RSS, $short s vs $long s trace (merge, and perf script)"
	timed rss_short "$PC" merge short.data -o rss_short.trace.zip
	timed rss_long "$PC" merge long.data -o rss_long.trace.zip
	timed rss_script perf script -i long.data --fields "$FIELDS"
	echo "   merge: $(mib $(($(med rss_short.rss) * 1024))) MiB ($short s, $(du -h short.data | cut -f1))" \
		"-> $(mib $(($(med rss_long.rss) * 1024))) MiB ($long s, $(du -h long.data | cut -f1))" \
		"  [goal: flat]; perf script ($long s): $(mib $(($(med rss_script.rss) * 1024))) MiB"
fi

# stop_to_zip NAME PATTERN COMMAND...: runs a collection that stops itself after $long s
# (-collectsec) under the workloads; prints the seconds from the moment it says it stopped
# (its output line matching PATTERN, timestamped as it comes) until it exited, having
# written NAME.trace.zip.  (-collectsec rather than Ctrl+C: perfcollect started from a
# script ignores SIGINT.)
stop_to_zip() {
	local name=$1 pattern=$2 t1 ts
	shift 2
	workloads_start "$build" "$work"
	"$@" 2>&1 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$name.out"
	t1=$(date +%s.%N)
	workloads_stop
	ts=$(grep -m1 -E "$pattern" "$name.out" | cut -d' ' -f1)
	[ -n "$ts" ] && [ -s "$name.trace.zip" ] ||
		{ echo "speed.sh: $name did not stop and write its zip:" >&2; tail -5 "$name.out" >&2; exit 1; }
	awk "BEGIN{print $t1 - $ts}"
}

# stop_to_zip_quiet NAME PATTERN COMMAND...: the same, but the workloads end 3 s before the
# collection stops (the machine idle when post-processing starts; their JIT maps stay).
stop_to_zip_quiet() {
	local name=$1 pattern=$2 t1 ts bg
	shift 2
	workloads_start "$build" "$work"
	{ "$@" 2>&1 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$name.out"; } &
	bg=$!
	sleep $((long > 3 ? long - 3 : 0))
	workloads_stop
	wait "$bg"
	t1=$(date +%s.%N)
	ts=$(grep -m1 -E "$pattern" "$name.out" | cut -d' ' -f1)
	[ -n "$ts" ] && [ -s "$name.trace.zip" ] ||
		{ echo "speed.sh: $name did not stop and write its zip:" >&2; tail -5 "$name.out" >&2; exit 1; }
	awk "BEGIN{print $t1 - $ts}"
}

# The zip perfcollect makes of the same trace: zip -r of perf.data, perf inject --jit's
# perf-jit.data (a copy of perf.data where inject fails), perf script's perf.data.txt and the
# JIT maps, as its ProcessCollectedData does.
perfcollect_layout_zip() { # perfcollect_layout_zip OUR_ZIP -> prints its size
	rm -rf layout && mkdir -p layout/x && unzip -q "$1" -d layout/ours
	local d
	d=$(dirname "$(find layout/ours -name perf.data | head -1)")
	cp "$d"/perf.data layout/x/
	cp "$d"/perf-*.map "$d"/jit-*.dump layout/x/ 2>/dev/null || true
	(cd layout/x && { perf inject -i perf.data --jit -o perf-jit.data >/dev/null 2>&1 ||
		cp perf.data perf-jit.data; } &&
		perf script -i perf-jit.data --fields "$FIELDS" >perf.data.txt 2>/dev/null
		cd .. && zip -qr x.zip x)
	stat -c %s layout/x.zip
}

if want stop; then
	echo
	echo "== stop -> finished zip, $long s system-wide; zip size"
	for _ in $(seq "$runs"); do
		stop_to_zip pc '^[0-9.]+ perfcollect-c: Stopped' "$PC" collect pc -collectsec "$long" >>pc.stop
		stat -c %s pc.trace.zip >>pc.size
		unzip -tq pc.trace.zip >/dev/null || { echo "speed.sh: unzip -t fails on our zip" >&2; exit 1; }
		perfcollect_layout_zip pc.trace.zip >>layout.size
		rm -f pc.trace.zip
		stop_to_zip_quiet pc '^[0-9.]+ perfcollect-c: Stopped' "$PC" collect pc -collectsec "$long" >>pcq.stop
		# the entries perfcollect's layout has (all but the .nettrace files), as stored in ours
		unzip -v pc.trace.zip | awk '$NF ~ /\.trace\// && $NF !~ /\.nettrace$/ {s += $3} END {print s}' >>pclayout.size
		rm -f pc.trace.zip
		if [ -n "$perfcollect" ]; then
			stop_to_zip ref 'STOPPED' "$perfcollect" collect ref -nolttng -collectsec "$long" >>ref.stop
			stat -c %s ref.trace.zip >>ref.size
			unzip -l ref.trace.zip | awk '$NF ~ /perf.data.txt$/ {print $1}' >>ref.txtsize
			rm -f ref.trace.zip
		fi
	done
	printf '   %-26s %6.2f s, zip %s MiB\n' "perfcollect-c" "$(med pc.stop)" "$(mib "$(med pc.size)")"
	printf '   %-26s %6.2f s  (the workloads ended 3 s before the stop)\n' "perfcollect-c, idle at stop" "$(med pcq.stop)"
	printf '   %-26s          zip %s MiB  (zip -r of the same trace, as perfcollect packs it)\n' \
		"perfcollect's layout" "$(mib "$(med layout.size)")"
	echo "   zip is $(awk "BEGIN{printf \"%.2f\", $(med pc.size) / $(med layout.size)}") of perfcollect's for the same trace  [goal: <= 0.5]"
	printf '   %-26s          %s MiB of it, %s of perfcollect'"'"'s\n' "perfcollect's entries in ours" \
		"$(mib "$(med pclayout.size)")" "$(awk "BEGIN{printf \"%.2f\", $(med pclayout.size) / $(med layout.size)}")"
	if [ -n "$perfcollect" ]; then
		printf '   %-26s %6.2f s, zip %s MiB (its perf.data.txt: %s MiB)\n' "perfcollect" \
			"$(med ref.stop)" "$(mib "$(med ref.size)")" "$(mib "$(med ref.txtsize)")"
		echo "   stop->zip is $(ratio "$(med ref.stop)" "$(med pc.stop)")x faster than perfcollect  [goal: <= 1 s]"
		[ "$(med ref.txtsize)" -gt 0 ] 2>/dev/null ||
			echo "   note: perfcollect's perf.data.txt is empty (its perf inject --jit failed on a jitdump here): its time and size are of a trace without text"
	else
		echo "   perfcollect rows skipped: give its script with --perfcollect PATH"
	fi
fi

if want lost; then
	echo
	echo "== lost samples, 8 KiB rings, 10 s system-wide at 1 kHz"
	for _ in $(seq "$runs"); do
		workloads_start "$build" "$work"
		"$PC" collect lost -buffersize 8K -collectsec 10 >/dev/null 2>&1
		perf record -q -m 2 -k 1 -g -a -F 1000 -e cpu-clock -o lost.data -- sleep 10 >/dev/null 2>&1
		workloads_stop
		n=$("$PC" log lost.trace.zip | sed -n 's/.*lost samples: \([0-9]*\).*/\1/p' | tail -1)
		echo "${n:-0}" >>lost.pc
		n=$(perf report --stdio -i lost.data 2>/dev/null |
			sed -n 's/.*Total Lost Samples: *\([0-9]*\).*/\1/p' | head -1)
		echo "${n:-0}" >>lost.perf
		rm -f lost.trace.zip lost.data
	done
	echo "   perfcollect-c -buffersize 8K: $(med lost.pc) lost; perf record -m 2: $(med lost.perf) lost" \
		"  [goal: no more than perf]"
fi
