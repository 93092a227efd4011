# Containers without a container engine, for tests/integration/container_*.sh (sourced after
# lib.sh): each is a new PID and mount namespace with a private tmpfs on /tmp, as a sidecar
# sees an application container that shares its PID namespace but not its files.

need_containers() {
	need_root
	need_cmd unshare
	unshare --pid --fork --mount --mount-proc --propagation private true 2>/dev/null ||
		skip "cannot create PID and mount namespaces here (unshare failed)"
}

# start_container NAME SCRIPT: runs `sh -c SCRIPT` as PID 1 of a new container whose /tmp is a
# fresh tmpfs.  The shell starts in $T, so `cp x.js /tmp/` moves files from the test's scratch
# directory (reachable as the working directory, hidden as a /tmp path) into the container.
# SCRIPT should end with `exec PROGRAM` so PROGRAM is PID 1.  Sets NAME_u to unshare's PID.
start_container() {
	local name=$1 script=$2
	unshare --pid --fork --kill-child --mount --mount-proc --propagation private \
		sh -c 'cd "$1" && mount -t tmpfs tmpfs /tmp && eval "$2"' _ "$T" "$script" \
		>"$T/$name.out" 2>&1 &
	eval "${name}_u=$!"
	# PID 1 first: it takes the whole namespace with it (--kill-child alone is not enough
	# once PID 1 changed its user, which clears the parent-death signal).
	cleanup_hooks+=("kill -9 \$(container_pid1 $!) $! 2>/dev/null; wait $! 2>/dev/null")
}

# The host PID of the container's PID 1 (the child of unshare), once it exists.
container_pid1() { # UNSHARE_PID
	local c
	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null) && [ -n "$c" ] && echo "${c%% *}"
}

# The PID a process has in its own (innermost) PID namespace.
ns_pid() { awk '/^NSpid:/{print $NF}' "/proc/$1/status"; }

# js_spinner NAME FILE: a node script whose hot function is NAME_spin.
js_spinner() {
	cat >"$2" <<JS
function $1_spin(n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i); return x; }
let s = 0;
for (;;) s += $1_spin(1e6);
JS
}
