# `collect -pid` given the PID of `dotnet run` (the .NET SDK's own process) instead of the
# app it started: a newcomer's first .NET trace would be the SDK waiting.  collect says so in
# one warning naming the app's PID, and that PID records the app's hot methods.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_dotnet_app # the SDK, and NuGet's packages cached for the build below
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 \
	MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false
mkdir proj && cp "$TEST_SRCDIR"/workloads/dotnet/*.csproj "$TEST_SRCDIR"/workloads/dotnet/*.cs proj/
(cd proj && dotnet build -c Release -nodeReuse:false >build.log 2>&1) ||
	{ tail -20 proj/build.log; fail "dotnet build of the test app"; finish; }
(cd proj && exec dotnet run -c Release --no-build -- 30) >run.out 2>&1 &
sdk=$!
cleanup_hooks+=("pkill -P $sdk 2>/dev/null; kill $sdk 2>/dev/null")
wait_until 60 grep -q '^ready ' run.out || { cat run.out; fail "the app did not get ready"; finish; }
app=$(awk '$1 == "ready" { print $2 }' run.out)
check "dotnet run ($sdk) started the app as its child ($app)" \
	test "$(awk '/^PPid:/ { print $2 }' /proc/$app/status)" = "$sdk"
"$PC" collect sdk -pid $sdk -collectsec 0.5 >sdk.out 2>&1
cat sdk.out
check "collect -pid of dotnet run: one warning naming the app's pid" \
	bash -c "[ \$(grep -c 'is the .NET SDK running .dotnet run -c Release --no-build -- 30., not the app: the app it started is pid $app (' sdk.out) = 1 ]"
"$PC" collect app -pid $app -collectsec 1 >app.out 2>&1
check "  and that pid records the app's hot methods, without the warning" \
	bash -c "'$PC' view app.trace.zip | grep -q 'HotLoop' && ! grep -q 'the .NET SDK' app.out"
finish
