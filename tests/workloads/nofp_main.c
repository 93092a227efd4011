/* Unwinding workload: frame-pointer code calling into a library built without frame pointers
 * (libnofp.so), whose hot function is nofp_inner():
 *
 *   main -> mid_fp -> deep_fp (DEPTH times, 256 bytes of locals each) -> nofp_work -> nofp_inner
 *
 * A frame-pointer chain taken in nofp_inner loses nofp_work and the frame-pointer function
 * that called it; in "clobber" mode nofp_work holds a non-pointer in rbp while it runs, so
 * the chain is lost whole (what code built without frame pointers does when it runs out of
 * registers).  usage: nofp [SECONDS] [plain|clobber] [DEPTH]  (5 s, plain, 0) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long nofp_work(double seconds, int clobber);

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long deep_fp(int depth, double seconds, int clobber)
{
	volatile char pad[256];
	memset((char *)pad, depth, sizeof(pad));
	if (depth > 0)
		return deep_fp(depth - 1, seconds, clobber) + pad[depth & 255];
	return nofp_work(seconds, clobber);
}

__attribute__((noinline)) void mid_fp(double seconds, int clobber, int depth)
{
	sink = deep_fp(depth, seconds, clobber);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	int clobber = argc > 2 && !strcmp(argv[2], "clobber");
	int depth = argc > 3 ? atoi(argv[3]) : 0;
	mid_fp(seconds, clobber, depth);
	return 0;
}
