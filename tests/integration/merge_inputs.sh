# merge's three kinds of input (a perf.data, a <name>.trace directory, a <name>.trace.zip),
# the archive name derived from each, and a zip with a "../" entry refused.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

perf record -q -e cpu-clock -F 1000 -g -o app.data -- "$WORKLOADS/hot" 0.3 >/dev/null 2>&1 ||
	skip "perf record failed: run as root (or lower kernel.perf_event_paranoid)"

# A bare perf.data: <name>.trace.zip in the current directory, entries under <name>.trace/.
mkdir out && (cd out && "$PC" merge ../app.data) || fail "merge app.data"
check "default output is app.trace.zip in cwd" test -s out/app.trace.zip
check "entries are app.trace/..." \
	bash -c "unzip -Z1 out/app.trace.zip | grep -qx app.trace/perf.data.txt"
check "the archive's perf.data is the input" \
	bash -c "unzip -p out/app.trace.zip app.trace/perf.data | cmp -s - app.data"
check "merge leaves nothing behind in TMPDIR" \
	bash -c "mkdir tmp && TMPDIR=\$PWD/tmp '$PC' merge app.data -o t.zip && [ -z \"\$(ls tmp)\" ]"
unzip -p out/app.trace.zip app.trace/perf.data.txt >first.txt

# The zip as input: re-symbolized, same text, the log keeps the first merge's lines.
"$PC" merge out/app.trace.zip -o again.trace.zip || fail "merge of a zip"
check "zip input: entries keep the name" \
	bash -c "unzip -Z1 again.trace.zip | grep -qx app.trace/perf.data"
check "zip input: same perf.data.txt" \
	bash -c "unzip -p again.trace.zip app.trace/perf.data.txt | cmp -s - first.txt"
check "zip input: the log holds both merges" \
	test "$(unzip -p again.trace.zip app.trace/perfcollect.log | grep -c '^\[.*\] merge ')" -eq 2

# What merge writes anew (perf.data.txt, the unified NetTrace) is not read from the zip: a
# zip whose copies of them are damaged merges the same.
if command -v python3 >/dev/null; then
	python3 - <<-'EOF'
	import zipfile
	with zipfile.ZipFile("stale.trace.zip", "w", zipfile.ZIP_DEFLATED) as z:
	    z.write("app.data", "stale.trace/perf.data")
	    for name in ("stale.trace/perf.data.txt", "stale.trace/stale.nettrace"):
	        z.writestr(name, "".join("line %d of an old output\n" % i for i in range(20000)))
	with zipfile.ZipFile("stale.trace.zip") as z:
	    spans = [(i.header_offset, i.compress_size, len(i.filename)) for i in z.infolist()[1:]]
	with open("stale.trace.zip", "r+b") as f:
	    for off, size, name_len in spans:
	        f.seek(off + 28)
	        extra = int.from_bytes(f.read(2), "little")
	        f.seek(off + 30 + name_len + extra + size // 2)
	        f.write(b"\xff" * 16)  # the deflate stream broken mid-way
	EOF
	check "a zip with damaged old outputs: unzip finds them damaged" \
		bash -c "! unzip -tq stale.trace.zip >/dev/null 2>&1"
	"$PC" merge stale.trace.zip -o restale.trace.zip 2>stale.err || cat stale.err
	check "a zip with damaged old outputs merges: perf.data.txt written anew" \
		bash -c "unzip -p restale.trace.zip stale.trace/perf.data.txt | cmp -s - first.txt"
	check "... and the NetTrace" \
		bash -c "unzip -p restale.trace.zip stale.trace/stale.nettrace | head -c 8 | grep -q Nettrace"
fi

# A .trace directory as input (as collect leaves it, or unzipped).
mkdir d && (cd d && unzip -q ../out/app.trace.zip)
(cd d && "$PC" merge app.trace) || fail "merge of a directory"
check "directory input: d/app.trace.zip" test -s d/app.trace.zip
check "directory input: the directory is not written to" \
	test "$(ls d/app.trace | sort | tr '\n' ' ')" = "app.nettrace perf.data perf.data.txt perfcollect.log "
check "directory input: same perf.data.txt" \
	bash -c "unzip -p d/app.trace.zip app.trace/perf.data.txt | cmp -s - first.txt"

# A perf.data inside a .trace directory names the archive after the directory.
(cd d && "$PC" merge app.trace/perf.data -o ../inside.zip)
check "perf.data in x.trace: entries under x.trace/" \
	bash -c "unzip -Z1 inside.zip | grep -qx app.trace/perf.data"

# A zip whose entry climbs out: refused, nothing written outside.
if command -v python3 >/dev/null; then
	python3 - <<-'EOF'
	import zipfile
	with zipfile.ZipFile("evil.trace.zip", "w") as z:
	    z.write("app.data", "evil.trace/perf.data")
	    z.writestr("../escaped.txt", "gotcha")
	EOF
	"$PC" merge evil.trace.zip -o evil.out.zip 2>evil.err
	rc=$?
	cat evil.err
	check "zip with '../': refused with one line" test "$rc" -ne 0 -a "$(wc -l <evil.err)" -eq 1
	check "zip with '../': nothing escaped" test ! -e ../escaped.txt -a ! -e /tmp/escaped.txt
else
	echo "python3 is not installed: the '../' zip part is not run"
fi
finish
