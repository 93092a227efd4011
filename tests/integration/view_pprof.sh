#!/usr/bin/env bash
# view -format pprof on a real trace of the demo workload, read by pprof itself (`go tool
# pprof` from Debian's golang): the profile parses, its samples add up to view's count, the
# hottest function is hot_leaf, the main mapping is hot's binary with its build-id (as
# readelf reads it), samples carry their command as a label, and the CPU time is in ns.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd readelf
command -v go >/dev/null || skip "go is not installed (Debian golang-go; scripts/setup installs it)"
export GOCACHE=$T/gocache GOPATH=$T/gopath HOME=${HOME:-$T}

"$WORKLOADS/hot" 30 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
"$PC" collect app -pid $hot -collectsec 1 >collect.out 2>&1 || { cat collect.out; exit 1; }
kill $hot

"$PC" view app.trace.zip -format pprof >view.out 2>&1
check "view -format pprof writes app.pb.gz, named after the trace" test -s app.pb.gz
check "  a gzip file" bash -c "[ \"\$(head -c2 app.pb.gz | od -An -tx1 | tr -d ' ')\" = 1f8b ]"
go tool pprof -top app.pb.gz >top.txt 2>top.err
check "go tool pprof -top reads it" test $? = 0
cat top.txt | head -12
check "  hot_leaf is the hottest function" \
	bash -c "awk '/flat%/{getline; print \$NF; exit}' top.txt | grep -qx hot_leaf"
check "  the main binary is hot" grep -q "^File: hot$" top.txt
check "  the sample type is CPU time" grep -q "^Type: cpu$" top.txt
go tool pprof -raw app.pb.gz >raw.txt 2>&1
build_id=$(readelf -n "$WORKLOADS/hot" | sed -n 's/.*Build ID: //p')
check "  hot's mapping carries its build-id ($build_id)" \
	grep -qE "^ *1: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 .*/hot $build_id \[FN\]" raw.txt
total=$("$PC" view app.trace.zip | sed -n 's/^# Event: cpu-clock, \([0-9]*\) samples.*/\1/p')
sum=$(awk '/^Samples:/{on=1; getline; next} /^Locations/{on=0} on && /^ *[0-9]+ +[0-9]+:/{s += $1} END{print s}' raw.txt)
check "  its samples add up to view's count ($sum = $total)" test "$sum" = "$total"
check "  each sample is labelled with its command" grep -q "comm:\[hot\]" raw.txt
ns=$(awk '/^Samples:/{on=1; getline; next} /^Locations/{on=0} on && /^ *[0-9]+ +[0-9]+:/{n += $1; ns += $2} END{printf "%d", ns / n}' raw.txt)
check "  each sample is about 1 ms of CPU (cpu-clock at 1000 Hz: $ns ns)" \
	bash -c "[ $ns -gt 500000 ] && [ $ns -lt 2000000 ]"
"$PC" view app.trace.zip -format pprof -o - >stdout.pb.gz 2>/dev/null
check "-o - writes the same profile to standard output" cmp -s app.pb.gz stdout.pb.gz
"$PC" view app.trace.zip -o other.pb.gz >/dev/null 2>&1
check "-o FILE.pb.gz alone means pprof" cmp -s app.pb.gz other.pb.gz
check "no temporary file is left" bash -c "! ls *.tmp.* 2>/dev/null"
finish
