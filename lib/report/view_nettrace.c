/* view_nettrace: see view_nettrace.h. */
#include "view_nettrace.h"
#include "clr_code.h"
#include "universal.h"
#include "view_build.h"
#include "base/span.h"
#include "base/util.h"
#include "nettrace/nettrace_read.h"

#include <stdlib.h>
#include <string.h>

#define SAMPLE_PROFILER	  "Microsoft-DotNETCore-SampleProfiler"
#define SAMPLE_EXTERNAL	  1 /* ThreadSample's type: outside managed code */
#define SAMPLE_MANAGED	  2
#define DEFAULT_SAMPLING  1000000ULL /* ns: the runtime's default sampling interval */
#define MAX_STACK	  4096
#define CONTENTION_NATIVE 1 /* ContentionStart's flags */

/* A thread waiting for a lock: the stack of its ContentionStart. */
struct open_wait {
	uint64_t tid, start_ns;
	uint32_t node;
	long pid;
};

struct reading {
	struct view *v;
	const char *name;
	long host_pid;
	size_t stream; /* v->code[stream] */
	const struct nettrace_trace *t;
	struct universal *u;
	struct rt_stream *rs;
	struct open_wait *waits;
	size_t nwaits, waits_cap;
	uint64_t stacks_seen, rundown;
	bool newer_warned[RT_KINDS];
};

static long pid_of(const struct reading *rd, const struct nettrace_event *e)
{
	if (rd->host_pid > 0)
		return rd->host_pid;
	return (long)(e->process_id ? e->process_id : rd->t->pid);
}

/* The event's stack as a path: the process frame, then the frames root first. */
static size_t stack_path(struct reading *rd, const struct nettrace_event *e, long pid, size_t extra)
{
	struct view *v = rd->v;
	size_t depth = e->stack_depth < MAX_STACK ? e->stack_depth : MAX_STACK;
	uint32_t *path = view_path(v, depth + 1 + extra);
	char proc[32];
	snprintf(proc, sizeof(proc), RT_PROCESS_FRAME, pid);
	size_t n = 0;
	path[n++] = functable_intern(v->ft, proc, "", FRAME_PROCESS);
	uint64_t file_pid = e->process_id ? e->process_id : rd->t->pid;
	for (size_t i = depth; i-- > 0;)
		path[n++] = view_clr_frame(v, rd->stream, file_pid, e->stack[i]);
	if (depth)
		rd->stacks_seen++;
	return n;
}

static void note_time(struct view *v, uint64_t ns)
{
	struct view_recording *r = &v->rec;
	r->samples++;
	if (!r->first_ns || ns < r->first_ns)
		r->first_ns = ns;
	if (ns > r->last_ns)
		r->last_ns = ns;
}

static void on_thread_sample(struct reading *rd, const struct nettrace_event *e, uint64_t ns)
{
	struct view *v = rd->v;
	long pid = pid_of(rd, e);
	note_time(v, ns);
	if (!view_keep(v, pid, (long)e->thread_id, "")) {
		v->skipped++;
		return;
	}
	uint32_t type = e->payload_size >= 4 ? load_le32(e->payload) : SAMPLE_MANAGED;
	size_t n = stack_path(rd, e, pid, 0);
	if (type == SAMPLE_EXTERNAL) {
		uint64_t w =
		    rd->t->expected_sampling_ns ? rd->t->expected_sampling_ns : DEFAULT_SAMPLING;
		view_add(v, NULL, v->path, n, w, pid, (long)e->thread_id, ns);
		v->external_samples++;
		v->external_ns += w;
		return;
	}
	struct event_tree *t = view_event_tree(v, "ThreadSample", VIEW_SAMPLES);
	view_add(v, t, v->path, n, 1, pid, (long)e->thread_id, ns);
	t->period += rd->t->expected_sampling_ns ? rd->t->expected_sampling_ns : DEFAULT_SAMPLING;
}

/* The stack of an event with a leaf of its own (the type allocated or thrown, the lock;
 * what: "type" or "lock", its module column). */
static size_t stack_with_leaf(struct reading *rd, const struct nettrace_event *e, long pid,
			      const char *leaf, const char *what)
{
	size_t n = stack_path(rd, e, pid, 1);
	rd->v->path[n++] = functable_intern(rd->v->ft, str_printable(leaf), what, FRAME_JIT);
	return n;
}

static void add_leafed(struct reading *rd, const struct nettrace_event *e, uint64_t ns,
		       const char *tree, enum view_kind kind, const char *leaf, uint64_t weight)
{
	struct view *v = rd->v;
	long pid = pid_of(rd, e);
	if (!view_keep(v, pid, (long)e->thread_id, "")) {
		v->skipped++;
		return;
	}
	struct event_tree *t = view_event_tree(v, tree, kind);
	size_t n = stack_with_leaf(rd, e, pid, leaf, "type");
	view_add(v, t, v->path, n, weight, pid, (long)e->thread_id, ns);
	t->period += weight;
}

static struct open_wait *open_wait_of(struct reading *rd, uint64_t tid, bool create)
{
	for (size_t i = 0; i < rd->nwaits; i++)
		if (rd->waits[i].tid == tid)
			return &rd->waits[i];
	if (!create)
		return NULL;
	grow_array((void **)&rd->waits, &rd->waits_cap, rd->nwaits + 1, sizeof(*rd->waits));
	struct open_wait *w = &rd->waits[rd->nwaits++];
	memset(w, 0, sizeof(*w));
	w->tid = tid;
	w->node = CALLTREE_NONE;
	return w;
}

static void on_contention(struct reading *rd, const struct nettrace_event *e,
			  enum runtime_event_kind kind, uint64_t ns)
{
	struct view *v = rd->v;
	struct rt_contention c;
	if (rt_decode_contention(e, &c) < 0)
		return;
	long pid = pid_of(rd, e);
	if (kind == RT_CONTENTION_START) {
		if (!view_keep(v, pid, (long)e->thread_id, "")) {
			v->skipped++;
			return;
		}
		char leaf[64];
		if (c.lock_id)
			snprintf(leaf, sizeof(leaf), "%s 0x%llx",
				 c.flags & CONTENTION_NATIVE ? "native lock" : "lock",
				 (unsigned long long)c.lock_id);
		else
			snprintf(leaf, sizeof(leaf), "%s",
				 c.flags & CONTENTION_NATIVE ? "native lock" : "lock");
		struct event_tree *t = view_event_tree(v, "contention", VIEW_CONTENTION);
		size_t n = stack_with_leaf(rd, e, pid, leaf, "lock");
		struct open_wait *w = open_wait_of(rd, e->thread_id, true);
		w->node = calltree_insert(t->tree, v->path, n);
		w->start_ns = ns;
		w->pid = pid;
		return;
	}
	struct open_wait *w = open_wait_of(rd, e->thread_id, false);
	if (!w || w->node == CALLTREE_NONE)
		return;
	double waited = rt_contention_waited_ns(&c, w->start_ns, ns);
	struct event_tree *t = view_event_tree(v, "contention", VIEW_CONTENTION);
	uint64_t weight = u64_round(waited);
	calltree_add_weight(t->tree, w->node, weight);
	t->samples++;
	t->period += weight;
	if (v->observer) {
		struct view_event ev = {.tree = t,
					.node = w->node,
					.pid = w->pid,
					.tid = (long)e->thread_id,
					.time_ns = w->start_ns,
					.weight = weight};
		v->observer(v->observer_arg, &ev);
	}
	w->node = CALLTREE_NONE;
}

static void on_runtime(struct reading *rd, const struct nettrace_event *e,
		       enum runtime_event_kind kind, uint64_t ns)
{
	struct view *v = rd->v;
	uint64_t file_pid = e->process_id ? e->process_id : rd->t->pid;
	if (e->meta->version > rt_event_max_version(kind) && !rd->newer_warned[kind]) {
		rd->newer_warned[kind] = true;
		view_warn(v,
			  "%s: %s version %u is newer than this reader knows (%u): read as "
			  "version %u, its newer fields left out",
			  rd->name, rt_event_name(kind), e->meta->version,
			  rt_event_max_version(kind), rt_event_max_version(kind));
	}
	clr_code_event(v->code[rd->stream], file_pid, kind, e);
	if (!v->rt)
		v->rt = runtime_report_new();
	if (!rd->rs)
		rd->rs = runtime_report_begin(v->rt, rd->name, rd->host_pid);
	runtime_report_event(rd->rs, rd->t, file_pid, kind, e);
	unsigned ptr = rd->t->pointer_size;
	switch (kind) {
	case RT_METHOD_RUNDOWN_VERBOSE:
		rd->rundown++;
		break;
	case RT_GC_ALLOCATION_TICK:
	case RT_GC_ALLOCATION_SAMPLED: {
		struct rt_allocation a;
		if (rt_decode_allocation(e, kind, ptr, &a) < 0)
			break;
		add_leafed(rd, e, ns, "alloc", VIEW_ALLOC, a.type, a.bytes);
		rt_allocation_release(&a);
		break;
	}
	case RT_EXCEPTION_THROWN: {
		struct rt_exception x;
		if (rt_decode_exception(e, ptr, &x) < 0)
			break;
		add_leafed(rd, e, ns, "exception", VIEW_EXCEPTIONS, x.type, 1);
		rt_exception_release(&x);
		break;
	}
	case RT_CONTENTION_START:
	case RT_CONTENTION_STOP:
		on_contention(rd, e, kind, ns);
		break;
	default:
		break;
	}
}

static void on_event(struct reading *rd, const struct nettrace_event *e)
{
	const struct nettrace_metadata *m = e->meta;
	uint64_t ns = nettrace_ticks_to_ns(rd->t, e->timestamp);
	if (str_startswith(m->provider, "Universal.")) {
		if (!universal_is_universal(rd->u))
			return;
		uint64_t pid = e->process_id ? e->process_id : rd->t->pid;
		struct universal_event ue = {.metadata_id = m->id,
					     .pid = (uint32_t)pid,
					     .tid = (uint32_t)e->thread_id,
					     .cpu = (int)e->processor,
					     .time_ns = ns,
					     .stack = e->stack,
					     .depth = e->stack_depth,
					     .payload = e->payload,
					     .payload_size = e->payload_size};
		universal_event(rd->u, &ue);
		return;
	}
	if (!strcmp(m->provider, SAMPLE_PROFILER)) {
		if (m->event_id == 0)
			on_thread_sample(rd, e, ns);
		return;
	}
	enum runtime_event_kind kind = runtime_event_kind(m);
	if (kind != RT_OTHER)
		on_runtime(rd, e, kind, ns);
}

static void on_metadata(struct reading *rd, const struct nettrace_metadata *m)
{
	bool has_trace = m->nfields >= 2 && !strcmp(m->fields[1].name, "Trace");
	universal_metadata(rd->u, m->id, m->provider, m->event_name, m->perf_event, has_trace);
}

/* What could not be read, one line each. */
static void say_missing(struct reading *rd, const struct nettrace_stats *st)
{
	struct view *v = rd->v;
	if (st->truncated)
		view_warn(v,
			  "%s stops before its end (after %llu bytes: a writer killed, or a copy "
			  "cut short): everything before the cut is shown",
			  rd->name, (unsigned long long)st->bytes);
	if (st->missing_stacks)
		view_warn(v,
			  "%s: %llu events name stacks no stack block holds (the first: stack %u): "
			  "they are shown without their stacks",
			  rd->name, (unsigned long long)st->missing_stacks,
			  st->first_missing_stack);
	if (st->lost_events)
		view_warn(v,
			  "%s: the runtime dropped %llu events (its buffer was full): counts are "
			  "low",
			  rd->name, (unsigned long long)st->lost_events);
	if (rd->stacks_seen && !rd->rundown)
		view_warn(v,
			  "%s has no rundown (MethodDCEndVerbose events, written when a session "
			  "ends cleanly): frames of code compiled before the trace began show as "
			  "addresses; record with the rundown (dotnet-trace's default; collect "
			  "stops its sessions so)",
			  rd->name);
}

int view_nettrace_read(struct view *v, FILE *f, const char *name, long host_pid)
{
	struct reading rd = {.v = v, .name = name, .host_pid = host_pid, .stream = v->ncode};
	v->code = xrealloc(v->code, (v->ncode + 1) * sizeof(*v->code));
	v->code[v->ncode++] = clr_code_new();
	rd.u = universal_new(view_on_sample, v);
	struct nettrace_reader *r = nettrace_reader_new_file(f, name);
	struct nettrace_item it;
	int rc;
	while ((rc = nettrace_reader_next(r, &it)) > 0) {
		if (!rd.t)
			rd.t = nettrace_reader_trace(r);
		if (it.kind == NETTRACE_ITEM_METADATA)
			on_metadata(&rd, it.metadata);
		else if (it.kind == NETTRACE_ITEM_EVENT)
			on_event(&rd, it.event);
	}
	const struct nettrace_stats *st = nettrace_reader_stats(r);
	rd.t = nettrace_reader_trace(r);
	int ret = 0;
	if (!rd.t) { /* not even the trace block */
		ret = rc < 0 ? -1 : pc_err("%s: an empty NetTrace stream", name);
	} else {
		if (rc < 0)
			view_warn(v, "%s; the events before it are shown", pc_strerror());
		say_missing(&rd, st);
		if (!v->rec.first_ns && st->events) {
			v->rec.first_ns = nettrace_ticks_to_ns(rd.t, st->first_ticks);
			v->rec.last_ns = nettrace_ticks_to_ns(rd.t, st->last_ticks);
		}
	}
	if (rd.rs)
		runtime_report_end(rd.rs, rd.t, st);
	free(rd.waits);
	universal_free(rd.u);
	nettrace_reader_free(r);
	return ret;
}
