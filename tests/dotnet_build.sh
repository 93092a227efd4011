#!/bin/sh
# Builds a small .NET project of the tests (its *.csproj and *.cs files) with the installed
# SDK and prints the path of its DLL.  The output is cached under
# $BUILD_DIR/tests/<name>/<key>, the key a hash of the sources and the SDK version, so tests
# build it once (a cold build takes 5-30 s; a cached one nothing).  Exit 77 with a reason
# when there is no SDK.
#
#   dotnet_build.sh SRCDIR NAME DLL [PROPERTY=VALUE...]  -> /path/to/build/tests/NAME/<key>/DLL
# PROPERTY=VALUE: MSBuild properties for the build (e.g. PcTargetFramework=net8.0), part of
# the key.
set -eu
[ $# -ge 3 ] || { echo "usage: dotnet_build.sh SRCDIR NAME DLL [PROPERTY=VALUE...]" >&2; exit 2; }
src=$(cd "$1" && pwd) name=$2 dllname=$3
shift 3
props=""
for p in "$@"; do props="$props -p:$p"; done
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: the .NET SDK (dotnet) is not installed: install it (https://dot.net/v1/dotnet-install.sh, or Microsoft's Debian packages)"; exit 77; }
sdk=$(dotnet --version 2>/dev/null) || { echo "SKIP: 'dotnet --version' fails: install a .NET SDK (https://dot.net/v1/dotnet-install.sh)"; exit 77; }

key=$(cd "$src" && cat $(ls *.csproj *.cs | sort) | { cat; echo "sdk $sdk$props"; } | sha256sum | cut -c1-16)
cache=${BUILD_DIR:-${TMPDIR:-/tmp}}/tests/$name
out=$cache/$key
dll=$out/$dllname
[ -f "$dll" ] && { echo "$dll"; exit 0; }

mkdir -p "$cache"
# One build at a time (tests may run in parallel); the second waits and finds the result.
exec 9>"$cache/.lock"
flock 9
[ -f "$dll" ] && { echo "$dll"; exit 0; }

# Build in a scratch copy so obj/ never lands in the source tree; no build servers or
# node reuse, so nothing keeps running after the build; no telemetry, no first-run banner.
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$src"/*.csproj "$src"/*.cs "$work/"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_CLI_USE_MSBUILD_SERVER=0 MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false
export DOTNET_CLI_HOME="$work/home"
# NuGet writes its caches under $HOME; keep it out of a read-only or shared home.
[ -w "${HOME:-/nonexistent}" ] || export HOME="$work/home"
start=$(date +%s)
# shellcheck disable=SC2086 # $props: one word per property
if ! dotnet build "$work"/*.csproj -c Release -o "$work/out" -nodeReuse:false \
	-p:UseSharedCompilation=false $props >"$work/build.log" 2>&1; then
	if grep -qE 'NU1101|NU1102|NU1301' "$work/build.log"; then
		echo "SKIP: NuGet (api.nuget.org) is out of reach: cannot restore $name's packages here:" \
			"$(grep -oE 'NU1[0-9]+: [^[]*' "$work/build.log" | head -n 1)"
		exit 77
	fi
	echo "dotnet build of $name failed (SDK $sdk):" >&2
	tail -n 30 "$work/build.log" >&2
	exit 1
fi
echo "built $name with SDK $sdk in $(($(date +%s) - start)) s" >&2
rm -rf "$out"
mv "$work/out" "$out"
echo "$dll"
