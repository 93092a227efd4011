/* runtime_report_print: the text of the runtime events report (see runtime_report.h). */
#include "runtime_report_int.h"
#include "nettrace/runtime_events.h"

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

/* ---- GCs
 * ----------------------------------------------------------------------------------------- */

struct gc_row {
	uint32_t gen, reason, type;
	uint64_t count, paused, max_pause, heap_sum, heap_n, last_heap;
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
	uint64_t px = x->pause_end - x->pause_start, py = y->pause_end - y->pause_start;
	if (px != py)
		return px > py ? -1 : 1;
	return (x->number > y->number) - (x->number < y->number);
}

static void print_gcs(FILE *out, const struct rt_process *p, size_t top)
{
	uint64_t wall = p->end_ns - p->start_ns;
	if (!p->ngcs) {
		fprintf(out, "\n# GCs: none in %.3f s\n", secs(wall));
		return;
	}
	struct gc_row *rows = xcalloc(p->ngcs, sizeof(*rows));
	size_t nrows = 0;
	uint64_t paused = 0, max_pause = 0, per_gen[3] = {0, 0, 0};
	for (size_t i = 0; i < p->ngcs; i++) {
		const struct rt_gc *g = &p->gcs[i];
		uint64_t pause = g->pause_start ? g->pause_end - g->pause_start : 0;
		/* GCs of one suspension share its pause: count it once, for the first. */
		if (i && g->pause_start && p->gcs[i - 1].pause_start == g->pause_start)
			pause = 0;
		paused += pause;
		if (pause > max_pause)
			max_pause = pause;
		if (g->gen < 3)
			per_gen[g->gen]++;
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
			rows[r].last_heap = g->heap_after;
		}
	}
	qsort(rows, nrows, sizeof(*rows), cmp_gc_row);
	fprintf(out,
		"\n# GCs: %zu (gen0 %llu, gen1 %llu, gen2 %llu) in %.3f s; paused %.3f ms in total "
		"(%.2f%% of the wall time), longest %.3f ms\n",
		p->ngcs, (unsigned long long)per_gen[0], (unsigned long long)per_gen[1],
		(unsigned long long)per_gen[2], secs(wall), ms(paused),
		wall ? 100.0 * (double)paused / (double)wall : 0.0, ms(max_pause));
	fprintf(out, "# %4s  %-22s %-14s %6s %12s %9s %7s %14s\n", "gen", "reason", "type", "count",
		"paused ms", "max ms", "% wall", "heap after MB");
	for (size_t r = 0; r < nrows; r++)
		fprintf(
		    out, "  %4u  %-22s %-14s %6llu %12.3f %9.3f %7.2f %14.1f\n", rows[r].gen,
		    rt_gc_reason_name(rows[r].reason), rt_gc_type_name(rows[r].type),
		    (unsigned long long)rows[r].count, ms(rows[r].paused), ms(rows[r].max_pause),
		    wall ? 100.0 * (double)rows[r].paused / (double)wall : 0.0,
		    rows[r].heap_n ? (double)rows[r].heap_sum / (double)rows[r].heap_n / MB : 0.0);
	free(rows);
	if (p->other_pauses)
		fprintf(out, "# (and %llu suspensions of the runtime without a GC)\n",
			(unsigned long long)p->other_pauses);

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
			v[i]->gen, rt_gc_reason_name(v[i]->reason), secs(v[i]->pause_start),
			ms(v[i]->pause_end - v[i]->pause_start));
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

/* ---- exceptions and contention ------------------------------------------------------------------
 */

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

/* The first frame (leaf first) that names a method other than the skipped machinery; the
 * event's own address (ExceptionThrown's EIP) only without a stack: runtimes differ in
 * which frame it names. */
static const char *first_method(const struct rt_process *p, uint64_t eip, const uint64_t *ips,
				size_t n, const char *const *skip)
{
	for (size_t i = 0; i < n; i++) {
		const char *m = rt_process_method_at(p, ips[i]);
		if (*m && !skipped(m, skip))
			return m;
	}
	const char *m = eip ? rt_process_method_at(p, eip) : "";
	if (*m && !skipped(m, skip))
		return m;
	return n ? "(no managed frame named)" : "(no stack)";
}

static void print_exceptions(FILE *out, const struct rt_process *p, size_t top)
{
	if (!p->nthrows) {
		fprintf(out, "\n# Exceptions: none thrown\n");
		return;
	}
	struct rt_tally types = {0}, sites = {0};
	for (size_t i = 0; i < p->nthrows; i++) {
		const struct rt_throw *t = &p->throws[i];
		rt_tally_add(&types, t->type, 1, 0);
		char *key = xasprintf("%s%c%s", t->type, 0x1f,
				      first_method(p, t->eip, t->ips, t->n, eh_frames));
		rt_tally_add(&sites, key, 1, 0);
		free(key);
	}
	struct rt_tally_entry **tv = rt_tally_sorted(&types), **sv = rt_tally_sorted(&sites);
	fprintf(out, "\n# Exceptions: %zu thrown, %zu types\n", p->nthrows, types.n);
	fprintf(out, "# %7s  %-44s %s\n", "count", "type", "thrown by (count)");
	for (size_t i = 0; i < types.n && i < top; i++) {
		fprintf(out, "  %7llu  %-44s", (unsigned long long)tv[i]->count, tv[i]->key);
		size_t shown = 0, klen = strlen(tv[i]->key);
		for (size_t k = 0; k < sites.n && shown < 3; k++) {
			const char *key = sv[k]->key;
			if (strncmp(key, tv[i]->key, klen) || key[klen] != 0x1f)
				continue;
			fprintf(out, "%s%s (%llu)", shown++ ? ", " : " ", key + klen + 1,
				(unsigned long long)sv[k]->count);
		}
		fputc('\n', out);
	}
	free(tv);
	free(sv);
	rt_tally_release(&types);
	rt_tally_release(&sites);
}

static void print_contention(FILE *out, const struct rt_process *p, size_t top)
{
	if (!p->nwaits) {
		fprintf(out, "\n# Lock contention: none\n");
		return;
	}
	struct rt_tally by = {0};
	double total = 0;
	for (size_t i = 0; i < p->nwaits; i++) {
		const struct rt_wait *w = &p->waits[i];
		/* The method that waited, not the lock's own code. */
		rt_tally_add(&by, first_method(p, 0, w->ips, w->n, lock_frames), 1, w->wait_ns);
		total += w->wait_ns;
	}
	struct rt_tally_entry **v = rt_tally_sorted(&by);
	fprintf(out, "\n# Lock contention: %zu waits, %.3f ms waited in total\n", p->nwaits,
		total / NS_PER_MS);
	fprintf(out, "# %7s %12s  %s\n", "waits", "waited ms", "method that waited");
	for (size_t i = 0; i < by.n && i < top; i++)
		fprintf(out, "  %7llu %12.3f  %s\n", (unsigned long long)v[i]->count,
			v[i]->sum / NS_PER_MS, v[i]->key);
	free(v);
	rt_tally_release(&by);
}

/* ---- JIT and allocations ------------------------------------------------------------------------
 */

static int cmp_jit(const void *a, const void *b)
{
	const struct rt_jit *x = *(const struct rt_jit *const *)a,
			    *y = *(const struct rt_jit *const *)b;
	uint64_t dx = x->end_ns - x->start_ns, dy = y->end_ns - y->start_ns;
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
	const struct rt_jit **v = xmalloc(p->njits * sizeof(*v));
	size_t n = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < p->njits; i++)
		if (p->jits[i].end_ns) {
			v[n++] = &p->jits[i];
			total += p->jits[i].end_ns - p->jits[i].start_ns;
		}
	qsort(v, n, sizeof(*v), cmp_jit);
	fprintf(out, "\n# JIT: %zu methods compiled, %.3f ms of JIT time", p->njits, ms(total));
	if (n < p->njits)
		fprintf(out, " (%zu still compiling at the end)", p->njits - n);
	fprintf(out, "\n# %10s %9s %-12s %s\n", "JIT ms", "IL bytes", "tier", "method");
	for (size_t i = 0; i < n && i < top; i++)
		fprintf(out, "  %10.3f %9u %-12s %s\n", ms(v[i]->end_ns - v[i]->start_ns),
			v[i]->il_size, rt_method_tier_name(v[i]->flags), v[i]->name);
	free(v);
}

static void print_allocs(FILE *out, const struct rt_process *p, size_t top)
{
	if (!p->alloc_ticks) {
		fprintf(out, "\n# Allocation ticks: none (they come with the GC keyword at verbose "
			     "level: collect -gconly, or -events DotNETRuntime_GCKeyword)\n");
		return;
	}
	struct rt_tally_entry **v = rt_tally_sorted(&p->allocs);
	double total = 0;
	for (size_t i = 0; i < p->allocs.n; i++)
		total += p->allocs.e[i].sum;
	fprintf(out, "\n# Allocation ticks: %llu (one per ~100 KB allocated), %.1f MB, %zu types\n",
		(unsigned long long)p->alloc_ticks, total / MB, p->allocs.n);
	fprintf(out, "# %7s %10s  %s\n", "ticks", "MB", "type");
	for (size_t i = 0; i < p->allocs.n && i < top; i++)
		fprintf(out, "  %7llu %10.1f  %s\n", (unsigned long long)v[i]->count,
			v[i]->sum / MB, v[i]->key);
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
		fprintf(out, ": %s, %llu events, %.3f s from %.6f s (CLOCK_MONOTONIC)\n", p->name,
			(unsigned long long)p->events, secs(p->end_ns - p->start_ns),
			secs(p->start_ns));
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
		print_exceptions(out, p, top);
		print_contention(out, p, top);
		print_jit(out, p, top);
		print_allocs(out, p, top);
		fputc('\n', out);
	}
	if (ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}
