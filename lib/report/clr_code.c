/* clr_code: see clr_code.h.  Per process, the methods are a sorted array plus a short
 * unsorted tail of the latest loads, merged into it when the tail fills: loads and lookups
 * interleave while a trace is read (JIT compilation during sampling), and neither a sort per
 * lookup nor an insertion per load would keep up. */
#include "clr_code.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

#define TAIL	  64
#define JITTED	  0x8 /* MethodFlags: the code was JIT-compiled (else precompiled) */
#define MAX_PROCS 4096

struct method {
	uint64_t start, size;
	uint64_t module_id;
	uint64_t seq; /* load order: a later load at the same address wins */
	char *name;
	bool jitted;
};

struct module {
	uint64_t id;
	char *name;
};

struct proc {
	uint64_t pid;
	struct method *m; /* sorted by start, then seq */
	size_t n, cap;
	size_t tail; /* the last `tail` entries are unsorted */
	struct module *mods;
	size_t nmods, mods_cap;
};

struct clr_code {
	struct proc *procs;
	size_t nprocs, cap, last;
	uint64_t seq;
	size_t methods;
};

struct clr_code *clr_code_new(void)
{
	return xcalloc(1, sizeof(struct clr_code));
}

void clr_code_free(struct clr_code *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *p = &c->procs[i];
		for (size_t k = 0; k < p->n; k++)
			free(p->m[k].name);
		free(p->m);
		for (size_t k = 0; k < p->nmods; k++)
			free(p->mods[k].name);
		free(p->mods);
	}
	free(c->procs);
	free(c);
}

static struct proc *proc_of(struct clr_code *c, uint64_t pid, bool create)
{
	if (c->nprocs && c->procs[c->last].pid == pid)
		return &c->procs[c->last];
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid) {
			c->last = i;
			return &c->procs[i];
		}
	if (!create || c->nprocs >= MAX_PROCS)
		return NULL;
	grow_array((void **)&c->procs, &c->cap, c->nprocs + 1, sizeof(*c->procs));
	struct proc *p = &c->procs[c->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	c->last = c->nprocs++;
	return p;
}

static int cmp_method(const void *a, const void *b)
{
	const struct method *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorts the tail in and drops what a later load at the same address replaced. */
static void merge_tail(struct proc *p)
{
	if (!p->tail)
		return;
	qsort(p->m, p->n, sizeof(*p->m), cmp_method);
	size_t out = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (out && p->m[out - 1].start == p->m[i].start) {
			free(p->m[out - 1].name); /* the same address loaded again */
			p->m[out - 1] = p->m[i];
			continue;
		}
		p->m[out++] = p->m[i];
	}
	p->n = out;
	p->tail = 0;
}

static const char *module_name(const struct proc *p, uint64_t id)
{
	for (size_t i = p->nmods; i-- > 0;)
		if (p->mods[i].id == id)
			return p->mods[i].name;
	return "";
}

static void add_module(struct proc *p, const struct nettrace_event *e)
{
	struct rt_module m;
	if (rt_decode_module(e, &m) < 0)
		return;
	char *name = rt_module_name(m.il_path);
	rt_module_release(&m);
	for (size_t i = 0; i < p->nmods; i++)
		if (p->mods[i].id == m.module_id) {
			free(p->mods[i].name);
			p->mods[i].name = name;
			return;
		}
	grow_array((void **)&p->mods, &p->mods_cap, p->nmods + 1, sizeof(*p->mods));
	p->mods[p->nmods++] = (struct module){m.module_id, name};
}

static void add_method(struct clr_code *c, struct proc *p, const struct nettrace_event *e)
{
	struct rt_method m;
	if (rt_decode_method(e, &m) < 0)
		return;
	if (m.start && m.size) {
		if (p->tail >= TAIL)
			merge_tail(p);
		grow_array((void **)&p->m, &p->cap, p->n + 1, sizeof(*p->m));
		p->m[p->n++] = (struct method){.start = m.start,
					       .size = m.size,
					       .module_id = m.module_id,
					       .seq = ++c->seq,
					       .name = rt_method_full_name(&m),
					       .jitted = m.flags & JITTED};
		p->tail++;
		c->methods++;
	}
	rt_method_release(&m);
}

void clr_code_event(struct clr_code *c, uint64_t pid, enum runtime_event_kind kind,
		    const struct nettrace_event *e)
{
	if (kind != RT_METHOD_LOAD_VERBOSE && kind != RT_METHOD_RUNDOWN_VERBOSE &&
	    kind != RT_MODULE_LOAD)
		return;
	struct proc *p = proc_of(c, pid, true);
	if (!p)
		return;
	if (kind == RT_MODULE_LOAD)
		add_module(p, e);
	else
		add_method(c, p, e);
}

static bool holds(const struct method *m, uint64_t ip)
{
	return ip >= m->start && ip - m->start < m->size;
}

bool clr_code_lookup(struct clr_code *c, uint64_t pid, uint64_t ip, struct clr_frame *out)
{
	struct proc *p = proc_of(c, pid, false);
	if (!p)
		return false;
	const struct method *hit = NULL;
	/* The newest loads first: they replace older code at their addresses. */
	for (size_t i = p->n; i-- > p->n - p->tail;)
		if (holds(&p->m[i], ip)) {
			hit = &p->m[i];
			break;
		}
	if (!hit) {
		/* one past the last sorted method starting at or before ip */
		size_t lo = LOWER_BOUND(p->n - p->tail, i, p->m[i].start <= ip);
		if (lo && holds(&p->m[lo - 1], ip))
			hit = &p->m[lo - 1];
	}
	if (!hit)
		return false;
	out->method = hit->name;
	out->module = module_name(p, hit->module_id);
	out->kind = hit->jitted ? FRAME_JIT : FRAME_R2R;
	return true;
}

size_t clr_code_methods(const struct clr_code *c)
{
	return c->methods;
}
