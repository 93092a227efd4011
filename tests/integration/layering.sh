#!/usr/bin/env bash
# lib/ is one folder per pipeline stage; a stage includes only the stages below it (the
# table in lib/README.md), and every stage folder says what it does in a README.md; cmd/
# includes lib's stages and lib never includes cmd; a primitive's job is done by its module
# alone (the vocabulary list at the end).
. "$(dirname "$0")/lib.sh"
lib=$TEST_SRCDIR/../lib
# stage: the stages it may include (besides itself)
declare -A below=(
	[base]=""
	[perfdata]="base"
	[record]="base perfdata"
	[symbols]="base perfdata"
	[nettrace]="base"
	[dotnet]="base perfdata symbols nettrace"
	[postprocess]="base perfdata record symbols nettrace dotnet"
	[report]="base perfdata symbols nettrace dotnet"
	[stacks]="base perfdata symbols nettrace dotnet"
	# a collection, on top: no stage includes it
	[collect]="base perfdata record symbols nettrace dotnet postprocess report stacks"
)
for dir in "$lib"/*/; do
	stage=$(basename "$dir")
	ls "$dir"*.c >/dev/null 2>&1 || continue # a stage still being written
	[ -n "${below[$stage]+x}" ] || { fail "lib/$stage/ is not a known stage: add it to lib/README.md and this test"; continue; }
	[ -s "$dir/README.md" ] || fail "lib/$stage/ has no README.md"
	while IFS=: read -r file inc; do
		up=${inc%%/*}
		case " ${below[$stage]} " in *" $up "*) ;; *)
			fail "${file#$lib/} includes $inc: $stage must not include $up (lib/README.md)" ;;
		esac
	done < <(grep -o '#include "[a-z_]*/[^"]*"' "$dir"*.[ch] | sed 's/#include "//;s/"$//')
	# a bare include names a header of the same stage
	while IFS=: read -r file inc; do
		[ -f "$dir/$inc" ] || fail "${file#$lib/} includes \"$inc\", which is not in lib/$stage/ (use \"stage/$inc\")"
	done < <(grep -o '#include "[a-z_]*\.h"' "$dir"*.[ch] | sed 's/#include "//;s/"$//')
done
loose=$(cd "$lib" && ls *.[ch] 2>/dev/null)
[ -z "$loose" ] || fail "modules loose in lib/ (move each into its stage): $loose"

# cmd/, one thin file per command, sits on top of lib/: it may include any stage (by its
# name, "stage/x.h") and its own headers (bare); no lib/ file includes it.
cmd=$TEST_SRCDIR/../cmd
while IFS=: read -r file inc; do
	[ -n "${below[${inc%%/*}]+x}" ] || fail "${file#$cmd/../} includes $inc: cmd/ includes lib stages (lib/README.md) and its own headers"
done < <(grep -o '#include "[a-z_]*/[^"]*"' "$cmd"/*.[ch] | sed 's/#include "//;s/"$//')
while IFS=: read -r file inc; do
	[ -f "$cmd/$inc" ] || fail "${file#$cmd/../} includes \"$inc\", which is not in cmd/"
done < <(grep -o '#include "[a-z_]*\.h"' "$cmd"/*.[ch] | sed 's/#include "//;s/"$//')
for h in "$cmd"/*.h; do
	n=$(basename "$h")
	grep -l "#include \"\(cmd/\)\?$n\"" "$lib"/*/*.[ch] 2>/dev/null | while read -r f; do
		echo "FAIL: lib/${f#$lib/} includes cmd/'s $n: lib never includes cmd"
	done
done | { out=$(cat); [ -z "$out" ] || { echo "$out"; exit 1; }; } || fails=$((fails + 1))

# One vocabulary per job: each job below has one module in lib/; a new copy of it elsewhere
# (a parser of /proc/PID/maps, another temp-and-rename ...) fails here.  Each rule: the
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
[ "$fails" -eq 0 ] && pass "every lib/ stage includes only the stages below it, cmd/ only lib stages, each job has one module"
finish
