/* Off-CPU workload: blocks for known times in known functions, built with frame pointers.
 * Each round sleeps SLEEP_MS in blocker_sleep() (nanosleep), then asks the writer thread
 * for a byte and waits for it in blocker_pipe_read() (read on a pipe) while the writer
 * sleeps PIPE_MS in blocker_writer() before writing it.  After ROUNDS rounds it exits.
 *
 * usage: blocker SLEEP_MS PIPE_MS ROUNDS [wait] [spin=MS]
 * With "wait" it first waits for SIGUSR1 (in blocker_wait_start()), so a test can attach a
 * recorder before the timed part starts.  With spin=MS each round also runs MS ms on the CPU
 * in blocker_spin() (measured with the thread's CPU clock) after its sleep, so the main
 * thread both blocks and runs for known times.  At the end it prints "waited_ms MS runnable_ms MS":
 * the main thread's wall time in blocker_sleep() and blocker_pipe_read(), from the call to the
 * return, i.e. with the wait for a CPU after each wake-up that a loaded machine adds (which a
 * tracer sees as blocked time too), and its wall time in blocker_spin() less the CPU time it ran
 * there: the time it was preempted (which PerfView counts as blocked). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int request_fd[2], reply_fd[2];
static long pipe_ms;

/* The syscall wrappers are called through these helpers: libc's wrappers keep no frame of
 * their own, so a frame-pointer unwind skips their caller, and the caller skipped must not be
 * the distinctive function. */
__attribute__((noinline)) static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double now_ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void blocker_spin(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	volatile unsigned long x = 1;
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005UL + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

__attribute__((noinline)) void blocker_sleep(long ms)
{
	sleep_ms(ms);
}

__attribute__((noinline)) static ssize_t read_byte(int fd)
{
	char c;
	ssize_t n;
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n;
}

__attribute__((noinline)) static void write_byte(int fd)
{
	while (write(fd, "x", 1) < 0 && errno == EINTR)
		;
}

__attribute__((noinline)) void blocker_pipe_read(void)
{
	write_byte(request_fd[1]);
	read_byte(reply_fd[0]);
}

__attribute__((noinline)) void blocker_writer(void)
{
	while (read_byte(request_fd[0]) == 1) {
		sleep_ms(pipe_ms);
		write_byte(reply_fd[1]);
	}
}

static void *writer_main(void *arg)
{
	(void)arg;
	blocker_writer();
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

__attribute__((noinline)) void blocker_wait_start(void)
{
	sigset_t mask, old;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGUSR1, on_usr1);
	int sig;
	sigwait(&mask, &sig);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: blocker SLEEP_MS PIPE_MS ROUNDS [wait] [spin=MS]\n");
		return 2;
	}
	long sleep_time = atol(argv[1]);
	pipe_ms = atol(argv[2]);
	int rounds = atoi(argv[3]);
	if (sleep_time < 0 || pipe_ms < 0 || rounds < 1) {
		fprintf(stderr, "blocker: bad arguments\n");
		return 2;
	}
	long spin_ms = 0;
	bool wait = false;
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "wait"))
			wait = true;
		else if (!strncmp(argv[i], "spin=", 5))
			spin_ms = atol(argv[i] + 5);
	}
	if (wait)
		blocker_wait_start();
	pthread_t writer;
	if (pipe(request_fd) < 0 || pipe(reply_fd) < 0 ||
	    pthread_create(&writer, NULL, writer_main, NULL)) {
		fprintf(stderr, "blocker: cannot set up the pipes and the writer thread\n");
		return 1;
	}
	/* The spin comes between the sleep and the pipe wait: should a tracer miss the switch
	 * back in after a preemption there, the wait it then runs into is the short one. */
	double waited_ms = 0, runnable_ms = 0, t;
	for (int i = 0; i < rounds; i++) {
		t = now_ms(CLOCK_MONOTONIC);
		blocker_sleep(sleep_time);
		waited_ms += now_ms(CLOCK_MONOTONIC) - t;
		if (spin_ms > 0) {
			double cpu = now_ms(CLOCK_THREAD_CPUTIME_ID);
			t = now_ms(CLOCK_MONOTONIC);
			blocker_spin(spin_ms);
			runnable_ms +=
			    now_ms(CLOCK_MONOTONIC) - t - (now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu);
		}
		t = now_ms(CLOCK_MONOTONIC);
		blocker_pipe_read();
		waited_ms += now_ms(CLOCK_MONOTONIC) - t;
	}
	close(request_fd[1]); /* the writer sees EOF and ends */
	pthread_join(writer, NULL);
	printf("waited_ms %.3f runnable_ms %.3f\n", waited_ms, runnable_ms);
	return 0;
}
