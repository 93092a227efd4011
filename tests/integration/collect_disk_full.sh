# A full disk (a small tmpfs): during recording, collect stops with one line naming the
# cause and the command that finishes the trace, keeps what was written (perf reads it), and
# that command works once space is freed; during post-processing (merge into a full disk),
# no zip is left and the input is untouched.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

mnt=$T/small
mkdir "$mnt"
mount -t tmpfs -o size=24m tmpfs "$mnt" || skip "cannot mount a tmpfs here: run as root, outside a container that forbids mounts"
cleanup_hooks+=("umount -l '$mnt'")

start_hot 600

# 1. During recording: the disk fills up under the collector.
start_collect full -pid "$hot" -o "$mnt"
wait_until 60 sh -c "perf report -D -i '$mnt/full.trace/perf.data' 2>/dev/null | grep -q 'PERF_RECORD_SAMPLE('" ||
	fail "recording: no sample was flushed"
dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null # until the disk is full
wait_until 60 eval '! kill -0 $collector 2>/dev/null' || fail "recording: the collector did not stop"
wait "$collector"
rc=$?
cat full.err
check "recording: exit 1" test "$rc" -eq 1
check "recording: the cause is named" grep -q "No space left on device" full.err
check "recording: the last line gives the command that finishes it" \
	bash -c "tail -1 full.err | grep -q 'finish it with: perfcollect-c merge $mnt/full.trace -o $mnt/full.trace.zip'"
check "recording: no zip (half-written or otherwise)" test ! -e "$mnt/full.trace.zip"
check "recording: perf.data is kept" test -s "$mnt/full.trace/perf.data"
n=$(timeout 120 perf report -D -i "$mnt/full.trace/perf.data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')
timeout 120 perf script -i "$mnt/full.trace/perf.data" >/dev/null 2>perf.err
check "recording: perf reads the $n samples written before the disk filled: $(head -c 200 perf.err)" \
	test "$n" -gt 0 -a ! -s perf.err
rm -f "$mnt/filler"
cmd=$(tail -1 full.err | sed 's/.*finish it with: perfcollect-c //')
# shellcheck disable=SC2086 # the words of the command as printed
"$PC" $cmd 2>merge.err
check "recording: with space again, the printed command finishes it: $(tail -1 merge.err)" \
	test $? -eq 0
check "recording: ... into a valid zip" unzip -tq "$mnt/full.trace.zip"
got=$("$PC" cat "$mnt/full.trace.zip" perf.data.txt | grep -c '^[^[:space:]].*cpu-clock:')
# (Our reader also takes the whole records of the flush that did not fit, which perf's
# header does not claim yet: at least as many.)
check "recording: ... with all $n samples ($got)" test "$got" -ge "$n"

# 2. During post-processing: merge into a disk with no room for the zip.
start_collect pp -pid "$hot" -collectsec 2
wait "$collector"
check "post-processing: a trace to merge" test -s pp.trace.zip
dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null
sum=$(md5sum <pp.trace.zip)
"$PC" merge pp.trace.zip -o "$mnt/pp.trace.zip" 2>pp.err
rc=$?
cat pp.err
check "post-processing: exit 1" test "$rc" -eq 1
check "post-processing: the cause is named" grep -q "No space left on device" pp.err
check "post-processing: no zip, no temporary file left" \
	bash -c "! ls -A '$mnt' | grep -q '^\.\?pp\.trace\.zip'"
check "post-processing: the input is untouched" test "$(md5sum <pp.trace.zip)" = "$sum"
rm -f "$mnt/filler"
finish
