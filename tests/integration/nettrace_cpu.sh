# <name>.nettrace as PerfView reads it: TraceEvent's TraceLog (tests/traceevent tracelog, the
# conversion PerfView makes for a .nettrace) opens the file that collect wrote, and its CPU
# view (Universal.Events/cpu) holds the same samples as `view` of the zip with the same leaf
# frames, named by the ProcessSymbol events alone (no symbol files): a native C workload with
# kernel frames (system-wide), a .NET app's JIT'd and ReadyToRun code, and node's JIT'd JS.
# Also: -format nettrace writes the .nettrace alone, -format perfcollect the zip alone, and
# merge rebuilds the same file from the zip.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_traceevent

# Leaf frames as "count name" lines, names without module or .NET's return type, [Module]
# and [tier], unnamed frames left out (a return type may hold brackets itself: "!!0[]",
# "int32[]").  A .NET method is compared by name without its
# arguments and with "." for "::": TraceLog names it from our ProcessSymbol
# ("Namespace.Type::Method(args)", perf map's spelling) or, when the runtime's method events
# are in the file too, from those ("Namespace.Type.Method(class System.String)").
norm_names() { awk -F'\t' -v OFS='\t' '{ sub(/\(.*$/, "", $2); gsub(/::/, ".", $2); print }'; }
view_leaves() { # ZIP [view options]: the chosen event's samples by leaf, from folded stacks
	"$PC" view "$@" -folded - 2>/dev/null | awk '{ n = $NF; sub(/ [0-9]+$/, "");
		k = split($0, f, ";"); print f[k] "\t" n }' |
		sed -E 's/^(.* )?\[[A-Za-z0-9_.-]+\] ([^	]*)\[[A-Za-z0-9]*\]	/\2	/' |
		awk -F'\t' '$1 !~ /^\[/ { c[$1] += $2 } END { for (k in c) print c[k] "\t" k }' |
		norm_names | awk -F'\t' '{ c[$2] += $1 } END { for (k in c) print c[k] "\t" k }' |
		sort -k1,1nr -k2
}
te_leaves() { # TRACELOG_OUTPUT
	awk '/^cpu_leaf / { n = $2; sub(/^cpu_leaf [0-9]+ /, ""); print n "\t" $0 }' "$1" |
		awk -F'\t' '{ i = index($2, "!"); m = i ? substr($2, i + 1) : $2 }
			m != "?" && m != "" && $2 !~ /^(Thread|Process)/ { c[m] += $1 }
			END { for (k in c) print c[k] "\t" k }' |
		norm_names | awk -F'\t' '{ c[$2] += $1 } END { for (k in c) print c[k] "\t" k }' |
		sort -k1,1nr -k2
}

# compare LABEL NAME: TraceLog's CPU view of NAME.nettrace against view of NAME.trace.zip.
compare() {
	local label=$1 name=$2 te_n view_n
	traceevent tracelog "$name.nettrace" >"$name.te" 2>"$name.te.err"
	check "$label: TraceLog converts $name.nettrace ($(grep -m1 exception "$name.te"))" \
		grep -q '^cpu_samples ' "$name.te"
	check "$label: no events lost" grep -qx 'lost 0' "$name.te"
	te_n=$(awk '/^cpu_samples/ { print $2 }' "$name.te")
	view_n=$("$PC" view "$name.trace.zip" | sed -n 's/^# Event: cpu-clock, \([0-9]*\) samples.*/\1/p')
	check "$label: TraceLog's CPU view has view's $view_n samples ($te_n)" test "$te_n" = "$view_n"
	view_leaves "$name.trace.zip" >"$name.vl"
	te_leaves "$name.te" >"$name.tl"
	echo "$label: top leaves (view | TraceLog):"
	paste <(head -8 "$name.vl") <(head -8 "$name.tl") | sed 's/^/    /'
	local bad=0 n fn got
	while IFS=$'\t' read -r n fn; do
		got=$(awk -F'\t' -v f="$fn" '$2 == f { print $1 }' "$name.tl")
		[ "$got" = "$n" ] || { echo "    $fn: view $n, TraceLog ${got:-none}"; bad=1; }
	done < <(head -10 "$name.vl")
	check "$label: TraceLog's 10 top leaf frames have view's names and counts" test $bad -eq 0
}

# ---- native C with kernel frames, system-wide ----
# (system-wide: -nodotnetevents, so that .NET processes of other tests, or builds, running
# meanwhile add no runtime event files to what is compared here)
"$WORKLOADS/hot" 4 >/dev/null &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
# Short processes meanwhile: threads that exit during the trace.
(for i in $(seq 40); do /bin/true; sleep 0.02; done) &
cleanup_hooks+=("kill $! 2>/dev/null")
"$PC" collect sys -collectsec 2 -nodotnetevents 2>sys.err || { cat sys.err; fail "collect system-wide"; }
check "collect says where the .nettrace went" grep -q 'NetTrace saved to ./sys.nettrace' sys.err
check "the zip holds it as sys.trace/sys.nettrace, the same file" \
	cmp -s sys.nettrace <(unzip -p sys.trace.zip sys.trace/sys.nettrace)
compare "native" sys
check "native: hot's leaf function is named with its module" grep -q '^cpu_leaf [0-9]* hot!hot_leaf$' sys.te
check "native: kernel frames are named" grep -q '^cpu_frame [0-9]* \[kernel.kallsyms\]!' sys.te
check "native: the process has its name" grep -q "^process $hot \"hot\"" sys.te
traceevent tracelog sys.nettrace --events >sys.events 2>/dev/null
check "native: ELF build-ids are in the mappings' metadata" \
	grep -q 'ProcessMappingMetadata.*build_id' sys.events
# Exited threads keep their rows: TraceEvent carries out a RemoveThread by the thread's OS tid
# instead of its row index, so a removal could make a live row unknown and TraceLog refuse
# the whole file (postprocess_unified.c: unified_thread_row).
exits=$(grep -c 'ProcessExit' sys.events)
check "native: processes exited during the trace ($exits ProcessExit) and no RemoveThread block" \
	test "$exits" -gt 0 -a "$(nettrace_blocks sys.nettrace 7)" -eq 0
check "native: the file's blocks are walked to its end (event blocks: $(nettrace_blocks sys.nettrace 2))" \
	test "$(nettrace_blocks sys.nettrace 2)" -gt 0
wait $hot

# ---- the same through merge, and the formats ----
"$PC" merge sys.trace.zip -o again.trace.zip -format nettrace 2>merge.err
check "merge -format nettrace exits 0 ($(tail -1 merge.err))" test $? -eq 0
check "merge -format nettrace writes the .nettrace alone" test -s again.nettrace -a ! -e again.trace.zip
traceevent tracelog again.nettrace >again.te 2>/dev/null
# (other programs' binaries may have changed since: only what is ours to compare)
check "merged: TraceLog sees the same CPU samples and hot's leaf" \
	cmp -s <(grep -E '^cpu_samples |^cpu_leaf [0-9]+ hot!' sys.te) \
	<(grep -E '^cpu_samples |^cpu_leaf [0-9]+ hot!' again.te)
"$PC" collect only -collectsec 1 -nodotnetevents -format nettrace 2>only.err
check "collect -format nettrace writes only.nettrace and no zip" \
	test -s only.nettrace -a ! -e only.trace.zip
check "... and says so" grep -q 'Trace saved to ./only.nettrace' only.err
"$PC" collect zip -collectsec 1 -nodotnetevents -format perfcollect 2>zip.err
check "collect -format perfcollect writes the zip alone" test -s zip.trace.zip -a ! -e zip.nettrace
check "... without a .nettrace inside" bash -c "! unzip -l zip.trace.zip | grep -q nettrace"
"$PC" collect bad -format xml 2>bad.err
check "-format xml is a usage error naming the formats" \
	bash -c "[ $? -eq 2 ] && grep -q 'perfcollect.*nettrace.*both' bad.err"

# ---- .NET: JIT'd and ReadyToRun frames ----
if ( source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"; need_dotnet_app ) >/dev/null 2>&1; then
	source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
	need_dotnet_app
	start_app 30 DOTNET_PerfMapEnabled=1
	"$PC" collect net -pid "$APP_PID" -collectsec 2 2>net.err || { cat net.err; fail "collect .NET"; }
	compare ".NET" net
	check ".NET: JIT'd methods are named, in the app's module" \
		grep -qE '^cpu_frame [0-9]* pc-dotnet-app!PcDotnetApp.HotLoop(::|\.)Churn\(int32\)$' net.te
	check ".NET: ReadyToRun CoreLib code is named, in CoreLib" \
		grep -qiE '^cpu_frame [0-9]* system.private.corelib!System.String(::|\.)Join\(' net.te
else
	echo "(the .NET SDK is not installed: no .NET part)"
fi

# ---- node's JIT'd JavaScript ----
if command -v node >/dev/null; then
	start_node_spin
	"$PC" collect js -pid "$node_pid" -collectsec 2 2>js.err || { cat js.err; fail "collect node"; }
	compare "node" js
	check "node: JS functions are named from the perf map" \
		grep -q "^cpu_frame [0-9]* perf-$node_pid.map!JS:\*fib " js.te
else
	echo "(node is not installed: no JavaScript part)"
fi
finish
