/* safe_open: safe_open_in_root() against a directory tree holding every trap a hostile
 * container could plant (a symlink at each component, "..", a FIFO that must not block, a
 * device, a hard link, a file of another user, a file over the cap), the binary variant that
 * takes hard links, root_open_dir()'s walk, and both ways in through a real mount namespace
 * (a container's own /tmp). */
#include "base/safe_open.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define NO_CAP UINT64_MAX

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	if (fd >= 0)
		close(fd);
	free(p);
}

/* safe_open_in_root(self, dir/rel) refused, with errno and a message holding what. */
static void refused(const char *dir, const char *rel, uint64_t cap, int err, const char *what)
{
	char *p = xasprintf("%s/%s", dir, rel);
	errno = 0;
	int fd = safe_open_in_root(getpid(), p, geteuid(), cap);
	CHECK(fd < 0);
	if (fd >= 0) {
		fprintf(stderr, "  %s was opened\n", p);
		close(fd);
	} else if (errno != err || !strstr(pc_strerror(), what)) {
		fprintf(stderr, "  %s: errno %d (%s), expected %d and \"%s\"\n", p, errno,
			pc_strerror(), err, what);
		test_failures++;
	}
	free(p);
}

static char *read_all(int fd)
{
	char buf[64] = {0};
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	return xstrdup(n > 0 ? buf : "");
}

static void opened(const char *dir, const char *rel, const char *want)
{
	char *p = xasprintf("%s/%s", dir, rel);
	int fd = safe_open_in_root(getpid(), p, geteuid(), NO_CAP);
	if (fd < 0)
		fprintf(stderr, "  %s: %s\n", p, pc_strerror());
	CHECK(fd >= 0);
	char *got = read_all(fd);
	CHECK_STR(got, want);
	free(got);
	if (fd >= 0)
		close(fd);
	free(p);
}

/* dir/a/b/c/f.map, and for each of its four components a copy of the path where that one
 * component is a symlink to the real one: every copy must be refused. */
static void test_symlink_at_each_component(const char *dir)
{
	char *p = xasprintf("%s/a/b/c", dir);
	CHECK(mkdir_p(p, 0755) == 0);
	free(p);
	put(dir, "a/b/c/f.map", "deep");
	opened(dir, "a/b/c/f.map", "deep");
	const char *parts[] = {"a", "b", "c", "f.map"};
	for (int at = 0; at < 4; at++) {
		/* trap<at>/a/b/c/f.map where component `at` links to the real one */
		char *real = xstrdup(dir), *made = xasprintf("%s/trap%d", dir, at);
		CHECK(mkdir(made, 0755) == 0);
		for (int i = 0; i < 4; i++) {
			char *r = xasprintf("%s/%s", real, parts[i]);
			char *m = xasprintf("%s/%s", made, parts[i]);
			if (i == at)
				CHECK(symlink(r, m) == 0);
			else if (i < 3 && i < at)
				CHECK(mkdir(m, 0755) == 0);
			free(real);
			free(made);
			real = r;
			made = m;
			if (i == at)
				break;
		}
		free(real);
		free(made);
		char *rel = xasprintf("trap%d/a/b/c/f.map", at);
		refused(dir, rel, NO_CAP, ELOOP, "symlink");
		free(rel);
	}
}

/* A FIFO is refused at once: checked in a child that an alarm would kill if it blocked. */
static void test_fifo_does_not_block(const char *dir)
{
	char *p = xasprintf("%s/fifo.map", dir);
	CHECK(mkfifo(p, 0644) == 0);
	pid_t child = fork();
	if (child == 0) {
		alarm(5);
		int fd = safe_open_in_root(getppid(), p, geteuid(), NO_CAP);
		_exit(fd < 0 && errno == EINVAL && strstr(pc_strerror(), "not a regular file") ? 0
											       : 1);
	}
	int ws = 0;
	CHECK(waitpid(child, &ws, 0) == child);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0); /* not killed by the alarm */
	free(p);
}

static void test_traps(const char *dir)
{
	uid_t me = geteuid();
	put(dir, "ok.map", "hello");
	opened(dir, "ok.map", "hello");
	char *sub = xasprintf("%s/sub", dir);
	CHECK(mkdir(sub, 0755) == 0);
	free(sub);
	put(dir, "sub/inner.map", "inner");
	opened(dir, "./sub//inner.map", "inner"); /* "." and "//" are harmless */

	refused(dir, "sub/../ok.map", NO_CAP, EINVAL, "'..'");
	refused(dir, "sub/..", NO_CAP, EINVAL, "'..'");
	refused(dir, "sub", NO_CAP, EINVAL, "not a regular file");
	refused(dir, "sub/", NO_CAP, EINVAL, "not a regular file");
	refused(dir, "missing.map", NO_CAP, ENOENT, "missing.map");
	refused(dir, "nodir/x.map", NO_CAP, ENOENT, "nodir");
	refused(dir, "ok.map/x", NO_CAP, ENOTDIR, "not a directory");

	/* The size cap: at most what the caller states. */
	refused(dir, "ok.map", 4, EFBIG, "5 bytes");
	char *p = xasprintf("%s/ok.map", dir);
	int fd = safe_open_in_root(getpid(), p, me, 5);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	/* A second name for the file: refused under both names. */
	char *hard = xasprintf("%s/hard.map", dir);
	CHECK(link(p, hard) == 0);
	refused(dir, "hard.map", NO_CAP, EMLINK, "2 hard links");
	refused(dir, "ok.map", NO_CAP, EMLINK, "2 hard links");
	/* ... but a binary read for its symbols may have several (perf's ~/.debug cache) */
	fd = safe_open_binary_in_root(getpid(), hard, me, NO_CAP);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(safe_open_binary_in_root(getpid(), hard, me, 4) < 0 && errno == EFBIG);
	CHECK(unlink(hard) == 0);
	opened(dir, "ok.map", "hello");
	free(hard);

	CHECK(safe_open_in_root(getpid(), "relative/x.map", me, NO_CAP) < 0 && errno == EINVAL);
	CHECK(safe_open_in_root(getpid(), "/", me, NO_CAP) < 0);
	CHECK(safe_open_in_root(getpid(), NULL, me, NO_CAP) < 0);

	if (me == 0) {
		/* A device is never opened: refused by what fstat of the O_PATH fd says. */
		char *dev = xasprintf("%s/null.map", dir);
		CHECK(mknod(dev, S_IFCHR | 0644, makedev(1, 3)) == 0);
		refused(dir, "null.map", NO_CAP, EINVAL, "not a regular file");
		free(dev);
		/* Owned by another user than the target's: refused; by root: accepted. */
		CHECK(chown(p, 12345, 12345) == 0);
		CHECK(safe_open_in_root(getpid(), p, 1000, NO_CAP) < 0 && errno == EPERM);
		CHECK(strstr(pc_strerror(), "owned by uid 12345, not the target's uid 1000"));
		fd = safe_open_in_root(getpid(), p, 12345, NO_CAP);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		CHECK(chown(p, 0, 0) == 0);
		fd = safe_open_in_root(getpid(), p, 1000, NO_CAP);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	} else {
		printf("note: not root, device and owner checks skipped\n");
	}

	/* A process that does not exist has no root. */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CHECK(safe_open_in_root(child, p, me, NO_CAP) < 0 && errno == ESRCH);
	CHECK(strstr(pc_strerror(), "no process") != NULL);
	CHECK(root_open_dir(child, "/tmp") < 0 && errno == ESRCH);
	free(p);
}

static void test_root_open_dir(const char *dir)
{
	int fd = root_open_dir(getpid(), dir);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fd >= 0 && fstatat(fd, "ok.map", &st, 0) == 0 && S_ISREG(st.st_mode));
	if (fd >= 0)
		close(fd);
	char *p = xasprintf("%s/trap0/a", dir); /* the symlink planted above */
	CHECK(root_open_dir(getpid(), p) < 0 && errno == ELOOP);
	free(p);
	p = xasprintf("%s/sub/..", dir);
	CHECK(root_open_dir(getpid(), p) < 0 && errno == EINVAL);
	free(p);
	p = xasprintf("%s/ok.map", dir);
	CHECK(root_open_dir(getpid(), p) < 0 && errno == ENOTDIR);
	free(p);
	CHECK(root_open_dir(getpid(), "tmp") < 0 && errno == EINVAL);
}

/* A child stopped in a fresh mount namespace with its own tmpfs on /tmp: what a container
 * looks like through /proc/<pid>/root.  Returns its pid, or -1 when namespaces are not
 * available (not root). */
static pid_t start_container(int ready_fd, const char *host_file)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/tmp", "tmpfs", 0, NULL) < 0) {
		char c = 'n';
		(void)!write(ready_fd, &c, 1);
		_exit(1);
	}
	/* Inside: a legit map, a symlink to a host-only file, a symlinked directory. */
	int fd = open("/tmp/perf-1.map", O_WRONLY | O_CREAT, 0644);
	(void)!write(fd, "1000 10 jitted\n", 15);
	close(fd);
	(void)!symlink("/etc/hostname", "/tmp/perf-2.map");
	(void)!symlink("/etc", "/tmp/etcdir");
	/* For open_file_in_root(): links that resolve inside the container, and links that
	 * would reach host_file (which only the host's /tmp holds) if resolved from outside. */
	(void)!mkdir("/tmp/usr", 0755);
	fd = open("/tmp/usr/libx.so", O_WRONLY | O_CREAT, 0644);
	(void)!write(fd, "inside", 6);
	close(fd);
	(void)!symlink("/tmp/usr", "/tmp/lib");
	(void)!symlink(host_file, "/tmp/abs.so");
	char *up = xasprintf("../../../..%s", host_file);
	(void)!symlink(up, "/tmp/up.so");
	free(up);
	(void)!mkfifo("/tmp/fifo.so", 0644);
	char c = 'y';
	(void)!write(ready_fd, &c, 1);
	pause();
	_exit(0);
}

static void test_safe_open_namespace(void)
{
	if (geteuid() != 0) {
		printf("note: not root, mount namespace checks skipped\n");
		return;
	}
	/* A file in the host's /tmp, hidden inside by the container's tmpfs. */
	char host_file[] = "/tmp/pc-proc-host-XXXXXX";
	int hfd = mkstemp(host_file);
	CHECK(hfd >= 0 && write(hfd, "host", 4) == 4);
	close(hfd);
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t pid = start_container(pfd[1], host_file);
	char c = 0;
	CHECK(read(pfd[0], &c, 1) == 1);
	close(pfd[0]);
	close(pfd[1]);
	if (c == 'y') {
		/* The container's own /tmp, not the host's. */
		int fd = safe_open_in_root(pid, "/tmp/perf-1.map", 0, NO_CAP);
		CHECK(fd >= 0);
		char buf[32] = {0};
		CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 15);
		CHECK_STR(buf, "1000 10 jitted\n");
		if (fd >= 0)
			close(fd);
		/* A symlink planted in the container never pulls a host file in. */
		CHECK(safe_open_in_root(pid, "/tmp/perf-2.map", 0, NO_CAP) < 0);
		CHECK(strstr(pc_strerror(), "symlink") != NULL);
		CHECK(safe_open_in_root(pid, "/tmp/etcdir/hostname", 0, NO_CAP) < 0);
		CHECK(strstr(pc_strerror(), "symlink") != NULL);
		CHECK(errno == ELOOP); /* refused, not missing */
		CHECK(safe_open_in_root(pid, "/tmp/perf-3.map", 0, NO_CAP) < 0);
		CHECK(errno == ENOENT);

		/* open_file_in_root(): the container's links resolve inside the container. */
		char *root = xasprintf("/proc/%d/root", (int)pid);
		fd = open_file_in_root(root, "/tmp/lib/libx.so");
		CHECK(fd >= 0);
		memset(buf, 0, sizeof(buf));
		CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 6);
		CHECK_STR(buf, "inside");
		if (fd >= 0)
			close(fd);
		/* Resolved from outside, these links would reach the host's file: not here. */
		CHECK(open_file_in_root(root, "/tmp/abs.so") < 0);
		CHECK(errno == ENOENT);
		CHECK(open_file_in_root(root, "/tmp/up.so") < 0);
		CHECK(errno == ENOENT);
		char *escape = xasprintf("/tmp/../../..%s", host_file);
		CHECK(open_file_in_root(root, escape) < 0);
		free(escape);
		/* A FIFO is refused at once instead of blocking the reader. */
		CHECK(open_file_in_root(root, "/tmp/fifo.so") < 0);
		CHECK(strstr(pc_strerror(), "not a regular file") != NULL);
		/* Without a root, the host's view. */
		fd = open_file_in_root(NULL, host_file);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		free(root);
	} else {
		printf("note: cannot make a mount namespace here, checks skipped\n");
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(host_file);
}

/* safe_open_inode(): only the very inode a record named, by a path without symlinks. */
static void test_inode(const char *dir)
{
	put(dir, "mapped.so", "ELF");
	put(dir, "other.so", "ELF");
	char *p = xasprintf("%s/mapped.so", dir), *q = xasprintf("%s/other.so", dir);
	struct stat st;
	CHECK(stat(p, &st) == 0);
	int fd = safe_open_inode(p, st.st_dev, st.st_ino, NO_CAP);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* the same name now another file (a container's, or replaced) */
	errno = 0;
	CHECK(safe_open_inode(q, st.st_dev, st.st_ino, NO_CAP) < 0 && errno == ESTALE);
	CHECK(strstr(pc_strerror(), "not the file that was mapped") != NULL);
	CHECK(safe_open_inode(p, st.st_dev, st.st_ino, 2) < 0 && errno == EFBIG);
	/* a symlink on the way, even to the right file */
	char *link = xasprintf("%s/link", dir), *via = xasprintf("%s/link/mapped.so", dir);
	CHECK(symlink(dir, link) == 0);
	CHECK(safe_open_inode(via, st.st_dev, st.st_ino, NO_CAP) < 0 && errno == ELOOP);
	char *fifo = xasprintf("%s/inode.fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0 && stat(fifo, &st) == 0);
	CHECK(safe_open_inode(fifo, st.st_dev, st.st_ino, NO_CAP) < 0 && errno == EINVAL);
	free(p);
	free(q);
	free(link);
	free(via);
	free(fifo);
}

/* open_file_in_root() where openat2 is refused (a kernel before 5.6, or a container runtime's
 * seccomp profile that predates it: ENOSYS): a root whose /lib is an absolute symlink to
 * /etc must not make us open the host's /etc/passwd (a walk from our side resolves the
 * link against our root), and an ordinary file is still found. */
static void test_no_openat2(const char *dir)
{
	char *root = xasprintf("%s/fakeroot", dir), *usr = xasprintf("%s/fakeroot/usr", dir);
	char *lib = xasprintf("%s/fakeroot/lib", dir);
	CHECK(mkdir_p(usr, 0755) == 0 && symlink("/etc", lib) == 0);
	put(usr, "app", "ELF");
	pid_t child = fork();
	if (child == 0) {
		struct sock_filter f[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {.len = ARRAY_SIZE(f), .filter = f};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(2);
		int fd = open_file_in_root(root, "/lib/passwd");
		if (fd >= 0)
			_exit(3); /* the host's /etc/passwd */
		fd = open_file_in_root(root, "/usr/app");
		_exit(fd >= 0 ? 0 : 4);
	}
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		fprintf(stderr, "open_file_in_root followed the container's /lib -> /etc on the "
				"host without openat2\n");
	free(root);
	free(usr);
	free(lib);
}

int main(void)
{
	char dir[] = "/tmp/pc-safe-open-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	test_traps(dir);
	test_symlink_at_each_component(dir);
	test_fifo_does_not_block(dir);
	test_root_open_dir(dir);
	test_inode(dir);
	test_no_openat2(dir);
	CHECK(rm_rf(dir) == 0);
	test_safe_open_namespace();
	return TEST_DONE();
}
