# Call stacks of a .NET app on the installed runtime: the test app's pool mode runs its code
# on the main thread (from Program.Main) and on thread-pool workers (from
# ThreadPoolWorkQueue.Dispatch), through the runtime's native code, libc and ReadyToRun
# framework code.  Two collections of the same process at the same time, -callgraph fp
# (before) and the default hybrid stacks (after): of the samples in the app's own code, the
# share whose stack reaches its thread's start (Main or the pool's dispatch) must be no
# lower with hybrid stacks; the figures are printed.  (Both stay below 100 %: a stack into
# a method the runtime replaced while it ran (on-stack replacement) has a caller no stack
# walk but the runtime's finds, and the framework's ReadyToRun frames go unnamed when the
# runtime's map lacks them, the pool's dispatch with them.)  The framework's
# ReadyToRun image has its unwind information read (the log says so).
source "$(dirname "$0")/lib.sh"
need_root
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_dotnet_app

start_app pool 12 DOTNET_PerfMapEnabled=1
# No IPC and no EventPipe: the two collections must not take turns asking the runtime.
"$PC" collect fp -pid "$APP_PID" -collectsec 4 -callgraph fp -nodotnetipc -nodotnetevents \
	>fp.out 2>&1 &
c=$!
"$PC" collect hybrid -pid "$APP_PID" -collectsec 4 -nodotnetipc -nodotnetevents >hybrid.out 2>&1 ||
	{ fail "collect (hybrid) failed"; cat hybrid.out; }
wait "$c" || { fail "collect -callgraph fp failed"; cat fp.out; }

# reach FILE: "KEPT TOTAL" of the samples in the app's code that reach Main or Dispatch.
reach() {
	"$PC" cat "$1.trace.zip" "$1.trace/perf.data.txt" | awk '
	function done() { if (app) { n++; if (start) k++ } }
	/^[^\t]/ { done(); app = start = 0; next }
	/^\t/ { if (/ \[pc-dotnet-app\] /) app = 1
		if (/PcDotnetApp\.Program::Main\(/ || /ThreadPoolWorkQueue::Dispatch\(/) start = 1 }
	END { done(); print k + 0, n + 0 }'
}
read -r fok fn <<<"$(reach fp)"
read -r hok hn <<<"$(reach hybrid)"
echo "samples in the app's code reaching Main or the thread pool's dispatch:" \
	"-callgraph fp $fok of $fn ($(percent "$fok" "$fn") %), hybrid $hok of $hn ($(percent "$hok" "$hn") %)"
check "both recorded samples in the app's code ($fn, $hn)" test "$fn" -ge 100 -a "$hn" -ge 100
check "hybrid stacks reach the thread's start at least as often (within 2 points)" \
	test "$((hok * 100 / hn + 2))" -ge "$((fok * 100 / fn))"
check "hybrid stacks reach it in most samples (>= 75 %)" test "$((hok * 100))" -ge "$((hn * 75))"
"$PC" log hybrid.trace.zip >hybrid.log
grep 'call stacks unwound' hybrid.log | sed 's/^\[[^]]*\] //'
check "the log counts stacks mended" grep -qE 'copies: [0-9]+ samples, [1-9][0-9]* with callers' hybrid.log
check "System.Private.CoreLib.dll's unwind information was read" \
	grep -qE 'unwind tables: .*System\.Private\.CoreLib\.dll: PE unwind info, [1-9][0-9]* functions' hybrid.log
finish
