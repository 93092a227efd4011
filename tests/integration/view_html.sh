#!/usr/bin/env bash
# view -format html (and --report) in a real browser: Debian's chromium, headless, driven over
# the DevTools protocol (tests/formats/html_check.js, puppeteer-core; one browser for every
# page).  Pages: a perf script text whose hottest frame is named with markup (and a -diff of
# two such texts), our collect of the C workload, and our collect of the .NET app (CPU
# samples named from its perf map, the runtime's allocation, exception and contention
# events).  Each page loads with no console error and no network request; the known hot
# functions are in the drawn flame graph; a click zooms a frame to the page's width and the
# breadcrumb zooms back; search finds and counts; the alloc view shows the app's Widget; a
# dragged time range changes the totals; the markup name is text.  A screenshot of each
# view goes to $BUILD_DIR/tests/view_html/ for a person to look at.
source "$(dirname "$0")/lib.sh"
F=$TEST_SRCDIR/formats
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "chromium is not installed (scripts/setup installs it)"
NM=$(sh "$F/install.sh") || { [ $? = 77 ] && skip "${NM#SKIP: }"; echo "$NM"; exit 1; }
export NODE_PATH=$NM/node_modules CHROMIUM
SHOTS=$BUILD_DIR/tests/view_html
rm -rf "$SHOTS" && mkdir -p "$SHOTS"

# A perf script text, 1 ms cpu-clock samples from T0 ms on (leaf first; FRAME is "sym|dso").
sample() { # sample COMM PID TID COUNT T0MS FRAME...
	local comm=$1 pid=$2 tid=$3 n=$4 t0=$5 i f us; shift 5
	for ((i = 0; i < n; i++)); do
		us=$((t0 * 1000 + i * 1000))
		printf '%s %d/%d [000] %d.%06d: 1000000 cpu-clock:\n' "$comm" "$pid" "$tid" \
			$((100 + us / 1000000)) $((us % 1000000))
		for f in "$@"; do printf '\t%16x %s (%s)\n' $((0x1000 + ${#f})) "${f%%|*}" "${f#*|}"; done
		echo
	done
}
MARKUP='<img src=x onerror=alert(1)></script><script>alert(2)</script>'
markup_trace() { # markup_trace HOT COLD: HOT samples in the markup frame, then COLD in cold_leaf
	sample app 42 42 "$1" 0 "$MARKUP|/tmp/perf-42.map" "hot_middle|/usr/bin/app" \
		"main|/usr/bin/app" "__libc_start_call_main|/usr/lib/libc.so.6"
	sample app 42 43 "$2" "$1" "cold_leaf|/usr/bin/app" "hot_middle|/usr/bin/app" "main|/usr/bin/app"
	printf 'app\u2028 42/43 [000] 101.500000: 1000000 cpu-clock:\n\t1000 do_syscall_64 ([kernel.kallsyms])\n\n'
}
markup_trace 600 300 >markup.txt
markup_trace 300 600 >old.txt

"$PC" view markup.txt -format html -o markup.html 2>err
check "view -format html -o writes the page" test -s markup.html
check "  the markup name is never markup in the file (no '<img', no '</script><script>')" \
	bash -c "! grep -q -e '<img' -e 'alert(2)</script>' markup.html"
check "  nothing the page would fetch: no http(s) URL in it" \
	bash -c "! grep -qiE '(src|href)=\"?https?:' markup.html"
"$PC" view old.txt -format html -diff markup.txt -o diff.html 2>err
check "view -diff -format html writes a differential page" grep -q '"baseTotal":' diff.html
out=$("$PC" view markup.txt --report 2>err)
check "view --report writes NAME.report.html beside the trace and prints its path ($out)" \
	test "$out" = ./markup.report.html -a -s markup.report.html
mkdir -p sub && cp markup.txt sub/
out=$("$PC" view sub/markup.txt --report 2>err)
check "  beside a trace in another directory too ($out)" test "$out" = sub/markup.report.html -a -s sub/markup.report.html
"$PC" view markup.txt --report -o x.html >/dev/null 2>err
check "  --report with -o is refused with the way to name the file" grep -q -- "-format html -o" err
"$PC" view markup.txt -format html -o - >stdout.html 2>/dev/null
check "-format html -o - writes the page to stdout" grep -q '^</body></html>$' stdout.html

pages=('{"file":"markup.html","name":"markup","zoom":"hot_middle","search":"cold","range":true,"text":'"$(printf '%s' "$MARKUP" | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0,"utf8")))')"'}'
	'{"file":"diff.html","name":"diff"}')

# Our collect of the C workload, 2 s: hot_leaf from hot_middle from main.
c_trace=false
if [ "$(id -u)" = 0 ]; then
	"$WORKLOADS/hot" 5 &
	hot=$!
	cleanup_hooks+=("kill $hot 2>/dev/null")
	if "$PC" collect hot -pid "$hot" -collectsec 2 >collect.out 2>&1 && [ -s hot.trace.zip ]; then
		out=$("$PC" view hot.trace.zip --report 2>err)
		check "--report of a 2 s collect of the C workload: $out" test -s hot.report.html
		size=$(stat -c %s hot.report.html)
		echo "hot.report.html: $size bytes"
		check "  a 2 s trace's page is under 1 MB ($size bytes)" test "$size" -lt 1048576
		pages+=('{"file":"hot.report.html","name":"hot","zoom":"hot_middle","search":"hot_leaf","range":true,"butterfly":"hot_middle"}')
		c_trace=true
	else
		cat collect.out
		fail "collect of the C workload failed"
	fi
	kill "$hot" 2>/dev/null
	wait "$hot" 2>/dev/null
else
	echo "(not root: no collect of the C workload)"
fi

# Our collect -threadtime of the blocker: its main thread sleeps 4 x 200 ms in blocker_sleep
# and waits 4 x ~100 ms for the pipe, and spins 30 ms a round: off-CPU spans on its row.
blocker_trace=false
if [ "$(id -u)" = 0 ]; then
	"$WORKLOADS/blocker" 200 100 4 wait spin=30 >blocker.out &
	blocker=$!
	cleanup_hooks+=("kill $blocker 2>/dev/null")
	start_collect blocker -pid "$blocker" -threadtime
	kill -USR1 "$blocker"
	wait "$collector"
	if [ -s blocker.trace.zip ] && "$PC" view blocker.trace.zip -format html -o blocker.html 2>err; then
		pages+=('{"file":"blocker.html","name":"blocker","offcpu":'"$blocker"',"range":true}')
		blocker_trace=true
	else
		cat blocker.err err
		fail "collect -threadtime of the blocker failed"
	fi
fi

# Our collect of the .NET app: its CPU samples and its runtime's events.
dotnet_trace=false
if [ "$(id -u)" = 0 ] && (source "$TEST_SRCDIR/workloads/dotnet/testlib.sh" && need_dotnet_app) >/dev/null 2>&1; then
	source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
	need_dotnet_app
	go=$T/go
	# The app waits for $T/stop after its work: it outlives our collection's post-processing,
	# which reads its perf map through the live process.
	env DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_PerfMapEnabled=1 \
		"${DOTNET_CMD[@]}" "$DLL" perfview "$go" 2 "$T/stop" >"$T/app.out" 2>&1 &
	APP_PID=$!
	cleanup_hooks+=("kill $APP_PID 2>/dev/null; wait $APP_PID 2>/dev/null; remove_runtime_files $APP_PID")
	if wait_until 60 grep -q "^ready $APP_PID\$" "$T/app.out"; then
		start_collect app -pid "$APP_PID" -events DotNETRuntime_GCKeyword,DotNETRuntime_ExceptionKeyword,DotNETRuntime_ContentionKeyword,DotNETRuntime_JitKeyword,DotNETRuntime_LoaderKeyword
		wait_until 30 grep -q "recording its .NET runtime events" app.err || fail "no EventPipe session: $(cat app.err)"
		touch "$go"
		wait_until 90 grep -q '^done' "$T/app.out" || fail "the app did not finish: $(cat "$T/app.out")"
		kill -INT "$collector"
		wait "$collector"
		touch "$T/stop"
		wait "$APP_PID"
		"$PC" view app.trace.zip -format html -o app.html 2>err
		check "view -format html of the .NET app's trace" test -s app.html
		pages+=('{"file":"app.html","name":"dotnet","search":"Profiled::Hot","range":true}')
		dotnet_trace=true
	else
		fail "the .NET app got not ready: $(cat "$T/app.out")"
	fi
else
	echo "(no .NET SDK or not root: no .NET part)"
fi

(IFS=,; echo "[${pages[*]}]") >spec.json
node "$F/html_check.js" "$SHOTS" spec.json >res.txt 2>res.err
check "chromium ran every page ($(wc -l <res.txt) lines)" test $? = 0
cat res.txt res.err
field() { awk -F'\t' -v p="$1" -v k="$2" '$1 == p && $2 == k' res.txt; }
# is PAGE KEY AWK-CONDITION: the page's KEY line meets the condition
is() { field "$1" "$2" | awk -F'\t' "{ n++; if (!($3)) bad = 1 } END { exit !(n && !bad) }"; }
drawn() { # drawn PAGE VIEW NAME: NAME among the frames drawn at least 1% wide
	field "$1" view | awk -F'\t' -v v="$2" '$3 == v { print $5 }' | tr '|' '\n' | grep -qxF "$3"
}

for p in markup diff $($c_trace && echo hot) $($blocker_trace && echo blocker) $($dotnet_trace && echo dotnet); do
	check "$p: no console error" test "$(field $p console_errors | cut -f3)" = 0
	check "$p: no network request" test "$(field $p requests | cut -f3)" = 0
	check "$p: no dialog (no script from the trace ran)" test "$(field $p dialogs | cut -f3)" = 0
	# The renderer's CPU time to the load event: wall times on a shared machine measure its
	# load as much as the page (bench/view_html.sh shows both).
	load=$(field $p load_ms | awk -F'\t' '{ print $NF }')
	check "$p: loaded with under 2 s of the renderer's CPU ($load ms; wall $(field $p load_ms | cut -f3) ms)" \
		test "${load:-99999}" -lt 2000
done

check "markup: the markup frame is drawn in the flame graph" drawn markup cpu-clock "$MARKUP"
check "markup: the call tree shows it as text, and the page holds no <img> element" \
	test "$(field markup text | cut -f3-5)" = "shown	img_elements	0"
zoomed() { # PAGE: the frame clicked spans the canvas afterwards
	is "$1" zoom '$5 != "gone" && $5 + 0.5 >= $6'
}
check "markup: a click zooms hot_middle (a third of the width) to the page's width" \
	is markup zoom '$4 < 0.5 * $6 && $5 + 0.5 >= $6'
check "markup: the breadcrumb leads back to it" \
	test "$(field markup crumbs | cut -f3)" = "all > app > main > hot_middle"
check "markup: the breadcrumb's 'all' zooms out again" \
	test "$(field markup unzoom | cut -f3)" = "$(field markup zoom | cut -f4)"
check "markup: search finds cold_leaf: 300 of 901 samples, one function, highlighted" \
	test "$(field markup search | cut -f4-6)" = "Matched: 33.30% of 901 samples (1 functions)	1	1"
check "markup: a time range (a quarter of the trace) changes the total" \
	is markup range '$3 == 901 && $4 > 0 && $4 < $3'
# its samples are at 0-899 ms (one a ms) and 1500 ms: the range [A, B] us holds those in it
expect=$(field markup range | awk -F'\t' '{ for (t = 0; t <= 1500; t++)
	if ((t < 900 || t == 1500) && t * 1000 >= $6 && t * 1000 <= $7) n++; print n + 0 }')
check "markup: the range's total is the samples' count inside it ($expect), the page's times decoded right" \
	is markup range "\$4 == $expect"
# range_view PAGE VIEW TOTAL INSIDE WHOLE FACTS A B: after the range, each view switched to
in_range() { # PAGE: every view's total is its events' weight inside the range, said on the page
	is "$1" range_view '$4 == $5 && $7 ~ / in [0-9.]+[^ ]+ ms/'
}
check "markup: the range kept by a switch of view: its total is the range's and the page says it" in_range markup
check "diff: the differential page draws its frames" drawn diff cpu-clock cold_leaf

if $c_trace; then
	check "hot: hot_leaf is drawn in the CPU flame graph" drawn hot cpu-clock hot_leaf
	check "hot: a click zooms hot_middle to the page's width" zoomed hot
	check "hot: search finds hot_leaf with most of the samples" \
		is hot search 'split($4, a, /[ %]/) && a[2] >= 50 && $5 >= 1'
	check "hot: a time range changes the total" is hot range '$4 > 0 && $4 < $3'
	check "hot: every view (switched to) keeps the range: its total is the range's ($(field hot range_view | cut -f3-5 | tr '\t\n' ' ;'))" \
		in_range hot
	check "hot: the callers/callees of hot_middle: called by main, calls hot_leaf most" \
		is hot butterfly '$3 == "hot_middle" && $4 ~ /(^|[|])main([|]|$)/ && $5 ~ /^hot_leaf([|]|$)/'
fi
if $blocker_trace; then
	# its main thread's 4 sleeps of 200 ms and 4 pipe waits of ~100 ms (the writer's sleep)
	check "blocker: the timeline draws its main thread's waits as off-CPU spans ($(field blocker offcpu | cut -f4-8 | tr '\t' ' '): >= 8, >= 1080 ms, one >= 190 ms)" \
		is blocker offcpu '$4 >= 8 && $5 >= 1080 && $6 >= 190'
	check "blocker: and its spins as on-CPU spans" is blocker offcpu '$7 >= 4'
	check "blocker: the blocked view keeps the range too" in_range blocker
	check "blocker: its waits count their part inside the range: at most its two threads' span ($(field blocker range_view | awk -F'\t' '$3 == "blocked" { printf "%.1f ms in %.1f ms", $4 / 1e6, ($9 - $8) / 1e3 }'))" \
		is blocker range_view '$3 != "blocked" || ($4 > 0 && $4 <= 2 * ($9 - $8) * 1000)'
fi
if $dotnet_trace; then
	hot=$(field dotnet view | awk -F'\t' '$3 == "cpu-clock" { print $5 }' | tr '|' '\n' | grep -m1 'Profiled::Hot')
	check "dotnet: the hot method is drawn in the CPU flame graph (${hot:-none})" test -n "$hot"
	# search's share: the stacks with a frame that matches, each once (as folded stacks count)
	share=$("$PC" view app.trace.zip -folded - 2>/dev/null | awk '{ n = $NF; t += n
		if ($0 ~ /Profiled::Hot/) m += n } END { printf "%.2f%%", t ? 100 * m / t : 0 }')
	check "dotnet: search finds the hot method: $share of the samples, as the folded stacks say" \
		is dotnet search "\$4 ~ /^Matched: $share of / && \$5 >= 1"
	check "dotnet: the alloc view shows PcDotnetApp.Widget" drawn dotnet alloc PcDotnetApp.Widget
	check "dotnet: the exception and contention views are there" \
		is dotnet views '$3 ~ /(^|[|])exception([|]|$)/ && $3 ~ /(^|[|])contention([|]|$)/'
	check "dotnet: the GC table has rows" test "$(field dotnet panel | awk -F'\t' '$3 == "gc" { print $4 }')" -gt 0
	jits=$("$PC" view app.trace.zip -runtime jit -format csv -o - 2>/dev/null | tail -n +2 | wc -l)
	check "dotnet: the JIT table has the $jits methods of -runtime jit" \
		test "$(field dotnet panel | awk -F'\t' '$3 == "jit" { print $4 }')" = "$([ "$jits" = 0 ] || echo "$jits")"
	check "dotnet: a time range changes the total" is dotnet range '$4 > 0 && $4 < $3'
	check "dotnet: every view (switched to) keeps the range: its total is the range's" in_range dotnet
fi
echo "screenshots: $SHOTS"
ls "$SHOTS"
finish
