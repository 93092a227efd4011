# A million samples: a real recording of the demo workload repeated until it holds ~1M
# samples, streamed into `view -` through a pipe.  Memory must follow the unique stacks,
# not the samples (max RSS well under 200 MB), and the counts must be exactly the small
# recording's times the repeats.  No timing assertion.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
[ -x /usr/bin/time ] || skip "/usr/bin/time (Debian package time) is not installed: run scripts/setup as root"

perf record -q -e cpu-clock -F 1000 -g -o perf.data -- "$WORKLOADS/hot" 0.5 >/dev/null 2>perf.err ||
	{ cat perf.err; skip "perf record does not work here: run as root (or lower kernel.perf_event_paranoid)"; }
perf script -i perf.data --fields comm,pid,tid,time,period,event,ip,sym,dso >small.txt 2>/dev/null
"$PC" view small.txt --folded small.folded
n=$(awk '{s += $NF} END {print s}' small.folded)
[ "$n" -gt 0 ] || { fail "perf recorded no samples of the workload"; finish; }
reps=$(( (1000000 + n - 1) / n ))
echo "$n samples x $reps = $((n * reps))"

for ((i = 0; i < 100; i++)); do cat small.txt; done >chunk.txt
gen() { # reps copies of small.txt
	for ((i = 0; i < reps / 100; i++)); do cat chunk.txt; done
	for ((i = 0; i < reps % 100; i++)); do cat small.txt; done
}
gen | nice /usr/bin/time -v "$PC" view - --folded big.folded --flamegraph big.svg 2>time.txt
rc=${PIPESTATUS[1]}
grep -E 'Maximum resident|Elapsed|User time' time.txt
check "view of $((n * reps)) samples exits 0" test "$rc" -eq 0
awk -v r="$reps" '{ $NF = $NF * r; print }' small.folded | sort >want.folded
check "every folded count is the small one times $reps" diff want.folded <(sort big.folded)
check "the flame graph says $((n * reps)) samples" grep -q "^$((n * reps)) samples, 100.00%" big.svg
rss=$(awk -F': ' '/Maximum resident/{print $2}' time.txt)
if ldd "$PC" 2>/dev/null | grep -q libasan; then
	echo "(AddressSanitizer build: its shadow memory makes RSS meaningless; bound not checked)"
else
	check "max RSS ${rss} kB < 200 MB" test "$rss" -lt 204800
fi
finish
