# SIGKILL at many moments of a collection, while recording and while post-processing: what
# the collector wrote is never damaged and is always finished by one command.  After each
# kill, either the collection had finished (a complete zip, no trace directory) or
#   - the earlier <name>.trace.zip is untouched (same bytes; or, killed between the rename
#     of the new zip and the removal of the directory, that new zip is complete),
#   - the left-over <name>.trace/perf.data reads in perf as it is, up to the last flush
#     (about a second before the kill at most),
#   - the next `collect <name>` refuses and names exactly `perfcollect-c merge <name>.trace`,
#   - that merge writes a valid zip with every sample perf reads in the left-over file, and
#     removes the directory.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip
need_cmd python3

start_hot 600

# Sample times are CLOCK_MONOTONIC; /proc/uptime (CLOCK_BOOTTIME) is read without a fork at
# the moment of the kill, and their difference (suspend time) is measured once.
offset=$(python3 -c 'import time; print("%.3f" % (time.clock_gettime(time.CLOCK_BOOTTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)))')
now() { local up _; read -r up _ </proc/uptime; awk -v u="$up" -v o="$offset" 'BEGIN {printf "%.2f", u - o}'; }
running() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }
# perf's raw dump (no symbol lookups: on a shared machine another test's FIFO posing as a
# JIT map must not hang us); a bounded time all the same.
dump() { timeout 120 perf report -D -i "$1" 2>/dev/null; }
samples() { dump "$1" | grep -c 'PERF_RECORD_SAMPLE('; }

# The earlier trace of the same name, which no kill may damage.
"$PC" collect k -pid "$hot" -collectsec 1 2>/dev/null || fail "the earlier trace failed"
cp k.trace.zip earlier.zip
earlier=$(md5sum <k.trace.zip)

tried=0 recovered_total=0 finished=0 left=0
summary=""
# kill_at WHERE DELAY ARGS...: starts `collect k ARGS`, waits until it records (WHERE=rec)
# or has stopped and is writing the zip (WHERE=post, after a SIGINT), sleeps DELAY, kills.
kill_at() {
	local where=$1 delay=$2; shift 2
	tried=$((tried + 1))
	rm -rf k.trace
	start_collect k "$@"
	local started
	started=$(now)
	if [ "$where" = post ]; then
		kill -INT "$collector"
		wait_until 30 grep -q "Writing" k.err || fail "post $delay: never started writing"
	fi
	sleep "$delay"
	local up _
	read -r up _ </proc/uptime
	kill -KILL "$collector" 2>/dev/null
	local killed_at
	killed_at=$(awk -v u="$up" -v o="$offset" 'BEGIN {printf "%.2f", u - o}')
	wait "$collector" 2>/dev/null
	local what="$where+${delay}s"
	if [ ! -e k.trace ]; then
		# It had finished: the new zip is complete.
		finished=$((finished + 1))
		check "$what: finished before the kill: a complete zip" unzip -tq k.trace.zip
		summary+="  $what: had finished"$'\n'
		cp k.trace.zip earlier.zip
		earlier=$(md5sum <k.trace.zip)
		return
	fi
	left=$((left + 1))
	# Killed after the new zip took the name but before the directory went (the zip is
	# complete then): the only other way the earlier one may differ.
	if [ "$(md5sum <k.trace.zip)" = "$earlier" ]; then
		pass "$what: the earlier k.trace.zip is untouched"
	else
		check "$what: k.trace.zip is the earlier one or a complete new one" unzip -tq k.trace.zip
	fi
	local ondisk last gap
	dump k.trace/perf.data >dump.txt
	ondisk=$(grep -c 'PERF_RECORD_SAMPLE(' dump.txt)
	timeout 120 perf script -i k.trace/perf.data >/dev/null 2>perf.err
	check "$what: perf reads the left-over perf.data as it is ($ondisk samples): $(head -c 200 perf.err)" \
		test ! -s perf.err
	if [ "$where" = rec ] && awk -v d="$delay" 'BEGIN {exit !(d >= 1.5)}'; then
		last=$(awk '/PERF_RECORD_SAMPLE\(/ {t = $2 / 1e9; if (t > l) l = t} END {printf "%.6f", l}' dump.txt)
		gap=$(awk -v k="$killed_at" -v l="$last" 'BEGIN {printf "%.2f", k - l}')
		check "$what: samples up to the last flush ($gap s before the kill, at most 1.5)" \
			awk -v g="$gap" 'BEGIN {exit !(g >= 0 && g <= 1.5)}'
	fi
	"$PC" collect k -pid "$hot" -collectsec 1 2>again.err
	check "$what: collect k again refuses" test $? -ne 0 -a ! -e k.trace/perf.data.txt
	check "$what: ... naming 'perfcollect-c merge k.trace'" \
		grep -q "with: perfcollect-c merge k.trace " again.err
	"$PC" merge k.trace 2>merge.err
	local rc=$?
	check "$what: merge k.trace exits 0: $(tail -1 merge.err)" test "$rc" -eq 0
	check "$what: ... a valid zip" unzip -tq k.trace.zip
	check "$what: ... the directory is gone" test ! -e k.trace
	rm -rf z && mkdir z && (cd z && unzip -q ../k.trace.zip) || fail "$what: unzip"
	local inzip txt
	inzip=$(samples z/k.trace/perf.data)
	txt=$(grep -c '^[^[:space:]].*cpu-clock:' z/k.trace/perf.data.txt)
	check "$what: the zip holds every sample of the left-over file ($inzip of $ondisk, text $txt)" \
		test "$inzip" -eq "$ondisk" -a "$txt" -eq "$ondisk"
	recovered_total=$((recovered_total + inzip))
	summary+="  $what: recovered $inzip samples (recording ran $(awk -v a="$started" -v b="$killed_at" 'BEGIN {printf "%.1f", b - a}') s)"$'\n'
	cp k.trace.zip earlier.zip
	earlier=$(md5sum <k.trace.zip)
}

# While recording one process: before and after the first flush, later.
for d in 0.3 1.6 2.5; do
	kill_at rec "$d" -pid "$hot"
done
# While recording all CPUs (more processes, more maps, a dummy side-band event).
kill_at rec 2
# While post-processing: just after it starts, and a little later.
kill_at post 0 -pid "$hot"
kill_at post 0.1

echo "kill points tried: $tried ($left left a directory, $finished had finished)"
printf '%s' "$summary"
echo "samples recovered in all: $recovered_total"
check "some kills left a directory to recover" test "$left" -gt 0
finish
