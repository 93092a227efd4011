# collect -hwevents: the hardware events this machine's PMU has are recorded; those it lacks
# (which `perf stat` on the same machine says are "<not supported>") are named in one
# warning line, and the collection goes on with the rest.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

# The oracle: which of perfcollect's hardware events perf itself cannot count here.
perf stat -x, -e cycles,instructions,branches,cache-misses true 2>stat.txt >/dev/null
missing=$(awk -F, '$1 == "<not supported>" {printf "%s%s", sep, $3; sep = ", "}' stat.txt)
echo "perf stat says not supported: ${missing:-none}"

"$WORKLOADS/hot" 30 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")

"$PC" collect hw -pid "$hot" -hwevents -collectsec 1 2>collect.err
rc=$?
cat collect.err
check "collect -hwevents exits 0" test "$rc" -eq 0
unzip -q hw.trace.zip || fail "unzip"
data=hw.trace/perf.data
perf evlist -i "$data" >evlist.txt 2>/dev/null
perf script -i "$data" -F event >events.txt 2>script.err
check "perf script prints no warnings: $(head -3 script.err)" test ! -s script.err
cpu=$(grep -c '^ *cpu-clock:' events.txt)
check "CPU samples are still recorded ($cpu)" test "$cpu" -gt 100

nwarn=$(grep -c 'hardware events not available' collect.err)
if [ -n "$missing" ]; then
	line="perfcollect-c: warning: hardware events not available here: $missing ([^)]*); continuing with the rest"
	check "one warning line names exactly the unavailable events ($nwarn)" \
		test "$nwarn" -eq 1 -a "$(grep -c "^$line\$" collect.err)" -eq 1
	check "the warning is in perfcollect.log" grep -q "warning: hardware events not available here: $missing" \
		hw.trace/perfcollect.log
else
	check "no warning when the PMU has every event" test "$nwarn" -eq 0
fi
for ev in cycles instructions branches cache-misses; do
	case ", $missing, " in
	*", $ev, "*)
		check "$ev is not in perf.data" bash -c "! grep -qx '$ev' evlist.txt" ;;
	*)
		check "$ev is in perf.data" grep -qx "$ev" evlist.txt
		check "$ev has samples" grep -q "^ *$ev:" events.txt ;;
	esac
done
finish
