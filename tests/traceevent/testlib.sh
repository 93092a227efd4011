# Helpers for tests that read our traces with TraceEvent, PerfView's own reader (sourced after
# tests/integration/lib.sh).

# Sets TE_DLL to the built harness; skips the test without the .NET SDK or the package.
need_traceevent() {
	local rc=0
	TE_DLL=$(sh "$TEST_SRCDIR/traceevent/build.sh") || rc=$?
	[ "$rc" = 77 ] && skip "${TE_DLL#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: building the TraceEvent harness (see above)"; exit 1; }
}

# traceevent CMD ARGS...: runs the harness (see tests/traceevent/Program.cs).
traceevent() {
	DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet "$TE_DLL" "$@"
}
