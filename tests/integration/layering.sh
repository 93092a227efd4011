#!/usr/bin/env bash
# lib/ is one folder per pipeline stage and cmd/ sits on top of it.  lib/README.md's table
# says which stages each one (and cmd/) includes, and it is exact: a stage includes only the
# stages its row names, and every stage its row names it does include; lib never includes
# cmd.  The stages form no circle, nor do the modules (.c files) within a stage
# (layering_cycles.py reads their includes and calls); every stage folder says what it does
# in a README.md; a primitive's job is done by its module alone (the vocabulary list at the
# end).
. "$(dirname "$0")/lib.sh"
need_cmd python3
lib=$TEST_SRCDIR/../lib
cmd=$TEST_SRCDIR/../cmd
# The table's rows: | `stage/` ... | takes in | gives out | stage, stage ... (or —) |
declare -A allowed=()
while IFS='|' read -r _ name _ _ may _; do
	stage=$(echo "$name" | sed 's/^[^`]*`\([a-z]*\)\/`.*/\1/')
	may=$(echo "$may" | tr ',' ' ' | tr -s ' ')
	[ "$(echo $may)" = "—" ] && may=""
	allowed[$stage]=" $(echo $may) "
done < <(grep -E '^\| `[a-z]+/`' "$lib/README.md")
[ ${#allowed[@]} -gt 0 ] || fail "lib/README.md has no table of stages"

# check_includes NAME DIR: DIR's includes of other stages are exactly NAME's row; a bare
# include names a header of DIR itself.
check_includes() {
	local stage=$1 dir=$2 file inc up
	declare -A used=()
	while IFS=: read -r file inc; do
		up=${inc%%/*}
		[ "$up" = "$stage" ] && { fail "${file#$dir/../} includes \"$inc\": a header of its own stage is included bare"; continue; }
		used[$up]=1
		case "${allowed[$stage]}" in *" $up "*) ;; *)
			fail "${file#$dir/../} includes $inc: lib/README.md does not let $stage include $up" ;;
		esac
	done < <(grep -o '^#include "[a-z_]*/[^"]*"' "$dir"/*.[ch] | sed 's/#include "//;s/"$//')
	for up in ${allowed[$stage]}; do
		[ -n "${used[$up]+x}" ] ||
			fail "lib/README.md lets $stage include $up, which it never does: take $up out of its row"
	done
	while IFS=: read -r file inc; do
		[ -f "$dir/$inc" ] || fail "${file#$dir/../} includes \"$inc\", which is not in $stage/ (use \"stage/$inc\")"
	done < <(grep -o '^#include "[a-z_]*\.h"' "$dir"/*.[ch] | sed 's/#include "//;s/"$//')
}

for dir in "$lib"/*/; do
	stage=$(basename "$dir")
	ls "$dir"*.c >/dev/null 2>&1 || continue # a stage still being written
	[ -n "${allowed[$stage]+x}" ] || { fail "lib/$stage/ is not a known stage: add its row to lib/README.md"; continue; }
	[ -s "$dir/README.md" ] || fail "lib/$stage/ has no README.md"
	check_includes "$stage" "${dir%/}"
done
for stage in "${!allowed[@]}"; do
	[ -d "$lib/$stage" ] || [ "$stage" = cmd ] || fail "lib/README.md has a row for $stage, which is no folder of lib/"
done
loose=$(cd "$lib" && ls *.[ch] 2>/dev/null)
[ -z "$loose" ] || fail "modules loose in lib/ (move each into its stage): $loose"

# cmd/, one thin file per command, sits on top of lib/: its row says which stages it
# includes (by their name, "stage/x.h"), its own headers are included bare; no lib/ file
# includes it.
[ -n "${allowed[cmd]+x}" ] || fail "lib/README.md has no row for cmd/"
check_includes cmd "$cmd"
for h in "$cmd"/*.h; do
	n=$(basename "$h")
	grep -l "#include \"\(cmd/\)\?$n\"" "$lib"/*/*.[ch] 2>/dev/null | while read -r f; do
		echo "FAIL: lib/${f#$lib/} includes cmd/'s $n: lib never includes cmd"
	done
done | { out=$(cat); [ -z "$out" ] || { echo "$out"; exit 1; }; } || fails=$((fails + 1))

# The stages, one way: tsort finds a loop in the table's pairs.
pairs=$(for s in "${!allowed[@]}"; do for up in ${allowed[$s]}; do echo "$up $s"; done; done)
if ! echo "$pairs" | tsort >/dev/null 2>"$T/tsort.err"; then
	fail "lib/README.md's stages include each other in a circle: $(tr '\n' ' ' <"$T/tsort.err")"
fi

# The modules of each stage, one way.
if ! python3 "$TEST_SRCDIR/integration/layering_cycles.py" "$lib" >"$T/cycles.out"; then
	cat "$T/cycles.out"
	fail "modules of a stage call or include each other in a circle (above)"
fi

# One vocabulary per job: each job below has one module in lib/; a new copy of it elsewhere
# (a parser of /proc/PID/maps, another temp-and-rename, a hand-written hash table ...) fails
# here; tests keep their own decoders (an oracle written apart).  Each rule: the
# modules that own the job (files or stage folders ending in /, space-separated), an
# extended regular expression of what only they may do, and why.
vocabulary=(
	"base/proc_maps.c|/maps\"|/map_files/|reads /proc/PID/maps and map_files: use base/proc_maps.h"
	"base/proc.c|\"/proc/%[a-z]+/(task/%[a-z]+/)?(stat|status|comm|wchan|syscall|stack)\"|reads a task file: use base/proc.h (proc_task_read, proc_task_stat, proc_status)"
	"base/proc.c|/environ\"|reads /proc/PID/environ: use proc_getenv() (base/proc.h)"
	"base/proc.c|/fd\"|lists /proc/PID/fd: use proc_fds_open() (base/proc.h)"
	"base/proc.c|\"/proc/sys/|reads a sysctl: use sysctl_read() or sysctl_long() (base/proc.h)"
	"base/safe_open.c|/root\"|openat2|RESOLVE_IN_ROOT|opens a target's root: use base/safe_open.h"
	"base/outfile.c|O_CREAT|\\brename\\(|creates an output file: use base/outfile.h (outfile_open, outfile_create, outfile_copy)"
	"base/tracefile.c|\"(PERFILE2|2ELIFREP|PK\\\\3\\\\4)\"|recognizes a trace file by its magic: use tracefile_kind_of() (base/tracefile.h)"
	"record/tracefs.c|\\bmount\\(|/sys/kernel/(debug/)?tracing\"|looks for tracefs: use record/tracefs.h"
	"record/|SYS_perf_event_open|opens a perf event: use record/record.h (recorder_probe_event() to ask whether one opens)"
	"base/util.c base/tracefile.c|\\block_dir\\(|claims a trace directory: use tracedir_claim() (base/tracefile.h)"
	"base/htab.h|\\+ 1\\) & (\\(|mask)|probes an open-addressing table by hand: use base/htab.h (every table is an instance of it)"
	"base/hash.h|0x9[eE]3779[bB]9|0xff51afd7|2166136261|16777619|mixes a hash: use base/hash.h (hash_mix, hash_two, hash_bytes)"
	"base/span.h|& 0x7f\\) <<|decodes LEB128 by hand: use span_varuint() (base/span.h)"
	"base/bytebuf.h|>>= 7;|encodes LEB128 by hand: use bytebuf_varuint() or varuint_encode() (base/bytebuf.h)"
	"base/span.h|\\[[0-9a-z +]*\\] << (8|16|24)|assembles a little-endian integer by hand: use load_le16/32/64() or a span (base/span.h)"
	"base/utf16.c|0x[dD]800|0x[dD][cC]00|handles UTF-16 surrogates: use base/utf16.h"
	"base/search.h|lo \\+ \\(?hi - lo\\)? / 2|\\(lo \\+ hi\\) / 2|writes a binary search: use LOWER_BOUND (base/search.h)"
)
for rule in "${vocabulary[@]}"; do
	owner=${rule%%|*}
	rest=${rule#*|}
	why=${rest##*|}
	re=${rest%|*}
	while IFS= read -r hit; do
		f=${hit%%:*}
		rel=${f#$TEST_SRCDIR/../}
		mine=false
		for o in $owner; do
			if [[ $o == */ ]]; then [[ $rel == lib/$o* ]] && mine=true; else [[ $rel == "lib/$o" ]] && mine=true; fi
		done
		$mine && continue
		# comments do not count
		code=${hit#*:*:}
		code=${code#"${code%%[![:space:]]*}"}
		case "$code" in '*'* | '/*'* | '//'*) continue ;; esac
		[[ ${code%%/\**} =~ $re ]] || continue
		fail "$rel:$(cut -d: -f2 <<<"$hit") $why"
	done < <(grep -nE "$re" "$lib"/*/*.c "$cmd"/*.c)
done
[ "$fails" -eq 0 ] && pass "every lib/ stage and cmd/ include exactly the stages lib/README.md names, no stage or module is in a circle, each job has one module"
finish
