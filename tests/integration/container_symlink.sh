#!/bin/bash
# A hostile container attacks the collector (root on the host) through its JIT map names.
# Container A plants /tmp/perf-1.map as a symlink to a host file holding a secret (a path
# the container itself cannot see: its /tmp is a tmpfs, so only a collector resolving the
# link from the host would reach it); B (node running as nobody) offers a regular map owned
# by another user; C makes its map a FIFO, to hang a careless reader.  All three run JIT
# code, so the symbolizer looks for their maps.  Not one byte of the secrets may reach the
# archive, collect must not hang, and perfcollect.log says each map was refused and why.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container/helpers.sh"
need_containers
need_cmd node
need_cmd unzip
need_cmd setpriv

marker=SECRET-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
echo "host-only $marker" >"$T/secret"
chmod 600 "$T/secret"
marker2=OTHERUSER-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
js_spinner attackA a.js
js_spinner attackB b.js
js_spinner attackC c.js
chmod 644 a.js b.js c.js
# No --perf-basic-prof: node would write through the planted link.
start_container A 'cp a.js /tmp/ && ln -s "'"$T"'/secret" /tmp/perf-1.map && exec node /tmp/a.js'
start_container B 'cp b.js /tmp/ && echo "7f0000000000 100 '"$marker2"'" >/tmp/perf-1.map &&
	chown 12345 /tmp/perf-1.map && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
	node /tmp/b.js'
start_container C 'cp c.js /tmp/ && mkfifo /tmp/perf-1.map && exec node /tmp/c.js'

A='' B='' C=''
ready() { # NAME
	local u p
	eval "u=\$${1}_u"
	p=$(container_pid1 "$u") && [ "$(ns_pid "$p")" = 1 ] &&
		[ "$(cat /proc/$p/comm 2>/dev/null)" = node ] || return 1
	eval "$1=$p"
}
for c in A B C; do
	wait_until 30 ready $c || { fail "container $c not ready: $(cat $c.out)"; finish; }
done
echo "host PIDs: A=$A B=$B C=$C"
check "A's map is a symlink to the host-only secret, which A cannot see" bash -c \
	"[ -L /proc/$A/root/tmp/perf-1.map ] && ! nsenter -t $A -m cat $T/secret 2>/dev/null"
check "B runs as uid 65534, its map belongs to uid 12345" bash -c \
	"[ \$(awk '/^Uid:/{print \$2}' /proc/$B/status) = 65534 ] &&
	[ \$(stat -c %u /proc/$B/root/tmp/perf-1.map) = 12345 ]"
no_secret_in() { # ZIP
	local n
	n=$(unzip -p "$1" | grep -a -c -e "$marker" -e "$marker2" -e "host-only")
	echo "$1: $n line(s) with a secret"
	[ "$n" = 0 ]
}

"$PC" collect atk -collectsec 1 2>atk.err &
pc=$!
if ! wait_until 60 bash -c "! kill -0 $pc 2>/dev/null"; then
	fail "collect hangs (a FIFO map?)"
	kill -9 $pc
fi
wait $pc
rc=$?
cat atk.err
check "collect (system-wide) exits 0" test "$rc" -eq 0
check "no byte of any secret in the archive" no_secret_in atk.trace.zip
unzip -Z1 atk.trace.zip >atk.list
for p in $A $B $C; do
	check "no perf-$p.map in the archive" bash -c "! grep -q 'perf-$p.map' atk.list"
done
unzip -q -o atk.trace.zip atk.trace/perfcollect.log
log=atk.trace/perfcollect.log
check "log: A's map refused, it is a symlink" \
	grep -q "pid $A: JIT file refused: /tmp/perf-1.map: is a symlink" $log
check "log: B's map refused, owned by another user" \
	grep -q "pid $B: JIT file refused: /tmp/perf-1.map: owned by uid 12345, not the target's uid 65534" $log
check "log: C's map refused, not a regular file" \
	grep -q "pid $C: JIT file refused: /tmp/perf-1.map: not a regular file" $log
check "stderr warns of the refusal too" grep -q "JIT file refused: /tmp/perf-1.map: is a symlink" atk.err

# The sidecar's usual way, -pid.
"$PC" collect one -pid "$A" -collectsec 1 2>one.err
check "collect -pid $A exits 0" test $? -eq 0
check "-pid: no byte of the secret in the archive" no_secret_in one.trace.zip
check "-pid: the log says the map was refused and why" bash -c \
	"unzip -p one.trace.zip one.trace/perfcollect.log | grep -q 'pid $A: JIT file refused: /tmp/perf-1.map: is a symlink'"
finish
