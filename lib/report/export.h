/* export: one tree of a view written to a file in a format other tools read: an SVG flame
 * graph (or a differential one), folded stacks, a pprof profile, a speedscope file.  Each
 * file is written under a temporary name beside its destination and renamed when complete,
 * so a failed or interrupted export never leaves half a file; "-" writes to stdout.
 */
#ifndef PC_EXPORT_H
#define PC_EXPORT_H

#include "pprof.h"
#include "view.h"

enum export_format { EXPORT_SVG, EXPORT_FOLDED, EXPORT_PPROF, EXPORT_SPEEDSCOPE };

/* "svg", "folded", "pprof", "speedscope" (any case); -1 when s is none of them. */
int export_format_parse(const char *s);
/* What a file of the format is called after the trace: ".svg", ".pb.gz" ... */
const char *export_extension(enum export_format f);
/* What a file of the format is, for messages: "the flame graph" ... */
const char *export_what(enum export_format f);

struct export_job {
	enum export_format format;
	const char *path;	      /* "-" for stdout */
	const struct calltree *tree;  /* root first, a FRAME_PROCESS level under the root */
	enum view_kind kind;	      /* what a weight is (view_kind.h) */
	const char *event;	      /* the view's name, e.g. "cpu-clock", "alloc" */
	double mean_period;	      /* of one sample (cpu-clock: ns); 0 when unknown */
	const char *input;	      /* the trace, for titles and the profile's name */
	const char *title, *subtitle; /* SVG; NULL for the default */
	unsigned width;		      /* SVG; 0 for the default */
	const struct view_recording *rec;
	const struct pprof_build_id *build_ids;
	size_t nbuild_ids;
	const uint64_t *base_totals; /* SVG: differential against this base (diff.h) */
	const char *base_name;
};

/* 0, or -1 (pc_err) with nothing left at path. */
int export_write(const struct export_job *j);

#endif
