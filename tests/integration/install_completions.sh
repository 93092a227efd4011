#!/usr/bin/env bash
# `meson install` into a DESTDIR puts the binary, the man page and the bash, zsh and fish
# completions where man and the shells look under the prefix; man renders the page; and each
# shell, given that prefix as it would be on a real system, completes: commands, long
# options, -format values, only traces after view, zip entries after cat ZIP, PIDs after
# -pid, directories after collect -o, background collections after stop (those of the
# registry, from any directory: run with a private /run, where the test puts one).
source "$(dirname "$0")/lib.sh"
private_run
need_cmd meson
need_cmd zip
C=$TEST_SRCDIR/integration/completion
meson install -C "$BUILD_DIR" --no-rebuild --quiet --destdir "$T/dest" >install.out 2>&1 ||
	{ cat install.out; fail "meson install"; finish; }
prefix=$(meson introspect "$BUILD_DIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
P=$T/dest$prefix
check "the binary in PREFIX/bin" test -x "$P/bin/perfcollect-c"
check "the man page in PREFIX/share/man/man1" test -f "$P/share/man/man1/perfcollect-c.1"
check "bash's in PREFIX/share/bash-completion/completions" test -f "$P/share/bash-completion/completions/perfcollect-c"
check "zsh's in PREFIX/share/zsh/site-functions" test -f "$P/share/zsh/site-functions/_perfcollect-c"
check "fish's in PREFIX/share/fish/vendor_completions.d" test -f "$P/share/fish/vendor_completions.d/perfcollect-c.fish"
if command -v man >/dev/null; then
	check "man finds the page under the prefix" \
		bash -c "MANPATH='$P/share/man' man -w perfcollect-c | grep -qx '$P/share/man/man1/perfcollect-c.1'"
	MANPATH=$P/share/man MANWIDTH=100 man perfcollect-c 2>/dev/null >man.txt
	check "  and renders it: start, stop, -format pprof, the [k] [.] [j] markers" \
		bash -c "grep -q '^   start name' man.txt && grep -q '^   stop \[name\]' man.txt && grep -q 'pprof' man.txt && grep -q '\[j\]' man.txt"
fi

# A directory to complete in: traces, another file, directories, an archive with entries;
# and a background collection in the registry (an entry as a collector writes it).
mkdir -p work/sub1 work/sub2 && cd work
mkdir snap.trace && echo x >snap.trace/perf.data.txt && echo y >snap.trace/perfcollect.log &&
	zip -qrD snap.trace.zip snap.trace && rm -r snap.trace
touch a.trace.zip b.nettrace notes.txt
mkdir -m 700 /run/perfcollect-c
for n in x y; do
	printf 'pid 1\nstarttime 1\nboot_id x\nexe 0,0:0\nstarted 2020-01-01T00:00:00Z\nstate recording\nshown 0\nzip /elsewhere/%s.trace.zip\ntrace_dir /elsewhere/%s.trace\n' \
		$n $n >/run/perfcollect-c/$n.state
done
entries=$("$P/bin/perfcollect-c" ls snap.trace.zip 2>/dev/null | awk '{print $2}' | sort | tr '\n' ' ')
export PATH=$P/bin:$PATH
sleep 300 &
sleeper=$!
cleanup_hooks+=("kill $sleeper 2>/dev/null")
expect() { # expect SHELL "LINE" "CANDIDATES (sorted, space-separated)" ACTUAL
	check "$1: '$2' -> $3" test "$4" = "$3"
}
words() { sort -u | tr '\n' ' ' | sed 's/ $//'; }

if [ -f /usr/share/bash-completion/bash_completion ]; then
	b() { bash --norc --noprofile "$C/bash_complete.sh" "$P" "$@" 2>&1 | words; }
	expect bash "perfcollect-c st" "stacks start stop" "$(b perfcollect-c st)"
	expect bash "perfcollect-c view --fo" "--folded --format" "$(b perfcollect-c view --fo)"
	expect bash "perfcollect-c view -format " "csv folded html pprof speedscope svg text" "$(b perfcollect-c view -format '')"
	expect bash "perfcollect-c view " "a.trace.zip b.nettrace snap.trace.zip sub1 sub2" "$(b perfcollect-c view '')"
	expect bash "perfcollect-c cat snap.trace.zip " "${entries% }" "$(b perfcollect-c cat snap.trace.zip '')"
	expect bash "perfcollect-c collect x -o " "sub1 sub2" "$(b perfcollect-c collect x -o '')"
	expect bash "perfcollect-c stop " "x y" "$(b perfcollect-c stop '')"
	check "bash: 'perfcollect-c collect x -pid $sleeper' offers that PID" \
		bash -c "bash --norc --noprofile '$C/bash_complete.sh' '$P' perfcollect-c collect x -pid $sleeper | grep -qx $sleeper"
else
	echo "note: bash-completion is not installed: bash completion not checked"
	fails=$((fails + 1))
fi

if command -v zsh >/dev/null; then
	z() { timeout 60 zsh -f "$C/zsh_complete.zsh" "$P/share/zsh/site-functions" "$1" "$T/zcompdump" 2>&1 | words; }
	expect zsh "perfcollect-c st" "stacks start stop" "$(z 'perfcollect-c st')"
	expect zsh "perfcollect-c view --fo" "--folded --format" "$(z 'perfcollect-c view --fo')"
	expect zsh "perfcollect-c view -format " "csv folded html pprof speedscope svg text" "$(z 'perfcollect-c view -format ')"
	expect zsh "perfcollect-c view " "a.trace.zip b.nettrace snap.trace.zip sub1 sub2" "$(z 'perfcollect-c view ')"
	expect zsh "perfcollect-c cat snap.trace.zip " "${entries% }" "$(z 'perfcollect-c cat snap.trace.zip ')"
	expect zsh "perfcollect-c collect x -o " "sub1 sub2" "$(z 'perfcollect-c collect x -o ')"
	expect zsh "perfcollect-c stop " "x y" "$(z 'perfcollect-c stop ')"
else
	echo "note: zsh is not installed (scripts/setup installs it): zsh completion not checked"
fi

if command -v fish >/dev/null; then
	mkdir -p "$T/fishhome"
	f() {
		HOME=$T/fishhome XDG_CONFIG_HOME=$T/fishhome XDG_DATA_DIRS=$P/share \
			fish -c "complete --do-complete '$1'" 2>&1 | cut -f1 | sed 's:/$::' | words
	}
	expect fish "perfcollect-c st" "stacks start stop" "$(f 'perfcollect-c st')"
	expect fish "perfcollect-c view --fo" "--folded --format" "$(f 'perfcollect-c view --fo')"
	expect fish "perfcollect-c view -format " "csv folded html pprof speedscope svg text" "$(f 'perfcollect-c view -format ')"
	expect fish "perfcollect-c view " "a.trace.zip b.nettrace snap.trace.zip sub1 sub2" "$(f 'perfcollect-c view ')"
	expect fish "perfcollect-c cat snap.trace.zip " "${entries% }" "$(f 'perfcollect-c cat snap.trace.zip ')"
	expect fish "perfcollect-c collect x -o " "sub1 sub2" "$(f 'perfcollect-c collect x -o ')"
	expect fish "perfcollect-c stop " "x y" "$(f 'perfcollect-c stop ')"
	check "fish: 'perfcollect-c collect x -pid $sleeper' offers that PID" \
		bash -c "HOME=$T/fishhome XDG_CONFIG_HOME=$T/fishhome XDG_DATA_DIRS=$P/share fish -c \"complete --do-complete 'perfcollect-c collect x -pid $sleeper'\" | cut -f1 | grep -qx $sleeper"
else
	echo "note: fish is not installed (scripts/setup installs it): fish completion not checked"
fi
finish
