/* libnofp.so: built with -O2 -fomit-frame-pointer (tests/workloads/meson.build), as
 * distributions build their libraries; see nofp_main.c. */
#include <time.h>

__attribute__((noinline)) unsigned long nofp_inner(unsigned long x)
{
	volatile unsigned long scratch[8];
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		scratch[i & 7] = x;
	}
	return x + scratch[3];
}

__attribute__((noinline)) unsigned long nofp_work(double seconds, int clobber)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 1;
	for (;;) {
		for (int i = 0; i < 50; i++) {
			if (clobber) {
				/* rbp holds a number across the call, as code built without
				 * frame pointers may have it when short of registers */
				unsigned long r;
				__asm__ volatile("mov %%rdi, %%rbp\n\t"
						 "call nofp_inner@PLT"
						 : "=a"(r), "+D"(x)
						 :
						 : "rbp", "rcx", "rdx", "rsi", "r8", "r9", "r10",
						   "r11", "memory", "cc");
				x = r;
			} else {
				x = nofp_inner(x);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
	}
	return x;
}
