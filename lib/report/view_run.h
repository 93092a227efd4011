/* view_run: the `view` command's work, from its options to its outputs: reads the trace
 * (view.h), picks the view (-event, -offcpu, -runtime), and writes each file asked for in
 * its format (export.h), or the text report (view_text.h, runtime_report.h) for the caller
 * to show.  One call per command; cmd/view.c only parses the options and pages the text.
 */
#ifndef PC_VIEW_RUN_H
#define PC_VIEW_RUN_H

#include "base/util.h"

struct view_request {
	const char *input;	   /* the trace, "-" for stdin */
	long pid, tid;		   /* -1: any */
	const char *processfilter; /* COMM[,COMM] or NULL */
	const char *event;	   /* -event NAME or NULL */
	bool offcpu;		   /* -offcpu */
	bool runtime;		   /* -runtime */
	bool report;		   /* --report: NAME.report.html beside the trace */
	const char *runtime_table; /* -runtime gc|jit; NULL: the whole report */
	const char *format;	   /* -format, NULL: text */
	const char *output;	   /* -o, NULL: named after the trace */
	const char *flamegraph;	   /* -flamegraph FILE.svg */
	const char *folded;	   /* -folded FILE */
	const char *diff;	   /* -diff OLD */
	const char *title;
	long width, top;
	double percent_limit;
	bool caller;	  /* -graphtype caller */
	const char *sort; /* perf report --sort keys (from -perfopt), or NULL */
	FILE *diag;	  /* where messages go ("perfcollect-c view: ..." lines) */
};

/* The view asked for.  Returns the command's exit status: 0; 1 when the trace cannot be
 * read or shows nothing of what was asked; 2 for options that make no sense.  When the
 * output is text for the terminal, *text (malloc'd, *len bytes) holds it, else NULL. */
int view_run(const struct view_request *rq, char **text, size_t *len);

#endif
