# view as the Linux PerfView, judged by PerfView's own library: TraceEvent 4.0.0 (the C#
# harness in tests/traceevent, command perfview) reads the same files through TraceLog and
# TraceLoadedDotNetRuntime, and view's numbers must be its numbers:
#   - per stack, the SampleProfiler samples in managed code (view -event cpu-clock) and
#     outside it (view -offcpu), the AllocationTick bytes (view -event alloc, the type as the
#     leaf) and the exceptions thrown (view -event exception), frames named alike;
#   - the GCs per process and generation, and their total pause (within 1%), as GCStats;
#   - the JIT-compiled methods.
# Inputs: PerfView's own test files (tests/data/perfview: NetTrace 3 to 5, Windows and Linux,
# 32 and 64 bit), a file `dotnet-trace collect` (NuGet, pinned) records of the .NET app's
# perfview mode, and our own `collect` of the same app.  Each view must also show the app's
# known truth: the hot method leads the CPU samples, Widget holds >= 80% of the bytes
# allocated, 37 AppErrorC thrown, the waits in HoldLedger for the one lock.  Then the
# formats of each view, the CSV tables, and a cut file.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_traceevent
need_cmd unzip
DATA=$TEST_SRCDIR/data/perfview

# Folded stacks with frames named alike: TraceLog's "module!method" as "method", its unknown
# "?!?" and view's unknown address as "?"; view's process frame dropped.  "COUNT<TAB>STACK".
ours_folded() { # FILE VIEW-ARGS... (the weight divided by $DIV, default 1)
	local f=$1; shift
	"$PC" view "$f" "$@" -folded - 2>/dev/null | awk -v div="${DIV:-1}" '{
		n = $NF; sub(/ [0-9]+$/, ""); i = index($0, ";"); s = i ? substr($0, i + 1) : ""
		k = split(s, a, ";"); o = ""
		for (j = 1; j <= k; j++) { x = a[j]; if (x ~ /^0x[0-9a-f]+$/) x = "?"
			o = o (j > 1 ? ";" : "") x }
		c[o] += n } END { for (k in c) printf "%d\t%s\n", c[k] / div + 0.5, k }' | sort
}
theirs_folded() { # HARNESS-OUTPUT KEY [TYPE]: its lines "KEY [TYPE] N STACK"
	awk -v key="$2" -v type="${3:-}" '$1 == key && (type == "" || $2 == type) {
		f = type == "" ? 2 : 3; n = $f; s = $0
		for (j = 1; j <= f; j++) sub(/^[^ ]+ /, "", s)
		if ($0 ~ (" " n "$")) s = ""
		k = split(s, a, ";"); o = ""
		for (j = 1; j <= k; j++) { x = a[j]; i = index(x, "!"); if (i) x = substr(x, i + 1)
			o = o (j > 1 ? ";" : "") x }
		c[o] += n } END { for (k in c) printf "%d\t%s\n", c[k], k }' "$1" | sort
}
same_stacks() { # LABEL OURS THEIRS
	local n t
	n=$(awk -F'\t' '{ s += $1 } END { print s + 0 }' "$2")
	t=$(awk -F'\t' '{ s += $1 } END { print s + 0 }' "$3")
	check "$1: per stack as TraceLog ($(wc -l <"$3") stacks, $t in TraceLog, $n in view)" \
		cmp -s "$2" "$3" || diff "$2" "$3" | head -6
}
# The sampling interval of a trace's SampleProfiler samples outside managed code, in us.
external_us() { # FILE
	"$PC" view "$1" -offcpu 2>/dev/null | awk '/^# Blocked time: .* SampleProfiler samples/ {
		ms = $4; n = $6; if (n) printf "%d\n", ms * 1000 / n + 0.5; exit }'
}
# Sum of the weights of folded lines whose leaf is LEAF.
leaf_sum() { awk -F'\t' -v l="$2" '{ k = split($2, a, ";"); if (a[k] == l) s += $1 }
	END { print s + 0 }' "$1"; }

# gcstats_same LABEL: GCStats' columns of each complete GC (the harness's gc_stats lines in
# LABEL.pv) against view's CSV rows (LABEL.gc.csv), within 0.1% or 0.002 (MB: 10^6 bytes, as
# PerfView): % Pause Time, Gen0 Alloc MB, its rate, Peak MB, After MB, Promoted MB,
# Finalizable Surv MB, Pinned Obj, and the Gen0-2 and LOH Frag % where the GC has its heaps'
# histories (GCPerHeapHistory; without them TraceEvent has none, view an empty field).
gcstats_same() {
	local label=$1 res
	res=$(awk -F'[ ,]' 'function off(x, y) { d = x - y; if (d < 0) d = -d
			return d > 0.001 * (y < 0 ? -y : y) + 0.002 }
		FILENAME == ARGV[1] && $1 == "gc_stats" { te[$2 " " $3] = $0; next }
		FILENAME == ARGV[2] && FNR > 1 { k = $1 " " $2; if (!(k in te)) { miss++; next }
			split(te[k], t, " "); n++
			if (off($20, t[4]) || off($12 / 1e6, t[8]) || off($13 / 1e6, t[9]) ||
			    off($26 / 1e6, t[10]) || $27 != t[11] || off($21 / 1e6, t[5]) ||
			    off($22, t[6]) || off($25 / 1e6, t[7])) { bad++; if (!ex) ex = k }
			if (t[12] == 0) next
			perheap++
			for (g = 0; g < 4; g++)
				if (t[13 + g] != "NaN" && off($(28 + g), t[13 + g])) {
					bad++; if (!ex) ex = k " (gen" g " frag)" } }
		END { printf "%d %d %d %d %s\n", n, perheap, bad, miss, ex }' \
		"$label.pv" "$(if [ -s "$label.gc.csv" ]; then echo "$label.gc.csv"; else echo /dev/null; fi)")
	read -r n perheap bad miss ex <<<"$res"
	echo "$label: GCStats columns of $n GCs compared ($perheap with the heaps' histories); $bad off ${ex:+(first: GC $ex)}; $miss not in TraceEvent"
	check "$label: GCStats' % Pause Time, Gen0 Alloc MB and rate, Peak, After, Promoted, Finalizable, Pinned, Frag % as TraceEvent's for $n GCs" \
		test "$bad" = 0 -a "$miss" = 0
}

# compare LABEL FILE: every view of FILE against the harness's reading of it.
compare() {
	local label=$1 f=$2 us
	traceevent perfview "$f" >"$label.pv" 2>"$label.pv.err"
	check "$label: TraceLog converts it ($(grep -m1 '^exception' "$label.pv"))" \
		grep -q '^contention ' "$label.pv"
	ours_folded "$f" -event cpu-clock >"$label.cpu.ours"
	theirs_folded "$label.pv" sample_stack Managed >"$label.cpu.te"
	same_stacks "$label: SampleProfiler samples in managed code (-event cpu-clock)" \
		"$label.cpu.ours" "$label.cpu.te"
	us=$(external_us "$f")
	DIV=${us:-1} ours_folded "$f" -offcpu >"$label.ext.ours"
	theirs_folded "$label.pv" sample_stack External >"$label.ext.te"
	same_stacks "$label: SampleProfiler samples outside managed code (-offcpu)" \
		"$label.ext.ours" "$label.ext.te"
	ours_folded "$f" -event alloc >"$label.alloc.ours"
	theirs_folded "$label.pv" alloc_stack >"$label.alloc.te"
	same_stacks "$label: AllocationTick bytes (-event alloc)" "$label.alloc.ours" "$label.alloc.te"
	ours_folded "$f" -event exception >"$label.exc.ours"
	theirs_folded "$label.pv" exception_stack >"$label.exc.te"
	same_stacks "$label: exceptions thrown (-event exception)" "$label.exc.ours" "$label.exc.te"
	# GCs per process and generation, from the CSV rows.
	"$PC" view "$f" -runtime -format csv -o "$label.gc.csv" 2>/dev/null
	local pid gen n ms ours_n ours_ms
	while read -r pid gen n ms; do
		read -r ours_n ours_ms < <(awk -F, -v p="$pid" -v g="$gen" \
			'NR > 1 && $1 == p && $3 == g { n++; s += $8 } END { printf "%d %.3f\n", n, s }' \
			"$label.gc.csv")
		echo "$label: gen$gen GCs of pid $pid: TraceEvent $n, ${ms} ms; view $ours_n, $ours_ms ms"
		check "$label: gen$gen GCs: view $ours_n as TraceEvent $n, pause $ours_ms ms within 1% of $ms" \
			awk -v a="$ours_n" -v b="$n" -v x="$ours_ms" -v y="$ms" \
			'BEGIN { d = x - y; if (d < 0) d = -d; exit !(a == b && d <= 0.01 * y + 0.001) }'
	done < <(awk '$1 == "gc_gen" { print $2, $3, $4, $5 }' "$label.pv")
	gcstats_same "$label"
	local jit_te jit_ours
	jit_te=$(awk '$1 == "jit_total" { n += $3 } END { print n + 0 }' "$label.pv")
	jit_ours=$("$PC" view "$f" -runtime jit -format csv -o - 2>/dev/null | tail -n +2 | wc -l)
	check "$label: JIT-compiled methods: view $jit_ours as TraceEvent $jit_te" \
		test "$jit_ours" -eq "$jit_te"
}

# ---- PerfView's own test inputs ----
for z in "$DATA"/*.zip; do
	name=$(basename "$z" .zip)
	unzip -q -o "$z"
	[ -f "$name" ] || { fail "$z holds no $name"; continue; }
	compare "${name%%.net*}" "$name"
done
# The measured issue: 478 GCs, 7730 ms of pause (TraceEvent), where view said 6399.
check "objver4: view -runtime says 478 GCs and TraceEvent's 7730 ms of pause" \
	grep -q "^# GCs: 478 (gen0 473, gen1 5, gen2 0) .* paused 7730\.3[0-9]* ms" \
	<("$PC" view "$DATA/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip" -runtime 2>/dev/null)
check "objver4: the file has no rundown: one warning line says so" \
	test "$("$PC" view eventpipe-dotnetcore3.0-win-x64-objver4.nettrace -runtime 2>&1 >/dev/null |
		grep -c 'has no rundown')" -eq 1
check "a zipped NetTrace is read as the file itself" \
	cmp -s <("$PC" view "$DATA/only_managed_samples.nettrace.zip" -folded - 2>/dev/null) \
	<("$PC" view only_managed_samples.nettrace -folded - 2>/dev/null)

# ---- the .NET app: dotnet-trace collect, then our own collect ----
if ! (source "$TEST_SRCDIR/workloads/dotnet/testlib.sh" && need_dotnet_app) >/dev/null 2>&1; then
	echo "(the .NET SDK is not installed: no app part)"
	finish
fi
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_dotnet_app
need_dotnet_trace

# run_app [ENV=VALUE...]: the app in perfview mode, its work started once $go exists; it
# exits once $stop exists (a collection reads its JIT maps through the live process).
run_app() {
	app_n=$((app_n + 1))
	go=$T/go$app_n
	stop=$T/stop$app_n
	env DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 "$@" "${DOTNET_CMD[@]}" "$DLL" perfview "$go" 2 "$stop" \
		>"$T/app$app_n.out" 2>&1 &
	APP_PID=$!
	APP_OUT=$T/app$app_n.out
	cleanup_hooks+=("kill $APP_PID 2>/dev/null; wait $APP_PID 2>/dev/null; remove_runtime_files $APP_PID")
	wait_until 60 grep -q "^ready $APP_PID\$" "$APP_OUT" || { cat "$APP_OUT"; fail "the app got not ready"; finish; }
}

# Truths each view must show (LABEL FILE-OR-ZIP).
truths() {
	local label=$1 f=$2 thrown
	thrown=$(awk '/^thrown PcDotnetApp.AppErrorC/ { print $3 }' "$APP_OUT")
	"$PC" view "$f" -event exception -folded - 2>/dev/null >"$label.exc.folded"
	check "$label: $thrown AppErrorC thrown, as the app counted" \
		test "$(awk '{ k = split($0, a, ";"); sub(/ [0-9]+$/, "", a[k]); if (a[k] == "PcDotnetApp.AppErrorC") s += $NF }
			END { print s + 0 }' "$label.exc.folded")" = "$thrown"
	"$PC" view "$f" -event alloc -folded - 2>/dev/null >"$label.alloc.folded"
	check "$label: Widget holds at least 80% of the bytes allocated" awk '{
		n = $NF; t += n; if ($0 ~ /;PcDotnetApp\.Widget [0-9]+$/) w += n }
		END { exit !(t > 0 && w >= 0.8 * t) }' "$label.alloc.folded"
	"$PC" view "$f" -event contention -folded - 2>/dev/null >"$label.cont.folded"
	check "$label: the waits for the lock are in HoldLedger" awk '{
		n = $NF; t += n; if ($0 ~ /HoldLedger/) h += n } END { exit !(t > 0 && h >= 0.9 * t) }' \
		"$label.cont.folded"
	"$PC" view "$f" -runtime >"$label.runtime" 2>/dev/null
	check "$label: -runtime leads with findings: the top allocating type" \
		grep -q "^# - The top allocating type is PcDotnetApp.Widget" "$label.runtime"
	check "$label: ... the most thrown exception and who threw it" \
		grep -q "^# - The most thrown exception is PcDotnetApp.AppErrorC: $thrown .*by PcDotnetApp.Profiled.ThrowC" \
		"$label.runtime"
	check "$label: ... the most contended lock, waited for in HoldLedger" \
		grep -q "^# - The most contended lock is .* in PcDotnetApp.Profiled.HoldLedger" "$label.runtime"
}

run_app
"$DOTNET_TRACE" collect -p "$APP_PID" -o dt.nettrace --profile dotnet-sampled-thread-time \
	--providers 'Microsoft-Windows-DotNETRuntime:0x100003C01D:5' >dt.out 2>&1 &
dt=$!
wait_until 30 grep -q "Output File" dt.out || { cat dt.out; fail "dotnet-trace did not start"; }
touch "$go"
wait_until 60 grep -q '^done' "$APP_OUT" || fail "the app did not finish: $(cat "$APP_OUT")"
touch "$stop" # dotnet-trace stops when the app exits
wait "$dt"
wait "$APP_PID"
check "dotnet-trace wrote its file" test -s dt.nettrace
compare dotnet-trace dt.nettrace
truths dotnet-trace dt.nettrace
"$PC" view dt.nettrace -event cpu-clock >dt.cpu 2>/dev/null
check "dotnet-trace: -event cpu-clock shows the SampleProfiler's samples" \
	grep -q "^# Event: ThreadSample, [0-9]* samples" dt.cpu
check "dotnet-trace: the hot method holds most of them" awk '
	/^# Event: ThreadSample,/ { n = $4 } /^# Top functions by inclusive/ { on = 1 }
	on && /PcDotnetApp\.Profiled\.Hot\(float64\)/ { exit !($4 >= 0.5 * n) }' dt.cpu

# Our own collect of the same app: CPU samples named from the perf map, the runtime's
# events in dotnet-<pid>.nettrace (perfcollect's keyword groups for GC, with its allocation
# ticks, exceptions, contention, JIT and loader).
run_app DOTNET_PerfMapEnabled=1
start_collect ours -pid "$APP_PID" -events DotNETRuntime_GCKeyword,DotNETRuntime_ExceptionKeyword,DotNETRuntime_ContentionKeyword,DotNETRuntime_JitKeyword,DotNETRuntime_LoaderKeyword
wait_until 30 grep -q "recording its .NET runtime events" ours.err || fail "no EventPipe session: $(cat ours.err)"
touch "$go"
wait_until 60 grep -q '^done' "$APP_OUT" || fail "the app did not finish: $(cat "$APP_OUT")"
kill -INT "$collector"
wait "$collector"
touch "$stop"
wait "$APP_PID"
check "collect wrote ours.trace.zip" test -s ours.trace.zip
truths collect ours.trace.zip
"$PC" cat ours.trace.zip "dotnet-$APP_PID.nettrace" >ours.dotnet.nettrace
compare collect-runtime ours.dotnet.nettrace
check "collect: the hot method leads the CPU samples" \
	bash -c "'$PC' view ours.trace.zip -pid $APP_PID 2>/dev/null | grep -m1 -A1 '^#   Self%' | tail -1 | grep -q 'Profiled::Hot'"
# The unified .nettrace: its Universal providers' samples are the zip's, its hottest function
# the same.
hottest() { "$PC" view "$1" 2>/dev/null | grep -m1 -A1 '^#   Self%' | tail -1 | awk '{ print $2, $NF }'; }
check "collect: the unified .nettrace has the zip's CPU samples and hottest function ($(hottest ours.nettrace))" \
	test "$(hottest ours.nettrace)" = "$(hottest ours.trace.zip)"
check "collect: the unified .nettrace has the same exceptions as the zip" \
	cmp -s <("$PC" view ours.nettrace -event exception -folded - 2>/dev/null | sed 's/^[^;]*;//' | sort) \
	<("$PC" view ours.trace.zip -event exception -folded - 2>/dev/null | sed 's/^[^;]*;//' | sort)

# ---- every view in every format ----
for ev in alloc exception contention; do
	for fmt in svg folded pprof speedscope; do
		"$PC" view dt.nettrace -event $ev -format $fmt -o "dt.$ev.$fmt" 2>"dt.$ev.$fmt.err"
		check "-event $ev -format $fmt writes its file" test -s "dt.$ev.$fmt"
	done
	check "-event $ev: the flame graph says what it weighs" \
		grep -q "$(case $ev in alloc) echo 'Allocation Flame Graph' ;; exception) echo 'Exceptions Flame Graph' ;; contention) echo 'Lock Contention Flame Graph' ;; esac)" \
		"dt.$ev.svg"
	"$PC" view dt.nettrace -event $ev -diff dt.nettrace >"dt.$ev.diff" 2>&1
	check "-event $ev -diff against itself: a table, nothing moved" grep -qi "moved\|share" "dt.$ev.diff"
done
check "-event alloc -format pprof: the sample type is bytes allocated" \
	bash -c "gzip -dc dt.alloc.pprof | grep -qa alloc_space"
"$PC" view dt.nettrace -runtime -format csv -o dt.gc.csv 2>/dev/null
check "-runtime -format csv: the columns" \
	grep -q '^pid,gc_number,generation,type,reason,start_ms,pause_start_ms,pause_ms,suspend_ms,duration_ms,heap_before_bytes,heap_after_bytes,promoted_bytes' dt.gc.csv
"$PC" view dt.nettrace -runtime jit >dt.jit 2>/dev/null
check "-runtime jit: a row per method, with its IL size and tier" \
	grep -qE '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +(tier0|tier1|minopts|optimized|OSR)' dt.jit

# ---- a cut file: one line says what is missing, the rest is shown ----
head -c $(($(stat -c %s dt.nettrace) * 2 / 3)) dt.nettrace >cut.nettrace
"$PC" view cut.nettrace -event alloc >cut.txt 2>cut.err
check "a file cut at 2/3: view exits 0" test $? -eq 0
check "... one line says it stops before its end" test "$(grep -c 'stops before its end' cut.err)" -eq 1
check "... and the allocations before the cut are shown" grep -q 'PcDotnetApp.Widget' cut.txt
finish
