/* diff: two profiles of the same program compared, as a differential flame graph does:
 * stacks and functions matched by name (both trees should come from
 * calltree_derive(CALLTREE_MERGE_NAMES)), each side's weight taken as a share of its own
 * total so that recordings of different lengths compare.
 */
#ifndef PC_DIFF_H
#define PC_DIFF_H

#include "calltree.h"

/* For each node of t (calltree_count(t) entries, to be freed), the total weight of the same
 * stack in base, 0 where base does not have it. */
uint64_t *diff_base_totals(const struct calltree *t, const struct calltree *base);

struct diff_opts {
	size_t top;	      /* rows */
	const char *unit;     /* "samples" */
	const char *new_name; /* the inputs, for the heading */
	const char *base_name;
};

/* The functions whose share moved most (by self, then by inclusive share), with both
 * shares and the change in points; functions found in one input only are marked.  Trees
 * root first with the process level, as view builds them.  0, or -1 (pc_err) on a write
 * error. */
int diff_report(FILE *out, const struct calltree *t, const struct calltree *base,
		const struct diff_opts *o);

#endif
