/* stacks + stacks_report on the real deadlock workload (tests/workloads/deadlock.c): the
 * snapshot finds the owner and its waiters, the report groups them, the process runs on. */
#include "stacks/stacks.h"
#include "stacks/stacks_report.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 3

static bool has_frame(const struct stack_frame *f, size_t n, const char *prefix)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].text && !strncmp(f[i].text, prefix, strlen(prefix)))
			return true;
	return false;
}

static void check_snapshot(const struct stacks_snapshot *s, pid_t owner)
{
	CHECK(s->nthreads == WAITERS + 2);
	const struct thread_stack *o = stacks_find_thread(s, owner);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(o->wait.kind == LOCK_WAIT_NONE);
	CHECK(has_frame(o->uframes, o->nuframes, "wait_for_input+"));
	if (s->have_kernel)
		CHECK(has_frame(o->kframes, o->nkframes, "pipe_read+") ||
		      has_frame(o->kframes, o->nkframes, "anon_pipe_read+"));
	size_t waiters = 0;
	uint64_t addr = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct thread_stack *t = &s->threads[i];
		if (i)
			CHECK(s->threads[i - 1].tid < t->tid);
		if (t->wait.kind != LOCK_WAIT_MUTEX)
			continue;
		waiters++;
		CHECK(t->wait.owner == owner);
		CHECK(!addr || addr == t->wait.addr);
		addr = t->wait.addr;
		CHECK(has_frame(t->uframes, t->nuframes, "take_the_lock+"));
		CHECK(stacks_thread_has_module(t, "libc"));
		CHECK(stacks_thread_has_module(t, "deadlock"));
		CHECK(stacks_thread_has_module(t, "libc.so"));
		CHECK(!stacks_thread_has_module(t, "lib"));
		CHECK(!stacks_thread_has_module(t, "nosuchmodule"));
	}
	CHECK(waiters == WAITERS);

	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct stacks_report_opts ro = {0};
	CHECK(stacks_report_write(m, s, &ro) == 0);
	fclose(m);
	char want[128];
	snprintf(want, sizeof(want), "%d threads wait for mutex 0x%llx held by TID %d", WAITERS,
		 (unsigned long long)addr, (int)owner);
	CHECK(strstr(text, want) != NULL);
	snprintf(want, sizeof(want), "\n%d threads: ", WAITERS);
	CHECK(strstr(text, want) != NULL);
	/* the owner's stack comes before any group */
	char *owner_at = strstr(text, "Owner of mutex");
	CHECK(owner_at && owner_at < strstr(text, want));
	free(text);

	m = open_memstream(&text, &len);
	ro.module = "nosuchmodule";
	CHECK(stacks_report_write(m, s, &ro) == 0);
	fclose(m);
	CHECK(strstr(text, "Showing the 0 threads") != NULL);
	CHECK(strstr(text, " thread: ") == NULL && strstr(text, " threads: ") == NULL);
	free(text);
}

/* A real lock-order deadlock in a child: thread 1 holds A and wants B, thread 2 holds B
 * and wants A.  The report must show the cycle. */
static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER, lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;

static void *take_a_then_b(void *arg)
{
	pthread_mutex_lock(&lock_a);
	pthread_barrier_wait(&both_hold);
	pthread_mutex_lock(&lock_b);
	return NULL;
}

static void *take_b_then_a(void *arg)
{
	pthread_mutex_lock(&lock_b);
	pthread_barrier_wait(&both_hold);
	pthread_mutex_lock(&lock_a);
	return NULL;
}

/* true when at least `want` threads of pid sleep in futex(2) */
static bool all_in_futex(pid_t pid, int want)
{
	char path[320];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", (int)pid, de->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long nr = -1;
		if (fscanf(f, "%ld", &nr) == 1 && nr == SYS_futex)
			n++;
		fclose(f);
	}
	closedir(d);
	return n >= want;
}

static void test_abba(void)
{
	pid_t child = fork();
	if (child == 0) {
		pthread_barrier_init(&both_hold, NULL, 2);
		pthread_t t1, t2;
		pthread_create(&t1, NULL, take_a_then_b, NULL);
		pthread_create(&t2, NULL, take_b_then_a, NULL);
		pthread_join(t1, NULL);
		_exit(0);
	}
	struct timespec tick = {0, 5 * 1000 * 1000};
	bool ready = false;
	for (int i = 0; i < 4000 && !(ready = all_in_futex(child, 3)); i++)
		nanosleep(&tick, NULL);
	CHECK(ready);
	struct stacks_opts so = {.kernel = false};
	struct stacks_snapshot *s = ready ? stacks_snapshot_take(child, &so) : NULL;
	CHECK(s && s->nthreads == 3);
	if (s && s->nthreads == 3) {
		const struct thread_stack *t1 = &s->threads[1], *t2 = &s->threads[2];
		CHECK(t1->wait.kind == LOCK_WAIT_MUTEX && t1->wait.owner == t2->tid);
		CHECK(t2->wait.kind == LOCK_WAIT_MUTEX && t2->wait.owner == t1->tid);
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		struct stacks_report_opts ro = {0};
		CHECK(stacks_report_write(m, s, &ro) == 0);
		fclose(m);
		char want[160];
		snprintf(want, sizeof(want),
			 "  DEADLOCK: TID %d -> mutex 0x%llx -> TID %d -> mutex 0x%llx -> TID %d\n",
			 (int)t1->tid, (unsigned long long)t1->wait.addr, (int)t2->tid,
			 (unsigned long long)t2->wait.addr, (int)t1->tid);
		CHECK(strstr(text, want) != NULL);
		/* the cycle is told once, not once per member */
		CHECK(strstr(strstr(text, "DEADLOCK") + 1, "DEADLOCK") == NULL);
		free(text);
	}
	stacks_snapshot_free(s);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

int main(void)
{
	if (geteuid() != 0)
		SKIP("stacks needs root (ptrace, /proc/<pid>/task/<tid>/stack): run the tests as "
		     "root");
	const char *build = getenv("BUILD_DIR");
	if (!build)
		SKIP("BUILD_DIR not set: run it through meson test");
	char exe[4096], ready[64];
	snprintf(exe, sizeof(exe), "%s/tests/workloads/deadlock", build);
	if (access(exe, X_OK) != 0)
		SKIP("tests/workloads/deadlock is not built: ninja -C build builds it");

	struct stacks_opts so = {.kernel = true};
	CHECK(stacks_snapshot_take(999999, &so) == NULL);
	CHECK(strstr(pc_strerror(), "no process") != NULL);

	snprintf(ready, sizeof(ready), "/tmp/test_stacks.%d.ready", (int)getpid());
	unlink(ready);
	pid_t child = fork();
	if (child == 0) {
		char n[8];
		snprintf(n, sizeof(n), "%d", WAITERS);
		execl(exe, exe, n, ready, (char *)NULL);
		_exit(127);
	}
	int owner = 0, wfd = -1;
	struct timespec tick = {0, 5 * 1000 * 1000};
	for (int i = 0; i < 4000 && owner == 0; i++) {
		FILE *f = fopen(ready, "r");
		if (f) {
			if (fscanf(f, "%d %d", &owner, &wfd) != 2)
				owner = 0;
			fclose(f);
		}
		if (!owner)
			nanosleep(&tick, NULL);
	}
	CHECK(owner > 0);
	if (owner > 0) {
		struct stacks_snapshot *s = stacks_snapshot_take(child, &so);
		CHECK(s != NULL);
		if (s) {
			check_snapshot(s, owner);
			stacks_snapshot_free(s);
		}
		/* -nokernel */
		so.kernel = false;
		s = stacks_snapshot_take(child, &so);
		CHECK(s && !s->have_kernel && s->threads[0].nkframes == 0);
		stacks_snapshot_free(s);
		/* release the owner: the workload must finish normally */
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)child, wfd);
		int fd = open(path, O_WRONLY);
		bool released = fd >= 0 && write(fd, "x", 1) == 1;
		CHECK(released);
		if (fd >= 0)
			close(fd);
		if (!released)
			kill(child, SIGKILL);
	} else {
		kill(child, SIGKILL);
	}
	int status = 0;
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(ready);
	test_abba();
	return TEST_DONE();
}
