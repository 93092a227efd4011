# merge against the oracle: real `perf record` files, one per process (the samples carry no
# CPU), one system-wide with node --perf-basic-prof running JIT code, one of a .NET app
# (JIT'd, ReadyToRun and stub code), and one of --call-graph dwarf (perf script unwinds its
# stack copies itself; merge with our unwinder) of a program calling a library built without
# frame pointers, are turned into perf.data.txt by `perf script` and by `perfcollect-c
# merge`; both must list the same samples (same header line) with the same frames (same ip,
# symbol and dso per frame).
#
# Deliberate differences (counted apart, never failures), each for PerfView's reader:
#   - a frame perf leaves as "[unknown]" that we resolve (same ip, we name a symbol): .NET
#     code in /memfd:doublemapper and ReadyToRun code in *.dll images, named from the
#     runtime's perf map and jitdump.  A .NET method ("ret [Module] Type::M(args)") then has
#     the perf map as its dso wherever its code sits, as perf names JIT'd code in anonymous
#     memory, so PerfView takes it apart the same way whether precompiled or JIT'd; a stub
#     keeps the mapping's name as dso (from a perf map PerfView would show its path as the
#     symbol);
#   - other frames in anonymous executable memory (node's JS functions, addresses no map
#     names) have the mapping's name ("//anon") as dso, not the perf map's path: PerfView
#     would show that path as the symbol and a piece of the name as the module;
#   - a dso perf names "FILE (deleted)" is "FILE" (PerfView reads a dso from the last '(' of
#     the line: "deleted)" would be the module);
#   - a process name PerfView's reader would misread (" 1/2", " 5 [") has '_' for its
#     whitespace (the header line is otherwise the same);
#   - a --call-graph dwarf sample whose stack copy the kernel left empty (early in ld.so's
#     start, say, in a syscall or in user mode): perf script prints its kernel frames (none
#     for a sample in user mode) and no user frame; we add the one the registers name (the
#     user IP), as a frame-pointer file would have it;
#   - perf's dwarf unwinding adds, from debug info, a frame "FUNCTION (inlined)" for each
#     function inlined at a frame's address, before it (same ip), or names the frame so;
#     ours is the function the address is in, as for every other frame.
# And in our own collections (not these files): hybrid call stacks (collect's default) have
# the callers perf script's frame-pointer chains of the same perf.data lack, where code
# without frame pointers broke the chain (lib.sh's same_but_mended; unwind_nofp and
# unwind_libc check them against perf --call-graph dwarf).
# Every other difference fails the test and is printed.
source "$(dirname "$0")/lib.sh"
need_root
need_perf

# compare PERF_TXT OURS_TXT LABEL: prints a summary, fails on real differences.
compare() {
	awk -v label="$3" "$AWK_LOAD_SAMPLES"'
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
			if (PH[i] != OH[i]) {
				# the same line but for the process name, renamed for PerfView
				pid_time = " +-?[0-9]+\\/-?[0-9]+ +(\\[[0-9]+\\] +)?[0-9]+\\.[0-9]+:"
				if (match(PH[i], pid_time)) { pc = substr(PH[i], 1, RSTART - 1); pr = substr(PH[i], RSTART) }
				if (match(OH[i], pid_time)) { oc = substr(OH[i], 1, RSTART - 1); orr = substr(OH[i], RSTART) }
				if (pr == orr && length(pc) == length(oc)) { renamed++ }
				else { hdr++; report("header", i, PH[i], OH[i]); continue }
			}
			# (the frames perf has all in the kernel, or none: a sample taken in user mode)
			if (ON[i] == PN[i] + 1 && (PN[i] == 0 || PF[i, PN[i]] ~ /^\t *ffffffff/) &&
			    OF[i, ON[i]] !~ /^\t *ffffffff/) {
				for (k = 1; k <= PN[i] && PF[i, k] == OF[i, k]; k++) ;
				if (k > PN[i]) { userip++; samples_ok++; continue }
			}
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
				if (a ~ / \(deleted\)\)$/ && substr(a, 1, length(a) - 11) ")" == b) {
					deleted++
					continue
				}
				split_frame(a, P); split_frame(b, O)
				if (P["ip"] == O["ip"] && P["sym"] == O["sym"] && P["rest"] ~ /\/tmp\/perf-[0-9]+\.map\)$/ &&
				    O["rest"] ~ /\(\/\/anon\)$|\(\[anon:[^]]*\]\)$/) {
					anon++
					continue
				}
				if (P["ip"] == O["ip"] && P["rest"] ~ / \(inlined\)$/) {
					inlined++
					continue
				}
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
		printf "%s: perf %d samples, ours %d; headers differing %d (process name renamed %d), " \
		       "frame counts differing %d; frames %d: identical %d, resolved more %d, " \
		       "\" (deleted)\" left out %d, anonymous JIT memory by its name %d, inlined names %d, " \
		       "differing %d; samples matching %d (%.2f%%); user frame from the registers " \
		       "where perf has none %d\n",
		       label, np, no, hdr + 0, renamed + 0, depth + 0, frames + 0, ok + 0, more + 0,
		       deleted + 0, anon + 0, inlined + 0, bad + 0, samples_ok + 0, np ? 100 * samples_ok / np : 0, userip + 0
		printf "%d %d %d\n", more + 0, deleted + 0, renamed + 0 > "deviations." label
		exit (np != no || np == 0 || hdr || depth || bad) ? 1 : 0
	}' "$1" "$2"
}

FIELDS=comm,pid,tid,time,period,event,ip,sym,dso

# 1. Per process: perf record with a workload command; the samples have no CPU.
perf record -q -e cpu-clock -F 1000 -g -o proc.data -- "$WORKLOADS/hot" 1 >/dev/null 2>&1 ||
	skip "perf record failed: run as root (or lower kernel.perf_event_paranoid)"
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

# 1b. A process name PerfView's reader would misread: the same lines, the name renamed.
perf record -q -e cpu-clock -F 1000 -g -o name.data -- "$WORKLOADS/hot" 0.3 1 'w 1/2 x' \
	>/dev/null 2>&1
perf script -i name.data --fields $FIELDS >name.perf.txt 2>/dev/null
check "perf script names the process 'w 1/2 x'" grep -q '^w 1/2 x ' name.perf.txt
check "merge of that file succeeds" "$PC" merge name.data -o name.trace.zip
"$PC" cat name.trace.zip perf.data.txt >name.ours.txt
check "renamed process: same samples, same frames" compare name.perf.txt name.ours.txt renamed
read -r _ _ renamed <deviations.renamed
check "every sample's process name is written 'w_1/2_x' ($renamed)" \
	test "$renamed" -gt 0 -a "$renamed" -eq "$(grep -c '^w_1/2_x ' name.ours.txt)"
check "the log says so" bash -c "'$PC' log name.trace.zip | grep -q \"process name 'w 1/2 x' (pid [0-9]*) is written 'w_1/2_x'\""

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
	js=$(grep -cE "^	 *[0-9a-f]+ JS:[^ ].* \(//anon\)$" sys.ours.txt)
	echo "node JS frames resolved from its perf map: $js"
	check "node's JS frames resolve from /tmp/perf-$node_pid.map" test "$js" -gt 0
	check "node's perf map is in the archive" \
		bash -c "'$PC' ls sys.trace.zip | grep -q ' sys.trace/perf-$node_pid.map$'"
	check "the log says where node's map was found" \
		bash -c "'$PC' log sys.trace.zip | grep -q 'perf-$node_pid.map: found'"
fi
# 3. One .NET process (perf record -p, no CPU column), whose framework code runs precompiled
# (DOTNET_TieredCompilation=0) and whose runtime writes its maps whole
# (DOTNET_PerfMapStubGranularity=2, as 'perfcollect-c setenv' sets).  perf leaves its JIT'd,
# ReadyToRun and stub code [unknown]; merge names it from the runtime's map and jitdump.
DLL=$(sh "$TEST_SRCDIR/workloads/dotnet/build.sh" 2>/dev/null) || DLL=
if [ -n "$DLL" ]; then
	source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
	start_app 30 DOTNET_PerfMapEnabled=1 DOTNET_PerfMapStubGranularity=2 DOTNET_TieredCompilation=0
	perf record -q -e cpu-clock -F 1000 -g -p "$APP_PID" -o dn.data -- sleep 1 >/dev/null 2>&1
	perf script -i dn.data --fields $FIELDS >dn.perf.txt 2>/dev/null
	check "merge of the .NET file succeeds" "$PC" merge dn.data -o dn.trace.zip
	"$PC" cat dn.trace.zip perf.data.txt >dn.ours.txt
	check ".NET: same samples, same frames as perf script but where listed" \
		compare dn.perf.txt dn.ours.txt dotnet
	read -r more _ _ <deviations.dotnet
	check ".NET: frames perf leaves [unknown] are named ($more)" test "$more" -gt 0
	check ".NET: ReadyToRun methods have the perf map as dso" \
		grep -q "\[System.Private.CoreLib\] .*\[PreJIT\] (/tmp/perf-$APP_PID.map)$" dn.ours.txt
	check ".NET: where perf has them [unknown] in the CoreLib image" \
		grep -q "\[unknown\] (.*/System.Private.CoreLib.dll)$" dn.perf.txt
else
	echo "no .NET SDK: the .NET part is skipped"
fi

# 4. perf record --call-graph dwarf: perf script unwinds the copies with its own unwinder,
# merge with ours (tests/workloads/nofp: nofp_inner and nofp_work in a library built
# without frame pointers, one of them holding a number in rbp).
perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o dwarf.data -- "$WORKLOADS/nofp" 1 clobber 2 \
	>/dev/null 2>&1
perf script -i dwarf.data --fields $FIELDS 2>/dev/null | drop_inlined >dwarf.perf.txt
check "merge of the --call-graph dwarf file succeeds" "$PC" merge dwarf.data -o dwarf.trace.zip
"$PC" cat dwarf.trace.zip perf.data.txt >dwarf.ours.txt
check "dwarf: same samples, same frames as perf script's own unwinding" \
	compare dwarf.perf.txt dwarf.ours.txt dwarf
check "dwarf: every caller up to main, as perf finds them" \
	test "$(callers_share dwarf.ours.txt '^nofp_inner$' nofp_work mid_fp main | cut -d' ' -f1)" -gt 0
finish
