# Checks the first entry of a `view` call graph against the heaviest path computed by
# perfscript.awk (mode=caller or callee).
#   awk -v total=N -f checkpath.awk PATHFILE REPORT
# PATHFILE: "count name" per level, the entry first.  Prints "ok" or what is missing.
# Each level must show its percentage of total and its count: as "--P% [N]--name" where
# the weight branches off, or as a bare name where all of it goes on (perf's chain lines).
# Levels under the 0.5% limit are not shown and not checked.
function pct(n) { return sprintf("%.2f%%", 100 * n / total) }
NR == FNR { cnt[++np] = $1; nm[np] = substr($0, index($0, " ") + 1); next }
/^# Call graph/ { graph = 1; next }
graph && !started && /^ +[0-9.]+%  +[0-9]+  \[/ {
	started = 1
	if ($1 != pct(cnt[1]) || $2 != cnt[1] || !index($0, "] " nm[1] "  (")) {
		print "entry is '" $0 "', expected " pct(cnt[1]) " " cnt[1] " " nm[1]
		bad = 1; exit
	}
	lvl = 2
	next
}
started && /^$/ { exit }
started && lvl <= np {
	if (100 * cnt[lvl] / total < 0.5) { lvl = np + 1; next }
	line = $0
	if (cnt[lvl] == cnt[lvl - 1]) {
		if (line ~ /^ *---/) next
		sub(/^[ |]+/, "", line)
		if (line == nm[lvl]) lvl++
	} else {
		want = "--" pct(cnt[lvl]) " [" cnt[lvl] "]--" nm[lvl]
		if (substr(line, length(line) - length(want) + 1) == want) lvl++
	}
}
END {
	if (bad) exit 1
	if (!started) { print "no call graph entry"; exit 1 }
	if (lvl <= np && 100 * cnt[lvl] / total >= 0.5) {
		print "level " lvl " (" cnt[lvl] " " nm[lvl] ", " pct(cnt[lvl]) ") not found in order"
		exit 1
	}
	print "ok"
}
