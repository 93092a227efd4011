#!/bin/bash
# Issue 24 (finding 4's EventPipe part): a runtime decides how much it sends, so the
# .nettrace written from its stream is capped (PERFCOLLECT_C_NETTRACE_MAX): at the cap the
# file keeps what came before, a warning says so, the session is stopped, and the trace is
# still made.  Before the cap, a runtime could fill the host's disk.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_cmd unzip
need_dotnet_app

start_app 30
PERFCOLLECT_C_NETTRACE_MAX=64K "$PC" collect cap -pid "$APP_PID" -collectsec 3 2>cap.err
rc=$?
cat cap.err
check "collect exits 0 (rc $rc)" test "$rc" -eq 0
check "it warns that the events reached the cap" \
	grep -q "pid $APP_PID: its .NET events reached 65536 bytes, the most kept (PERFCOLLECT_C_NETTRACE_MAX raises it)" cap.err
unzip -q cap.trace.zip 2>/dev/null
# The runtime's stream as written (the zip's .nettrace is made from it by merge):
line=$(grep "pid $APP_PID: EventPipe session .*bytes in" cap.trace/perfcollect.log)
echo "$line"
check "the stream's file keeps the first 64 KiB" grep -q "; 65536 bytes in " <<<"$line"
check "the zip holds a .nettrace made from it" bash -c "ls cap.trace/*.nettrace >/dev/null"
check "the rest of the trace is there" test -s cap.trace/perf.data.txt

PERFCOLLECT_C_NETTRACE_MAX=lots "$PC" collect bad -pid "$APP_PID" -collectsec 0.5 2>bad.err
rc=$?
check "a value that is no size: collect still exits 0 (rc $rc)" test "$rc" -eq 0
check "and says so once" grep -q "PERFCOLLECT_C_NETTRACE_MAX=lots is not a size (e.g. 4G); using 4G" bad.err
finish
