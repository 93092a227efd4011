#!/usr/bin/env bash
# Checks that two builds' merge writes the same outputs: for each perf.data given, merge by
# both, then perf.data.txt, the .nettrace beside the zip and every entry of the zip compared
# byte for byte (perfcollect.log with its timestamps and measured durations masked).  For a
# change meant to be faster only.  See bench/README.md.
#
#   bench/merge_same.sh BEFORE_BINARY AFTER_BINARY PERF_DATA...
#
# Prints one line per trace and exits non-zero when anything differs (the differing entries
# named).  Both merge with -nosymbolserver: what a symbol server answers, and how soon, is
# not the build's doing.  Run it where the traces' JIT maps still are (merge of a bare perf.data reads them
# from /tmp), e.g. on bench/merge_each.sh --keep's traces.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
a=$(realpath "$1") b=$(realpath "$2")
shift 2
work=$(mktemp -d /tmp/pcsame.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The log's lines carry the time, and a few say how long something took.
mask_log() { sed -E 's/^\[[0-9T:Z-]+\] //; s/[0-9]+(\.[0-9]+)? (s|ms)\b/N \2/g' "$1"; }
fail=0
for data in "$@"; do
	data=$(realpath "$data")
	name=$(basename "$data" .data)
	for side in a b; do
		bin=$a
		[ $side = b ] && bin=$b
		mkdir -p "$work/$side"
		(cd "$work/$side" && "$bin" merge "$data" -nosymbolserver -o "$name.trace.zip" >/dev/null 2>"$name.err") ||
			{ echo "merge_same.sh: $side's merge of $data failed:" >&2; cat "$work/$side/$name.err" >&2; exit 1; }
		rm -rf "$work/$side/x" && mkdir "$work/$side/x"
		unzip -q "$work/$side/$name.trace.zip" -d "$work/$side/x"
	done
	diffs=()
	cmp -s "$work/a/$name.nettrace" "$work/b/$name.nettrace" || diffs+=("$name.nettrace (beside the zip)")
	la=$(unzip -Z1 "$work/a/$name.trace.zip") lb=$(unzip -Z1 "$work/b/$name.trace.zip")
	[ "$la" = "$lb" ] || diffs+=("the zip's entry list")
	n=0
	while IFS= read -r e; do
		n=$((n + 1))
		case $e in
		*/perfcollect.log)
			if ! cmp -s <(mask_log "$work/a/x/$e") <(mask_log "$work/b/x/$e"); then
				diffs+=("$e")
				diff <(mask_log "$work/a/x/$e") <(mask_log "$work/b/x/$e") | head -6 | cut -c1-200 >&2 || true
			fi ;;
		*) cmp -s "$work/a/x/$e" "$work/b/x/$e" || diffs+=("$e") ;;
		esac
	done <<<"$la"
	txt=$(unzip -Z1 "$work/a/$name.trace.zip" | grep 'perf.data.txt$' || true)
	size=$([ -n "$txt" ] && stat -c %s "$work/a/x/$txt" || echo 0)
	if [ ${#diffs[@]} = 0 ]; then
		echo "same: $name ($n entries, perf.data.txt $size bytes, .nettrace $(stat -c %s "$work/a/$name.nettrace") bytes)"
	else
		echo "DIFFERENT: $name: ${diffs[*]}"
		fail=1
	fi
	[ ${#diffs[@]} = 0 ] || [ -z "${MERGE_SAME_KEEP:-}" ] || { cp -r "$work" "$MERGE_SAME_KEEP"; echo "kept in $MERGE_SAME_KEEP"; }
	rm -rf "$work/a" "$work/b"
done
exit $fail
