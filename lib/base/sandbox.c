/* sandbox: see sandbox.h. */
#include "sandbox.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

/* A sanitizer's shadow memory reserves terabytes of address space: no RLIMIT_AS then. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_SHADOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||                         \
    __has_feature(thread_sanitizer)
#define SANITIZER_SHADOW 1
#endif
#endif

/* The low 32 bits of a system call's argument n. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#endif

#define LOAD(off)  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(value) BPF_STMT(BPF_RET | BPF_K, (value))
/* nr goes through. */
#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(SECCOMP_RET_ALLOW)
/* nr goes through unless its argument 2 (prot) asks for executable memory; the last of the
 * list, as it loads the argument. */
#define ALLOW_NO_EXEC(nr)                                                                          \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4), LOAD(ARG_LOW(2)),                         \
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1), RET(SECCOMP_RET_ERRNO | EPERM), \
	    RET(SECCOMP_RET_ALLOW), LOAD(NR)

#define NR offsetof(struct seccomp_data, nr)

void close_fds_except(int keep)
{
#ifdef SYS_close_range
	if (keep > 3 && syscall(SYS_close_range, 3, keep - 1, 0) == 0 &&
	    syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
		return;
	if (keep == 3 && syscall(SYS_close_range, 4, ~0U, 0) == 0)
		return;
#endif
	struct proc_fds *d = proc_fds_open(0);
	for (int fd; d && proc_fds_next(d, &fd);)
		if (fd > 2 && fd != keep)
			close(fd);
	proc_fds_close(d);
}

/* 0, 1 and 2 on /dev/null, keep_fd above them and no other fd: the fd kept, or -1. */
static int keep_only(int keep_fd)
{
	if (keep_fd <= 2 && (keep_fd = fcntl(keep_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return pc_err_errno("sandbox: cannot move fd");
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return pc_err_errno("sandbox: /dev/null");
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(null, fd) < 0)
			return pc_err_errno("sandbox: cannot redirect fd %d", fd);
	close_fds_except(keep_fd);
	return keep_fd;
}

static int limit(int resource, rlim_t value, const char *name)
{
	struct rlimit rl = {value, value};
	return setrlimit(resource, &rl) < 0 ? pc_err_errno("sandbox: cannot set %s", name) : 0;
}

static int set_limits(unsigned cpu_seconds, uint64_t as_bytes)
{
	if (limit(RLIMIT_FSIZE, 0, "RLIMIT_FSIZE") < 0 ||
	    limit(RLIMIT_NOFILE, 0, "RLIMIT_NOFILE") < 0 ||
	    limit(RLIMIT_NPROC, 0, "RLIMIT_NPROC") < 0 ||
	    limit(RLIMIT_CORE, 0, "RLIMIT_CORE") < 0 ||
	    limit(RLIMIT_MEMLOCK, 0, "RLIMIT_MEMLOCK") < 0 ||
	    limit(RLIMIT_CPU, cpu_seconds, "RLIMIT_CPU") < 0)
		return -1;
#ifndef SANITIZER_SHADOW
	if (as_bytes && limit(RLIMIT_AS, as_bytes, "RLIMIT_AS") < 0)
		return -1;
#else
	(void)as_bytes;
#endif
	return 0;
}

/* Root no more: SANDBOX_UID, else the overflow id, as every uid and gid, no groups. */
static int drop_root(void)
{
	if (geteuid() != 0)
		return 0; /* nothing to give up (NO_NEW_PRIVS keeps it so) */
	if (setgroups(0, NULL) < 0)
		return pc_err_errno("sandbox: setgroups");
	static const unsigned ids[] = {SANDBOX_UID, 65534};
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		uid_t id = ids[i];
		if (setresgid(id, id, id) < 0)
			continue; /* not mapped in this user namespace */
		if (setresuid(id, id, id) < 0)
			return pc_err_errno("sandbox: setresuid(%u)", id);
		uid_t r, e, s;
		if (getresuid(&r, &e, &s) < 0 || r != id || e != id || s != id)
			return pc_err("sandbox: still root after setresuid(%u)", id);
		return 0;
	}
	return pc_err_errno("sandbox: setresgid");
}

static int install_filter(void)
{
#ifndef SANDBOX_ARCH
	return pc_err("sandbox: no seccomp filter for this architecture");
#else
	struct sock_filter filter[] = {
	    LOAD(offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0),
	    RET(SECCOMP_RET_KILL_PROCESS),
	    LOAD(NR),
#ifdef __x86_64__
	    /* x32's numbers have this bit: another ABI, killed like i386's */
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
	    RET(SECCOMP_RET_KILL_PROCESS),
#endif
	    ALLOW(__NR_read),
	    ALLOW(__NR_readv),
	    ALLOW(__NR_pread64),
	    ALLOW(__NR_write),
	    ALLOW(__NR_writev),
	    ALLOW(__NR_lseek),
	    ALLOW(__NR_close),
	    ALLOW(__NR_munmap),
	    ALLOW(__NR_mremap),
	    ALLOW(__NR_madvise),
	    ALLOW(__NR_brk),
	    ALLOW(__NR_futex),
	    ALLOW(__NR_clock_gettime),
	    ALLOW(__NR_getpid),
	    ALLOW(__NR_getppid),
	    ALLOW(__NR_getuid),
	    ALLOW(__NR_geteuid),
	    ALLOW(__NR_getresuid),
	    ALLOW(__NR_getgid),
	    ALLOW(__NR_getegid),
	    ALLOW(__NR_getresgid),
	    ALLOW(__NR_gettid),
	    ALLOW(__NR_getrandom),
	    ALLOW(__NR_sched_yield),
	    ALLOW(__NR_rt_sigaction),
	    ALLOW(__NR_rt_sigprocmask),
	    ALLOW(__NR_rt_sigreturn),
	    ALLOW(__NR_restart_syscall),
	    ALLOW(__NR_exit),
	    ALLOW(__NR_exit_group),
	    ALLOW_NO_EXEC(__NR_mmap),
	    ALLOW_NO_EXEC(__NR_mprotect),
	    RET(SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {.len = ARRAY_SIZE(filter), .filter = filter};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return pc_err_errno("sandbox: cannot install the seccomp filter");
	return 0;
#endif
}

int sandbox_enter(int keep_fd, unsigned cpu_seconds, uint64_t as_bytes)
{
	if ((keep_fd = keep_only(keep_fd)) < 0 || set_limits(cpu_seconds, as_bytes) < 0 ||
	    drop_root() < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return pc_err_errno("sandbox: PR_SET_NO_NEW_PRIVS");
	return install_filter() < 0 ? -1 : keep_fd;
}
