/* kstacks: see kstacks.h. */
#include "kstacks.h"
#include "stacks_report.h"

#include "base/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PF_KTHREAD	0x00200000u
#define MAX_TIDS_SHOWN	64
#define MAX_NAMES_SHOWN 12

/* state and PF_KTHREAD from the task's stat; false when the task is gone. */
static bool read_stat(pid_t pid, pid_t tid, struct task_stack *t)
{
	struct proc_stat st;
	if (proc_task_stat(pid, tid, &st) < 0)
		return false;
	t->state = st.state;
	t->kthread = (st.flags & PF_KTHREAD) != 0;
	return true;
}

/* Reads one task; false when it is gone or filtered out by state. */
static bool read_task(pid_t pid, pid_t tid, const struct kernel_opts *o, struct task_stack *t,
		      struct kernel_snapshot *k)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	if (!read_stat(pid, tid, t))
		return false;
	k->seen++;
	k->kthreads_seen += t->kthread;
	if (o->states && !strchr(o->states, t->state))
		return false;
	proc_comm(pid, tid, t->comm, sizeof(t->comm));
	if (t->kthread && str_startswith(t->comm, "kworker/")) {
		/* "kworker/0:1-events": '-' serving, '+' a rescuer (kernel's wq_worker_comm) */
		char *sep = strpbrk(t->comm + 8, "-+");
		if (sep)
			snprintf(t->workqueue, sizeof(t->workqueue), "%s", sep + 1);
	}
	proc_task_line(pid, tid, TASK_WCHAN, t->wchan, sizeof(t->wchan));
	if (!strcmp(t->wchan, "0"))
		t->wchan[0] = 0;
	char *text = proc_task_read(pid, tid, TASK_STACK, NULL);
	bool have_stack = text != NULL;
	if (text) {
		t->nkframes = stacks_parse_kernel_stack(text, &t->kframes);
		free(text);
	} else if (!k->stack_note && (errno == EACCES || errno == EPERM)) {
		k->stack_note = xstrdup("reading /proc/<pid>/task/<tid>/stack needs root and "
					"ptrace access to the task");
	} else if (!k->stack_note && errno == ENOENT && proc_exists(pid)) {
		k->stack_note = xstrdup("this kernel has no /proc/<pid>/task/<tid>/stack "
					"(CONFIG_STACKTRACE)");
	}
	if (o->module && !stacks_kframes_have(t->kframes, t->nkframes, o->module)) {
		stacks_free_frames(t->kframes, t->nkframes);
		return false;
	}
	k->no_stack += !have_stack;
	return true;
}

struct kernel_snapshot *kernel_snapshot_take(const struct kernel_opts *o)
{
	uint64_t t0 = monotonic_ns();
	pid_t *pids;
	size_t npids;
	if (proc_pids(&pids, &npids) < 0)
		return NULL;
	struct kernel_snapshot *k = xcalloc(1, sizeof(*k));
	size_t cap = 0;
	for (size_t i = 0; i < npids; i++) {
		pid_t *tids;
		size_t ntids;
		if (proc_threads(pids[i], &tids, &ntids) < 0)
			continue; /* gone meanwhile */
		for (size_t j = 0; j < ntids; j++) {
			grow_array((void **)&k->tasks, &cap, k->ntasks + 1, sizeof(*k->tasks));
			struct task_stack *t = &k->tasks[k->ntasks];
			if (read_task(pids[i], tids[j], o, t, k))
				k->ntasks++;
		}
		free(tids);
	}
	free(pids);
	if (!k->kthreads_seen)
		k->hidden_note = xstrdup(
		    "no kernel threads are visible: this is not the host's PID namespace, so only "
		    "its own tasks are shown (run in the host's PID namespace to see every task, "
		    "e.g. a sidecar with hostPID or 'docker run --pid=host')");
	k->total_ns = monotonic_ns() - t0;
	return k;
}

void kernel_snapshot_free(struct kernel_snapshot *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->ntasks; i++)
		stacks_free_frames(k->tasks[i].kframes, k->tasks[i].nkframes);
	free(k->tasks);
	free(k->stack_note);
	free(k->hidden_note);
	free(k);
}

/* ---- the report ---- */

/* The grouping key: state, wait channel, kernel functions (not offsets), kernel thread or
 * not; the workqueue is shown, not compared (a kworker serves many). */
static char *task_key(const struct task_stack *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return xstrdup("");
	fprintf(m, "%c %d %s\n", t->state, t->kthread, t->wchan);
	for (size_t i = 0; i < t->nkframes; i++) {
		const char *text = t->kframes[i].text;
		fprintf(m, "%.*s %s\n", (int)strcspn(text, "+"), text,
			t->kframes[i].module ? t->kframes[i].module : "");
	}
	fclose(m);
	return buf;
}

/* Each distinct value once, in first-seen order, at most MAX_NAMES_SHOWN. */
static void print_distinct(FILE *f, const struct kernel_snapshot *k, const struct stack_group *g,
			   const char *lead, bool workqueue)
{
	size_t shown = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct task_stack *t = &k->tasks[g->members[i]];
		const char *v = workqueue ? t->workqueue : t->comm;
		bool dup = !v[0];
		for (size_t j = 0; j < i && !dup; j++) {
			const struct task_stack *u = &k->tasks[g->members[j]];
			dup = !strcmp(workqueue ? u->workqueue : u->comm, v);
		}
		if (dup)
			continue;
		if (shown++ == MAX_NAMES_SHOWN) {
			fprintf(f, ",...");
			break;
		}
		fprintf(f, "%s%s", shown == 1 ? lead : ",", str_printable(v));
	}
	if (shown && !workqueue)
		fprintf(f, ")");
}

static void print_kgroup(FILE *f, const struct kernel_snapshot *k, const struct stack_group *g)
{
	const struct task_stack *first = &k->tasks[g->members[0]];
	fprintf(f, "%zu task%s:", g->n, g->n == 1 ? "" : "s");
	for (size_t i = 0; i < g->n && i < MAX_TIDS_SHOWN; i++) {
		const struct task_stack *t = &k->tasks[g->members[i]];
		if (t->tid == t->pid)
			fprintf(f, " %d", (int)t->tid);
		else
			fprintf(f, " %d/%d", (int)t->pid, (int)t->tid);
	}
	if (g->n > MAX_TIDS_SHOWN)
		fprintf(f, " ... (%zu more)", g->n - MAX_TIDS_SHOWN);
	print_distinct(f, k, g, " (", false);
	fprintf(f, ", state %c%s", first->state, first->kthread ? ", kernel thread" : "");
	if (first->wchan[0])
		fprintf(f, ", wchan %s", first->wchan);
	print_distinct(f, k, g, ", workqueue ", true);
	fprintf(f, "\n");
	if (!first->nkframes)
		fprintf(f, "    (no kernel stack%s)\n",
			first->state == 'R' ? ": running" : ": unreadable");
	for (size_t i = 0; i < first->nkframes; i++) {
		const struct stack_frame *fr = &first->kframes[i];
		fprintf(f, "    %s%s%s%s\n", fr->text, fr->module ? " [" : "",
			fr->module ? fr->module : "", fr->module ? "]" : "");
	}
	fprintf(f, "\n");
}

int kernel_report_write(FILE *f, const struct kernel_snapshot *k, const struct kernel_opts *o)
{
	fprintf(f, "Kernel: %zu of %zu tasks", k->ntasks, k->seen);
	if (o->states || o->module) {
		fprintf(f, " (");
		if (o->states)
			fprintf(f, "state %s", o->states);
		if (o->module)
			fprintf(f, "%swith %s on the kernel stack", o->states ? ", " : "",
				o->module);
		fprintf(f, ")");
	}
	fprintf(f, ", read in %.1f ms; nothing was stopped\n", k->total_ns / 1e6);
	if (k->hidden_note)
		fprintf(f, "Hidden: %s\n", k->hidden_note);
	if (k->no_stack && k->no_stack == k->ntasks)
		fprintf(f, "No kernel stacks: %s\n", k->stack_note ? k->stack_note : "unreadable");
	else if (k->no_stack)
		fprintf(f, "No kernel stack for %zu task%s: %s\n", k->no_stack,
			k->no_stack == 1 ? "" : "s", k->stack_note ? k->stack_note : "unreadable");
	fprintf(f, "\n");
	char **keys = xcalloc(k->ntasks + 1, sizeof(*keys));
	size_t *order = xcalloc(k->ntasks + 1, sizeof(*order));
	for (size_t i = 0; i < k->ntasks; i++) {
		keys[i] = task_key(&k->tasks[i]);
		order[i] = i;
	}
	struct stack_group *groups;
	size_t ngroups = stacks_group(keys, order, k->ntasks, &groups);
	for (size_t i = 0; i < ngroups; i++)
		print_kgroup(f, k, &groups[i]);
	for (size_t i = 0; i < k->ntasks; i++)
		free(keys[i]);
	free(keys);
	free(order);
	free(groups);
	if (fflush(f) != 0 || ferror(f))
		return pc_err_errno("writing the report");
	return 0;
}
