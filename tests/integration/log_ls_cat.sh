# log, ls and cat read a trace.zip without unzip; the system's unzip is the independent
# reader they are checked against.  Entry names with ".." or an absolute path are refused.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

perf record -q -e cpu-clock -F 1000 -g -o small.data -- "$WORKLOADS/hot" 0.3 >/dev/null 2>&1 ||
	skip "perf record failed: run as root (or lower kernel.perf_event_paranoid)"
"$PC" merge small.data -o small.trace.zip || fail "merge failed"

# ls: every entry with its uncompressed size, as unzip -l lists them.
"$PC" ls small.trace.zip >ls.out
cat ls.out
unzip -Z1 small.trace.zip | sort >unzip.names
awk '{print $2}' ls.out | sort >ls.names
check "ls lists the same entries as unzip" cmp -s unzip.names ls.names
check "ls: the DESIGN layout" grep -qx 'small.trace/perf.data' ls.names
check "ls: perf.data.txt and the log" \
	bash -c "grep -qx small.trace/perf.data.txt ls.names && grep -qx small.trace/perfcollect.log ls.names"
unzip -l small.trace.zip | awk '$4 ~ /^small.trace\// {print $1, $4}' | sort >unzip.sizes
awk '{print $1, $2}' ls.out | sort >ls.sizes
check "ls: sizes are those unzip reports" cmp -s unzip.sizes ls.sizes

# cat: byte for byte what unzip extracts, by full name or by the file name alone.
unzip -p small.trace.zip small.trace/perf.data.txt >unzip.txt
"$PC" cat small.trace.zip perf.data.txt >cat.txt
check "cat perf.data.txt equals unzip's" cmp -s unzip.txt cat.txt
"$PC" cat small.trace.zip small.trace/perf.data >cat.data
check "cat of the binary perf.data equals the input" cmp -s small.data cat.data

# log: the whole log, and its tail.
unzip -p small.trace.zip small.trace/perfcollect.log >unzip.log
"$PC" log small.trace.zip >log.out
check "log prints perfcollect.log" cmp -s unzip.log log.out
check "log records versions and counts" \
	bash -c "grep -q 'perfcollect-c' log.out && grep -q 'samples:' log.out"
"$PC" log small.trace.zip -tail 3 >tail.out
check "log -tail 3 is the last 3 lines" cmp -s tail.out <(tail -n 3 unzip.log)
"$PC" log small.trace.zip -tail 0 >tail0.out
check "log -tail 0 prints nothing" test ! -s tail0.out

# Refusals and errors: one line on stderr, non-zero exit.
one_line_fail() { # one_line_fail COMMAND...
	"$@" >out.txt 2>err.txt
	local rc=$?
	[ "$rc" -ne 0 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -s out.txt ]
}
check "cat refuses '..'" one_line_fail "$PC" cat small.trace.zip ../small.trace/perf.data
check "cat refuses an absolute path" one_line_fail "$PC" cat small.trace.zip /etc/passwd
check "cat refuses '..' inside a name" one_line_fail "$PC" cat small.trace.zip small.trace/../x
check "cat: unknown entry" one_line_fail "$PC" cat small.trace.zip nothere.txt
check "log: not a zip" one_line_fail "$PC" log small.data
check "ls: missing file" one_line_fail "$PC" ls nothere.zip
check "log: -tail needs a number" one_line_fail "$PC" log small.trace.zip -tail x
finish
