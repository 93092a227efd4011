# Code addresses get reused: a real .NET app JIT-compiles a new DynamicMethod (Gen<N>_Spin)
# again and again and frees the last one's code, so the runtime puts most generations at one
# address (see CodeReuse in Program.cs).  Each sample must be named after the code that was
# at its address at its time: the latest jitdump code load at or before it.  An independent
# jitdump reader written here (python3) is the oracle; a control shows that ignoring time
# (the last load in the file) would name some of the same samples wrongly.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
need_root
need_cmd unzip
need_cmd python3
need_perf
need_dotnet_app

# DOTNET_PerfMapStubGranularity=2: without it this runtime stops writing its jitdump at
# startup (see lib/dotnet/dotnet_target.c) and collect would have it rewritten, loads retimed.
start_app reuse 30 DOTNET_PerfMapEnabled=1 DOTNET_PerfMapStubGranularity=2
check "the app writes a jitdump" test -s /tmp/jit-$APP_PID.dump

"$PC" collect reuse -pid "$APP_PID" -collectsec 2 2>collect.err
rc=$?
cat collect.err
check "collect -pid exits 0" test "$rc" -eq 0
unzip -q reuse.trace.zip || fail "unzip"
dump=reuse.trace/jit-$APP_PID.dump
txt=reuse.trace/perf.data.txt
[ -s "$dump" ] && [ -s "$txt" ] || { fail "the zip has no jitdump or perf.data.txt"; finish; }

# JIT code sits in the runtime's double-mapped memfd (W^X, the default): perf.data.txt prints
# such frames as offsets into the memfd, as perf does, so the oracle turns them back into
# addresses with the mmap events perf itself reads from our perf.data.
perf script -i reuse.trace/perf.data --show-mmap-events -F comm,tid,time 2>perf.err |
	grep ' PERF_RECORD_MMAP' >mmaps.txt
check "perf lists the app's mmaps" grep -q "PERF_RECORD_MMAP2* $APP_PID/" mmaps.txt

# The oracle.  Frames are those in the JIT pseudo-DSO /tmp/perf-<pid>.map.  perf.data.txt
# times are whole microseconds (truncated), so a sample lies in [us*1000, us*1000+999] ns:
# when the two ends would be named (or mapped) differently it is ambiguous and skipped.
python3 - "$dump" "$txt" "/tmp/perf-$APP_PID.map" mmaps.txt "$APP_PID" >oracle.out <<'EOF'
import re, struct, sys
from collections import defaultdict

dump, txt, jit_dso, mmaps_txt, app_pid = sys.argv[1:6]
data = open(dump, "rb").read()
magic, version, hsize = struct.unpack_from("<III", data, 0)
if magic != 0x4A695444 or version != 1:
    sys.exit("not a jitdump: magic %#x version %d" % (magic, version))
loads = []  # (time ns, addr, size, name), file order
off = hsize
while off + 16 <= len(data):
    rid, size, ts = struct.unpack_from("<IIQ", data, off)
    if size < 16 or off + size > len(data):
        break
    if rid == 0:  # JIT_CODE_LOAD
        pid, tid, vma, addr, code_size, index = struct.unpack_from("<IIQQQQ", data, off + 16)
        end = data.index(b"\0", off + 56, off + size)
        loads.append((ts, addr, code_size, data[off + 56:end].decode("utf-8", "replace")))
    elif rid == 1:  # JIT_CODE_MOVE: .NET does not move code; a move would need handling here
        sys.exit("the jitdump has a JIT_CODE_MOVE record; this oracle does not handle them")
    off += size

by_addr = defaultdict(list)
for ts, addr, size, name in loads:
    by_addr[addr].append((ts, name))
reused = {a for a, v in by_addr.items() if len({n for _, n in v}) > 1}

def cached(fn):
    memo = {}
    return lambda key: memo[key] if key in memo else memo.setdefault(key, fn(key))

@cached
def covering(ip):
    """Loads covering ip, in file order."""
    return [l for l in loads if l[1] <= ip < l[1] + l[2]]

def latest(items, t):
    """Of (time, ...) tuples in file order: the latest at or before t, a tie going to the
    later one in the file."""
    best = None
    for it in items:
        if it[0] <= t and (best is None or it[0] >= best[0]):
            best = it
    return best

def by_time(cover, t):
    best = latest(cover, t)
    return best[3] if best else None

# Executable memfd mappings: (time ns, start, len, pgoff), file order (time 0: synthesized).
# An mmap event's time is truncated to microseconds as well: taken as the latest it can be.
mmap_re = re.compile(r"\s(\d+)\.(\d{6}): PERF_RECORD_MMAP2? (\d+)/\d+: "
                     r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)\b.*?\]: (\S+) (.*)$")
mmaps = []
for line in open(mmaps_txt, errors="replace"):
    m = mmap_re.search(line)
    if m and m.group(3) == app_pid and "x" in m.group(7) and m.group(8).startswith("/memfd:"):
        t = (int(m.group(1)) * 1000000 + int(m.group(2))) * 1000 + 999
        mmaps.append((t, int(m.group(4), 16), int(m.group(5), 16), int(m.group(6), 16)))

maps_of_offset = cached(lambda off: [m for m in mmaps if m[3] <= off < m[3] + m[2]])
maps_at_addr = cached(lambda addr: [m for m in mmaps if m[1] <= addr < m[1] + m[2]])

def to_addr(off, t):
    """The address memfd offset off was mapped at, at time t: the latest exec mapping of it,
    provided nothing mapped over that address since.  None when unknown."""
    m = latest(maps_of_offset(off), t)
    if not m:
        return None
    addr = m[1] + off - m[3]
    return addr if latest(maps_at_addr(addr), t) is m else None

head = re.compile(r"^.*?\s(\d+)/(\d+)\s+\[\d+\]\s+(\d+)\.(\d{6}):")
frame = re.compile(r"^\s+([0-9a-f]+) (.*) \((.*)\)$")
checked = reused_hits = ambiguous = before_any = wrong = control_diff = unmapped = prejit = 0
names_at = defaultdict(set)  # reused address -> names of the samples there
time_us = None
for line in open(txt, errors="replace"):
    m = head.match(line)
    if m:
        time_us = int(m.group(3)) * 1000000 + int(m.group(4))
        continue
    m = frame.match(line)
    if not m or time_us is None or m.group(3) != jit_dso:
        continue
    shown, ours = int(m.group(1), 16), m.group(2)
    # ReadyToRun code: named from the perf map too (its dso), but it sits in the image file,
    # so the ip shown is an offset into that file, which may also be a valid memfd offset
    if ours.endswith("[PreJIT]"):
        prejit += 1
        continue
    ip = shown
    if maps_of_offset(shown):  # a memfd offset, not an address
        ip = to_addr(shown, time_us * 1000)
        if ip != to_addr(shown, time_us * 1000 + 999):
            ambiguous += 1
            continue
        if ip is None:
            unmapped += 1
            continue
    cover = covering(ip)
    if not cover:
        continue
    lo, hi = by_time(cover, time_us * 1000), by_time(cover, time_us * 1000 + 999)
    if lo != hi:
        ambiguous += 1
        continue
    if lo is None:
        before_any += 1  # only loaded after this sample: the jitdump cannot say
        continue
    checked += 1
    if ours != lo:
        wrong += 1
        if wrong <= 10:
            print("WRONG at %.6f ip %#x: ours %r, the jitdump says %r"
                  % (time_us / 1e6, ip, ours, lo))
    if cover[-1][3] != lo:
        control_diff += 1
    at = [l[1] for l in cover if l[1] in reused]
    if at:
        reused_hits += 1
        names_at[at[0]].add(lo)

print("loads %d reused_addrs %d max_names_at_one_addr %d"
      % (len(loads), len(reused), max((len({n for _, n in by_addr[a]}) for a in reused),
                                      default=0)))
print("checked %d reused_hits %d ambiguous %d before_any_load %d unmapped %d wrong %d "
      "control_diff %d prejit %d" % (checked, reused_hits, ambiguous, before_any, unmapped,
                                     wrong, control_diff, prejit))
print("generations_sampled_at_one_addr %d" % max((len(v) for v in names_at.values()), default=0))
EOF
rc=$?
cat oracle.out
[ "$rc" = 0 ] || { fail "the oracle could not read the jitdump or perf.data.txt"; finish; }
val() { sed -n "s/.*\b$1 \([0-9]*\).*/\1/p" oracle.out; }
# Without reuse the rest would prove nothing: a failure, not a skip.
check "(a) addresses loaded with different methods: $(val reused_addrs) (0: no reuse, nothing proved)" \
	test "$(val reused_addrs)" -gt 0
check "(b) at least 20 samples at reused addresses ($(val reused_hits))" \
	test "$(val reused_hits)" -ge 20
check "(b) from at least two methods at one address ($(val generations_sampled_at_one_addr))" \
	test "$(val generations_sampled_at_one_addr)" -ge 2
check "(c) every JIT frame is named as the jitdump says by time ($(val wrong) wrong of $(val checked))" \
	test "$(val wrong)" -eq 0 -a "$(val checked)" -gt 0
check "(d) control: ignoring time names $(val control_diff) of them differently" \
	test "$(val control_diff)" -gt 0
finish
