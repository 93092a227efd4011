#!/usr/bin/env bash
# perfcollect's parser, exactly.  ProcessArguments in perfcollect (microsoft/perfview,
# src/perfcollect/perfcollect) runs for the verbs collect, start, stop and view, and takes
# every one of its options on each of them, with its value (lowercased but for -events and
# -rawevents), whether the verb uses it or not; -viewer is checked (perf or lttng) on every
# verb.  Its options are the 18 below (its usage text names a subset of them).  install
# looks only at -force; livetrace and setenv parse nothing.
#
# The table drives every option through every one of those verbs: accepted (not the usage
# error, exit 2) with its value consumed, and then
#   M  it means here what it meant in perfcollect (no "ignored" note under -v),
#   I  perfcollect's verb took it and ignored it: so does ours, and -v says so,
#   D  ours does more than perfcollect's verb did (view -pid, -offcpu, -processfilter
#      filter without regard to case): -v says how.
source "$(dirname "$0")/lib.sh"
private_run

start_hot 900 # killed at exit; the ASan build takes over 2 minutes here
# A trace for view, with sched_switch samples (for view -offcpu).
"$PC" collect base -pid $hot -collectsec 0.5 -threadtime >base.out 2>&1 ||
	{ cat base.out; fail "collect base"; finish; }

#      option         value                     collect start stop view
table='pid            @HOT@                     M       M     I    D
       processfilter  HOT                       I       I     I    D
       graphtype      caller                    I       I     I    M
       threadtime     -                         M       M     I    I
       offcpu         -                         M       M     I    D
       system         -                         M       M     I    I
       hwevents       -                         M       M     I    I
       perfopt        --sort=comm               I       I     I    M
       viewer         perf                      I       I     I    M
       nolttng        -                         M       M     I    I
       noperf         -                         M       M     I    I
       gccollectonly  -                         M       M     I    I
       gconly         -                         M       M     I    I
       gcwithheap     -                         M       M     I    I
       events         threading                 M       M     I    I
       rawevents      DotNETRuntime:GCStart_V2  M       M     I    I
       collectsec     0.4                       M       M     I    I
       buffersize     100M                      M       M     I    I'
n=$(grep -c . <<<"$table")
check "the table has every one of perfcollect's 18 options" test "$n" = 18

# verdict VERB OPTION WHAT FILE RC: checks one cell.
verdict() {
	local verb=$1 opt=$2 what=$3 out=$4 rc=$5
	case $what in
	M) check "$verb -$opt: accepted, means what it meant (exit $rc)" \
		bash -c "[ $rc != 2 ] && ! grep -q -- '-$opt[^:]*: ignored' '$out'" ;;
	I) check "$verb -$opt: accepted and ignored, -v says so (exit $rc)" \
		bash -c "[ $rc != 2 ] && grep -q -- \"^perfcollect-c $verb: -$opt.*: ignored: $verb does not use it (perfcollect's $verb took it and ignored it too)\" '$out'" ;;
	D) check "$verb -$opt: accepted, -v says how it differs from perfcollect's (exit $rc)" \
		bash -c "[ $rc != 2 ] && grep -q -- \"^perfcollect-c $verb: -$opt.*perfcollect\" '$out'" ;;
	esac
	[ "$rc" = 2 ] && sed 's/^/    /' "$out"
	return 0
}

i=0
while read -r opt val c s p v; do
	i=$((i + 1))
	args=("-$opt")
	val=${val//@HOT@/$hot}
	val=${val//HOT/Hot} # any case, as perfcollect lowercased it
	[ "$val" != - ] && args+=("$val")
	base=(-pid $hot -collectsec 0.4)
	case $opt in pid | collectsec) base=() ;; esac
	[ $opt = pid ] && base=(-collectsec 0.4)
	[ $opt = collectsec ] && base=(-pid $hot)

	rc=0
	"$PC" collect c$i "${base[@]}" "${args[@]}" -v >c$i.out 2>&1 || rc=$?
	verdict collect "$opt" "$c" c$i.out $rc

	# start with it, and stop that collection with it.
	rc=0
	"$PC" start s$i "${base[@]}" "${args[@]}" -v >s$i.out 2>&1 || rc=$?
	verdict start "$opt" "$s" s$i.out $rc
	rc=0
	(cd / && "$PC" stop s$i "${args[@]}" -v) >p$i.out 2>&1 || rc=$?
	verdict stop "$opt" "$p" p$i.out $rc
	check "  stop -$opt ended s$i and wrote its zip" \
		test -s s$i.trace.zip

	rc=0
	"$PC" view base.trace.zip "${args[@]}" -v >v$i.txt 2>v$i.out || rc=$?
	verdict view "$opt" "$v" v$i.out $rc
done <<<"$table"

# What M and D mean here, where it shows in the output.
check "view -processfilter Hot keeps hot's samples (any case)" grep -q hot_leaf v2.txt
check "view -graphtype caller is the caller graph" grep -q "Call graph (caller)" v3.txt
check "collect -collectsec 0.4 stops after 0.4 s" grep -qE "Stopped \(-collectsec elapsed\)" c17.out
"$PC" log c18.trace.zip >c18.log
check "collect -buffersize 100M: 128 MiB rings" grep -q "ring buffers: .* 131072 KiB each" c18.log

# -viewer is checked on every verb, as perfcollect's parser checked it.
for verb in collect start stop view; do
	rc=0
	case $verb in
	view) "$PC" view base.trace.zip -viewer babeltrace >vw.out 2>&1 || rc=$? ;;
	*) "$PC" $verb vw -pid $hot -collectsec 0.2 -viewer babeltrace >vw.out 2>&1 || rc=$? ;;
	esac
	check "$verb -viewer babeltrace: usage error naming perf and lttng, as perfcollect's" \
		bash -c "[ $rc = 2 ] && grep -q 'perf or lttng' vw.out"
done
check "  and nothing was started" bash -c "! ls vw.trace* 2>/dev/null && ! '$PC' stop -list | grep -q ."

# Our own options (every one --help lists that perfcollect's parser does not have) stay
# with the verbs that list them: on the others they are unknown options (exit 2), as any
# option added later will be.
pc_opts=" $(awk '{ print $1 }' <<<"$table" | tr '\n' ' ') "
help_opts() { # the options VERB --help lists, without their dash
	"$PC" "$1" --help | grep -oE '^ +(-[a-zA-Z], )?-{1,2}[a-zA-Z][a-zA-Z-]*' |
		sed -E 's/^ +(-[a-zA-Z], )?-{1,2}//; s/^ +-//' | sort -u
}
declare -A own
for verb in collect start stop view; do
	own[$verb]=" $(help_opts $verb | tr '\n' ' ') "
	# the short forms too (-o, -F, -p, -v)
	own[$verb]+="$("$PC" $verb --help | grep -oE '^ +-[a-zA-Z],' | tr -d ' ,-' | tr '\n' ' ') "
done
ours=$(for verb in collect start stop view; do tr ' ' '\n' <<<"${own[$verb]}"; done | sort -u |
	grep -vxE 'help|v|verbose|' | while read -r o; do [[ $pc_opts == *" $o "* ]] || echo "$o"; done)
n=0
for o in $ours; do
	for verb in collect start stop view; do
		[[ ${own[$verb]} == *" $o "* ]] && continue
		rc=0
		case $verb in
		view) "$PC" view base.trace.zip "-$o" >own.out 2>&1 || rc=$? ;;
		stop) "$PC" stop "-$o" >own.out 2>&1 || rc=$? ;;
		*) "$PC" $verb own "-$o" >own.out 2>&1 || rc=$? ;;
		esac
		[ $rc = 2 ] && grep -q "unknown option '-$o'" own.out ||
			fail "$verb -$o (ours, not $verb's): exit $rc, not the unknown option: $(head -1 own.out)"
		n=$((n + 1))
	done
done
check "our own options are unknown where they mean nothing ($n cases: $(echo $ours | wc -w) options)" \
	test "$n" -gt 20
check "  nothing was started by them" bash -c "! '$PC' stop -list | grep -q ."

# Without -v the ignored ones are not said (perfcollect printed nothing either).
"$PC" view base.trace.zip -threadtime -collectsec 5 >/dev/null 2>quiet.out
check "without -v nothing is said of ignored options" bash -c "! grep -q ignored quiet.out"

# The verbs perfcollect's parser does not run for.
rc=0
"$PC" install -force >inst.out 2>&1 || rc=$?
check "install -force (all perfcollect's install looks at): accepted (exit $rc)" test $rc != 2
rc=0
"$PC" setenv -- true >se.out 2>&1 || rc=$?
check "setenv: accepted (exit $rc)" test $rc = 0
rc=0
"$PC" livetrace >lt.out 2>&1 || rc=$?
check "livetrace: accepted, says it is not supported and what to use (exit $rc)" \
	bash -c "[ $rc = 1 ] && grep -q 'use .collect' lt.out"
finish
