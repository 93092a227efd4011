/* view_compat: perfcollect's `view -perfopt "..."` and `view -viewer lttng`. */
#ifndef PC_VIEW_COMPAT_H
#define PC_VIEW_COMPAT_H

#include "base/util.h"

/* The `perf report` options of a -perfopt string that have a meaning in this report. */
struct perfopt {
	char *sort;	       /* --sort/-s KEYS */
	char *percent_limit;   /* --percent-limit PCT */
	char *comms;	       /* --comms/-c COMM[,COMM] */
	long pid, tid;	       /* --pid, --tid; -1 when absent */
	const char *graphtype; /* from -g/--call-graph ...,caller|callee, or -G; NULL */
	char *ignored;	       /* the words that mean nothing here, or NULL */
};

/* 0, or -1 (pc_err) for a value that cannot be right (--pid x). */
int perfopt_parse(const char *s, struct perfopt *po);
void perfopt_free(struct perfopt *po);

#endif
