#!/bin/bash
# Symbols of a real .NET app's runtime (lib/symbols/symsrv.h): the installed runtime's
# libcoreclr.so is stripped and its symbols are on Microsoft's server only (not reachable
# here).  A local server standing in for it (PERFCOLLECT_C_MS_SYMBOL_SERVER) records what it is
# asked: libcoreclr.so's exact SSQP keys from its build-id, once each; only the runtime's own
# files are asked of it; a second collection asks none of them again (the misses are
# remembered in the cache); the log says which runtime files stay unnamed and why.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_cmd python3
need_cmd readelf
need_cmd unzip
need_dotnet_app

start_symbol_server ms notfound
export PERFCOLLECT_C_MS_SYMBOL_SERVER=http://127.0.0.1:$srv_port
start_app 30
coreclr=$(awk '$6 ~ /\/libcoreclr\.so$/ {print $6; exit}' /proc/$APP_PID/maps)
check "the app maps libcoreclr.so ($coreclr)" test -n "$coreclr"
id=$(readelf -n "$coreclr" | awk '/Build ID/ {print $3}')
check "libcoreclr.so is stripped, build-id $id" bash -c "[ ${#id} = 40 ] && ! readelf -S '$coreclr' | grep -q '\.symtab'"

"$PC" collect c1 -pid "$APP_PID" -collectsec 2 -symbolcache "$T/cache" >c1.out 2>&1
check "collect exits 0" test $? = 0
unzip -q -o c1.trace.zip
check "libcoreclr.so has frames in the trace" grep -q "(${coreclr})$" c1.trace/perf.data.txt
check "asked for libcoreclr.so.dbg/elf-buildid-sym-$id/libcoreclr.so.dbg once" \
	test "$(grep -cx "/libcoreclr.so.dbg/elf-buildid-sym-$id/libcoreclr.so.dbg" ms.log)" = 1
check "asked for _.debug/elf-buildid-sym-$id/_.debug once" \
	test "$(grep -cx "/_.debug/elf-buildid-sym-$id/_.debug" ms.log)" = 1
# Every file asked by name is one of the runtime's own, and each was asked by its build-id
# too (the name-less key).
# (SSQP keys are lower case)
runtime='^/(libcoreclr\.so|libclrjit\.so|libhostfxr\.so|libhostpolicy\.so|dotnet|libsystem\.[a-z.]+\.so|libclrgc\.so|libmscordaccore\.so|libmscordbi\.so)\.dbg/'
check "only the runtime's files were asked of Microsoft's server: $(grep '\.dbg/' ms.log | grep -vE "$runtime" | head -3)" \
	test -z "$(grep '\.dbg/' ms.log | grep -vE "$runtime")"
check "each by both keys ($(grep -c . ms.log) requests)" \
	test "$(grep -c '^/_\.debug/' ms.log)" = "$(grep -c '\.dbg/' ms.log)"
check "the log says libcoreclr.so stays unnamed, and why" \
	grep -q "stay unnamed.*libcoreclr.so (build-id ${id:0:8}\.\.\., no symbols: not on 127.0.0.1:$srv_port" c1.trace/perfcollect.log
asked=$(wc -l <ms.log)

"$PC" collect c2 -pid "$APP_PID" -collectsec 2 -symbolcache "$T/cache" >c2.out 2>&1
check "a second collection exits 0" test $? = 0
check "and asks no key again ($asked requests before, $(wc -l <ms.log) now; twice: $(sort ms.log | uniq -d | head -2))" \
	test -z "$(sort ms.log | uniq -d)"
check "libcoreclr.so's keys still asked once each" \
	test "$(grep -c "elf-buildid-sym-$id/" ms.log)" = 2
unzip -q -o c2.trace.zip
check "its log says the server had nothing within the hour" \
	grep -q "libcoreclr.so (build-id ${id:0:8}\.\.\., no symbols: not on 127.0.0.1:$srv_port (asked within the hour)" c2.trace/perfcollect.log
finish
