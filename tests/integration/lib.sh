# Shared helpers for integration tests (sourced).  Each test is one bash script run by
# meson with PERFCOLLECT (the binary), BUILD_DIR and TEST_SRCDIR set; exit 0 = pass,
# 77 = skipped (with a reason on stdout), anything else = fail.
set -u
PC=${PERFCOLLECT:?PERFCOLLECT not set}
WORKLOADS=${BUILD_DIR:?}/tests/workloads
fails=0

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }
check() { # check "description" command...: fails (status 1) when the command does
	local what=$1; shift
	if "$@"; then pass "$what"; else fail "$what"; return 1; fi
}
finish() { [ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }; exit 0; }

need_root() { [ "$(id -u)" = 0 ] || skip "needs root for perf_event_open: run the tests as root"; }
need_perf() { command -v perf >/dev/null || skip "perf (Debian linux-perf, the oracle) is not installed: run scripts/setup as root"; }
need_cmd() { command -v "$1" >/dev/null || skip "$1 is not installed: run scripts/setup as root (it installs every tool the tests use)"; }

# Symbol servers (lib/symbols/symsrv.h): tests reach only the servers they start on
# 127.0.0.1, never Microsoft's (its default for the .NET runtime's files is turned off here)
# nor the machine's DEBUGINFOD_URLS, and never through a proxy.
export PERFCOLLECT_C_MS_SYMBOL_SERVER=
unset DEBUGINFOD_URLS
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost

# A scratch directory removed at exit (kept, and named, with PC_TEST_KEEP=1: a failure's
# inputs to look at).
T=$(mktemp -d /tmp/pctest.XXXXXX)
cleanup_hooks=()
cleanup() {
	for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
	if [ -n "${PC_TEST_KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
cd "$T"

# private_run: runs this test again (from its start) in a mount namespace of its own with a
# tmpfs on /run, so that root's registry of background collections (/run/perfcollect-c)
# holds its collections only, not those of other tests running on the machine.  Call it
# right after sourcing this file.
private_run() {
	[ -n "${PC_PRIVATE_RUN:-}" ] && return
	need_root
	need_cmd unshare
	unshare --mount true 2>/dev/null ||
		skip "unshare --mount fails here: a private /run for the registry of background collections needs a mount namespace (run as root outside a restricted container)"
	cd / && rm -rf "$T" && trap - EXIT
	exec unshare --mount --propagation private env PC_PRIVATE_RUN=1 bash -c \
		'mount -t tmpfs -o mode=0755 pcrun /run && exec bash "$0"' "$0"
}

# Wait (bounded) until a condition holds; used instead of sleeps.
wait_until() { # wait_until SECONDS command...
	local limit=$1; shift
	local end=$((SECONDS + limit))
	while ! "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.05
	done
}

# start_node_spin: runs node --perf-basic-prof on JIT-compiled recursion (spin.js, in the
# scratch directory) until the test ends, and waits until its perf map names fib.  Sets
# node_pid.
start_node_spin() {
	cat >spin.js <<-'EOF'
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	let s = 0;
	for (;;) { s += fib(24); if (s < 0) break; }
	EOF
	node --perf-basic-prof spin.js &
	node_pid=$!
	cleanup_hooks+=("kill $node_pid 2>/dev/null; wait $node_pid 2>/dev/null; rm -f /tmp/perf-$node_pid.map")
	wait_until 20 grep -qs 'fib' "/tmp/perf-$node_pid.map" || fail "node wrote no perf map"
}

# The sched_switch samples post-processing writes from PERF_RECORD_SWITCH records where the
# kernel's tracepoint missed a switch (lib/postprocess/switch_fill.h), which perf script does
# not print: a header line ending with the trace's next_prio (no frame), then a blank line.
# drop_filled_switches FILE prints FILE without them; filled_switches FILE counts them;
# logged_filled_switches LOG is the count perfcollect.log gives.
drop_filled_switches() {
	awk 'held != "" { if ($0 != "") print held "\n" $0; held = ""; next }
		/ sched:sched_switch: .*next_prio=[0-9]+$/ { held = $0; next } { print }
		END { if (held != "") print held }' "$1"
}
filled_switches() {
	awk 'held && $0 == "" { n++ } { held = / sched:sched_switch: .*next_prio=[0-9]+$/ }
		END { print n + 0 }' "$1"
}
logged_filled_switches() {
	sed -nE 's/.* ([0-9]+) switch-ins and ([0-9]+) switch-outs the kernel.s tracepoint did not record.*/\1 \2/p' "$1" |
		awk '{ n += $1 + $2 } END { print n + 0 }'
}

# An awk function for texts in perf script's layout: load(FILE, H, F, N) reads FILE's samples
# into H[i] (the header line), N[i] (its number of frames) and F[i, k] (frame k's line),
# and returns how many there are.
AWK_LOAD_SAMPLES='
	function load(file, H, F, N,   n, line) {
		n = 0
		while ((getline line < file) > 0) {
			if (line == "") continue
			if (substr(line, 1, 1) != "\t") { n++; H[n] = line; N[n] = 0; continue }
			N[n]++; F[n, N[n]] = line
		}
		close(file)
		return n
	}'

# Our perf.data.txt against perf script's text of the same perf.data (a collection's, with
# hybrid call stacks: perf shows its frame-pointer chains).  Deliberate difference: where a
# chain crossed code without frame pointers (libc, libraries built without them), ours has
# the callers the chain lacks; perf's frames are then all in ours, in order, from the same
# first one, but for those perf cannot name at all ("[unknown] ([unknown])": what the chain
# read past a frame without a frame pointer, where ours has the real callers).
# same_but_mended PERF_TXT OURS_TXT prints how many samples were mended and fails (status 1,
# printing the first differences) on any other difference: a header line, or a frame of
# perf's missing from ours.
same_but_mended() {
	awk "$AWK_LOAD_SAMPLES"'
	function show(i, what,   k) {
		if (shown++ >= 4) return
		printf "  sample %d: %s\n    %s\n", i, what, PH[i]
		for (k = 1; k <= PN[i] || k <= ON[i]; k++)
			printf "    %-60s | %s\n", (k <= PN[i] ? PF[i, k] : ""), (k <= ON[i] ? OF[i, k] : "")
	}
	BEGIN {
		np = load(ARGV[1], PH, PF, PN); no = load(ARGV[2], OH, OF, ON)
		ARGV[1] = ARGV[2] = ""
		for (i = 1; i <= np && i <= no; i++) {
			if (PH[i] != OH[i]) { bad++; show(i, "header differs: ours " OH[i]); continue }
			j = 1
			for (k = 1; k <= ON[i] && j <= PN[i]; k++) {
				while (j <= PN[i] && PF[i, j] ~ / \[unknown\] \(\[unknown\]\)$/ && OF[i, k] != PF[i, j]) j++
				if (j <= PN[i] && OF[i, k] == PF[i, j]) j++
			}
			while (j <= PN[i] && PF[i, j] ~ / \[unknown\] \(\[unknown\]\)$/) j++
			if (j <= PN[i] || (PN[i] && OF[i, 1] != PF[i, 1])) { bad++; show(i, "a frame of perf'"'"'s is not in ours"); continue }
			if (ON[i] > PN[i]) mended++
		}
		printf "%d samples (perf %d); %d with callers the frame-pointer chain lacked; %d differing\n",
		       no, np, mended + 0, bad + 0
		exit (np != no || bad) ? 1 : 0
	}' "$1" "$2"
}

# drop_inlined: perf script text on stdin without the frames perf's dwarf unwinding adds from
# debug info for a function inlined at the next frame's address ("IP FUNCTION (inlined)",
# the same IP): we print the frame of the function the address is in only.
drop_inlined() {
	awk 'function ip(l) { sub(/^\t */, "", l); sub(/ .*/, "", l); return l }
	held != "" { if (ip(held) != ip($0)) print held; held = "" }
	/ \(inlined\)$/ { held = $0; next } { print } END { if (held != "") print held }'
}

# callers_share FILE LEAF CALLER...: of the samples of perf script text FILE whose first frame's
# symbol matches the regular expression LEAF, how many have every CALLER (symbols, exactly,
# in this order from the leaf up, other frames between allowed): prints "KEPT TOTAL".  With
# CALLERS_SKIP=REGEX, samples with a frame matching it are left out (another path to LEAF).
callers_share() {
	local file=$1 leaf=$2; shift 2
	awk -v leaf="$leaf" -v callers="$*" -v skip="${CALLERS_SKIP:-}" '
	BEGIN { n = split(callers, want, " ") }
	function finish(   i, j) {
		if (nf == 0 || f[1] !~ leaf) return
		for (i = 2; skip != "" && i <= nf; i++) if (f[i] ~ skip) return
		total++
		j = 1
		for (i = 2; i <= nf && j <= n; i++) if (f[i] == want[j]) j++
		if (j > n) kept++
	}
	/^[^\t]/ { if (inside) finish(); inside = 1; nf = 0; next }
	/^\t/ { s = $0; sub(/^\t *[0-9a-f]+ /, "", s); sub(/ \(.*$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s)
		f[++nf] = s; next }
	/^$/ { if (inside) finish(); inside = 0 }
	END { if (inside) finish(); print kept + 0, total + 0 }' "$file"
}

# percent KEPT TOTAL: KEPT as a share of TOTAL, rounded down, 0 when TOTAL is.
percent() { [ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0; }

# nettrace_blocks FILE KIND: how many blocks of KIND (lib/nettrace/nettrace_blocks.h: 2 events,
# 6 threads, 7 RemoveThread, ...) the NetTrace FILE has (our writer's layout: a 20-byte
# header, then blocks of a u32 size | kind << 24 and the payload, up to an end block, kind 0).
nettrace_blocks() {
	python3 - "$1" "$2" <<-'PY'
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	pos, n = 20, 0
	while pos + 4 <= len(d):
	    w = struct.unpack_from("<I", d, pos)[0]
	    kind, size = w >> 24, w & 0xFFFFFF
	    if kind == 0:
	        break
	    n += kind == int(sys.argv[2])
	    pos += 4 + size
	print(n)
	PY
}

# start_collect NAME ARGS...: runs "$PC collect NAME ARGS..." in the background, stderr to
# NAME.err, and waits until it records ("Collecting" is said once the events are open and
# the running processes are synthesized).  Sets collector (its pid); killed at exit.
start_collect() {
	local name=$1; shift
	# (the last run's file goes first: the child truncates it only once it runs, and a
	# loaded machine let the wait below read the last run's "Collecting", send SIGINT before
	# the collector took it, and wait for a "Writing" that never came: collect_kill)
	rm -f "$name.err"
	"$PC" collect "$name" "$@" 2>"$name.err" &
	collector=$!
	cleanup_hooks+=("kill -9 $collector 2>/dev/null")
	wait_until 30 grep -q "Collecting" "$name.err" || fail "$name: collector never got ready"
}

# start_hot SECONDS: the C workload (hot_leaf busy on one thread) in the background for
# SECONDS; sets hot (its pid), killed at exit.
start_hot() {
	"$WORKLOADS/hot" "$1" &
	hot=$!
	cleanup_hooks+=("kill $hot 2>/dev/null")
}

# start_symbol_server NAME MODE [ARG]: tests/integration/symsrv/server.py MODE on 127.0.0.1
# (debuginfod's layout, or a faulty server: see its usage), each request path logged to
# NAME.log; sets srv_port and srv_pid, stopped at exit.
start_symbol_server() {
	local name=$1; shift
	rm -f "$name.port"
	: >"$name.log"
	python3 "$TEST_SRCDIR/integration/symsrv/server.py" "$1" "$PWD/$name.port" "$PWD/$name.log" "${@:2}" \
		2>"$name.err" &
	srv_pid=$!
	cleanup_hooks+=("kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null")
	wait_until 20 test -s "$name.port" || fail "$name: the symbol server did not start: $(cat "$name.err")"
	srv_port=$(cat "$name.port")
}

# start_ssqp_server NAME DIR: python3 -m http.server over DIR (laid out by SSQP keys) on
# 127.0.0.1, its log (one line per request) in NAME.log; sets srv_port and srv_pid.
start_ssqp_server() {
	local name=$1 dir=$2
	python3 -u -m http.server --bind 127.0.0.1 --directory "$dir" 0 >"$name.out" 2>>"$name.log" &
	srv_pid=$!
	cleanup_hooks+=("kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null")
	wait_until 20 grep -q "port [0-9]" "$name.out" || fail "$name: http.server did not start"
	srv_port=$(sed -nE 's/.* port ([0-9]+) .*/\1/p' "$name.out" | head -1)
}

# stripped_symlib: app/ holds the symbol server tests' program and its library stripped
# (tests/workloads/symlib.c: static hot functions only a debug file names), libsymlib.debug
# that debug file; sets symlib_id (the library's build-id).  Skips without what it needs.
stripped_symlib() {
	need_root
	need_cmd python3
	need_cmd objcopy
	need_cmd readelf
	need_cmd unzip
	mkdir -p app
	cp "$WORKLOADS/symlib_main" "$WORKLOADS/libsymlib.so" app/
	objcopy --only-keep-debug app/libsymlib.so libsymlib.debug
	strip --strip-all app/libsymlib.so
	symlib_id=$(readelf -n app/libsymlib.so | awk '/Build ID/ {print $3}')
}
