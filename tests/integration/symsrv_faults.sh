#!/bin/bash
# Symbol servers that fail (lib/symbols/symsrv.h): one that never answers, one that trickles
# a byte a second, one that sends a file of another build-id, one that sends something not
# ELF, one that sends 2 GB (declared, and undeclared: streamed, never a file on the server),
# and a port where nothing listens.  Each time the collection ends within the time it takes
# without a server plus the deadline (-symboltimeout 3), exits 0 with its zip, names nothing
# wrong, keeps nothing of the answer in the cache, and its log says why the file stayed
# unnamed.  A slow download from a server that can resume it is kept and goes on in the next
# collection.
source "$(dirname "$0")/lib.sh"
stripped_symlib
objcopy --only-keep-debug "$WORKLOADS/hot" other.debug
head -c 100000 /dev/urandom >garbage.bin
DEADLINE=3

# record NAME ARGS...: collect -pid of symlib_main for 2 s; sets secs (the collection's
# wall time).
record() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$T/app app/symlib_main 60 &
	local app=$! t0=$EPOCHREALTIME rc=0
	cleanup_hooks+=("kill $app 2>/dev/null")
	"$PC" collect "$name" -pid $app -collectsec 2 -symbolcache "$T/cache-$name" "$@" >"$name.out" 2>&1 || rc=$?
	secs=$(echo "$EPOCHREALTIME - $t0" | bc)
	kill $app
	wait $app
	check "$name: collect exits 0 ($rc) and writes its zip" test $rc = 0 -a -s "$name.trace.zip"
	rm -rf x && mkdir x && (cd x && unzip -q ../"$name.trace.zip") && mv x/*.trace "$name.trace"
}
named() { # samples whose leaf in libsymlib.so names anything but [unknown] or its export
	awk 'BEGIN { RS = "" } { split($0, l, "\n")
		if (l[2] ~ /\/libsymlib\.so\)$/ && l[2] !~ / (symlib_run|\[unknown\])\+?[0-9a-fx]* \(/) n++
	} END { print n + 0 }' "$1.trace/perf.data.txt"
}

record base
base=$secs
check "base: without a server nothing is named in the library ($(named base))" test "$(named base)" = 0
# The deadline bounds the fetch (the log's "fetched in S s": at most DEADLINE + 0.5); the
# whole collection may take as long again as the base one besides, for a busy machine's
# noise (a sanitizer build at load 15 took 3 s more than the base one).
limit=$(echo "2 * $base + $DEADLINE + 2.5" | bc)
fetch_limit=$(echo "$DEADLINE + 0.5" | bc)
echo "note: without a server the collection took $base s; with a failing one it may take $limit s"

# fault NAME MODE [ARG]: a collection against server.py MODE; what must hold of it.
fault() {
	local name=$1
	shift
	start_symbol_server "$name" "$@"
	record "$name" -symbolserver "http://127.0.0.1:$srv_port" -symboltimeout $DEADLINE
	kill $srv_pid 2>/dev/null
	check "$name: done in $secs s (<= $limit)" test "$(echo "$secs <= $limit" | bc)" = 1
	local fetch
	fetch=$(grep -o "fetched in [0-9.]* s" "$name.trace/perfcollect.log" | awk '{print $3}')
	check "$name: the fetch ended in ${fetch:-?} s (<= $fetch_limit)" \
		test -n "$fetch" -a "$(echo "${fetch:-0} <= $fetch_limit" | bc)" = 1
	check "$name: nothing named wrong ($(named $name))" test "$(named $name)" = 0
	check "$name: nothing kept in the cache: $(find cache-$name -type f ! -path '*/.misses/*' | head -3)" \
		test -z "$(find "cache-$name" -type f ! -path '*/.misses/*')"
	check "$name: the log says why the library stays unnamed" \
		grep -q "stay unnamed.*libsymlib.so (build-id [0-9a-f.]*, no symbols: .*127.0.0.1:$srv_port" "$name.trace/perfcollect.log" ||
		grep -E "symbol|build-ids|samples" "$name.trace/perfcollect.log" | cut -c1-300
	grep -o "libsymlib.so (build-id [^)]*)" "$name.trace/perfcollect.log" | head -1 | sed "s/^/note: $name: /"
}

fault hang hang
fault trickle trickle "$T/libsymlib.debug"
fault wrongid file "$T/other.debug"
check "wrongid: the log names the build-id it sent" grep -q "sent a file that is not it: its build-id is" wrongid.trace/perfcollect.log
fault garbage file "$T/garbage.bin"
check "garbage: refused as not ELF" grep -q "sent something that is not ELF" garbage.trace/perfcollect.log
fault huge huge
check "huge: refused as too large" grep -q "larger than" huge.trace/perfcollect.log
fault stream huge-nolen

# A download the deadline cuts is kept and goes on in the next collection (a Range request),
# until it is whole: then it is checked and used like any other.
start_symbol_server slow slow "$T/libsymlib.debug"
record slow1 -symbolserver "http://127.0.0.1:$srv_port" -symboltimeout 2 -symbolcache "$T/cache-slow"
check "slow: not whole after 2 s: not named ($(named slow1))" test "$(named slow1)" = 0
check "slow: what came is kept for the next run" grep -q "MiB kept for the next run" slow1.trace/perfcollect.log ||
	grep -E "symbol" slow1.trace/perfcollect.log | cut -c1-400
for i in 2 3 4 5; do
	record slow$i -symbolserver "http://127.0.0.1:$srv_port" -symboltimeout 2 -symbolcache "$T/cache-slow"
	grep -q "libsymlib.so: [0-9]* from symbol cache" slow$i.trace/perfcollect.log && break
done
check "slow: whole after $i collections, the library is named" \
	grep -q "libsymlib.so: [0-9]* from symbol cache" slow$i.trace/perfcollect.log
check "slow: the later ones went on from where the earlier stopped" grep -q " bytes=[1-9][0-9]*-$" slow.log
kill $srv_pid

# Nothing listens: connection refused, at once, and remembered for the next collection.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
record refused -symbolserver "http://127.0.0.1:$port" -symboltimeout $DEADLINE
check "refused: done in $secs s (<= $limit)" test "$(echo "$secs <= $limit" | bc)" = 1
check "refused: the log says it was unreachable" grep -q "127.0.0.1:$port unreachable" refused.trace/perfcollect.log
check "refused: remembered as unreachable" test -e "cache-refused/.misses/127.0.0.1_$port/.unreachable"
finish
