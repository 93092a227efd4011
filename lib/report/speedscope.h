/* speedscope: a calltree as a speedscope file (https://www.speedscope.app, the JSON its
 * file-format-schema.json describes): the frames once in "shared", then a "sampled" profile
 * for all processes (the process as the outermost frame) and one per process, heaviest
 * first, each stack root first with its weight.
 */
#ifndef PC_SPEEDSCOPE_H
#define PC_SPEEDSCOPE_H

#include "calltree.h"

struct speedscope_opts {
	const char *name;  /* the file's name, e.g. the trace's */
	const char *unit;  /* a schema ValueUnit: "none" (counts), "nanoseconds" ... */
	const char *what;  /* what a weight counts, in the profile names: "samples" */
	uint64_t unit_div; /* 0 or 1: weights as they are; else divided by it */
};

/* 0, or -1 (pc_err) when writing failed. */
int speedscope_write(FILE *out, const struct calltree *t, const struct speedscope_opts *o);

#endif
