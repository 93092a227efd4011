# merge on damaged inputs: a perf.data cut in half, a file that is no perf.data, a JIT map
# that is missing or full of garbage lines, a jitdump cut mid-record.  Each gets a clear
# message, nothing crashes; a zip of what could be read is still written, and none at all
# when there is nothing to read (a failed merge leaves no zip).
source "$(dirname "$0")/lib.sh"
need_root
need_perf

# On one CPU: perf writes each CPU's ring in turn, so a program that moved between CPUs can
# have its first samples (in one ring) before its exec's COMM and MMAP (in another) in the
# file; cut in half, such a file names the samples "perf-exec" with no mapping to name them
# from (CI's run at a load of ~8: 1 of 315 leaves named), as it would for perf.
taskset -c 0 perf record -q -e cpu-clock -F 1000 -g -o full.data -- "$WORKLOADS/hot" 1 >/dev/null 2>&1 ||
	skip "perf record failed: run as root (or lower kernel.perf_event_paranoid)"

# 1. Truncated perf.data: the first half of a real one.
size=$(stat -c %s full.data)
head -c $((size / 2)) full.data >half.data
"$PC" merge half.data -o half.trace.zip 2>half.err
rc=$?
cat half.err
check "truncated: merge still writes the zip" test -s half.trace.zip
check "truncated: merge says the file is truncated" grep -qi 'truncated' half.err
check "truncated: at most a few lines on stderr" test "$(wc -l <half.err)" -le 4
check "truncated: exit status 0 (the zip holds what was read)" test "$rc" -eq 0
"$PC" cat half.trace.zip perf.data.txt >half.txt
full_samples=$(perf script -i full.data -F ip 2>/dev/null | grep -c .)
half_samples=$(grep -c 'cpu-clock:' half.txt)
echo "samples: $full_samples in the whole file, $half_samples recovered from half of it"
check "truncated: samples of the first half are recovered" test "$half_samples" -gt 0
check "truncated: fewer samples than the whole file" test "$half_samples" -lt "$full_samples"
# The first half may hold only the program's start (ld.so, a sanitizer's setup, when the
# machine is busy): each recovered sample's leaf is named as perf names the same sample of
# the whole file.
perf script -i full.data -G -F ip,sym 2>/dev/null | head -n "$half_samples" | awk '{print $2}' >half.perf.leaf
awk '/cpu-clock:/ { getline; print $2 }' half.txt >half.ours.leaf
named=$(paste -d'|' half.perf.leaf half.ours.leaf | awk -F'|' '$1 == $2 && $1 != "[unknown]" {n++} END {print n + 0}')
check "truncated: recovered samples are symbolized as perf names them ($named of $half_samples leaves)" \
	test "$named" -ge $((half_samples * 9 / 10)) -a "$half_samples" -gt 0
check "truncated: the log says so" bash -c "'$PC' log half.trace.zip | grep -qi truncated"

# 2. Not a perf.data at all: one line, non-zero exit, no zip.
head -c 4096 /dev/urandom >garbage.data
"$PC" merge garbage.data -o garbage.trace.zip 2>garbage.err
rc=$?
cat garbage.err
check "garbage: non-zero exit" test "$rc" -ne 0
check "garbage: says what is wrong" grep -q 'garbage.data is not a perf.data file' garbage.err
check "garbage: no zip" test ! -e garbage.trace.zip

# 3. Missing input: one line, exit 1, no zip.
"$PC" merge nothere.data 2>missing.err
rc=$?
check "missing input: exit 1 with one line" test "$rc" -eq 1 -a "$(wc -l <missing.err)" -eq 1

# 4. JIT maps: node --perf-basic-prof, recorded; then its map is removed (missing) or
# salted with garbage lines.
if command -v node >/dev/null; then
	cat >spin.js <<-'EOF'
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	let s = 0;
	const end = Date.now() + 1500;
	while (Date.now() < end) s += fib(22);
	EOF
	perf record -q -e cpu-clock -F 1000 -g -o node.data -- node --perf-basic-prof spin.js \
		>/dev/null 2>&1
	node_pid=$(perf script -i node.data -F pid 2>/dev/null | awk '{print $1; exit}')
	map=/tmp/perf-$node_pid.map
	cleanup_hooks+=("rm -f $map")
	if [ -s "$map" ]; then
		mv "$map" saved.map
		"$PC" merge node.data -o nomap.trace.zip 2>nomap.err
		rc=$?
		cat nomap.err
		check "missing map: exit 0 and a zip" test "$rc" -eq 0 -a -s nomap.trace.zip
		check "missing map: the log names the missing map and why" \
			bash -c "'$PC' log nomap.trace.zip | grep -q 'perf-$node_pid.map: missing'"

		{ echo "garbage line"; echo "zzzz 10 nothex"; echo "7fffffff"; echo;
		  cat saved.map; printf 'deadbeef'; } >"$map"
		"$PC" merge node.data -o salted.trace.zip 2>salted.err
		check "garbage map lines: merge succeeds" test -s salted.trace.zip
		"$PC" cat salted.trace.zip perf.data.txt >salted.txt
		check "garbage map lines: JS frames still resolve" grep -q "JS:.* (//anon)" salted.txt
	else
		fail "node wrote no perf map at $map"
	fi

	# 5. A jitdump cut mid-record: node --perf-prof writes jit-<pid>.dump in its cwd.
	mkdir jd && (cd jd && perf record -q -k mono -e cpu-clock -F 1000 -g -o ../jd.data -- \
		node --perf-prof --perf-prof-unwinding-info spin.js >/dev/null 2>&1)
	dump=$(ls jd/jit-*.dump 2>/dev/null | head -1)
	if [ -n "$dump" ]; then
		dsize=$(stat -c %s "$dump")
		truncate -s $((dsize / 2 + 7)) "$dump"
		"$PC" merge jd.data -o jd.trace.zip 2>jd.err
		rc=$?
		cat jd.err
		check "cut jitdump: exit 0 and a zip" test "$rc" -eq 0 -a -s jd.trace.zip
		check "cut jitdump: perf.data.txt written" \
			bash -c "'$PC' cat jd.trace.zip perf.data.txt | grep -q 'cpu-clock:'"
	else
		echo "node --perf-prof wrote no jitdump here: jitdump part not run"
	fi
else
	echo "node is not installed: JIT map parts not run"
fi
finish
