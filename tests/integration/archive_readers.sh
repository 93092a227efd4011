# Our own zip writer (parallel deflate in 1 MiB pieces, stored entries) against every reader
# that matters: PerfView's (TraceEvent, through .NET's ZipArchive), unzip and Python's
# zipfile must read every entry of a real trace.zip, and PerfView must see the samples we
# wrote.  The zstd-compressed records of a perf.data written by `perf record -z` are stored,
# not deflated again (its uncompressed header and synthesized records are deflated), and
# perf still reads it from the archive.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

# A system-wide trace with deep stacks, long enough that perf.data.txt spans many pieces.
"$WORKLOADS/hot" 30 2 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
perf record -q -z -a -g -F 2000 -e cpu-clock -o z.data -- sleep 3 >/dev/null 2>&1 ||
	fail "perf record -z"
kill "$hot"
perf report --header-only -i z.data 2>/dev/null | grep -q 'compressed' ||
	skip "this perf does not write compressed perf.data (perf record -z: perf built without zstd): Debian's linux-perf has it (scripts/setup)"

"$PC" merge z.data -o z.trace.zip 2>merge.err || { cat merge.err; fail "merge"; }
unzip -v z.trace.zip >listing.txt
cat listing.txt
txt_size=$(awk '$NF == "z.trace/perf.data.txt" {print $1}' listing.txt)
check "perf.data.txt spans several 1 MiB pieces ($txt_size bytes)" test "${txt_size:-0}" -gt 3000000
check "perf.data.txt is deflated" grep -q 'Defl:N.*z.trace/perf.data.txt$' listing.txt
# The COMPRESSED records (zstd payload) are stored: the entry is at least as large as they
# are.  Their sizes: a walk over the data section (perf.data's file header, then records of
# u32 type, u16 misc, u16 size; PERF_RECORD_COMPRESSED is 81).
need_cmd python3
zstd_bytes=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", d, 40)
pos, total = off, 0
while pos + 8 <= off + size:
    typ, misc, sz = struct.unpack_from("<IHH", d, pos)
    if sz < 8: break
    if typ == 81: total += sz
    pos += sz
print(total)' z.data)
data_csize=$(awk '$NF == "z.trace/perf.data" {print $3}' listing.txt)
check "zstd records ($zstd_bytes bytes) stored, not deflated again (entry: $data_csize bytes)" \
	test "$zstd_bytes" -gt 20000 -a "${data_csize:-0}" -ge "$zstd_bytes"

# unzip: every entry's CRC; the stored perf.data is the input, byte for byte, and perf reads it.
check "unzip -t: every entry good" unzip -tq z.trace.zip
unzip -q z.trace.zip -d out || fail "unzip"
check "perf.data from the archive is the recorded one" cmp z.data out/z.trace/perf.data
check "perf reads perf.data from the archive" \
	sh -c "perf script -i out/z.trace/perf.data -F tid 2>/dev/null | grep -q ."

# Python's zipfile: its own inflater and CRC check over every entry.
check "Python's zipfile reads every entry" python3 -c '
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
sys.exit("bad entry %s" % bad if bad else 0)' z.trace.zip

# PerfView: TraceEvent's LinuxPerfScriptStackSource opens the zip itself and must see every
# sample of the perf.data.txt we wrote.
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_traceevent
samples=$(grep -c 'cpu-clock:' out/z.trace/perf.data.txt)
traceevent perfscript z.trace.zip >te.out 2>te.err || { cat te.err; fail "TraceEvent perfscript"; }
te_samples=$(sed -n 's/^samples //p' te.out)
# (TraceEvent's reader skips the odd sample it cannot parse, e.g. a kernel thread's)
check "PerfView's reader sees the $samples samples (it saw $te_samples)" \
	test "$samples" -gt 1000 -a "${te_samples:-0}" -ge $((samples * 99 / 100)) \
	-a "${te_samples:-0}" -le "$samples"
check "PerfView's reader names the workload's functions" grep -q 'frame .* hot!hot_leaf$' te.out
finish
