/* machine: see machine.h.
 *
 * Processes and threads live in two open-addressing hash tables keyed by pid / tid.  A
 * process's maps are one array sorted by start and kept disjoint, so a lookup is a binary
 * search.  File names are interned (fork copies every map of the parent, so copying
 * strings would dominate).
 */
#include "machine.h"
#include "base/hash.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

struct maps {
	struct map *v;
	size_t n, cap;
};

struct process {
	uint32_t pid;
	struct maps maps;
	char *comm;		   /* of the process leader, for threads without their own */
	uint32_t nlive;		   /* its threads not exited */
	uint64_t exit_time;	   /* when the last one exited (0: alive) */
	bool ended;		   /* its maps were dropped, and it has not come back since */
	struct process *next_dead; /* in machine's dead list while exit_time is set */
};

struct thread {
	uint32_t pid, tid;
	char *comm;
	bool live; /* counted in its process's nlive */
};

#define HTAB_NAME	    process_table
#define HTAB_ENTRY	    struct process *
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix((*(e))->pid)
#define HTAB_MATCH(t, e, k) ((*(e))->pid == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

#define HTAB_NAME	    thread_table
#define HTAB_ENTRY	    struct thread *
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix((*(e))->tid)
#define HTAB_MATCH(t, e, k) ((*(e))->tid == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

/* Interned file names. */
#define HTAB_NAME	    string_table
#define HTAB_ENTRY	    char *
#define HTAB_KEY	    const char *
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_str(*(e))
#define HTAB_MATCH(t, e, k) (!strcmp(*(e), (k)))
#define HTAB_MIN	    64
#include "base/htab.h"

struct machine {
	struct process_table procs;
	struct thread_table threads;
	struct maps kernel_maps;
	struct string_table strings;
	char tidbuf[16];
	/* machine_drop_exited(): processes whose last thread exited, oldest first */
	bool drop_exited;
	uint64_t drop_delay;
	void (*on_drop)(void *arg, uint32_t pid);
	void *on_drop_arg;
	struct process *dead_head, *dead_tail;
};

static char *intern(struct machine *m, const char *s)
{
	bool found;
	char **e = string_table_insert(&m->strings, s, hash_str(s), &found);
	if (!found)
		*e = xstrdup(s);
	return *e;
}

static struct process *process_of(const struct machine *m, uint32_t pid)
{
	struct process **p = process_table_find(&m->procs, pid, hash_mix(pid));
	return p ? *p : NULL;
}

static struct thread *thread_of(const struct machine *m, uint32_t tid)
{
	struct thread **t = thread_table_find(&m->threads, tid, hash_mix(tid));
	return t ? *t : NULL;
}

struct machine *machine_new(void)
{
	return xcalloc(1, sizeof(struct machine));
}

void machine_free(struct machine *m)
{
	if (!m)
		return;
	struct process **p;
	for (size_t i = 0; (p = process_table_each(&m->procs, &i));) {
		free((*p)->maps.v);
		free((*p)->comm);
		free(*p);
	}
	struct thread **t;
	for (size_t i = 0; (t = thread_table_each(&m->threads, &i));) {
		free((*t)->comm);
		free(*t);
	}
	char **name;
	for (size_t i = 0; (name = string_table_each(&m->strings, &i));)
		free(*name);
	free(m->kernel_maps.v);
	process_table_free(&m->procs);
	thread_table_free(&m->threads);
	string_table_free(&m->strings);
	free(m);
}

static struct process *find_process(struct machine *m, uint32_t pid, bool create)
{
	if (!create)
		return process_of(m, pid);
	bool found;
	struct process **p = process_table_insert(&m->procs, pid, hash_mix(pid), &found);
	if (!found) {
		*p = xcalloc(1, sizeof(**p));
		(*p)->pid = pid;
	}
	return *p;
}

static struct thread *find_thread(struct machine *m, uint32_t pid, uint32_t tid, bool create)
{
	if (!create)
		return thread_of(m, tid);
	bool found;
	struct thread **t = thread_table_insert(&m->threads, tid, hash_mix(tid), &found);
	if (!found) {
		*t = xcalloc(1, sizeof(**t));
		(*t)->pid = pid;
		(*t)->tid = tid;
	}
	return *t;
}

/* Thread tid, created when new, counted among the live threads of process pid (a reused tid
 * or pid comes back to life). */
static struct thread *live_thread(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = find_thread(m, pid, tid, true);
	if (t->live && t->pid == pid)
		return t;
	if (t->live) {
		struct process *old = find_process(m, t->pid, false);
		if (old && old->nlive)
			old->nlive--;
	}
	t->pid = pid;
	t->live = true;
	struct process *p = find_process(m, pid, true);
	p->nlive++;
	p->exit_time = 0; /* left in the dead list, which skips it */
	p->ended = false;
	return t;
}

/* First map whose end is above addr. */
static size_t maps_lower_bound(const struct maps *ms, uint64_t addr)
{
	return LOWER_BOUND(ms->n, i, ms->v[i].end <= addr);
}

/* Inserts nm, cutting away the parts of older maps it overlaps (what is left of an old
 * map on either side stays, with its file offset moved along). */
static void maps_insert(struct maps *ms, const struct map *nm)
{
	size_t i = maps_lower_bound(ms, nm->start), j = i;
	struct map left, right;
	bool has_left = false, has_right = false;
	while (j < ms->n && ms->v[j].start < nm->end) {
		const struct map *old = &ms->v[j];
		if (old->start < nm->start) {
			left = *old;
			left.end = nm->start;
			has_left = true;
		}
		if (old->end > nm->end) {
			right = *old;
			right.pgoff += nm->end - old->start;
			right.start = nm->end;
			has_right = true;
		}
		j++;
	}
	size_t nnew = 1 + has_left + has_right, removed = j - i;
	grow_array((void **)&ms->v, &ms->cap, ms->n - removed + nnew, sizeof(*ms->v));
	memmove(&ms->v[i + nnew], &ms->v[j], (ms->n - j) * sizeof(*ms->v));
	ms->n = ms->n - removed + nnew;
	size_t k = i;
	if (has_left)
		ms->v[k++] = left;
	ms->v[k++] = *nm;
	if (has_right)
		ms->v[k++] = right;
}

static const char *field_string(const struct perf_event_header *h, size_t off, size_t *len)
{
	if (h->size <= off)
		return NULL;
	const char *s = (const char *)h + off;
	size_t room = h->size - off;
	const char *nul = memchr(s, 0, room);
	*len = nul ? (size_t)(nul - s) : room;
	return s;
}

static void process_mmap(struct machine *m, const struct perf_event_header *h, bool v2)
{
	/* common: pid, tid, addr, len, pgoff; MMAP2 adds 24 bytes of ids, prot, flags */
	size_t fixed = sizeof(*h) + 32 + (v2 ? 32 : 0);
	if (h->size < fixed)
		return;
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	memcpy(&pid, p, 4);
	memcpy(&tid, p + 4, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&len, p + 16, 8);
	memcpy(&pgoff, p + 24, 8);
	if (!len || addr + len < addr)
		return;
	struct map nm = {.start = addr, .end = addr + len, .pgoff = pgoff};
	if (v2) {
		const uint8_t *q = p + 32;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			nm.build_id_size = q[0] > 20 ? 20 : q[0];
			memcpy(nm.build_id, q + 4, nm.build_id_size);
		} else {
			memcpy(&nm.maj, q, 4);
			memcpy(&nm.min, q + 4, 4);
			memcpy(&nm.ino, q + 8, 8);
		}
		memcpy(&nm.prot, q + 24, 4);
		memcpy(&nm.flags, q + 28, 4);
	} else {
		/* MMAP v1 carries no protection; perf takes non-data maps as executable */
		nm.prot = (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 1 /* PROT_READ */ : 4 /* EXEC */;
	}
	size_t flen;
	const char *fname = field_string(h, fixed, &flen);
	char buf[4096];
	if (!fname)
		flen = 0;
	if (flen >= sizeof(buf))
		flen = sizeof(buf) - 1;
	memcpy(buf, fname ? fname : "", flen);
	buf[flen] = 0;
	nm.filename = intern(m, buf);

	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (pid == UINT32_MAX || mode == PERF_RECORD_MISC_KERNEL ||
	    mode == PERF_RECORD_MISC_GUEST_KERNEL) {
		maps_insert(&m->kernel_maps, &nm);
		return;
	}
	live_thread(m, pid, tid);
	maps_insert(&find_process(m, pid, false)->maps, &nm);
}

/* s may be *dst itself (a FORK whose child and parent are the same thread). */
static void set_comm(char **dst, const char *s, size_t len)
{
	char *copy = xstrndup(s, len);
	free(*dst);
	*dst = copy;
}

static void process_comm(struct machine *m, const struct perf_event_header *h)
{
	if (h->size < sizeof(*h) + 8)
		return;
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t pid, tid;
	memcpy(&pid, p, 4);
	memcpy(&tid, p + 4, 4);
	size_t len;
	const char *comm = field_string(h, sizeof(*h) + 8, &len);
	if (!comm)
		return;
	struct thread *t = live_thread(m, pid, tid);
	struct process *proc = find_process(m, pid, false);
	set_comm(&t->comm, comm, len);
	if (pid == tid || !proc->comm)
		set_comm(&proc->comm, comm, len);
	/* exec keeps the maps, as perf does: the new image's MMAP records replace what they
	 * overlap, and samples taken inside execve() still unwind through the old image */
}

static void process_fork(struct machine *m, const struct perf_event_header *h)
{
	if (h->size < sizeof(*h) + 16)
		return;
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t pid, ppid, tid, ptid;
	memcpy(&pid, p, 4);
	memcpy(&ppid, p + 4, 4);
	memcpy(&tid, p + 8, 4);
	memcpy(&ptid, p + 12, 4);
	struct thread *parent = find_thread(m, ppid, ptid, false);
	struct thread *t = live_thread(m, pid, tid);
	if (parent && parent->comm)
		set_comm(&t->comm, parent->comm, strlen(parent->comm));
	if (pid == ppid) {
		find_process(m, pid, true);
		return; /* a new thread shares its process's maps */
	}
	/* A new process starts with a copy of its parent's address space, unless the record
	 * is a synthesized one (FORK_EXEC: perf's "not a real fork" mark), whose maps follow. */
	struct process *pp = find_process(m, ppid, false);
	struct process *child = find_process(m, pid, true);
	if (pp && pp != child && pp->maps.n && !(h->misc & PERF_RECORD_MISC_FORK_EXEC)) {
		child->maps.n = 0;
		grow_array((void **)&child->maps.v, &child->maps.cap, pp->maps.n,
			   sizeof(*child->maps.v));
		memcpy(child->maps.v, pp->maps.v, pp->maps.n * sizeof(*pp->maps.v));
		child->maps.n = pp->maps.n;
		for (size_t i = 0; i < child->maps.n; i++)
			child->maps.v[i].hit = false;
	}
	if (t->comm && (pid == tid || !child->comm))
		set_comm(&child->comm, t->comm, strlen(t->comm));
}

/* EXIT: the thread stays (its name, for samples perf still names after it), its process's
 * maps go later, when its last thread has exited (drop_dead). */
static void process_exit(struct machine *m, const struct perf_event_header *h)
{
	if (h->size < sizeof(*h) + 24)
		return;
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t pid, tid;
	uint64_t time;
	memcpy(&pid, p, 4);
	memcpy(&tid, p + 8, 4);
	memcpy(&time, p + 16, 8);
	struct thread *t = find_thread(m, pid, tid, false);
	struct process *proc = find_process(m, pid, false);
	if (!t || !t->live || t->pid != pid || !proc)
		return;
	t->live = false;
	if (proc->nlive && --proc->nlive)
		return;
	bool listed = proc->exit_time != 0 || proc->next_dead || m->dead_tail == proc;
	proc->exit_time = time ? time : 1;
	if (listed)
		return;
	if (m->dead_tail)
		m->dead_tail->next_dead = proc;
	else
		m->dead_head = proc;
	m->dead_tail = proc;
}

/* The maps of processes dead for longer than the delay are freed (those that came back to
 * life meanwhile, exit_time 0, just leave the list). */
static void drop_dead(struct machine *m, uint64_t now)
{
	while (m->dead_head) {
		struct process *p = m->dead_head;
		if (p->exit_time && (now < p->exit_time || now - p->exit_time < m->drop_delay))
			return;
		m->dead_head = p->next_dead;
		if (!m->dead_head)
			m->dead_tail = NULL;
		p->next_dead = NULL;
		if (!p->exit_time)
			continue;
		p->exit_time = 0;
		p->ended = true;
		free(p->maps.v);
		p->maps = (struct maps){0};
		if (m->on_drop)
			m->on_drop(m->on_drop_arg, p->pid);
	}
}

void machine_drop_exited(struct machine *m, uint64_t delay_ns, void (*fn)(void *arg, uint32_t pid),
			 void *arg)
{
	m->drop_exited = true;
	m->drop_delay = delay_ns;
	m->on_drop = fn;
	m->on_drop_arg = arg;
}

void machine_process(struct machine *m, const struct perfdata_record *rec)
{
	const struct perf_event_header *h = rec->header;
	switch (h->type) {
	case PERF_RECORD_MMAP:
		process_mmap(m, h, false);
		break;
	case PERF_RECORD_MMAP2:
		process_mmap(m, h, true);
		break;
	case PERF_RECORD_COMM:
		process_comm(m, h);
		break;
	case PERF_RECORD_FORK:
		process_fork(m, h);
		break;
	case PERF_RECORD_EXIT:
		if (m->drop_exited)
			process_exit(m, h);
		break;
	default:
		break;
	}
	if (m->dead_head && rec->id.has_time)
		drop_dead(m, rec->id.time);
}

struct map *machine_find_map(struct machine *m, uint32_t pid, uint64_t addr, bool kernel)
{
	struct maps *ms;
	if (kernel) {
		ms = &m->kernel_maps;
	} else {
		struct process *p = find_process(m, pid, false);
		if (!p)
			return NULL;
		ms = &p->maps;
	}
	size_t i = maps_lower_bound(ms, addr);
	if (i < ms->n && ms->v[i].start <= addr)
		return &ms->v[i];
	return NULL;
}

const char *machine_comm(struct machine *m, uint32_t pid, uint32_t tid)
{
	/* perf keeps no thread for tid -1 (a sched_switch of an exiting task) */
	if (tid == UINT32_MAX)
		return ":-1";
	struct thread *t = find_thread(m, pid, tid, false);
	if (t && t->comm)
		return t->comm;
	struct process *p = find_process(m, pid, false);
	if (p && p->comm)
		return p->comm;
	if (tid == 0)
		return "swapper"; /* the idle task, as perf names it */
	snprintf(m->tidbuf, sizeof(m->tidbuf), ":%d", (int32_t)tid);
	return m->tidbuf;
}

bool machine_process_ended(const struct machine *m, uint32_t pid)
{
	const struct process *p = process_of(m, pid);
	return p && p->ended;
}

bool machine_thread_pid(struct machine *m, uint32_t tid, uint32_t *pid)
{
	struct thread *t = thread_of(m, tid);
	if (!t)
		return false;
	*pid = t->pid;
	return true;
}

void machine_foreach_hit_map(struct machine *m,
			     void (*fn)(void *arg, uint32_t pid, bool kernel,
					const struct map *map),
			     void *arg)
{
	for (size_t i = 0; i < m->kernel_maps.n; i++)
		if (m->kernel_maps.v[i].hit)
			fn(arg, UINT32_MAX, true, &m->kernel_maps.v[i]);
	struct process **e;
	for (size_t s = 0; (e = process_table_each(&m->procs, &s));) {
		const struct process *p = *e;
		for (size_t i = 0; i < p->maps.n; i++)
			if (p->maps.v[i].hit)
				fn(arg, p->pid, false, &p->maps.v[i]);
	}
}

void machine_foreach_hit_map_of(struct machine *m, uint32_t pid,
				void (*fn)(void *arg, uint32_t pid, bool kernel,
					   const struct map *map),
				void *arg)
{
	struct process *p = find_process(m, pid, false);
	for (size_t i = 0; p && i < p->maps.n; i++)
		if (p->maps.v[i].hit)
			fn(arg, p->pid, false, &p->maps.v[i]);
}

void machine_forget(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread **te = thread_table_find(&m->threads, tid, hash_mix(tid));
	if (te && (*te)->pid == pid) {
		struct thread *t = *te;
		thread_table_remove(&m->threads, te);
		free(t->comm);
		free(t);
	}
	if (tid != pid)
		return;
	struct process **pe = process_table_find(&m->procs, pid, hash_mix(pid)), *p = NULL;
	if (pe) {
		p = *pe;
		process_table_remove(&m->procs, pe);
	}
	for (struct process **q = &m->dead_head, *prev = NULL; p && *q;
	     prev = *q, q = &(*q)->next_dead)
		if (*q == p) { /* out of the dead list first */
			*q = p->next_dead;
			if (m->dead_tail == p)
				m->dead_tail = prev;
			break;
		}
	if (p) {
		free(p->maps.v);
		free(p->comm);
		free(p);
	}
}

void machine_foreach_pid(struct machine *m, void (*fn)(void *arg, uint32_t pid), void *arg)
{
	struct process **p;
	for (size_t s = 0; (p = process_table_each(&m->procs, &s));)
		fn(arg, (*p)->pid);
}
