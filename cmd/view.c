/* view: call trees, top functions, flame graphs and folded stacks from perf.data.txt, read
 * straight out of a trace.zip (or a .trace directory, a bare perf.data.txt, or stdin), without
 * unzip or perf.  One streaming pass aggregates the samples into a calltree per event, and
 * the blocked time between sched_switch switch-outs and switch-ins into an off-CPU calltree
 * (offcpu.h); memory follows the number of unique stacks and threads, not of samples. */
#include "archive.h"
#include "calltree.h"
#include "cli.h"
#include "commands.h"
#include "flamegraph.h"
#include "offcpu.h"
#include "report.h"
#include "stackfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct event_tree {
	char *name;
	struct calltree *tree; /* root first, a FRAME_PROCESS level under the root */
	uint64_t samples;
};

struct view {
	struct functable *ft;
	struct calltree *offcpu_tree; /* nanoseconds blocked, by the stack of the switch-out */
	struct offcpu *oc;
	struct event_tree *events;
	size_t nevents, events_cap, last_event;
	char **comms; /* -processfilter, split at commas */
	size_t ncomms, comms_cap;
	long pid, tid;	  /* -1: any */
	uint64_t skipped; /* samples the filters left out */
	uint32_t *path;
	size_t path_cap;
};

/* Each sample weighs 1: the event trees count samples.  (Blocked time has its own tree,
 * weighed in nanoseconds when each wait ends.) */
static uint64_t sample_weight(const struct stack_sample *s)
{
	return 1;
}

static bool keep_sample(const struct view *v, const struct stack_sample *s)
{
	if (v->pid >= 0 && s->pid != v->pid)
		return false;
	if (v->tid >= 0 && s->tid != v->tid)
		return false;
	if (!v->ncomms)
		return true;
	for (size_t i = 0; i < v->ncomms; i++)
		if (!strcmp(v->comms[i], s->comm))
			return true;
	return false;
}

static struct event_tree *event_tree_of(struct view *v, const char *name)
{
	if (v->nevents && !strcmp(v->events[v->last_event].name, name))
		return &v->events[v->last_event];
	for (size_t i = 0; i < v->nevents; i++)
		if (!strcmp(v->events[i].name, name)) {
			v->last_event = i;
			return &v->events[i];
		}
	grow_array((void **)&v->events, &v->events_cap, v->nevents + 1, sizeof(*v->events));
	struct event_tree *e = &v->events[v->nevents];
	e->name = xstrdup(name);
	e->tree = calltree_new(v->ft);
	e->samples = 0;
	v->last_event = v->nevents++;
	return e;
}

static int on_sample(const struct stack_sample *s, void *arg)
{
	struct view *v = arg;
	/* Every sample may end a wait (another task's sched_switch names the switch-in); the
	 * filters choose which threads' waits begin. */
	bool blocks = offcpu_sample(v->oc, s);
	if (!keep_sample(v, s)) {
		v->skipped++;
		return 0;
	}
	struct event_tree *e = event_tree_of(v, s->event);
	grow_array((void **)&v->path, &v->path_cap, s->nframes + 1, sizeof(*v->path));
	size_t n = 0;
	v->path[n++] = functable_intern(v->ft, s->comm, "", FRAME_PROCESS);
	/* perf prints the leaf first; the tree wants the root first. */
	for (size_t i = s->nframes; i-- > 0;) {
		const struct stack_frame *f = &s->frames[i];
		v->path[n++] =
		    functable_intern_frame(v->ft, *f->sym ? f->sym : "[unknown]", f->dso, f->ip);
	}
	calltree_add(e->tree, v->path, n, sample_weight(s));
	e->samples++;
	if (blocks)
		offcpu_block(v->oc, s->tid, s->time_ns,
			     calltree_insert(v->offcpu_tree, v->path, n));
	return 0;
}

/* "sched:sched_switch" is a tracepoint; "cpu-clock" and "cpu-clock:u" are not. */
static bool is_tracepoint(const char *event)
{
	const char *c = strchr(event, ':');
	return c && c[1] && strspn(c + 1, "ukhpPGHSIDWe") != strlen(c + 1);
}

/* -event NAME; else cpu-clock; else the first event that is not a tracepoint; else, when
 * any_event, the first. */
static struct event_tree *choose_event(struct view *v, const char *want, bool any_event)
{
	if (want) {
		for (size_t i = 0; i < v->nevents; i++)
			if (!strcmp(v->events[i].name, want))
				return &v->events[i];
		return NULL;
	}
	for (size_t i = 0; i < v->nevents; i++)
		if (!strcmp(v->events[i].name, "cpu-clock"))
			return &v->events[i];
	for (size_t i = 0; i < v->nevents; i++)
		if (!is_tracepoint(v->events[i].name))
			return &v->events[i];
	return v->nevents && any_event ? &v->events[0] : NULL;
}

static void list_events(FILE *f, const struct view *v, const struct event_tree *except)
{
	for (size_t i = 0, n = 0; i < v->nevents; i++)
		if (&v->events[i] != except)
			fprintf(f, "%s%s (%llu)", n++ ? ", " : "", v->events[i].name,
				(unsigned long long)v->events[i].samples);
}

static void view_free(struct view *v)
{
	for (size_t i = 0; i < v->nevents; i++) {
		free(v->events[i].name);
		calltree_free(v->events[i].tree);
	}
	free(v->events);
	for (size_t i = 0; i < v->ncomms; i++)
		free(v->comms[i]);
	free(v->comms);
	free(v->path);
	offcpu_free(v->oc);
	calltree_free(v->offcpu_tree);
	functable_free(v->ft);
}

struct input {
	FILE *f;
	struct archive_reader *zip;
};

/* A trace.zip (by its magic), a .trace directory, a perf.data.txt, or "-" for stdin. */
static int open_input(const char *path, struct input *in)
{
	memset(in, 0, sizeof(*in));
	if (!strcmp(path, "-")) {
		in->f = stdin;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return pc_err_errno("cannot open %s", path);
	if (S_ISDIR(st.st_mode)) {
		char *txt = xasprintf("%s/perf.data.txt", path);
		in->f = fopen(txt, "re");
		free(txt);
		if (!in->f)
			return pc_err_errno("cannot open perf.data.txt in %s", path);
		return 0;
	}
	in->f = fopen(path, "re");
	if (!in->f)
		return pc_err_errno("cannot open %s", path);
	char magic[4];
	bool zip = fread(magic, 1, 4, in->f) == 4 && !memcmp(magic, "PK\3\4", 4);
	if (!zip) {
		rewind(in->f);
		return 0;
	}
	fclose(in->f);
	in->f = NULL;
	in->zip = archive_reader_open(path);
	if (!in->zip)
		return -1;
	long idx = archive_reader_find(in->zip, "perf.data.txt");
	if (idx < 0)
		return pc_err("%s has no perf.data.txt (only raw data? 'perfcollect-c merge %s' "
			      "writes it)",
			      path, path);
	in->f = archive_reader_open_entry(in->zip, (size_t)idx);
	return in->f ? 0 : -1;
}

static int close_input(struct input *in)
{
	int rc = 0;
	if (in->f && in->f != stdin && fclose(in->f))
		rc = pc_err_errno("cannot read the input");
	archive_reader_free(in->zip);
	in->f = NULL;
	in->zip = NULL;
	return rc;
}

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
	bool offcpu;
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
		list_events(out, v, e);
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
    "usage: perfcollect-c view <trace.zip | name.trace | perf.data.txt | -> [options]\n"
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
    "(to the file named), as does a trace without CPU samples; -event NAME shows only NAME.\n";

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

	struct view v = {.ft = functable_new(), .pid = vo.pid, .tid = vo.tid};
	v.offcpu_tree = calltree_new(v.ft);
	v.oc = offcpu_new(v.offcpu_tree);
	if (vo.processfilter) {
		char *list = xstrdup(vo.processfilter), *save = NULL;
		for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
			grow_array((void **)&v.comms, &v.comms_cap, v.ncomms + 1, sizeof(*v.comms));
			v.comms[v.ncomms++] = xstrdup(c);
		}
		free(list);
	}

	int rc = 1;
	struct input in;
	struct stackfile_stats st;
	if (open_input(pos[0], &in) < 0 || stackfile_read(in.f, pos[0], on_sample, &v, &st) ||
	    close_input(&in) < 0) {
		fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
		if (in.f || in.zip)
			close_input(&in);
		goto out;
	}
	offcpu_finish(v.oc);
	if (st.bad_lines)
		fprintf(stderr,
			"perfcollect-c view: warning: %s: %llu line(s) not understood, the first "
			"at line %llu\n",
			pos[0], (unsigned long long)st.bad_lines,
			(unsigned long long)st.first_bad_line);
	if (st.truncated_stacks)
		fprintf(stderr, "perfcollect-c view: warning: %llu stack(s) cut to %d frames\n",
			(unsigned long long)st.truncated_stacks, STACKFILE_MAX_FRAMES);
	const struct offcpu_stats *os = offcpu_stats(v.oc);
	if (os->bad_switches && os->bad_switches < os->switches)
		fprintf(stderr,
			"perfcollect-c view: warning: %llu %s sample(s) without a usable time or "
			"trace field, not counted as blocked time\n",
			(unsigned long long)os->bad_switches, OFFCPU_EVENT);
	bool off = calltree_total(v.offcpu_tree) > 0;
	struct event_tree *e = NULL;
	if (vo.offcpu) {
		if (!off) {
			explain_no_offcpu(pos[0], &v);
			goto out;
		}
	} else {
		/* Without -event the blocked time shows with the CPU samples, or alone when the
		 * trace has only tracepoints (collect -offcpu). */
		e = choose_event(&v, vo.event, !off);
		if (e && !calltree_total(e->tree) && !vo.event && off)
			e = NULL;
		if (vo.event)
			off = false;
		if (!off && (!e || !calltree_total(e->tree))) {
			if (vo.event && v.nevents) {
				fprintf(stderr,
					"perfcollect-c view: no '%s' samples in %s; it has: ",
					vo.event, pos[0]);
				list_events(stderr, &v, NULL);
				fputc('\n', stderr);
			} else {
				fprintf(stderr, "perfcollect-c view: no samples in %s%s\n", pos[0],
					v.skipped ? " match the filters" : "");
			}
			goto out;
		}
	}

	rc = 0;
	if (vo.folded || vo.flamegraph)
		rc = write_graphs(&vo, pos[0], e, off, &v);
	if (!vo.folded && !vo.flamegraph) {
		bool paged;
		FILE *out = open_pager(&paged);
		int prc = e ? print_report(out, pos[0], e, &ro, caller, &v) : 0;
		if (!prc && off)
			prc = print_offcpu_report(out, pos[0], &v, &ro, caller, e != NULL);
		if (paged)
			pclose(out);
		if (prc && errno != EPIPE) {
			fprintf(stderr, "perfcollect-c view: %s\n", pc_strerror());
			rc = 1;
		}
	}
out:
	view_free(&v);
	return rc;
}
