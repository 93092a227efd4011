/* runtime_report_gc: a process's GCs from its GC events, by the rules of TraceEvent's
 * TraceLoadedDotNetRuntime (see runtime_report.h), so that every figure is the one
 * PerfView's GCStats shows.  The events of a stream are in order per thread only: they are
 * kept (a few per GC) and put in time order before the analysis runs. */
#include "runtime_report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* GCSuspendEEBegin's reasons that suspend for a GC. */
enum { SUSPEND_FOR_GC = 1, SUSPEND_FOR_GC_PREP = 6 };
enum { GC_NONCONCURRENT = 0, GC_BACKGROUND = 1 };
enum { REASON_PM_FULL_GC = 12 };

struct gc_event {
	uint64_t ns;
	enum runtime_event_kind kind;
	uint64_t seq; /* file order, to keep ties stable */
	int64_t tid;
	union {
		struct rt_gc_start start;
		struct rt_gc_suspend suspend;
		struct rt_gc_heap_stats heap;
		struct rt_gc_per_heap per_heap;
	} u;
	double alloc[3]; /* an allocation tick: its bytes in its heap's place */
};

void rt_gc_event(struct rt_process *p, const struct nettrace_event *e, enum runtime_event_kind kind,
		 uint64_t ns, unsigned pointer_size)
{
	struct gc_event g = {.ns = ns, .kind = kind, .seq = p->ngcev, .tid = (int64_t)e->thread_id};
	int rc = 0;
	switch (kind) {
	case RT_GC_START:
		rc = rt_decode_gc_start(e, &g.u.start);
		break;
	case RT_GC_HEAP_STATS:
		/* TraceEvent counts the allocation ticks from one GCHeapStats to the next */
		rc = rt_decode_gc_heap_stats(e, &g.u.heap);
		break;
	case RT_GC_SUSPEND_EE_BEGIN:
		rc = rt_decode_gc_suspend(e, &g.u.suspend);
		break;
	case RT_GC_PER_HEAP_HISTORY:
		rc = rt_decode_gc_per_heap(e, pointer_size, &g.u.per_heap);
		break;
	default:
		break;
	}
	if (rc < 0)
		return;
	grow_array((void **)&p->gcev, &p->gcev_cap, p->ngcev + 1, sizeof(*p->gcev));
	p->gcev[p->ngcev++] = g;
}

void rt_gc_alloc(struct rt_process *p, uint64_t ns, unsigned heap, double bytes)
{
	struct gc_event g = {.ns = ns, .kind = RT_GC_ALLOCATION_TICK, .seq = p->ngcev};
	g.alloc[heap] = bytes;
	grow_array((void **)&p->gcev, &p->gcev_cap, p->ngcev + 1, sizeof(*p->gcev));
	p->gcev[p->ngcev++] = g;
}

static int cmp_gc_event(const void *a, const void *b)
{
	const struct gc_event *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_pause(const void *a, const void *b)
{
	const struct rt_gc *x = *(const struct rt_gc *const *)a,
			   *y = *(const struct rt_gc *const *)b;
	return x->pause_start_ns < y->pause_start_ns ? -1 : x->pause_start_ns > y->pause_start_ns;
}

/* The analysis's state between events (its m_stats), times in ns. */
struct gc_state {
	struct rt_process *p;
	int64_t tid_gc, tid_bgc, tid_other; /* the suspending threads; -1: none */
	uint64_t suspend_start;		    /* valid while a GC suspension is open */
	bool suspended;
	uint64_t suspend_end;
	bool has_suspend_end;
	uint32_t last_reason;
	size_t bgc;	       /* the background GC in progress, SIZE_MAX: none */
	uint64_t last_heap_ns; /* the last GCHeapStats (its "lastRestartEndTime") */
	double alloc[3];       /* the allocation ticks' bytes since then, per heap */
};

/* The GC in progress: the last one if not complete, else the background one. */
static struct rt_gc *current_gc(struct gc_state *s)
{
	struct rt_process *p = s->p;
	if (!p->ngcs)
		return NULL;
	if (!p->gcs[p->ngcs - 1].complete)
		return &p->gcs[p->ngcs - 1];
	return s->bgc != SIZE_MAX ? &p->gcs[s->bgc] : NULL;
}

static void add_concurrent_pause(struct gc_state *s, struct rt_gc *g, uint64_t restart)
{
	if (s->tid_bgc > 0)
		g->pause_ns += (double)(restart - s->suspend_start);
	else
		g->pause_ns = (double)(restart - g->pause_start_ns);
}

static void on_suspend(struct gc_state *s, const struct gc_event *ev)
{
	switch (ev->u.suspend.reason) {
	case SUSPEND_FOR_GC:
		s->tid_gc = ev->tid;
		break;
	case SUSPEND_FOR_GC_PREP:
		s->tid_bgc = ev->tid;
		break;
	default:
		s->tid_other = ev->tid;
		s->p->other_suspensions++;
		return;
	}
	s->last_reason = ev->u.suspend.reason;
	s->suspend_start = ev->ns;
	s->suspended = true;
}

static void on_suspend_end(struct gc_state *s, const struct gc_event *ev)
{
	if (ev->tid != s->tid_bgc && ev->tid != s->tid_gc)
		return;
	if (s->tid_bgc > 0 && s->bgc != SIZE_MAX)
		s->p->gcs[s->bgc].suspend_ns += (double)(ev->ns - s->suspend_start);
	s->suspend_end = ev->ns;
	s->has_suspend_end = true;
}

static void on_start(struct gc_state *s, const struct gc_event *ev)
{
	struct rt_process *p = s->p;
	const struct rt_gc_start *st = &ev->u.start;
	/* A GC starts inside a suspension; a second GCStart of the same GC is dropped. */
	if (!(s->tid_gc > 0 || s->tid_other > 0) ||
	    (p->ngcs && p->gcs[p->ngcs - 1].number == st->count))
		return;
	struct rt_gc *last = p->ngcs ? &p->gcs[p->ngcs - 1] : NULL;
	bool ephemeral_at_bgc =
	    last && last->type == GC_BACKGROUND && !last->complete && st->type == GC_NONCONCURRENT;
	grow_array((void **)&p->gcs, &p->gcs_cap, p->ngcs + 1, sizeof(*p->gcs));
	struct rt_gc *g = &p->gcs[p->ngcs];
	memset(g, 0, sizeof(*g));
	g->number = st->count;
	g->gen = st->depth;
	g->reason = st->reason;
	g->type = st->type;
	g->start_ns = ev->ns;
	if (ephemeral_at_bgc || st->reason == REASON_PM_FULL_GC) {
		g->pause_start_ns = ev->ns;
		if (st->reason == REASON_PM_FULL_GC) {
			struct rt_gc *cur = current_gc(s);
			if (cur)
				cur->complete = true;
		}
	} else {
		g->pause_start_ns = s->suspend_start;
		if (!s->has_suspend_end) {
			s->suspend_end = ev->ns;
			s->has_suspend_end = true;
		}
		g->suspend_ns = (double)s->suspend_end - (double)s->suspend_start;
	}
	p->ngcs++;
	if (g->type == GC_BACKGROUND) {
		s->bgc = p->ngcs - 1;
		g->pause_ns = g->suspend_ns;
	}
}

static void on_end(struct gc_state *s, const struct gc_event *ev)
{
	struct rt_gc *g = current_gc(s);
	if (g)
		g->duration_ns = (double)(ev->ns - g->start_ns);
}

static void on_heap_stats(struct gc_state *s, const struct gc_event *ev)
{
	struct rt_gc *g = current_gc(s);
	uint64_t last = s->last_heap_ns;
	double alloc[3];
	/* TraceEvent counts the allocation ticks from one GCHeapStats to the next */
	memcpy(alloc, s->alloc, sizeof(alloc));
	memset(s->alloc, 0, sizeof(s->alloc));
	s->last_heap_ns = ev->ns;
	if (!g)
		return;
	const struct rt_gc_heap_stats *h = &ev->u.heap;
	memcpy(g->alloc, alloc, sizeof(g->alloc));
	g->since_last_ns =
	    (double)(g->type == GC_BACKGROUND ? ev->ns : g->pause_start_ns) - (double)last;
	g->finalize_promoted = h->finalize_promoted;
	g->pinned_objects = h->pinned_objects;
	g->has_heap = true;
	memcpy(g->gen_after, h->gen_size, sizeof(g->gen_after));
	g->heap_after = h->total;
	g->promoted = 0;
	for (int i = 0; i < 5; i++)
		g->promoted += h->promoted[i];
	/* A background GC ends here. */
	if (g->type == GC_BACKGROUND && s->bgc != SIZE_MAX) {
		s->p->gcs[s->bgc].complete = true;
		s->bgc = SIZE_MAX;
	}
}

/* One heap's history, of the GC in progress (TraceEvent's GetLastGC). */
static void on_per_heap(struct gc_state *s, const struct gc_event *ev)
{
	struct rt_gc *g = current_gc(s);
	const struct rt_gc_per_heap *h = &ev->u.per_heap;
	if (!g)
		return;
	if (!g->nheaps || h->ngens < g->ngens)
		g->ngens = h->ngens;
	for (uint32_t gen = 0; gen < h->ngens; gen++) {
		g->gen_before[gen] += h->size_before[gen];
		g->gen_frag[gen] += h->frag_after[gen];
	}
	g->heap_gen0 = xrealloc(g->heap_gen0, 2 * (g->nheaps + 1) * sizeof(*g->heap_gen0));
	g->heap_gen0[2 * g->nheaps] = h->ngens ? h->obj_before[0] : 0;
	g->heap_gen0[2 * g->nheaps + 1] = h->ngens ? h->obj_after[0] : 0;
	g->nheaps++;
}

static void on_restart(struct gc_state *s, const struct gc_event *ev)
{
	if (ev->tid == s->tid_other)
		s->tid_other = -1;
	if (ev->tid != s->tid_bgc && ev->tid != s->tid_gc)
		return;
	struct rt_gc *g = current_gc(s);
	if (g && s->suspended) {
		if (g->type == GC_BACKGROUND) {
			add_concurrent_pause(s, g, ev->ns);
		} else if (g->duration_ns == 0) {
			add_concurrent_pause(s, g, ev->ns); /* no GCEnd yet: .NET 2.0's kind */
		} else {
			g->pause_ns = (double)(ev->ns - g->pause_start_ns);
			if (g->has_heap)
				g->complete = true;
		}
	}
	s->suspended = false;
	s->tid_bgc = s->tid_gc = -1;
}

/* A generation's size before GC k as TraceEvent estimates it without per-heap histories
 * (GetGenSizeBeforeMB): the sizes after the last GC before it with heap stats, gen0 at least
 * what the allocation ticks counted, the large and pinned object heaps at least their size
 * after k; nothing when only the first GC has heap stats (its search stops short of it). */
static double gen_before(const struct rt_process *p, size_t k, int gen)
{
	const struct rt_gc *g = &p->gcs[k];
	if (g->nheaps && (uint32_t)gen < g->ngens)
		return (double)g->gen_before[gen]; /* the heaps' own figures */
	double gen0 = gen == 0 ? g->alloc[0] : 0;
	if (k == 0)
		return gen0;
	size_t j = k - 1;
	while (j > 0 && !p->gcs[j].has_heap)
		j--;
	if (j == 0)
		return 0;
	double prev = (double)p->gcs[j].gen_after[gen];
	if (gen == 0)
		return prev > gen0 ? prev : gen0;
	if (gen >= 3 && g->has_heap && (double)g->gen_after[gen] > prev)
		return (double)g->gen_after[gen];
	return prev;
}

static uint64_t heap_before(const struct rt_process *p, size_t k)
{
	double sum = 0;
	for (int gen = 0; gen < 5; gen++)
		sum += gen_before(p, k, gen);
	/* sizes come from the trace: a sum past 2^64 (or NaN) is a broken file, shown as 0 */
	return sum >= 0 && sum < 18446744073709551616.0 ? (uint64_t)sum : 0;
}

/* What was allocated in gen0 since the GC before (GetUserAllocated): from the heaps'
 * histories, each heap's objects before less its objects after the GC before, where both
 * GCs have them (not for a background GC); else what the allocation ticks counted. */
static double gen0_alloc(const struct rt_process *p, size_t k)
{
	const struct rt_gc *g = &p->gcs[k], *prev = k ? &p->gcs[k - 1] : NULL;
	if (g->type == GC_BACKGROUND || !g->nheaps || !prev || !prev->nheaps)
		return g->alloc[0];
	double sum = 0;
	for (uint32_t h = 0; h < g->nheaps; h++)
		sum += (double)g->heap_gen0[2 * h] -
		       (h < prev->nheaps ? (double)prev->heap_gen0[2 * h + 1] : 0);
	return sum;
}

double rt_gc_frag_pct(const struct rt_gc *g, int gen)
{
	if (!g->nheaps || (uint32_t)gen >= g->ngens || gen > 3)
		return NAN;
	return 100.0 * (double)g->gen_frag[gen] / (double)g->gen_after[gen];
}

/* The columns TraceEvent computes when a GC ends (TraceGC.OnEnd), from the GCs around it. */
static void gc_figures(struct rt_process *p)
{
	for (size_t k = 0; k < p->ngcs; k++) {
		struct rt_gc *g = &p->gcs[k];
		if (!g->complete)
			continue;
		g->gen0_alloc = gen0_alloc(p, k);
		g->heap_before = g->heap_peak = heap_before(p, k);
		double total;
		if (g->type == GC_BACKGROUND) {
			/* the GCs that paused while it ran raise its peak */
			double end = (double)g->pause_start_ns + g->duration_ns;
			for (size_t i = k + 1;
			     i < p->ngcs && (double)p->gcs[i].pause_start_ns <= end; i++) {
				uint64_t b = heap_before(p, i);
				g->heap_peak = b > g->heap_peak ? b : g->heap_peak;
			}
			const struct rt_gc *prev = k ? &p->gcs[k - 1] : &p->gcs[0];
			double prev_end = (double)prev->start_ns + (k ? prev->duration_ns : 0);
			total = (double)g->start_ns + g->duration_ns - prev_end;
		} else {
			total = g->pause_ns + g->since_last_ns;
		}
		g->pause_pct = total > 0 ? 100.0 * g->pause_ns / total : 0;
	}
}

double rt_gc_alloc_rate(const struct rt_gc *g)
{
	const double mb = 1e6, ns_per_s = 1e9;
	return g->since_last_ns > 0 ? g->gen0_alloc / mb / (g->since_last_ns / ns_per_s) : 0;
}

void rt_build_gcs(struct rt_process *p)
{
	if (p->ngcev) /* qsort() takes no NULL array, not even an empty one */
		qsort(p->gcev, p->ngcev, sizeof(*p->gcev), cmp_gc_event);
	struct gc_state s = {.p = p,
			     .tid_gc = -1,
			     .tid_bgc = -1,
			     .tid_other = -1,
			     .bgc = SIZE_MAX,
			     .last_heap_ns = p->sync_ns};
	for (size_t i = 0; i < p->ngcev; i++) {
		const struct gc_event *ev = &p->gcev[i];
		switch (ev->kind) {
		case RT_GC_SUSPEND_EE_BEGIN:
			on_suspend(&s, ev);
			break;
		case RT_GC_SUSPEND_EE_END:
			on_suspend_end(&s, ev);
			break;
		case RT_GC_START:
			on_start(&s, ev);
			break;
		case RT_GC_END:
			on_end(&s, ev);
			break;
		case RT_GC_HEAP_STATS:
			on_heap_stats(&s, ev);
			break;
		case RT_GC_RESTART_EE_END:
			on_restart(&s, ev);
			break;
		case RT_GC_PER_HEAP_HISTORY:
			on_per_heap(&s, ev);
			break;
		case RT_GC_ALLOCATION_TICK:
			for (int h = 0; h < 3; h++)
				s.alloc[h] += ev->alloc[h];
			break;
		default:
			break;
		}
	}
	gc_figures(p);
	free(p->gcev);
	p->gcev = NULL;
	p->ngcev = p->gcev_cap = 0;
	p->by_pause = xmalloc((p->ngcs + 1) * sizeof(*p->by_pause));
	for (size_t k = 0; k < p->ngcs; k++)
		if (p->gcs[k].complete && p->gcs[k].pause_ns > 0)
			p->by_pause[p->nby_pause++] = &p->gcs[k];
	qsort(p->by_pause, p->nby_pause, sizeof(*p->by_pause), cmp_pause);
}
