#!/bin/sh
# Lays out an older .NET runtime (NuGet's Microsoft.NETCore.App.Runtime.linux-x64 package,
# restored with the installed SDK) as a dotnet root of its own and prints its path: run an
# app with "$root/dotnet app.dll" (DOTNET_ROOT=$root for apphosts).  Cached under
# $BUILD_DIR/tests/dotnet-runtime/<version>; exit 77 with a reason when there is no SDK or
# NuGet cannot be reached.
#
#   dotnet_runtime.sh VERSION   (e.g. 8.0.29)
set -eu
[ $# = 1 ] || { echo "usage: dotnet_runtime.sh VERSION" >&2; exit 2; }
ver=$1
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: the .NET SDK (dotnet) is not installed"; exit 77; }
cache=${BUILD_DIR:-${TMPDIR:-/tmp}}/tests/dotnet-runtime
root=$cache/$ver
[ -x "$root/dotnet" ] && [ -f "$root/shared/Microsoft.NETCore.App/$ver/libcoreclr.so" ] &&
	{ echo "$root"; exit 0; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -x "$root/dotnet" ] && { echo "$root"; exit 0; }

work=$(mktemp -d "$cache/get.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/get.csproj" <<EOP
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net\$(BundledNETCoreAppTargetFrameworkVersion)</TargetFramework></PropertyGroup>
  <ItemGroup>
    <PackageDownload Include="Microsoft.NETCore.App.Runtime.linux-x64" Version="[$ver]" />
  </ItemGroup>
</Project>
EOP
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_CLI_HOME="$work/home"
[ -w "${HOME:-/nonexistent}" ] || export HOME="$work/home"
if ! dotnet restore "$work/get.csproj" --packages "$work/pkgs" >"$work/restore.log" 2>&1; then
	echo "SKIP: NuGet cannot give the .NET $ver runtime here:" \
		"$(grep -oE 'NU1[0-9]+: [^[]*' "$work/restore.log" | head -n 1)"
	exit 77
fi
pack=$work/pkgs/microsoft.netcore.app.runtime.linux-x64/$ver/runtimes/linux-x64
new=$work/root
fw=$new/shared/Microsoft.NETCore.App/$ver
mkdir -p "$new/host/fxr/$ver" "$fw"
# The muxer from the installed SDK finds its hostfxr next to itself: this root's, the pack's.
cp "$(readlink -f "$(command -v dotnet)")" "$new/dotnet"
cp "$pack/native/libhostfxr.so" "$new/host/fxr/$ver/"
cp "$pack"/lib/net*/* "$fw/"
for f in "$pack"/native/*; do [ "${f##*/}" = libhostfxr.so ] || cp "$f" "$fw/"; done
rm -rf "$root"
mv "$new" "$root"
echo "$root"
