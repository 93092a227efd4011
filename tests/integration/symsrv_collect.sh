#!/bin/bash
# Symbols from symbol servers (lib/symbols/symsrv.h) against real HTTP servers on 127.0.0.1:
# libsymlib.so, stripped, has its hot functions static (named by its .symtab only); its
# debug file is only on the server.  They are named in >= 80 % of the library's samples
# fetched both ways (SSQP: python3 -m http.server over a directory laid out by SSQP keys;
# debuginfod: a small server of its layout), and not without a server; then from the cache
# with the server gone; -nosymbolserver asks nothing; a miss is asked once; a zip collected
# without a server is named later by merge (perf.data.txt and the .nettrace), the binary
# fetched too where the machine lacks it; view names the build-id of what stays unnamed; a
# sidecar fetches by what it reads through /proc/<pid>/root; the static binary fetches too.
source "$(dirname "$0")/lib.sh"
stripped_symlib
id=$symlib_id
mkdir ssqp dinfo
check "the stripped library has a build-id ($id)" test ${#id} -eq 40
check "its static functions are in its debug file only" \
	bash -c "! readelf -s app/libsymlib.so | grep -q symlib_spin_inner && readelf -s libsymlib.debug | grep -q symlib_spin_inner"
mkdir -p "ssqp/_.debug/elf-buildid-sym-$id" "dinfo/$id"
cp libsymlib.debug "ssqp/_.debug/elf-buildid-sym-$id/_.debug"
cp libsymlib.debug "dinfo/$id/debuginfo"

# record NAME ARGS...: collect -pid of symlib_main (the stripped library from app/) with ARGS.
record() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$T/app app/symlib_main 60 &
	local app=$!
	cleanup_hooks+=("kill $app 2>/dev/null")
	"$PC" collect "$name" -pid $app -collectsec 2 "$@" >"$name.out" 2>&1 || fail "$name: collect failed: $(tail -2 $name.out)"
	kill $app
	wait $app
	extract "$name"
}
extract() { # extract NAME: NAME.trace/ from NAME.trace.zip (entries named by the zip's trace)
	rm -rf "$1.trace" x && mkdir x && (cd x && unzip -q ../"$1.trace.zip") && mv x/*.trace "$1.trace" && rm -rf x
}
# named NAME: % of the samples whose leaf is in libsymlib.so that name one of its static
# functions there ("-" when it has no such samples).
named() {
	awk 'BEGIN { RS = "" } {
		split($0, l, "\n"); leaf = l[2]
		if (leaf !~ /\(.*\/libsymlib\.so\)$/) next
		total++
		if (leaf ~ / symlib_spin_(inner|outer)\+?[0-9a-fx]* \(/) n++
	} END { if (total) printf "%d\n", 100 * n / total; else print "-" }' "$1.trace/perf.data.txt"
}
# wrong NAME: samples whose leaf in libsymlib.so names anything else than its functions.
wrong() {
	awk 'BEGIN { RS = "" } { split($0, l, "\n"); leaf = l[2]
		if (leaf ~ /\/libsymlib\.so\)$/ && leaf !~ / (symlib_[a-z_]+|\[unknown\])\+?[0-9a-fx]* \(/) n++
	} END { print n + 0 }' "$1.trace/perf.data.txt"
}
log_of() { cat "$1.trace/perfcollect.log"; }

record none -symbolcache "$T/cache-none"
p=$(named none)
check "no server: the static functions are not named ($p % of the library's samples)" test "$p" = 0
check "no server: the log says why" grep -q "libsymlib.so (build-id ${id:0:8}.*no symbol server for it" none.trace/perfcollect.log

start_ssqp_server ssqp ssqp
ssqp_url=http://127.0.0.1:$srv_port
ssqp_pid=$srv_pid
record ssqp -symbolserver "$ssqp_url" -symbolcache "$T/cache-ssqp"
p=$(named ssqp)
check "SSQP: the static functions are named in $p % of the library's samples" test "$p" -ge 80
check "SSQP: nothing is named wrong ($(wrong ssqp))" test "$(wrong ssqp)" = 0
check "SSQP: the server was asked the file's keys" \
	grep -q "GET /libsymlib.so.dbg/elf-buildid-sym-$id/libsymlib.so.dbg .* 404" ssqp.log
check "SSQP: ... and answered the name-less one" grep -q "GET /_.debug/elf-buildid-sym-$id/_.debug .* 200" ssqp.log
check "SSQP: stored in the cache by its key" test -s "cache-ssqp/_.debug/elf-buildid-sym-$id/_.debug"
check "SSQP: the log says where the symbols came from" grep -q "libsymlib.so: [0-9]* from symbol cache" ssqp.trace/perfcollect.log

kill $ssqp_pid
wait $ssqp_pid 2>/dev/null
record cached -symbolserver "$ssqp_url" -symbolcache "$T/cache-ssqp"
p=$(named cached)
check "cache, the server stopped: named in $p % of the library's samples" test "$p" -ge 80

start_ssqp_server quiet ssqp
before=$(grep -c GET quiet.log)
PERFCOLLECT_C_MS_SYMBOL_SERVER=http://127.0.0.1:$srv_port DEBUGINFOD_URLS=http://127.0.0.1:$srv_port \
	record nosrv -nosymbolserver -symbolcache "$T/cache-nosrv"
check "-nosymbolserver: the server got no request" test "$(grep -c GET quiet.log)" = "$before"
check "-nosymbolserver: not named ($(named nosrv) %)" test "$(named nosrv)" = 0
quiet_url=http://127.0.0.1:$srv_port

start_symbol_server dinfo debuginfod "$T/dinfo"
DEBUGINFOD_URLS="http://127.0.0.1:$srv_port" record dinfo -symbolcache "$T/cache-dinfo"
p=$(named dinfo)
check "debuginfod: named in $p % of the library's samples" test "$p" -ge 80
check "debuginfod: asked /buildid/$id/debuginfo" grep -qx "/buildid/$id/debuginfo" dinfo.log

start_symbol_server miss notfound
miss_url=http://127.0.0.1:$srv_port
record miss1 -symbolserver "$miss_url" -symbolcache "$T/cache-miss"
record miss2 -symbolserver "$miss_url" -symbolcache "$T/cache-miss"
check "a miss is asked once in two collections (each key: $(sort miss.log | uniq -c | awk '{print $1}' | tr '\n' ' '))" \
	test "$(sort miss.log | uniq -c | awk '$1 != 1' | wc -l)" = 0 -a "$(wc -l <miss.log)" = 2
check "a miss: the log says the server had nothing" grep -q "not on 127.0.0.1:$srv_port" miss1.trace/perfcollect.log

# Later, elsewhere: the zip collected without a server, merged where one is reachable.
"$PC" view none.trace.zip -top 3 >none.view 2>none.verr
check "view: says the unnamed frames' file and build-id" grep -q "libsymlib.so [0-9]* (build-id $id)" none.verr
"$PC" merge none.trace.zip -symbolserver "$quiet_url" -symbolcache "$T/cache-later" -o later.trace.zip >later.out 2>&1 ||
	fail "merge with a server: $(cat later.out)"
extract later
p=$(named later)
check "merge later: perf.data.txt names them in $p % of the library's samples" test "$p" -ge 80
check "merge later: the .nettrace's symbol events name them too" grep -qa symlib_spin_inner later.nettrace
check "merge later: the .nettrace collected without a server did not" bash -c "! grep -qa symlib_spin_inner none.nettrace"

# Elsewhere, without the binary: it is fetched by its build-id too.
mkdir -p "ssqp/libsymlib.so/elf-buildid-$id"
cp app/libsymlib.so "ssqp/libsymlib.so/elf-buildid-$id/libsymlib.so"
mv app app.away
"$PC" merge none.trace.zip -symbolserver "$quiet_url" -symbolcache "$T/cache-away" -o away.trace.zip >away.out 2>&1 ||
	fail "merge without the binary: $(cat away.out)"
extract away
p=$(named away)
check "merge without the binary: named in $p % of the library's samples" test "$p" -ge 80
check "merge without the binary: the binary came from the server" grep -q "GET /libsymlib.so/elf-buildid-$id/libsymlib.so .* 200" quiet.log
check "merge without the binary: the log says so" grep -q "the binary of build-id $id from" away.trace/perfcollect.log
mv app.away app

# A sidecar: the library sits in a directory only the app's mount namespace has (a tmpfs
# there, empty here), so the collector reads it, its build-id and its lack of symbols
# through /proc/<pid>/root: the debug file is fetched, the binary is not (it is there).
need_cmd unshare
mkdir ctr
unshare --mount --propagation private sh -c \
	'mount -t tmpfs none "$1" && cp "$2"/* "$1"/ && LD_LIBRARY_PATH=$1 exec "$1"/symlib_main 20' \
	_ "$T/ctr" "$T/app" &
ctr_app=$!
cleanup_hooks+=("kill $ctr_app 2>/dev/null")
wait_until 10 grep -q "$T/ctr/libsymlib.so" /proc/$ctr_app/maps || fail "the contained app did not start"
check "the library is not there for the host" test ! -e ctr/libsymlib.so
: >quiet.log
"$PC" collect sidecar -pid $ctr_app -collectsec 2 -symbolserver "$quiet_url" -symbolcache "$T/cache-sidecar" >sidecar.out 2>&1 ||
	fail "sidecar: $(cat sidecar.out)"
kill $ctr_app
wait $ctr_app
extract sidecar
p=$(named sidecar)
check "sidecar: named in $p % of the library's samples" test "$p" -ge 80
check "sidecar: its debug file was fetched by the build-id read in the app's root" \
	grep -q "GET /_.debug/elf-buildid-sym-$id/_.debug .* 200" quiet.log
check "sidecar: its binary was not asked for: $(grep elf-buildid- quiet.log | grep -v sym- | head -1)" \
	bash -c "! grep elf-buildid- quiet.log | grep -qv sym-"

# The static binary (scripts/build-static) fetches over http as well.
BIN=$TEST_SRCDIR/../build-static/perfcollect-c
if [ -x "$BIN" ]; then
	"$BIN" merge none.trace.zip -symbolserver "$quiet_url" -symbolcache "$T/cache-static" -o static.trace.zip >static.out 2>&1 ||
		fail "static merge: $(cat static.out)"
	extract static
	p=$(named static)
	check "the static binary: named in $p % of the library's samples" test "$p" -ge 80
else
	echo "note: build-static/perfcollect-c is absent: the static binary's fetch is not tried"
fi
finish
