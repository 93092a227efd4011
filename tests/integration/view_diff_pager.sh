#!/usr/bin/env bash
# view NEW -diff OLD on two perf script texts whose shares are known: the table of functions
# that moved most (in points of each trace's own total) and the differential flame graph
# (red more, blue less, hover with both); and a short report printed without waiting in a
# pager while a long one is paged (run under a real terminal with script(1)).
source "$(dirname "$0")/lib.sh"
need_cmd xmllint
need_cmd script

sample() { # sample COMM PID COUNT FRAME... (leaf first)
	local comm=$1 pid=$2 n=$3 i f; shift 3
	for ((i = 0; i < n; i++)); do
		printf '%s %d/%d [001] %d.%06d: 1000000 cpu-clock:\n' "$comm" $pid $pid $((200 + i / 1000)) $((i % 1000 * 1000))
		for f in "$@"; do printf '\t%16x %s (/srv/app)\n' 4096 "$f"; done
		echo
	done
}
# NEW: hot 600, cold 300, rare 100 (of 1000); OLD: hot 150, cold 350 (of 500).
{ sample app 5 600 hot main; sample app 5 300 cold main; sample app 5 100 rare main; } >new.txt
{ sample app 9 150 hot main; sample app 9 350 cold main; } >old.txt

"$PC" view new.txt -diff old.txt >diff.txt 2>&1
check "view NEW -diff OLD exits 0" test $? = 0
cat diff.txt
check "  the heading names both and their totals" \
	grep -q "^# Differential profile: new.txt (new, 1000 samples) against old.txt (old, 500 samples)" diff.txt
rows=$(grep -E '^ +[0-9]' diff.txt | awk '{print $NF == "(new)" ? $(NF-1) : $NF}' | tr '\n' ' ')
check "  cold (-40 points), hot (+30), rare (+10, new), in that order; main did not move" \
	test "$rows" = "cold hot rare "
check "  cold from 70% to 30%" grep -qE '^ +70\.00% +30\.00% +-40\.00 +70\.00% +30\.00% +-40\.00 +cold$' diff.txt
check "  rare is new" grep -qE '10\.00 +rare +\(new\)$' diff.txt

"$PC" view new.txt -diff old.txt -format svg -o d.svg >dsvg.out 2>&1
check "the differential flame graph is written" bash -c "xmllint --noout d.svg"
check "  cold is the deepest blue" bash -c "grep -A3 '<title>cold$' d.svg | grep -q 'fill=\"rgb(45,45,255)\"'"
check "  hot is red (+30 of the largest 40 points)" bash -c "grep -A3 '<title>hot$' d.svg | grep -q 'fill=\"rgb(255,97,97)\"'"
check "  main is white: its share did not move" bash -c "grep -A3 '<title>main$' d.svg | grep -q 'fill=\"rgb(255,255,255)\"'"
check "  hover gives both shares" grep -q 'in old.txt: 350 samples, 70.00%; change -40.00 points' d.svg
"$PC" view new.txt -flamegraph new.svg >own.out 2>&1
"$PC" view new.txt -diff old.txt -format svg >dflt.out 2>&1
check "without -o the differential graph is new.diff.svg, not the trace's own new.svg" \
	bash -c "grep -q 'wrote new.diff.svg' dflt.out && xmllint --noout new.diff.svg && ! grep -q 'in old.txt' new.svg"
rc=0
"$PC" view new.txt -diff old.txt -format pprof >dp.out 2>&1 || rc=$?
check "-diff with -format pprof is a usage error pointing at pprof -diff_base" \
	bash -c "[ $rc = 2 ] && grep -q 'diff_base' dp.out"
rc=0
"$PC" view new.txt -diff nosuch.txt >dn.out 2>&1 || rc=$?
check "-diff of a missing trace: exit 1, one line" bash -c "[ $rc = 1 ] && [ \$(wc -l <dn.out) = 1 ]"

cp new.txt new.keep
rc=0
"$PC" view new.txt -format folded -o new.txt >ow.out 2>&1 || rc=$?
check "an output named as the input is refused, the input kept" \
	bash -c "[ $rc = 2 ] && cmp -s new.txt new.keep && grep -q 'refusing to write folded stacks over the input new.txt' ow.out"
rc=0
"$PC" view new.txt -diff old.txt -format svg -o old.txt >ow2.out 2>&1 || rc=$?
check "  so is one named as -diff's trace" bash -c "[ $rc = 2 ] && grep -q 'cpu-clock' old.txt"

# The pager: PAGER records that it ran.  A 1000-row terminal holds the short report; a
# 10-row one does not.  (script needs a standard input, even an empty one.)
cat >pager.sh <<'PAGER'
#!/bin/sh
echo paged >>"$PAGER_LOG"
cat >/dev/null
PAGER
chmod +x pager.sh
export PAGER_LOG=$T/pager.log PAGER=$T/pager.sh
script -qec "stty rows 1000 cols 200; '$PC' view new.txt" /dev/null </dev/null >short.tty
check "a report that fits the screen is printed, not paged" \
	bash -c "! [ -e pager.log ] && grep -q 'Top functions by self samples' short.tty"
script -qec "stty rows 10 cols 200; '$PC' view new.txt" /dev/null </dev/null >/dev/null
check "one longer than the screen goes through \$PAGER" grep -qx paged pager.log
finish
