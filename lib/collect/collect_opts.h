/* collect_opts: what one collection was asked for, from the command line.  Its own header so
 * that collect_events (which turns these options into events) and collect (which runs the
 * collection) both read it without one including the other. */
#ifndef PC_COLLECT_OPTS_H
#define PC_COLLECT_OPTS_H

#include "base/util.h"
#include "dotnet/eventpipe_session.h"
#include "postprocess/postprocess.h"

/* How call stacks are recorded (-callgraph). */
enum callgraph_mode {
	CALLGRAPH_HYBRID, /* the frame-pointer chain, the user registers and a small copy of the
			     user stack: frames without a frame pointer unwound from it */
	CALLGRAPH_FP,	  /* the frame-pointer chain alone */
	CALLGRAPH_DWARF,  /* perf --call-graph dwarf: every register and a big copy */
};

struct callgraph {
	enum callgraph_mode mode;
	uint32_t stack_bytes; /* the copy of the user stack per sample; 0: the mode's default */
};

struct collect_opts {
	const char *name;    /* <name>.trace.zip */
	const char *outdir;  /* where the zip goes (default ".") */
	long pid;	     /* -1: system-wide */
	double collectsec;   /* seconds, fractions allowed; 0: until stopped */
	long freq;	     /* samples per second of each sampled event; 0: 1000 (perfcollect's) */
	uint64_t buffersize; /* per ring buffer in bytes; 0: default */
	struct callgraph callgraph;
	bool threadtime, offcpu, hwevents, system;
	bool no_dotnet_ipc; /* do not ask the .NET runtime to write perf maps */
	/* The .NET runtime events to record over EventPipe (eventpipe_events.h); NULL: none. */
	const struct eventpipe_config *dotnet_events;
	/* -gccollectonly, -gconly, -gcwithheap: as perfcollect, no CPU samples (perf.data then
	 * holds only the processes' side-band records). */
	bool no_cpu_samples;
	enum output_format format; /* the trace.zip, <name>.nettrace, or both */
	struct symsrv_opts symsrv; /* symbol servers for post-processing */
	int argc;		   /* the command line, for perf.data's cmdline and the log */
	char **argv;
	/* Lines about accepted options that do not apply (e.g. "-gconly: ..."), said on
	 * screen and in perfcollect.log once it is open. */
	const char *const *notes;
	size_t nnotes;
	/* How the user stops this collection, said when recording starts ("press Ctrl+C to
	 * stop" when NULL); a background collection (start) names its `stop` command. */
	const char *stop_hint;
	/* Called once when recording runs (start returns to the shell then); may be NULL. */
	void (*on_recording)(void *arg);
	void *on_recording_arg;
};

#endif
