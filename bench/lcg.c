/* A fixed CPU loop for the workload's cost of sampling (bench/recorder.sh --cost): STEPS
 * (default 500 M) steps of a 64-bit LCG, then prints the millions of steps per second of this
 * process's CPU time.  What a recorder costs the workload shows as fewer steps per CPU-second
 * (its interrupts and the cache it takes), whatever the load.
 *   lcg [STEPS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long steps = argc > 1 ? strtoull(argv[1], NULL, 10) : 500000000ULL;
	volatile unsigned long long sink;
	unsigned long long x = 1;
	double t0 = cpu_seconds();
	for (unsigned long long i = 0; i < steps; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	(void)sink;
	printf("%.0f\n", steps / 1e6 / (cpu_seconds() - t0));
	return 0;
}
