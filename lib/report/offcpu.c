/* offcpu: see offcpu.h. */
#include "offcpu.h"
#include "base/hash.h"
#include "perfdata/sched_switch.h"

#include <stdlib.h>
#include <string.h>

/* ---- threads by tid, entries never removed ---- */

struct pending {
	int tid;       /* 0: empty slot (tid 0 is the idle task, which never blocks) */
	uint32_t node; /* the stack of the pending switch-out; CALLTREE_NONE when running */
	uint64_t start_ns;
};
#define HTAB_NAME	    pending_table
#define HTAB_ENTRY	    struct pending
#define HTAB_KEY	    int
#define HTAB_EMPTY(e)	    (!(e)->tid)
#define HTAB_HASH(t, e)	    hash_mix((uint32_t)(e)->tid)
#define HTAB_MATCH(t, e, k) ((e)->tid == (k))
#define HTAB_MIN	    256
#include "base/htab.h"

struct offcpu {
	struct calltree *tree;
	void (*on_wait)(void *arg, int tid, uint64_t start, uint64_t end, uint32_t node);
	void *on_wait_arg;
	struct pending_table threads;
	uint64_t last_ns;
	struct offcpu_stats st;
};

/* The entry of tid, or NULL when it never blocked (create: add it). */
static struct pending *thread(struct offcpu *oc, int tid, bool create)
{
	uint64_t h = hash_mix((uint32_t)tid);
	if (!create)
		return pending_table_find(&oc->threads, tid, h);
	bool found;
	struct pending *p = pending_table_insert(&oc->threads, tid, h, &found);
	if (!found) {
		oc->st.threads++;
		*p = (struct pending){.tid = tid, .node = CALLTREE_NONE};
	}
	return p;
}

struct offcpu *offcpu_new(struct calltree *tree)
{
	struct offcpu *oc = xcalloc(1, sizeof(*oc));
	oc->tree = tree;
	return oc;
}

void offcpu_on_wait(struct offcpu *oc,
		    void (*fn)(void *arg, int tid, uint64_t start, uint64_t end, uint32_t node),
		    void *arg)
{
	oc->on_wait = fn;
	oc->on_wait_arg = arg;
}

void offcpu_free(struct offcpu *oc)
{
	if (!oc)
		return;
	pending_table_free(&oc->threads);
	free(oc);
}

static void end_interval(struct offcpu *oc, int tid, uint64_t now, bool exact)
{
	if (tid <= 0)
		return;
	struct pending *p = thread(oc, tid, false);
	if (!p || p->node == CALLTREE_NONE)
		return;
	if (now < p->start_ns) {
		oc->st.out_of_order++;
	} else {
		calltree_add_weight(oc->tree, p->node, now - p->start_ns);
		oc->st.blocked_ns += now - p->start_ns;
		if (oc->on_wait)
			oc->on_wait(oc->on_wait_arg, tid, p->start_ns, now, p->node);
		oc->st.intervals++;
		if (exact)
			oc->st.ended_exact++;
		else
			oc->st.ended_sample++;
	}
	p->node = CALLTREE_NONE;
}

/* perf names a thread it has no COMM for ":<tid>": a task the recording did not follow. */
static bool unfollowed(const struct stack_sample *s)
{
	char name[16];
	snprintf(name, sizeof(name), ":%d", s->tid);
	return s->comm && !strcmp(s->comm, name);
}

bool offcpu_sample(struct offcpu *oc, const struct stack_sample *s)
{
	bool is_switch = !strcmp(s->event, OFFCPU_EVENT);
	if (is_switch)
		oc->st.switches++;
	if (!s->time_ns) { /* no time column: nothing can be measured */
		if (is_switch)
			oc->st.bad_switches++;
		return false;
	}
	if (s->time_ns > oc->last_ns)
		oc->last_ns = s->time_ns;
	struct sched_switch sw;
	bool parsed = is_switch && !sched_switch_parse(s->trace, &sw);
	if (is_switch && !parsed)
		oc->st.bad_switches++;
	/* The switch-in first: at equal times it is the exact end. */
	if (parsed)
		end_interval(oc, sw.next_pid, s->time_ns, true);
	/* The thread has a sample, so it ran: its switch-in was at or before now. */
	end_interval(oc, s->tid, s->time_ns, false);
	/* A task's last switch can come with tid -1 (perf prints it so once the task is gone);
	 * it is not a wait, and only the sample's own thread can start one. */
	return parsed && sw.blocked && s->tid > 0 && sw.prev_pid == s->tid && !unfollowed(s);
}

void offcpu_block(struct offcpu *oc, int tid, uint64_t time_ns, uint32_t node)
{
	if (tid <= 0 || node == CALLTREE_NONE)
		return;
	struct pending *p = thread(oc, tid, true);
	p->node = node;
	p->start_ns = time_ns;
}

void offcpu_finish(struct offcpu *oc)
{
	struct pending *p;
	for (size_t i = 0; (p = pending_table_each(&oc->threads, &i));) {
		if (p->node == CALLTREE_NONE)
			continue;
		oc->st.open_at_end++;
		if (oc->last_ns > p->start_ns)
			oc->st.open_ns += oc->last_ns - p->start_ns;
		p->node = CALLTREE_NONE;
	}
}

const struct offcpu_stats *offcpu_stats(const struct offcpu *oc)
{
	return &oc->st;
}
