#!/bin/sh
# Builds the hanging .NET test app (PcHangApp.csproj + Program.cs), cached (see
# tests/dotnet_build.sh), and prints the path of pc-hang-app.dll; exit 77 without an SDK.
#   build.sh [TFM]   TFM e.g. net8.0: for an older runtime (default: the SDK's own)
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../dotnet_build.sh" "$here" dotnet-hang pc-hang-app.dll \
	${1:+PcTargetFramework=$1}
