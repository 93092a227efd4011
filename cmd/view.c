/* view: call trees, top functions, flame graphs and folded stacks from perf.data.txt, read
 * straight out of a trace.zip (or a .trace directory, a bare perf.data.txt, or stdin), without
 * unzip or perf.  The model (lib/view.h) aggregates; this file parses options and prints. */
#include "base/outfile.h"
#include "cli.h"
#include "commands.h"
#include "view_compat.h"
#include "report/calltree.h"
#include "report/diff.h"
#include "report/export.h"
#include "report/flamegraph.h"
#include "report/offcpu.h"
#include "report/report.h"
#include "report/runtime_report.h"
#include "report/stackfile.h"
#include "report/summary.h"
#include "report/view.h"

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
	bool offcpu, runtime;
};

/* Blocked time is counted in nanoseconds and shown in ms (folded stacks: microseconds). */
#define NS_PER_MS 1000000ULL
#define NS_PER_US 1000ULL

static double ms_of(uint64_t ns)
{
	return (double)ns / (double)NS_PER_MS;
}

/* The processes, the top functions and the call graph of a tree built root first. */
static int print_trees(FILE *out, const struct calltree *tree, const struct report_opts *ro,
		       bool caller)
{
	if (report_processes(out, tree, ro) || report_top_functions(out, tree, ro))
		return -1;
	struct calltree *t =
	    calltree_derive(tree, CALLTREE_DROP_FIRST | (caller ? 0 : CALLTREE_INVERT));
	fprintf(out, "\n# Call graph (%s): %s; branches under %.2g%% not shown\n#\n",
		caller ? "caller" : "callee",
		caller ? "the outermost callers first, then what they call"
		       : "each function with self weight, then who called it",
		ro->percent_limit);
	int rc = report_tree(out, t, ro);
	calltree_free(t);
	return rc;
}

static int print_report(FILE *out, const char *input, struct event_tree *e,
			const struct report_opts *ro, bool caller, const struct view *v)
{
	fprintf(out, "# perfcollect-c view %s\n", input);
	if (summary_write(out, v, e))
		return -1;
	fprintf(out, "# Event: %s, %llu %s", e->name, (unsigned long long)calltree_total(e->tree),
		ro->unit);
	if (v->skipped)
		fprintf(out, " (%llu left out by the filters)", (unsigned long long)v->skipped);
	fputc('\n', out);
	if (v->nevents > 1) {
		fputs("# Other events (-event NAME): ", out);
		view_list_events(out, v, e);
		fputc('\n', out);
	}
	return print_trees(out, e->tree, ro, caller);
}

/* How the blocked time was measured, in one or two comment lines. */
static void offcpu_summary(FILE *out, const struct offcpu_stats *st)
{
	fprintf(out,
		"# Off-CPU (blocked) time: %.2f ms in %llu waits of %llu threads, from their "
		"switch-out (%s) to their switch-in\n",
		ms_of(st->blocked_ns), (unsigned long long)st->intervals,
		(unsigned long long)st->threads, OFFCPU_EVENT);
	fprintf(out, "#   %llu waits end at the switch-in", (unsigned long long)st->ended_exact);
	if (st->ended_sample)
		fprintf(out,
			", %llu at the thread's next sample (an upper bound: the trace has no "
			"switch-in for them)",
			(unsigned long long)st->ended_sample);
	if (st->open_at_end)
		fprintf(out, "; %llu still blocked at the end (%.2f ms by then) are left out",
			(unsigned long long)st->open_at_end, ms_of(st->open_ns));
	fputc('\n', out);
}

static int print_offcpu_report(FILE *out, const char *input, const struct view *v,
			       const struct report_opts *sample_ro, bool caller, bool after_cpu)
{
	struct report_opts ro = *sample_ro;
	ro.unit = "blocked ms";
	ro.unit_div = NS_PER_MS;
	if (after_cpu)
		fputs("\n#\n# ========\n", out);
	else if (fprintf(out, "# perfcollect-c view %s\n", input) < 0 ||
		 summary_write(out, v, NULL))
		return -1;
	offcpu_summary(out, offcpu_stats(v->oc));
	return print_trees(out, v->offcpu_tree, &ro, caller);
}

/* FILE.svg -> FILE.offcpu.svg, x.pb.gz -> x.offcpu.pb.gz; FILE -> FILE.offcpu. */
static char *offcpu_path(const char *path, const char *ext)
{
	size_t pl = strlen(path), el = strlen(ext);
	if (pl > el && !strcmp(path + pl - el, ext))
		return xasprintf("%.*s.offcpu%s", (int)(pl - el), path, ext);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return xasprintf("%s.offcpu", path);
	return xasprintf("%.*s.offcpu%s", (int)(dot - path), path, dot);
}

/* One file the view writes: -flamegraph, -folded, or -format with -o. */
struct output {
	enum export_format format;
	const char *path;
};

/* What the outputs share: the input and its decoration. */
struct export_ctx {
	const struct view_opts *vo;
	const char *input;
	const struct view *v;
	struct pprof_build_id *build_ids;
	size_t nbuild_ids;
	const uint64_t *base_totals; /* -diff */
};

static int export_one(const struct export_ctx *x, const struct output *out, const char *path,
		      const struct calltree *tree, bool offcpu, const struct event_tree *e,
		      const char *subtitle, const char *what)
{
	struct export_job j = {.format = out->format,
			       .path = path,
			       .tree = tree,
			       .offcpu = offcpu,
			       .event = e ? e->name : NULL,
			       .mean_period =
				   e && e->samples ? (double)e->period / (double)e->samples : 0,
			       .input = x->input,
			       .title = x->vo->title,
			       .subtitle = subtitle,
			       .width = (unsigned)x->vo->width,
			       .rec = &x->v->rec,
			       .build_ids = x->build_ids,
			       .nbuild_ids = x->nbuild_ids,
			       .base_totals = offcpu ? NULL : x->base_totals,
			       .base_name = x->vo->diff};
	if (export_write(&j)) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		return 1;
	}
	if (strcmp(path, "-"))
		fprintf(stderr, "perfcollect-c view: wrote %s (%s)\n", path, what);
	return 0;
}

/* The CPU part (e, may be NULL) to the output's path, the off-CPU part (when off) to the path
 * itself when there is no CPU part, else next to it as path.offcpu.ext. */
static int write_output(const struct export_ctx *x, const struct output *out,
			const struct event_tree *e, bool off)
{
	int rc = 0;
	const struct view_opts *vo = x->vo;
	const struct offcpu_stats *st = offcpu_stats(x->v->oc);
	const char *filter = vo->processfilter ? ", commands " : "";
	const char *comms = vo->processfilter ? vo->processfilter : "";
	if (e && off && !strcmp(out->path, "-")) {
		fprintf(stderr,
			"perfcollect-c view: standard output gets the %s stacks only; "
			"-offcpu writes the blocked time there\n",
			e->name);
		off = false;
	}
	if (e) {
		uint64_t n = calltree_total(e->tree);
		char *sub = x->base_totals
				? xasprintf("%s: %s against %s%s%s (red: more, blue: "
					    "less, as shares of each total)",
					    e->name, x->input, vo->diff, filter, comms)
				: xasprintf("%s: %llu samples from %s%s%s", e->name,
					    (unsigned long long)n, x->input, filter, comms);
		char *what =
		    xasprintf("%s%llu samples of %s", x->base_totals ? "differential, " : "",
			      (unsigned long long)n, e->name);
		rc |= export_one(x, out, out->path, e->tree, false, e, sub, what);
		free(what);
		free(sub);
	}
	if (off) {
		char *path =
		    e ? offcpu_path(out->path, export_extension(out->format)) : xstrdup(out->path);
		char *sub = xasprintf("blocked time: %.2f ms in %llu waits of %llu threads "
				      "(%s) from %s%s%s",
				      ms_of(st->blocked_ns), (unsigned long long)st->intervals,
				      (unsigned long long)st->threads, OFFCPU_EVENT, x->input,
				      filter, comms);
		char *what = xasprintf("off-CPU: %.2f ms blocked in %llu waits",
				       ms_of(st->blocked_ns), (unsigned long long)st->intervals);
		rc |= export_one(x, out, path, x->v->offcpu_tree, true, NULL, sub, what);
		free(what);
		free(sub);
		free(path);
	}
	return rc;
}

/* Why -offcpu has nothing to show. */
static void explain_no_offcpu(const char *input, const struct view *v)
{
	const struct offcpu_stats *st = offcpu_stats(v->oc);
	if (!st->switches)
		fprintf(stderr,
			"perfcollect-c view: no %s samples in %s: record with 'collect -offcpu' "
			"or '-threadtime'\n",
			OFFCPU_EVENT, input);
	else if (st->bad_switches == st->switches)
		fprintf(stderr,
			"perfcollect-c view: the %s samples in %s lack the time or the trace "
			"field (perf script -F ...,time,...,trace)\n",
			OFFCPU_EVENT, input);
	else
		fprintf(stderr,
			"perfcollect-c view: no measured wait in %s%s (%llu switches, %llu waits "
			"still open at the end)\n",
			input, v->skipped ? " matches the filters" : "",
			(unsigned long long)st->switches, (unsigned long long)st->open_at_end);
}

static const char usage_text[] =
    "usage: perfcollect-c view <trace.zip | name.trace | perf.data.txt | x.nettrace | -> "
    "[options]\n"
    "Call graph and top functions (paged on a terminal when longer than the screen), or a\n"
    "flame graph, folded stacks, a pprof or speedscope profile, or a comparison (-diff).\n"
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
    "of the functions whose share moved most, or with -format svg a differential flame graph\n"
    "(red: more, blue: less, as shares of each trace's total).\n"
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
    "\n.NET runtime events, from the dotnet-<pid>.nettrace files collect writes (or any\n"
    "*.nettrace given): GCs by generation and reason with pause times (% of the wall time,\n"
    "the longest ones and the CPU samples inside them: both use CLOCK_MONOTONIC), heap size\n"
    "after; exceptions by type and throwing method; lock contention by waiting method; JIT\n"
    "time by method; allocation ticks by type.  Shown after the CPU report, alone with\n"
    "-runtime or when the trace has no CPU samples (collect -gconly ...).\n";

/* "dir/app.trace.zip" -> "app" + ext, in the current directory. */
static char *default_output(const char *input, const char *ext)
{
	if (!strcmp(input, "-"))
		return xasprintf("stdin%s", ext);
	char *base = xstrdup(strrchr(input, '/') ? strrchr(input, '/') + 1 : input);
	size_t n = strlen(base);
	while (n && base[n - 1] == '/')
		base[--n] = '\0';
	static const char *const suffixes[] = {".trace.zip", ".zip", ".trace", "perf.data.txt",
					       ".txt"};
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (str_endswith(base, suffixes[i]) && strlen(base) > strlen(suffixes[i])) {
			base[strlen(base) - strlen(suffixes[i])] = '\0';
			break;
		}
	char *out = xasprintf("%s%s", *base ? base : "profile", ext);
	free(base);
	return out;
}

/* The format a file name asks for: FILE.svg, FILE.pb.gz, FILE.speedscope.json ... */
static int format_of_path(const char *path)
{
	static const struct {
		const char *ext;
		enum export_format f;
	} exts[] = {{".svg", EXPORT_SVG},
		    {".folded", EXPORT_FOLDED},
		    {".pb.gz", EXPORT_PPROF},
		    {".pprof", EXPORT_PPROF},
		    {".json", EXPORT_SPEEDSCOPE}};
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (str_endswith(path, exts[i].ext))
			return (int)exts[i].f;
	return -1;
}

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

/* The other trace of -diff, read with the same filters; its tree of the same event. */
static struct calltree *base_tree(const struct view_opts *vo, const struct event_tree *e,
				  struct view **base)
{
	*base = view_new(vo->pid, vo->tid, vo->processfilter);
	struct stackfile_stats st;
	if (view_read(*base, vo->diff, &st) < 0) {
		fprintf(stderr, "perfcollect-c view: -diff: %s\n", pc_strerror());
		return NULL;
	}
	if (!e)
		return (*base)->offcpu_tree;
	struct event_tree *be = view_choose_event(*base, e->name, false);
	if (!be || !calltree_total(be->tree)) {
		fprintf(stderr, "perfcollect-c view: -diff: no '%s' samples in %s\n", e->name,
			vo->diff);
		return NULL;
	}
	return be->tree;
}

/* -diff: the table, or the differential flame graph (outs[0], SVG). */
static int run_diff(const struct view_opts *vo, const char *input, struct view *v,
		    const struct event_tree *e, const struct output *outs, size_t nouts,
		    const struct report_opts *ro)
{
	struct view *base = NULL;
	const struct calltree *bt = base_tree(vo, e, &base);
	int rc = 1;
	if (bt) {
		struct calltree *now =
		    calltree_derive(e ? e->tree : v->offcpu_tree, CALLTREE_MERGE_NAMES);
		struct calltree *was = calltree_derive(bt, CALLTREE_MERGE_NAMES);
		if (nouts) {
			uint64_t *bw = diff_base_totals(now, was);
			struct export_ctx x = {.vo = vo, .input = input, .v = v, .base_totals = bw};
			struct event_tree ne = {.name = e ? e->name : OFFCPU_EVENT, .tree = now};
			rc = write_output(&x, &outs[0], e ? &ne : NULL, false);
			free(bw);
		} else {
			struct diff_opts d = {.top = ro->top,
					      .unit = e ? "samples" : "ns blocked",
					      .new_name = input,
					      .base_name = vo->diff};
			char *text = NULL;
			size_t len = 0;
			FILE *out = open_memstream(&text, &len);
			rc = diff_report(out, now, was, &d);
			if (fclose(out) && !rc)
				rc = pc_err_errno("cannot write the report");
			if (!rc)
				rc = page_output(text, len);
			free(text);
			if (rc)
				fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
			rc = rc ? 1 : 0;
		}
		calltree_free(now);
		calltree_free(was);
	}
	view_free(base);
	return rc;
}

/* The outputs the options ask for (at most 3); -1 after a message when they make no sense. */
static int plan_outputs(const struct view_opts *vo, const char *input, struct output *outs,
			size_t *n, char **owned)
{
	*n = 0;
	*owned = NULL;
	if (vo->flamegraph)
		outs[(*n)++] = (struct output){EXPORT_SVG, vo->flamegraph};
	if (vo->folded)
		outs[(*n)++] = (struct output){EXPORT_FOLDED, vo->folded};
	int f = -1;
	if (vo->format && strcasecmp(vo->format, "text")) {
		f = export_format_parse(vo->format);
		if (f < 0) {
			fprintf(stderr,
				"perfcollect-c view: -format is text, svg, folded, pprof or "
				"speedscope, not '%s'\n",
				vo->format);
			return -1;
		}
	} else if (vo->format && vo->output) {
		fprintf(stderr, "perfcollect-c view: the text report goes to standard output "
				"(or the pager); -o is for the other formats\n");
		return -1;
	} else if (vo->output && (f = format_of_path(vo->output)) < 0) {
		fprintf(
		    stderr,
		    "perfcollect-c view: which format for %s? add -format svg, folded, pprof or "
		    "speedscope\n",
		    vo->output);
		return -1;
	}
	if (f >= 0) {
		const char *path = vo->output;
		/* A differential graph is not the trace's own flame graph: it does not take
		 * (and overwrite) that one's name. */
		if (!path)
			path = *owned =
			    default_output(input, vo->diff && f == EXPORT_SVG
						      ? ".diff.svg"
						      : export_extension((enum export_format)f));
		outs[(*n)++] = (struct output){(enum export_format)f, path};
	}
	const char *inputs[] = {input, vo->diff, NULL};
	for (size_t i = 0; i < *n; i++)
		if (strcmp(outs[i].path, "-") &&
		    outfile_check_target(outs[i].path, export_what(outs[i].format), inputs) < 0) {
			fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
			return -1;
		}
	if (vo->diff && (*n > 1 || (*n == 1 && outs[0].format != EXPORT_SVG))) {
		fprintf(stderr,
			"perfcollect-c view: -diff makes a text table or an SVG flame graph "
			"(-format svg); for pprof compare with 'go tool pprof -diff_base "
			"OLD.pb.gz NEW.pb.gz'\n");
		return -1;
	}
	if (vo->width && (vo->width < 200 || vo->width > 100000)) {
		fprintf(stderr, "perfcollect-c view: -width wants 200 to 100000 pixels\n");
		return -1;
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
	    {"pid", 0, CLI_INT, &vo.pid, "N", "only samples of process N"},
	    {"tid", 0, CLI_INT, &vo.tid, "N", "only samples of thread N"},
	    {"event", 0, CLI_STR, &vo.event, "NAME",
	     "the event to show (default cpu-clock, else the first sampled one)"},
	    {"offcpu", 0, CLI_FLAG, &vo.offcpu, NULL,
	     "only the blocked (off-CPU) time, in ms, from sched_switch samples (below)"},
	    {"format", 0, CLI_STR, &vo.format, "FMT",
	     "text (default), svg, folded, pprof or speedscope (below)"},
	    {"output", 'o', CLI_STR, &vo.output, "FILE",
	     "where -format writes (- for stdout; default: named after the trace)"},
	    {"runtime", 0, CLI_FLAG, &vo.runtime, NULL,
	     "only the .NET runtime's events: GCs, exceptions, contention, JIT, allocations"},
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
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse_perfcollect("view", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		fputs(usage_text, stdout);
		cli_print_options(stdout, opts);
		fputs(more_help, stdout);
		fputs(offcpu_help, stdout);
		return 0;
	}
	if (npos != 1) {
		fprintf(stderr,
			"perfcollect-c view: which trace? (see 'perfcollect-c view --help')\n");
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
	if (vo.perfopt && apply_perfopt(&vo, &po) < 0)
		return 2;
	int rc = 2;
	struct output outs[3];
	size_t nouts;
	char *owned_path = NULL;
	struct view *v = NULL;
	if (plan_outputs(&vo, pos[0], outs, &nouts, &owned_path) < 0)
		goto out;
	if (vo.offcpu && vo.event) {
		fprintf(stderr, "perfcollect-c view: -offcpu or -event, not both\n");
		goto out;
	}
	if (vo.runtime && (vo.offcpu || vo.event || vo.flamegraph || vo.folded)) {
		fprintf(stderr, "perfcollect-c view: -runtime shows the .NET runtime events alone; "
				"it goes without -offcpu, -event, -flamegraph and -folded\n");
		return 2;
	}
	bool caller = false;
	if (vo.graphtype && !strcasecmp(vo.graphtype, "caller"))
		caller = true;
	else if (vo.graphtype && strcasecmp(vo.graphtype, "callee")) {
		fprintf(stderr, "perfcollect-c view: -graphtype is callee or caller, not '%s'\n",
			vo.graphtype);
		goto out;
	}
	struct report_opts ro = {.percent_limit = 0.5, .top = (size_t)vo.top, .unit = "samples"};
	if (vo.percent_limit) {
		char *end;
		errno = 0;
		ro.percent_limit = strtod(vo.percent_limit, &end);
		if (errno || end == vo.percent_limit || *end || !(ro.percent_limit >= 0) ||
		    ro.percent_limit > 100) {
			fprintf(stderr,
				"perfcollect-c view: -percent-limit wants 0 to 100, not '%s'\n",
				vo.percent_limit);
			goto out;
		}
	}

	rc = 1;
	v = view_new(vo.pid, vo.tid, vo.processfilter);
	struct stackfile_stats st;
	if (view_read(v, pos[0], &st) < 0) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		goto out;
	}
	if (st.bad_lines)
		fprintf(stderr,
			"perfcollect-c view: warning: %s: %llu line(s) not understood, the first "
			"at line %llu\n",
			pos[0], (unsigned long long)st.bad_lines,
			(unsigned long long)st.first_bad_line);
	if (st.truncated_stacks)
		fprintf(stderr, "perfcollect-c view: warning: %llu stack(s) cut to %d frames\n",
			(unsigned long long)st.truncated_stacks, STACKFILE_MAX_FRAMES);
	for (size_t i = 0; i < v->nrt_warnings; i++)
		fprintf(stderr, "perfcollect-c view: warning: %s\n", v->rt_warnings[i]);
	view_print_unnamed(v, pos[0], stderr);
	struct runtime_report_opts rto = {.pid = vo.pid, .top = (size_t)vo.top};
	bool rt = v->rt && runtime_report_processes(v->rt);
	if (vo.runtime || (rt && !v->has_perf_text && !vo.flamegraph && !vo.folded)) {
		if (!rt) {
			fprintf(stderr,
				"perfcollect-c view: no .NET runtime events in %s (collect records "
				"them "
				"from .NET processes unless -nodotnetevents)\n",
				pos[0]);
			goto out;
		}
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		fprintf(out, "# perfcollect-c view %s\n", pos[0]);
		int prc = runtime_report_print(v->rt, out, &rto);
		if (fclose(out) && !prc)
			prc = pc_err_errno("cannot write the report");
		if (!prc)
			prc = page_output(text, len);
		free(text);
		rc = prc ? 1 : 0;
		if (rc)
			fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		goto out;
	}
	const struct offcpu_stats *os = offcpu_stats(v->oc);
	if (os->bad_switches && os->bad_switches < os->switches)
		fprintf(stderr,
			"perfcollect-c view: warning: %llu %s sample(s) without a usable time or "
			"trace field, not counted as blocked time\n",
			(unsigned long long)os->bad_switches, OFFCPU_EVENT);
	bool off = calltree_total(v->offcpu_tree) > 0;
	struct event_tree *e = NULL;
	if (vo.offcpu) {
		if (!off) {
			explain_no_offcpu(pos[0], v);
			goto out;
		}
	} else {
		/* Without -event the blocked time shows with the CPU samples, or alone when the
		 * trace has only tracepoints (collect -offcpu). */
		e = view_choose_event(v, vo.event, !off);
		if (e && !calltree_total(e->tree) && !vo.event && off)
			e = NULL;
		if (vo.event)
			off = false;
		if (!off && (!e || !calltree_total(e->tree))) {
			if (vo.event && v->nevents) {
				fprintf(stderr,
					"perfcollect-c view: no '%s' samples in %s; it has: ",
					vo.event, pos[0]);
				view_list_events(stderr, v, NULL);
				fputc('\n', stderr);
			} else {
				fprintf(stderr, "perfcollect-c view: no samples in %s%s\n", pos[0],
					v->skipped ? " match the filters" : "");
			}
			goto out;
		}
	}

	if (vo.diff) {
		rc = run_diff(&vo, pos[0], v, e, outs, nouts, &ro);
		goto out;
	}
	rc = 0;
	if (nouts) {
		struct export_ctx x = {.vo = &vo, .input = pos[0], .v = v};
		for (size_t i = 0; i < nouts; i++)
			if (outs[i].format == EXPORT_PPROF && !x.build_ids)
				x.build_ids = view_read_build_ids(pos[0], &x.nbuild_ids);
		for (size_t i = 0; i < nouts; i++)
			rc |= write_output(&x, &outs[i], e, off);
		view_free_build_ids(x.build_ids, x.nbuild_ids);
	} else {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		int prc = e ? print_report(out, pos[0], e, &ro, caller, v) : 0;
		if (!prc && e && po.sort)
			prc = report_sorted(out, e->tree, po.sort, &ro);
		if (!prc && off)
			prc = print_offcpu_report(out, pos[0], v, &ro, caller, e != NULL);
		if (!prc && rt) {
			fputs("\n#\n# ========\n", out);
			prc = runtime_report_print(v->rt, out, &rto);
		}
		if (fclose(out) && !prc)
			prc = pc_err_errno("cannot write the report");
		if (!prc)
			prc = page_output(text, len);
		free(text);
		if (prc) {
			fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
			rc = 1;
		}
	}
out:
	view_free(v);
	free(owned_path);
	perfopt_free(&po);
	return rc;
}
