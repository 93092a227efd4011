# An unprivileged user, as perf treats one: at kernel.perf_event_paranoid=2 (the upstream
# default) their own process is recorded user space only, with one line saying how to get
# kernel frames; all CPUs is refused naming the sysctl; -offcpu names tracefs being closed to
# them (not "not mounted"); another user's process is refused naming ownership, also at
# paranoid -1.  A throwaway user runs these; the sysctl is restored at exit.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd useradd
need_cmd setpriv
need_cmd unzip

user=pcnr$$
useradd -M -N -s /bin/sh "$user" 2>/dev/null || skip "cannot add a user here (useradd failed): run as root with a writable /etc/passwd"
# Its processes end before it goes (userdel refuses a user that still runs something).
remove_user() {
	[ -n "${hot:-}" ] && kill "$hot" 2>/dev/null && wait "$hot" 2>/dev/null
	userdel "$user" 2>/dev/null
}
cleanup_hooks+=(remove_user)
uid=$(id -u "$user")
gid=$(id -g "$user")
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
cleanup_hooks+=("sysctl -q kernel.perf_event_paranoid=$paranoid")
# The binaries, where the user can run them; a directory the user owns for the traces.
chmod 755 "$T"
cp "$PC" "$T/perfcollect-c"
cp "$WORKLOADS/hot" "$T/hot"
mkdir "$T/u" && chown "$uid:$gid" "$T/u"
as_user() { (cd "$T/u" && exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --reset-env "$@"); }

sysctl -q kernel.perf_event_paranoid=2
# Their own process.
(cd "$T/u" && exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --reset-env "$T/hot" 30) &
hot=$!
wait_until 10 grep -qx hot "/proc/$hot/comm" || fail "the user's workload did not start"
as_user "$T/perfcollect-c" collect own -pid "$hot" -collectsec 1 2>own.err
rc=$?
cat own.err
check "own process at paranoid 2: exit 0" test "$rc" -eq 0
check "own process: one line saying kernel frames are off and how to get them" \
	test "$(grep -c 'kernel frames are off: kernel.perf_event_paranoid is 2.*CAP_PERFMON' own.err)" -eq 1
check "own process: no other warning about kernel addresses" bash -c "! grep -q 'kernel addresses' own.err"
(cd "$T/u" && unzip -q own.trace.zip) || fail "own: unzip"
data=$T/u/own.trace/perf.data
check "own process: perf.data says user space only (exclude_kernel)" \
	bash -c "perf evlist -v -i '$data' 2>/dev/null | grep -q 'exclude_kernel: 1'"
perf script -i "$data" -F ip,sym,dso >own.txt 2>/dev/null
n=$(grep -c 'hot_leaf' own.txt)
check "own process: user-space samples with hot_leaf named ($n)" test "$n" -gt 0
check "own process: no kernel frames" bash -c "! grep -q 'kernel.kallsyms' own.txt"

# All CPUs: refused, naming the sysctl and what to do.
as_user "$T/perfcollect-c" collect all -collectsec 1 2>all.err
rc=$?
cat all.err
check "all CPUs at paranoid 2: refused (exit 1), one line" test "$rc" -eq 1 -a "$(wc -l <all.err)" -eq 1
check "all CPUs: ... naming kernel.perf_event_paranoid and CAP_PERFMON" \
	grep -q 'kernel.perf_event_paranoid is 2.*CAP_PERFMON' all.err
check "all CPUs: nothing left behind" test ! -e "$T/u/all.trace" -a ! -e "$T/u/all.trace.zip"

# -offcpu: tracefs is there but closed to them.
tfs=/sys/kernel/tracing
if [ -d "$tfs/events" ] && ! as_user test -r "$tfs/events/header_page"; then
	as_user "$T/perfcollect-c" collect off -pid "$hot" -offcpu -collectsec 1 2>off.err
	cat off.err
	check "-offcpu: refused, saying tracefs is mounted but closed (not 'not mounted')" \
		bash -c "grep -q 'tracefs at $tfs is mounted but you may not read it' off.err && ! grep -q 'not mounted' off.err"
fi

# Another user's process (root's), also where paranoid allows everything else.
sleep 30 &
rootproc=$!
cleanup_hooks+=("kill $rootproc 2>/dev/null")
for level in 2 -1; do
	sysctl -q kernel.perf_event_paranoid=$level
	as_user "$T/perfcollect-c" collect other -pid "$rootproc" -collectsec 1 2>other.err
	rc=$?
	sysctl -q kernel.perf_event_paranoid="$paranoid"
	cat other.err
	check "root's process at paranoid $level: refused (exit 1)" test "$rc" -eq 1
	check "root's process at paranoid $level: ... naming ownership and CAP_SYS_PTRACE, not paranoid" \
		bash -c "grep -q 'belongs to uid 0 and you are uid $uid.*CAP_SYS_PTRACE' other.err && ! grep -q paranoid other.err"
done
finish
