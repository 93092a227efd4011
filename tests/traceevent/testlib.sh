# Helpers for tests that read our traces with TraceEvent, PerfView's own reader (sourced after
# tests/integration/lib.sh).

# Sets TE_DLL to the built harness; skips the test without the .NET SDK or the package.
need_traceevent() {
	local rc=0
	TE_DLL=$(sh "$TEST_SRCDIR/traceevent/build.sh") || rc=$?
	[ "$rc" = 77 ] && skip "${TE_DLL#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: building the TraceEvent harness (see above)"; exit 1; }
}

# Sets DOTNET_TRACE to dotnet-trace (NuGet, pinned: tests/dotnet_trace.sh); skips without it.
need_dotnet_trace() {
	local rc=0
	DOTNET_TRACE=$(sh "$TEST_SRCDIR/dotnet_trace.sh") || rc=$?
	[ "$rc" = 77 ] && skip "${DOTNET_TRACE#SKIP: }"
	[ "$rc" = 0 ] || { echo "FAIL: installing dotnet-trace (see above)"; exit 1; }
}

# traceevent CMD ARGS...: runs the harness (see tests/traceevent/Program.cs).
traceevent() {
	DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet "$TE_DLL" "$@"
}

# perfview_check ZIP LABEL [--threadtime]: what PerfView shows of ZIP (its Thread Time view
# with --threadtime, the stacks then in LABEL.pv too), checked against our own
# reading of the same trace (`view`):
#   - PerfView's reader opens it (no exception);
#   - per event (PerfView keys events by the part of the name before ':', so sched:* is one),
#     its parser reads as many events and frames as view counts samples and frames, and per
#     thread (the busiest few of each event) as many events;
#   - no frame name it shows is mangled by our text: "[Module]" (and the return type before
#     it) left in a .NET method's name, a .NET method with a file (*.dll) for module, a module
#     holding '/', '(' or ')', a symbol that is a path.
# Prints the figures: events PerfView reads vs ours, the samples its stack view holds, and
# the share of frames it shows as unknown.  The harness output stays in LABEL.pv.
perfview_check() {
	local zip=$1 label=$2 tt=
	[ "${3:-}" = --threadtime ] && tt="--threadtime --stacks"
	local rc=0
	traceevent perfscript "$zip" $tt >"$label.pv" 2>"$label.pv.err" || rc=$?
	check "$label: PerfView's reader opens it (no exception)" \
		bash -c "[ $rc -eq 0 ] && ! grep -q '^exception' '$label.pv'"
	[ "$rc" -eq 0 ] || { grep '^exception' "$label.pv"; return; }
	"$PC" cat "$zip" perf.data.txt >"$label.txt"
	# Our events, by name, from the header lines.
	local events
	events=$(awk '/^[^\t]/ && match($0, /[0-9]+\.[0-9]+: +[0-9]+ +[^ ]+:/) {
		s = substr($0, RSTART, RLENGTH - 1); n = split(s, a, " "); print a[n] }' \
		"$label.txt" | sort -u)
	local groups g e ours ours_f pv pv_f
	groups=$(echo "$events" | sed 's/:.*//' | sort -u)
	for g in $groups; do
		ours=0 ours_f=0
		for e in $(echo "$events" | grep -E "^$g(:|\$)"); do
			read -r n f < <("$PC" view "$zip" -event "$e" -folded - 2>/dev/null |
				awk '{ n += $NF; f += $NF * gsub(/;/, ";") } END { print n + 0, f + 0 }')
			ours=$((ours + n)) ours_f=$((ours_f + f))
		done
		read -r pv pv_f < <(awk -v g="$g" '$1 == "event" && $2 == g { print $3, $4 }' "$label.pv")
		check "$label: PerfView reads $g: ${pv:-0} events, $ours in view" test "${pv:-0}" -eq "$ours"
		check "$label: $g: ${pv_f:-0} frames in PerfView, $ours_f in view" test "${pv_f:-0}" -eq "$ours_f"
		# The busiest threads of this event.
		local pid tid n want
		while read -r pid tid n; do
			want=0
			for e in $(echo "$events" | grep -E "^$g(:|\$)"); do
				want=$((want + $("$PC" view "$zip" -event "$e" -tid "$tid" -folded - 2>/dev/null |
					awk '{ n += $NF } END { print n + 0 }')))
			done
			check "$label: $g of thread $tid (pid $pid): $n in PerfView, $want in view" \
				test "$n" -eq "$want"
		done < <(awk -v g="$g" '$1 == "evthread" && $2 == g { print $3, $4, $5 }' "$label.pv" |
			sort -k3,3nr | head -4)
	done
	# Frame names as PerfView shows them.
	local bad
	bad=$(awk '$1 == "frame" {
		name = substr($0, index($0, $3)); bang = index(name, "!")
		mod = bang ? substr(name, 1, bang - 1) : ""; sym = bang ? substr(name, bang + 1) : name
		why = ""
		if (mod ~ /[\/()]/) why = "module with / or ()"
		else if (sym ~ /^\//) why = "symbol is a path"
		else if (sym ~ /(^| )\[[^] ]+\] /) why = "[Module] left in a name"
		else if (index(sym, "::") && index(sym, "(") && mod ~ /\.(dll|exe)$/)
			why = "a .NET method with a file for module"
		if (why != "") print why ": " name }' "$label.pv" | head -5)
	check "$label: no frame name mangled by our text${bad:+ (e.g. $(echo "$bad" | head -1))}" \
		test -z "$bad"
	[ -n "$bad" ] && echo "$bad"
	# The figures.
	awk -v label="$label" '$1 == "event" { n += $3; f += $4; u += $5 }
		$1 == "samples" { s = $2 }
		END { printf "%s: PerfView reads %d events (samples in its stack view: %d); frames %d, of which unknown %d (%.1f%%)\n",
			label, n, s, f, u, f ? 100 * u / f : 0 }' "$label.pv"
	echo "$label: ours: $(awk '/^[^\t]/ && NF' "$label.txt" | wc -l) samples in perf.data.txt"
}
