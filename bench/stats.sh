# Sourced by the benchmarks: medians, ratios and timed runs.
#
#   median <FILE_OF_NUMBERS     med FILE     ratio A B (A / B, one decimal)
#   timed1 NAME COMMAND...      runs it once; NAME.wall, NAME.cpu (user + sys), NAME.rss
#                               (peak KiB) each get a line; a failure ends the script
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med() { median <"$1"; }
ratio() { awk "BEGIN{printf \"%.1f\", $1 / $2}"; }

timed1() {
	local name=$1 s u k kb
	shift
	/usr/bin/time -o time.out -f '%e %U %S %M' "$@" >/dev/null 2>"$name.err" ||
		{ echo "${0##*/}: $name failed:" >&2; tail -5 "$name.err" >&2; exit 1; }
	read -r s u k kb <time.out
	echo "$s" >>"$name.wall"
	awk "BEGIN{print $u + $k}" >>"$name.cpu"
	echo "$kb" >>"$name.rss"
}
