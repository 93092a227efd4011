/* flamegraph: a calltree as a self-contained interactive SVG flame graph, or as folded
 * stacks ("frame;frame;frame count", the input format of flame graph tools).
 *
 * The tree's stacks must be root first (the caller view); a first level of FRAME_PROCESS
 * pseudo-frames shows as the process row.  The SVG needs nothing else: its script shows a
 * frame's name, weight and percentage on hover, zooms on click and searches by regular
 * expression; frames are colored by kind (kernel, native, JIT/managed).  Frames narrower than
 * a tenth of a pixel are left out, so the file stays small whatever the trace.
 */
#ifndef PC_FLAMEGRAPH_H
#define PC_FLAMEGRAPH_H

#include "calltree.h"

struct flamegraph_opts {
	const char *title;    /* "Flame Graph" when NULL */
	const char *subtitle; /* e.g. the event and the input; may be NULL */
	const char *unit;     /* what a weight counts: "samples" */
	unsigned width;	      /* pixels; 1200 when 0 */
};

/* Both return 0, or -1 (pc_err) when writing failed. */
int flamegraph_write_svg(FILE *out, const struct calltree *t, const struct flamegraph_opts *o);
/* One line per unique stack of names with self weight; ';' inside a name becomes ':'. */
int flamegraph_write_folded(FILE *out, const struct calltree *t);

#endif
