/* universal: see universal.h. */
#include "universal.h"
#include "base/hash.h"
#include "base/search.h"
#include "base/span.h"

#include <stdlib.h>
#include <string.h>

#define KERNEL_HALF	0x8000000000000000ULL /* addresses above are the kernel's */
#define MAX_METADATA_ID (1u << 20)

enum kind {
	K_NONE,
	K_PROCESS, /* ExistingProcess, ProcessCreate */
	K_EXIT,
	K_MAPPING,
	K_SYMBOL,
	K_SAMPLE,
	K_IGNORED, /* cswitch, ProcessMappingMetadata, other providers */
};

struct meta {
	enum kind kind;
	char *event; /* K_SAMPLE: the perf event's name */
	bool has_trace;
};

/* Disjoint address ranges, sorted; a new one replaces what it overlaps. */
struct range {
	uint64_t start, end; /* [start, end) */
	const char *name;
	uint64_t mapping; /* symbols: the mapping's id */
};
struct ranges {
	struct range *v;
	size_t n, cap;
};

struct proc {
	uint32_t pid;
	char *name;
	char *perfmap; /* "/tmp/perf-<pid>.map" */
	bool exited;
	struct ranges maps, syms;
};

struct mapping_name {
	uint64_t id;
	const char *name; /* NULL: empty */
};

#define HTAB_NAME	    proc_table
#define HTAB_ENTRY	    struct proc *
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix((*(e))->pid)
#define HTAB_MATCH(t, e, k) ((*(e))->pid == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

#define HTAB_NAME	    mapping_names
#define HTAB_ENTRY	    struct mapping_name
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->name)
#define HTAB_HASH(t, e)	    hash_mix((e)->id)
#define HTAB_MATCH(t, e, k) ((e)->id == (k))
#define HTAB_MIN	    256
#include "base/htab.h"

struct universal {
	stackfile_cb cb;
	void *arg;
	struct meta *meta; /* by id */
	size_t meta_cap;
	bool universal;
	struct proc_table procs;
	struct mapping_names mapnames;
	char **strings; /* every name kept, to free */
	size_t nstrings, strings_cap;
	struct stack_frame *frames;
	char tidbuf[16];
	struct universal_stats st;
};

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL[] = "[kernel.kallsyms]";

struct universal *universal_new(stackfile_cb cb, void *arg)
{
	struct universal *u = xcalloc(1, sizeof(*u));
	u->cb = cb;
	u->arg = arg;
	u->frames = xcalloc(STACKFILE_MAX_FRAMES, sizeof(*u->frames));
	return u;
}

void universal_free(struct universal *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->meta_cap; i++)
		free(u->meta[i].event);
	free(u->meta);
	struct proc **e;
	for (size_t i = 0; (e = proc_table_each(&u->procs, &i));) {
		struct proc *p = *e;
		free(p->perfmap);
		free(p->maps.v);
		free(p->syms.v);
		free(p);
	}
	proc_table_free(&u->procs);
	mapping_names_free(&u->mapnames);
	for (size_t i = 0; i < u->nstrings; i++)
		free(u->strings[i]);
	free(u->strings);
	free(u->frames);
	free(u);
}

static const char *keep(struct universal *u, char *s)
{
	grow_array((void **)&u->strings, &u->strings_cap, u->nstrings + 1, sizeof(*u->strings));
	u->strings[u->nstrings++] = s;
	return s;
}

void universal_metadata(struct universal *u, uint32_t id, const char *provider, const char *name,
			const char *perf_event, bool has_trace)
{
	if (id >= MAX_METADATA_ID || !provider || !name)
		return;
	if (id >= u->meta_cap) {
		size_t old = u->meta_cap;
		grow_array((void **)&u->meta, &u->meta_cap, id + 1, sizeof(*u->meta));
		memset(u->meta + old, 0, (u->meta_cap - old) * sizeof(*u->meta));
	}
	struct meta *m = &u->meta[id];
	free(m->event);
	memset(m, 0, sizeof(*m));
	m->kind = K_IGNORED;
	if (!strcmp(provider, "Universal.System")) {
		u->universal = true;
		if (!strcmp(name, "ProcessCreate") || !strcmp(name, "ExistingProcess"))
			m->kind = K_PROCESS;
		else if (!strcmp(name, "ProcessExit"))
			m->kind = K_EXIT;
		else if (!strcmp(name, "ProcessMapping"))
			m->kind = K_MAPPING;
		else if (!strcmp(name, "ProcessSymbol"))
			m->kind = K_SYMBOL;
	} else if (!strcmp(provider, "Universal.Events") && strcmp(name, "cswitch")) {
		m->kind = K_SAMPLE;
		m->event = xstrdup(perf_event		  ? perf_event
				   : !strcmp(name, "cpu") ? "cpu-clock"
							  : name);
		m->has_trace = has_trace;
	}
}

bool universal_is_universal(const struct universal *u)
{
	return u->universal;
}

/* ---- payloads ---- */

/* A uint16-counted UTF-8 string, copied (NUL bytes in it end it); NULL when cut short. */
static char *take_short_string(struct span *r)
{
	size_t n = span_u16(r);
	const uint8_t *p = span_take(r, n);
	return p ? xstrndup((const char *)p, n) : NULL;
}

static uint64_t take_varuint(struct span *r)
{
	return span_varuint(r, UINT64_MAX);
}

/* ---- processes, mappings, symbols ---- */

static struct proc *proc(struct universal *u, uint32_t pid)
{
	bool found;
	struct proc **p = proc_table_insert(&u->procs, pid, hash_mix(pid), &found);
	if (!found) {
		*p = xcalloc(1, sizeof(**p));
		(*p)->pid = pid;
		(*p)->perfmap = xasprintf("/tmp/perf-%u.map", pid);
	}
	return *p;
}

static const char *mapping_name(const struct universal *u, uint64_t id)
{
	const struct mapping_name *m = mapping_names_find(&u->mapnames, id, hash_mix(id));
	return m ? m->name : NULL;
}

static void set_mapping_name(struct universal *u, uint64_t id, const char *name)
{
	bool found;
	*mapping_names_insert(&u->mapnames, id, hash_mix(id), &found) =
	    (struct mapping_name){id, name};
}

/* The first range whose end is above addr. */
static size_t lower_bound(const struct ranges *rs, uint64_t addr)
{
	return LOWER_BOUND(rs->n, i, rs->v[i].end <= addr);
}

static const struct range *find(const struct ranges *rs, uint64_t addr)
{
	size_t i = lower_bound(rs, addr);
	return i < rs->n && rs->v[i].start <= addr ? &rs->v[i] : NULL;
}

static void insert(struct ranges *rs, struct range r)
{
	if (r.end <= r.start)
		return;
	size_t i = lower_bound(rs, r.start);
	/* the parts of overlapped ranges outside r stay: at most a head and a tail */
	struct range head = {0}, tail = {0};
	size_t j = i;
	while (j < rs->n && rs->v[j].start < r.end) {
		if (rs->v[j].start < r.start) {
			head = rs->v[j];
			head.end = r.start;
		}
		if (rs->v[j].end > r.end) {
			tail = rs->v[j];
			tail.start = r.end;
		}
		j++;
	}
	size_t add = 1 + (head.end > head.start) + (tail.end > tail.start);
	size_t removed = j - i;
	grow_array((void **)&rs->v, &rs->cap, rs->n + add, sizeof(*rs->v));
	memmove(rs->v + i + add, rs->v + j, (rs->n - j) * sizeof(*rs->v));
	rs->n = rs->n - removed + add;
	if (head.end > head.start)
		rs->v[i++] = head;
	rs->v[i++] = r;
	if (tail.end > tail.start)
		rs->v[i] = tail;
}

static void system_event(struct universal *u, enum kind kind, struct proc *p, struct span *r)
{
	u->st.system_events++;
	switch (kind) {
	case K_PROCESS: {
		take_varuint(r); /* NamespaceId */
		char *name = take_short_string(r);
		if (!name)
			break;
		if (p->exited) { /* the pid is used again: a new process */
			p->exited = false;
			p->maps.n = p->syms.n = 0;
		}
		p->name = (char *)keep(u, name);
		break;
	}
	case K_EXIT:
		p->exited = true;
		break;
	case K_MAPPING: {
		uint64_t id = take_varuint(r), start = take_varuint(r), end = take_varuint(r);
		take_varuint(r); /* FileOffset */
		char *name = take_short_string(r);
		if (!name)
			break;
		keep(u, name);
		set_mapping_name(u, id, name);
		insert(&p->maps, (struct range){start, end, name, id});
		break;
	}
	case K_SYMBOL: {
		take_varuint(r); /* Id */
		uint64_t mapping = take_varuint(r), start = take_varuint(r), last = take_varuint(r);
		char *name = take_short_string(r);
		if (!name)
			break;
		keep(u, name);
		if (last >= start && last != UINT64_MAX)
			insert(&p->syms, (struct range){start, last + 1, name, mapping});
		break;
	}
	default:
		break;
	}
	if (r->bad)
		u->st.bad_payloads++;
}

/* A frame as perf script names it (see universal.h). */
static void name_frame(const struct universal *u, const struct proc *p, uint64_t ip,
		       struct stack_frame *f)
{
	f->ip = ip;
	const struct range *s = find(&p->syms, ip);
	if (s) {
		const char *m = mapping_name(u, s->mapping);
		f->sym = s->name;
		f->dso = !m ? UNKNOWN : str_startswith(m, "/memfd:") ? p->perfmap : m;
		return;
	}
	const struct range *m = find(&p->maps, ip);
	f->sym = UNKNOWN;
	f->dso = !m ? UNKNOWN : ip >= KERNEL_HALF ? KERNEL : m->name;
}

int universal_event(struct universal *u, const struct universal_event *e)
{
	if (e->metadata_id >= u->meta_cap || u->meta[e->metadata_id].kind == K_NONE ||
	    u->meta[e->metadata_id].kind == K_IGNORED) {
		u->st.skipped_events++;
		return 0;
	}
	const struct meta *m = &u->meta[e->metadata_id];
	struct proc *p = proc(u, e->pid);
	struct span r = span_of(e->payload, e->payload_size);
	if (m->kind != K_SAMPLE) {
		system_event(u, m->kind, p, &r);
		return 0;
	}
	uint64_t value = take_varuint(&r);
	char *trace = m->has_trace ? take_short_string(&r) : NULL;
	if (r.bad)
		u->st.bad_payloads++;
	size_t n = e->depth < STACKFILE_MAX_FRAMES ? e->depth : STACKFILE_MAX_FRAMES;
	for (size_t i = 0; i < n; i++)
		name_frame(u, p, e->stack[i], &u->frames[i]);
	const char *comm = e->thread_name ? e->thread_name : p->name;
	if (!comm) {
		snprintf(u->tidbuf, sizeof(u->tidbuf), ":%d", (int32_t)e->tid);
		comm = u->tidbuf;
	}
	struct stack_sample s = {
	    .comm = comm,
	    .pid = (int)e->pid,
	    .tid = (int)e->tid,
	    .cpu = e->cpu,
	    .time_ns = e->time_ns,
	    .period = value ? value : 1,
	    .event = m->event,
	    .trace = trace ? trace : "",
	    .frames = u->frames,
	    .nframes = n,
	};
	u->st.samples++;
	int rc = u->cb(&s, u->arg);
	free(trace);
	return rc;
}

const struct universal_stats *universal_stats(const struct universal *u)
{
	return &u->st;
}
