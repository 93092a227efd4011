/* A shared library whose hot functions are static (local symbols: only .symtab names them,
 * not .dynsym), for the symbol server tests: stripped, its frames are named only from its
 * debug file.  symlib_run(seconds) spends most of its time in symlib_spin_inner(), called
 * from symlib_spin_outer(). */
#include <time.h>

static volatile unsigned long symlib_sink;

static __attribute__((noinline)) unsigned long symlib_spin_inner(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

static __attribute__((noinline)) unsigned long symlib_spin_outer(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		x = symlib_spin_inner(x);
	return x;
}

void symlib_run(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 1;
	do {
		x = symlib_spin_outer(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	symlib_sink = x;
}
