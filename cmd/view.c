/* view: call trees, top functions, flame graphs and folded stacks from perf.data.txt, read
 * straight out of a trace.zip (or a .trace directory, a bare perf.data.txt, or stdin), without
 * unzip or perf.  The model (lib/view.h) aggregates; this file parses options and prints. */
#include "cli.h"
#include "commands.h"
#include "report/calltree.h"
#include "report/flamegraph.h"
#include "report/offcpu.h"
#include "report/report.h"
#include "report/runtime_report.h"
#include "report/stackfile.h"
#include "report/view.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static FILE *open_output(const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "we");
	if (!f)
		pc_err_errno("cannot create %s", path);
	return f;
}

static int close_output(FILE *f, const char *path)
{
	if (f == stdout)
		return fflush(f) ? pc_err_errno("cannot write %s", path) : 0;
	if (fclose(f))
		return pc_err_errno("cannot write %s", path);
	return 0;
}

/* $PAGER (less by default) on a terminal, as perf and git do; stdout otherwise. */
static FILE *open_pager(bool *is_pager)
{
	*is_pager = false;
	if (!isatty(STDOUT_FILENO))
		return stdout;
	const char *pager = getenv("PAGER");
	if (!pager)
		pager = "less";
	if (!*pager || !strcmp(pager, "cat"))
		return stdout;
	setenv("LESS", "FRX", 0);
	fflush(stdout);
	FILE *p = popen(pager, "w");
	if (!p)
		return stdout;
	signal(SIGPIPE, SIG_IGN); /* quitting the pager early is not an error */
	*is_pager = true;
	return p;
}

struct view_opts {
	const char *graphtype, *processfilter, *event, *flamegraph, *folded, *percent_limit;
	long pid, tid, top;
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
	fprintf(out, "# perfcollect-c view %s\n# Event: %s, %llu %s", input, e->name,
		(unsigned long long)calltree_total(e->tree), ro->unit);
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
			", %llu at the thread's next sample (an upper bound: a -pid trace has no "
			"switch-in of its own threads)",
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
	else
		fprintf(out, "# perfcollect-c view %s\n", input);
	offcpu_summary(out, offcpu_stats(v->oc));
	return print_trees(out, v->offcpu_tree, &ro, caller);
}

/* FILE.svg -> FILE.offcpu.svg; FILE -> FILE.offcpu. */
static char *offcpu_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return xasprintf("%s.offcpu", path);
	return xasprintf("%.*s.offcpu%s", (int)(dot - path), path, dot);
}

static int write_folded(const char *path, const struct calltree *t, uint64_t div)
{
	FILE *f = open_output(path);
	if (!f || flamegraph_write_folded_scaled(f, t, div) || close_output(f, path)) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		return 1;
	}
	return 0;
}

static int write_svg(const char *path, const struct calltree *t, const struct flamegraph_opts *fo,
		     const char *what)
{
	FILE *f = open_output(path);
	if (!f || flamegraph_write_svg(f, t, fo) || close_output(f, path)) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		return 1;
	}
	if (f != stdout)
		fprintf(stderr, "perfcollect-c view: wrote %s (%s)\n", path, what);
	return 0;
}

/* The CPU part (e, may be NULL) to path, the off-CPU part (when off) to path itself when
 * there is no CPU part, else next to it as path.offcpu.ext. */
static int write_graphs(const struct view_opts *vo, const char *input, struct event_tree *e,
			bool off, const struct view *v)
{
	int rc = 0;
	const struct offcpu_stats *st = offcpu_stats(v->oc);
	const char *filter = vo->processfilter ? ", commands " : "";
	const char *comms = vo->processfilter ? vo->processfilter : "";
	bool to_stdout = (vo->folded && !strcmp(vo->folded, "-")) ||
			 (vo->flamegraph && !strcmp(vo->flamegraph, "-"));
	if (e && off && to_stdout) {
		fprintf(stderr,
			"perfcollect-c view: standard output gets the %s stacks only; "
			"-offcpu writes the blocked time there\n",
			e->name);
		off = false;
	}
	if (vo->folded) {
		char *offp = e ? offcpu_path(vo->folded) : xstrdup(vo->folded);
		if (e)
			rc |= write_folded(vo->folded, e->tree, 1);
		if (off && !write_folded(offp, v->offcpu_tree, NS_PER_US)) {
			if (e)
				fprintf(stderr,
					"perfcollect-c view: wrote the blocked time (microseconds) "
					"to %s\n",
					offp);
		} else if (off) {
			rc = 1;
		}
		free(offp);
	}
	if (vo->flamegraph) {
		if (e) {
			uint64_t n = calltree_total(e->tree);
			char *sub = xasprintf("%s: %llu samples from %s%s%s", e->name,
					      (unsigned long long)n, input, filter, comms);
			char *what =
			    xasprintf("%llu samples of %s", (unsigned long long)n, e->name);
			struct flamegraph_opts fo = {.subtitle = sub, .unit = "samples"};
			rc |= write_svg(vo->flamegraph, e->tree, &fo, what);
			free(what);
			free(sub);
		}
		if (off) {
			char *path = e ? offcpu_path(vo->flamegraph) : xstrdup(vo->flamegraph);
			char *sub = xasprintf(
			    "blocked time: %.2f ms in %llu waits of %llu threads "
			    "(%s) from %s%s%s",
			    ms_of(st->blocked_ns), (unsigned long long)st->intervals,
			    (unsigned long long)st->threads, OFFCPU_EVENT, input, filter, comms);
			char *what =
			    xasprintf("off-CPU: %.2f ms blocked in %llu waits",
				      ms_of(st->blocked_ns), (unsigned long long)st->intervals);
			struct flamegraph_opts fo = {.title = "Off-CPU Time Flame Graph",
						     .subtitle = sub,
						     .unit = "ms",
						     .unit_div = NS_PER_MS,
						     .palette = FLAMEGRAPH_OFFCPU};
			rc |= write_svg(path, v->offcpu_tree, &fo, what);
			free(what);
			free(sub);
			free(path);
		}
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
    "Call graph and top functions (paged on a terminal), or a flame graph / folded stacks.\n"
    "\noptions:\n";

static const char offcpu_help[] =
    "\nBlocked (off-CPU) time, on traces with sched:sched_switch samples (collect -offcpu or\n"
    "collect -threadtime): a thread is blocked from a switch-out in a waiting state (S sleeping,\n"
    "D uninterruptible, I idle, T/t stopped or traced, P parked; not R/R+, preempted, nor X/Z,\n"
    "exiting) to its switch-in, and the time goes to the stack of that switch-out.  A\n"
    "system-wide trace has every switch-in (the next_pid of a later sched_switch).  A -pid\n"
    "trace sees only its own threads switch, so a wait mostly ends at the thread's next sample\n"
    "of any event: an upper bound that includes the time it ran after waking up.  Waits still\n"
    "open when the trace ends are left out.  The report shows the blocked time in ms after the\n"
    "CPU samples; -flamegraph FILE.svg also writes a blue FILE.offcpu.svg, -folded F.folded\n"
    "also F.offcpu.folded (weights in microseconds).  -offcpu shows the blocked time alone\n"
    "(to the file named), as does a trace without CPU samples; -event NAME shows only NAME.\n"
    "\n.NET runtime events, from the dotnet-<pid>.nettrace files collect writes (or any\n"
    "*.nettrace given): GCs by generation and reason with pause times (% of the wall time,\n"
    "the longest ones and the CPU samples inside them: both use CLOCK_MONOTONIC), heap size\n"
    "after; exceptions by type and throwing method; lock contention by waiting method; JIT\n"
    "time by method; allocation ticks by type.  Shown after the CPU report, alone with\n"
    "-runtime or when the trace has no CPU samples (collect -gconly ...).\n";

int cmd_view(int argc, char **argv)
{
	struct view_opts vo = {.pid = -1, .tid = -1, .top = 20};
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
	    {"runtime", 0, CLI_FLAG, &vo.runtime, NULL,
	     "only the .NET runtime's events: GCs, exceptions, contention, JIT, allocations"},
	    {"flamegraph", 0, CLI_STR, &vo.flamegraph, "FILE.svg",
	     "write an interactive flame graph (SVG) instead of the text report"},
	    {"folded", 0, CLI_STR, &vo.folded, "FILE",
	     "write folded stacks ('a;b;c count' per line; - for stdout)"},
	    {"top", 0, CLI_INT, &vo.top, "N", "rows in the top-functions tables (default 20)"},
	    {"percent-limit", 0, CLI_STR, &vo.percent_limit, "PCT",
	     "hide call graph entries and branches under PCT% (default 0.5)"},
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("view", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		fputs(usage_text, stdout);
		cli_print_options(stdout, opts);
		fputs(offcpu_help, stdout);
		return 0;
	}
	if (npos != 1) {
		fprintf(stderr,
			"perfcollect-c view: which trace? (see 'perfcollect-c view --help')\n");
		return 2;
	}
	if (vo.offcpu && vo.event) {
		fprintf(stderr, "perfcollect-c view: -offcpu or -event, not both\n");
		return 2;
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
		return 2;
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
			return 2;
		}
	}

	struct view *v = view_new(vo.pid, vo.tid, vo.processfilter);
	int rc = 1;
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
		bool paged;
		FILE *out = open_pager(&paged);
		fprintf(out, "# perfcollect-c view %s\n", pos[0]);
		int prc = runtime_report_print(v->rt, out, &rto);
		if (paged)
			pclose(out);
		rc = prc && errno != EPIPE ? 1 : 0;
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

	rc = 0;
	if (vo.folded || vo.flamegraph)
		rc = write_graphs(&vo, pos[0], e, off, v);
	if (!vo.folded && !vo.flamegraph) {
		bool paged;
		FILE *out = open_pager(&paged);
		int prc = e ? print_report(out, pos[0], e, &ro, caller, v) : 0;
		if (!prc && off)
			prc = print_offcpu_report(out, pos[0], v, &ro, caller, e != NULL);
		if (!prc && rt) {
			fputs("\n#\n# ========\n", out);
			prc = runtime_report_print(v->rt, out, &rto);
		}
		if (paged)
			pclose(out);
		if (prc && errno != EPIPE) {
			fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
			rc = 1;
		}
	}
out:
	view_free(v);
	return rc;
}
