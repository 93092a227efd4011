/* perf_run: runs the installed perf with arguments and keeps what it printed, for the tests
 * that use perf as the oracle of what they wrote. */
#ifndef PC_TEST_PERF_RUN_H
#define PC_TEST_PERF_RUN_H

#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct run {
	int status; /* pclose()'s */
	char *out, *err;
};

static inline char *run_slurp(FILE *f)
{
	size_t cap = 4096, n = 0, r;
	char *buf = malloc(cap);
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0)
		if ((n += r) + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	buf[n] = 0;
	return buf;
}

/* `perf ARGS`: its stdout and stderr whole, its exit status. */
static inline void run_perf(struct run *r, const char *args)
{
	char errpath[] = "/tmp/pc_perf_run.err.XXXXXX";
	int efd = mkstemp(errpath);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "perf %s 2>%s", args, errpath);
	FILE *p = popen(cmd, "r");
	r->out = p ? run_slurp(p) : strdup("");
	r->status = p ? pclose(p) : -1;
	FILE *e = fdopen(efd, "r");
	r->err = run_slurp(e);
	fclose(e);
	unlink(errpath);
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Complaints perf prints for a file it does not fully understand. */
static inline bool perf_complains(const char *err)
{
	return strcasestr(err, "warning") || strcasestr(err, "error") ||
	       strcasestr(err, "corrupt") || strcasestr(err, "unsupported") ||
	       strcasestr(err, "failed");
}

/* CHECK(cond), printing perf's exit status and stderr when it fails. */
#define CHECK_RUN(cond, r)                                                                         \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			CHECK(cond);                                                               \
			fprintf(stderr, "  perf exit status %d; perf's stderr:\n%s\n",             \
				(r)->status, (r)->err);                                            \
		}                                                                                  \
	} while (0)

#endif
