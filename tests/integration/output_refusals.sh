# No output is ever written over an input or a trace: view refuses a flame graph or folded
# stacks over any .trace.zip or over its input; merge without -o never replaces its input
# (a new name, said), -o naming the input is refused, a failed merge leaves no zip (also
# not over an earlier one), `merge notes.txt` writes nothing; stacks never writes over a
# trace; collect refuses a name whose directory a running collection uses.  Each refusal is one line, the files are unchanged.
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip

start_hot 600
"$PC" collect t -pid "$hot" -collectsec 1 2>/dev/null || fail "collect failed"
sum() { md5sum <"$1"; }
before=$(sum t.trace.zip)
unchanged() { test "$(sum t.trace.zip)" = "$before"; }
files() { ls -A | sort | tr '\n' ' '; }

# view: the input, any .trace.zip, the text input.
for opt in -flamegraph -folded --flamegraph; do
	"$PC" view t.trace.zip $opt t.trace.zip 2>err.txt
	rc=$?
	check "view $opt over its input: refused (exit $rc), one line" \
		test "$rc" -ne 0 -a "$(wc -l <err.txt)" -eq 1
	check "view $opt over its input: ... saying so" grep -q "over the input t.trace.zip" err.txt
	check "view $opt over its input: the trace is unchanged" unchanged
done
cp t.trace.zip other.trace.zip
"$PC" view t.trace.zip -flamegraph other.trace.zip 2>err.txt
check "view onto another .trace.zip: refused" test $? -ne 0
check "view onto another .trace.zip: ... naming why" grep -q "a .trace.zip name is for traces" err.txt
check "view onto another .trace.zip: it is unchanged" test "$(sum other.trace.zip)" = "$before"
"$PC" view t.trace.zip -folded ./new.trace.zip 2>err.txt
check "view onto a new .trace.zip name: refused, nothing written" \
	test $? -ne 0 -a ! -e new.trace.zip
"$PC" cat t.trace.zip perf.data.txt >t.txt
cp t.txt t.txt.orig
"$PC" view t.txt -folded t.txt 2>err.txt
check "view -folded over its text input: refused, input unchanged" \
	bash -c "test $? -ne 0 && cmp -s t.txt t.txt.orig"
# What is allowed: a new file, written complete (no temporary left beside it).
"$PC" view t.trace.zip -flamegraph t.svg 2>/dev/null
check "view -flamegraph t.svg: written" grep -q '</svg>' t.svg
check "view: no temporary file left" bash -c "! ls -A | grep -q '^\.t\.svg\.'"

# merge: a zip without -o gets a new name, the input stays.
"$PC" merge t.trace.zip 2>err.txt
check "merge t.trace.zip: exit 0" test $? -eq 0
check "merge t.trace.zip: the input is unchanged" unchanged
check "merge t.trace.zip: ... writes t-merged.trace.zip, and says so" \
	bash -c "unzip -tq t-merged.trace.zip && grep -q 't.trace.zip is the input.*writing t-merged.trace.zip' err.txt"
"$PC" merge t.trace.zip 2>/dev/null
check "merge again: a further new name" unzip -tq t-merged-2.trace.zip
check "merge again: the input is unchanged" unchanged
"$PC" merge t.trace.zip -o ./t.trace.zip 2>err.txt
check "merge -o INPUT: refused, one line" test $? -ne 0 -a "$(wc -l <err.txt)" -eq 1
check "merge -o INPUT: ... saying so" grep -q "is the input; merge never writes over its input" err.txt
check "merge -o INPUT: the input is unchanged" unchanged

# merge on what is no perf.data: nothing written, also not over an earlier archive.
echo "meeting notes" >notes.txt
was=$(files)
"$PC" merge notes.txt 2>err.txt
check "merge notes.txt: exit 1, one line" test $? -eq 1 -a "$(wc -l <err.txt)" -eq 1
check "merge notes.txt: ... saying it is not a perf.data" grep -q "notes.txt is not a perf.data file" err.txt
check "merge notes.txt: writes nothing" test "$(files)" = "$was"
cp other.trace.zip notes.trace.zip
"$PC" merge notes.txt 2>/dev/null
check "merge notes.txt: an earlier notes.trace.zip stays as it was" \
	test "$(sum notes.trace.zip)" = "$before"
: >empty.data
"$PC" merge empty.data -o empty.trace.zip 2>err.txt
check "merge of an empty file: exit 1, no zip" test $? -eq 1 -a ! -e empty.trace.zip
mkdir bad.trace && head -c 100 /dev/urandom >bad.trace/perf.data
"$PC" merge bad.trace 2>err.txt
check "merge of a directory with a broken perf.data: exit 1, no zip" \
	test $? -eq 1 -a ! -e bad.trace.zip

# stacks: -zip makes a new archive, never over a trace; -o never onto a trace name.
"$PC" stacks -pid "$hot" -zip t.trace.zip 2>err.txt
check "stacks -zip over an existing trace: refused, nothing changed" \
	bash -c "test $? -ne 0 && grep -q 't.trace.zip exists' err.txt"
check "stacks -zip: the trace is unchanged" unchanged
"$PC" stacks -pid "$hot" -o new.trace.zip 2>err.txt
check "stacks -o onto a .trace.zip name: refused, nothing written" \
	test $? -ne 0 -a ! -e new.trace.zip

# collect: the name of a running collection is refused, with its pid; the zip of that name
# and the running collection are untouched.
start_collect t -pid "$hot"
"$PC" collect t -pid "$hot" -collectsec 1 2>err.txt
check "collect of a running name: refused" test $? -ne 0
check "collect of a running name: ... naming the collection's pid" \
	grep -q "a collection named t is running (pid $collector)" err.txt
"$PC" merge t.trace 2>err.txt
check "merge of a directory being recorded: refused, naming the pid" \
	bash -c "test $? -ne 0 && grep -q 'being recorded right now.*pid $collector' err.txt"
check "... the earlier zip is unchanged" unchanged
kill -INT "$collector"
wait "$collector"
check "the running collection still finishes" test $? -eq 0 -a ! -e t.trace
finish
