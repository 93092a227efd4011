/* proc: real /proc of this test process and of a child, and safe_open_in_root() against a
 * directory tree with the traps a hostile container could plant (symlinks at the end and in
 * the middle, "..", a FIFO, a file of another user). */
#include "base/proc.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool thread_ready, thread_quit;
static pid_t thread_tid;

static void *named_thread(void *arg)
{
	prctl(PR_SET_NAME, "pc-worker", 0, 0, 0);
	pthread_mutex_lock(&lock);
	thread_tid = gettid();
	thread_ready = true;
	pthread_cond_broadcast(&cond);
	while (!thread_quit)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_threads_and_comm(void)
{
	pthread_t t;
	pthread_create(&t, NULL, named_thread, NULL);
	pthread_mutex_lock(&lock);
	while (!thread_ready)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);

	pid_t *tids = NULL;
	size_t n = 0;
	CHECK(proc_threads(getpid(), &tids, &n) == 0);
	bool main_seen = false, worker_seen = false;
	for (size_t i = 0; i < n; i++) {
		main_seen |= tids[i] == getpid();
		worker_seen |= tids[i] == thread_tid;
	}
	CHECK(n >= 2);
	CHECK(main_seen);
	CHECK(worker_seen);
	free(tids);

	char comm[32];
	CHECK(proc_comm(getpid(), thread_tid, comm, sizeof(comm)) == 0);
	CHECK_STR(comm, "pc-worker");
	/* A buffer too small truncates, never overflows. */
	char small[4];
	CHECK(proc_comm(getpid(), thread_tid, small, sizeof(small)) == 0);
	CHECK_STR(small, "pc-");

	/* The worker's status names the process as its tgid. */
	struct proc_status st;
	CHECK(proc_status(thread_tid, &st) == 0);
	CHECK(st.tgid == getpid());

	pthread_mutex_lock(&lock);
	thread_quit = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
}

static void test_status_and_exists(void)
{
	struct proc_status st;
	CHECK(proc_status(getpid(), &st) == 0);
	CHECK(st.tgid == getpid());
	CHECK(st.ppid == getppid());
	CHECK(st.uid == getuid());
	CHECK(st.nspid == getpid()); /* the test runs in the namespace it sees */
	CHECK(st.state == 'R');
	CHECK(proc_exists(getpid()));
	CHECK(!proc_exists(0));

	/* A child that exited and was reaped is gone: every function says so, none crash. */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CHECK(!proc_exists(child));
	CHECK(proc_status(child, &st) < 0);
	CHECK(strstr(pc_strerror(), "no process") != NULL);
	pid_t *tids;
	size_t n;
	CHECK(proc_threads(child, &tids, &n) < 0);

	pid_t *pids = NULL;
	CHECK(proc_pids(&pids, &n) == 0);
	bool self = false, one = false;
	for (size_t i = 0; i < n; i++) {
		self |= pids[i] == getpid();
		one |= pids[i] == 1;
	}
	CHECK(self && one);
	free(pids);
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
		int fd = safe_open_in_root(pid, "/tmp/perf-1.map", 0);
		CHECK(fd >= 0);
		char buf[32] = {0};
		CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 15);
		CHECK_STR(buf, "1000 10 jitted\n");
		if (fd >= 0)
			close(fd);
		/* A symlink planted in the container never pulls a host file in. */
		CHECK(safe_open_in_root(pid, "/tmp/perf-2.map", 0) < 0);
		CHECK(strstr(pc_strerror(), "symlink") != NULL);
		CHECK(safe_open_in_root(pid, "/tmp/etcdir/hostname", 0) < 0);
		CHECK(strstr(pc_strerror(), "symlink") != NULL);
		CHECK(errno == ELOOP); /* refused, not missing */
		CHECK(safe_open_in_root(pid, "/tmp/perf-3.map", 0) < 0);
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

static void test_safe_open_traps(void)
{
	char dir[] = "/tmp/pc-proc-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path;
	/* dir/ok.map: a regular file of ours; dir/sub/inner.map one level down. */
	path = xasprintf("%s/ok.map", dir);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "hello", 5) == 5);
	close(fd);
	free(path);
	path = xasprintf("%s/sub", dir);
	CHECK(mkdir(path, 0755) == 0);
	free(path);
	path = xasprintf("%s/sub/inner.map", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	close(fd);
	free(path);
	char *target = xasprintf("%s/ok.map", dir);
	path = xasprintf("%s/link.map", dir);
	CHECK(symlink(target, path) == 0); /* final component a symlink */
	free(path);
	free(target);
	target = xasprintf("%s/sub", dir);
	path = xasprintf("%s/linkdir", dir);
	CHECK(symlink(target, path) == 0); /* a directory component a symlink */
	free(path);
	free(target);
	path = xasprintf("%s/fifo.map", dir);
	CHECK(mkfifo(path, 0644) == 0);
	free(path);

	uid_t me = geteuid();
	pid_t self = getpid();
	char *p;

	p = xasprintf("%s/ok.map", dir);
	fd = safe_open_in_root(self, p, me);
	CHECK(fd >= 0);
	char buf[8] = {0};
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 5);
	CHECK_STR(buf, "hello");
	if (fd >= 0)
		close(fd);
	free(p);

	p = xasprintf("%s/./sub//inner.map", dir); /* "." and "//" are harmless */
	fd = safe_open_in_root(self, p, me);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	free(p);

	p = xasprintf("%s/link.map", dir);
	CHECK(safe_open_in_root(self, p, me) < 0);
	CHECK(strstr(pc_strerror(), "is a symlink") != NULL);
	free(p);

	p = xasprintf("%s/linkdir/inner.map", dir);
	CHECK(safe_open_in_root(self, p, me) < 0);
	CHECK(strstr(pc_strerror(), "symlink") != NULL);
	free(p);

	p = xasprintf("%s/sub/../ok.map", dir);
	CHECK(safe_open_in_root(self, p, me) < 0);
	CHECK(strstr(pc_strerror(), "..") != NULL);
	free(p);

	/* A FIFO must be refused at once, not block the collector. */
	p = xasprintf("%s/fifo.map", dir);
	CHECK(safe_open_in_root(self, p, me) < 0);
	CHECK(strstr(pc_strerror(), "not a regular file") != NULL);
	free(p);

	CHECK(safe_open_in_root(self, dir, me) < 0);
	CHECK(strstr(pc_strerror(), "not a regular file") != NULL);
	CHECK(safe_open_in_root(self, "relative/x.map", me) < 0);
	CHECK(safe_open_in_root(self, "/", me) < 0);

	p = xasprintf("%s/missing.map", dir);
	CHECK(safe_open_in_root(self, p, me) < 0);
	free(p);

	if (me == 0) {
		/* Owned by another user than the target's: refused; by root: accepted. */
		p = xasprintf("%s/ok.map", dir);
		CHECK(chown(p, 12345, 12345) == 0);
		CHECK(safe_open_in_root(self, p, 1000) < 0);
		CHECK(strstr(pc_strerror(), "owned by uid 12345, not the target's uid 1000") !=
		      NULL);
		fd = safe_open_in_root(self, p, 12345);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		CHECK(chown(p, 0, 0) == 0);
		fd = safe_open_in_root(self, p, 1000);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		free(p);
	}

	/* A process that does not exist has no root. */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	p = xasprintf("%s/ok.map", dir);
	CHECK(safe_open_in_root(child, p, me) < 0);
	CHECK(strstr(pc_strerror(), "no process") != NULL);
	free(p);

	CHECK(rm_rf(dir) == 0);
}

/* /proc/stat's CPUs are the online ones: as many as sysconf says, the ones we may run on
 * among them. */
static void test_online_cpus(void)
{
	int *cpus = NULL;
	size_t n = 0;
	CHECK(proc_online_cpus(&cpus, &n) == 0);
	CHECK(n > 0 && (long)n == sysconf(_SC_NPROCESSORS_ONLN));
	cpu_set_t set;
	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(i == 0 || cpus[i] > cpus[i - 1]);
		if (cpus[i] < CPU_SETSIZE && CPU_ISSET(cpus[i], &set))
			CPU_CLR(cpus[i], &set);
	}
	CHECK(CPU_COUNT(&set) == 0); /* every CPU we may run on is online */
	free(cpus);
}

int main(void)
{
	test_online_cpus();
	test_status_and_exists();
	test_threads_and_comm();
	test_safe_open_traps();
	test_safe_open_namespace();
	return TEST_DONE();
}
