#!/bin/bash
# The .NET runtime's own events in <name>.nettrace, the one file PerfView opens: a real app
# collects garbage and throws exceptions under `collect -pid`; TraceEvent reads the unified
# file with as many GCs per generation, exceptions per type, contentions, JIT and rundown
# events as from the runtime's own dotnet-<pid>.nettrace, and TraceLog (as PerfView opens the
# file) has the CPU samples and the runtime's GC and exception events, given to the app's
# process, the exceptions with stacks whose managed frames it names.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/workloads/dotnet/events.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_dotnet_app
need_traceevent

name=rt
start_events_app
start_collect "$name" -pid "$APP_PID"
run_events "$name"
check "collect wrote $name.nettrace" test -s "$name.nettrace"
# streamed into the zip beside the pass (with the runtime's events after the last sample)
check "the zip's $name.trace/$name.nettrace is $name.nettrace, byte for byte" \
	cmp -s "$name.nettrace" <("$PC" cat "$name.trace.zip" "$name.nettrace")

# the runtime's file alone, and the unified file, through EventPipeEventSource
"$PC" cat "$name.trace.zip" "dotnet-$APP_PID.nettrace" >alone.nettrace
traceevent nettrace alone.nettrace >alone.te 2>alone.te.err
check "TraceEvent reads dotnet-$APP_PID.nettrace" test $? -eq 0
traceevent nettrace "$name.nettrace" >unified.te 2>unified.te.err
check "TraceEvent reads $name.nettrace" test $? -eq 0
check "no events lost in $name.nettrace" grep -qx 'lost 0' unified.te
for what in gc exceptions exception contention jit methodload rundown alloctick; do
	a=$(grep "^$what " alone.te | sort)
	u=$(grep "^$what " unified.te | sort)
	echo "counts $what: alone [$(echo $a)] unified [$(echo $u)]"
	check "$what: the unified file has the runtime file's counts" test -n "$a" -a "$a" = "$u"
done
# every runtime event type with the same count (the unified file adds only Universal.*)
grep '^event ' alone.te | sort >alone.ev
grep '^event ' unified.te | grep -v '^event Universal\.' | sort >unified.ev
check "every runtime event type has its count in $name.nettrace" cmp -s alone.ev unified.ev ||
	diff alone.ev unified.ev | head -10

# TraceLog, as PerfView opens the file
traceevent tracelog "$name.nettrace" --runtime >tl.te 2>tl.err
rc=$?
check "TraceLog opens $name.nettrace ($(grep -m1 -i exception tl.err))" test $rc -eq 0
n=$(awk '/^cpu_samples/ { print $2 }' tl.te)
check "TraceLog's CPU view has samples ($n)" test "${n:-0}" -gt 0
gcs=$(awk '/^gc gen0/ { print $3 + $5 + $7 }' alone.te)
exc=$(awk '/^exceptions/ { print $2 }' alone.te)
tl_gcs=$(awk -v p="$APP_PID" '$1 == "runtime_event" && $2 == "Microsoft-Windows-DotNETRuntime/GC/Start" && $3 == p { print $4 }' tl.te)
tl_exc=$(awk -v p="$APP_PID" '$1 == "runtime_event" && $2 == "Microsoft-Windows-DotNETRuntime/Exception/Start" && $3 == p { print $4 }' tl.te)
tl_named=$(awk -v p="$APP_PID" '$1 == "runtime_event" && $2 == "Microsoft-Windows-DotNETRuntime/Exception/Start" && $3 == p { print $6 }' tl.te)
echo "counts TraceLog: GC/Start $tl_gcs (alone $gcs), Exception/Start $tl_exc (alone $exc), with a named frame $tl_named"
check "TraceLog: GC/Start of pid $APP_PID = the runtime file's GCs ($tl_gcs = $gcs)" \
	test -n "$gcs" -a "$tl_gcs" = "$gcs"
check "TraceLog: Exception/Start of pid $APP_PID = the runtime file's ($tl_exc = $exc)" \
	test -n "$exc" -a "$tl_exc" = "$exc"
check "TraceLog: the exceptions' stacks have named managed frames ($tl_named of $tl_exc)" \
	test "${tl_named:-0}" -gt 0
# the same timeline: the app's GCs happen while it runs, i.e. among its CPU samples
span=$(awk -v p="$APP_PID" '$1 == "cpu_span" { f = $2; l = $3 }
	$1 == "runtime_event" && $2 == "Microsoft-Windows-DotNETRuntime/GC/Start" && $3 == p { gf = $7; gl = $8 }
	END { print f, l, gf, gl }' tl.te)
echo "times (ms): CPU samples $(echo $span | cut -d' ' -f1-2), GC/Start events $(echo $span | cut -d' ' -f3-4)"
check "the GCs lie among the CPU samples ($span)" \
	awk -v s="$span" 'BEGIN { split(s, a, " "); exit !(a[4] != "" && a[3] >= a[1] && a[4] <= a[2]) }'
other=$(awk -v p="$APP_PID" '$1 == "runtime_event" && $2 ~ /^Microsoft-Windows-DotNETRuntime\// && $3 != p' tl.te | head -3)
check "TraceLog gives no runtime event to another process ($other)" test -z "$other"
"$PC" cat "$name.trace.zip" perfcollect.log >log.txt
check "the log counts the copied events" grep -q "runtime events of .*dotnet-$APP_PID.nettrace" log.txt
check "the runtime's clock is the samples' (no move by wall-clock time)" \
	bash -c "! grep -q 'placed by wall-clock time' log.txt"

# merge -format nettrace from the zip: the .nettrace alone, the runtime's events in it
"$PC" merge "$name.trace.zip" -o again.trace.zip -format nettrace 2>merge.err
check "merge -format nettrace exits 0 ($(tail -1 merge.err))" test $? -eq 0
check "merge -format nettrace writes the .nettrace alone" test -s again.nettrace -a ! -e again.trace.zip
traceevent nettrace again.nettrace >again.te 2>again.te.err
check "merged: the same GC and exception counts" cmp -s \
	<(grep -E '^(gc|exceptions?) ' alone.te) <(grep -E '^(gc|exceptions?) ' again.te)
finish
