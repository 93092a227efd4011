# An independent reading of `perf script` text for the view tests (not our parser).
#   awk -v mode=folded  [-v comm=C] [-v pid=N]   "comm;root;...;leaf count" per unique stack
#   awk -v mode=caller|callee [-v comm=C]        the heaviest path of the call graph, root
#                                                entry first: "count name" per level
#   awk -v mode=total   [-v comm=C]              the number of samples
# Names as the view shows them: the symbol, or "[dso file name]" for [unknown] symbols.
# In the call graph a function is its name and its dso (two JIT maps may name the same
# symbol); folded stacks carry names only.
function display(s, d,   b) {
	if (s != "" && s != "[unknown]") return s
	if (d == "" || d == "[unknown]") return "[unknown]"
	b = d; sub(/.*\//, "", b)
	return substr(b, 1, 1) == "[" ? b : "[" b "]"
}
function flush(   i, key, k) {
	if (!insample) return
	insample = 0
	if (comm != "" && scomm != comm) return
	if (pid != "" && spid != pid) return
	total++
	if (mode == "folded") {
		key = scomm
		for (i = n; i >= 1; i--) key = key ";" name[i]
		folded[key]++
	} else if (mode == "caller" || mode == "callee") {
		key = ""
		for (k = 1; k <= n; k++) {
			i = mode == "caller" ? n - k + 1 : k
			key = key (k > 1 ? ";" : "") name[i] "\001" dso[i]
			prefix[key]++
		}
	}
}
/^[ \t]*$/ { flush(); next }
/^\t/ {
	if (!insample) next
	line = $0
	sub(/^[ \t]+[0-9a-fA-F]+ ?/, "", line)
	s = line; d = ""
	if (line ~ /\)$/ && (p = match(line, / \([^(]*\)$/))) {
		d = substr(line, p + 2, length(line) - p - 2)
		s = substr(line, 1, p - 1)
	}
	name[++n] = display(s, d)
	dso[n] = d
	next
}
{
	flush()
	if (!match($0, / +-?[0-9]+\/-?[0-9]+ /)) next
	scomm = substr($0, 1, RSTART - 1); sub(/^ +/, "", scomm)
	rest = substr($0, RSTART); sub(/^ +/, "", rest)
	split(rest, f, "/"); spid = f[1]
	n = 0; insample = 1
}
END {
	flush()
	if (mode == "total") print total + 0
	if (mode == "folded") for (k in folded) print k " " folded[k]
	if (mode == "caller" || mode == "callee") {
		cur = ""
		for (;;) {
			best = ""; bestc = 0
			for (k in prefix) {
				if (cur != "" && substr(k, 1, length(cur) + 1) != cur ";") continue
				rest = cur == "" ? k : substr(k, length(cur) + 2)
				if (index(rest, ";")) continue
				if (prefix[k] > bestc || (prefix[k] == bestc && rest < bestname)) {
					best = k; bestc = prefix[k]; bestname = rest
				}
			}
			if (best == "") break
			sub(/\001.*/, "", bestname)
			print bestc, bestname
			cur = best
		}
	}
}
