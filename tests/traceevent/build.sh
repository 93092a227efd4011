#!/bin/sh
# Builds pc-traceevent (TraceEvent, PerfView's reader, from NuGet), cached (see
# tests/dotnet_build.sh), and prints the path of pc-traceevent.dll; exit 77 without an SDK
# or without the package.
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../dotnet_build.sh" "$here" traceevent pc-traceevent.dll
