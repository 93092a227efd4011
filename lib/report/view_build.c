/* view_build: see view_build.h. */
#include "view_build.h"
#include "clr_code.h"
#include "base/hash.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The frames of EventPipe stacks seen last, by address: a stack's frames recur in every
 * sample of it, and naming one takes a lookup, an interning and, for an address no method
 * holds yet, a stand-in's name.  Direct-mapped; an entry is good while its stream knows as
 * many methods as when it was made. */
#define FRAME_CACHE 4096
struct view_frame_cache {
	uint64_t ip, pid;
	size_t methods;
	uint32_t stream, func;
	bool used;
};

/* A frame of an EventPipe stack no method held when it was read. */
struct view_pending {
	uint32_t func; /* its stand-in */
	uint32_t stream;
	uint64_t pid, ip;
};

bool view_keep(const struct view *v, long pid, long tid, const char *comm)
{
	if (v->pid >= 0 && pid != v->pid)
		return false;
	if (v->tid >= 0 && tid != v->tid)
		return false;
	if (!v->ncomms)
		return true;
	/* Without regard to case: perfcollect lowercased -processfilter, so `-processfilter
	 * MyApp` found the command myapp there. */
	for (size_t i = 0; i < v->ncomms; i++)
		if (!strcasecmp(v->comms[i], comm))
			return true;
	return false;
}

struct event_tree *view_event_tree(struct view *v, const char *name, enum view_kind kind)
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
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	e->kind = kind;
	e->tree = calltree_new(v->ft);
	v->last_event = v->nevents++;
	return e;
}

void view_warn(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	v->warnings = xrealloc(v->warnings, (v->nwarnings + 1) * sizeof(char *));
	v->warnings[v->nwarnings++] = line;
}

uint32_t *view_path(struct view *v, size_t n)
{
	grow_array((void **)&v->path, &v->path_cap, n + 1, sizeof(*v->path));
	return v->path;
}

uint32_t view_add(struct view *v, struct event_tree *e, const uint32_t *path, size_t n,
		  uint64_t weight, long pid, long tid, uint64_t time_ns)
{
	struct calltree *t = e ? e->tree : v->offcpu_tree;
	uint32_t node = calltree_insert(t, path, n);
	calltree_add_weight(t, node, weight);
	if (e)
		e->samples++;
	if (v->observer) {
		struct view_event ev = {.tree = e,
					.node = node,
					.pid = pid,
					.tid = tid,
					.time_ns = time_ns,
					.weight = weight};
		v->observer(v->observer_arg, &ev);
	}
	return node;
}

/* ---- perf script samples -------------------------------------------------------------- */

static void note_recording(struct view *v, const struct stack_sample *s)
{
	struct view_recording *r = &v->rec;
	r->samples++;
	if (s->time_ns) {
		if (!r->first_ns || s->time_ns < r->first_ns)
			r->first_ns = s->time_ns;
		if (s->time_ns > r->last_ns)
			r->last_ns = s->time_ns;
	}
	if (s->cpu >= 0 && s->cpu < (1 << 20)) {
		size_t w = (size_t)s->cpu / 64;
		if (w >= v->cpu_words) {
			size_t old = v->cpu_words;
			grow_array((void **)&v->cpu_bits, &v->cpu_words, w + 1,
				   sizeof(*v->cpu_bits));
			memset(v->cpu_bits + old, 0, (v->cpu_words - old) * sizeof(*v->cpu_bits));
		}
		uint64_t bit = 1ULL << (s->cpu % 64);
		if (!(v->cpu_bits[w] & bit)) {
			v->cpu_bits[w] |= bit;
			r->cpus_sampled++;
		}
	}
}

int view_on_sample(const struct stack_sample *s, void *arg)
{
	struct view *v = arg;
	note_recording(v, s);
	/* Every sample may end a wait (another task's sched_switch names the switch-in); the
	 * filters choose which threads' waits begin. */
	bool blocks = offcpu_sample(v->oc, s);
	if (!view_keep(v, s->pid, s->tid, s->comm)) {
		v->skipped++;
		return 0;
	}
	struct event_tree *e = view_event_tree(v, s->event, VIEW_SAMPLES);
	uint32_t *path = view_path(v, s->nframes + 1);
	size_t n = 0;
	/* Every name shown comes from here, made printable: a comm or a symbol is whatever a
	 * traced process chose, and it goes to a terminal. */
	path[n++] = functable_intern(v->ft, str_printable(s->comm), "", FRAME_PROCESS);
	/* perf prints the leaf first; the tree wants the root first. */
	for (size_t i = s->nframes; i-- > 0;) {
		const struct stack_frame *f = &s->frames[i];
		path[n++] =
		    functable_intern_frame(v->ft, *f->sym ? str_printable(f->sym) : "[unknown]",
					   str_printable(f->dso), f->ip);
		unnamed_frame(v->unnamed, f->sym, str_printable(f->dso));
	}
	/* Each sample weighs 1: the event trees count samples. */
	view_add(v, e, path, n, 1, s->pid, s->tid, s->time_ns);
	e->period += s->period;
	if (v->rt && s->time_ns && !view_is_tracepoint(s->event))
		runtime_report_sample(v->rt, s->pid, s->time_ns);
	if (blocks)
		offcpu_block(v->oc, s->tid, s->time_ns, calltree_insert(v->offcpu_tree, path, n));
	return 0;
}

bool view_is_tracepoint(const char *event)
{
	const char *c = strchr(event, ':');
	return c && c[1] && strspn(c + 1, "ukhpPGHSIDWe") != strlen(c + 1);
}

/* ---- EventPipe frames ----------------------------------------------------------------- */

/* "0x" and ip in hex into buf (24 bytes). */
static const char *hex(char *buf, uint64_t ip)
{
	char *p = buf + 23;
	*p = 0;
	do
		*--p = "0123456789abcdef"[ip & 15];
	while (ip >>= 4);
	*--p = 'x';
	*--p = '0';
	return p;
}

static uint32_t name_frame(struct view *v, size_t stream, uint64_t pid, uint64_t ip)
{
	struct clr_frame f;
	/* (A method whose module is not known yet is named at the end too: the rundown names
	 * the modules loaded before the trace began.) */
	if (clr_code_lookup(v->code[stream], pid, ip, &f) && *f.module)
		return functable_intern(v->ft, str_printable(f.method), str_printable(f.module),
					f.kind);
	/* A stand-in unique to the address and process, named at the end. */
	char sym[24], dso[48];
	snprintf(dso, sizeof(dso), "\001%zu:%llu", stream, (unsigned long long)pid);
	size_t before = functable_count(v->ft);
	uint32_t id = functable_intern(v->ft, hex(sym, ip), dso, FRAME_NATIVE);
	if (functable_count(v->ft) > before) {
		grow_array((void **)&v->pending, &v->pending_cap, v->npending + 1,
			   sizeof(*v->pending));
		v->pending[v->npending++] = (struct view_pending){id, (uint32_t)stream, pid, ip};
	}
	return id;
}

uint32_t view_clr_frame(struct view *v, size_t stream, uint64_t pid, uint64_t ip)
{
	if (!v->frame_cache)
		v->frame_cache = xcalloc(FRAME_CACHE, sizeof(*v->frame_cache));
	struct view_frame_cache *c =
	    &v->frame_cache[hash_mix(ip ^ pid << 40 ^ (uint64_t)stream << 56) & (FRAME_CACHE - 1)];
	size_t methods = clr_code_methods(v->code[stream]);
	if (c->used && c->ip == ip && c->pid == pid && c->stream == stream && c->methods == methods)
		return c->func;
	uint32_t func = name_frame(v, stream, pid, ip);
	*c = (struct view_frame_cache){ip, pid, methods, (uint32_t)stream, func, true};
	return func;
}

static struct calltree *renamed(struct calltree *t, const uint32_t *map, uint32_t **node_map)
{
	struct calltree *d = calltree_remap(t, map, node_map);
	calltree_free(t);
	return d;
}

void view_name_frames(struct view *v)
{
	if (!v->npending)
		return;
	size_t nf = functable_count(v->ft);
	uint32_t *map = xmalloc(nf * sizeof(*map));
	for (size_t f = 0; f < nf; f++)
		map[f] = (uint32_t)f;
	for (size_t i = 0; i < v->npending; i++) {
		const struct view_pending *p = &v->pending[i];
		struct clr_frame f;
		char sym[24];
		if (clr_code_lookup(v->code[p->stream], p->pid, p->ip, &f)) {
			map[p->func] = functable_intern(v->ft, str_printable(f.method),
							str_printable(f.module), f.kind);
		} else {
			/* No method holds it: native code (the runtime's, or a native library's),
			 * or code whose method the trace does not name.  Its address, as PerfView
			 * shows an unknown frame's. */
			map[p->func] = functable_intern(v->ft, hex(sym, p->ip), "", FRAME_NATIVE);
		}
	}
	for (size_t i = 0; i < v->nevents; i++)
		v->events[i].tree = renamed(v->events[i].tree, map, &v->events[i].node_map);
	v->offcpu_tree = renamed(v->offcpu_tree, map, &v->offcpu_node_map);
	free(map);
	free(v->pending);
	v->pending = NULL;
	v->npending = v->pending_cap = 0;
	free(v->frame_cache);
	v->frame_cache = NULL;
}
