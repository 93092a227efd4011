/* A minimal test harness: CHECK() records a failure and goes on; the program exits 1 if
 * anything failed, 77 (meson's "skipped") when SKIP() is called. */
#ifndef PC_TEST_H
#define PC_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			test_failures++;                                                   \
		}                                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                  \
	do {                                                                                \
		unsigned long long _a = (a), _b = (b);                                      \
		if (_a != _b) {                                                             \
			fprintf(stderr, "%s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__, \
				#a, _a, _b);                                                \
			test_failures++;                                                    \
		}                                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                                     \
	do {                                                                                \
		const char *_a = (a), *_b = (b);                                            \
		if (!_a || !_b || strcmp(_a, _b)) {                                         \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,    \
				__LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");      \
			test_failures++;                                                    \
		}                                                                           \
	} while (0)

#define SKIP(why)                                                                           \
	do {                                                                                \
		printf("SKIP: %s\n", why);                                                  \
		exit(77);                                                                   \
	} while (0)

#define TEST_DONE() (test_failures ? (fprintf(stderr, "%d check(s) failed\n", test_failures), 1) : 0)

#endif
