# Call stacks through code without frame pointers, against the oracle perf record
# --call-graph dwarf on the same process at the same time: tests/workloads/nofp runs
# main -> mid_fp -> deep_fp -> nofp_work -> nofp_inner, the last two in libnofp.so, built
# -fomit-frame-pointer.  The kernel's frame-pointer chain taken in nofp_inner lacks
# nofp_work and deep_fp; collect's default (hybrid) call stacks must keep every caller up to
# main in >= 95 % of the samples in nofp_inner, as perf's do, in a perf.data of at most a
# quarter of perf's.  The same with nofp_work holding a number in rbp (the chain lost whole);
# -callgraph fp keeps none (the figure before hybrid stacks); -callgraph dwarf writes perf's
# layout, whose frames perf script prints as ours; the zip's perf.data holds the unwound
# chains instead of the copies (perf script prints perf.data.txt from it, merge of the zip
# the same); stacks unwinds the same code in a stopped process.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
NOFP=$WORKLOADS/nofp
CALLERS="nofp_work deep_fp mid_fp main"

# record NAME MODE [COLLECT OPTIONS]: nofp in MODE (plain or clobber) for 3 s, recorded by
# collect -pid and by perf record --call-graph dwarf -F 1000 -p at the same time.  Leaves
# NAME.ours.txt (perf.data.txt), NAME.data (our perf.data), NAME.perf.data.
record() {
	local name=$1 mode=$2; shift 2
	"$NOFP" 8 "$mode" >/dev/null &
	local pid=$!
	cleanup_hooks+=("kill $pid 2>/dev/null")
	wait_until 5 grep -qs libnofp "/proc/$pid/maps" || fail "nofp did not start"
	"$PC" collect "$name" -pid "$pid" -collectsec 3 "$@" >"$name.out" 2>&1 &
	local c=$!
	perf record -q --call-graph dwarf -F 1000 -p "$pid" -o "$name.perf.data" -- sleep 3 \
		>/dev/null 2>&1
	wait "$c" || { fail "collect $name failed"; cat "$name.out"; }
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	"$PC" cat "$name.trace.zip" "$name.trace/perf.data.txt" >"$name.ours.txt"
	"$PC" cat "$name.trace.zip" "$name.trace/perf.data" >"$name.data"
	perf script -i "$name.perf.data" -F comm,tid,time,ip,sym,dso >"$name.perf.txt" 2>/dev/null
}

# kept NAME FILE: "KEPT TOTAL" of nofp_inner's samples with every caller up to main.
kept() { callers_share "$1" '^nofp_inner$' $CALLERS; }

for mode in plain clobber; do
	record "$mode" "$mode"
	read -r ok n <<<"$(kept "$mode.ours.txt")"
	read -r pok pn <<<"$(kept "$mode.perf.txt")"
	ours=$(stat -c %s "$mode.data") theirs=$(stat -c %s "$mode.perf.data")
	echo "$mode: nofp_inner keeps every caller up to main in ours $ok of $n ($(percent "$ok" "$n") %)," \
		"perf --call-graph dwarf $pok of $pn ($(percent "$pok" "$pn") %);" \
		"perf.data ours $ours bytes, perf's $theirs ($((theirs / (ours > 0 ? ours : 1)))x)"
	check "$mode: collect recorded samples in nofp_inner ($n)" test "$n" -ge 100
	check "$mode: >= 95 % of them keep every caller up to main" test "$((ok * 100))" -ge "$((n * 95))"
	check "$mode: as perf's own dwarf unwinding does (>= 95 %)" test "$((pok * 100))" -ge "$((pn * 95))"
	check "$mode: our perf.data is at most a quarter of perf's" test "$((ours * 4))" -le "$theirs"
done
check "the log counts the mended stacks" \
	bash -c "'$PC' log plain.trace.zip | grep -qE 'user registers and stack copies: [0-9]+ samples, [1-9][0-9]* with callers'"

# The zip's perf.data is rewritten once unwound (as perf inject would): each sample with the
# chain perf.data.txt printed, no stack copy; perf script prints exactly our text from it.
perf script -i plain.data -F comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace \
	>plain.script.txt 2>plain.script.err
grep -v "^'trace' not valid for" plain.script.err >plain.script.warn || true
check "perf script reads the zip's perf.data without a warning" test ! -s plain.script.warn
read -r cok cn <<<"$(kept plain.script.txt)"
echo "perf script on the zip's perf.data: $cok of $cn keep every caller"
check "perf script prints perf.data.txt from the zip's perf.data, byte for byte" \
	cmp plain.script.txt plain.ours.txt
check "perf report reads it" bash -c "perf report -i plain.data --stdio >/dev/null 2>&1"
check "perf report shows nofp_inner's callers up to main from it" \
	bash -c "perf report -i plain.data --stdio --no-children -g folded,0,caller,count 2>/dev/null |
		grep -q ';main;mid_fp;deep_fp;nofp_work;nofp_inner\$'"
check "the zip's perf.data has no stack copies (sample_type without STACK_USER)" \
	bash -c "perf report -i plain.data --header-only 2>/dev/null | grep 'sample_type = .*CALLCHAIN' | grep -vq STACK_USER"
"$PC" merge plain.trace.zip -o remerged.trace.zip >/dev/null 2>&1
"$PC" cat remerged.trace.zip plain.trace/perf.data.txt >remerged.txt
check "merge of the zip prints the same perf.data.txt from its perf.data" cmp remerged.txt plain.ours.txt

# Before hybrid stacks: the chain alone keeps none.
"$NOFP" 4 plain >/dev/null &
pid=$!
wait_until 5 grep -qs libnofp "/proc/$pid/maps"
"$PC" collect fp -pid "$pid" -collectsec 1 -callgraph fp >/dev/null 2>&1
wait "$pid"
"$PC" cat fp.trace.zip fp.trace/perf.data.txt >fp.ours.txt
read -r fok fn <<<"$(kept fp.ours.txt)"
echo "-callgraph fp: $fok of $fn keep every caller up to main"
check "-callgraph fp: the chain alone keeps none" test "$fn" -gt 0 -a "$fok" -eq 0

# -callgraph dwarf: perf's own layout, which perf script unwinds itself to our frames (perf
# names a frame in an inlined function "NAME (inlined)", from debug info; we name the
# function the address is in).
record dwarf plain -callgraph dwarf
perf script -i dwarf.data -F comm,pid,tid,time,period,event,ip,sym,dso 2>/dev/null |
	drop_inlined >dwarf.script.txt
# without our cpu column, and header lines' spaces squeezed (perf pads the time column
# differently without it)
sed -E 's/ +\[[0-9]+\] +/ /; /^[^\t]/ s/ +/ /g' dwarf.ours.txt >dwarf.ours.nocpu
sed -E '/^[^\t]/ s/ +/ /g' dwarf.script.txt >dwarf.script.squeezed
read -r dok dn <<<"$(kept dwarf.script.txt)"
echo "-callgraph dwarf: perf script's own unwinding keeps every caller in $dok of $dn"
check "-callgraph dwarf: perf script shows every caller from the zip's perf.data (>= 95 %)" \
	test "$dn" -gt 0 -a "$((dok * 100))" -ge "$((dn * 95))"
check "-callgraph dwarf: perf script's frames are ours (but for inlined names)" awk '
	FNR == NR { a[++na] = $0; next } { b[++nb] = $0 }
	END {
		if (na != nb) { print "lines: perf " na ", ours " nb; exit 1 }
		for (i = 1; i <= na; i++) {
			if (a[i] == b[i]) continue
			split(a[i], x, " "); split(b[i], y, " ")
			if (a[i] ~ / \(inlined\)$/ && x[1] == y[1]) { inl++; continue }
			if (bad++ < 5) print "  perf: " a[i] "\n  ours: " b[i]
		}
		print na " lines, " inl + 0 " inlined names"
		exit bad ? 1 : 0
	}' dwarf.script.squeezed dwarf.ours.nocpu

# stacks: the same unwinder in a stopped process, through the code that clobbers rbp.
"$NOFP" 10 clobber 3 >/dev/null &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
wait_until 5 grep -qs libnofp "/proc/$pid/maps"
"$PC" stacks -pid "$pid" >stacks.txt 2>&1
kill "$pid"
check "stacks: a thread in nofp_inner shows its callers up to main" awk '
	/ nofp_inner\+/ { s = 1 } s && / nofp_work\+/ { s = 2 } s == 2 && / deep_fp\+/ { s = 3 }
	s == 3 && / mid_fp\+/ { s = 4 } s == 4 && / main\+/ { ok = 1 } END { exit ok ? 0 : 1 }' stacks.txt ||
	cat stacks.txt
finish
