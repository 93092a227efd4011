/* stackfile: a streaming reader of `perf script` text (perf.data.txt).
 *
 * Reads the layout of `perf script --fields comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace`
 * and of any subset that keeps comm, pid, tid and event: the [cpu] column, the time and the period
 * may be absent, comms may contain spaces (or be right-aligned, as perf prints them without
 * callchains), tracepoint samples carry their formatted fields after the event name, and a
 * sample without callchain may carry its one frame on the header line.
 *
 * One callback per sample; nothing is kept between samples, so memory does not grow with the
 * input.  The strings handed to the callback live until the callback returns.
 */
#ifndef PC_STACKFILE_H
#define PC_STACKFILE_H

#include "base/util.h"

/* Deeper stacks are cut to their leaf-most frames (perf's own limit is 127 by default). */
#define STACKFILE_MAX_FRAMES 4096

struct stack_frame {
	uint64_t ip;
	const char *sym; /* as printed: "[unknown]", "foo+0x12", "" when the line had none */
	const char *dso; /* without the parentheses; "" when the line had none */
};

struct stack_sample {
	const char *comm;
	int pid, tid;
	int cpu;	   /* -1 when the [cpu] column is absent */
	uint64_t time_ns;  /* 0 when absent */
	uint64_t period;   /* 1 when absent */
	const char *event; /* "cpu-clock", "sched:sched_switch" (without the trailing ':') */
	const char *trace; /* tracepoint fields after the event name, or "" */
	const struct stack_frame *frames; /* leaf first, as perf prints them */
	size_t nframes;
	uint64_t line; /* line number of the header, for messages */
};

/* Returns 0 to go on; anything else stops the reading and is returned by stackfile_read(). */
typedef int (*stackfile_cb)(const struct stack_sample *s, void *arg);

struct stackfile_stats {
	uint64_t lines;
	uint64_t samples;
	uint64_t bad_lines;	   /* lines that are neither a header, a frame nor blank */
	uint64_t first_bad_line;   /* its number, 0 if none */
	uint64_t truncated_stacks; /* samples cut to STACKFILE_MAX_FRAMES */
};

/* Reads f to its end, calling cb for each sample.  name is used in messages.  Returns 0, the
 * callback's non-zero value, or -1 (pc_err) on a read error or when the input has lines but
 * none of them is a sample (not perf script output).  stats may be NULL. */
int stackfile_read(FILE *f, const char *name, stackfile_cb cb, void *arg,
		   struct stackfile_stats *stats);

/* The line parsers, exposed for the unit tests.  Both work in place on a NUL-terminated line
 * (without its newline), cutting it into the strings they point to; 0 or -1 (no pc_err). */
int stackfile_parse_header(char *line, struct stack_sample *s);
int stackfile_parse_frame(char *line, struct stack_frame *fr);

#endif
