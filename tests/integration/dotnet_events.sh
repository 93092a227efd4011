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

events_runs ev
finish
