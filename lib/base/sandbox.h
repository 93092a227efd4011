/* sandbox: a process confined before it parses what may be hostile (a foreign perf.data's
 * tracepoint formats, which libtraceevent crashes on): whatever takes it over can write
 * only to the one fd it was given and ask the kernel for almost nothing else.
 *
 * sandbox_enter() is for a process of its own (a child), with everything it reads already
 * open or mapped: it keeps keep_fd (and 0-2, made /dev/null) and closes every other fd; sets
 * rlimits (no file it could grow, no new fd, no child process, cpu_seconds of CPU, an
 * address space of as_bytes when not 0 and no sanitizer needs its huge shadow); as root,
 * gives up root for good (no supplementary groups, SANDBOX_UID as real, effective and saved
 * uid and gid); sets PR_SET_NO_NEW_PRIVS; and installs a seccomp filter that lets through
 * only reading and writing fds it has, memory (no executable mapping), the clock and
 * exiting: every other system call (open, socket, kill, ptrace, execve, ...) fails with
 * EPERM, and a call of another ABI (x32, i386) kills the process.  -1 with pc_err() when a
 * step fails (the caller must not go on to parse then).
 *
 * Returns the fd kept (keep_fd, or a copy of it above 2), or -1.
 *
 * close_fds_except(): every fd above 2 but keep closed (close_range, else one by one). */
#ifndef PC_SANDBOX_H
#define PC_SANDBOX_H

#include <stdint.h>

/* A uid and gid no account has (the kernel's overflow id, 65534, where a user namespace
 * does not map this one). */
#define SANDBOX_UID 2147483631u

int sandbox_enter(int keep_fd, unsigned cpu_seconds, uint64_t as_bytes);
void close_fds_except(int keep);

#endif
