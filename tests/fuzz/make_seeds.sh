#!/usr/bin/env bash
# Records the fuzz seeds again (tests/fuzz/README.md says what each is) into OUT (default:
# a new temporary directory; tests/fuzz/corpus to replace the committed ones).  Needs root,
# perf, node, the .NET SDK (the .NET 8 runtime pack comes from NuGet for perfinfo), python3,
# and a built build/ (the product and its test workloads).
#   tests/fuzz/make_seeds.sh [OUT]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d /tmp/pcseeds.XXXXXX)}
PC=$src/build/perfcollect-c HOT=$src/build/tests/workloads/hot BLK=$src/build/tests/workloads/blocker
w=$(mktemp -d /tmp/pcseeds-work.XXXXXX)
trap 'rm -rf "$w"' EXIT
cd "$w"
mkdir -p "$out"/{perfdata_read,perfmap,perfinfo,jitdump,archive,stackfile,dotnet_ipc,tracing_data}
mkdir -p "$out"/{eventpipe_session,proc_stat,clr_locks,proc_maps}
ln -sfn perfdata_read "$out/postprocess"
app_ready() { for _ in $(seq 300); do grep -q ready "$1" && return 0; sleep 0.1; done; return 1; }

# --- perf.data: ours ---
"$HOT" 3 2 & pid=$!; sleep 0.3
"$PC" collect ours_pid -pid $pid -collectsec 1 >/dev/null 2>&1; wait $pid
"$BLK" 5 5 40 wait & pid=$!; sleep 0.2
"$PC" collect ours_offcpu -pid $pid -offcpu >/dev/null 2>&1 & c=$!
sleep 1; kill -USR1 $pid; wait $pid; wait $c
sh -c "sleep 1.5; $HOT 0.3 2; true" & pid=$!
"$PC" collect ours_fork -pid $pid >/dev/null 2>&1; wait $pid
dll=$(sh "$src/tests/workloads/dotnet/build.sh")
DOTNET_PerfMapEnabled=1 dotnet "$dll" 3 >app.out 2>&1 & pid=$!; app_ready app.out
"$PC" collect ours_dotnet -pid $pid -collectsec 1 >/dev/null 2>&1; wait $pid
rm -f /tmp/perf-$pid.map /tmp/jit-$pid.dump /tmp/perfinfo-$pid.map
NOFP=$src/build/tests/workloads/nofp
"$NOFP" 2 & pid=$!; sleep 0.2
"$PC" collect ours_hybrid -pid $pid -collectsec 0.2 >/dev/null 2>&1
"$PC" collect ours_dwarf -pid $pid -collectsec 0.1 -callgraph dwarf,1K >/dev/null 2>&1; wait $pid
for n in ours_pid ours_offcpu ours_fork ours_dotnet ours_hybrid ours_dwarf; do
	unzip -oq $n.trace.zip
	cp $n.trace/perf.data "$out/perfdata_read/$n.data"
done
cp ours_pid.trace.zip "$out/archive/ours_pid.zip"
cp ours_offcpu.trace.zip "$out/archive/ours_offcpu.zip"

# --- perf.data: perf's ---
pr() { perf record -q "$@" >/dev/null 2>&1; }
pr -g -F 999 -o perf_g.data -- "$HOT" 0.3
pr -g -z -F 999 -o perf_z.data -- "$HOT" 0.3
perf record -q -g -F 999 -o - -- "$HOT" 0.3 2>/dev/null >perf_pipe.data
perf record -q -z -g -F 499 -o - -- "$HOT" 0.2 2 2>/dev/null >perf_z_pipe.data
python3 "$src/tests/fuzz/zstd_raw.py" perf_z_pipe.data perf_z_pipe_raw.data
pr -e sched:sched_switch -e sched:sched_wakeup -g -o perf_tp.data -- "$BLK" 5 5 20
perf record -q -e sched:sched_switch -g -o - -- "$BLK" 5 5 10 2>/dev/null >perf_tp_pipe.data
pr -g -F 499 -o perf_fork.data -- sh -c "$HOT 0.2 2; true"
"$HOT" 2 & pid=$!; sleep 0.2; pr -F 999 -p $pid -o perf_p.data -- sleep 0.3; wait $pid
pr --call-graph dwarf,1024 -F 499 -o perf_dwarf.data -- "$NOFP" 0.1
cp perf_*.data "$out/perfdata_read/"
"$PC" merge perf_tp.data -o tp.trace.zip >/dev/null 2>&1 && cp tp.trace.zip "$out/archive/tp.zip"

# --- perf script text ---
cut_text() { awk -v max="$3" '{print} /^$/ {if (bytes > max) exit} {bytes += length($0) + 1}' "$1" >"$2"; }
cut_text ours_offcpu.trace/perf.data.txt "$out/stackfile/ours_offcpu.txt" 30000
cut_text ours_pid.trace/perf.data.txt "$out/stackfile/ours_pid.txt" 20000
cut_text ours_dotnet.trace/perf.data.txt "$out/stackfile/ours_dotnet.txt" 30000
perf script -i perf_g.data -F comm,pid,tid,time,period,event,ip,sym,dso 2>/dev/null >g.txt
cut_text g.txt "$out/stackfile/perf_g.txt" 20000
perf script -i perf_tp.data -F comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace 2>/dev/null >tp.txt
cut_text tp.txt "$out/stackfile/perf_tp.txt" 20000
perf script -i perf_p.data 2>/dev/null | head -200 >"$out/stackfile/perf_p_default.txt"

# --- JIT side files ---
node_js='function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 300; let s = 0; while (Date.now() < end) s += fib(20);'
node --perf-basic-prof -e "$node_js" & pid=$!; wait $pid
head -300 /tmp/perf-$pid.map >"$out/perfmap/node.map"; rm -f /tmp/perf-$pid.map
head -300 ours_dotnet.trace/perf-*.map >"$out/perfmap/dotnet10.map"
cat >cut_jitdump.py <<'EOF'
import struct, sys  # cut_jitdump.py IN OUT MAXBYTES: the header and the records that fit
d = open(sys.argv[1], "rb").read(); at = struct.unpack_from("<I", d, 8)[0]
while at + 16 <= len(d):
    size = struct.unpack_from("<I", d, at + 4)[0]
    if size == 0 or at + size > int(sys.argv[3]): break
    at += size
open(sys.argv[2], "wb").write(d[:at])
EOF
python3 cut_jitdump.py ours_dotnet.trace/jit-*.dump "$out/jitdump/dotnet10.dump" 40000
# Code moves (JIT_CODE_MOVE): no runtime here writes them (.NET does not, V8's --perf-prof
# does not either), so the real .NET 10 dump gets moves of its first loads appended, some
# moved twice, some to where the first load was: the parser's move index (issue 24, finding
# 9) is fuzzed from a file it really reads.
cat >add_moves.py <<'EOF'
import struct, sys  # add_moves.py IN OUT: IN with JIT_CODE_MOVE records of its first loads
d = bytearray(open(sys.argv[1], "rb").read()); at = struct.unpack_from("<I", d, 8)[0]
loads = []
while at + 16 <= len(d):
    rid, size, ts = struct.unpack_from("<IIQ", d, at)
    if size < 16 or at + size > len(d): break
    if rid == 0: loads.append(struct.unpack_from("<IIQQQQ", d, at + 16) + (ts,))
    at += size
for k, (pid, tid, vma, addr, size, index, ts) in enumerate(loads[:40]):
    new = 0x7f0000000000 + k * 0x1000 if k % 7 else loads[0][3]
    d += struct.pack("<IIQIIQQQQQ", 1, 72, ts + 1, pid, tid, vma, addr, new, size, index)
    if k % 3 == 0:  # and on again
        d += struct.pack("<IIQIIQQQQQ", 1, 72, ts + 2, pid, tid, vma, new, new + 0x800000, size, index)
open(sys.argv[2], "wb").write(d)
EOF
python3 add_moves.py "$out/jitdump/dotnet10.dump" "$out/jitdump/dotnet10_moves.dump"
# .NET 8 still writes perfinfo-<pid>.map: a self-contained app on its runtime pack
mkdir net8 && cat >net8/h.csproj <<'EOF'
<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType>
<TargetFramework>net8.0</TargetFramework><RuntimeIdentifier>linux-x64</RuntimeIdentifier>
<SelfContained>true</SelfContained></PropertyGroup></Project>
EOF
cat >net8/Program.cs <<'EOF'
using System; using System.Linq;
class P { static void Main(string[] a) { var end = DateTime.Now.AddSeconds(double.Parse(a[0])); long s = 0; while (DateTime.Now < end) s += Enumerable.Range(0, 1000).Select(x => x * 3).Sum(); Console.WriteLine(s); } }
EOF
(cd net8 && dotnet publish -c Release -o out >/dev/null)
DOTNET_PerfMapEnabled=1 net8/out/h 0.5 >/dev/null & pid=$!; wait $pid
cp /tmp/perfinfo-$pid.map "$out/perfinfo/dotnet8.map"
head -300 /tmp/perf-$pid.map >"$out/perfmap/dotnet8.map"
python3 cut_jitdump.py /tmp/jit-$pid.dump "$out/jitdump/dotnet8.dump" 40000
rm -f /tmp/perf-$pid.map /tmp/perfinfo-$pid.map /tmp/jit-$pid.dump

# --- diagnostics IPC replies of a live runtime ---
cat >capture_ipc.py <<'EOF'
import glob, os, socket, struct, sys  # capture_ipc.py PID OUTDIR
pid, out = int(sys.argv[1]), sys.argv[2]
path = glob.glob("/tmp/dotnet-diagnostic-%d-*-socket" % pid)[0]
def call(name, cmdset, cmdid, payload=b"", magic=b"DOTNET_IPC_V1\0"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
    s.sendall(magic + struct.pack("<HBBH", 20 + len(payload), cmdset, cmdid, 0) + payload)
    data = b""
    while len(data) < 20 or len(data) < struct.unpack("<H", data[14:16])[0]:
        b = s.recv(65536)
        if not b: break
        data += b
    s.close(); open(os.path.join(out, name), "wb").write(data)
def utf16(s): return struct.pack("<I", len(s) + 1) + (s + "\0").encode("utf-16-le")
call("process_info2", 4, 4); call("process_info", 4, 0)
call("enable_perfmap", 4, 5, struct.pack("<I", 3)); call("disable_perfmap", 4, 6)
call("set_env", 4, 3, utf16("PC_FUZZ_SEED") + utf16("1"))
call("unknown_command", 4, 0x7f); call("unknown_commandset", 0x42, 1)
call("bad_magic", 4, 4, magic=b"DOTNET_IPC_V0\0")
EOF
dotnet "$dll" 5 >app.out 2>&1 & pid=$!; app_ready app.out
python3 capture_ipc.py $pid "$out/dotnet_ipc"; kill $pid; wait $pid || true
rm -f /tmp/perf-$pid.map /tmp/jit-$pid.dump /tmp/dotnet-diagnostic-$pid-*-socket

# --- tracing data sections ---
cat >tracing_blob.py <<'EOF'
import struct, sys  # tracing_blob.py PERF.DATA OUT: its HEADER_TRACING_DATA section
d = open(sys.argv[1], "rb").read(); off, size = struct.unpack_from("<QQ", d, 40)
bits = int.from_bytes(d[72:104], "little"); at = off + size
for feat in range(256):
    if bits >> feat & 1:
        o, n = struct.unpack_from("<QQ", d, at); at += 16
        if feat == 1: open(sys.argv[2], "wb").write(d[o:o + n])
EOF
python3 tracing_blob.py ours_offcpu.trace/perf.data "$out/tracing_data/ours_offcpu"
python3 tracing_blob.py perf_tp.data "$out/tracing_data/perf_tp"
# --- EventPipe sessions of a live runtime: the answer, then the stream ---
cat >capture_eventpipe.py <<'EOF'
import glob, os, socket, struct, sys, time  # capture_eventpipe.py PID OUTDIR
pid, out = int(sys.argv[1]), sys.argv[2]
path = glob.glob("/tmp/dotnet-diagnostic-%d-*-socket" % pid)[0]
def utf16(s): return struct.pack("<I", len(s) + 1) + (s + "\0").encode("utf-16-le") if s else struct.pack("<I", 0)
def msg(cmdid, payload): return b"DOTNET_IPC_V1\0" + struct.pack("<HBBH", 20 + len(payload), 2, cmdid, 0) + payload
def provider(name, keywords, level, ids=None, ct5=True):
    p = struct.pack("<QI", keywords, level) + utf16(name) + utf16("")
    if ct5: p += struct.pack("<BI", 1 if ids else 0, len(ids or [])) + b"".join(struct.pack("<I", i) for i in ids or [])
    return p
def session(name, cmdid, payload, limit):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.sendall(msg(cmdid, payload))
    data = b""
    while len(data) < 20 or len(data) < struct.unpack("<H", data[14:16])[0]: data += s.recv(65536)
    n = struct.unpack("<H", data[14:16])[0]; sid = data[20:28]
    s.settimeout(0.2); end = time.time() + 1.5
    while len(data) < limit and time.time() < end:
        try:
            b = s.recv(65536)
            if not b: break
            data += b
        except socket.timeout: pass
    stop = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); stop.connect(path); stop.sendall(msg(1, sid))
    s.settimeout(10)
    while True:  # the rest of the stream, rundown included, then the end
        try: b = s.recv(65536)
        except socket.timeout: break
        if not b: break
        if len(data) < limit: data += b
    stop.recv(64); stop.close(); s.close()
    open(os.path.join(out, name), "wb").write(data[:limit])
    return data[:n]
rt = "Microsoft-Windows-DotNETRuntime"
# collect's default shape: GC, exceptions, contention, JIT, loader keywords at informational/verbose
ct5 = struct.pack("<IIIQB", 0, 256, 1, 0x80020139, 1) + struct.pack("<I", 2) + \
      provider(rt, 0x1c14fccbd, 5, [1, 2, 80, 81, 250, 252, 143, 145]) + provider("Microsoft-Windows-DotNETRuntimePrivate", 0x1, 4)
session("collect5", 6, ct5, 40000)
ct2 = struct.pack("<IIB", 256, 1, 1) + struct.pack("<I", 1) + provider(rt, 0x1c14fccbd, 5, ct5=False)
session("collect2", 3, ct2, 40000)
EOF
dotnet "$dll" 10 >app.out 2>&1 & pid=$!; app_ready app.out
python3 capture_eventpipe.py $pid "$out/eventpipe_session"
cat /proc/$pid/stat >"$out/proc_stat/dotnet"
# a .NET runtime's maps: its libraries, double-mapped code, images, then the first lines whole
{ grep -E 'libcoreclr|doublemapper|\.dll|jit-' /proc/$pid/maps | head -80; head -40 /proc/$pid/maps; } \
	>"$out/proc_maps/dotnet"
for t in /proc/$pid/task/*; do
	case $(cat $t/comm) in .NET*) cat $t/stat >"$out/proc_stat/dotnet_thread"; break ;; esac
done
kill $pid; wait $pid || true
rm -f /tmp/perf-$pid.map /tmp/jit-$pid.dump /tmp/dotnet-diagnostic-$pid-*-socket
head -c 6000 "$out/eventpipe_session/collect5" >"$out/eventpipe_session/collect5_cut"
cat "$out/dotnet_ipc/unknown_command" "$out/eventpipe_session/collect2" \
	>"$out/eventpipe_session/unknown_then_collect2"

# --- clr_locks: a live .NET 10 runtime's contract descriptor (the JSON its libcoreclr.so's
# DotNetRuntimeContractDescriptor points to), and lock records captured from deadlocked
# .NET processes (the bytes of tests/unit/stacks/test_clr_locks.c), alone and on a stack
# in the harness's format (a word with the top bit set points into the input) ---
cat >descriptor.py <<'EOF'
import struct, subprocess, sys
pid = int(sys.argv[1])
for line in open("/proc/%d/maps" % pid):
    f = line.split()
    if len(f) >= 6 and f[5].endswith("/libcoreclr.so") and int(f[2], 16) == 0:
        base, path = int(f[0].split("-")[0], 16), f[5]
        break
run = lambda *a: subprocess.run(a, capture_output=True, text=True).stdout.splitlines()
value = next(int(l.split()[1], 16) for l in run("readelf", "-W", "--dyn-syms", path)
             if " DotNetRuntimeContractDescriptor" in l)
first = min(int(l.split()[2], 16) for l in run("readelf", "-W", "-l", path)
            if l.strip().startswith("LOAD")) & ~0xfff
with open("/proc/%d/mem" % pid, "rb") as m:
    m.seek(base + value - first)
    magic, flags, size, json_at = struct.unpack("<QIIQ", m.read(24))
    assert magic == 0x0043414443434E44
    m.seek(json_at)
    sys.stdout.buffer.write(m.read(size))
EOF
dotnet "$dll" 5 >app.out 2>&1 & pid=$!; app_ready app.out
python3 descriptor.py $pid >"$out/clr_locks/descriptor_net10.json"; kill $pid; wait $pid || true
rm -f /tmp/perf-$pid.map /tmp/jit-$pid.dump /tmp/dotnet-diagnostic-$pid-*-socket
python3 - "$out/clr_locks" <<'EOF'
import struct, sys
d = sys.argv[1] + "/"
aware = bytes.fromhex("81010000010000000400000" "0ab160004f66a0000000000000600000002000080")
lock = bytes.fromhex("60a815022b7f000098148125" "1f7f00001d050000010300000000000080ffffff")
open(d + "awarelock.bin", "wb").write(aware)
open(d + "managed_lock.bin", "wb").write(lock)
b = bytearray(1024)
struct.pack_into("<QQQ", b, 0, 0x1234, 0, (1 << 63) | 512)
struct.pack_into("<Q", b, 40, (1 << 63) | 768)
b[512:544] = aware
struct.pack_into("<I", b, 764, 0x08000002)  # the object's header names sync block 2
open(d + "monitor_wait_stack.bin", "wb").write(bytes(b))
b = bytearray(512)
struct.pack_into("<Q", b, 8, (1 << 63) | 256)
b[256:288] = lock
open(d + "lock_wait_stack.bin", "wb").write(bytes(b))
EOF

# --- /proc/<pid>/stat lines (comm is the process's own choice) ---
cat /proc/self/stat >"$out/proc_stat/cat"
cat /proc/1/stat >"$out/proc_stat/init"
cat /proc/2/stat >"$out/proc_stat/kthreadd"
cp /bin/sleep "fz-a) b (c"; "./fz-a) b (c" 30 & pid=$!; sleep 0.2
cat /proc/$pid/stat >"$out/proc_stat/comm_with_parens"; kill $pid; wait $pid || true
cat /proc/self/maps >"$out/proc_maps/cat"
# maps whose paths a process chose: spaces, a tab, what looks like more fields, a deleted file
python3 - >"$out/proc_maps/odd_names" <<'EOF'
import mmap, os, shutil
d = "/tmp/pcseed-maps"
os.makedirs(d, exist_ok=True)
maps = []
for name in ["a b (c) 7f00-7f10 r-xp 0 0:0 1 x", "deleted me", "tab\there"]:
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(b"\0" * 8192)
    f = open(p, "r+b")
    maps.append((f, mmap.mmap(f.fileno(), 4096, offset=4096)))
    if name.startswith("deleted"):
        os.unlink(p)
print(open("/proc/self/maps").read(), end="")
shutil.rmtree(d)
EOF
ln -sfn nettrace_read "$out/postprocess_nettrace"
ln -sfn eventpipe_session "$out/eventpipe_collect"
# view_nettrace: the reader's seeds, and the Universal providers' file merge writes
mkdir -p "$out/view_nettrace"
for f in "$out"/nettrace_read/*; do ln -sfn "../nettrace_read/${f##*/}" "$out/view_nettrace/"; done
cp "$out/perfdata_read/ours_dotnet.data" perf.data
"$PC" merge perf.data -o universal.trace.zip -format nettrace -nosymbolserver >/dev/null 2>&1
cp universal.nettrace "$out/view_nettrace/ours-merge-universal.nettrace"

# --- dso: ELF files as a symbol server sends them: the test library stripped with its debug
# file (the harness's pair, [u32 size][bytes] each), the debug file alone, the unstripped
# library ---
mkdir -p "$out/dso"
cp "$src/build/tests/workloads/libsymlib.so" lib.so
objcopy --only-keep-debug lib.so lib.debug
strip --strip-all lib.so
python3 - "$out/dso/libsymlib_stripped_and_debug" <<'EOF'
import struct, sys
rt, dbg = open("lib.so", "rb").read(), open("lib.debug", "rb").read()
open(sys.argv[1], "wb").write(struct.pack("<I", len(rt)) + rt + struct.pack("<I", len(dbg)) + dbg)
EOF
cp lib.debug "$out/dso/libsymlib_debug_only"
cp "$src/build/tests/workloads/libsymlib.so" "$out/dso/libsymlib_unstripped"

# --- base/'s reader and UTF-16 codec: pieces of real files above ---
mkdir -p "$out"/{utf16,span}
nt=$src/tests/fuzz/corpus/nettrace_read/dotnet10-exceptions-contention.nettrace
cp "$out/dotnet_ipc/process_info2" "$out/utf16/process_info2"
head -c 4096 "$nt" >"$out/utf16/nettrace_head"
head -c 2048 "$out/perfmap/dotnet10.map" >"$out/utf16/perfmap_head"
cp "$out/dotnet_ipc/process_info2" "$out/span/process_info2"
head -c 4096 "$nt" >"$out/span/nettrace_head"
head -c 4096 "$out/perfdata_read/ours_pid.data" >"$out/span/perfdata_head"

# --- NetTrace 3 to 5 of other writers: PerfView's own test inputs (tests/data/perfview), and
# the start of a dotnet-trace collect file (SampleProfiler samples with stacks, method loads)
mkdir -p "$out/nettrace_read"
for z in eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace \
	eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf; do
	unzip -p "$src/tests/data/perfview/$z.zip" >"$out/nettrace_read/perfview-$z"
done
unzip -p "$src/tests/data/perfview/eventpipe-dotnetcore2.1-win-x86-objver3.netperf.zip" |
	head -c 40000 >"$out/nettrace_read/perfview-objver3-x86-cut.netperf"
unzip -p "$src/tests/data/perfview/mixed_managed_external_samples.nettrace.zip" |
	head -c 40000 >"$out/nettrace_read/perfview-samples-cut.nettrace"
dt=$(BUILD_DIR=$src/build sh "$src/tests/dotnet_trace.sh")
dotnet "$dll" 3 >app.out 2>&1 & pid=$!; app_ready app.out
"$dt" collect -p $pid -o dt.nettrace --duration 00:00:00:01 \
	--providers 'Microsoft-Windows-DotNETRuntime:0x100003C01D:5' --profile dotnet-sampled-thread-time >/dev/null
wait $pid || true
head -c 40000 dt.nettrace >"$out/nettrace_read/dotnet-trace-collect-cut.nettrace"
echo "seeds in $out"

# --- unwinding ---
mkdir -p "$out"/{unwind,cfi,pe_unwind}
FUZZ_SEED_DIR="$out/unwind" BUILD_DIR=$src/build "$src/build/tests/test_stacks_unwind" >/dev/null
cat >cfi_seed.py <<'EOF'
import struct, subprocess, sys  # cfi_seed.py ELF OUT: its .eh_frame and .debug_frame
def section(path, name):
    for line in subprocess.run(["readelf", "-W", "-S", path], capture_output=True,
                               text=True).stdout.splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 5 and p[1] == name:
            addr, off, size = int(p[3], 16), int(p[4], 16), int(p[5], 16)
            return addr, open(path, "rb").read()[off:off + size]
    return 0, b""
addr, eh = section(sys.argv[1], ".eh_frame")
_, dbg = section(sys.argv[1], ".debug_frame")
open(sys.argv[2], "wb").write(struct.pack("<QI", addr, len(eh)) + eh + dbg)
EOF
python3 -c 'import sys
for l in open("/proc/self/maps"):
    if "[vdso]" in l:
        a, b = [int(x, 16) for x in l.split()[0].split("-")]
        f = open("/proc/self/mem", "rb"); f.seek(a); open("vdso.so", "wb").write(f.read(b - a))'
gcc -shared -fPIC -O2 -g -fno-asynchronous-unwind-tables -fomit-frame-pointer \
	-o dbgframe.so "$src/tests/workloads/nofp_lib.c"
for f in "$src/build/tests/workloads/libnofp.so:libnofp" "$NOFP:nofp" \
	/usr/lib/x86_64-linux-gnu/libz.so.1:libz /lib64/ld-linux-x86-64.so.2:ld.so vdso.so:vdso \
	dbgframe.so:debug_frame; do
	python3 cfi_seed.py "${f%%:*}" "$out/cfi/${f##*:}"
done
python3 "$src/tests/fuzz/pe_seed.py" "$out/pe_unwind/synthetic.dll"
