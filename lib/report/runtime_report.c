/* runtime_report: the runtime's events into the model (runtime_report_int.h); the GC
 * analysis is in runtime_report_gc.c, the printing in runtime_report_print.c. */
#include "runtime_report_int.h"
#include "base/hash.h"
#include "base/search.h"

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

static size_t *slot(struct thread_slots *m, uint64_t tid)
{
	bool found;
	struct thread_slot *e = thread_slots_insert(m, tid, hash_mix(tid), &found);
	if (!found)
		*e = (struct thread_slot){.tid = tid, .used = true};
	return &e->idx;
}

/* ---- streams and processes -------------------------------------------------------------- */

struct rt_stream *runtime_report_begin(struct runtime_report *rr, const char *name, long host_pid)
{
	struct rt_stream *s = xcalloc(1, sizeof(*s));
	s->rr = rr;
	s->index = rr->nstreams;
	s->name = xstrdup(name);
	s->host_pid = host_pid;
	grow_array((void **)&rr->streams, &rr->streams_cap, rr->nstreams + 1, sizeof(*rr->streams));
	rr->streams[rr->nstreams++] = s;
	return s;
}

static struct rt_process *process_of(struct rt_stream *s, uint64_t pid)
{
	struct runtime_report *rr = s->rr;
	for (size_t i = rr->nprocs; i-- > 0;)
		if (rr->procs[i].stream == s->index && rr->procs[i].pid == pid)
			return &rr->procs[i];
	grow_array((void **)&rr->procs, &rr->cap, rr->nprocs + 1, sizeof(*rr->procs));
	struct rt_process *p = &rr->procs[rr->nprocs++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(s->name);
	p->stream = s->index;
	p->pid = (uint32_t)pid;
	p->host_pid = s->host_pid > 0 ? s->host_pid : (long)pid;
	return p;
}

static void on_jit_start(struct rt_process *p, const struct nettrace_event *e, uint64_t ns)
{
	struct rt_method m;
	if (rt_decode_method(e, &m) < 0)
		return;
	grow_array((void **)&p->jits, &p->jits_cap, p->njits + 1, sizeof(*p->jits));
	*slot(&p->open_jits, e->thread_id) = p->njits + 1;
	p->jits[p->njits++] = (struct rt_jit){.method_id = m.method_id,
					      .tid = e->thread_id,
					      .start_ns = ns,
					      .il_size = m.il_size,
					      .name = rt_method_full_name(&m)};
	rt_method_release(&m);
}

/* The load that ends the thread's open JIT of this method (ReadyToRun code loads without
 * one). */
static void on_method_load(struct rt_process *p, const struct nettrace_event *e, uint64_t ns)
{
	size_t *open = slot(&p->open_jits, e->thread_id);
	if (!*open)
		return;
	struct rt_method m;
	if (rt_decode_method(e, &m) < 0)
		return;
	struct rt_jit *j = &p->jits[*open - 1];
	if (j->method_id == m.method_id) {
		j->end_ns = ns > j->start_ns ? ns : j->start_ns;
		j->flags = m.flags;
		*open = 0;
	}
	rt_method_release(&m);
}

static void on_contention(struct rt_process *p, const struct nettrace_event *e,
			  enum runtime_event_kind kind, uint64_t ns)
{
	struct rt_contention c;
	if (rt_decode_contention(e, &c) < 0)
		return;
	size_t *open = slot(&p->open_waits, e->thread_id);
	if (kind == RT_CONTENTION_START) {
		p->waits++;
		if (c.lock_id && c.owner_thread_id) {
			char key[64];
			snprintf(key, sizeof(key), "lock 0x%llx%c%llu",
				 (unsigned long long)c.lock_id, 0x1f,
				 (unsigned long long)c.owner_thread_id);
			rt_tally_add(&p->owners, key, 1, 0);
		}
		grow_array((void **)&p->wait_start, &p->wait_start_cap, p->nwait_start + 1,
			   sizeof(*p->wait_start));
		if (!*open) {
			p->wait_start[p->nwait_start] = ns;
			*open = ++p->nwait_start;
		} else {
			p->wait_start[*open - 1] = ns;
		}
		return;
	}
	if (!*open && !c.has_duration)
		return;
	double waited = rt_contention_waited_ns(&c, *open ? p->wait_start[*open - 1] : 0, ns);
	p->wait_ns += waited;
	p->waits_ended++;
	if (*open)
		p->wait_start[*open - 1] = 0;
}

void runtime_report_event(struct rt_stream *s, const struct nettrace_trace *t, uint64_t pid,
			  enum runtime_event_kind kind, const struct nettrace_event *e)
{
	struct rt_process *p = process_of(s, pid);
	uint64_t ns = nettrace_ticks_to_ns(t, e->timestamp);
	unsigned ptr = t->pointer_size;
	p->events++;
	switch (kind) {
	case RT_GC_START:
	case RT_GC_END:
	case RT_GC_HEAP_STATS:
	case RT_GC_SUSPEND_EE_BEGIN:
	case RT_GC_SUSPEND_EE_END:
	case RT_GC_RESTART_EE_END:
	case RT_GC_PER_HEAP_HISTORY:
		rt_gc_event(p, e, kind, ns, ptr);
		break;
	case RT_GC_ALLOCATION_TICK:
	case RT_GC_ALLOCATION_SAMPLED: {
		struct rt_allocation a;
		if (rt_decode_allocation(e, kind, ptr, &a) < 0)
			break;
		rt_tally_add(&p->allocs, a.type, 1, (double)a.bytes);
		if (kind == RT_GC_ALLOCATION_TICK) /* as TraceEvent: the ticks only */
			rt_gc_alloc(p, ns, a.heap < 3 ? a.heap : 0, (double)a.bytes);
		p->alloc_events++;
		rt_allocation_release(&a);
		break;
	}
	case RT_EXCEPTION_THROWN: {
		struct rt_exception x;
		if (rt_decode_exception(e, ptr, &x) < 0)
			break;
		rt_tally_add(&p->exceptions, x.type, 1, 0);
		p->nexceptions++;
		rt_exception_release(&x);
		break;
	}
	case RT_CONTENTION_START:
	case RT_CONTENTION_STOP:
		on_contention(p, e, kind, ns);
		break;
	case RT_METHOD_JITTING_STARTED:
		on_jit_start(p, e, ns);
		break;
	case RT_METHOD_LOAD_VERBOSE:
		on_method_load(p, e, ns);
		break;
	default:
		break;
	}
}

static void release_reading(struct rt_process *p)
{
	free(p->gcev);
	p->gcev = NULL;
	thread_slots_free(&p->open_waits);
	thread_slots_free(&p->open_jits);
	memset(&p->open_waits, 0, sizeof(p->open_waits));
	memset(&p->open_jits, 0, sizeof(p->open_jits));
	free(p->wait_start);
	p->wait_start = NULL;
	p->nwait_start = p->wait_start_cap = 0;
}

void runtime_report_end(struct rt_stream *s, const struct nettrace_trace *t,
			const struct nettrace_stats *st)
{
	struct runtime_report *rr = s->rr;
	for (size_t i = 0; i < rr->nprocs; i++) {
		struct rt_process *p = &rr->procs[i];
		if (p->stream != s->index)
			continue;
		if (t) {
			p->sync_ns = nettrace_ticks_to_ns(t, t->sync_ticks);
			p->start_ns = p->sync_ns;
			p->end_ns = st && st->events ? nettrace_ticks_to_ns(t, st->last_ticks)
						     : p->start_ns;
			if (p->end_ns < p->start_ns)
				p->end_ns = p->start_ns;
		}
		if (st) {
			p->lost = st->lost_events;
			p->truncated = st->truncated;
		}
		rt_build_gcs(p);
		release_reading(p);
	}
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

void runtime_report_sample(struct runtime_report *rr, int pid, uint64_t time_ns)
{
	for (size_t i = 0; i < rr->nprocs; i++) {
		struct rt_process *p = &rr->procs[i];
		if (p->host_pid != pid)
			continue;
		p->samples++;
		/* one past the last pause starting at or before the sample */
		size_t lo = LOWER_BOUND(p->nby_pause, i, p->by_pause[i]->pause_start_ns <= time_ns);
		if (!lo)
			continue;
		struct rt_gc *gc = p->by_pause[lo - 1];
		if ((double)(time_ns - gc->pause_start_ns) <= gc->pause_ns) {
			gc->samples++;
			p->samples_in_pauses++;
		}
	}
}

size_t runtime_report_processes(const struct runtime_report *rr)
{
	return rr->nprocs;
}

uint64_t rt_jit_ns(const struct rt_jit *j)
{
	return j->end_ns ? j->end_ns - j->start_ns : 0;
}

const struct rt_jit **rt_jits_ended(const struct rt_jit *jits, size_t njits, size_t *n,
				    uint64_t *total_ns)
{
	const struct rt_jit **v = xmalloc((njits + 1) * sizeof(*v));
	*n = 0;
	*total_ns = 0;
	for (size_t i = 0; i < njits; i++)
		if (jits[i].end_ns) {
			v[(*n)++] = &jits[i];
			*total_ns += rt_jit_ns(&jits[i]);
		}
	return v;
}

double rt_relative_ms(uint64_t sync_ns, uint64_t ns)
{
	return ((double)ns - (double)sync_ns) / 1e6;
}

bool runtime_report_process(const struct runtime_report *rr, size_t i, struct rt_process_info *out)
{
	if (i >= rr->nprocs)
		return false;
	const struct rt_process *p = &rr->procs[i];
	*out = (struct rt_process_info){.name = p->name,
					.host_pid = p->host_pid,
					.pid = p->pid,
					.start_ns = p->start_ns,
					.end_ns = p->end_ns,
					.sync_ns = p->sync_ns,
					.gcs = p->gcs,
					.ngcs = p->ngcs,
					.jits = p->jits,
					.njits = p->njits};
	return true;
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
		release_reading(p);
		free(p->name);
		for (size_t k = 0; k < p->ngcs; k++)
			free(p->gcs[k].heap_gen0);
		free(p->gcs);
		free(p->by_pause);
		for (size_t k = 0; k < p->njits; k++)
			free(p->jits[k].name);
		free(p->jits);
		rt_tally_release(&p->allocs);
		rt_tally_release(&p->exceptions);
		rt_tally_release(&p->owners);
	}
	free(rr->procs);
	for (size_t i = 0; i < rr->nstreams; i++) {
		free(rr->streams[i]->name);
		free(rr->streams[i]);
	}
	free(rr->streams);
	free(rr);
}
