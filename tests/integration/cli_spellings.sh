#!/usr/bin/env bash
# Every spelling of perfcollect's own usage text (PrintUsage in perfcollect, listed below as
# it gives them) is accepted and does the useful thing: a script written for perfcollect
# never stops at a usage error (exit 2).
#
#   ./perfcollect <action> <tracename>      Valid Actions: collect start/stop view livetrace install
#   collect options: -pid -threadtime -offcpu -hwevents -buffersize (pages; B/K/M/G suffix)
#   start / stop
#   view options: -processfilter -graphtype caller|callee -viewer perf|lttng
#   install options: -force
# and the ones its argument loop takes besides: -collectsec -system -perfopt -nolttng -noperf
# -gccollectonly -gconly -gcwithheap -events LIST -rawevents LIST, plus setenv.
source "$(dirname "$0")/lib.sh"
private_run # start/stop: a registry of its own

not_usage() { # not_usage "what" rc: anything but perfcollect-c's usage error
	check "$1 is accepted (exit $2, not 2)" test "$2" != 2
}

"$WORKLOADS/hot" 20 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")

# collect with every collect option perfcollect passes, in perfcollect's case (lower) and in
# a mixed case, values as perfcollect's examples give them: the CPU side, then the .NET
# event side (hot is no .NET process: those record nothing from it, but are taken).
rc=0
"$PC" collect sp1 -pid $hot -collectsec 0.5 -buffersize 256 -threadtime -hwevents -system \
	-nolttng >sp1.out 2>&1 || rc=$?
not_usage "collect with perfcollect's CPU-side collect options" $rc
check "  and writes its zip" test -s sp1.trace.zip
"$PC" log sp1.trace.zip >sp1.log
check "  -buffersize 256 is 256 pages (1 MiB rings), as perf --mmap-pages" \
	grep -q "ring buffers: .* 1024 KiB each" sp1.log
check "  -collectsec 0.5 stops after half a second" \
	grep -qE "recorded for 0\.[5-9][0-9]* s" sp1.log
rc=0
"$PC" collect sp1n -pid $hot -collectsec 0.3 -gcwithheap -events threading \
	-rawevents Microsoft-Windows-DotNETRuntime:GCStart,GCEnd >sp1n.out 2>&1 || rc=$?
not_usage "collect with perfcollect's .NET event options" $rc
check "  -events/-rawevents with -gcwithheap: ignored, and said, as perfcollect does" \
	grep -q "rawevents: ignored with -gccollectonly" sp1n.out
check "  -gc* records no CPU samples, and does not blame the process for it" \
	bash -c "! grep -q 'did not run on a CPU' sp1n.out"
rc=0
"$PC" collect sp1p -pid $hot -collectsec 0.3 -noperf -gccollectonly >sp1p.out 2>&1 || rc=$?
not_usage "collect -noperf -gccollectonly" $rc
check "  writes its zip" test -s sp1p.trace.zip
rc=0
"$PC" collect sp2 -PID $hot -CollectSec 0.3 -offcpu -BufferSize 100M >sp2.out 2>&1 || rc=$?
not_usage "collect -offcpu -BufferSize 100M (any case)" $rc
"$PC" log sp2.trace.zip >sp2.log 2>&1
check "  100M is bytes: 128 MiB rings after rounding up to a power of two" \
	grep -q "ring buffers: .* 131072 KiB each" sp2.log
check "  the rounding is said" grep -q "rounded up to 128 MiB" sp2.out

# start / stop
rc=0
"$PC" start sp3 -pid $hot >sp3.start 2>&1 || rc=$?
not_usage "start NAME" $rc
rc=0
"$PC" stop sp3 >sp3.stop 2>&1 || rc=$?
not_usage "stop NAME" $rc
check "  stop wrote the zip" test -s sp3.trace.zip

# view
rc=0; "$PC" view sp1.trace.zip -processfilter hot -graphtype caller >v1.txt 2>&1 || rc=$?
not_usage "view -processfilter -graphtype caller" $rc
check "  caller graph" grep -q "Call graph (caller)" v1.txt
rc=0; "$PC" view sp1.trace.zip -graphtype callee -viewer perf >v2.txt 2>&1 || rc=$?
not_usage "view -viewer perf" $rc
"$PC" view sp1.trace.zip >v0.txt 2>&1
check "  -viewer perf is the report itself" cmp -s v0.txt v2.txt
rc=0; "$PC" view sp1.trace.zip -viewer lttng >v3.txt 2>&1 || rc=$?
not_usage "view -viewer lttng" $rc
check "  shows the .NET runtime events, and says there are none here and why" \
	grep -q "no .NET runtime events in sp1.trace.zip (collect records them from .NET processes" v3.txt
rc=0; "$PC" view sp1.trace.zip -viewer babeltrace >v4.txt 2>&1 || rc=$?
check "view -viewer with another value is a usage error naming perf and lttng" \
	bash -c "[ $rc = 2 ] && grep -q 'perf or lttng' v4.txt"
rc=0
"$PC" view sp1.trace.zip -perfopt "--stdio --sort comm,dso --percent-limit 2 --no-children -T" \
	>v5.txt 2>v5.err || rc=$?
not_usage "view -perfopt \"perf report options\"" $rc
check "  --sort comm,dso gives perf's flat table" \
	grep -qE '^# +Overhead +Samples +Command +Shared Object' v5.txt
check "  with hot's own binary in it" grep -qE '%.* hot +hot$' v5.txt
check "  --percent-limit 2 prunes the call graph" grep -q "branches under 2% not shown" v5.txt
check "  the options with no meaning here are named" \
	grep -q "ignored (no meaning in this report): --no-children -T" v5.err

# install, livetrace, setenv
rc=0; "$PC" install -force >inst.txt 2>&1 || rc=$?
not_usage "install -force" $rc
check "  says what -force changes" grep -q -- "-force: nothing is installed" inst.txt
if command -v unshare >/dev/null && unshare --mount true 2>/dev/null; then
	# In a mount namespace of its own, without tracefs: -force mounts it there.
	unshare --mount --propagation private bash -c '
		umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null
		[ -e /sys/kernel/tracing/events ] && exit 3
		"$1" install -force >inst2.txt 2>&1
		[ -e /sys/kernel/tracing/events ]' _ "$PC"
	check "  -force mounts tracefs where it was missing" test $? = 0
	check "  and says so" grep -q "tracefs mounted at /sys/kernel/tracing by -force" inst2.txt
fi
rc=0; "$PC" livetrace >lt.txt 2>&1 || rc=$?
not_usage "livetrace" $rc
rc=0; "$PC" setenv -- true >se.txt 2>&1 || rc=$?
not_usage "setenv" $rc
finish
