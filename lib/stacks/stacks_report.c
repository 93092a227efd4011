/* stacks_report: see stacks_report.h. */
#include "stacks_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TIDS_SHOWN	64
#define MAX_NAMES_SHOWN 16

static bool module_matches(const char *module, const char *name)
{
	if (!module)
		return false;
	if (!strcmp(module, name))
		return true;
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	size_t n = strlen(name);
	return !strncmp(base, name, n) && (base[n] == 0 || base[n] == '.');
}

bool stacks_kframes_have(const struct stack_frame *f, size_t n, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(f[i].module ? f[i].module : "kernel", name))
			return true;
		if (f[i].text && !strncmp(f[i].text, name, len) &&
		    (f[i].text[len] == '+' || f[i].text[len] == 0))
			return true;
	}
	return false;
}

bool stacks_thread_has_module(const struct thread_stack *t, const char *name)
{
	if (stacks_kframes_have(t->kframes, t->nkframes, name))
		return true;
	for (size_t i = 0; i < t->nuframes; i++)
		if (module_matches(t->uframes[i].module, name))
			return true;
	return false;
}

/* The frames as they print; also the grouping key (with the awaited lock). */
static void print_frames(FILE *f, const struct thread_stack *t, bool have_kernel)
{
	if (have_kernel) {
		fprintf(f, "  kernel:\n");
		if (!t->nkframes)
			fprintf(f, "    (none: %s)\n",
				t->state == 'R' ? "running" : "in user space");
		for (size_t i = 0; i < t->nkframes; i++) {
			const struct stack_frame *k = &t->kframes[i];
			fprintf(f, "    %s%s%s%s\n", str_printable(k->text), k->module ? " [" : "",
				k->module ? str_printable(k->module) : "", k->module ? "]" : "");
		}
	}
	fprintf(f, "  user:\n");
	for (size_t i = 0; i < t->nuframes; i++) {
		const struct stack_frame *u = &t->uframes[i];
		fprintf(f, "    #%-2zu 0x%016" PRIx64 " %s (%s)%s%s\n", i, u->pc,
			u->text ? str_printable(u->text) : "??",
			u->module ? str_printable(u->module) : "[unknown]",
			u->srcline ? " at " : "", u->srcline ? str_printable(u->srcline) : "");
	}
	if (t->user_error)
		fprintf(f, "    (%s%s)\n", t->nuframes ? "unwinding stopped: " : "no user stack: ",
			str_printable(t->user_error));
}

/* "lock on object 0x... (Monitor)" / "mutex 0x...": what a lock row and a wait call it. */
static void print_lock_name(FILE *f, const struct lock_wait *w)
{
	if (w->kind == LOCK_WAIT_MONITOR && w->managed_lock)
		fprintf(f, "System.Threading.Lock 0x%" PRIx64, w->object);
	else if (w->kind == LOCK_WAIT_MONITOR && w->object)
		fprintf(f, "lock on object 0x%" PRIx64 " (Monitor)", w->object);
	else if (w->kind == LOCK_WAIT_MONITOR)
		fprintf(f, "Monitor lock 0x%" PRIx64, w->addr);
	else
		fprintf(f, "%smutex 0x%" PRIx64, w->pi ? "PI " : "", w->addr);
}

/* A .NET wait whose owner stacks cannot name, told by the frames it is in; NULL for others.
 * The text says what it waits for and why no owner is named. */
static const char *managed_wait(const struct thread_stack *t)
{
	/* the most telling first: SemaphoreSlim waits in Monitor.Wait */
	static const struct {
		const char *frame, *says;
	} waits[] = {
	    {"System.Threading.SemaphoreSlim.",
	     "wait for a SemaphoreSlim: no owner to name (a semaphore is released by whichever "
	     "thread calls Release)"},
	    {"System.Threading.Lock.",
	     "wait to enter a System.Threading.Lock: owner unknown (no locked Lock with waiters "
	     "and a live owner was found on the stack)"},
	    {"System.Threading.Monitor.Wait(",
	     "wait in Monitor.Wait for a Pulse: no owner to name (the lock is released while "
	     "waiting)"},
	};
	if (t->wait.kind != LOCK_WAIT_FUTEX)
		return NULL;
	for (size_t k = 0; k < ARRAY_SIZE(waits); k++)
		for (size_t i = 0; i < t->nuframes; i++)
			if (t->uframes[i].jit && t->uframes[i].text &&
			    str_startswith(t->uframes[i].text, waits[k].frame))
				return waits[k].says;
	return NULL;
}

static void print_wait(FILE *f, const struct stacks_snapshot *s, const struct lock_wait *w)
{
	if (w->kind == LOCK_WAIT_MONITOR) {
		const struct thread_stack *o = stacks_find_thread(s, w->owner);
		fprintf(f, "wait for ");
		print_lock_name(f, w);
		fprintf(f, " held by TID %d (%s)", (int)w->owner, o ? str_printable(o->comm) : "?");
	} else if (w->kind == LOCK_WAIT_MUTEX) {
		const struct thread_stack *o = stacks_find_thread(s, w->owner);
		fprintf(f, "wait for %smutex 0x%" PRIx64 " held by TID %d", w->pi ? "PI " : "",
			w->addr, (int)w->owner);
		if (o)
			fprintf(f, " (%s)", str_printable(o->comm));
		else
			fprintf(f, " (another process)");
	} else if (w->kind == LOCK_WAIT_FUTEX) {
		fprintf(f,
			"wait on futex 0x%" PRIx64 " (not a mutex: condition variable, join, "
			"semaphore...)",
			w->addr);
	}
}

/* A frame as a human compares it: its function without the offset, or its module when it
 * has no name. */
static void key_frame(FILE *m, const struct stack_frame *fr)
{
	if (fr->text) {
		const char *plus = strrchr(fr->text, '+');
		int len = (int)(plus ? plus - fr->text : (long)strlen(fr->text));
		/* a .NET method's tier ("[QuickJitted]", "[PreJIT]") is the same method */
		const char *tier = fr->jit ? memrchr(fr->text, '[', len) : NULL;
		if (tier && tier > fr->text && tier[-1] == ')')
			len = (int)(tier - fr->text);
		fprintf(m, "%.*s", len, fr->text);
	} else {
		fprintf(m, "??");
	}
	fprintf(m, " %s\n", fr->module ? fr->module : "");
}

/* What makes threads one group: state, kernel and user functions (names, not addresses) and
 * the lock they wait for (a plain futex's address is each thread's own: left out). */
static char *stack_key(const struct thread_stack *t, bool have_kernel)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return xstrdup("");
	fprintf(m, "%c\n", t->state);
	for (size_t i = 0; have_kernel && i < t->nkframes; i++)
		key_frame(m, &t->kframes[i]);
	fprintf(m, "--\n");
	for (size_t i = 0; i < t->nuframes; i++)
		key_frame(m, &t->uframes[i]);
	if (t->user_error)
		fprintf(m, "%s\n", t->user_error);
	if (t->wait.kind == LOCK_WAIT_MUTEX || t->wait.kind == LOCK_WAIT_MONITOR)
		fprintf(m, "wait %d %" PRIx64, (int)t->wait.kind, t->wait.addr);
	else if (t->wait.kind == LOCK_WAIT_FUTEX)
		fprintf(m, "futex");
	fclose(m);
	return buf;
}

struct lock_row {
	const struct lock_wait *w; /* of the first waiter */
	uint64_t addr;
	pid_t owner;
	size_t waiters;
};

static bool has_owner(const struct lock_wait *w)
{
	return (w->kind == LOCK_WAIT_MUTEX || w->kind == LOCK_WAIT_MONITOR) && w->owner;
}

static int cmp_lock_row(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;
	if (x->waiters != y->waiters)
		return x->waiters > y->waiters ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static size_t collect_locks(const struct stacks_snapshot *s, const bool *keep,
			    struct lock_row **out)
{
	struct lock_row *rows = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct lock_wait *w = &s->threads[i].wait;
		if (!keep[i] || !has_owner(w))
			continue;
		size_t j = 0;
		while (j < n && (rows[j].addr != w->addr || rows[j].owner != w->owner))
			j++;
		if (j == n) {
			grow_array((void **)&rows, &cap, n + 1, sizeof(*rows));
			rows[n++] = (struct lock_row){w, w->addr, w->owner, 0};
		}
		rows[j].waiters++;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_lock_row);
	*out = rows;
	return n;
}

/* Follows "waits for a mutex held by" from an owner and says so if it comes back around;
 * each cycle once, from its lowest TID. */
static void print_cycle(FILE *f, const struct stacks_snapshot *s, pid_t start)
{
	pid_t tid = start;
	for (size_t steps = 0; steps <= s->nthreads; steps++) {
		const struct thread_stack *t = stacks_find_thread(s, tid);
		if (!t || !has_owner(&t->wait))
			return;
		tid = t->wait.owner;
		if (tid < start)
			return;
		if (tid == start)
			break;
	}
	if (tid != start)
		return;
	fprintf(f, "  DEADLOCK: TID %d", (int)start);
	tid = start;
	do {
		const struct thread_stack *t = stacks_find_thread(s, tid);
		tid = t->wait.owner;
		fprintf(f, " -> ");
		print_lock_name(f, &t->wait);
		fprintf(f, " -> TID %d", (int)tid);
	} while (tid != start);
	fprintf(f, "\n");
}

static void print_thread_line(FILE *f, const struct thread_stack *t)
{
	fprintf(f, "TID %d (%s), state %c", (int)t->tid, str_printable(t->comm),
		t->state ? t->state : '?');
	if (t->wchan[0])
		fprintf(f, ", wchan %s", str_printable(t->wchan));
}

static void print_locks(FILE *f, const struct stacks_snapshot *s, const bool *keep)
{
	struct lock_row *rows;
	size_t n = collect_locks(s, keep, &rows);
	/* Waits whose owner cannot be named: one line each, how many and why. */
	const char *unknown[3];
	size_t counts[3] = {0}, nunknown = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		const char *mw = keep[i] ? managed_wait(&s->threads[i]) : NULL;
		size_t k = 0;
		while (mw && k < nunknown && unknown[k] != mw)
			k++;
		if (mw && k == nunknown && nunknown < ARRAY_SIZE(unknown))
			unknown[nunknown++] = mw;
		if (mw && k < nunknown)
			counts[k]++;
	}
	if (!n && !nunknown) {
		free(rows);
		return;
	}
	fprintf(f, "Locks:\n");
	for (size_t k = 0; k < nunknown; k++)
		fprintf(f, "  %zu thread%s %s%s\n", counts[k], counts[k] == 1 ? "" : "s",
			counts[k] == 1 ? "waits" : "wait", unknown[k] + 4);
	for (size_t i = 0; i < n; i++) {
		const struct thread_stack *o = stacks_find_thread(s, rows[i].owner);
		fprintf(f, "  %zu thread%s wait%s for ", rows[i].waiters,
			rows[i].waiters == 1 ? "" : "s", rows[i].waiters == 1 ? "s" : "");
		print_lock_name(f, rows[i].w);
		fprintf(f, " held by TID %d (%s)\n", (int)rows[i].owner,
			o ? str_printable(o->comm) : "another process");
	}
	for (size_t i = 0; i < n; i++)
		print_cycle(f, s, rows[i].owner);
	fprintf(f, "\n");
	/* Each owner's stack once, before any group: it is what everyone waits for. */
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= rows[j].owner == rows[i].owner;
		if (seen)
			continue;
		const struct thread_stack *o = stacks_find_thread(s, rows[i].owner);
		fprintf(f, "Owner of ");
		print_lock_name(f, rows[i].w);
		fprintf(f, ": ");
		if (!o) {
			fprintf(f, "TID %d, not a thread of this process\n\n", (int)rows[i].owner);
			continue;
		}
		print_thread_line(f, o);
		if (o->wait.kind != LOCK_WAIT_NONE) {
			fprintf(f, ",\n  itself ");
			print_wait(f, s, &o->wait);
		}
		fprintf(f, "\n");
		print_frames(f, o, s->have_kernel);
		fprintf(f, "\n");
	}
	free(rows);
}

/* comm, state or wchan of a thread as a string ("" when unknown). */
static const char *thread_field(const struct thread_stack *t, int field)
{
	static const char *const states[] = {"R", "S", "D", "T", "t", "Z", "X", "I", "P", "?"};
	if (field == 0)
		return t->comm;
	if (field == 2)
		return t->wchan;
	const char *p = strchr("RSDTtZXIP", t->state ? t->state : '?');
	return states[p ? p - "RSDTtZXIP" : 9];
}

static void print_group(FILE *f, const struct stacks_snapshot *s, const struct stack_group *g)
{
	const struct thread_stack *first = &s->threads[g->members[0]];
	fprintf(f, "%zu thread%s:", g->n, g->n == 1 ? "" : "s");
	for (size_t i = 0; i < g->n && i < MAX_TIDS_SHOWN; i++)
		fprintf(f, " %d", (int)s->threads[g->members[i]].tid);
	if (g->n > MAX_TIDS_SHOWN)
		fprintf(f, " ... (%zu more)", g->n - MAX_TIDS_SHOWN);
	/* Names, states and wait channels: each distinct value once, in first-seen order. */
	for (int field = 0; field < 3; field++) {
		static const char *const lead[3] = {" (", ", state ", ", wchan "};
		static const char *const tail[3] = {")", "", ""};
		size_t shown = 0;
		for (size_t i = 0; i < g->n; i++) {
			const char *v = thread_field(&s->threads[g->members[i]], field);
			bool dup = !v[0];
			for (size_t j = 0; j < i && !dup; j++)
				dup = !strcmp(thread_field(&s->threads[g->members[j]], field), v);
			if (dup)
				continue;
			if (shown == MAX_NAMES_SHOWN) { /* 500 thread names say less than 16 */
				fprintf(f, ",...");
				break;
			}
			fprintf(f, "%s%s", shown++ ? "," : lead[field], str_printable(v));
		}
		if (shown)
			fprintf(f, "%s", tail[field]);
	}
	fprintf(f, "\n");
	const char *mw = managed_wait(first);
	if (mw) {
		fprintf(f, "  %s\n", mw);
	} else if (first->wait.kind != LOCK_WAIT_NONE) {
		fprintf(f, "  ");
		print_wait(f, s, &first->wait);
		fprintf(f, "\n");
	}
	print_frames(f, first, s->have_kernel);
	fprintf(f, "\n");
}

static int cmp_group(const void *a, const void *b)
{
	const struct stack_group *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->members[0] > y->members[0]) - (x->members[0] < y->members[0]);
}

static int cmp_key_index(const void *a, const void *b, void *arg)
{
	char **keys = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(keys[x], keys[y]);
	return c ? c : (x > y) - (x < y);
}

size_t stacks_group(char **keys, size_t *idx, size_t n, struct stack_group **out)
{
	qsort_r(idx, n, sizeof(*idx), cmp_key_index, keys);
	struct stack_group *groups = xcalloc(n + 1, sizeof(*groups));
	size_t ngroups = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !strcmp(keys[idx[i]], keys[idx[j]]))
			j++;
		/* members ascending: equal keys keep their index order */
		groups[ngroups++] = (struct stack_group){idx + i, j - i};
		i = j;
	}
	qsort(groups, ngroups, sizeof(*groups), cmp_group);
	*out = groups;
	return ngroups;
}

int stacks_report_write(FILE *f, const struct stacks_snapshot *s,
			const struct stacks_report_opts *o)
{
	bool *keep = xcalloc(s->nthreads + 1, sizeof(*keep));
	size_t nkeep = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		keep[i] = (!o->module || stacks_thread_has_module(&s->threads[i], o->module)) &&
			  (!o->states || strchr(o->states, s->threads[i].state));
		nkeep += keep[i];
	}
	fprintf(f, "Process %d (%s): %zu thread%s", (int)s->pid, str_printable(s->comm),
		s->nthreads, s->nthreads == 1 ? "" : "s");
	if (s->nspid != s->pid)
		fprintf(f, ", PID %d in its namespace", (int)s->nspid);
	fprintf(f, ", stopped for %.1f ms (snapshot %.1f ms)\n", s->stopped_ns / 1e6,
		s->total_ns / 1e6);
	if (o->module || o->states)
		fprintf(f, "Showing the %zu thread%s%s%s%s%s\n", nkeep, nkeep == 1 ? "" : "s",
			o->module ? " with " : "", o->module ? o->module : "",
			o->module ? " on the stack" : "", o->states ? " in that state" : "");
	if (s->kernel_note)
		fprintf(f, "No kernel stacks: %s\n", s->kernel_note);
	if (s->dotnet_done)
		fprintf(f, ".NET: %s\n", s->dotnet_done);
	if (s->jit_files)
		fprintf(f, "JIT frames named from %s\n", str_printable(s->jit_files));
	if (s->jit_note)
		fprintf(f, "%s\n", s->jit_note);
	if (s->unnamed_jit)
		fprintf(f, "%zu frame%s in JIT code or .NET images unnamed%s%s\n", s->unnamed_jit,
			s->unnamed_jit == 1 ? "" : "s", s->dotnet_note ? ": " : "",
			s->dotnet_note ? s->dotnet_note : "");
	else if (s->dotnet_note)
		fprintf(f, ".NET: %s\n", s->dotnet_note);
	fprintf(f, "\n");
	print_locks(f, s, keep);

	char **keys = xcalloc(s->nthreads + 1, sizeof(*keys));
	size_t *order = xcalloc(s->nthreads + 1, sizeof(*order));
	size_t n = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		keys[i] = stack_key(&s->threads[i], s->have_kernel);
		if (keep[i])
			order[n++] = i;
	}
	struct stack_group *groups;
	size_t ngroups = stacks_group(keys, order, n, &groups);
	for (size_t i = 0; i < ngroups; i++)
		print_group(f, s, &groups[i]);

	for (size_t i = 0; i < s->nthreads; i++)
		free(keys[i]);
	free(keys);
	free(order);
	free(groups);
	free(keep);
	if (fflush(f) != 0 || ferror(f))
		return pc_err_errno("writing the report");
	return 0;
}
