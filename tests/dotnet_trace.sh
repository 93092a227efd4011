#!/bin/sh
# Installs dotnet-trace, Microsoft's collector of .NET traces (a NuGet tool), pinned to the
# version the tests were checked against, under $BUILD_DIR/tests/dotnet-trace/<version>
# (cached: once per build directory; scripts/setup does it ahead of the tests), and prints
# the path of the dotnet-trace command.  Exit 77 with a reason when it cannot be had (no
# SDK, NuGet unreachable).
#   dotnet_trace.sh [VERSION]
set -eu
version=${1:-10.0.750501}
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: the .NET SDK (dotnet) is not installed"; exit 77; }
dir=${BUILD_DIR:-${TMPDIR:-/tmp}}/tests/dotnet-trace/$version
tool=$dir/dotnet-trace
[ -x "$tool" ] && { echo "$tool"; exit 0; }
mkdir -p "$dir"
# One install at a time (tests may run in parallel); the second waits and finds the result.
exec 9>"$dir.lock"
flock 9
[ -x "$tool" ] && { echo "$tool"; exit 0; }
log=$(mktemp "$dir.log.XXXXXX")
trap 'rm -f "$log"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
if ! dotnet tool install --tool-path "$dir" dotnet-trace --version "$version" >"$log" 2>&1; then
	echo "SKIP: dotnet tool install dotnet-trace $version failed (no NuGet?): $(tail -n 1 "$log")"
	exit 77
fi
echo "$tool"
