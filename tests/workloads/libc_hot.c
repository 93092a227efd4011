/* Unwinding workload whose hot path is in Debian's libc (built without frame pointers):
 * qsort calling back into sort_cmp(), and memcpy, each from frame-pointer code:
 *
 *   main -> sort_loop -> qsort -> (libc's merge sort) -> sort_cmp
 *   main -> copy_loop -> memcpy
 *
 * usage: libc_hot [SECONDS]  (5 s) */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) int sort_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_loop(unsigned *v, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = seed = seed * 1103515245u + 12345u;
	qsort(v, n, sizeof(*v), sort_cmp);
	sink += v[n / 2];
}

__attribute__((noinline)) void copy_loop(char *dst, const char *src, size_t n)
{
	for (int i = 0; i < 16; i++) {
		memcpy(dst, src, n);
		sink += dst[i];
	}
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	size_t n = 4096, bytes = 1 << 20;
	unsigned *v = malloc(n * sizeof(*v));
	char *a = malloc(bytes), *b = malloc(bytes);
	memset(a, 1, bytes);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned round = 1; elapsed(&t0) < seconds; round++) {
		sort_loop(v, n, round);
		copy_loop(b, a, bytes);
	}
	free(v);
	free(a);
	free(b);
	return 0;
}
