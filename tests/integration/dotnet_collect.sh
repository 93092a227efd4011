# collect -pid on a real .NET app started with DOTNET_PerfMapEnabled=1: perf.data.txt names
# the app's own JIT-compiled methods (perf-<pid>.map) and the framework's ReadyToRun code in
# System.Private.CoreLib.dll (jitdump), and the runtime's map files go into the zip.  The
# runtime's perf map keeps every line it had (collect never makes it start the map anew).
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_cmd unzip
need_dotnet_app

start_app 30 DOTNET_PerfMapEnabled=1
map=/tmp/perf-$APP_PID.map
check "the app writes $map with its methods" grep -q 'PcDotnetApp.HotLoop::Churn(int32)' "$map"
check "and a jitdump" test -s /tmp/jit-$APP_PID.dump

cp "$map" map.before
"$PC" collect d1 -pid "$APP_PID" -collectsec 2 2>collect.err
rc=$?
cat collect.err
check "collect -pid exits 0" test "$rc" -eq 0
check "no warning about unnamed managed frames" bash -c "! grep -q 'will be \[unknown\]' collect.err"
lost=$(sort map.before | comm -23 - <(sort "$map") | wc -l)
check "every line of $map before collect is still there ($(wc -l <map.before) lines, $lost gone)" \
	test "$lost" -eq 0
check "the runtime still writes its perf map" holds_open "$APP_PID" "$map"
unzip -q d1.trace.zip || fail "unzip"
check "the zip's copy of the map has every line too" \
	bash -c "sort map.before | comm -23 - <(sort d1.trace/perf-$APP_PID.map) | wc -l | grep -qx 0"
for f in perf-$APP_PID.map jit-$APP_PID.dump; do
	check "$f is in the zip" test -s d1.trace/$f
done
# .NET 10 no longer writes perfinfo-<pid>.map; where a runtime does, it travels too.
if [ -e /tmp/perfinfo-$APP_PID.map ]; then
	check "perfinfo-$APP_PID.map is in the zip" test -s d1.trace/perfinfo-$APP_PID.map
fi
txt=d1.trace/perf.data.txt
check "perf.data.txt names the app's methods (from the perf map)" \
	grep -q 'PcDotnetApp.HotLoop::Churn(int32).*(/tmp/perf-'"$APP_PID"'.map)$' $txt
check "and its other hot method" grep -q 'PcDotnetApp.HotLoop::Digits(int32)' $txt
# String.Join runs the app's loop from ReadyToRun code (see Program.cs): named from the
# jitdump, in the CoreLib image's mapping, with the perf map as dso, as JIT'd methods are (so
# PerfView takes both apart the same way).
pm="(/tmp/perf-$APP_PID.map)"
check "ReadyToRun CoreLib code is named (from the jitdump), as JIT'd code is" \
	grep -qF "[System.Private.CoreLib] System.String::Join(" $txt
check "with the perf map as its dso" \
	grep -q "System.String::Join(.*)\[PreJIT\] (/tmp/perf-$APP_PID.map)\$" $txt
samples=$(grep -c "^dotnet *$APP_PID/" $txt)
r2r=$(awk -v pm="$pm" 'BEGIN{RS=""} index($0, "[PreJIT] " pm){n++} END{print n+0}' $txt)
named=$(grep -cF "[System.Private.CoreLib] " $txt)
unnamed=$(grep -c '\[unknown\] (.*System.Private.CoreLib.dll)$' $txt)
echo "samples $samples, with a ReadyToRun frame $r2r; CoreLib frames named $named, unknown $unnamed"
check "most samples have a named ReadyToRun frame ($r2r of $samples)" \
	test "$samples" -gt 100 -a $((r2r * 2)) -gt "$samples"
check "CoreLib image frames are named, not [unknown] ($named vs $unnamed)" \
	test $((unnamed * 100)) -lt "$named"
finish
