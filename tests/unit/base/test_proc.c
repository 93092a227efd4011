/* proc: real /proc of this test process and of a child. */
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
	return TEST_DONE();
}
