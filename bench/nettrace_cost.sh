#!/usr/bin/env bash
# What <name>.nettrace costs: its size per sample against the trace.zip's, and the CPU time
# it adds to the post-processing pass.  Records SECONDS system-wide (-threadtime, so context
# switches are in it too) while tests/workloads/hot keeps a CPU busy, then merges the same
# recording with -format perfcollect, both and nettrace, best of RUNS by CPU time (user +
# sys: the fair figure on a shared machine).
#
#   sudo bench/nettrace_cost.sh [BUILD_DIR] [SECONDS] [RUNS]    # defaults: build 10 5
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
secs=${2:-10}
runs=${3:-5}
pc=$build/perfcollect-c
work=$(mktemp -d /tmp/nettrace-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$build/tests/workloads/hot" $((secs + 2)) >/dev/null &
"$pc" collect rec -collectsec "$secs" -threadtime -format perfcollect 2>/dev/null
wait

best() { # FORMAT: the lowest user+sys seconds of RUNS merges
	local fmt=$1 b= t
	for _ in $(seq "$runs"); do
		rm -f "m-$fmt".*
		/usr/bin/time -o cpu.txt -f '%U %S' "$pc" merge rec.trace.zip -o "m-$fmt.trace.zip" \
			-format "$fmt" >/dev/null 2>&1
		t=$(awk '{ print $1 + $2 }' cpu.txt)
		b=$(awk -v a="${b:-$t}" -v t="$t" 'BEGIN { print (t < a ? t : a) }')
	done
	echo "$b"
}
cpu_zip=$(best perfcollect)
cpu_both=$(best both)
cpu_nt=$(best nettrace)
samples=$("$pc" log m-both.trace.zip | sed -n 's/.*records: .*, samples: \([0-9]*\),.*/\1/p' | tail -1)
zip=$(stat -c %s m-perfcollect.trace.zip)
both_zip=$(stat -c %s m-both.trace.zip)
nt=$(stat -c %s m-nettrace.nettrace)
awk -v s="$samples" -v zip="$zip" -v bz="$both_zip" -v nt="$nt" -v cz="$cpu_zip" \
	-v cb="$cpu_both" -v cn="$cpu_nt" 'BEGIN {
	printf "samples                         %d\n", s
	printf "trace.zip (perfcollect)         %d bytes, %.1f per sample\n", zip, zip / s
	printf ".nettrace                       %d bytes, %.1f per sample\n", nt, nt / s
	printf ".nettrace deflated in the zip   %d bytes, %.1f per sample\n", bz - zip, (bz - zip) / s
	printf "merge CPU: perfcollect %.2f s, both %.2f s (+%.0f%%), nettrace alone %.2f s\n",
		cz, cb, 100 * (cb - cz) / cz, cn
}'
