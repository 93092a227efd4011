/* runtime_report: reading NetTrace files into the model (runtime_report_int.h); the
 * printing is in runtime_report_print.c. */
#include "runtime_report_int.h"
#include "base/hash.h"
#include "base/search.h"
#include "nettrace/nettrace_read.h"
#include "nettrace/runtime_events.h"

#include <stdlib.h>
#include <string.h>

/* ---- tallies ----------------------------------------------------------------------------------
 */

void rt_tally_add(struct rt_tally *t, const char *key, uint64_t count, double sum)
{
	bool found;
	t->index.ctx = &t->e;
	size_t *slot = rt_tally_index_insert(&t->index, key, hash_str(key), &found);
	if (found) {
		t->e[*slot - 1].count += count;
		t->e[*slot - 1].sum += sum;
		return;
	}
	grow_array((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e));
	t->e[t->n] = (struct rt_tally_entry){xstrdup(key), count, sum};
	*slot = ++t->n;
}

void rt_tally_release(struct rt_tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].key);
	free(t->e);
	rt_tally_index_free(&t->index);
	memset(t, 0, sizeof(*t));
}

static int cmp_tally(const void *a, const void *b)
{
	const struct rt_tally_entry *x = *(const struct rt_tally_entry *const *)a;
	const struct rt_tally_entry *y = *(const struct rt_tally_entry *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(x->key, y->key);
}

struct rt_tally_entry **rt_tally_sorted(const struct rt_tally *t)
{
	struct rt_tally_entry **v = xmalloc((t->n + 1) * sizeof(*v));
	for (size_t i = 0; i < t->n; i++)
		v[i] = &t->e[i];
	qsort(v, t->n, sizeof(*v), cmp_tally);
	return v;
}

/* ---- code ranges ------------------------------------------------------------------------------
 */

static int cmp_code(const void *a, const void *b)
{
	const struct rt_code *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

const char *rt_process_method_at(const struct rt_process *p, uint64_t ip)
{
	/* one past the last range starting at or before ip */
	size_t lo = LOWER_BOUND(p->ncode, i, p->code[i].start <= ip);
	if (!lo)
		return "";
	const struct rt_code *c = &p->code[lo - 1];
	return ip - c->start < c->size ? c->name : "";
}

static void add_code(struct rt_process *p, const struct rt_method *m)
{
	if (!m->start || !m->size)
		return;
	grow_array((void **)&p->code, &p->code_cap, p->ncode + 1, sizeof(*p->code));
	p->code[p->ncode++] = (struct rt_code){m->start, m->size, rt_method_display_name(m)};
}

/* ---- reading -----------------------------------------------------------------------------------
 */

/* The GC events, sorted by time before they are paired: the runtime writes each thread's
 * events in order, not the threads' in order. */
struct gc_event {
	uint64_t ns;
	enum runtime_event_kind kind;
	uint64_t seq; /* file order, to keep ties stable */
	union {
		struct rt_gc_start start;
		struct rt_gc_end end;
		struct rt_gc_heap_stats heap;
	} u;
};

/* thread id -> index + 1 of its open JIT (0: none). */
struct thread_slot {
	uint64_t tid;
	size_t idx;
	bool used;
};
#define HTAB_NAME	    thread_slots
#define HTAB_ENTRY	    struct thread_slot
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->used)
#define HTAB_HASH(t, e)	    hash_mix((e)->tid)
#define HTAB_MATCH(t, e, k) ((e)->tid == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

static size_t *slot(struct thread_slots *m, uint64_t tid)
{
	bool found;
	struct thread_slot *e = thread_slots_insert(m, tid, hash_mix(tid), &found);
	if (!found)
		*e = (struct thread_slot){.tid = tid, .used = true};
	return &e->idx;
}

struct reading {
	struct rt_process *p;
	const struct nettrace_trace *t;
	struct gc_event *gcev;
	size_t ngcev, gcev_cap;
	struct thread_slots jits; /* each thread's open JIT */
};

static void reading_release(struct reading *rd)
{
	free(rd->gcev);
	thread_slots_free(&rd->jits);
}

static void keep_frames(const struct nettrace_event *e, uint64_t *ips, size_t *n)
{
	*n = e->stack_depth < RT_FRAMES ? e->stack_depth : RT_FRAMES;
	if (*n)
		memcpy(ips, e->stack, *n * sizeof(*ips));
}

static void on_gc_event(struct reading *rd, const struct nettrace_event *e,
			enum runtime_event_kind kind, uint64_t ns)
{
	struct gc_event g = {.ns = ns, .kind = kind, .seq = rd->ngcev};
	int rc = 0;
	switch (kind) {
	case RT_GC_START:
		rc = rt_decode_gc_start(e, &g.u.start);
		break;
	case RT_GC_END:
		rc = rt_decode_gc_end(e, &g.u.end);
		break;
	case RT_GC_HEAP_STATS:
		rc = rt_decode_gc_heap_stats(e, &g.u.heap);
		break;
	default:
		break;
	}
	if (rc < 0)
		return;
	grow_array((void **)&rd->gcev, &rd->gcev_cap, rd->ngcev + 1, sizeof(*rd->gcev));
	rd->gcev[rd->ngcev++] = g;
}

static void on_event(struct reading *rd, const struct nettrace_event *e)
{
	struct rt_process *p = rd->p;
	enum runtime_event_kind kind = runtime_event_kind(e->meta);
	uint64_t ns = nettrace_ticks_to_ns(rd->t, e->timestamp);
	unsigned ptr = rd->t->pointer_size;
	switch (kind) {
	case RT_GC_START:
	case RT_GC_END:
	case RT_GC_HEAP_STATS:
	case RT_GC_SUSPEND_EE_BEGIN:
	case RT_GC_RESTART_EE_END:
		on_gc_event(rd, e, kind, ns);
		break;
	case RT_GC_ALLOCATION_TICK: {
		struct rt_alloc_tick t;
		if (rt_decode_alloc_tick(e, ptr, &t) == 0) {
			rt_tally_add(&p->allocs, *t.type_name ? t.type_name : "(type not given)", 1,
				     (double)t.amount);
			p->alloc_ticks++;
			rt_alloc_tick_release(&t);
		}
		break;
	}
	case RT_EXCEPTION_THROWN: {
		struct rt_exception x;
		if (rt_decode_exception(e, ptr, &x) < 0)
			break;
		grow_array((void **)&p->throws, &p->throws_cap, p->nthrows + 1, sizeof(*p->throws));
		struct rt_throw *t = &p->throws[p->nthrows++];
		t->type = *x.type ? xstrdup(x.type) : xstrdup("(type not given)");
		t->eip = x.eip;
		keep_frames(e, t->ips, &t->n);
		rt_exception_release(&x);
		break;
	}
	case RT_CONTENTION_START: {
		struct rt_contention c;
		if (rt_decode_contention(e, &c) < 0)
			break;
		grow_array((void **)&p->waits, &p->waits_cap, p->nwaits + 1, sizeof(*p->waits));
		struct rt_wait *w = &p->waits[p->nwaits++];
		memset(w, 0, sizeof(*w));
		w->tid = e->thread_id;
		w->start_ns = ns;
		keep_frames(e, w->ips, &w->n);
		break;
	}
	case RT_CONTENTION_STOP: {
		struct rt_contention c;
		if (rt_decode_contention(e, &c) < 0)
			break;
		/* The thread's open wait: its events are in order in the file. */
		for (size_t i = p->nwaits; i-- > 0;) {
			struct rt_wait *w = &p->waits[i];
			if (w->tid != e->thread_id || w->ended)
				continue;
			w->ended = true;
			w->wait_ns = c.has_duration
					 ? c.duration_ns
					 : (double)(ns > w->start_ns ? ns - w->start_ns : 0);
			break;
		}
		break;
	}
	case RT_METHOD_JITTING_STARTED: {
		struct rt_method m;
		if (rt_decode_method(e, &m) < 0)
			break;
		grow_array((void **)&p->jits, &p->jits_cap, p->njits + 1, sizeof(*p->jits));
		*slot(&rd->jits, e->thread_id) = p->njits + 1;
		p->jits[p->njits++] = (struct rt_jit){.method_id = m.method_id,
						      .tid = e->thread_id,
						      .start_ns = ns,
						      .il_size = m.il_size,
						      .name = rt_method_display_name(&m)};
		rt_method_release(&m);
		break;
	}
	case RT_METHOD_LOAD_VERBOSE:
	case RT_METHOD_RUNDOWN_VERBOSE: {
		struct rt_method m;
		if (rt_decode_method(e, &m) < 0)
			break;
		add_code(p, &m);
		/* The load that ends the thread's open JIT of this method (ReadyToRun code
		 * loads without one). */
		size_t *open =
		    kind == RT_METHOD_LOAD_VERBOSE ? slot(&rd->jits, e->thread_id) : NULL;
		if (open && *open && p->jits[*open - 1].method_id == m.method_id) {
			struct rt_jit *j = &p->jits[*open - 1];
			j->end_ns = ns > j->start_ns ? ns : j->start_ns;
			j->flags = m.flags;
			*open = 0;
		}
		rt_method_release(&m);
		break;
	}
	default:
		break;
	}
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
	return x->pause_start < y->pause_start ? -1 : x->pause_start > y->pause_start;
}

/* Pairs the GC events in time order: a GC runs inside the suspension around its GCStart
 * (SuspendEEBegin .. RestartEEEnd: the pause); its heap size is the GCHeapStats after its
 * GCEnd. */
static void build_gcs(struct reading *rd)
{
	struct rt_process *p = rd->p;
	if (rd->ngcev) /* qsort() takes no NULL array, not even an empty one */
		qsort(rd->gcev, rd->ngcev, sizeof(*rd->gcev), cmp_gc_event);
	uint64_t suspended_at = 0;
	size_t pause_first = SIZE_MAX; /* the first GC of the open suspension */
	size_t last_ended = SIZE_MAX;
	for (size_t i = 0; i < rd->ngcev; i++) {
		const struct gc_event *g = &rd->gcev[i];
		switch (g->kind) {
		case RT_GC_SUSPEND_EE_BEGIN:
			suspended_at = g->ns;
			pause_first = p->ngcs;
			break;
		case RT_GC_START: {
			grow_array((void **)&p->gcs, &p->gcs_cap, p->ngcs + 1, sizeof(*p->gcs));
			struct rt_gc *gc = &p->gcs[p->ngcs++];
			memset(gc, 0, sizeof(*gc));
			gc->number = g->u.start.count;
			gc->gen = g->u.start.depth;
			gc->reason = g->u.start.reason;
			gc->type = g->u.start.type;
			gc->start_ns = g->ns;
			gc->pause_start = suspended_at;
			break;
		}
		case RT_GC_END:
			for (size_t k = p->ngcs; k-- > 0;)
				if (p->gcs[k].number == g->u.end.count && !p->gcs[k].end_ns) {
					p->gcs[k].end_ns = g->ns;
					last_ended = k;
					break;
				}
			break;
		case RT_GC_HEAP_STATS:
			if (last_ended != SIZE_MAX && !p->gcs[last_ended].has_heap) {
				p->gcs[last_ended].heap_after = g->u.heap.total;
				p->gcs[last_ended].has_heap = true;
			}
			break;
		case RT_GC_RESTART_EE_END:
			if (!suspended_at)
				break;
			if (pause_first == p->ngcs)
				p->other_pauses++;
			for (size_t k = pause_first; k < p->ngcs; k++)
				if (p->gcs[k].pause_start == suspended_at)
					p->gcs[k].pause_end = g->ns;
			suspended_at = 0;
			break;
		default:
			break;
		}
	}
	/* A suspension still open at the end has no known length. */
	for (size_t k = 0; k < p->ngcs; k++)
		if (!p->gcs[k].pause_end)
			p->gcs[k].pause_start = 0;
	p->by_pause = xmalloc((p->ngcs + 1) * sizeof(*p->by_pause));
	for (size_t k = 0; k < p->ngcs; k++)
		if (p->gcs[k].pause_start)
			p->by_pause[p->nby_pause++] = &p->gcs[k];
	qsort(p->by_pause, p->nby_pause, sizeof(*p->by_pause), cmp_pause);
}

long runtime_report_pid_of_name(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!str_startswith(base, "dotnet-"))
		return -1;
	char *end;
	long pid = strtol(base + 7, &end, 10);
	if (end == base + 7 || pid <= 0 || (*end != '.' && *end != '-'))
		return -1;
	return pid;
}

int runtime_report_add(struct runtime_report *rr, FILE *f, const char *name, long host_pid,
		       char **warning)
{
	*warning = NULL;
	struct nettrace_reader *r = nettrace_reader_new_file(f, name);
	struct nettrace_item it;
	int rc;
	struct rt_process proc;
	memset(&proc, 0, sizeof(proc));
	struct reading rd = {.p = &proc};
	while ((rc = nettrace_reader_next(r, &it)) > 0) {
		if (!rd.t)
			rd.t = nettrace_reader_trace(r);
		if (it.kind == NETTRACE_ITEM_EVENT)
			on_event(&rd, it.event);
	}
	const struct nettrace_stats *st = nettrace_reader_stats(r);
	rd.t = nettrace_reader_trace(r);
	if (!rd.t) { /* not even the trace block */
		nettrace_reader_free(r);
		reading_release(&rd);
		pc_err("%s", rc < 0 ? pc_strerror() : "empty NetTrace stream");
		return -1;
	}
	if (rc < 0)
		*warning = xasprintf("%s; the events before it are shown", pc_strerror());
	proc.name = xstrdup(name);
	proc.pid = rd.t->pid;
	proc.host_pid = host_pid > 0 ? host_pid : (long)rd.t->pid;
	proc.start_ns = nettrace_ticks_to_ns(rd.t, rd.t->sync_ticks);
	proc.end_ns = st->events ? nettrace_ticks_to_ns(rd.t, st->last_ticks) : proc.start_ns;
	if (proc.end_ns < proc.start_ns)
		proc.end_ns = proc.start_ns;
	proc.events = st->events;
	proc.lost = st->lost_events;
	proc.truncated = st->truncated;
	build_gcs(&rd);
	if (proc.ncode)
		qsort(proc.code, proc.ncode, sizeof(*proc.code), cmp_code);
	reading_release(&rd);
	nettrace_reader_free(r);
	grow_array((void **)&rr->procs, &rr->cap, rr->nprocs + 1, sizeof(*rr->procs));
	rr->procs[rr->nprocs++] = proc;
	return 0;
}

void runtime_report_sample(struct runtime_report *rr, int pid, uint64_t time_ns)
{
	for (size_t i = 0; i < rr->nprocs; i++) {
		struct rt_process *p = &rr->procs[i];
		if (p->host_pid != pid)
			continue;
		p->samples++;
		/* one past the last pause starting at or before the sample */
		size_t lo = LOWER_BOUND(p->nby_pause, i, p->by_pause[i]->pause_start <= time_ns);
		/* GCs of one suspension share it: count the sample once, for the first. */
		if (!lo)
			continue;
		struct rt_gc *gc = p->by_pause[lo - 1];
		while (lo > 1 && p->by_pause[lo - 2]->pause_start == gc->pause_start)
			gc = p->by_pause[--lo - 1];
		if (time_ns <= gc->pause_end) {
			gc->samples++;
			p->samples_in_pauses++;
		}
	}
}

size_t runtime_report_processes(const struct runtime_report *rr)
{
	return rr->nprocs;
}

struct runtime_report *runtime_report_new(void)
{
	return xcalloc(1, sizeof(struct runtime_report));
}

void runtime_report_free(struct runtime_report *rr)
{
	if (!rr)
		return;
	for (size_t i = 0; i < rr->nprocs; i++) {
		struct rt_process *p = &rr->procs[i];
		free(p->name);
		free(p->gcs);
		free(p->by_pause);
		for (size_t k = 0; k < p->nthrows; k++)
			free(p->throws[k].type);
		free(p->throws);
		free(p->waits);
		for (size_t k = 0; k < p->njits; k++)
			free(p->jits[k].name);
		free(p->jits);
		for (size_t k = 0; k < p->ncode; k++)
			free(p->code[k].name);
		free(p->code);
		rt_tally_release(&p->allocs);
	}
	free(rr->procs);
	free(rr);
}
