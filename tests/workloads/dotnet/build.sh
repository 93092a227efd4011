#!/bin/sh
# Builds the .NET test app (PcDotnetApp.csproj + Program.cs), cached (see
# tests/dotnet_build.sh), and prints the path of pc-dotnet-app.dll; exit 77 without an SDK.
#   build.sh [MAJOR]   MAJOR (e.g. 8): for that .NET instead of the SDK's own
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
	exec sh "$here/../../dotnet_build.sh" "$here" "dotnet-app-net$1" pc-dotnet-app.dll \
		"PcTargetFramework=net$1.0" UseAppHost=false
fi
exec sh "$here/../../dotnet_build.sh" "$here" dotnet-app pc-dotnet-app.dll
