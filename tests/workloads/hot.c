/* Demo workload: a CPU-bound program with known hot functions, built with frame pointers.
 * Most time goes to hot_leaf() called from hot_middle() from main().
 * usage: hot [seconds] [threads] [name]   (default 5 s, 1 thread; name: the process name its
 * threads run under, set with prctl(PR_SET_NAME), e.g. one with spaces and digits) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long hot_leaf(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long cold_leaf(unsigned long x)
{
	for (int i = 0; i < 400; i++)
		x ^= x << 7, x ^= x >> 9;
	return x;
}

__attribute__((noinline)) void hot_middle(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 1;
	for (;;) {
		for (int i = 0; i < 100; i++)
			x = hot_leaf(x);
		x = cold_leaf(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
	}
	sink = x;
}

static double run_seconds;

static void *worker(void *arg)
{
	hot_middle(run_seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	run_seconds = argc > 1 ? atof(argv[1]) : 5.0;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tid[64];
	if (threads < 1 || threads > 64)
		threads = 1;
	if (argc > 3)
		prctl(PR_SET_NAME, argv[3], 0, 0, 0);
	for (int i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, NULL);
	hot_middle(run_seconds);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
