/* Test workload for `stacks`: a deliberate, recoverable hang.
 *
 * The owner thread locks a mutex and then blocks in read() on a pipe; WAITERS threads
 * block in pthread_mutex_lock() on that mutex; the main thread waits in pthread_join().
 * Once every thread sleeps where it should (checked in /proc/self/task/<tid>/syscall, so
 * the caller never has to guess with sleeps), "OWNER_TID WRITE_FD" is written to
 * READY_FILE.  Writing a byte to /proc/<pid>/fd/WRITE_FD releases the owner; everyone
 * then gets the mutex in turn and the program exits 0.
 *
 * usage: deadlock WAITERS READY_FILE
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAITERS 256

static pthread_mutex_t the_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t owner_has_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t owner_has_lock_cond = PTHREAD_COND_INITIALIZER;
static int owner_ready;
static int pipe_fds[2];
static volatile pid_t owner_tid;
static volatile pid_t waiter_tids[MAX_WAITERS];
static volatile unsigned long waiter_passes;

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

__attribute__((noinline)) static void wait_for_input(void)
{
	char c;
	ssize_t n;
	do
		n = read(pipe_fds[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		fprintf(stderr, "deadlock: read from pipe: %s\n", n < 0 ? strerror(errno) : "EOF");
		exit(1);
	}
}

__attribute__((noinline)) static void *owner_main(void *arg)
{
	owner_tid = my_tid();
	pthread_mutex_lock(&the_lock);
	pthread_mutex_lock(&owner_has_lock);
	owner_ready = 1;
	pthread_cond_signal(&owner_has_lock_cond);
	pthread_mutex_unlock(&owner_has_lock);
	wait_for_input();
	pthread_mutex_unlock(&the_lock);
	return NULL;
}

__attribute__((noinline)) static void take_the_lock(void)
{
	pthread_mutex_lock(&the_lock);
	waiter_passes++;
	pthread_mutex_unlock(&the_lock);
}

__attribute__((noinline)) static void *waiter_main(void *arg)
{
	waiter_tids[(long)arg] = my_tid();
	take_the_lock();
	return NULL;
}

/* The syscall number a thread of ours sleeps in, or -1 while it runs or is not in one. */
static long sleeping_syscall(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long nr = -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	if (nr < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	char state = 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');
		if (p && p[1] == ' ')
			state = p[2];
	}
	fclose(f);
	return state == 'S' ? nr : -1;
}

static int all_blocked(int waiters)
{
	if (!owner_tid || sleeping_syscall(owner_tid) != SYS_read)
		return 0;
	for (int i = 0; i < waiters; i++)
		if (!waiter_tids[i] || sleeping_syscall(waiter_tids[i]) != SYS_futex)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: deadlock WAITERS READY_FILE\n");
		return 2;
	}
	int waiters = atoi(argv[1]);
	if (waiters < 1 || waiters > MAX_WAITERS) {
		fprintf(stderr, "deadlock: WAITERS must be 1..%d\n", MAX_WAITERS);
		return 2;
	}
	if (pipe(pipe_fds) < 0) {
		perror("deadlock: pipe");
		return 1;
	}
	pthread_t owner, threads[MAX_WAITERS];
	pthread_create(&owner, NULL, owner_main, NULL);
	pthread_mutex_lock(&owner_has_lock);
	while (!owner_ready)
		pthread_cond_wait(&owner_has_lock_cond, &owner_has_lock);
	pthread_mutex_unlock(&owner_has_lock);
	for (long i = 0; i < waiters; i++)
		pthread_create(&threads[i], NULL, waiter_main, (void *)i);

	/* Bounded: 20 s at most, then give up loudly rather than hang a test run. */
	struct timespec tick = {0, 2 * 1000 * 1000};
	int tries = 0;
	while (!all_blocked(waiters)) {
		if (++tries > 10000) {
			fprintf(stderr, "deadlock: threads did not block as expected\n");
			return 1;
		}
		nanosleep(&tick, NULL);
	}
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d %d\n", (int)owner_tid, pipe_fds[1]) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[2]) != 0) {
		perror("deadlock: writing the ready file");
		return 1;
	}

	pthread_join(owner, NULL);
	for (int i = 0; i < waiters; i++)
		pthread_join(threads[i], NULL);
	if (waiter_passes != (unsigned long)waiters) {
		fprintf(stderr, "deadlock: %lu of %d waiters got the lock\n", waiter_passes,
			waiters);
		return 1;
	}
	return 0;
}
