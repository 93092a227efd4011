# A process posing as a .NET runtime to the tools: a diagnostics socket named as a
# runtime's (/tmp/dotnet-diagnostic-PID-START-socket, START its start time in clock ticks
# from /proc/self/stat), so stacks and collect -pid talk to it.  What it answers is the
# test's: listen() returns the listening socket.
import os
import socket


def listen(ready_file):
    """Binds and listens; writes the socket's path to ready_file once connectable."""
    start = open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19]
    path = '/tmp/dotnet-diagnostic-%d-%s-socket' % (os.getpid(), start)
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(16)
    open(ready_file, 'w').write(path)
    return s
