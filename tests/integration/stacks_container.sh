#!/bin/bash
# `stacks` on a target in its own PID and mount namespace with a private /tmp (a container
# without a container engine): the binary runs from a path that exists only inside it, the
# mutex holds namespace TIDs, JIT maps live in the container's /tmp.  The report must
# resolve all of that as seen from the host.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "stacks needs root (ptrace, namespaces): run the tests as root"
need_cmd unshare
[ -x "$WORKLOADS/deadlock" ] || skip "tests/workloads/deadlock is not built: ninja -C build builds it"
[ -e /tmp/app/deadlock ] && skip "/tmp/app/deadlock exists on the host; the test needs it not to: remove it"

# Runs "$@" as PID 1 of a new PID namespace whose /tmp is a fresh tmpfs; cwd stays $T (the
# old /tmp below the tmpfs is still reachable through it).  Sets u to unshare's PID; killing
# unshare kills the container (--kill-child), which a plain --fork would leave running.
in_container() {
	unshare --pid --fork --kill-child --mount --mount-proc --propagation private \
		sh -c 'cd "$1" && mount -t tmpfs none /tmp && shift && exec "$@"' _ "$T" "$@" \
		>"$T/container.out" 2>&1 &
	u=$!
}
# The host PID of the container's PID 1 (the child of unshare).
container_pid1() {
	local c
	c=$(cat /proc/$1/task/$1/children 2>/dev/null) && [ -n "$c" ] && echo ${c%% *}
}
ns_to_host_tid() { # PID NSTID
	local f
	for f in /proc/$1/task/*/status; do
		[ "$(awk '/^NSpid:/{print $NF}' $f)" = "$2" ] && basename "$(dirname $f)" && return
	done
}

cp "$WORKLOADS/deadlock" "$T/deadlock.bin"
WAITERS=4
in_container sh -c 'mkdir /tmp/app && cp deadlock.bin /tmp/app/deadlock &&
	ln -s /etc/passwd /tmp/perf-1.map && exec /tmp/app/deadlock '$WAITERS' ready'
cleanup_hooks+=("kill -9 $u 2>/dev/null")
wait_until 30 test -s "$T/ready" || { fail "container never got ready: $(cat container.out)"; finish; }
pid=$(container_pid1 $u)
read -r owner_ns wfd <"$T/ready"
owner=$(ns_to_host_tid $pid $owner_ns)
check "the workload is PID 1 of its namespace, the owner has a namespace TID ($owner_ns != $owner)" \
	bash -c '[ "$(awk "/^NSpid:/{print \$NF}" /proc/'$pid'/status)" = 1 ] && [ "'$owner_ns'" != "'$owner'" ]'

$PC stacks -pid $pid >out.txt 2>err.txt
check "stacks exits 0 (stderr: $(head -c 300 err.txt))" [ $? = 0 ]
check "the header gives the PID inside the namespace" \
	grep -q "^Process $pid (deadlock): $((WAITERS + 2)) threads, PID 1 in its namespace" out.txt
check "the owner is named by its host TID $owner (the mutex stores $owner_ns)" \
	grep -Eq "^  $WAITERS threads wait for mutex 0x[0-9a-f]+ held by TID $owner \(deadlock\)$" out.txt
check "the waiters are one group of $WAITERS" [ "$(grep -c "^$WAITERS threads: " out.txt)" = 1 ]
owner_sec=$(awk '/^Owner of mutex/{on=1} on&&/^$/{exit} on' out.txt)
check "symbols come from /tmp/app/deadlock, a file only the container has" \
	grep -q " wait_for_input+0x[0-9a-f]* (/tmp/app/deadlock) at deadlock.c:" <<<"$owner_sec"
check "the owner's kernel stack is in the pipe read" grep -Eq '^    (anon_)?pipe_read\+0x' <<<"$owner_sec"
check "a perf map planted as a symlink in the container is refused, and said so" \
	grep -q "^Perf map: not using /tmp/perf-1.map: is a symlink" out.txt

echo x >/proc/$pid/fd/$wfd
gone() { ! kill -0 $u 2>/dev/null || grep -q '^State:[[:space:]]*Z' /proc/$u/status; }
wait_until 20 gone || kill -9 $u
wait $u
rc=$?
check "the containerized workload finishes normally (exit $rc: $(cat container.out))" [ $rc = 0 ]

# JIT code: node writes /tmp/perf-1.map into the container's own /tmp; the script, too,
# lives only there.
if command -v node >/dev/null; then
	cat >"$T/spin.js" <<'EOF'
function spin(n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i); return x; }
let s = 0;
for (;;) s += spin(1e6);
EOF
	in_container sh -c 'cp spin.js /tmp/spin.js && exec node --perf-basic-prof /tmp/spin.js'
	cleanup_hooks+=("kill -9 $u 2>/dev/null")
	jit_ready() {
		pid=$(container_pid1 $u) && grep -q 'spin\.js' /proc/$pid/root/tmp/perf-1.map 2>/dev/null
	}
	if wait_until 30 jit_ready; then
		check "the host has no /tmp/perf-1.map of its own to confuse things" \
			bash -c '! grep -qs "spin\.js" /tmp/perf-1.map'
		$PC stacks -pid $pid >jit.txt 2>jit.err
		check "node: stacks exits 0" [ $? = 0 ]
		check "node: the perf map inside the container is used" \
			grep -q "^JIT frames named from /tmp/perf-1.map" jit.txt
		main_sec=$(awk "/^1 thread: $pid /{on=1} on&&/^\$/{exit} on" jit.txt)
		check "node: the main thread has JS frames of spin.js named from that map" \
			grep -Eq " 0x[0-9a-f]+ [^ ]*JS:.*spin\.js.* \(/tmp/perf-1\.map\)$" <<<"$main_sec"
		check "node: unwinding goes on through the JIT frames into node itself" \
			grep -q "(/usr/bin/node)\|(/usr/.*/node)" <<<"$main_sec"
	else
		fail "node never wrote spin.js into its perf map: $(cat container.out)"
	fi
	kill -9 $pid $u 2>/dev/null
	wait $u 2>/dev/null
	check "node: the container is gone after the test" wait_until 10 bash -c "! kill -0 $pid 2>/dev/null"
else
	echo "node is not installed: JIT part not run"
fi
finish
