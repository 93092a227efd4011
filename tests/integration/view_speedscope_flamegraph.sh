#!/usr/bin/env bash
# view -format speedscope checked against the JSON schema the speedscope npm package ships
# (and weights that add up); the SVG flame graph's own script run in a DOM (jsdom) as a
# browser runs it: it fills the window's width, labels .NET methods short, searches with the
# case-insensitive toggle, zooms; -title and -width; sub-pixel frames merged.
source "$(dirname "$0")/lib.sh"
need_cmd xmllint
F=$TEST_SRCDIR/formats
NM=$(sh "$F/install.sh") || { [ $? = 77 ] && skip "${NM#SKIP: }"; echo "$NM"; exit 1; }
export NODE_PATH=$NM/node_modules

# A perf script text: the .NET app's layout of names, 1 ms cpu-clock samples.
sample() { # sample COMM PID COUNT FRAME... (leaf first; FRAME is "sym|dso")
	local comm=$1 pid=$2 n=$3 i f; shift 3
	for ((i = 0; i < n; i++)); do
		printf '%s %d/%d [000] %d.%06d: 1000000 cpu-clock:\n' "$comm" $pid $pid $((100 + i / 1000)) $((i % 1000 * 1000))
		for f in "$@"; do printf '\t%16x %s (%s)\n' $((0x1000 + ${#f})) "${f%%|*}" "${f#*|}"; done
		echo
	done
}
M=/tmp/perf-42.map
digits="int32 [app] App.HotLoop::Digits(int32)[OptimizedTier1]|$M"
churn="int64 [app] App.HotLoop::Churn(int32)[OptimizedTier1]|$M"
main="int32 [app] App.Program::Main(string[])[QuickJitted]|$M"
{
	sample dotnet 42 600 "$digits" "$main" "__libc_start_call_main|/usr/lib/libc.so.6"
	sample dotnet 42 300 "$churn" "$main" "__libc_start_call_main|/usr/lib/libc.so.6"
	sample bash 7 100 "readline|/usr/bin/bash" "main|/usr/bin/bash"
	# 40 callees of one sample each under main: each far narrower than a pixel
	for i in $(seq 10 49); do sample dotnet 42 1 "tiny$i|/usr/lib/libc.so.6" "$main"; done
} >app.txt

"$PC" view app.txt -format speedscope >ss.out 2>&1
check "view -format speedscope writes app.speedscope.json" test -s app.speedscope.json
node "$F/speedscope_check.js" app.speedscope.json >ss.txt 2>&1
check "it passes speedscope's own schema, weights add up" test $? = 0
cat ss.txt
check "  a profile of all processes, then one per process, heaviest first" \
	bash -c "cut -f2 ss.txt | tr '\n' '|' | grep -qx 'all processes: 1040 samples|dotnet: 940 samples|bash: 100 samples|'"
check "  stacks root first" \
	grep -qP '^profile\tdotnet: 940 samples\tnone\t940\t__libc_start_call_main;int32 \[app\] App.Program::Main\(string\[\]\)\[QuickJitted\];int32 \[app\] App.HotLoop::Digits' ss.txt

"$PC" view app.txt -format svg -title "Checkout service" -width 1000 >svg.out 2>&1
check "view -format svg writes app.svg" test -s app.svg
check "  well-formed XML" xmllint --noout app.svg
check "  with the title asked" grep -q '>Checkout service</text>' app.svg
check "  drawn 1000 px wide" grep -q '<svg [^>]*width="1000"' app.svg
check "  the 40 sub-pixel frames merged into one" \
	grep -q '40 functions, each narrower than a pixel at 1000 px' app.svg
node "$F/flamegraph_check.js" app.svg 1600 'hotloop::DIGITS' >fg.txt 2>&1
check "its script runs in a DOM" test $? = 0
cat fg.txt
check "  it fills a 1600 px window" grep -qP '^svgwidth\t1600$' fg.txt
check "  the root frame spans it (1600 - 2 x 10 px)" grep -qP '^rootwidth\t1580.00$' fg.txt
check "  .NET frames are labelled short" grep -qP '^labels\t.*\|HotLoop::Digits\|' fg.txt
check "  with the full signature on hover" \
	grep -q '<title>int32 \[app\] App.HotLoop::Digits(int32)\[OptimizedTier1\]' app.svg
check "  search is case-sensitive by default: no match" grep -qP '^search\tMatched: 0.00% \(0 frames\)$' fg.txt
check "  the ic toggle finds Digits: 600 of 1040 samples" grep -qP '^search-ic\tMatched: 57.69% \(1 frames\)$' fg.txt
check "  a click zooms" grep -qP '^zoomed\tyes$' fg.txt
finish
