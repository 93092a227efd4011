#!/usr/bin/env bash
# start NAME in one directory, stop NAME from / and from a second shell's directory (another
# session, another process, a clean environment): the zip lands where start said, with the
# samples.  `stop` alone stops the only collection there is and lists them when there are
# several.  The registry (/run/perfcollect-c for root, $XDG_RUNTIME_DIR/perfcollect-c or
# /tmp/perfcollect-c-UID for a user) is no symlink trap: a symlink, a directory of another
# mode or owner, a state file that is a symlink, a name with / or .. are refused.  A
# collector killed with SIGKILL leaves a stale entry that stop explains, naming the merge
# that finishes its trace (run from anywhere); an entry naming a PID another process holds
# now (other start time, or the same start time but not a perfcollect-c), or from another
# boot, is never signalled; a collection that ended by itself is reported.
# It runs with a private /run (private_run): other tests' collections are not in its
# registry, and the code path is root's /run as is.
source "$(dirname "$0")/lib.sh"
private_run
need_cmd setsid
need_cmd setpriv
REG=/run/perfcollect-c

start_hot 300
bg_pid() { awk '$1 == "pid" { print $2 }' "$REG/$1.state"; }
cleanup_hooks+=('for s in /run/perfcollect-c/*.state; do [ -e "$s" ] && kill -9 $(awk "\$1 == \"pid\" { print \$2 }" "$s") 2>/dev/null; done')
gone() { ! [ -d /proc/$1 ] || grep -q '^State:.Z' /proc/$1/status; }
# another_shell DIR CMD...: CMD in DIR as a new session with a clean environment.
another_shell() { (cd "$1" && shift && exec setsid env -i PATH="$PATH" "$@" </dev/null); }
mkdir -p d1 d2

# start in d1, stop from /.
(cd d1 && "$PC" start a -pid $hot) >a.start 2>&1
check "start returns 0" test $? = 0
check "start says how to stop it from anywhere, and where the zip goes" \
	grep -q "'perfcollect-c stop a' (from any directory) ends it and writes $T/d1/a.trace.zip" a.start
check "the registry is a directory of root's, mode 0700" \
	test "$(stat -c '%F %U %a' $REG)" = "directory root 700"
check "  holding a.state and a.out, mode 0600" \
	test "$(stat -c '%a' $REG/a.state $REG/a.out | sort -u)" = 600
check "  and nothing beside the output but the trace directory" \
	test "$(ls d1)" = a.trace
pid=$(bg_pid a)
check "the collector runs on in its own session" \
	bash -c "[ -d /proc/$pid ] && [ \"\$(ps -o sid= -p $pid | tr -d ' ')\" = $pid ]"
check "a second start of the same name is refused, from another directory too" \
	bash -c "cd d2 && ! '$PC' start a >'$T/a.again' 2>&1 && grep -q 'already collecting in the background (pid $pid' '$T/a.again'"
another_shell / "$PC" stop a >a.stop 2>&1
check "stop from / in another session exits 0" test $? = 0
check "  relays the collector's words, naming the zip where start said" \
	grep -q "Trace saved to $T/d1/a.trace.zip" a.stop
check "  the zip is there" test -s d1/a.trace.zip
check "  and not in /" test ! -e /a.trace.zip
check "  the entry is removed" bash -c "! ls $REG/a.* 2>/dev/null"
check "the collector is gone" gone $pid
"$PC" view d1/a.trace.zip -processfilter hot >a.view 2>&1
check "the trace has hot's samples" grep -q "hot_leaf" a.view

# start in d1, stop from a second shell's directory, by `stop` alone (the only one).
(cd d1 && "$PC" start b -pid $hot) >b.start 2>&1
another_shell "$T/d2" "$PC" stop >b.stop 2>&1
check "stop without a name from d2 stops the only collection (exit 0)" test $? = 0
check "  writes the zip in d1, as start said" bash -c "test -s d1/b.trace.zip && ! ls d2/* 2>/dev/null"
"$PC" view d1/b.trace.zip -processfilter hot >b.view 2>&1
check "  with hot's samples" grep -q "hot_leaf" b.view

# Several: stop alone lists them and stops none; -list shows them; stop NAME picks one.
(cd d1 && "$PC" start c -pid $hot && "$PC" start d -pid $hot -o "$T/d2") >cd.start 2>&1
rc=0
"$PC" stop >cd.stop 2>&1 || rc=$?
check "stop alone with two running: exit 1, lists both, stops none" \
	bash -c "[ $rc = 1 ] && grep -q '2 background collections run' cd.stop && grep -qE '^  c +recording' cd.stop && grep -qE '^  d +recording' cd.stop && [ -e $REG/c.state ] && [ -e $REG/d.state ]"
"$PC" stop -list >cd.list
check "stop -list: one line each, with the zip" \
	bash -c "[ \$(wc -l <cd.list) = 2 ] && grep -q \"^c .* $T/d1/c.trace.zip\$\" cd.list && grep -q \"^d .* $T/d2/d.trace.zip\$\" cd.list"
another_shell / "$PC" stop c >c.stop 2>&1
check "stop c from / writes d1/c.trace.zip" test -s d1/c.trace.zip
another_shell / "$PC" stop >d.stop 2>&1
check "then stop alone stops d, into d2 (start's -o)" test -s d2/d.trace.zip

# Stale: a collector killed without warning.
(cd d1 && "$PC" start e -pid $hot) >e.start 2>&1
pid=$(bg_pid e)
kill -9 "$pid"
wait_until 10 gone $pid
rc=0
another_shell / "$PC" stop e >e.stop 2>&1 || rc=$?
check "stop of a killed collector exits 1" test $rc = 1
check "  and explains it, naming the merge that finishes its trace" \
	grep -q "ended without finishing (killed, crashed, or the machine restarted); what it recorded is in $T/d1/e.trace: 'perfcollect-c merge $T/d1/e.trace -o $T/d1/e.trace.zip'" e.stop
check "  and removes the stale entry" test ! -e $REG/e.state
another_shell / "$PC" merge "$T/d1/e.trace" -o "$T/d1/e.trace.zip" >e.merge 2>&1
check "that merge, run from /, makes the zip" test -s d1/e.trace.zip
# ... and one killed while another runs: stop alone explains it and stops the live one.
(cd d1 && "$PC" start f -pid $hot && "$PC" start g -pid $hot) >fg.start 2>&1
kill -9 "$(bg_pid f)"
wait_until 10 gone "$(bg_pid f)"
"$PC" stop >fg.stop 2>&1
check "stop alone: the stale one explained, the live one stopped" \
	bash -c "grep -q \"'f' (pid .*) ended without finishing\" fg.stop && test -s d1/g.trace.zip && [ ! -e $REG/f.state ]"

# Entries naming a process that is not the collector: never signalled.
sleep 60 &
other=$!
cleanup_hooks+=("kill $other 2>/dev/null")
boot=$(cat /proc/sys/kernel/random/boot_id)
start=$(awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[20] }' /proc/$other/stat)
exe=$(stat -Lc '%Hd,%Ld:%i' "$PC")
forge() { # forge NAME PID STARTTIME BOOT EXE
	printf 'pid %s\nstarttime %s\nboot_id %s\nexe %s\nstarted 2020-01-01T00:00:00Z\nstate recording\nshown 0\nzip %s\ntrace_dir %s\n' \
		"$2" "$3" "$4" "$5" "$T/d1/$1.trace.zip" "$T/d1/$1.trace" >"$REG/$1.state"
	chmod 600 "$REG/$1.state"
}
forge h $other 1 "$boot" "$exe"
rc=0
"$PC" stop h >h.stop 2>&1 || rc=$?
check "a PID reused since (other start time): stale, not signalled" \
	bash -c "[ $rc = 1 ] && grep -q 'ended without finishing' h.stop && [ -d /proc/$other ]"
forge i $other "$start" "$boot" "$exe"
rc=0
"$PC" stop i >i.stop 2>&1 || rc=$?
check "the right PID and start time, but not a perfcollect-c (sleep): stale, not signalled" \
	bash -c "[ $rc = 1 ] && grep -q 'ended without finishing' i.stop && [ -d /proc/$other ]"
(cd d1 && "$PC" start j -pid $hot) >j.start 2>&1
pid=$(bg_pid j)
sed -i 's/^boot_id .*/boot_id 00000000-0000-0000-0000-000000000000/' $REG/j.state
rc=0
"$PC" stop j >j.stop 2>&1 || rc=$?
check "an entry from another boot is stale, its PID not signalled" \
	bash -c "[ $rc = 1 ] && [ -d /proc/$pid ]"
kill -INT "$pid"
wait_until 30 gone $pid
check "  and that collector, stopped by hand, does not bring its removed entry back" \
	test ! -e $REG/j.state

# A collection that ends by itself (-collectsec) is reported by stop, status 0.
(cd d1 && "$PC" start k -pid $hot -collectsec 0.3) >k.start 2>&1
wait_until 30 grep -q "^state finished" $REG/k.state || fail "k never finished"
rc=0
another_shell / "$PC" stop k >k.stop 2>&1 || rc=$?
check "stop after -collectsec ended it: exit 0, says so and where the zip is" \
	bash -c "[ $rc = 0 ] && grep -q 'had already finished by itself' k.stop && grep -q 'Trace saved to $T/d1/k.trace.zip' k.stop"

# Not a symlink trap.
for bad in a/b .. x..y .hidden; do
	rc=0
	"$PC" start "$bad" -pid $hot >bad.out 2>&1 || rc=$?
	check "start '$bad' is refused (exit 1, nothing made)" \
		bash -c "[ $rc = 1 ] && grep -q 'background collection' bad.out && ! ls $REG | grep -q ."
	rc=0
	"$PC" stop "$bad" >bad.out 2>&1 || rc=$?
	check "stop '$bad' is refused too" test $rc = 1
done
mkdir -p elsewhere
ln -s "$T/elsewhere" "$REG/l.state"
rc=0
"$PC" stop l >l.stop 2>&1 || rc=$?
check "a state that is a symlink is refused, naming it" \
	bash -c "[ $rc = 1 ] && grep -q '$REG/l.state is a symlink: refused' l.stop"
rm "$REG/l.state"
mv $REG $REG.real
ln -s $REG.real $REG
rc=0
(cd d1 && "$PC" start m -pid $hot) >m.start 2>&1 || rc=$?
check "a registry that is a symlink is refused" \
	bash -c "[ $rc = 1 ] && grep -q '$REG is a symlink or not a directory' m.start && ! ls $REG.real | grep -q ."
rm $REG && mv $REG.real $REG
chmod 755 $REG
rc=0
(cd d1 && "$PC" start m -pid $hot) >m.start 2>&1 || rc=$?
check "a registry others may enter (mode 0755) is refused" \
	bash -c "[ $rc = 1 ] && grep -q 'mode 0755; a registry of background collections must be uid 0.s alone' m.start"
chmod 700 $REG
chown nobody $REG
rc=0
(cd d1 && "$PC" start m -pid $hot) >m.start 2>&1 || rc=$?
check "a registry another user owns is refused" \
	bash -c "[ $rc = 1 ] && grep -q 'belongs to uid' m.start"
chown root $REG

# A user's registry: $XDG_RUNTIME_DIR/perfcollect-c, else /tmp/perfcollect-c-UID.  (perf
# lets a user record their own process at kernel.perf_event_paranoid 2, the default.)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -gt 2 ]; then
	cleanup_hooks+=("sysctl -q kernel.perf_event_paranoid=$paranoid")
	sysctl -q kernel.perf_event_paranoid=2
fi
user=pcss$$
useradd -M -N -s /bin/sh "$user" 2>/dev/null || fail "cannot add a user"
uid=$(id -u "$user")
chmod 755 "$T"
cp "$PC" "$T/perfcollect-c"
cp "$WORKLOADS/hot" "$T/hot"
mkdir -p "$T/u/run" "$T/u/x" "$T/u/y" && chown -R "$uid" "$T/u" && chmod 700 "$T/u/run"
as_user() { # as_user DIR CMD...: a new session of the user's, clean environment
	(cd "$1" && shift && exec setsid setpriv --reuid="$uid" --regid="$(id -g "$user")" \
		--clear-groups --reset-env "$@" </dev/null)
}
(cd "$T/u" && exec setpriv --reuid="$uid" --regid="$(id -g "$user")" --clear-groups "$T/hot" 60) &
uhot=$!
cleanup_hooks+=("kill $uhot 2>/dev/null; wait $uhot 2>/dev/null; userdel $user 2>/dev/null; rm -rf /tmp/perfcollect-c-$uid")
wait_until 10 grep -qx hot "/proc/$uhot/comm"
as_user "$T/u/x" env XDG_RUNTIME_DIR="$T/u/run" "$T/perfcollect-c" start us -pid $uhot >us.start 2>&1
check "a user's start registers in \$XDG_RUNTIME_DIR/perfcollect-c (0700, theirs)" \
	bash -c "[ \"\$(stat -c '%U %a' '$T/u/run/perfcollect-c')\" = '$user 700' ] && [ -f '$T/u/run/perfcollect-c/us.state' ]"
check "  not in root's" test ! -e $REG/us.state
as_user "$T/u/y" env XDG_RUNTIME_DIR="$T/u/run" "$T/perfcollect-c" stop us >us.stop 2>&1
check "  and stop from another of their directories writes the zip in the first" \
	bash -c "[ -s '$T/u/x/us.trace.zip' ] && grep -q 'Trace saved to $T/u/x/us.trace.zip' us.stop"
as_user "$T/u/x" "$T/perfcollect-c" start ut -pid $uhot >ut.start 2>&1
check "without XDG_RUNTIME_DIR: /tmp/perfcollect-c-$uid, 0700, theirs" \
	bash -c "[ \"\$(stat -c '%U %a' /tmp/perfcollect-c-$uid)\" = '$user 700' ]"
as_user / "$T/perfcollect-c" stop >ut.stop 2>&1
check "  and stop alone from / finds it" test -s "$T/u/x/ut.trace.zip"
rc=0
"$PC" stop ut >ut.root 2>&1 || rc=$?
check "root's stop does not see a user's collections (its own registry)" \
	bash -c "[ $rc = 1 ] && grep -q \"no background collection 'ut'\" ut.root"

# Errors
rc=0
"$PC" stop nosuch >n.stop 2>&1 || rc=$?
check "stop of an unknown name: exit 1, one line naming the registry" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <n.stop) = 1 ] && grep -q \"no background collection 'nosuch' (none in $REG)\" n.stop"
rc=0
"$PC" start f2 -pid 999999999 >f.start 2>&1 || rc=$?
check "start whose collector cannot start: exit 1 with its reason, nothing left" \
	bash -c "[ $rc = 1 ] && grep -q 'process id > 0\|no process 999999999' f.start && ! ls f2.trace* $REG/f2.* 2>/dev/null"
finish
