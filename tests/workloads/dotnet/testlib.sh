# Helpers for tests/integration/dotnet_*.sh (sourced after tests/integration/lib.sh): build the
# .NET test app once (cached, see build.sh) and run it as a test's target.

# How apps are run: the installed dotnet, or need_old_dotnet's.
DOTNET_CMD=(dotnet)

# Sets DLL to the built app; skips the test without the .NET SDK.
need_dotnet_app() {
	local rc=0
	DLL=$(sh "$TEST_SRCDIR/workloads/dotnet/build.sh") || rc=$?
	[ "$rc" = 77 ] && skip "${DLL#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: building the .NET test app (see above)"; exit 1; }
}

# need_old_dotnet MAJOR: the app built for .NET MAJOR (DLL), run by that runtime from NuGet
# with DOTNET_ROOT (DOTNET_CMD, see tests/dotnet_runtime.sh); skips when either cannot be
# had (no SDK, NuGet unreachable).
need_old_dotnet() {
	local rc=0 root
	root=$(sh "$TEST_SRCDIR/dotnet_runtime.sh" "$1") || rc=$?
	[ "$rc" = 77 ] && skip "${root#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: getting the .NET $1 runtime (see above)"; exit 1; }
	DLL=$(sh "$TEST_SRCDIR/workloads/dotnet/build.sh" "$1") || rc=$?
	[ "$rc" = 77 ] && skip "${DLL#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: building the .NET test app for .NET $1 (see above)"; exit 1; }
	DOTNET_CMD=(env "DOTNET_ROOT=$root" "$root/dotnet")
}

# start_app [MODE] SECONDS [VAR=VALUE...]: runs the app (in MODE, e.g. reuse, see Program.cs)
# for SECONDS with the given environment (perf map variables from the caller's environment
# removed) and waits until it printed "ready <pid>", i.e. its hot methods are compiled and
# running.  Sets APP_PID.  The app and the map files it wrote are removed at exit.
app_n=0
start_app() {
	local mode=()
	case $1 in [0-9]*) ;; *) mode=("$1"); shift ;; esac
	local secs=$1; shift
	app_n=$((app_n + 1))
	local out=$T/app$app_n.out
	# What an earlier process of the same pid left in /tmp (pids wrap at pid_max) goes first,
	# from the subshell that becomes the app: a stale map or socket is not the app's.
	(remove_runtime_files "$BASHPID" && exec env -u DOTNET_PerfMapEnabled -u COMPlus_PerfMapEnabled \
		-u DOTNET_PerfMapStubGranularity DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 "$@" \
		"${DOTNET_CMD[@]}" "$DLL" "${mode[@]}" "$secs") >"$out" 2>&1 &
	APP_PID=$!
	cleanup_hooks+=("kill $APP_PID 2>/dev/null; wait $APP_PID 2>/dev/null; remove_runtime_files $APP_PID")
	if ! wait_until 60 grep -q "^ready $APP_PID\$" "$out"; then
		echo "FAIL: the .NET app did not get ready:"; cat "$out"
		exit 1
	fi
}

# What a runtime leaves in /tmp: maps, and the diagnostics socket and debugger pipes it does
# not remove when stopped by a signal.
remove_runtime_files() { # remove_runtime_files PID
	rm -f /tmp/perf-"$1".map /tmp/perfinfo-"$1".map /tmp/jit-"$1".dump \
		/tmp/dotnet-diagnostic-"$1"-*-socket /tmp/clr-debug-pipe-"$1"-*
}

# Does the process hold FILE open?  (The runtime keeps its map files open while writing.)
holds_open() { # holds_open PID FILE
	local fd
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}
