# merge against the oracle: real `perf record` files, one per process (the samples carry no
# CPU) and one system-wide with node --perf-basic-prof running JIT code, are turned into
# perf.data.txt by `perf script` and by `perfcollect-c merge`; both must list the same
# samples (same header line) with the same frames (same ip, symbol and dso per frame).
#
# Deliberate differences (counted apart, never failures):
#   - a frame perf leaves as "[unknown]" that we resolve (same ip, we name a symbol).
# Every other difference fails the test and is printed.
source "$(dirname "$0")/lib.sh"
need_root
need_perf

# compare PERF_TXT OURS_TXT LABEL: prints a summary, fails on real differences.
compare() {
	awk -v label="$3" '
	function load(file, H, F, N,   n, line) {
		n = 0
		while ((getline line < file) > 0) {
			if (line == "") continue
			if (substr(line, 1, 1) != "\t") { n++; H[n] = line; N[n] = 0; continue }
			N[n]++; F[n, N[n]] = line
		}
		close(file)
		return n
	}
	function split_frame(line, P,   s) {  # P["ip"], P["rest"] = "sym (dso)"
		s = line; sub(/^\t */, "", s)
		P["ip"] = s; sub(/ .*/, "", P["ip"])
		P["rest"] = substr(s, length(P["ip"]) + 2)
		# the dso may hold parentheses of its own: "(/memfd:doublemapper (deleted))"
		P["sym"] = P["rest"]; sub(/ \(([^()]|\([^()]*\))*\)$/, "", P["sym"])
	}
	function report(what, i, a, b) {
		if (shown++ < 8) printf "  %s in sample %d:\n    perf: %s\n    ours: %s\n", what, i, a, b
	}
	BEGIN {
		np = load(ARGV[1], PH, PF, PN); no = load(ARGV[2], OH, OF, ON)
		ARGV[1] = ARGV[2] = ""
		n = np < no ? np : no
		for (i = 1; i <= n; i++) {
			if (PH[i] != OH[i]) { hdr++; report("header", i, PH[i], OH[i]); continue }
			if (PN[i] != ON[i]) {
				depth++
				report("frame count " PN[i] " vs " ON[i], i, PH[i], "")
				continue
			}
			same = 1
			for (k = 1; k <= PN[i]; k++) {
				frames++
				a = PF[i, k]; b = OF[i, k]
				if (a == b) { ok++; continue }
				split_frame(a, P); split_frame(b, O)
				if (P["ip"] == O["ip"] && P["sym"] == "[unknown]" && O["sym"] != "[unknown]") {
					more++
					if (more_shown++ < 3) printf "  deliberate (we resolve more): perf \"%s\" ours \"%s\"\n", a, b
					continue
				}
				bad++; same = 0
				report("frame " k, i, a, b)
			}
			if (same) samples_ok++
		}
		printf "%s: perf %d samples, ours %d; headers differing %d, frame counts differing %d; " \
		       "frames %d: identical %d, resolved more %d, differing %d; samples matching %d (%.2f%%)\n",
		       label, np, no, hdr + 0, depth + 0, frames + 0, ok + 0, more + 0, bad + 0,
		       samples_ok + 0, np ? 100 * samples_ok / np : 0
		exit (np != no || np == 0 || hdr || depth || bad) ? 1 : 0
	}' "$1" "$2"
}

FIELDS=comm,pid,tid,time,period,event,ip,sym,dso

# 1. Per process: perf record with a workload command; the samples have no CPU.
perf record -q -e cpu-clock -F 1000 -g -o proc.data -- "$WORKLOADS/hot" 1 >/dev/null 2>&1 ||
	skip "perf record failed (perf_event_paranoid?)"
perf script -i proc.data --fields $FIELDS >proc.perf.txt 2>/dev/null
check "perf script reads the per-process file" test -s proc.perf.txt
check "merge of the per-process file succeeds" "$PC" merge proc.data -o proc.trace.zip
"$PC" cat proc.trace.zip perf.data.txt >proc.ours.txt
check "no [cpu] column where the samples have none" \
	bash -c '! grep -qE "^hot +[0-9]+/[0-9]+ +\[[0-9]{3}\]" proc.ours.txt'
check "per-process: same samples, same frames as perf script" \
	compare proc.perf.txt proc.ours.txt per-process
check "the log says the samples have no CPU" \
	bash -c "'$PC' log proc.trace.zip | grep -q 'carry no CPU'"

# 2. System-wide, with node running JIT code whose map perf reads from /tmp.
if command -v node >/dev/null; then
	start_node_spin
else
	echo "node is not installed: system-wide part runs without JIT code"
	node_pid=
fi
perf record -q -a -e cpu-clock -F 1000 -g -o sys.data -- "$WORKLOADS/hot" 1 >/dev/null 2>&1
perf script -i sys.data --fields cpu,$FIELDS >sys.perf.txt 2>/dev/null
check "merge of the system-wide file succeeds" "$PC" merge sys.data -o sys.trace.zip
"$PC" cat sys.trace.zip perf.data.txt >sys.ours.txt
check "system-wide: same samples, same frames as perf script" \
	compare sys.perf.txt sys.ours.txt system-wide
if [ -n "$node_pid" ]; then
	js=$(grep -cE "^	 *[0-9a-f]+ JS:[^ ].* \(/tmp/perf-$node_pid\.map\)$" sys.ours.txt)
	echo "node JS frames resolved from its perf map: $js"
	check "node's JS frames resolve from /tmp/perf-$node_pid.map" test "$js" -gt 0
	check "node's perf map is in the archive" \
		bash -c "'$PC' ls sys.trace.zip | grep -q ' sys.trace/perf-$node_pid.map$'"
	check "the log says where node's map was found" \
		bash -c "'$PC' log sys.trace.zip | grep -q 'perf-$node_pid.map: found'"
fi
finish
