/* proc: what /proc says about processes and threads, across PID and mount namespaces.
 *
 * A target in a container is seen by its host PID; its own PID (the last NSpid in
 * /proc/<pid>/status) names its files (perf-<nspid>.map), and its files are read through
 * /proc/<pid>/root (safe_open.h).  Its mappings: proc_maps.h.
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

#endif
