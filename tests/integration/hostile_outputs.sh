#!/bin/bash
# Issue 24, finding 7: every output of root is 0600 (directories 0700) whatever the umask, and
# under sudo the files a user asked for belong to the user who ran sudo (SUDO_UID/SUDO_GID):
# the archive, the .nettrace, stacks' report and archive, view's flame graph and pprof
# profile, merge's archive.  start/stop's state and output stay root's (stop believes them),
# 0600.  A trace directory stays root's
# (a user who owned it could swap its files for symlinks while root works in it), 0700, and
# what a killed collector left in it 0600.
source "$(dirname "$0")/lib.sh"
need_root
[ -x "$WORKLOADS/hot" ] || skip "tests/workloads/hot is not built"
need_cmd unzip

umask 022
export SUDO_UID=12345 SUDO_GID=12346
start_hot 60

mode_owner() { stat -c '%a %u:%g' "$1"; }
is_users() { # FILE: 600, the sudo user's
	local got
	got=$(mode_owner "$1") || return 1
	[ "$got" = "600 12345:12346" ] || { echo "  $1: $got"; return 1; }
}

"$PC" collect a -pid $hot -collectsec 1 2>a.err
check "collect exits 0" test $? = 0
check "the trace.zip: 0600, the sudo user's" is_users a.trace.zip
"$PC" collect b -pid $hot -collectsec 1 -format nettrace 2>b.err
check "collect -format nettrace exits 0" test $? = 0
check "the .nettrace: 0600, the sudo user's" is_users b.nettrace

"$PC" stacks -pid $hot -o s.txt 2>s.err && "$PC" stacks -pid $hot -zip s.trace.zip 2>>s.err
check "stacks -o and -zip exit 0" test $? = 0
check "stacks -o: 0600, the sudo user's" is_users s.txt
check "stacks -zip: 0600, the sudo user's" is_users s.trace.zip

"$PC" view a.trace.zip -flamegraph a.svg >/dev/null 2>v.err &&
	"$PC" view a.trace.zip -format pprof -o a.pb.gz >/dev/null 2>>v.err
check "view -flamegraph and -format pprof exit 0" test $? = 0
check "the flame graph: 0600, the sudo user's" is_users a.svg
check "the pprof profile: 0600, the sudo user's" is_users a.pb.gz

# A collector killed mid-recording leaves its directory: root's, 0700, its files 0600.
start_collect k -pid $hot
kill -9 $collector
wait $collector 2>/dev/null
check "the left trace directory: 0700, root's" test "$(mode_owner k.trace)" = "700 0:0"
bad=$(find k.trace -type f ! -perm 600 -printf '%m %p\n')
check "every file in it is 0600 ($bad)" test -z "$bad"
"$PC" merge k.trace 2>m.err
check "merge of it exits 0" test $? = 0
check "merge's archive: 0600, the sudo user's" is_users k.trace.zip

bg=ho$$bg # root's registry is shared: this run's own name
"$PC" start $bg -pid $hot 2>bg.err
check "start exits 0" test $? = 0
cleanup_hooks+=("'$PC' stop $bg >/dev/null 2>&1")
# stop trusts the state (which pid to signal): it stays root's
check "start's state file: 0600, root's" test "$(mode_owner /run/perfcollect-c/$bg.state)" = "600 0:0"
check "start's output file: 0600, root's" test "$(mode_owner /run/perfcollect-c/$bg.out)" = "600 0:0"
"$PC" stop $bg 2>>bg.err
check "stop exits 0" test $? = 0
check "the background collection's archive: 0600, the sudo user's" is_users $bg.trace.zip

"$PC" collect o -pid $hot -collectsec 1 -o newdir 2>o.err
check "collect -o newdir exits 0" test $? = 0
check "the directory made for it: 0700, root's" test "$(mode_owner newdir)" = "700 0:0"
check "the archive in it: 0600, the sudo user's" is_users newdir/o.trace.zip

# Not under sudo (SUDO_UID unset, or a user who is root): root's own files.
unset SUDO_UID SUDO_GID
"$PC" stacks -pid $hot -o r.txt 2>r.err
check "without sudo: root's own, 0600" test "$(mode_owner r.txt)" = "600 0:0"
SUDO_UID=0 SUDO_GID=0 "$PC" stacks -pid $hot -o r0.txt 2>r.err
check "SUDO_UID=0: root's own, 0600" test "$(mode_owner r0.txt)" = "600 0:0"
finish
