#!/bin/sh
# Builds the .NET test app (PcDotnetApp.csproj + Program.cs), cached (see
# tests/dotnet_build.sh), and prints the path of pc-dotnet-app.dll; exit 77 without an SDK.
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../dotnet_build.sh" "$here" dotnet-app pc-dotnet-app.dll
