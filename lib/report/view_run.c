/* view_run: see view_run.h. */
#include "view_run.h"
#include "diff.h"
#include "export.h"
#include "html.h"
#include "view_text.h"
#include "base/outfile.h"
#include "base/tracefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORMAT_CSV  (-2) /* -format csv: the runtime's tables */
#define FORMAT_HTML (-3) /* -format html: the whole view as one page (html.h) */

static void say(const struct view_request *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct view_request *rq, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("perfcollect-c view: ", rq->diag);
	vfprintf(rq->diag, fmt, ap);
	fputc('\n', rq->diag);
	va_end(ap);
}

/* One file the view writes: -flamegraph, -folded, or -format with -o. */
struct output {
	int format; /* enum export_format, or FORMAT_CSV */
	const char *path;
};

/* "dir/app.trace.zip" -> "app" + ext, in the current directory (the trace's name, as
 * tracefile_name() gives it). */
static char *default_output(const char *input, const char *ext)
{
	if (!strcmp(input, "-"))
		return xasprintf("stdin%s", ext);
	char *name = tracefile_name(input);
	/* "/", ".", "..": no name to take */
	char *out = xasprintf("%s%s", name[strspn(name, "./")] ? name : "profile", ext);
	free(name);
	return out;
}

/* --report: "dir/app.trace.zip" -> "dir/app.report.html", beside the trace. */
static char *report_path(const char *input)
{
	if (!strcmp(input, "-"))
		return xstrdup("stdin.report.html");
	char *name = tracefile_name(input);
	char *dir = xstrdup(input);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/') /* "x.trace/": beside the directory, not in it */
		dir[--n] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0; /* "/x.zip" keeps its "/" */
	char *out = tracefile_path(slash ? dir : NULL, name[strspn(name, "./")] ? name : "profile",
				   ".report.html");
	free(dir);
	free(name);
	return out;
}

/* The format a file name asks for: FILE.svg, FILE.pb.gz, FILE.speedscope.json ... */
static int format_of_path(const char *path)
{
	static const struct {
		const char *ext;
		int f;
	} exts[] = {{".svg", EXPORT_SVG},	  {".folded", EXPORT_FOLDED},
		    {".pb.gz", EXPORT_PPROF},	  {".pprof", EXPORT_PPROF},
		    {".json", EXPORT_SPEEDSCOPE}, {".csv", FORMAT_CSV},
		    {".html", FORMAT_HTML}};
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (str_endswith(path, exts[i].ext))
			return exts[i].f;
	return -1;
}

static const char *ext_of(const struct view_request *rq, int f)
{
	/* A differential graph is not the trace's own flame graph: it does not take (and
	 * overwrite) that one's name. */
	if (rq->diff && f == EXPORT_SVG)
		return ".diff.svg";
	if (f == FORMAT_HTML)
		return rq->diff ? ".diff.html" : ".html";
	if (f != FORMAT_CSV)
		return export_extension((enum export_format)f);
	return rq->runtime_table && !strcasecmp(rq->runtime_table, "jit") ? ".jit.csv" : ".gc.csv";
}

/* The outputs the options ask for (at most 3); -1 after a message when they make no sense. */
static int plan_outputs(const struct view_request *rq, struct output *outs, size_t *n, char **owned)
{
	*n = 0;
	*owned = NULL;
	if (rq->flamegraph)
		outs[(*n)++] = (struct output){EXPORT_SVG, rq->flamegraph};
	if (rq->folded)
		outs[(*n)++] = (struct output){EXPORT_FOLDED, rq->folded};
	int f = -1;
	if (rq->report && rq->format && strcasecmp(rq->format, "html")) {
		say(rq, "--report writes the HTML report; -format %s goes without it", rq->format);
		return -1;
	}
	if (rq->report && rq->output) {
		say(rq, "--report names its file after the trace (NAME.report.html beside it); "
			"for another name use -format html -o FILE.html");
		return -1;
	}
	if (rq->report) {
		f = FORMAT_HTML;
	} else if (rq->format && !strcasecmp(rq->format, "html")) {
		f = FORMAT_HTML;
	} else if (rq->format && !strcasecmp(rq->format, "csv")) {
		f = FORMAT_CSV;
	} else if (rq->format && strcasecmp(rq->format, "text")) {
		f = export_format_parse(rq->format);
		if (f < 0) {
			say(rq,
			    "-format is text, svg, folded, pprof, speedscope, html or csv "
			    "(-runtime), not '%s'",
			    rq->format);
			return -1;
		}
	} else if (rq->format && rq->output) {
		say(rq, "the text report goes to standard output (or the pager); -o is for the "
			"other formats");
		return -1;
	} else if (rq->output && (f = format_of_path(rq->output)) == -1) {
		say(rq,
		    "which format for %s? add -format svg, folded, pprof, speedscope, html or "
		    "csv",
		    rq->output);
		return -1;
	}
	if (f == FORMAT_CSV && !rq->runtime) {
		say(rq, "-format csv writes the .NET runtime's tables: add -runtime (one row per "
			"GC) or -runtime jit (one row per method)");
		return -1;
	}
	if (f != -1 && f != FORMAT_CSV && rq->runtime) {
		say(rq, "-runtime writes text or csv (the HTML report, -format html, holds the "
			"runtime's tables without it); the .NET views in other formats are -event "
			"alloc, -event exception and -event contention");
		return -1;
	}
	if (f != -1) {
		const char *path = rq->output;
		if (rq->report)
			path = *owned = report_path(rq->input);
		else if (!path)
			path = *owned = default_output(rq->input, ext_of(rq, f));
		outs[(*n)++] = (struct output){f, path};
	}
	const char *inputs[] = {rq->input, rq->diff, NULL};
	for (size_t i = 0; i < *n; i++)
		if (strcmp(outs[i].path, "-") &&
		    outfile_check_target(outs[i].path,
					 outs[i].format == FORMAT_CSV ? "the table"
					 : outs[i].format == FORMAT_HTML
					     ? "the report"
					     : export_what((enum export_format)outs[i].format),
					 inputs) < 0) {
			say(rq, "%s", pc_strerror());
			return -1;
		}
	if (rq->diff && (*n > 1 || (*n == 1 && outs[0].format != EXPORT_SVG &&
				    outs[0].format != FORMAT_HTML))) {
		say(rq,
		    "-diff makes a text table, an SVG flame graph (-format svg) or an HTML one "
		    "(-format html); for pprof compare with 'go tool pprof -diff_base OLD.pb.gz "
		    "NEW.pb.gz'");
		return -1;
	}
	if (rq->width && (rq->width < 200 || rq->width > 100000)) {
		say(rq, "-width wants 200 to 100000 pixels");
		return -1;
	}
	return 0;
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

/* What the outputs share: the input and its decoration. */
struct export_ctx {
	const struct view_request *rq;
	const struct view *v;
	struct pprof_build_id *build_ids;
	size_t nbuild_ids;
	const uint64_t *base_totals; /* -diff */
};

static int export_one(const struct export_ctx *x, const struct output *out, const char *path,
		      const struct calltree *tree, enum view_kind kind, const struct event_tree *e,
		      const char *subtitle, const char *what)
{
	const struct view_request *rq = x->rq;
	struct export_job j = {.format = (enum export_format)out->format,
			       .path = path,
			       .tree = tree,
			       .kind = kind,
			       .event = e ? e->name : NULL,
			       .mean_period = e && e->samples && kind == VIEW_SAMPLES
						  ? (double)e->period / (double)e->samples
						  : 0,
			       .input = rq->input,
			       .title = rq->title,
			       .subtitle = subtitle,
			       .width = (unsigned)rq->width,
			       .rec = &x->v->rec,
			       .build_ids = x->build_ids,
			       .nbuild_ids = x->nbuild_ids,
			       .base_totals = kind == VIEW_BLOCKED ? NULL : x->base_totals,
			       .base_name = rq->diff};
	if (export_write(&j)) {
		say(rq, "%s", pc_strerror());
		return 1;
	}
	if (strcmp(path, "-"))
		say(rq, "wrote %s (%s)", path, what);
	return 0;
}

/* A total in the view's unit, for titles: "1234 samples", "12.50 ms blocked" ... */
static char *amount(const struct calltree *t, enum view_kind kind)
{
	const struct view_unit *u = view_unit(kind);
	uint64_t n = calltree_total(t);
	if (u->text_div > 1)
		return xasprintf("%.2f %s", (double)n / (double)u->text_div, u->text_unit);
	return xasprintf("%llu %s", (unsigned long long)n, u->what);
}

/* The tree e (may be NULL) to the output's path, the blocked time (when off) to the path
 * itself when there is no tree e, else next to it as path.offcpu.ext. */
static int write_output(const struct export_ctx *x, const struct output *out,
			const struct event_tree *e, bool off)
{
	const struct view_request *rq = x->rq;
	int rc = 0;
	const char *filter = rq->processfilter ? ", commands " : "";
	const char *comms = rq->processfilter ? rq->processfilter : "";
	if (e && off && !strcmp(out->path, "-")) {
		say(rq,
		    "standard output gets the %s stacks only; -offcpu writes the blocked time "
		    "there",
		    e->name);
		off = false;
	}
	if (e) {
		char *n = amount(e->tree, e->kind);
		char *sub =
		    x->base_totals
			? xasprintf("%s: %s against %s%s%s (red: more, blue: less, as "
				    "shares of each total)",
				    e->name, rq->input, rq->diff, filter, comms)
			: xasprintf("%s: %s from %s%s%s", e->name, n, rq->input, filter, comms);
		char *what =
		    xasprintf("%s%s of %s", x->base_totals ? "differential, " : "", n, e->name);
		rc |= export_one(x, out, out->path, e->tree, e->kind, e, sub, what);
		free(what);
		free(sub);
		free(n);
	}
	if (off) {
		char *path =
		    e ? offcpu_path(out->path, export_extension(out->format)) : xstrdup(out->path);
		char *n = amount(x->v->offcpu_tree, VIEW_BLOCKED);
		char *sub = xasprintf("blocked time: %s from %s%s%s", n, rq->input, filter, comms);
		char *what = xasprintf("off-CPU: %s", n);
		rc |= export_one(x, out, path, x->v->offcpu_tree, VIEW_BLOCKED, NULL, sub, what);
		free(what);
		free(sub);
		free(n);
		free(path);
	}
	return rc;
}

/* Why -offcpu has nothing to show. */
static void explain_no_offcpu(const struct view_request *rq, const struct view *v)
{
	const struct offcpu_stats *st = offcpu_stats(v->oc);
	if (!st->switches)
		say(rq,
		    "no %s samples in %s (nor SampleProfiler samples outside managed code): "
		    "record with 'collect -offcpu' or '-threadtime'",
		    OFFCPU_EVENT, rq->input);
	else if (st->bad_switches == st->switches)
		say(rq,
		    "the %s samples in %s lack the time or the trace field (perf script -F "
		    "...,time,...,trace)",
		    OFFCPU_EVENT, rq->input);
	else
		say(rq,
		    "no measured wait in %s%s (%llu switches, %llu waits still open at the end)",
		    rq->input, v->skipped ? " matches the filters" : "",
		    (unsigned long long)st->switches, (unsigned long long)st->open_at_end);
}

/* Why -event NAME has nothing to show. */
static void explain_no_event(const struct view_request *rq, struct view *v)
{
	int kind = rq->event ? view_kind_of_event(rq->event) : -1;
	if (kind >= 0) {
		static const char *const needs[] = {
		    [VIEW_ALLOC] =
			"AllocationTick events (the runtime's GC keyword at verbose level: "
			"collect -gconly, or dotnet-trace --profile gc-verbose)",
		    [VIEW_EXCEPTIONS] = "ExceptionThrown events (the runtime's Exception keyword)",
		    [VIEW_CONTENTION] = "ContentionStart/Stop events (the runtime's Contention "
					"keyword)"};
		say(rq, "no %s in %s%s: it needs %s", view_unit((enum view_kind)kind)->what,
		    rq->input, v->skipped ? " matching the filters" : "", needs[kind]);
		return;
	}
	if (rq->event && v->nevents) {
		fprintf(rq->diag, "perfcollect-c view: no '%s' samples in %s; it has: ", rq->event,
			rq->input);
		view_list_events(rq->diag, v, NULL);
		fputc('\n', rq->diag);
		return;
	}
	say(rq, "no samples in %s%s", rq->input, v->skipped ? " match the filters" : "");
}

/* The other trace of -diff, read with the same filters; its tree of the same view. */
static struct calltree *base_tree(const struct view_request *rq, const struct event_tree *e,
				  struct view **base)
{
	*base = view_new(rq->pid, rq->tid, rq->processfilter);
	struct stackfile_stats st;
	if (view_read(*base, rq->diff, &st) < 0) {
		say(rq, "-diff: %s", pc_strerror());
		return NULL;
	}
	if (!e)
		return (*base)->offcpu_tree;
	struct event_tree *be = view_choose_event(*base, e->name, false);
	if (!be || !calltree_total(be->tree)) {
		say(rq, "-diff: no '%s' samples in %s", e->name, rq->diff);
		return NULL;
	}
	return be->tree;
}

/* -diff: the table (into text), or the differential flame graph (outs[0], SVG). */
static int run_diff(const struct view_request *rq, struct view *v, const struct event_tree *e,
		    const struct output *outs, size_t nouts, FILE *text)
{
	struct view *base = NULL;
	const struct calltree *bt = base_tree(rq, e, &base);
	int rc = 1;
	if (bt) {
		struct calltree *now =
		    calltree_derive(e ? e->tree : v->offcpu_tree, CALLTREE_MERGE_NAMES);
		struct calltree *was = calltree_derive(bt, CALLTREE_MERGE_NAMES);
		if (nouts && outs[0].format == FORMAT_HTML) {
			uint64_t *bw = diff_base_totals(now, was);
			struct html_job hj = {.path = outs[0].path,
					      .v = v,
					      .input = rq->input,
					      .title = rq->title,
					      .pid = rq->pid,
					      .diff_tree = now,
					      .diff_kind = e ? e->kind : VIEW_BLOCKED,
					      .diff_event = e ? e->name : OFFCPU_EVENT,
					      .base_totals = bw,
					      .base_total = calltree_total(was),
					      .base_name = rq->diff};
			rc = html_write(&hj) ? 1 : 0;
			if (rc)
				say(rq, "%s", pc_strerror());
			else if (strcmp(outs[0].path, "-"))
				say(rq, "wrote %s (differential, against %s)", outs[0].path,
				    rq->diff);
			free(bw);
		} else if (nouts) {
			uint64_t *bw = diff_base_totals(now, was);
			struct export_ctx x = {.rq = rq, .v = v, .base_totals = bw};
			struct event_tree ne = {.name = e ? e->name : OFFCPU_EVENT,
						.kind = e ? e->kind : VIEW_BLOCKED,
						.tree = now};
			rc = write_output(&x, &outs[0], e ? &ne : NULL, !e);
			free(bw);
		} else {
			enum view_kind k = e ? e->kind : VIEW_BLOCKED;
			struct diff_opts d = {.top = (size_t)rq->top,
					      .unit = k == VIEW_SAMPLES ? "samples"
									: view_unit(k)->what,
					      .new_name = rq->input,
					      .base_name = rq->diff};
			rc = diff_report(text, now, was, &d) ? 1 : 0;
			if (rc)
				say(rq, "%s", pc_strerror());
		}
		calltree_free(now);
		calltree_free(was);
	}
	view_free(base);
	return rc;
}

/* -runtime: the findings and the tables, or one table (-runtime gc|jit) as text or CSV. */
static int run_runtime(const struct view_request *rq, struct view *v, const struct output *csv,
		       FILE *text)
{
	if (!v->rt || !runtime_report_processes(v->rt)) {
		say(rq,
		    "no .NET runtime events in %s (collect records them from .NET processes "
		    "unless -nodotnetevents; dotnet-trace with the runtime provider)",
		    rq->input);
		return 1;
	}
	const struct event_tree *ex = view_tree_of(v, VIEW_EXCEPTIONS);
	const struct event_tree *co = view_tree_of(v, VIEW_CONTENTION);
	struct runtime_report_opts o = {.pid = rq->pid,
					.top = (size_t)rq->top,
					.exceptions = ex ? ex->tree : NULL,
					.contention = co ? co->tree : NULL};
	bool jit = rq->runtime_table && !strcasecmp(rq->runtime_table, "jit");
	if (csv) {
		FILE *f = stdout;
		struct outfile *of = NULL;
		if (strcmp(csv->path, "-")) {
			if (!(of = outfile_open(csv->path))) {
				say(rq, "%s", pc_strerror());
				return 1;
			}
			f = outfile_stream(of);
		}
		int rc = jit ? runtime_report_csv_jit(v->rt, f, &o)
			     : runtime_report_csv_gcs(v->rt, f, &o);
		if (of && rc)
			outfile_abort(of);
		else if (of)
			rc = outfile_commit(of);
		if (rc) {
			say(rq, "%s", pc_strerror());
			return 1;
		}
		if (of)
			say(rq, "wrote %s (%s)", csv->path,
			    jit ? "one row per JIT-compiled method" : "one row per GC");
		return 0;
	}
	fprintf(text, "# perfcollect-c view %s\n", rq->input);
	int rc =
	    jit ? runtime_report_print_jit(v->rt, text, &o)
		: view_text_findings(text, v, rq->pid) || runtime_report_print(v->rt, text, &o);
	if (rc)
		say(rq, "%s", pc_strerror());
	return rc ? 1 : 0;
}

/* The view's own outputs: the files, or the text report. */
static int run_view(const struct view_request *rq, struct view *v, const struct output *outs,
		    size_t nouts, FILE *text)
{
	bool rt = v->rt && runtime_report_processes(v->rt);
	bool off = calltree_total(v->offcpu_tree) > 0;
	struct event_tree *e = NULL;
	if (rq->offcpu) {
		if (!off) {
			explain_no_offcpu(rq, v);
			return 1;
		}
	} else {
		/* Without -event the blocked time shows with the CPU samples, or alone when the
		 * trace has only tracepoints (collect -offcpu). */
		e = view_choose_event(v, rq->event, !off);
		if (e && !calltree_total(e->tree) && !rq->event && off)
			e = NULL;
		if (rq->event)
			off = false;
		if (!off && (!e || !calltree_total(e->tree))) {
			if (!rq->event && rt && !nouts) /* a trace of runtime events alone */
				return run_runtime(rq, v, NULL, text);
			explain_no_event(rq, v);
			return 1;
		}
	}
	if (rq->diff)
		return run_diff(rq, v, e, outs, nouts, text);
	int rc = 0;
	if (nouts) {
		struct export_ctx x = {.rq = rq, .v = v};
		for (size_t i = 0; i < nouts; i++)
			if (outs[i].format == EXPORT_PPROF && !x.build_ids)
				x.build_ids = view_read_build_ids(rq->input, &x.nbuild_ids);
		for (size_t i = 0; i < nouts; i++)
			rc |= write_output(&x, &outs[i], e, off);
		view_free_build_ids(x.build_ids, x.nbuild_ids);
		return rc;
	}
	struct report_opts ro = {
	    .percent_limit = rq->percent_limit, .top = (size_t)rq->top, .unit = "samples"};
	int prc = e ? view_text_tree(text, rq->input, v, e, &ro, rq->caller) : 0;
	if (!prc && e && rq->sort)
		prc = report_sorted(text, e->tree, rq->sort, &ro);
	if (!prc && off)
		prc = view_text_offcpu(text, rq->input, v, &ro, rq->caller, e != NULL);
	if (!prc && rt && !rq->event && !rq->offcpu) {
		struct runtime_report_opts o = {.pid = rq->pid, .top = (size_t)rq->top};
		const struct event_tree *ex = view_tree_of(v, VIEW_EXCEPTIONS);
		const struct event_tree *co = view_tree_of(v, VIEW_CONTENTION);
		o.exceptions = ex ? ex->tree : NULL;
		o.contention = co ? co->tree : NULL;
		fputs("\n#\n# ========\n", text);
		prc = view_text_findings(text, v, rq->pid) || runtime_report_print(v->rt, text, &o);
	}
	if (prc) {
		say(rq, "%s", pc_strerror());
		return 1;
	}
	return 0;
}

/* The HTML report: every view the trace has, its timelines and the runtime's tables. */
static int run_html(const struct view_request *rq, struct view *v, const struct html_times *times,
		    const struct output *out, FILE *text)
{
	bool any = calltree_total(v->offcpu_tree) || (v->rt && runtime_report_processes(v->rt));
	for (size_t i = 0; i < v->nevents; i++)
		any |= calltree_total(v->events[i].tree) > 0;
	if (!any) {
		say(rq, "no samples in %s%s: nothing to report", rq->input,
		    v->skipped ? " match the filters" : "");
		return 1;
	}
	struct html_job j = {.path = out->path,
			     .v = v,
			     .input = rq->input,
			     .title = rq->title,
			     .pid = rq->pid,
			     .times = times};
	if (html_write(&j)) {
		say(rq, "%s", pc_strerror());
		return 1;
	}
	if (rq->report)
		fprintf(text, "%s\n", out->path);
	else if (strcmp(out->path, "-"))
		say(rq, "wrote %s (the report: open it in a browser)", out->path);
	return 0;
}

static void warn_input(const struct view_request *rq, const struct view *v,
		       const struct stackfile_stats *st)
{
	if (st->bad_lines)
		say(rq, "warning: %s: %llu line(s) not understood, the first at line %llu",
		    rq->input, (unsigned long long)st->bad_lines,
		    (unsigned long long)st->first_bad_line);
	if (st->truncated_stacks)
		say(rq, "warning: %llu stack(s) cut to %d frames",
		    (unsigned long long)st->truncated_stacks, STACKFILE_MAX_FRAMES);
	for (size_t i = 0; i < v->nwarnings; i++)
		say(rq, "warning: %s", v->warnings[i]);
	const struct offcpu_stats *os = offcpu_stats(v->oc);
	if (os->bad_switches && os->bad_switches < os->switches)
		say(rq,
		    "warning: %llu %s sample(s) without a usable time or trace field, not counted "
		    "as blocked time",
		    (unsigned long long)os->bad_switches, OFFCPU_EVENT);
	view_print_unnamed(v, rq->input, rq->diag);
}

int view_run(const struct view_request *rq, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	if (rq->offcpu && rq->event) {
		say(rq, "-offcpu or -event, not both");
		return 2;
	}
	if (rq->runtime && (rq->offcpu || rq->event || rq->flamegraph || rq->folded || rq->diff)) {
		say(rq, "-runtime shows the .NET runtime's tables alone; it goes without -offcpu, "
			"-event, -flamegraph, -folded and -diff");
		return 2;
	}
	if (rq->runtime_table && strcasecmp(rq->runtime_table, "gc") &&
	    strcasecmp(rq->runtime_table, "jit")) {
		say(rq, "-runtime takes gc or jit after the trace, not '%s'", rq->runtime_table);
		return 2;
	}
	struct output outs[3];
	size_t nouts;
	char *owned = NULL;
	if (plan_outputs(rq, outs, &nouts, &owned) < 0) {
		free(owned);
		return 2;
	}
	int rc = 1;
	struct view *v = view_new(rq->pid, rq->tid, rq->processfilter);
	struct html_times *times = NULL;
	const struct output *html = NULL;
	for (size_t i = 0; i < nouts; i++)
		if (outs[i].format == FORMAT_HTML)
			html = &outs[i];
	if (html && !rq->diff) {
		times = html_times_new();
		times->v = v;
		view_observe(v, html_times_observe, times);
	}
	struct stackfile_stats st;
	if (view_read(v, rq->input, &st) < 0) {
		say(rq, "%s", pc_strerror());
		goto out;
	}
	warn_input(rq, v, &st);
	FILE *f = open_memstream(text, len);
	if (html && !rq->diff) {
		rc = run_html(rq, v, times, html, f);
		struct output rest[3];
		size_t nrest = 0;
		for (size_t i = 0; i < nouts; i++)
			if (&outs[i] != html)
				rest[nrest++] = outs[i];
		if (!rc && nrest) /* -flamegraph, -folded beside it */
			rc = run_view(rq, v, rest, nrest, f);
	} else if (rq->runtime) {
		rc = run_runtime(rq, v, nouts ? &outs[0] : NULL, f);
	} else {
		rc = run_view(rq, v, outs, nouts, f);
	}
	if (fclose(f) && !rc) {
		say(rq, "cannot write the report: %s", strerror(errno));
		rc = 1;
	}
	if (rc || !*len) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
out:
	html_times_free(times);
	view_free(v);
	free(owned);
	return rc;
}
