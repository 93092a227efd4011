#!/bin/bash
# .NET runtime events from a "container" (own PID and mount namespaces, private tmpfs /tmp,
# the app its PID 1), collected from the host as a sidecar does: no shared /tmp, the
# diagnostics socket reached through /proc/<pid>/root.  System-wide, the app is started
# after the collector and must be found within seconds; then with -pid <host pid>.  Counts
# as in dotnet_events.sh, the file named by the host PID; in the unified <name>.nettrace,
# TraceLog gives the runtime's events to the host PID.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container/helpers.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/workloads/dotnet/events.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_containers
need_dotnet_app
need_traceevent
# The build may live under /tmp, which the containers do not see: run a copy from $T.
cp -R "$(dirname "$DLL")" app

# start_app_container NAME: the app in events mode as PID 1 of container NAME, run from the
# container's own /tmp (its go and done files there too, reached from the host through
# /proc/<pid>/root); sets APP_PID (host PID), EV_GO, EV_DONE, EV_OUT.
start_app_container() {
	local name=$1
	EV_OUT=$T/$name.out
	start_container "$name" "mkdir /tmp/w && cp -R app /tmp/w/ && cd /tmp/w &&
		DOTNET_CLI_TELEMETRY_OPTOUT=1 exec dotnet app/pc-dotnet-app.dll events /tmp/w/go /tmp/w/done"
	local u
	eval "u=\$${name}_u"
	APP_PID=''
	ready() { APP_PID=$(container_pid1 "$u") && grep -q '^ready 1$' "$EV_OUT"; }
	wait_until 60 ready || { fail "container $name not ready: $(cat "$EV_OUT")"; finish; }
	EV_GO=/proc/$APP_PID/root/tmp/w/go EV_DONE=/proc/$APP_PID/root/tmp/w/done
	cleanup_hooks+=("touch $EV_DONE 2>/dev/null")
	echo "container $name: host PID $APP_PID, PID $(ns_pid "$APP_PID") inside"
}

# ---- system-wide: a .NET process that starts during the collection is found ----
start_collect sw
start_app_container A
found_at=$SECONDS
if wait_until 10 grep -q "recording its .NET runtime events.*dotnet-$APP_PID.nettrace" sw.err; then
	pass "sw: the new .NET process (host PID $APP_PID) got a session within $((SECONDS - found_at + 1)) s"
else
	fail "sw: the new .NET process was not found: $(cat sw.err)"
fi
run_events sw
check "sw: the zip names the file by the host PID (dotnet-$APP_PID.nettrace)" \
	bash -c "'$PC' ls sw.trace.zip | grep -q 'dotnet-$APP_PID.nettrace'"
compare_counts sw "$APP_PID"
check "sw: the view names the process by its host PID and its own (1)" \
	grep -q "^# .NET runtime events of pid $APP_PID (pid 1 in its namespace)" sw.view

# ---- -pid <host pid> ----
start_app_container B
start_collect pid -pid "$APP_PID"
run_events pid
compare_counts pid "$APP_PID"
# the unified NetTrace: TraceLog gives the runtime's events to the host pid
unzip -p pid.trace.zip pid.trace/pid.nettrace >unified.nettrace
traceevent tracelog unified.nettrace --runtime >unified.tl 2>unified.tl.err
exc=$(awk '/^exceptions/ { print $2 }' pid.te)
tl=$(awk -v p="$APP_PID" '$1 == "runtime_event" && $3 == p &&
	$2 == "Microsoft-Windows-DotNETRuntime/Exception/Start" { print $4 }' unified.tl)
check "unified .nettrace: TraceLog gives the app's $exc exceptions to host pid $APP_PID ($tl)" \
	test -n "$exc" -a "$tl" = "$exc"
check "... its thread ids said to be of another namespace" bash -c \
	"'$PC' cat pid.trace.zip perfcollect.log | grep -q 'is pid 1 in its pid namespace'"
finish
