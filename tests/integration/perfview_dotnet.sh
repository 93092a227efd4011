# PerfView's own reader (TraceEvent, see tests/traceevent) on .NET traces from collect -pid:
# an app with perf maps from its start (DOTNET_PerfMapEnabled=1), one whose maps collect asks
# for over the diagnostics IPC, and one with DOTNET_TieredCompilation=0 (framework code runs
# precompiled; .NET 10 gives up its jitdump at startup, so collect restarts it, alone).  Each:
# PerfView opens it, reads what view reads, and shows no name mangled by our text
# (perfview_check); a .NET method is "Module![Tier]Type::Method(args)" whether it ran
# precompiled (ReadyToRun, [PreJIT]) or JIT-compiled; stubs are named where the runtime
# reported them; the runtime's perf map keeps every line it had.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_dotnet_app
need_traceevent

# Frames of a PerfView reading ("frame N NAME" lines) whose name matches an ERE.
frames_matching() { awk -v re="$2" '$1 == "frame" && substr($0, index($0, $3)) ~ re { n += $2 } END { print n + 0 }' "$1"; }

# 1. Maps from the start.
start_app 30 DOTNET_PerfMapEnabled=1
"$PC" collect env -pid "$APP_PID" -collectsec 2 2>env.err || { cat env.err; fail "collect env"; }
perfview_check env.trace.zip dotnet-env
check "dotnet-env: the app's methods are Module![Tier]Type::Method" \
	grep -qE '^frame [0-9]+ pc-dotnet-app!\[[A-Za-z0-9]+\]PcDotnetApp\.HotLoop::Churn\(int32\)$' dotnet-env.pv
check "dotnet-env: ReadyToRun CoreLib code is too (System.String::Join, [PreJIT])" \
	grep -qE '^frame [0-9]+ System\.Private\.CoreLib!\[PreJIT\]System\.String::Join\(' dotnet-env.pv
# One name per method: a method PerfView shows both precompiled and JIT-compiled has the
# same Module!Type::Method(args) but for the tier, which PerfView puts in front of it.
both=$(awk '$1 == "frame" { name = substr($0, index($0, $3)); if (!match(name, /!\[[A-Za-z0-9]+\]/)) next
	tier = substr(name, RSTART + 2, RLENGTH - 3); key = substr(name, 1, RSTART) substr(name, RSTART + RLENGTH)
	if (tier == "PreJIT") pre[key] = 1; else jit[key] = 1 }
	END { for (k in pre) if (k in jit) n++; print n + 0 }' dotnet-env.pv)
echo "dotnet-env: methods PerfView shows both precompiled and JIT-compiled, under one name: $both"
# (Code the runtime named nowhere stays "System.Private.CoreLib.dll!unknown", as perf has it.)
check "dotnet-env: no named CoreLib frame keeps the image's file name as module" \
	test "$(frames_matching dotnet-env.pv '^System\.Private\.CoreLib\.dll![^u]')" -eq 0
stop_app() { kill "$APP_PID" 2>/dev/null; wait "$APP_PID" 2>/dev/null; remove_runtime_files "$APP_PID"; }
stop_app

# 2. Maps asked for over the diagnostics IPC.
start_app 30
"$PC" collect ipc -pid "$APP_PID" -collectsec 2 2>ipc.err || { cat ipc.err; fail "collect ipc"; }
check "dotnet-ipc: collect asked the runtime" grep -q "asked its .NET runtime over the diagnostics IPC" ipc.err
perfview_check ipc.trace.zip dotnet-ipc
check "dotnet-ipc: the app's methods are named" \
	grep -qE '^frame [0-9]+ pc-dotnet-app!\[[A-Za-z0-9]+\]PcDotnetApp\.HotLoop::Churn\(int32\)$' dotnet-ipc.pv
check "dotnet-ipc: so is ReadyToRun CoreLib code" \
	grep -qE '^frame [0-9]+ System\.Private\.CoreLib!\[PreJIT\]' dotnet-ipc.pv
stop_app

# 3. DOTNET_TieredCompilation=0: every framework frame is ReadyToRun code, and interface
# dispatch goes through stubs in the runtime's double-mapped memory.
start_app 30 DOTNET_PerfMapEnabled=1 DOTNET_TieredCompilation=0
map=/tmp/perf-$APP_PID.map
cp "$map" map.before
stubs=$(grep -c '^[0-9a-fx]* [0-9a-f]* stub ' map.before)
"$PC" collect tc0 -pid "$APP_PID" -collectsec 2 2>tc0.err || { cat tc0.err; fail "collect tc0"; }
cat tc0.err
lost=$(sort map.before | comm -23 - <(sort "$map") | wc -l)
check "tc0: every line of the app's perf map is still there ($stubs stubs before; $lost lines gone)" \
	test "$stubs" -gt 0 -a "$lost" -eq 0
perfview_check tc0.trace.zip dotnet-tc0
r2r=$(frames_matching dotnet-tc0.pv '^System\.Private\.CoreLib!\[PreJIT\]')
named_stubs=$(frames_matching dotnet-tc0.pv '^memfd:doublemapper!stub ')
unnamed=$(frames_matching dotnet-tc0.pv '^memfd:doublemapper!unknown$')
echo "dotnet-tc0: CoreLib [PreJIT] frames $r2r; stub frames named $named_stubs, unnamed double-mapped frames $unnamed"
check "dotnet-tc0: ReadyToRun CoreLib frames are named ($r2r)" test "$r2r" -gt 100
check "dotnet-tc0: stub frames are named ($named_stubs)" test "$named_stubs" -gt 0
check "dotnet-tc0: few double-mapped frames stay unnamed ($unnamed vs $named_stubs)" \
	test $((unnamed * 20)) -le "$named_stubs"
stop_app
finish
