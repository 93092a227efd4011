/* view_text: see view_text.h. */
#include "view_text.h"
#include "summary.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1e6
#define MB	  (1024.0 * 1024.0)

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

int view_text_tree(FILE *out, const char *input, const struct view *v, const struct event_tree *e,
		   const struct report_opts *sample_ro, bool caller)
{
	const struct view_unit *u = view_unit(e->kind);
	struct report_opts ro = *sample_ro;
	ro.unit = u->text_unit;
	ro.unit_div = u->text_div;
	fprintf(out, "# perfcollect-c view %s\n", input);
	if (e->kind == VIEW_SAMPLES && summary_write(out, v, e))
		return -1;
	uint64_t total = calltree_total(e->tree);
	if (e->kind == VIEW_SAMPLES)
		fprintf(out, "# Event: %s, %llu %s", e->name, (unsigned long long)total, ro.unit);
	else if (u->text_div > 1) /* ns, shown as ms: "ms waited" */
		fprintf(out, "# %s (PerfView's %s): %llu events, %.3f ms%s", e->name, u->perfview,
			(unsigned long long)e->samples, (double)total / (double)u->text_div,
			str_startswith(u->what, "ns") ? u->what + 2 : "");
	else
		fprintf(out, "# %s (PerfView's %s): %llu events, %llu %s", e->name, u->perfview,
			(unsigned long long)e->samples, (unsigned long long)total, ro.unit);
	if (v->skipped)
		fprintf(out, " (%llu left out by the filters)", (unsigned long long)v->skipped);
	fputc('\n', out);
	if (!strcmp(e->name, "ThreadSample"))
		fprintf(
		    out,
		    "# (EventPipe's SampleProfiler: threads sampled in managed code, PerfView's "
		    "CPU_TIME; %llu samples outside it are blocked time, -offcpu)\n",
		    (unsigned long long)v->external_samples);
	if (v->nevents > 1) {
		fputs("# Other events (-event NAME): ", out);
		view_list_events(out, v, e);
		fputc('\n', out);
	}
	return print_trees(out, e->tree, &ro, caller);
}

/* How the blocked time was measured, in one or two comment lines. */
static void offcpu_summary(FILE *out, const struct view *v)
{
	const struct offcpu_stats *st = offcpu_stats(v->oc);
	if (v->external_samples) {
		fprintf(out,
			"# Blocked time: %.2f ms, %llu SampleProfiler samples of threads outside "
			"managed code (native code or waiting; PerfView's UNMANAGED_CODE_TIME), "
			"each the sampling interval\n",
			(double)v->external_ns / NS_PER_MS,
			(unsigned long long)v->external_samples);
		if (!st->switches)
			return;
	}
	fprintf(out,
		"# Off-CPU (blocked) time: %.2f ms in %llu waits of %llu threads, from their "
		"switch-out (%s) to their switch-in\n",
		(double)st->blocked_ns / NS_PER_MS, (unsigned long long)st->intervals,
		(unsigned long long)st->threads, OFFCPU_EVENT);
	fprintf(out, "#   %llu waits end at the switch-in", (unsigned long long)st->ended_exact);
	if (st->ended_sample)
		fprintf(out,
			", %llu at the thread's next sample (an upper bound: the trace has no "
			"switch-in for them)",
			(unsigned long long)st->ended_sample);
	if (st->open_at_end)
		fprintf(out, "; %llu still blocked at the end (%.2f ms by then) are left out",
			(unsigned long long)st->open_at_end, (double)st->open_ns / NS_PER_MS);
	fputc('\n', out);
}

int view_text_offcpu(FILE *out, const char *input, const struct view *v,
		     const struct report_opts *sample_ro, bool caller, bool after_cpu)
{
	struct report_opts ro = *sample_ro;
	ro.unit = view_unit(VIEW_BLOCKED)->text_unit;
	ro.unit_div = view_unit(VIEW_BLOCKED)->text_div;
	if (after_cpu)
		fputs("\n#\n# ========\n", out);
	else if (fprintf(out, "# perfcollect-c view %s\n", input) < 0 ||
		 summary_write(out, v, NULL))
		return -1;
	offcpu_summary(out, v);
	return print_trees(out, v->offcpu_tree, &ro, caller);
}

/* ---- findings ----------------------------------------------------------------------- */

/* The heaviest leaf function of a tree (its self weight in *w), and the managed method its
 * stacks hold most above it (site: rt_site's, or the leaf's caller). */
struct top_leaf {
	uint32_t func;
	uint64_t w, total;
	const char *site;
	uint64_t site_w;
};

static bool top_leaf(const struct calltree *t, bool by_site, bool lock, struct top_leaf *out)
{
	const struct functable *ft = calltree_functable(t);
	size_t nf = functable_count(ft);
	uint64_t *self = xcalloc(nf + 1, sizeof(*self));
	memset(out, 0, sizeof(*out));
	out->total = calltree_total(t);
	for (uint32_t i = 1; i < calltree_count(t); i++) {
		const struct calltree_node *nd = calltree_node(t, i);
		if (nd->self && functable_kind(ft, nd->func) != FRAME_PROCESS)
			self[nd->func] += nd->self;
	}
	bool found = false;
	for (size_t f = 0; f < nf; f++)
		if (self[f] > out->w) {
			out->w = self[f];
			out->func = (uint32_t)f;
			found = true;
		}
	free(self);
	if (!found)
		return false;
	/* Where that leaf is reached from, by weight. */
	struct {
		const char *name;
		uint64_t w;
	} *sites = NULL;
	size_t nsites = 0, cap = 0;
	for (uint32_t i = 1; i < calltree_count(t); i++) {
		const struct calltree_node *nd = calltree_node(t, i);
		if (!nd->self || nd->func != out->func)
			continue;
		const char *s = by_site ? rt_site(t, i, lock) : NULL;
		if (!s && nd->parent != CALLTREE_ROOT) {
			uint32_t pf = calltree_node(t, nd->parent)->func;
			if (functable_kind(ft, pf) != FRAME_PROCESS)
				s = functable_name(ft, pf);
		}
		if (!s)
			continue;
		size_t k = 0;
		while (k < nsites && strcmp(sites[k].name, s))
			k++;
		if (k == nsites) {
			grow_array((void **)&sites, &cap, nsites + 1, sizeof(*sites));
			sites[nsites].name = s;
			sites[nsites++].w = 0;
		}
		sites[k].w += nd->self;
	}
	for (size_t k = 0; k < nsites; k++)
		if (sites[k].w > out->site_w) {
			out->site_w = sites[k].w;
			out->site = sites[k].name;
		}
	free(sites);
	return true;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void gc_findings(FILE *out, const struct view *v, long pid)
{
	struct rt_process_info p;
	for (size_t i = 0; v->rt && runtime_report_process(v->rt, i, &p); i++) {
		if (pid >= 0 && p.host_pid != pid)
			continue;
		double total = 0, by_gen[3] = {0, 0, 0};
		size_t n = 0;
		for (size_t k = 0; k < p.ngcs; k++)
			if (p.gcs[k].complete) {
				total += p.gcs[k].pause_ns;
				by_gen[p.gcs[k].gen < 3 ? p.gcs[k].gen : 2] += p.gcs[k].pause_ns;
				n++;
			}
		if (!n)
			continue;
		unsigned gen = by_gen[1] > by_gen[0] ? 1 : 0;
		gen = by_gen[2] > by_gen[gen] ? 2 : gen;
		/* The reason that paused that generation longest. */
		double by_reason[32] = {0};
		for (size_t k = 0; k < p.ngcs; k++)
			if (p.gcs[k].complete && p.gcs[k].gen == gen)
				by_reason[p.gcs[k].reason < 32 ? p.gcs[k].reason : 31] +=
				    p.gcs[k].pause_ns;
		unsigned reason = 0;
		for (unsigned r = 1; r < 32; r++)
			if (by_reason[r] > by_reason[reason])
				reason = r;
		uint64_t wall = p.end_ns - p.start_ns;
		fprintf(
		    out,
		    "# - GC paused pid %ld for %.1f ms in %zu GCs, %.2f%% of the %.3f s traced; "
		    "mostly gen%u (%.1f ms), for %s (%.1f ms).\n",
		    p.host_pid, total / NS_PER_MS, n, wall ? 100.0 * total / (double)wall : 0,
		    (double)wall / 1e9, gen, by_gen[gen] / NS_PER_MS, rt_gc_reason_name(reason),
		    by_reason[reason] / NS_PER_MS);
	}
}

int view_text_findings(FILE *out, const struct view *v, long pid)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	gc_findings(f, v, pid);
	struct view *mv = (struct view *)v;
	const struct functable *ft = v->ft;
	struct top_leaf t;
	const struct event_tree *e = view_choose_event(mv, NULL, false);
	if (e && top_leaf(e->tree, false, false, &t))
		fprintf(f,
			"# - The hottest function is %s: %.1f%% of the %llu %s samples (self).\n",
			functable_name(ft, t.func), pct(t.w, t.total), (unsigned long long)t.total,
			e->name);
	if ((e = view_tree_of(mv, VIEW_ALLOC)) && top_leaf(e->tree, true, false, &t)) {
		fprintf(f,
			"# - The top allocating type is %s: %.1f MB, %.1f%% of the %.1f MB sampled",
			functable_name(ft, t.func), (double)t.w / MB, pct(t.w, t.total),
			(double)t.total / MB);
		if (t.site)
			fprintf(f, "; %.1f%% of it allocated in %s", pct(t.site_w, t.w), t.site);
		fputs(".\n", f);
	}
	if ((e = view_tree_of(mv, VIEW_EXCEPTIONS)) && top_leaf(e->tree, true, false, &t)) {
		fprintf(f, "# - The most thrown exception is %s: %llu of the %llu thrown",
			functable_name(ft, t.func), (unsigned long long)t.w,
			(unsigned long long)t.total);
		if (t.site)
			fprintf(f, "; %llu of them by %s", (unsigned long long)t.site_w, t.site);
		fputs(".\n", f);
	}
	if ((e = view_tree_of(mv, VIEW_CONTENTION)) && top_leaf(e->tree, true, true, &t)) {
		fprintf(f,
			"# - The most contended lock is %s: %.1f ms waited, %.1f%% of all waiting",
			functable_name(ft, t.func), (double)t.w / NS_PER_MS, pct(t.w, t.total));
		if (t.site)
			fprintf(f, "; %.1f ms of it in %s", (double)t.site_w / NS_PER_MS, t.site);
		fputs(".\n", f);
	}
	int rc = fclose(f);
	if (!rc && len)
		fprintf(out, "# Findings:\n%s", text);
	free(text);
	return rc || ferror(out) ? pc_err_errno("cannot write the report") : 0;
}
