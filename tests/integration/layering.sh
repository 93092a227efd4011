#!/usr/bin/env bash
# lib/ is one folder per pipeline stage; a stage includes only the stages below it (the
# table in lib/README.md), and every stage folder says what it does in a README.md.
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
[ "$fails" -eq 0 ] && pass "every lib/ stage includes only the stages below it"
finish
