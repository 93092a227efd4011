# Sourced by the benchmarks: starts the workloads of a system-wide trace as the issue
# describes it (native, node and .NET), and stops them.
#
#   workloads_start BUILD_DIR WORK_DIR [NAMES]   -> sets WORKLOAD_PIDS, NODE_PID, DOTNET_PID
#   workloads_stop
#
# NAMES (default: all four) is a comma-separated subset of native,node,dotnet,fs, to run one
# workload alone (bench/merge_each.sh).
#
# native: tests/workloads/hot with two threads (frame pointers); node --perf-basic-prof
# running deep JS recursion (JIT code with a perf map, tens of frames); the .NET test app
# with DOTNET_PerfMapEnabled=1 (perf map, perfinfo map, jitdump, ReadyToRun code); and a
# file-system walk (kernel stacks).  node and .NET are left out, with a message, when their
# tool is missing.
WORKLOAD_PIDS=()
NODE_PID=
DOTNET_PID=

workloads_start() { # workloads_start BUILD_DIR WORK_DIR [NAMES]
	local build=$1 work=$2 names=${3:-native,node,dotnet,fs} top
	NODE_PID= DOTNET_PID=
	wl_want() { case ",$names," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	cat >"$work/deep.js" <<'JS'
// Deep recursion through several functions, so JS stacks are tens of frames deep.
function leaf(n) { let x = 0; for (let i = 0; i < 200; i++) x += i * n; return x; }
function walk(d, n) { return d === 0 ? leaf(n) : step(d - 1, n + 1); }
function step(d, n) { return d % 3 === 0 ? walk(d, n) + 1 : walk(d, n); }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0;
for (;;) { s += walk(40, 1) + fib(18); if (s < 0) break; }
JS
	if ! wl_want node; then
		:
	elif command -v node >/dev/null; then
		node --perf-basic-prof "$work/deep.js" &
		NODE_PID=$!
		WORKLOAD_PIDS+=("$NODE_PID")
	else
		echo "workloads: no node, the trace has no node JIT frames" >&2
	fi
	local dll rc=0
	wl_want dotnet && { dll=$(sh "$top/tests/workloads/dotnet/build.sh" 2>/dev/null) || rc=$?; }
	if ! wl_want dotnet; then
		:
	elif [ "$rc" = 0 ]; then
		DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_PerfMapEnabled=1 \
			dotnet "$dll" 100000 >"$work/dotnet.out" 2>&1 &
		DOTNET_PID=$!
		WORKLOAD_PIDS+=("$DOTNET_PID")
	else
		echo "workloads: no .NET test app (${dll#SKIP: }), the trace has no .NET frames" >&2
	fi
	if wl_want native; then
		"$build/tests/workloads/hot" 100000 2 &
		WORKLOAD_PIDS+=($!)
	fi
	if wl_want fs; then
		(while :; do find / -xdev -name '*.so*' >/dev/null 2>&1; done) &
		WORKLOAD_PIDS+=($!)
	fi
	# Wait until the JIT processes run their hot code (their maps name it).
	local i
	for i in $(seq 300); do
		{ [ -z "$NODE_PID" ] || grep -qs leaf "/tmp/perf-$NODE_PID.map"; } &&
			{ [ -z "$DOTNET_PID" ] || grep -qs "^ready $DOTNET_PID" "$work/dotnet.out"; } &&
			return 0
		sleep 0.1
	done
	echo "workloads: the JIT processes did not get ready in 30 s" >&2
}

workloads_stop() {
	local p
	for p in "${WORKLOAD_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${WORKLOAD_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	WORKLOAD_PIDS=()
}

# The map files the JIT processes left in /tmp (the traces still need them to be read).
workloads_remove_maps() {
	local p
	for p in $NODE_PID $DOTNET_PID; do
		rm -f "/tmp/perf-$p.map" "/tmp/perfinfo-$p.map" "/tmp/jit-$p.dump" \
			/tmp/dotnet-diagnostic-"$p"-*-socket /tmp/clr-debug-pipe-"$p"-*
	done
}
