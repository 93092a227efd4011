/* script_format: one sample of perf.data.txt as text (script.h's layout, perf 6.1's widths),
 * appended to a buffer.  It keeps a cache of formatted frame lines, so a thread that formats
 * owns one: script.h's writer holds one, and each of script_pool.h's workers its own.  The
 * text depends only on the sample and the width of event names, never on what the cache
 * holds: any thread formats any sample to the same bytes.  The process name is written as
 * given (script.h's writer makes it safe for PerfView first). */
#ifndef PC_SCRIPT_FORMAT_H
#define PC_SCRIPT_FORMAT_H

#include "base/bytebuf.h"
#include "symbols/symbols.h"

/* A frame as perf.data.txt needs it (the frames of a sample queued for another thread). */
struct script_frame {
	uint64_t ip;
	const char *sym, *dso; /* NULL: "[unknown]" */
};

struct script_sample {
	const char *comm;
	int32_t pid, tid;
	bool has_cpu;
	uint32_t cpu;
	bool has_time;
	uint64_t time; /* ns */
	uint64_t period;
	const char *event;
	const char *trace; /* tracepoint fields, NULL for other events */
	bool callchain;	   /* the event samples callchains: frames one per line */
	uint64_t ip;	   /* the sample's ip: printed instead of frames[0].ip without callchain */
	const struct frame *frames;	   /* the frames, or: */
	const struct script_frame *packed; /* the frames, if non-NULL */
	size_t nframes;
};

struct script_format;

/* name_width: the longest event name among the file's events (perf's evlist rule). */
struct script_format *script_format_new(int name_width);
void script_format_free(struct script_format *f);
/* Appends the sample's lines, the blank line after them included. */
void script_format_sample(struct script_format *f, struct bytebuf *out,
			  const struct script_sample *s);

#endif
