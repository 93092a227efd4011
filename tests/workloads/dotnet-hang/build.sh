#!/bin/sh
# Builds the hanging .NET test app (PcHangApp.csproj + Program.cs), cached (see
# tests/dotnet_build.sh), and prints the path of pc-hang-app.dll; exit 77 without an SDK.
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../dotnet_build.sh" "$here" dotnet-hang pc-hang-app.dll
