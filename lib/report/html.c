/* html: see html.h.  The page is the assets around one JSON document:
 *
 *   {"title", "input", "version", "meta": {...}, "modules": [...],
 *    "frames": {"name": [...], "module": [...], "kind": [...]}, "kinds": [...],
 *    "views": [{"id", "name", "perfview", "what", "unit", "div", "cool",
 *               "parent": [...], "func": [...], "self": [...],     (preorder, root first)
 *               "leaves": [node...], "times": [[thread, "us", "leaves", [weight...]?], ...],
 *               "base": [...], "baseTotal", "baseName"}],          (-diff)
 *    "threads": [[pid, tid, name], ...], "span": us,
 *    "gcCols": [...], "gcs": [[...], ...], "jitCols": [...], "jits": [[...], ...],
 *    "findings": [...], "warnings": [...]}
 *
 * Times are microseconds from the first event ("t0", ns on the trace's clock), per thread as
 * the change of the difference from the event before (the first difference from 0), zigzag
 * LEB128 varints in base64; an event's node is its place in the view's "leaves" (the nodes
 * its events weigh on, the most frequent first), a LEB128 varuint in base64 (400k samples:
 * 1.4 MB, 4.4 as JSON numbers).  A
 * node's weight is its self; the page adds totals up the preorder. */
#include "html.h"
#include "html_assets.h"
#include "view_text.h"
#include "base/bytebuf.h"
#include "base/json.h"
#include "base/outfile.h"
#include "base/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1e6

struct hw {
	FILE *out;
	const struct html_job *j;
	const struct view *v;
	const struct functable *ft;
	int64_t *frame_of; /* function id -> index in "frames", -1 when not used */
	uint32_t *frames;  /* the functions written, in order */
	size_t nframes, frames_cap;
	const char **modules;
	size_t nmodules, modules_cap;
	uint32_t *module_of; /* per frame */
	uint32_t *kids;
	size_t kids_cap;
	uint64_t t0; /* the timeline's zero (ns), 0 without one */
};

static void str(struct hw *w, const char *s)
{
	json_put_string(w->out, s ? s : "", JSON_IN_SCRIPT);
}

/* "key": */
static void key(struct hw *w, const char *k)
{
	str(w, k);
	putc(':', w->out);
}

static uint32_t module_index(struct hw *w, const char *dso)
{
	static size_t last; /* names repeat in runs: try the last one first */
	if (last < w->nmodules && !strcmp(w->modules[last], dso))
		return (uint32_t)last;
	for (size_t i = 0; i < w->nmodules; i++)
		if (!strcmp(w->modules[i], dso))
			return (uint32_t)(last = i);
	grow_array((void **)&w->modules, &w->modules_cap, w->nmodules + 1, sizeof(*w->modules));
	w->modules[w->nmodules] = dso;
	return (uint32_t)(last = w->nmodules++);
}

/* Every function the tree uses gets its frame index. */
static void intern_tree(struct hw *w, const struct calltree *t)
{
	for (uint32_t i = 1; i < calltree_count(t); i++) {
		uint32_t f = calltree_node(t, i)->func;
		if (w->frame_of[f] >= 0)
			continue;
		w->frame_of[f] = (int64_t)w->nframes;
		grow_array((void **)&w->frames, &w->frames_cap, w->nframes + 1, sizeof(*w->frames));
		w->module_of = xrealloc(w->module_of, w->frames_cap * sizeof(*w->module_of));
		w->frames[w->nframes] = f;
		w->module_of[w->nframes++] = module_index(w, functable_dso(w->ft, f));
	}
}

/* The nodes of t in preorder, heaviest child first: order[k] is the node written k-th,
 * pos[node] its place (both calltree_count() entries, malloc'd). */
static void preorder(struct hw *w, const struct calltree *t, uint32_t **order, uint32_t **pos)
{
	size_t n = calltree_count(t), no = 0, ns = 0, stack_cap = 0;
	*order = xmalloc(n * sizeof(**order));
	*pos = xmalloc(n * sizeof(**pos));
	uint32_t *stack = NULL;
	grow_array((void **)&stack, &stack_cap, 1, sizeof(*stack));
	stack[ns++] = CALLTREE_ROOT;
	while (ns) {
		uint32_t i = stack[--ns];
		(*pos)[i] = (uint32_t)no;
		(*order)[no++] = i;
		size_t nk = calltree_children(t, i, CALLTREE_BY_TOTAL, &w->kids, &w->kids_cap);
		grow_array((void **)&stack, &stack_cap, ns + nk, sizeof(*stack));
		for (size_t k = nk;
		     k-- > 0;) /* pushed last to first: the heaviest comes out first */
			stack[ns++] = w->kids[k];
	}
	free(stack);
}

static int cmp_time(const void *a, const void *b)
{
	const struct html_time *x = *(const struct html_time *const *)a,
			       *y = *(const struct html_time *const *)b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

struct thread_list {
	int32_t *tid; /* sorted */
	size_t n;
};

static size_t thread_index(const struct thread_list *tl, int32_t tid)
{
	return LOWER_BOUND(tl->n, i, tl->tid[i] < tid);
}

/* Nodes by their count of events (arg), most first. */
static int cmp_leaf(const void *a, const void *b, void *arg)
{
	const uint32_t *count = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (count[x] != count[y])
		return count[x] > count[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* "leaves" and "times" of view vi: the nodes its events weigh on, most events first, and
 * its events per thread in time order, each node as its place in "leaves" (the frequent
 * ones take one or two bytes; preorder places take three in a large tree).  nn: the tree's
 * nodes. */
static void write_times(struct hw *w, uint32_t vi, const struct event_tree *e, const uint32_t *pos,
			size_t nn, const struct thread_list *tl, uint64_t t0)
{
	const struct html_times *ts = w->j->times;
	const struct html_time **ev = xmalloc((ts->n ? ts->n : 1) * sizeof(*ev));
	size_t n = 0;
	for (size_t i = 0; i < ts->n; i++)
		if (ts->ev[i].view == vi)
			ev[n++] = &ts->ev[i];
	qsort(ev, n, sizeof(*ev), cmp_time);
	uint32_t *count = xcalloc(nn, sizeof(*count)), *leaves = xmalloc(nn * sizeof(*leaves));
	uint32_t *rank = xmalloc(nn * sizeof(*rank));
	size_t nleaves = 0;
	for (size_t i = 0; i < n; i++)
		if (!count[pos[view_node(w->v, e, ev[i]->node)]]++)
			leaves[nleaves++] = pos[view_node(w->v, e, ev[i]->node)];
	qsort_r(leaves, nleaves, sizeof(*leaves), cmp_leaf, count);
	fputs(",\n\"leaves\":[", w->out);
	for (size_t k = 0; k < nleaves; k++) {
		rank[leaves[k]] = (uint32_t)k;
		fprintf(w->out, "%s%u", k ? "," : "", leaves[k]);
	}
	putc(']', w->out);
	fputs(",\"times\":[", w->out);
	for (size_t i = 0, first = 1; i < n;) {
		size_t end = i;
		bool weighted = false;
		while (end < n && ev[end]->tid == ev[i]->tid)
			weighted |= ev[end++]->weight != 1;
		fprintf(w->out, "%s\n[%zu,", first ? "" : ",", thread_index(tl, ev[i]->tid));
		first = 0;
		/* times as zigzag varints of the change of their difference (a thread sampled at
		 * a steady rate has differences alike: one byte each), nodes as varuints, each
		 * in base64 */
		struct bytebuf b = {0};
		uint64_t prev = 0, prev_gap = 0;
		for (size_t k = i; k < end; k++) {
			uint64_t us = (ev[k]->time_ns - t0) / 1000;
			bytebuf_varint(&b, (int64_t)(us - prev) - (int64_t)prev_gap);
			prev_gap = us - prev;
			prev = us;
		}
		json_put_base64(w->out, b.data, b.len);
		putc(',', w->out);
		b.len = 0;
		for (size_t k = i; k < end; k++)
			bytebuf_varuint(&b, rank[pos[view_node(w->v, e, ev[k]->node)]]);
		json_put_base64(w->out, b.data, b.len);
		bytebuf_free(&b);
		if (weighted) {
			fputs(",[", w->out);
			for (size_t k = i; k < end; k++)
				fprintf(w->out, "%s%llu", k > i ? "," : "",
					(unsigned long long)ev[k]->weight);
			putc(']', w->out);
		}
		putc(']', w->out);
		i = end;
	}
	putc(']', w->out);
	free(ev);
	free(count);
	free(leaves);
	free(rank);
}

/* One view: its names, its tree, its events' times (e: the view's tree, NULL for the
 * blocked time; vi: its index in the times). */
static void write_view(struct hw *w, const char *id, const struct calltree *t, enum view_kind kind,
		       uint32_t vi, const struct event_tree *e, const struct thread_list *tl,
		       uint64_t t0, bool first)
{
	const struct view_unit *u = view_unit(kind);
	fputs(first ? "\n{" : ",\n{", w->out);
	key(w, "id");
	str(w, id);
	putc(',', w->out);
	key(w, "kind");
	fprintf(w->out, "%d,", (int)kind);
	key(w, "perfview");
	str(w, u->perfview);
	putc(',', w->out);
	key(w, "what");
	str(w, u->what);
	putc(',', w->out);
	key(w, "unit");
	str(w, u->text_unit);
	fprintf(w->out, ",\"div\":%llu,\"cool\":%s", (unsigned long long)u->text_div,
		u->cool ? "true" : "false");
	uint32_t *order, *pos;
	preorder(w, t, &order, &pos);
	size_t n = calltree_count(t);
	fputs(",\n\"parent\":[-1", w->out);
	for (size_t k = 1; k < n; k++)
		fprintf(w->out, ",%u", pos[calltree_node(t, order[k])->parent]);
	fputs("],\n\"func\":[-1", w->out);
	for (size_t k = 1; k < n; k++)
		fprintf(w->out, ",%lld", (long long)w->frame_of[calltree_node(t, order[k])->func]);
	fputs("],\n\"self\":[", w->out);
	for (size_t k = 0; k < n; k++)
		fprintf(w->out, "%s%llu", k ? "," : "",
			(unsigned long long)calltree_node(t, order[k])->self);
	putc(']', w->out);
	if (w->j->base_totals) {
		fputs(",\n\"base\":[", w->out);
		for (size_t k = 0; k < n; k++)
			fprintf(w->out, "%s%llu", k ? "," : "",
				(unsigned long long)w->j->base_totals[order[k]]);
		fprintf(w->out,
			"],\"baseTotal\":%llu,\"baseName\":", (unsigned long long)w->j->base_total);
		str(w, w->j->base_name);
	}
	if (w->j->times && tl)
		write_times(w, vi, e, pos, n, tl, t0);
	putc('}', w->out);
	free(order);
	free(pos);
}

/* Which event names a thread best: a sample's (perf names the thread there), a .NET event's
 * (its process only), blocked time (no name). */
static int rank(const struct view *v, const struct html_time *t)
{
	if (t->view == HTML_TIMES_BLOCKED)
		return 2;
	return v->events[t->view].kind == VIEW_SAMPLES ? 0 : 1;
}

/* The threads of the timeline, by tid: [pid, tid, name], the name the process frame of one of
 * its events (blocked time knows the thread only). */
static void write_threads(struct hw *w, struct thread_list *tl, uint64_t *t0, uint64_t *t1)
{
	const struct html_times *ts = w->j->times;
	int32_t *tid = xmalloc((ts->n ? ts->n : 1) * sizeof(*tid));
	*t0 = UINT64_MAX;
	*t1 = 0;
	for (size_t i = 0; i < ts->n; i++) {
		tid[i] = ts->ev[i].tid;
		*t0 = ts->ev[i].time_ns < *t0 ? ts->ev[i].time_ns : *t0;
		*t1 = ts->ev[i].time_ns > *t1 ? ts->ev[i].time_ns : *t1;
	}
	qsort(tid, ts->n, sizeof(*tid), cmp_i32);
	size_t n = 0;
	for (size_t i = 0; i < ts->n; i++)
		if (!n || tid[n - 1] != tid[i])
			tid[n++] = tid[i];
	tl->tid = tid;
	tl->n = n;
	const struct html_time **one = xcalloc(n ? n : 1, sizeof(*one));
	for (size_t i = 0; i < ts->n; i++) {
		const struct html_time **o = &one[thread_index(tl, ts->ev[i].tid)];
		if (!*o || rank(w->v, &ts->ev[i]) < rank(w->v, *o))
			*o = &ts->ev[i];
	}
	fputs(",\n\"threads\":[", w->out);
	for (size_t i = 0; i < n; i++) {
		const struct html_time *o = one[i];
		const char *name = NULL;
		if (o->view != HTML_TIMES_BLOCKED) {
			const struct event_tree *e = &w->v->events[o->view];
			uint32_t nd = view_node(w->v, e, o->node);
			while (nd != CALLTREE_ROOT && calltree_node(e->tree, nd)->depth > 1)
				nd = calltree_node(e->tree, nd)->parent;
			if (nd != CALLTREE_ROOT)
				name = functable_name(w->ft, calltree_node(e->tree, nd)->func);
		}
		fprintf(w->out, "%s[%d,%d,", i ? "," : "", o->pid, o->tid);
		str(w, name);
		putc(']', w->out);
	}
	putc(']', w->out);
	free(one);
}

static void write_frames(struct hw *w)
{
	fputs(",\n\"kinds\":[", w->out);
	for (int k = 0; k < FRAME_KINDS; k++) {
		if (k)
			putc(',', w->out);
		str(w, frame_kind_name((enum frame_kind)k));
	}
	fputs("],\n\"modules\":[", w->out);
	for (size_t i = 0; i < w->nmodules; i++) {
		if (i)
			putc(',', w->out);
		str(w, w->modules[i]);
	}
	fputs("],\n\"frames\":{\"name\":[", w->out);
	for (size_t i = 0; i < w->nframes; i++) {
		fputs(i ? ",\n" : "", w->out);
		str(w, functable_name(w->ft, w->frames[i]));
	}
	fputs("],\n\"module\":[", w->out);
	for (size_t i = 0; i < w->nframes; i++)
		fprintf(w->out, "%s%u", i ? "," : "", w->module_of[i]);
	fputs("],\n\"kind\":[", w->out);
	for (size_t i = 0; i < w->nframes; i++)
		fprintf(w->out, "%s%d", i ? "," : "", (int)functable_kind(w->ft, w->frames[i]));
	fputs("]}", w->out);
}

/* The recording's facts, and what was and was not recorded. */
static void write_meta(struct hw *w)
{
	const struct view *v = w->v;
	const struct view_recording *r = &v->rec;
	fputs(",\n\"meta\":{", w->out);
	fprintf(w->out, "\"samples\":%llu,\"skipped\":%llu,\"firstNs\":%llu,\"lastNs\":%llu,",
		(unsigned long long)r->samples, (unsigned long long)v->skipped,
		(unsigned long long)r->first_ns, (unsigned long long)r->last_ns);
	fprintf(w->out, "\"cpusSampled\":%zu,\"seconds\":%.6f,\"cpus\":%ld,\"hz\":%ld,",
		r->cpus_sampled, r->logged_seconds, r->logged_cpus, r->logged_hz);
	fprintf(w->out, "\"lost\":%lld,\"wallStart\":%lld,\"hasLog\":%s,", r->lost,
		(long long)r->wall_start, r->has_log ? "true" : "false");
	const struct offcpu_stats *os = offcpu_stats(v->oc);
	fprintf(w->out,
		"\"switches\":%llu,\"openAtEnd\":%llu,\"externalSamples\":%llu,\"runtime\":%s,",
		(unsigned long long)os->switches, (unsigned long long)os->open_at_end,
		(unsigned long long)v->external_samples,
		v->rt && runtime_report_processes(v->rt) ? "true" : "false");
	key(w, "events");
	putc('[', w->out);
	for (size_t i = 0; i < v->nevents; i++) {
		fprintf(w->out, "%s[", i ? "," : "");
		str(w, v->events[i].name);
		fprintf(w->out, ",%llu,%llu]", (unsigned long long)v->events[i].samples,
			(unsigned long long)calltree_total(v->events[i].tree));
	}
	fputs("]}", w->out);
}

/* The per-GC table: PerfView's GCStats columns ("GC Events by Time", MB of 10^6 bytes as it
 * counts them) from runtime_report's analysis, then what the page needs: the CPU samples in
 * the pause and the pause's start on the timeline's axis.  Gen0 Alloc MB, Peak MB and the
 * fragmentation come from the heaps' histories (GCPerHeapHistory) where the trace has them,
 * else TraceEvent's estimates from the allocation ticks (fragmentation: unknown). */
static void write_runtime(struct hw *w)
{
	struct rt_process_info p;
	fputs(",\n\"gcCols\":[\"pid\",\"GC Index\",\"Gen\",\"Type\",\"Trigger Reason\","
	      "\"Start MSec\",\"Pause Start\",\"Suspend MSec\",\"Pause MSec\",\"% Pause Time\","
	      "\"Duration MSec\",\"Gen0 Alloc MB\",\"Gen0 Alloc Rate MB/sec\",\"Peak MB\","
	      "\"After MB\",\"Ratio Peak/After\",\"Promoted MB\",\"Gen0 MB\",\"Gen1 MB\","
	      "\"Gen2 MB\",\"LOH MB\",\"POH MB\",\"Gen0 Frag %\",\"Gen1 Frag %\",\"Gen2 Frag %\","
	      "\"LOH Frag %\",\"Finalizable Surv MB\",\"Pinned Obj\",\"CPU samples in pause\","
	      "\"pause start us\"]",
	      w->out);
	fputs(",\n\"gcs\":[", w->out);
	uint64_t t0 = w->t0;
	bool first = true;
	const double mb = 1e6;
	for (size_t i = 0; w->v->rt && runtime_report_process(w->v->rt, i, &p); i++) {
		if (w->j->pid >= 0 && p.host_pid != w->j->pid)
			continue;
		for (size_t k = 0; k < p.ngcs; k++) {
			const struct rt_gc *g = &p.gcs[k];
			if (!g->complete)
				continue;
			fprintf(w->out, "%s\n[%ld,%u,%u,", first ? "" : ",", p.host_pid, g->number,
				g->gen);
			first = false;
			str(w, rt_gc_type_name(g->type));
			putc(',', w->out);
			str(w, rt_gc_reason_name(g->reason));
			fprintf(w->out,
				",%.3f,%.3f,%.3f,%.3f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f",
				rt_relative_ms(p.sync_ns, g->start_ns),
				rt_relative_ms(p.sync_ns, g->pause_start_ns),
				g->suspend_ns / NS_PER_MS, g->pause_ns / NS_PER_MS, g->pause_pct,
				g->duration_ns / NS_PER_MS, g->gen0_alloc / mb, rt_gc_alloc_rate(g),
				(double)g->heap_peak / mb, (double)g->heap_after / mb,
				g->heap_after ? (double)g->heap_peak / (double)g->heap_after : 0,
				(double)g->promoted / mb);
			for (int gen = 0; gen < 5; gen++)
				fprintf(w->out, ",%.3f", (double)g->gen_after[gen] / mb);
			for (int gen = 0; gen < 4; gen++) {
				double f = rt_gc_frag_pct(g, gen); /* null: not known */
				fprintf(w->out, isfinite(f) ? ",%.2f" : ",null", f);
			}
			/* the pause on the timeline's axis (microseconds from its first event) */
			fprintf(w->out, ",%.3f,%u,%llu,%.0f]", (double)g->finalize_promoted / mb,
				g->pinned_objects, (unsigned long long)g->samples,
				t0 && g->pause_start_ns >= t0
				    ? (double)(g->pause_start_ns - t0) / 1000.0
				    : -1.0);
		}
	}
	fputs("],\n\"jitCols\":[\"pid\",\"Method\",\"Start MSec\",\"JIT MSec\",\"IL Size\","
	      "\"Tier\",\"Thread\"],\n\"jits\":[",
	      w->out);
	first = true;
	for (size_t i = 0; w->v->rt && runtime_report_process(w->v->rt, i, &p); i++) {
		if (w->j->pid >= 0 && p.host_pid != w->j->pid)
			continue;
		size_t n;
		uint64_t total;
		const struct rt_jit **v = rt_jits_ended(p.jits, p.njits, &n, &total);
		for (size_t k = 0; k < n; k++) {
			const struct rt_jit *m = v[k];
			fprintf(w->out, "%s\n[%ld,", first ? "" : ",", p.host_pid);
			first = false;
			str(w, m->name);
			fprintf(w->out, ",%.3f,%.3f,%u,", rt_relative_ms(p.sync_ns, m->start_ns),
				(double)rt_jit_ns(m) / NS_PER_MS, m->il_size);
			str(w, rt_method_tier_name(m->flags));
			fprintf(w->out, ",%llu]", (unsigned long long)m->tid);
		}
		free(v);
	}
	putc(']', w->out);
}

/* The findings sentences (view_text_findings()'s, without their "# - "), the warnings. */
static void write_findings(struct hw *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!w->j->diff_tree)
		view_text_findings(f, w->v, w->j->pid);
	fclose(f);
	fputs(",\n\"findings\":[", w->out);
	bool first = true;
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!str_startswith(line, "# - "))
			continue;
		if (!first)
			putc(',', w->out);
		first = false;
		str(w, line + 4);
	}
	free(text);
	fputs("],\n\"warnings\":[", w->out);
	for (size_t i = 0; i < w->v->nwarnings; i++) {
		if (i)
			putc(',', w->out);
		str(w, w->v->warnings[i]);
	}
	putc(']', w->out);
}

/* The "views" array and what the timelines need. */
static void write_views(struct hw *w)
{
	const struct view *v = w->v;
	struct thread_list tl = {0};
	uint64_t t0 = 0, t1 = 0;
	bool timed = w->j->times && w->j->times->n && !w->j->diff_tree;
	if (timed) {
		write_threads(w, &tl, &t0, &t1);
		w->t0 = t0;
		fprintf(w->out, ",\n\"t0\":%llu,\"span\":%llu", (unsigned long long)t0,
			(unsigned long long)((t1 - t0) / 1000 + 1));
	}
	fputs(",\n\"views\":[", w->out);
	if (w->j->diff_tree) {
		write_view(w, w->j->diff_event, w->j->diff_tree, w->j->diff_kind, 0, NULL, NULL, 0,
			   true);
	} else {
		/* PerfView's order: CPU (the default event first), blocked time, then the .NET
		 * views */
		const struct event_tree *cpu = view_choose_event((struct view *)v, NULL, false);
		bool first = true;
		for (int kind = VIEW_SAMPLES; kind <= VIEW_CONTENTION; kind++) {
			if (kind == VIEW_BLOCKED && calltree_total(v->offcpu_tree)) {
				/* its own id: the switches are a view of their own too */
				write_view(w, "blocked", v->offcpu_tree, VIEW_BLOCKED,
					   HTML_TIMES_BLOCKED, NULL, timed ? &tl : NULL, t0, first);
				first = false;
			}
			for (size_t k = 0; k <= v->nevents; k++) {
				/* k == 0: the default CPU event; then the others in their order */
				const struct event_tree *e = k ? &v->events[k - 1] : cpu;
				if (!e || (int)e->kind != kind || !calltree_total(e->tree) ||
				    (k && e == cpu))
					continue;
				write_view(w, e->name, e->tree, e->kind, (uint32_t)(e - v->events),
					   e, timed ? &tl : NULL, t0, first);
				first = false;
			}
		}
	}
	putc(']', w->out);
	free(tl.tid);
}

static void write_data(struct hw *w)
{
	const struct view *v = w->v;
	size_t nf = functable_count(w->ft);
	w->frame_of = xmalloc((nf ? nf : 1) * sizeof(*w->frame_of));
	memset(w->frame_of, 0xff, (nf ? nf : 1) * sizeof(*w->frame_of));
	if (w->j->diff_tree) {
		intern_tree(w, w->j->diff_tree);
	} else {
		for (size_t i = 0; i < v->nevents; i++)
			if (calltree_total(v->events[i].tree))
				intern_tree(w, v->events[i].tree);
		if (calltree_total(v->offcpu_tree))
			intern_tree(w, v->offcpu_tree);
	}
	fputs("{", w->out);
	key(w, "title");
	char *title = w->j->title
			  ? xstrdup(w->j->title)
			  : xasprintf("%s%s%s", w->j->input, w->j->base_name ? " against " : "",
				      w->j->base_name ? w->j->base_name : "");
	str(w, title);
	free(title);
	putc(',', w->out);
	key(w, "input");
	str(w, w->j->input);
	fputs(",\"version\":", w->out);
	str(w, PC_VERSION);
	write_meta(w);
	write_frames(w);
	write_views(w);
	if (!w->j->diff_tree)
		write_runtime(w);
	write_findings(w);
	fputs("}\n", w->out);
	free(w->frame_of);
	free(w->frames);
	free(w->modules);
	free(w->module_of);
	free(w->kids);
}

static int write_page(FILE *out, const void *arg)
{
	const struct html_job *j = arg;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>perfcollect-c report</title>\n<style>\n",
	      out);
	fputs(html_asset_css, out);
	fputs("</style></head>\n<body>\n<script id=\"pc-data\" type=\"application/json\">", out);
	struct hw w = {.out = out, .j = j, .v = j->v, .ft = j->v->ft};
	write_data(&w);
	fputs("</script>\n<script>\n", out);
	fputs(html_asset_js, out);
	fputs("</script>\n</body></html>\n", out);
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}

int html_write(const struct html_job *j)
{
	return outfile_write(j->path, write_page, j);
}
