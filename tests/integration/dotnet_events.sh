#!/bin/bash
# .NET runtime events over EventPipe from the installed .NET: a real app collects garbage
# (gen0, gen1, gen2), throws and catches exceptions of two types and contends on a lock;
# `collect -pid` (the app started without and with DOTNET_PerfMapEnabled) must report its
# own GC counts per generation and exception counts exactly, its contention within its own
# count, and TraceEvent's EventPipeEventSource must read the file and count the same.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/workloads/dotnet/events.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_dotnet_app
need_traceevent

for perfmap in 0 1; do
	name=ev$perfmap
	if [ $perfmap = 1 ]; then start_events_app DOTNET_PerfMapEnabled=1; else start_events_app; fi
	start_collect $name -pid "$APP_PID"
	run_events $name
	compare_counts $name "$APP_PID"
	check "$name: CPU samples of the app are placed among its GC pauses" \
		grep -q "^# CPU samples of pid $APP_PID inside GC pauses: [0-9]* of [1-9]" $name.view
	check "$name: the log summarizes the file" \
		bash -c "'$PC' cat $name.trace.zip perfcollect.log | grep -q 'dotnet-$APP_PID.nettrace: NetTrace version 4'"
	check "$name: the session ended with its rundown" \
		bash -c "'$PC' cat $name.trace.zip perfcollect.log | grep -q 'stopped; rundown written'"
done
finish
