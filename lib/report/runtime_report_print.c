/* runtime_report_print: the text of the runtime events report (see runtime_report.h). */
#include "runtime_report_int.h"
#include "calltree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1e6
#define MB	  (1024.0 * 1024.0)

static double ms(uint64_t ns)
{
	return (double)ns / NS_PER_MS;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- GCs ------------------------------------------------------------------------------ */

struct gc_row {
	uint32_t gen, reason, type;
	uint64_t count, heap_sum, heap_n;
	double paused, max_pause;
};

static int cmp_gc_row(const void *a, const void *b)
{
	const struct gc_row *x = a, *y = b;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	return (x->type > y->type) - (x->type < y->type);
}

static int cmp_gc_by_pause(const void *a, const void *b)
{
	const struct rt_gc *x = *(const struct rt_gc *const *)a,
			   *y = *(const struct rt_gc *const *)b;
	if (x->pause_ns != y->pause_ns)
		return x->pause_ns > y->pause_ns ? -1 : 1;
	return (x->number > y->number) - (x->number < y->number);
}

static void print_gcs(FILE *out, const struct rt_process *p, size_t top)
{
	uint64_t wall = p->end_ns - p->start_ns;
	struct gc_row *rows = xcalloc(p->ngcs + 1, sizeof(*rows));
	size_t nrows = 0, complete = 0;
	double paused = 0, max_pause = 0, alloc = 0, max_rate = 0;
	uint64_t per_gen[3] = {0, 0, 0}, peak = 0;
	for (size_t i = 0; i < p->ngcs; i++) {
		const struct rt_gc *g = &p->gcs[i];
		if (!g->complete)
			continue;
		complete++;
		double pause = g->pause_ns;
		paused += pause;
		if (pause > max_pause)
			max_pause = pause;
		if (g->gen < 3)
			per_gen[g->gen]++;
		alloc += g->gen0_alloc;
		if (rt_gc_alloc_rate(g) > max_rate)
			max_rate = rt_gc_alloc_rate(g);
		if (g->heap_peak > peak)
			peak = g->heap_peak;
		size_t r = 0;
		while (r < nrows && !(rows[r].gen == g->gen && rows[r].reason == g->reason &&
				      rows[r].type == g->type))
			r++;
		if (r == nrows)
			rows[nrows++] =
			    (struct gc_row){.gen = g->gen, .reason = g->reason, .type = g->type};
		rows[r].count++;
		rows[r].paused += pause;
		if (pause > rows[r].max_pause)
			rows[r].max_pause = pause;
		if (g->has_heap) {
			rows[r].heap_sum += g->heap_after;
			rows[r].heap_n++;
		}
	}
	if (!complete) {
		fprintf(out, "\n# GCs: none in %.3f s\n", secs(wall));
		free(rows);
		return;
	}
	qsort(rows, nrows, sizeof(*rows), cmp_gc_row);
	fprintf(out,
		"\n# GCs: %zu (gen0 %llu, gen1 %llu, gen2 %llu) in %.3f s; paused %.3f ms in total "
		"(%.2f%% of the wall time), longest %.3f ms\n",
		complete, (unsigned long long)per_gen[0], (unsigned long long)per_gen[1],
		(unsigned long long)per_gen[2], secs(wall), paused / NS_PER_MS,
		wall ? 100.0 * paused / (double)wall : 0.0, max_pause / NS_PER_MS);
	fprintf(out,
		"# (pauses as TraceEvent's analysis and PerfView's GCStats count them: from the "
		"suspension of the runtime to its restart)\n");
	fprintf(out,
		"# Gen0 allocated %.3f MB, at most %.2f MB/s between GCs; peak heap %.3f MB (MB of "
		"10^6 bytes, as GCStats; -format csv: every GC's columns)\n",
		alloc / 1e6, max_rate, (double)peak / 1e6);
	fprintf(out, "# %4s  %-22s %-14s %6s %12s %9s %7s %14s\n", "gen", "reason", "type", "count",
		"paused ms", "max ms", "% wall", "heap after MB");
	for (size_t r = 0; r < nrows; r++)
		fprintf(out, "  %4u  %-22s %-14s %6llu %12.3f %9.3f %7.2f %14.1f\n", rows[r].gen,
			rt_gc_reason_name(rows[r].reason), rt_gc_type_name(rows[r].type),
			(unsigned long long)rows[r].count, rows[r].paused / NS_PER_MS,
			rows[r].max_pause / NS_PER_MS,
			wall ? 100.0 * rows[r].paused / (double)wall : 0.0,
			rows[r].heap_n ? (double)rows[r].heap_sum / (double)rows[r].heap_n / MB
				       : 0.0);
	free(rows);
	if (complete < p->ngcs)
		fprintf(out, "# (and %zu GCs not complete: cut off by the trace's end)\n",
			p->ngcs - complete);
	if (p->other_suspensions)
		fprintf(out, "# (and %llu suspensions of the runtime for something else)\n",
			(unsigned long long)p->other_suspensions);

	/* The longest pauses, on the samples' clock. */
	if (!p->nby_pause)
		return;
	const struct rt_gc **v = xmalloc(p->nby_pause * sizeof(*v));
	for (size_t i = 0; i < p->nby_pause; i++)
		v[i] = p->by_pause[i];
	qsort(v, p->nby_pause, sizeof(*v), cmp_gc_by_pause);
	size_t n = p->nby_pause < top ? p->nby_pause : top;
	fprintf(out,
		"# Longest pauses (times: CLOCK_MONOTONIC s, the clock of the CPU samples%s):\n",
		p->samples ? "; samples: CPU samples of the process inside the pause" : "");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  GC #%-6u gen%u %-18s at %.6f s: paused %.3f ms", v[i]->number,
			v[i]->gen, rt_gc_reason_name(v[i]->reason), secs(v[i]->pause_start_ns),
			v[i]->pause_ns / NS_PER_MS);
		if (p->samples)
			fprintf(out, ", %llu samples", (unsigned long long)v[i]->samples);
		fputc('\n', out);
	}
	free(v);
	if (p->samples)
		fprintf(out, "# CPU samples of pid %ld inside GC pauses: %llu of %llu (%.2f%%)\n",
			p->host_pid, (unsigned long long)p->samples_in_pauses,
			(unsigned long long)p->samples,
			100.0 * (double)p->samples_in_pauses / (double)p->samples);
}

/* ---- exceptions and contention ------------------------------------------------------- */

/* The machinery between a throw or a wait and the code that did it. */
static const char *const eh_frames[] = {"System.Runtime.EH.", "System.ThrowHelper.", NULL};
static const char *const lock_frames[] = {"System.Threading.", NULL};

static bool skipped(const char *method, const char *const *skip)
{
	for (; *skip; skip++)
		if (str_startswith(method, *skip))
			return true;
	return false;
}

const char *rt_site(const struct calltree *t, uint32_t leaf, bool lock)
{
	const struct functable *ft = calltree_functable(t);
	for (uint32_t a = calltree_node(t, leaf)->parent; a != CALLTREE_ROOT;
	     a = calltree_node(t, a)->parent) {
		uint32_t f = calltree_node(t, a)->func;
		if (functable_kind(ft, f) == FRAME_PROCESS)
			break;
		if (frame_kind_managed(functable_kind(ft, f)) &&
		    !skipped(functable_name(ft, f), lock ? lock_frames : eh_frames))
			return functable_name(ft, f);
	}
	return NULL;
}

/* The process frame a node is under. */
static const char *process_of_node(const struct calltree *t, uint32_t i)
{
	const struct functable *ft = calltree_functable(t);
	for (uint32_t a = i; a != CALLTREE_ROOT; a = calltree_node(t, a)->parent)
		if (functable_kind(ft, calltree_node(t, a)->func) == FRAME_PROCESS)
			return functable_name(ft, calltree_node(t, a)->func);
	return "";
}

/* "leaf\x1fsite" of process host_pid's stacks, tallied with their weight. */
static void tally_sites(const struct calltree *t, long host_pid, bool lock, struct rt_tally *out)
{
	const struct functable *ft = calltree_functable(t);
	char proc[32];
	snprintf(proc, sizeof(proc), RT_PROCESS_FRAME, host_pid);
	for (uint32_t i = 1; i < calltree_count(t); i++) {
		const struct calltree_node *nd = calltree_node(t, i);
		if (!nd->self || strcmp(process_of_node(t, i), proc))
			continue;
		const char *site = rt_site(t, i, lock);
		char *k = xasprintf("%s%c%s", functable_name(ft, nd->func), 0x1f,
				    site ? site : "(no managed frame named)");
		rt_tally_add(out, k, nd->self, (double)nd->self);
		free(k);
	}
}

static void print_exceptions(FILE *out, const struct rt_process *p, size_t top,
			     const struct calltree *tree)
{
	if (!p->nexceptions) {
		fprintf(out, "\n# Exceptions: none thrown\n");
		return;
	}
	struct rt_tally sites = {0};
	if (tree)
		tally_sites(tree, p->host_pid, false, &sites);
	struct rt_tally_entry **tv = rt_tally_sorted(&p->exceptions),
			      **sv = rt_tally_sorted(&sites);
	fprintf(out, "\n# Exceptions: %llu thrown, %zu types\n", (unsigned long long)p->nexceptions,
		p->exceptions.n);
	fprintf(out, "# %7s  %-44s %s\n", "count", "type", "thrown by (count)");
	for (size_t i = 0; i < p->exceptions.n && i < top; i++) {
		fprintf(out, "  %7llu  %-44s", (unsigned long long)tv[i]->count,
			str_printable(tv[i]->key));
		size_t shown = 0, klen = strlen(tv[i]->key);
		for (size_t k = 0; k < sites.n && shown < 3; k++) {
			const char *key = sv[k]->key;
			if (strncmp(key, tv[i]->key, klen) || key[klen] != 0x1f)
				continue;
			fprintf(out, "%s%s (%llu)", shown++ ? ", " : " ",
				str_printable(key + klen + 1), (unsigned long long)sv[k]->count);
		}
		fputc('\n', out);
	}
	free(tv);
	free(sv);
	rt_tally_release(&sites);
}

static void print_contention(FILE *out, const struct rt_process *p, size_t top,
			     const struct calltree *tree)
{
	if (!p->waits) {
		fprintf(out, "\n# Lock contention: none\n");
		return;
	}
	fprintf(out, "\n# Lock contention: %llu waits, %.3f ms waited in total\n",
		(unsigned long long)p->waits, p->wait_ns / NS_PER_MS);
	if (!tree)
		return;
	/* The method that waited, not the lock's own code. */
	struct rt_tally by = {0};
	tally_sites(tree, p->host_pid, true, &by);
	struct rt_tally_entry **v = rt_tally_sorted(&by);
	fprintf(out, "# %12s  %-34s %s\n", "waited ms", "lock", "method that waited");
	for (size_t i = 0; i < by.n && i < top; i++) {
		const char *sep = strchr(v[i]->key, 0x1f);
		fprintf(out, "  %12.3f  %-34s %s\n", v[i]->sum / NS_PER_MS,
			str_printable_n(v[i]->key, (size_t)(sep - v[i]->key)),
			str_printable(sep + 1));
	}
	free(v);
	rt_tally_release(&by);
	/* Who held each lock (ContentionStart version 2, .NET 8 and later, names the owner). */
	struct rt_tally_entry **o = rt_tally_sorted(&p->owners);
	for (size_t i = 0; i < p->owners.n && i < top; i++) {
		const char *sep = strchr(o[i]->key, 0x1f);
		fprintf(out, "#   %s was held by thread %s in %llu of the waits\n",
			str_printable_n(o[i]->key, (size_t)(sep - o[i]->key)), sep + 1,
			(unsigned long long)o[i]->count);
	}
	free(o);
}

/* ---- JIT and allocations ------------------------------------------------------------------------
 */

static int cmp_jit(const void *a, const void *b)
{
	const struct rt_jit *x = *(const struct rt_jit *const *)a,
			    *y = *(const struct rt_jit *const *)b;
	uint64_t dx = rt_jit_ns(x), dy = rt_jit_ns(y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_jit(FILE *out, const struct rt_process *p, size_t top)
{
	if (!p->njits) {
		fprintf(out, "\n# JIT: no method compiled\n");
		return;
	}
	size_t n;
	uint64_t total;
	const struct rt_jit **v = rt_jits_ended(p->jits, p->njits, &n, &total);
	qsort(v, n, sizeof(*v), cmp_jit);
	fprintf(out, "\n# JIT: %zu methods compiled, %.3f ms of JIT time", n, ms(total));
	if (n < p->njits)
		fprintf(out, " (and %zu still compiling at the end)", p->njits - n);
	fprintf(out, "\n# %10s %9s %-12s %s\n", "JIT ms", "IL bytes", "tier", "method");
	for (size_t i = 0; i < n && i < top; i++)
		fprintf(out, "  %10.3f %9u %-12s %s\n", ms(rt_jit_ns(v[i])), v[i]->il_size,
			rt_method_tier_name(v[i]->flags), str_printable(v[i]->name));
	free(v);
}

static void print_allocs(FILE *out, const struct rt_process *p, size_t top)
{
	if (!p->alloc_events) {
		fprintf(out, "\n# Allocation ticks: none (they come with the GC keyword at verbose "
			     "level: collect -gconly, or -events DotNETRuntime_GCKeyword)\n");
		return;
	}
	struct rt_tally_entry **v = rt_tally_sorted(&p->allocs);
	double total = 0;
	for (size_t i = 0; i < p->allocs.n; i++)
		total += p->allocs.e[i].sum;
	fprintf(out, "\n# Allocation ticks: %llu (one per ~100 KB allocated), %.1f MB, %zu types\n",
		(unsigned long long)p->alloc_events, total / MB, p->allocs.n);
	fprintf(out, "# %7s %10s  %s\n", "ticks", "MB", "type");
	for (size_t i = 0; i < p->allocs.n && i < top; i++)
		fprintf(out, "  %7llu %10.1f  %s\n", (unsigned long long)v[i]->count,
			v[i]->sum / MB, str_printable(v[i]->key));
	free(v);
}

int runtime_report_print(const struct runtime_report *rr, FILE *out,
			 const struct runtime_report_opts *o)
{
	size_t top = o->top ? o->top : 20;
	for (size_t i = 0; i < rr->nprocs; i++) {
		const struct rt_process *p = &rr->procs[i];
		if (o->pid >= 0 && p->host_pid != o->pid)
			continue;
		fprintf(out, "# .NET runtime events of pid %ld", p->host_pid);
		if (p->pid && (long)p->pid != p->host_pid)
			fprintf(out, " (pid %u in its namespace)", p->pid);
		fprintf(out, ": %s, %llu events, %.3f s from %.6f s (CLOCK_MONOTONIC)\n",
			str_printable(p->name), (unsigned long long)p->events,
			secs(p->end_ns - p->start_ns), secs(p->start_ns));
		if (p->lost)
			fprintf(out,
				"# warning: the runtime dropped %llu events (its buffer was "
				"full); counts below are low\n",
				(unsigned long long)p->lost);
		if (p->truncated)
			fprintf(out,
				"# note: the stream stops before its end (the process exited, or "
				"the collection was cut short)\n");
		print_gcs(out, p, top < 5 ? top : 5);
		print_exceptions(out, p, top, o->exceptions);
		print_contention(out, p, top, o->contention);
		print_jit(out, p, top);
		print_allocs(out, p, top);
		fputc('\n', out);
	}
	if (ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}
