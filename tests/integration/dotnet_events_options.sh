#!/bin/bash
# The .NET event options and the faults around EventPipe sessions: bad -events/-rawevents/
# -providers values are one line and exit 2 (two -gc options are not: perfcollect took both); -gconly records no CPU samples but allocation
# ticks; -events/-rawevents record those events only (.NET 10 filters by event id);
# -providers reaches any EventSource; -nodotnetevents records none; a target that exits ends
# its session; a killed collector leaves a readable file, its session is ended by the guard,
# and merge packs the file; a process that cannot give events is said in one line.
source "$(dirname "$0")/lib.sh"
source "$TEST_SRCDIR/workloads/dotnet/testlib.sh"
source "$TEST_SRCDIR/traceevent/testlib.sh"
need_root
need_dotnet_app
need_traceevent

# ---- bad values: one line, exit 2, nothing left behind ----
bad() { # bad WHAT EXPECTED-MESSAGE ARGS...
	local what=$1 msg=$2; shift 2
	"$PC" collect bad -pid $$ "$@" >bad.out 2>&1
	local rc=$?
	check "$what: exit 2 ($(head -1 bad.out))" test "$rc" -eq 2
	check "$what: says \"$msg\" in one line" \
		bash -c '[ "$(wc -l <bad.out)" = 1 ] && grep -qF -- "$1" bad.out' _ "$msg"
	check "$what: leaves no bad.trace" test ! -e bad.trace
}
bad "-rawevents without a value" "needs a value" -rawevents
bad "-events with an unknown group" "no event group 'DotNETRuntime_Bogus'" -events DotNETRuntime_Bogus
bad "-rawevents with an unknown event" "no .NET event 'DotNETRuntime:Nope'" -rawevents DotNETRuntime:Nope
bad "-providers without a name" "names no provider" -providers :0x1
bad "-providers with bad keywords" "not a hexadecimal number" -providers Foo:xyz
bad "-nodotnetevents with -gconly" "turns the .NET events off" -nodotnetevents -gconly
# Two -gc options: the first perfcollect checks applies, as there (it took both).
"$PC" collect prec -pid $$ -gcwithheap -gconly -collectsec 0.2 >prec.out 2>&1
check "-gcwithheap -gconly: exit 0, -gconly applies, as perfcollect's order takes it" \
	bash -c "[ $? = 0 ] && grep -q -- '-gconly applies: perfcollect takes it before -gcwithheap' prec.out"

# ---- -gconly: no CPU samples, allocation ticks by type ----
start_app 60
"$PC" collect gc -pid "$APP_PID" -gconly -collectsec 2 2>gc.err
check "-gconly: collect exits 0" test $? -eq 0
"$PC" cat gc.trace.zip perf.data.txt >gc.txt
check "-gconly: no CPU samples in perf.data.txt" test ! -s gc.txt
"$PC" view gc.trace.zip >gc.view 2>&1
check "-gconly: view shows the runtime events of a trace without samples" \
	grep -q "^# .NET runtime events of pid $APP_PID" gc.view
check "-gconly: allocation ticks by type (System.String, System.Byte[] ...)" \
	awk '/^# Allocation ticks: [1-9]/ { t = 1 } t && /System\./ { ok = 1 } END { exit !ok }' gc.view

# ---- -events and -rawevents: only those (the installed runtime filters by event id) ----
"$PC" collect raw -pid "$APP_PID" -events DotNETRuntime_ExceptionKeyword \
	-rawevents DotNETRuntime:GCStart_V2 -collectsec 2 2>raw.err
check "-events/-rawevents: collect exits 0" test $? -eq 0
"$PC" cat raw.trace.zip "dotnet-$APP_PID.nettrace" >raw.nettrace
traceevent nettrace raw.nettrace >raw.te
grep '^event Microsoft-Windows-DotNETRuntime/' raw.te >raw.kinds
check "-rawevents DotNETRuntime:GCStart_V2: GC starts recorded" grep -q '^event Microsoft-Windows-DotNETRuntime/GC/Start ' raw.kinds
check "-events/-rawevents: no other runtime events ($(cut -d' ' -f2 raw.kinds | tr '\n' ' '))" \
	bash -c "! grep -v -e '/GC/Start ' -e '/Exception' raw.kinds"

# ---- -providers: any EventSource (System.Runtime's counters) ----
"$PC" collect prov -pid "$APP_PID" -providers 'System.Runtime:0:5:EventCounterIntervalSec=1' \
	-nodotnetipc -collectsec 3 2>prov.err
check "-providers: collect exits 0" test $? -eq 0
"$PC" cat prov.trace.zip "dotnet-$APP_PID.nettrace" >prov.nettrace
traceevent nettrace prov.nettrace >prov.te
check "-providers: System.Runtime's counters are recorded" grep -q '^event System.Runtime/EventCounters [1-9]' prov.te

# ---- -nodotnetevents ----
"$PC" collect none -pid "$APP_PID" -nodotnetevents -collectsec 1 2>none.err
check "-nodotnetevents: no nettrace in the zip" bash -c "! '$PC' ls none.trace.zip | grep -q 'dotnet-[0-9]*\.nettrace'"

# ---- a killed collector: the file stays readable, the guard ends the session ----
# The app's ends of the connections whose other end is in process $1 (inodes, from ss):
# other collections running meanwhile (system-wide ones of other tests) hold their own.
app_ends_of() {
	ss -xpn 2>/dev/null | awk -v p="pid=$1," 'index($0, p) { print $8 }' | sort -u
}
app_has() { ls -l "/proc/$APP_PID/fd" 2>/dev/null | grep -q "socket:\[$1\]"; }
start_collect killed -pid "$APP_PID"
wait_until 10 grep -q "recording its .NET runtime events" killed.err
# ... and until the runtime's first events are in the file (its header alone is ~100 bytes;
# killed before any, the file holds no event for view to show)
has_events() { [ "$(stat -c %s "killed.trace/dotnet-$APP_PID.nettrace" 2>/dev/null || echo 0)" -gt 1000 ]; }
wait_until 10 has_events
ours=""
for i in $(app_ends_of "$collector"); do app_has "$i" && ours="$ours $i"; done
check "the session holds a connection in the app ($ours)" test -n "$ours"
kill -9 "$collector"
wait "$collector" 2>/dev/null
ours_gone() { for i in $ours; do app_has "$i" && return 1; done; return 0; }
check "after kill -9 the guard ends the session (its connection in the app is closed)" \
	wait_until 30 ours_gone
check "the guard says so" wait_until 10 grep -q "ended it" killed.err
"$PC" view killed.trace/dotnet-$APP_PID.nettrace >killed.view 2>&1
check "view reads the file the killed collector left" grep -q "^# GCs: " killed.view
"$PC" merge killed.trace >merge.out 2>&1
check "merge packs the file into the zip" bash -c "'$PC' ls killed.trace.zip | grep -q dotnet-$APP_PID.nettrace"
kill "$APP_PID"

# ---- the target exits: its session ends with it ----
# (ended once its session records, not after a fixed time: under ASan on a loaded machine
# the collector took longer to attach than an app that ran 2 s lived)
start_app 60
start_collect exit -pid "$APP_PID"
wait_until 30 grep -q "recording its .NET runtime events" exit.err ||
	fail "a target that exits: its events never recorded"
kill "$APP_PID"
wait "$collector"
check "a target that exits: collect exits 0" test $? -eq 0
check "the log says the runtime ended the session" \
	bash -c "'$PC' cat exit.trace.zip perfcollect.log | grep -q 'ended by the runtime'"

# ---- what cannot give events: one line ----
start_app 30 DOTNET_EnableDiagnostics=0
"$PC" collect nodiag -pid "$APP_PID" -collectsec 1 2>nodiag.err
check "DOTNET_EnableDiagnostics=0: one warning naming it" \
	grep -q "no .NET runtime events: .*DOTNET_EnableDiagnostics=0" nodiag.err
"$PC" collect native -pid $$ -collectsec 1 2>native.err
check "a process without .NET: a log line, no warning" bash -c \
	"'$PC' cat native.trace.zip perfcollect.log | grep -q 'no .NET runtime; no .NET runtime events' &&
	 ! grep -q 'runtime events' native.err"
finish
