/* report: the text views of a calltree, as `perf report -n --stdio -g graph,<limit>` prints.
 *
 * report_tree() prints a tree whose root's children are the entries: for the callee view
 * an inverted tree (each function with self weight, then who called it), for the caller
 * view a top-down tree (the outermost callers first).  Each entry and each branch carries
 * its percentage of the tree's total and its weight; single-callee chains are printed one
 * name per line, as perf does; nodes under percent_limit are left out.
 */
#ifndef PC_REPORT_H
#define PC_REPORT_H

#include "calltree.h"

struct report_opts {
	double percent_limit; /* nodes under this % of the total are not shown (perf: 0.5) */
	size_t top;	      /* rows in each top-functions table */
	const char *unit;     /* what a weight counts, as shown: "samples", "ms" */
	uint64_t unit_div;    /* 0 or 1: weights shown as they are; else divided by it, with
				 two decimals (1000000 shows nanoseconds as ms) */
};

/* All return 0, or -1 (pc_err) when writing failed. */
int report_tree(FILE *out, const struct calltree *t, const struct report_opts *o);
/* Two tables, by self and by inclusive weight, from a tree whose stacks are root first
 * (pseudo-frames of kind FRAME_PROCESS are not functions and are skipped). */
int report_top_functions(FILE *out, const struct calltree *t, const struct report_opts *o);
/* perf report --sort KEYS: a flat table of self weight grouped by keys, a comma-separated
 * list of "comm", "dso" and "sym" (perf's names), from a tree with FRAME_PROCESS roots.  -1
 * (pc_err naming it) for a key this report cannot group by. */
int report_sorted(FILE *out, const struct calltree *t, const char *keys,
		  const struct report_opts *o);
/* The weight per process: the first level of a tree built with FRAME_PROCESS roots. */
int report_processes(FILE *out, const struct calltree *t, const struct report_opts *o);

#endif
