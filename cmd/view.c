/* view: PerfView's views of any trace on Linux (call trees, flame graphs, folded stacks,
 * pprof, speedscope, the .NET runtime's tables), read straight out of a trace.zip, a .trace
 * directory, perf.data.txt, stdin or any NetTrace file, without unzip or perf.  The work is
 * lib/report/view_run.h's; this file parses the options and pages the text. */
#include "cli.h"
#include "commands.h"
#include "view_compat.h"
#include "report/view_run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rows the text takes on a terminal cols wide (long lines wrap). */
static size_t screen_rows(const char *text, size_t len, size_t cols)
{
	size_t rows = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		rows += n / cols + (n % cols || !n ? 1 : 0);
		i += n + 1;
	}
	return rows;
}

/* The report, through $PAGER (less by default) on a terminal when it does not fit the screen,
 * as `less -F` would decide (but whatever $LESS says, and for any pager); else straight out. */
static int page_output(const char *text, size_t len)
{
	struct winsize ws;
	bool tty = isatty(STDOUT_FILENO);
	const char *pager = getenv("PAGER");
	if (!pager)
		pager = "less";
	/* A terminal of unknown size gets the pager, which knows better. */
	bool fits = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
		    screen_rows(text, len, ws.ws_col) < ws.ws_row;
	if (tty && *pager && strcmp(pager, "cat") && !fits) {
		setenv("LESS", "FRX", 0);
		fflush(stdout);
		FILE *p = popen(pager, "w");
		if (p) {
			signal(SIGPIPE, SIG_IGN); /* quitting the pager early is not an error */
			fwrite(text, 1, len, p);
			pclose(p);
			return 0;
		}
	}
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout))
		return errno == EPIPE ? 0 : pc_err_errno("cannot write the report");
	return 0;
}

struct view_opts {
	const char *graphtype, *processfilter, *event, *flamegraph, *folded, *percent_limit;
	const char *viewer, *perfopt, *format, *output, *diff, *title;
	long pid, tid, top, width;
	bool offcpu, runtime, report;
};

static const char usage_text[] =
    "usage: perfcollect-c view <trace.zip | name.trace | perf.data.txt | x.nettrace | -> "
    "[options]\n"
    "       perfcollect-c view TRACE -runtime [gc|jit] [-format csv [-o FILE]]\n"
    "       perfcollect-c view TRACE --report | -format html [-o FILE.html]\n"
    "Call graph and top functions (paged on a terminal when longer than the screen), or a\n"
    "flame graph, folded stacks, a pprof or speedscope profile, or a comparison (-diff); of\n"
    "CPU samples, blocked time, or the .NET allocations, exceptions and lock contention.\n"
    "\noptions:\n";

static const char more_help[] =
    "\nIn the tables, [k] marks kernel functions, [.] native user-space code (as perf report\n"
    "marks them) and [j] JIT-compiled or managed code (.NET, Java, JavaScript); [name] is\n"
    "a shared object whose symbol is unknown.  The head says how long the recording ran, on\n"
    "how many CPUs, at what rate, and how many samples were lost (from perfcollect.log).\n"
    "\nFormats (-format; the file is -o FILE, else named after the trace in the current\n"
    "directory): text (the report), svg (flame graph: hover for the full name, click to\n"
    "zoom, Search with an 'ic' toggle for any case; -title, -width), folded ('a;b;c count'),\n"
    "pprof (gzipped profile.proto for go tool pprof, Pyroscope, Parca, Grafana) and\n"
    "speedscope (JSON for speedscope.app).  -diff OLD compares this trace with OLD: a table\n"
    "of the functions whose share moved most, or with -format svg (or html) a differential\n"
    "flame graph (red: more, blue: less, as shares of each trace's total).\n"
    "\nhtml (or --report, which writes NAME.report.html beside the trace and prints its\n"
    "path): one self-contained page, opened offline in any browser: every view the trace\n"
    "has (CPU, blocked time, allocations, exceptions, contention) as a flame graph and a\n"
    "call tree, with zoom, search, callers and callees of a function and the top functions;\n"
    "each thread's timeline with the GC pauses and exceptions, whose selected range filters\n"
    "the flame graph; the GC and JIT tables, the findings and the recording's facts.\n"
    "\nperfcollect's view options: -viewer perf is this report; -viewer lttng the .NET\n"
    "runtime events; -perfopt \"OPTS\" takes perf report's --sort comm,dso,sym,\n"
    "--percent-limit, --comms, --pid, --tid, -g caller|callee and --stdio, and names the\n"
    "ones it ignores.  -processfilter compares without regard to case (perfcollect\n"
    "lowercased it).  perfcollect's collect options (-threadtime, -collectsec, -events ...)\n"
    "are accepted and ignored, as perfcollect's view did; -v says so, and where view's own\n"
    "options do more than perfcollect's view did (-pid and -offcpu filter here).\n";

static const char offcpu_help[] =
    "\nBlocked (off-CPU) time, on traces with sched:sched_switch samples (collect -offcpu or\n"
    "collect -threadtime): a thread is blocked from a switch-out in a waiting state (S sleeping,\n"
    "D uninterruptible, I idle, T/t stopped or traced, P parked; not R/R+, preempted, nor X/Z,\n"
    "exiting) to its switch-in, and the time goes to the stack of that switch-out.  A\n"
    "system-wide trace has every switch-in (the next_pid of a later sched_switch), and so has\n"
    "a collect -pid trace (other tasks appear there only switching to the process, named\n"
    ":TID, and their waits are not measured).  A `perf record -p` trace sees only its own\n"
    "threads switch, so a wait mostly ends at the thread's next sample of any event: an upper\n"
    "bound that includes the time it ran after waking up.  Waits still open when the trace\n"
    "ends are left out.  The report shows the blocked time in ms after the\n"
    "CPU samples; -flamegraph FILE.svg also writes a blue FILE.offcpu.svg, -folded F.folded\n"
    "also F.offcpu.folded (weights in microseconds), and so on for every format.  -offcpu\n"
    "shows the blocked time alone (to the file named), as does a trace without CPU samples;\n"
    "-event NAME shows only NAME.\n"
    "\n.NET traces: the dotnet-<pid>.nettrace files collect writes, our <name>.nettrace, any\n"
    "file of dotnet-trace collect (its SampleProfiler samples: -event cpu-clock shows the\n"
    "threads in managed code, -offcpu those outside it) or collect-linux, .netperf files,\n"
    "also zipped; the kind is told by the content.  Frames are named from the trace's own\n"
    "method events, as PerfView names them (an address where no method is known).\n"
    "PerfView's views, each in every format: -event alloc (AllocationTick bytes, or .NET 10's\n"
    "AllocationSampled; the type as the leaf frame), -event exception (thrown, by type as\n"
    "the leaf), -event contention (ms waited for a lock, the lock as the leaf).\n"
    "-runtime: findings (a sentence each), then GCs by generation and reason with pause times\n"
    "as PerfView's GCStats counts them (suspension to restart; % of the wall time, the\n"
    "longest ones and the CPU samples inside them: both use CLOCK_MONOTONIC), heap size\n"
    "after; exceptions by type and throwing method; lock contention by lock and waiting\n"
    "method; JIT time by method; allocations by type.  Shown after the CPU report, alone\n"
    "with -runtime or when the trace has no samples (collect -gconly ...).  -runtime jit:\n"
    "every JIT-compiled method; -format csv [-o FILE]: one row per GC (pid, generation,\n"
    "pause_ms, reason, type, start_ms, heap sizes before and after, promoted bytes ...), or\n"
    "with -runtime jit one row per method (JIT time, IL size, tier).\n";

/* -perfopt folded into the view's own options; those given directly win. */
static int apply_perfopt(struct view_opts *vo, struct perfopt *po)
{
	if (perfopt_parse(vo->perfopt, po) < 0) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		return -1;
	}
	if (po->ignored)
		fprintf(stderr,
			"perfcollect-c view: -perfopt: ignored (no meaning in this report): %s\n",
			po->ignored);
	if (!vo->processfilter && po->comms)
		vo->processfilter = po->comms;
	if (vo->pid < 0)
		vo->pid = po->pid;
	if (vo->tid < 0)
		vo->tid = po->tid;
	if (!vo->percent_limit && po->percent_limit)
		vo->percent_limit = po->percent_limit;
	if (!vo->graphtype && po->graphtype)
		vo->graphtype = po->graphtype;
	return 0;
}

/* The options that are words: -graphtype, -percent-limit; 0 or -1 after a message. */
static int parse_words(const struct view_opts *vo, struct view_request *rq)
{
	if (vo->graphtype && !strcasecmp(vo->graphtype, "caller"))
		rq->caller = true;
	else if (vo->graphtype && strcasecmp(vo->graphtype, "callee")) {
		fprintf(stderr, "perfcollect-c view: -graphtype is callee or caller, not '%s'\n",
			vo->graphtype);
		return -1;
	}
	rq->percent_limit = 0.5;
	if (vo->percent_limit) {
		char *end;
		errno = 0;
		rq->percent_limit = strtod(vo->percent_limit, &end);
		if (errno || end == vo->percent_limit || *end || !(rq->percent_limit >= 0) ||
		    rq->percent_limit > 100) {
			fprintf(stderr,
				"perfcollect-c view: -percent-limit wants 0 to 100, not '%s'\n",
				vo->percent_limit);
			return -1;
		}
	}
	return 0;
}

int cmd_view(int argc, char **argv)
{
	struct view_opts vo = {.pid = -1, .tid = -1, .top = 20};
	bool verbose = false;
	const struct cli_opt opts[] = {
	    {"graphtype", 0, CLI_STR, &vo.graphtype, "callee|caller",
	     "callee (default): functions, then their callers; caller: top-down from main"},
	    {"processfilter", 0, CLI_STR, &vo.processfilter, "COMM[,COMM]",
	     "only samples of these commands (thread names, as perf's --comms)"},
	    {"pid", 0, CLI_INT, &vo.pid, "N", "only samples (and .NET events) of process N"},
	    {"tid", 0, CLI_INT, &vo.tid, "N", "only samples of thread N"},
	    {"event", 0, CLI_STR, &vo.event, "NAME",
	     "the view: cpu-clock (default), another sampled event, alloc, exception, "
	     "contention"},
	    {"offcpu", 0, CLI_FLAG, &vo.offcpu, NULL,
	     "only the blocked (off-CPU) time, in ms, from sched_switch samples (below)"},
	    {"format", 0, CLI_STR, &vo.format, "FMT",
	     "text (default), svg, folded, pprof, speedscope, html, or csv (-runtime) (below)"},
	    {"report", 0, CLI_FLAG, &vo.report, NULL,
	     "write the HTML report NAME.report.html beside the trace and print its path"},
	    {"output", 'o', CLI_STR, &vo.output, "FILE",
	     "where -format writes (- for stdout; default: named after the trace)"},
	    {"runtime", 0, CLI_FLAG, &vo.runtime, NULL,
	     "the .NET runtime's findings and tables (GCs, JIT ...); -runtime jit: per method"},
	    {"flamegraph", 0, CLI_STR, &vo.flamegraph, "FILE.svg",
	     "write an interactive flame graph (SVG) instead of the text report"},
	    {"folded", 0, CLI_STR, &vo.folded, "FILE",
	     "write folded stacks ('a;b;c count' per line; - for stdout)"},
	    {"diff", 0, CLI_STR, &vo.diff, "OLD",
	     "compare with the trace OLD: functions that moved, or a differential SVG"},
	    {"title", 0, CLI_STR, &vo.title, "TEXT", "the flame graph's title"},
	    {"width", 0, CLI_INT, &vo.width, "PX", "the flame graph's width (default 1200)"},
	    {"top", 0, CLI_INT, &vo.top, "N", "rows in the top-functions tables (default 20)"},
	    {"percent-limit", 0, CLI_STR, &vo.percent_limit, "PCT",
	     "hide call graph entries and branches under PCT% (default 0.5)"},
	    {"viewer", 0, CLI_STR, &vo.viewer, "perf|lttng",
	     "perfcollect's: perf (default) this report, lttng the .NET runtime events"},
	    {"perfopt", 0, CLI_STR, &vo.perfopt, "\"OPTS\"",
	     "perfcollect's perf report options: --sort, --percent-limit, --comms ..."},
	    CLI_VERBOSE(&verbose),
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[2];
	int npos;
	bool help;
	if (cli_parse_perfcollect("view", opts, argc, argv, pos, 2, &npos, &help) < 0)
		return 2;
	if (help) {
		fputs(usage_text, stdout);
		cli_print_options(stdout, opts);
		fputs(more_help, stdout);
		fputs(offcpu_help, stdout);
		return 0;
	}
	if (npos < 1 || (npos == 2 && !vo.runtime)) {
		fprintf(stderr, npos
				    ? "perfcollect-c view: one trace at a time (see 'perfcollect-c "
				      "view --help')\n"
				    : "perfcollect-c view: which trace? (see 'perfcollect-c view "
				      "--help')\n");
		return 2;
	}
	/* Where view's options do what perfcollect's view did not. */
	if (verbose && vo.pid >= 0)
		fprintf(stderr,
			"perfcollect-c view: -pid %ld: only that process's samples "
			"(perfcollect's view took -pid and ignored it)\n",
			vo.pid);
	if (verbose && vo.offcpu)
		fprintf(stderr, "perfcollect-c view: -offcpu: only the blocked time "
				"(perfcollect's view took -offcpu and ignored it)\n");
	if (verbose && vo.processfilter)
		fprintf(stderr,
			"perfcollect-c view: -processfilter %s: compared without regard to case "
			"(perfcollect lowercased it for perf report --comms)\n",
			vo.processfilter);
	/* perfcollect's LTTng viewer showed the runtime's events: here they came over EventPipe. */
	if (vo.viewer && !strcasecmp(vo.viewer, "lttng"))
		vo.runtime = true;
	else if (vo.viewer && strcasecmp(vo.viewer, "perf")) {
		fprintf(
		    stderr,
		    "perfcollect-c view: -viewer is perf or lttng (as perfcollect's), not '%s'\n",
		    vo.viewer);
		return 2;
	}
	struct perfopt po = {.pid = -1, .tid = -1};
	struct view_request rq = {0};
	int rc = 2;
	if ((vo.perfopt && apply_perfopt(&vo, &po) < 0) || parse_words(&vo, &rq) < 0)
		goto out;
	rq.input = pos[0];
	rq.runtime_table = npos == 2 ? pos[1] : NULL;
	rq.pid = vo.pid;
	rq.tid = vo.tid;
	rq.processfilter = vo.processfilter;
	rq.event = vo.event;
	rq.offcpu = vo.offcpu;
	rq.runtime = vo.runtime;
	rq.report = vo.report;
	rq.format = vo.format;
	rq.output = vo.output;
	rq.flamegraph = vo.flamegraph;
	rq.folded = vo.folded;
	rq.diff = vo.diff;
	rq.title = vo.title;
	rq.width = vo.width;
	rq.top = vo.top;
	rq.sort = po.sort;
	rq.diag = stderr;
	char *text;
	size_t len;
	rc = view_run(&rq, &text, &len);
	if (text && page_output(text, len) < 0) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		rc = 1;
	}
	free(text);
out:
	perfopt_free(&po);
	return rc;
}
