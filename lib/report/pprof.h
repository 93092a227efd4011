/* pprof: a calltree as a pprof profile (profile.proto, gzipped), the format `go tool pprof`,
 * Pyroscope, Parca and Grafana read.
 *
 * One Function per function of the tree (name as the report shows it, system_name the symbol
 * as perf printed it, filename its shared object), one Location per function at the first
 * address seen in it, one Mapping per shared object with the address range its functions
 * were seen in and its build-id where the trace has one; has_functions is set, so viewers
 * take the names as they are and look nothing up.  The first level of FRAME_PROCESS
 * pseudo-frames becomes the label "comm" of each sample, not a frame.
 */
#ifndef PC_PPROF_H
#define PC_PPROF_H

#include "calltree.h"

struct pprof_build_id {
	const char *dso; /* as perf.data.txt names it */
	const char *hex; /* lowercase hex */
};

struct pprof_opts {
	/* The first value of each sample: its weight in the tree, e.g. ("samples", "count"). */
	const char *type, *unit;
	/* An optional second value, weight x scale, e.g. ("cpu", "nanoseconds") with the mean
	 * period of a cpu-clock sample; NULL for none. */
	const char *type2, *unit2;
	double scale2;
	/* period_type is (type2, unit2) when given, else (type, unit). */
	int64_t period;
	int64_t time_ns;     /* wall-clock start, ns since the epoch; 0 when unknown */
	int64_t duration_ns; /* 0 when unknown */
	const struct pprof_build_id *build_ids;
	size_t nbuild_ids;
	const char *comment; /* e.g. "perfcollect-c view x.trace.zip"; may be NULL */
};

/* Writes the gzipped profile; 0, or -1 (pc_err) when writing failed. */
int pprof_write(FILE *out, const struct calltree *t, const struct pprof_opts *o);

#endif
