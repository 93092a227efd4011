/* postprocess_input: what merge post-processes, from the argument a user gave (its kind
 * from base/tracefile.h):
 * - a perf.data, ours or real perf's; a bare one (not inside a <name>.trace) is "loose": its
 *   JIT maps are where perf looks for them, and its processes may still run;
 * - a <name>.trace directory, or the perf.data in one: claimed (tracedir_claim()), refused
 *   while a collection records into it; one a collector did not finish is left_over;
 * - a <name>.trace.zip, extracted into a private temporary directory (removed by _free()).
 * Names come from the real path ("." or "x.trace/" name the trace too).
 */
#ifndef PC_POSTPROCESS_INPUT_H
#define PC_POSTPROCESS_INPUT_H

#include "base/util.h"

struct postprocess_input {
	char *trace_dir; /* where perf.data and its side files are */
	char *perf_data;
	char *name;	 /* the trace's name, for the outputs */
	bool loose;	 /* a bare perf.data: maps are where perf looks for them */
	bool left_over;	 /* a collector's working directory it did not finish */
	char *extracted; /* temporary directory of an extracted zip */
	int lock_fd;	 /* the trace directory's lock, held until _free() */
};

/* -1 with one pc_err() line naming the cause (and what merge takes); *in is then still to
 * be freed. */
int postprocess_input_open(const char *arg, struct postprocess_input *in);
void postprocess_input_free(struct postprocess_input *in);

/* The archive to write: out (never the input itself), else <name>.trace.zip here, but a zip
 * merged again without -o gets a new name (<name>-merged.trace.zip, -merged-2 ...) and
 * *renamed says so.  NULL with pc_err(). */
char *postprocess_output_name(const char *input, const char *out, const char *name, bool *renamed);

/* Starts out_dir/perfcollect.log from the input's own log (a collection's: the archive keeps
 * the recording's story and adds the merge's), then log_open()s it. */
int postprocess_input_start_log(const struct postprocess_input *in, const char *out_dir);

#endif
