/* proc: real /proc of this test process, of its threads and of children (a zombie, one with
 * a crafted environment): the task files, stat (also crafted lines), environ, the open fds,
 * sysctls. */
#include "base/proc.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
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

/* A thread's files: stat, comm, wchan, syscall, through the one reader. */
static void test_task_files(pid_t tid)
{
	struct proc_stat st;
	CHECK(proc_task_stat(getpid(), tid, &st) == 0);
	CHECK_STR(st.comm, "pc-worker");
	CHECK(st.ppid == getppid()); /* a thread's parent is its process's */
	CHECK(st.state == 'S' || st.state == 'R');
	CHECK(st.starttime > 0 && st.starttime >= proc_start_time(getpid()));
	CHECK(!(st.flags & 0x00200000) && !proc_is_kernel_thread(getpid()));
	char line[64];
	CHECK(proc_task_line(getpid(), tid, TASK_COMM, line, sizeof(line)) == 0);
	CHECK_STR(line, "pc-worker");
	CHECK(proc_task_line(getpid(), tid, TASK_WCHAN, line, sizeof(line)) == 0);
	size_t len = 0;
	char *text = proc_task_read(getpid(), tid, TASK_SYSCALL, &len);
	CHECK(text && len > 0 && strchr(text, '\n')); /* "202 0x..." in the futex wait */
	free(text);
	text = proc_task_read(getpid(), tid, TASK_STATUS, NULL);
	CHECK(text && strstr(text, "Name:\tpc-worker\n"));
	free(text);
	CHECK(proc_task_read(getpid(), 0x3ffffff, TASK_STAT, NULL) == NULL && errno == ENOENT);
	CHECK(proc_task_stat(getpid(), 0x3ffffff, &st) < 0);
	CHECK(proc_task_line(getpid(), 0x3ffffff, TASK_WCHAN, line, sizeof(line)) < 0);
	CHECK_STR(line, "");
	/* kthreadd, where this namespace shows it */
	if (proc_comm(2, 2, line, sizeof(line)) == 0 && !strcmp(line, "kthreadd"))
		CHECK(proc_is_kernel_thread(2));
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

	test_task_files(thread_tid);

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

static void test_stat_parse(void)
{
	struct proc_stat st;
	/* comm is the process's own choice: parentheses and spaces end at the last ')' */
	const char *odd = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 "
			  "987654 1 2 3\n";
	CHECK(proc_stat_parse(odd, &st) == 0);
	CHECK_STR(st.comm, "a) b (c");
	CHECK(st.state == 'S' && st.ppid == 17 && st.flags == 4194560 && st.starttime == 987654);
	const char *bad[] = {"",
			     "4242",
			     "4242 (x",
			     "4242 x) S 1",
			     "4242 (x) S 1 2 3",
			     "4242 (x)  S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(proc_stat_parse(bad[i], &st) < 0);
}

/* A zombie has a stat but is gone: no start time. */
static void test_zombie(void)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	struct proc_stat st = {0};
	siginfo_t si; /* until it is a zombie, not reaping it (WNOWAIT) */
	CHECK(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) == 0);
	CHECK(proc_task_stat(child, child, &st) == 0 && st.state == 'Z');
	CHECK(proc_start_time(child) == 0);
	waitpid(child, NULL, 0);
	CHECK(proc_task_stat(child, child, &st) < 0);
}

static void test_getenv(void)
{
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t child = fork();
	if (child == 0) {
		close(pfd[1]);
		dup2(pfd[0], 0);
		char *argv[] = {"cat", NULL};
		char *envp[] = {"PC_A=1", "PC_B=x=y", "PC_EMPTY=", "PC_A=2", "PC_ABC=3", NULL};
		execve("/bin/cat", argv, envp);
		_exit(127);
	}
	close(pfd[0]);
	/* execve has happened once the environ names the new program's variables */
	char *v = NULL;
	for (int i = 0; i < 20000 && !(v = proc_getenv(child, "PC_B")); i++)
		usleep(1000); /* (a bound for a machine busy for seconds, not a wait) */
	CHECK(v && !strcmp(v, "x=y"));
	free(v);
	v = proc_getenv(child, "PC_A"); /* the last one wins, as getenv() */
	CHECK(v && !strcmp(v, "2"));
	free(v);
	v = proc_getenv(child, "PC_EMPTY");
	CHECK(v && !strcmp(v, ""));
	free(v);
	CHECK(proc_getenv(child, "PC_AB") == NULL); /* a prefix of PC_ABC is not it */
	CHECK(proc_getenv(child, "PATH") == NULL);
	close(pfd[1]);
	waitpid(child, NULL, 0);
	CHECK(proc_getenv(child, "PC_A") == NULL);
}

static void test_fds(void)
{
	char path[] = "/tmp/pc-proc-fds-XXXXXX";
	int fd = mkstemp(path);
	int pfd[2];
	CHECK(fd >= 0 && pipe(pfd) == 0);
	struct stat want;
	CHECK(fstat(fd, &want) == 0);
	for (int pass = 0; pass < 2; pass++) {
		struct proc_fds *d = proc_fds_open(pass ? getpid() : 0);
		CHECK(d != NULL);
		bool file = false, pipe_seen = false, self = false;
		for (int n; d && proc_fds_next(d, &n);) {
			const char *t = proc_fds_target(d);
			struct stat st;
			if (n == fd) {
				file = t && !strcmp(t, path) && proc_fds_stat(d, &st) == 0 &&
				       st.st_ino == want.st_ino && st.st_dev == want.st_dev;
			}
			if (n == pfd[0])
				pipe_seen = t && str_startswith(t, "pipe:[");
			self |= t && str_startswith(t, "/proc/"); /* the listing's own fd */
		}
		proc_fds_close(d);
		CHECK(file && pipe_seen && !self);
	}
	unlink(path);
	close(fd);
	close(pfd[0]);
	close(pfd[1]);
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CHECK(proc_fds_open(child) == NULL && errno == ENOENT);
}

static void test_sysctl(void)
{
	char *s = sysctl_read("kernel.ostype");
	CHECK(s && !strcmp(s, "Linux")); /* no newline */
	free(s);
	CHECK(sysctl_long("kernel.pid_max", -1) > 1);
	CHECK(sysctl_long("kernel.ostype", -7) == -7); /* not a number */
	CHECK(sysctl_read("kernel.pc_no_such_sysctl") == NULL && errno == ENOENT);
	CHECK(sysctl_long("kernel.pc_no_such_sysctl", 42) == 42);
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

/* A pinned process is alive until it exits, and never again after (a zombie included: its
 * pid may go to another once reaped). */
static void test_pin(void)
{
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	struct proc_pin pin;
	CHECK(proc_pin(child, &pin) == 0);
	CHECK(proc_pin_alive(&pin));
	kill(child, SIGKILL);
	siginfo_t si; /* a zombie now, not yet reaped (WNOWAIT) */
	CHECK(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) == 0);
	CHECK(!proc_pin_alive(&pin));
	waitpid(child, NULL, 0);
	CHECK(!proc_pin_alive(&pin));
	proc_pin_release(&pin);
	CHECK(proc_pin(child, &pin) < 0);
}

int main(void)
{
	test_pin();
	test_online_cpus();
	test_status_and_exists();
	test_threads_and_comm();
	test_stat_parse();
	test_zombie();
	test_getenv();
	test_fds();
	test_sysctl();
	return TEST_DONE();
}
