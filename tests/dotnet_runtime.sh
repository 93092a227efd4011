#!/bin/sh
# An older .NET runtime for the tests, as NuGet ships it (Microsoft.NETCore.App.Runtime.<rid>,
# restored by the installed SDK, so it works wherever the SDK reaches NuGet), laid out as a
# DOTNET_ROOT: the package's host and shared framework, and a copy of the installed muxer.
# Prints the DOTNET_ROOT; run apps as  DOTNET_ROOT=$root $root/dotnet app.dll.  Cached under
# $BUILD_DIR/tests/dotnet-runtime/<version>.  Exit 77 with a reason when unavailable.
#
#   dotnet_runtime.sh MAJOR      (e.g. 8: the newest 8.0.x the SDK knows)
set -eu
[ $# = 1 ] || { echo "usage: dotnet_runtime.sh MAJOR" >&2; exit 2; }
major=$1
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: the .NET SDK (dotnet) is not installed: install it (https://dot.net/v1/dotnet-install.sh, or Microsoft's Debian packages)"; exit 77; }
sdkver=$(dotnet --version 2>/dev/null) || { echo "SKIP: 'dotnet --version' fails: install a .NET SDK (https://dot.net/v1/dotnet-install.sh)"; exit 77; }
dotnet_dir=$(dirname "$(readlink -f "$(command -v dotnet)")")
props=$dotnet_dir/sdk/$sdkver/Microsoft.NETCoreSdk.BundledVersions.props
case $(uname -m) in
x86_64) rid=linux-x64 ;;
aarch64) rid=linux-arm64 ;;
*) echo "SKIP: no .NET runtime package for $(uname -m)"; exit 77 ;;
esac
# The version the SDK would use for net<MAJOR>.0 (KnownFrameworkReference).
ver=$(awk -v tf="net$major.0" '
	/<KnownFrameworkReference / { in_ref = 1; ok = 0; v = "" }
	in_ref && /Include="Microsoft.NETCore.App"/ { app = 1 }
	in_ref && index($0, "TargetFramework=\"" tf "\"") { ok = 1 }
	in_ref && /LatestRuntimeFrameworkVersion=/ { match($0, /"[^"]*"/); v = substr($0, RSTART + 1, RLENGTH - 2) }
	in_ref && /\/>/ { if (app && ok && v != "") { print v; exit } in_ref = 0; app = 0 }
' "$props" 2>/dev/null || true)
[ -n "$ver" ] || { echo "SKIP: SDK $sdkver knows no .NET $major runtime"; exit 77; }

cache=${BUILD_DIR:-${TMPDIR:-/tmp}}/tests/dotnet-runtime
root=$cache/$ver/root
fw=$root/shared/Microsoft.NETCore.App/$ver
[ -f "$fw/libcoreclr.so" ] && [ -x "$root/dotnet" ] && { echo "$root"; exit 0; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -f "$fw/libcoreclr.so" ] && [ -x "$root/dotnet" ] && { echo "$root"; exit 0; }

work=$(mktemp -d "$cache/restore.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/restore.csproj" <<PROJ
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net\$(BundledNETCoreAppTargetFrameworkVersion)</TargetFramework></PropertyGroup>
  <ItemGroup><PackageDownload Include="Microsoft.NETCore.App.Runtime.$rid" Version="[$ver]" /></ItemGroup>
</Project>
PROJ
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_CLI_HOME="$work/home" MSBUILDDISABLENODEREUSE=1
[ -w "${HOME:-/nonexistent}" ] || export HOME="$work/home"
if ! dotnet restore "$work/restore.csproj" -p:RestorePackagesPath="$work/packages" \
	>"$work/restore.log" 2>&1; then
	echo "SKIP: NuGet (api.nuget.org) is out of reach: cannot restore Microsoft.NETCore.App.Runtime.$rid $ver:" \
		"$(grep -oE 'NU1[0-9]+: [^[]*' "$work/restore.log" | head -n 1)"
	exit 77
fi
pkg=$work/packages/microsoft.netcore.app.runtime.$rid/$ver/runtimes/$rid
[ -f "$pkg/native/libcoreclr.so" ] || { echo "runtime package without libcoreclr.so" >&2; exit 1; }
new=$work/root
mkdir -p "$new/host/fxr/$ver" "$new/shared/Microsoft.NETCore.App/$ver"
cp "$dotnet_dir/dotnet" "$new/dotnet"
cp "$pkg/native/libhostfxr.so" "$new/host/fxr/$ver/"
cp -R "$pkg/lib/"net*/. "$pkg/native/." "$new/shared/Microsoft.NETCore.App/$ver/"
rm -rf "$cache/$ver"
mkdir -p "$cache/$ver"
mv "$new" "$root"
echo "restored .NET $ver ($rid) from NuGet into $root" >&2
echo "$root"
