/* proc: what /proc says about processes and threads, across PID and mount namespaces.
 *
 * A target in a container is seen by its host PID; its own PID (the last NSpid in
 * /proc/<pid>/status) names its files (perf-<nspid>.map), and its files are read through
 * /proc/<pid>/root (safe_open.h).
 */
#ifndef PC_PROC_H
#define PC_PROC_H

#include "util.h"
#include <sys/stat.h>
#include <sys/types.h>

/* "/proc/<pid>/<file>" into buf ("/proc/self/<file>" for pid 0: ours; only where that is
 * said: maps and fds). */
void proc_path(char *buf, size_t len, pid_t pid, const char *file);
bool proc_exists(pid_t pid);
/* Threads of pid (from /proc/<pid>/task), malloc'd array. */
int proc_threads(pid_t pid, pid_t **tids, size_t *n);
/* All pids in /proc. */
int proc_pids(pid_t **pids, size_t *n);
/* A thread's files, /proc/<pid>/task/<tid>/<file> (tid == pid: the process's main thread):
 * every reader of them uses these. */
enum proc_task_file { TASK_STAT, TASK_STATUS, TASK_COMM, TASK_WCHAN, TASK_STACK, TASK_SYSCALL };
/* Its whole text (read_file()'s promise); NULL with pc_err() and errno (ENOENT: the thread
 * is gone, or the kernel has no such file; EACCES or EPERM: not ours to read). */
char *proc_task_read(pid_t pid, pid_t tid, enum proc_task_file file, size_t *len);
/* Its first line, without the newline, cut to fit buf; "" and -1 when it cannot be read. */
int proc_task_line(pid_t pid, pid_t tid, enum proc_task_file file, char *buf, size_t len);
/* comm of a thread, as it named itself (a newline in it kept). */
int proc_comm(pid_t pid, pid_t tid, char *buf, size_t len);

/* What the stat file says: comm (whatever the process named itself, spaces and parentheses
 * included: it ends at the last ')'), state, ppid, flags (PF_KTHREAD ...), starttime (clock
 * ticks since boot). */
struct proc_stat {
	char comm[32]; /* TASK_COMM_LEN is 16 */
	char state;
	pid_t ppid;
	unsigned long flags;
	uint64_t starttime;
};
/* Parses a stat file's text; -1 when it is not one (fewer than 22 fields). */
int proc_stat_parse(const char *text, struct proc_stat *st);
/* Reads and parses /proc/<pid>/task/<tid>/stat; -1 when the thread is gone. */
int proc_task_stat(pid_t pid, pid_t tid, struct proc_stat *st);
/* Whether pid is a kernel thread (PF_KTHREAD in its stat: kthreadd, kworkers ...): no user
 * space, no maps, runs only in the kernel. */
bool proc_is_kernel_thread(pid_t pid);
/* When pid started (its stat's starttime): with the pid, it names one process for good,
 * where a pid alone may be reused.  0 when it is gone (a zombie is gone: it only waits for
 * its parent to notice). */
uint64_t proc_start_time(pid_t pid);
/* One process pinned, where a pid alone may be reused before we act on it (stop, attach,
 * signal): a pidfd of it (Linux 5.3+) and its start time.  proc_pin() fails (-1, pc_err())
 * when pid is gone; proc_pin_alive() says whether pid still names that very process (its
 * pidfd's process has not exited, and the start time is the same). */
struct proc_pin {
	pid_t pid;
	int pidfd; /* -1 without pidfds: the start time alone then */
	uint64_t start;
};
int proc_pin(pid_t pid, struct proc_pin *pin);
bool proc_pin_alive(const struct proc_pin *pin);
void proc_pin_release(struct proc_pin *pin);
/* Whether pid runs this very program (its executable is ours, or was at our path before an
 * upgrade replaced it): before we signal a pid a file of ours names. */
bool proc_runs_our_program(pid_t pid);
/* Online CPUs as /proc/stat lists them (its cpuN lines), ascending, malloc'd array: for a
 * collector whose root holds nothing but /proc (no /sys/devices/system/cpu/online). */
int proc_online_cpus(int **cpus, size_t *n);
/* ppid, tgid, uid (real), the innermost NSpid and the effective capabilities from
 * /proc/<pid>/status. */
struct proc_status {
	pid_t tgid, ppid, nspid;
	uid_t uid;
	char state;
	uint64_t cap_eff; /* bit n: capability n (CAP_PERFMON is 38) */
};
int proc_status(pid_t pid, struct proc_status *st);
/* This process's effective capabilities (bit n: capability n), 0 when unreadable. */
uint64_t proc_self_caps(void);

/* NAME's value in pid's initial environment (/proc/<pid>/environ), malloc'd (the last one
 * wins, as with getenv()); NULL when unset or unreadable.  Changes the process made since
 * are not seen. */
char *proc_getenv(pid_t pid, const char *name);

/* A process's open files, /proc/<pid>/fd (pid 0: ours). */
struct proc_fds;
/* NULL with pc_err() and errno when they cannot be listed (gone, not ours to look at). */
struct proc_fds *proc_fds_open(pid_t pid);
/* The next open fd's number; false at the end. */
bool proc_fds_next(struct proc_fds *d, int *fd);
/* What the current fd names (readlink: a path as the process sees it, "socket:[N]",
 * "pipe:[N]" ...); NULL when it was closed meanwhile.  Valid until the next call. */
const char *proc_fds_target(struct proc_fds *d);
/* stat of the file the current fd holds: its magic link followed, the very file in any
 * mount namespace. */
int proc_fds_stat(struct proc_fds *d, struct stat *st);
void proc_fds_close(struct proc_fds *d);

/* A sysctl's value ("kernel.perf_event_paranoid": /proc/sys/kernel/perf_event_paranoid)
 * without its newline, malloc'd; NULL with pc_err() and errno when it cannot be read. */
char *sysctl_read(const char *name);
/* The same as a number; fallback when it cannot be read or is not a number. */
long sysctl_long(const char *name, long fallback);

#endif
