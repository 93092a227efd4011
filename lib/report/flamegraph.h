/* flamegraph: a calltree as a self-contained interactive SVG flame graph, or as folded
 * stacks ("frame;frame;frame count", the input format of flame graph tools).
 *
 * The tree's stacks must be root first (the caller view); a first level of FRAME_PROCESS
 * pseudo-frames shows as the process row.  The SVG needs nothing else: its script shows a
 * frame's full name, weight and percentage on hover, zooms on click, searches by regular
 * expression (case-insensitive when its "ic" toggle is on) and fits the graph to the window's
 * width; .NET methods are labelled short (HotLoop::Digits) with the full signature on hover.
 * Frames are colored by kind (kernel, native, .NET runtime, JIT, ReadyToRun), in warm colors
 * for CPU time and in blues for off-CPU (blocked) time, as off-CPU graphs usually are; neighbouring
 * frames narrower than a pixel at the drawn width are merged into one grey frame, so the file stays
 * small whatever the trace.  A differential graph (base_totals set) keeps the shape of the
 * tree and colors each frame by how its share of the total changed against the base: red
 * more, blue less, white unchanged.
 */
#ifndef PC_FLAMEGRAPH_H
#define PC_FLAMEGRAPH_H

#include "calltree.h"

enum flamegraph_palette {
	FLAMEGRAPH_CPU,	   /* warm: kernel orange, native red, JIT green */
	FLAMEGRAPH_OFFCPU, /* blues, a shade per kind */
};

struct flamegraph_opts {
	const char *title;    /* "Flame Graph" when NULL */
	const char *subtitle; /* e.g. the event and the input; may be NULL */
	const char *unit;     /* what a weight counts, as shown: "samples", "ms" */
	uint64_t unit_div;    /* 0 or 1: weights shown as they are; else divided by it, with
				 two decimals (1000000 shows nanoseconds as ms) */
	enum flamegraph_palette palette;
	unsigned width; /* pixels; 1200 when 0 */
	/* Differential: per node of the tree, the weight of the same stack in the base profile
	 * (diff_base_totals()), and the base's name for the hover text; NULL otherwise. */
	const uint64_t *base_totals;
	const char *base_name;
};

/* The label of a frame: a .NET method "[ret] [Module] Ns.Class+Nested::Method(args)[Tier]"
 * as "Class+Nested::Method" in buf; any other name as it is.  Returns buf or name. */
const char *flamegraph_short_name(const char *name, char *buf, size_t len);

/* Both return 0, or -1 (pc_err) when writing failed. */
int flamegraph_write_svg(FILE *out, const struct calltree *t, const struct flamegraph_opts *o);
/* One line per unique stack of names with self weight; ';' inside a name becomes ':'. */
int flamegraph_write_folded(FILE *out, const struct calltree *t);
/* The same with each line's weight divided by div, rounded to the nearest (nanoseconds of
 * blocked time as microseconds: 1000); lines that round to 0 are left out. */
int flamegraph_write_folded_scaled(FILE *out, const struct calltree *t, uint64_t div);

#endif
