/* collect: one collection from start to zip: check permissions, open the events, record
 * into <name>.trace/perf.data until a stop condition, then postprocess_run() into
 * <name>.trace.zip.  A second Ctrl+C during post-processing does not lose the trace.
 */
#ifndef PC_COLLECT_H
#define PC_COLLECT_H

#include "util.h"

struct collect_opts {
	const char *name;    /* <name>.trace.zip */
	const char *outdir;  /* where the zip goes (default ".") */
	long pid;	     /* -1: system-wide */
	long collectsec;     /* 0: until stopped */
	uint64_t buffersize; /* per ring buffer in bytes; 0: default */
	bool threadtime, offcpu, hwevents, system;
	bool no_dotnet_ipc; /* do not ask the .NET runtime to write perf maps */
	int argc;	    /* the command line, for perf.data's cmdline and the log */
	char **argv;
	/* Lines about accepted options that do not apply (e.g. "-gconly: ..."), said on
	 * screen and in perfcollect.log once it is open. */
	const char *const *notes;
	size_t nnotes;
};

/* Returns 0 when <outdir>/<name>.trace.zip was written from a clean recording; -1 with a
 * pc_err() line otherwise (no permission, no such process, a write error ...). */
int collect_run(const struct collect_opts *o);

#endif
