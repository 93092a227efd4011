# Helpers for the .NET runtime events tests (tests/integration/dotnet_events*.sh), sourced
# after tests/integration/lib.sh and testlib.sh: the app's events mode (Program.cs,
# RuntimeEvents) under collect, and its own counts against `view -runtime` and TraceEvent.

# start_events_app [VAR=VALUE...]: runs the app in events mode (waiting for $EV_GO) and waits
# for "ready".  Sets APP_PID, EV_OUT, EV_GO, EV_DONE.  DOTNET_CMD may be set to run it
# elsewhere (e.g. inside a container: EV_WRAP, a command prefix).
EV_WRAP=()
start_events_app() {
	app_n=$((app_n + 1))
	EV_OUT=$T/app$app_n.out EV_GO=$T/go$app_n EV_DONE=$T/done$app_n
	env -u DOTNET_PerfMapEnabled -u COMPlus_PerfMapEnabled -u DOTNET_PerfMapStubGranularity \
		DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 "$@" "${DOTNET_CMD[@]}" "$DLL" events \
		"$EV_GO" "$EV_DONE" >"$EV_OUT" 2>&1 &
	APP_PID=$!
	cleanup_hooks+=("touch $EV_DONE; kill $APP_PID 2>/dev/null; wait $APP_PID 2>/dev/null; remove_runtime_files $APP_PID")
	if ! wait_until 60 grep -q "^ready $APP_PID\$" "$EV_OUT"; then
		echo "FAIL: the .NET app did not get ready:"
		cat "$EV_OUT"
		exit 1
	fi
}

# run_events NAME: the collector (started with start_collect NAME ...) has the app's session:
# let the app work, wait for its counts, stop the collector with Ctrl+C (StopTracing and the
# rundown), then let the app exit.
run_events() {
	local name=$1
	wait_until 30 grep -q "recording its .NET runtime events.*dotnet-$APP_PID.nettrace" \
		"$name.err" || fail "$name: no EventPipe session in pid $APP_PID: $(cat "$name.err")"
	touch "$EV_GO"
	wait_until 60 grep -q '^counted' "$EV_OUT" || fail "$name: the app did not finish: $(cat "$EV_OUT")"
	kill -INT "$collector"
	wait "$collector"
	local rc=$?
	check "$name: collect exits 0" test "$rc" -eq 0
	touch "$EV_DONE"
	wait "$APP_PID" 2>/dev/null
}

# field FILE REGEX N: the Nth word of the first line matching REGEX.
field() { awk -v n="$3" "/$2/ { print \$n; exit }" "$1"; }

# compare_counts NAME PID: the app's GCs per generation, exceptions per type and contention
# against `view -runtime` and TraceEvent's EventPipeEventSource on dotnet-PID.nettrace.
# Prints one table row per count (for the report), checks them.
compare_counts() {
	local name=$1 pid=$2 zip=$1.trace.zip
	"$PC" view "$zip" -runtime -pid "$pid" -top 1000 >"$name.view" 2>"$name.view.err"
	check "$name: view -runtime exits 0" test $? -eq 0
	"$PC" cat "$zip" "dotnet-$pid.nettrace" >"$name.nettrace"
	traceevent nettrace "$name.nettrace" >"$name.te" 2>"$name.te.err"
	check "$name: TraceEvent's EventPipeEventSource reads dotnet-$pid.nettrace" test $? -eq 0
	check "$name: TraceEvent sees no lost events" grep -qx 'lost 0' "$name.te"
	# app: "gc gen0 A gen1 B gen2 C"; view: "# GCs: N (gen0 a, gen1 b, gen2 c) ..."
	local g app view te
	for g in 0 1 2; do
		app=$(field "$EV_OUT" '^gc gen0' $((3 + 2 * g)))
		view=$(sed -n "s/^# GCs: [0-9]* (.*gen$g \([0-9]*\).*/\1/p" "$name.view")
		te=$(field "$name.te" '^gc gen0' $((3 + 2 * g)))
		echo "counts $name gen$g-GCs app=$app view=$view traceevent=$te"
		check "$name: gen$g GCs: view $view = app $app = TraceEvent $te" \
			test -n "$app" -a "$app" = "$view" -a "$app" = "$te"
	done
	local t
	for t in PcDotnetApp.AppErrorA PcDotnetApp.AppErrorB; do
		app=$(awk -v t="$t" '/^exceptions/ { for (i = 2; i < NF; i++) if ($i == t) print $(i + 1) }' "$EV_OUT")
		view=$(awk -v t="$t" '$2 == t && $1 ~ /^[0-9]+$/ { print $1; exit }' "$name.view")
		te=$(awk -v t="$t" '$1 == "exception" && $2 == t { print $3 }' "$name.te")
		echo "counts $name $t app=$app view=$view traceevent=$te"
		check "$name: $t exceptions: view $view = app $app = TraceEvent $te" \
			test -n "$app" -a "$app" = "$view" -a "$app" = "$te"
	done
	check "$name: the throwing methods are named (RuntimeEvents.ThrowA, ThrowB)" bash -c \
		"grep -q 'AppErrorA .*PcDotnetApp.RuntimeEvents.ThrowA' $name.view &&
		 grep -q 'AppErrorB .*PcDotnetApp.RuntimeEvents.ThrowB' $name.view"
	app=$(field "$EV_OUT" '^contention' 2)
	view=$(sed -n 's/^# Lock contention: \([0-9]*\) waits.*/\1/p' "$name.view")
	te=$(field "$name.te" '^contention' 2)
	echo "counts $name lock-contentions app=$app view=$view traceevent=$te"
	check "$name: contentions: 0 < view $view <= app $app, = TraceEvent $te" \
		test -n "$view" -a "${view:-0}" -gt 0 -a "${view:-0}" -le "${app:-0}" -a "$view" = "$te"
	check "$name: the waiting method is named (RuntimeEvents.HoldLock)" \
		grep -qE '^ *[0-9.]+  lock .* PcDotnetApp.RuntimeEvents.HoldLock' "$name.view"
	check "$name: JIT-compiled methods of the app are listed" \
		grep -q 'PcDotnetApp.RuntimeEvents.Allocate' "$name.view"
	check "$name: the trace names the runtime's methods (rundown)" \
		awk '$1 == "rundown" && $2 > 100 { ok = 1 } END { exit !ok }' "$name.te"
}

# events_runs PREFIX: the app without and with DOTNET_PerfMapEnabled, each under collect -pid,
# counted (compare_counts), its samples placed among its GC pauses, the file summarized in
# the log and ended with the rundown.
events_runs() {
	local prefix=$1 perfmap name
	for perfmap in 0 1; do
		name=$prefix$perfmap
		if [ $perfmap = 1 ]; then start_events_app DOTNET_PerfMapEnabled=1; else start_events_app; fi
		start_collect "$name" -pid "$APP_PID"
		run_events "$name"
		compare_counts "$name" "$APP_PID"
		check "$name: CPU samples of the app are placed among its GC pauses" \
			grep -q "^# CPU samples of pid $APP_PID inside GC pauses: [0-9]* of [1-9]" "$name.view"
		check "$name: the log summarizes the file" bash -c \
			"'$PC' cat $name.trace.zip perfcollect.log | grep -q 'dotnet-$APP_PID.nettrace: NetTrace version 4'"
		check "$name: the session ended with its rundown" bash -c \
			"'$PC' cat $name.trace.zip perfcollect.log | grep -q 'stopped; rundown written'"
	done
}
