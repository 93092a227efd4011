#!/usr/bin/env bash
# Every command and every option that --help shows is in the man page and in the bash,
# zsh and fish completions (the CLI, the man page and the completions change together).
. "$(dirname "$0")/lib.sh"
src=$TEST_SRCDIR/..
man=$src/man/perfcollect-c.1
bashc=$src/completions/perfcollect-c.bash
zshc=$src/completions/_perfcollect-c
fishc=$src/completions/perfcollect-c.fish

commands=$("$PC" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$commands" ] || fail "--help lists no commands"
for c in $commands; do
	grep -q "^\.SS $c\b" "$man" || fail "man page has no section for '$c'"
	grep -q "\b$c\b" "$bashc" || fail "bash completion lacks command '$c'"
	grep -q "'$c:" "$zshc" || fail "zsh completion lacks command '$c'"
	grep -q -- "-a $c " "$fishc" || fail "fish completion lacks command '$c'"
	"$PC" "$c" --help >"$T/help.$c" 2>&1 || fail "'$c --help' exits non-zero"
	# Option words at the start of a help line: "  -pid N   ..." or "  -o, -outdir DIR ...".
	opts=$(grep -oE '^ +(-[a-zA-Z], )?-{1,2}[a-zA-Z][a-zA-Z-]*' "$T/help.$c" | sed -E 's/^ +(-[a-zA-Z], )?//' | grep -vE '^-{1,2}help$' || true)
	for o in $opts; do
		bare=${o##*-}
		bare=${o#-}; bare=${bare#-}
		mo=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$mo" "$man" || fail "man page lacks '$c $o'"
		grep -qE -- "(^|[ \"])$o( |\"|\))" "$bashc" || fail "bash completion lacks '$c $o'"
		grep -qF -- "'$o[" "$zshc" || fail "zsh completion lacks '$c $o'"
		if [ "${o#--}" != "$o" ]; then
			grep -qE -- "-l $bare( |$)" "$fishc" || fail "fish completion lacks '$c $o'"
		else
			grep -qE -- "-o $bare( |$)" "$fishc" || fail "fish completion lacks '$c $o'"
		fi
	done
	pass "$c: $(echo $opts | wc -w) options documented"
done
finish
