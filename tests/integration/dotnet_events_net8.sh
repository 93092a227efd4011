#!/bin/bash
# dotnet_events.sh on an older runtime: .NET 8 from NuGet's runtime package, run with
# DOTNET_ROOT (tests/dotnet_runtime.sh), which takes CollectTracing2 (no event filter) and
# whose EH writes other stacks: the same counts, app = view = TraceEvent.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/workloads/dotnet/events.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_old_dotnet 8
need_traceevent

events_runs ev8_
finish
