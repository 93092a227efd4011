/* proc: what /proc says about processes and threads, across PID and mount namespaces.
 *
 * A target in a container is seen by its host PID; its own PID (the last NSpid in
 * /proc/<pid>/status) names its files (perf-<nspid>.map), and its files are read through
 * /proc/<pid>/root.  safe_open_in_root() is how every file from an untrusted target is
 * opened: O_NOFOLLOW on every component, never leaving the root, regular files owned by
 * the target's uid only.
 */
#ifndef PC_PROC_H
#define PC_PROC_H

#include "util.h"
#include <sys/types.h>

bool proc_exists(pid_t pid);
/* Threads of pid (from /proc/<pid>/task), malloc'd array. */
int proc_threads(pid_t pid, pid_t **tids, size_t *n);
/* All pids in /proc. */
int proc_pids(pid_t **pids, size_t *n);
/* comm of a thread (/proc/<pid>/task/<tid>/comm), without the newline. */
int proc_comm(pid_t pid, pid_t tid, char *buf, size_t len);
/* Whether pid is a kernel thread (PF_KTHREAD in /proc/<pid>/stat: kthreadd, kworkers ...):
 * no user space, no maps, runs only in the kernel. */
bool proc_is_kernel_thread(pid_t pid);
/* When pid started (/proc/<pid>/stat starttime, clock ticks since boot): with the pid, it
 * names one process for good, where a pid alone may be reused.  0 when it is gone. */
uint64_t proc_start_time(pid_t pid);
/* Online CPUs as /proc/stat lists them (its cpuN lines), ascending, malloc'd array: for a
 * collector whose root holds nothing but /proc (no /sys/devices/system/cpu/online). */
int proc_online_cpus(int **cpus, size_t *n);
/* ppid, tgid, uid (real) and the innermost NSpid from /proc/<pid>/status. */
struct proc_status {
	pid_t tgid, ppid, nspid;
	uid_t uid;
	char state;
};
int proc_status(pid_t pid, struct proc_status *st);

/* Opens path (absolute, as the target sees it) inside /proc/<pid>/root without following
 * any symlink and without leaving that root; the result must be a regular file whose owner
 * is owner_uid (or root).  Returns an fd, or -1 with pc_err() saying why ("is a symlink",
 * "not a regular file", "owned by uid N, not the target's uid M"). */
int safe_open_in_root(pid_t pid, const char *path, uid_t owner_uid);
/* errno after a failure of safe_open_in_root() or open_file_in_root(): ENOENT when the file
 * (or a directory on its way) does not exist, ESRCH when the process is gone, EACCES when we
 * may not look (no ptrace access to the process: CAP_SYS_PTRACE); any other value means the
 * file is there but was refused (pc_strerror() says why). */

/* Opens path the way a process whose root directory is root (e.g. "/proc/<pid>/root"; NULL
 * or "" for ours) sees it: symlinks are followed, but resolved inside root, never out of it
 * (openat2 RESOLVE_IN_ROOT); only a regular file is opened, a FIFO or device never is.  For
 * files that are read for symbols, not copied: ELF binaries and their debug files. */
int open_file_in_root(const char *root, const char *path);

#endif
