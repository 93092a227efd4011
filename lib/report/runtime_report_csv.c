/* runtime_report_csv: the per-GC and per-method rows (see runtime_report.h), as CSV for
 * spreadsheets and checks against PerfView's GCStats and JITStats, and the JIT table. */
#include "runtime_report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1e6

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static bool wanted(const struct rt_process *p, const struct runtime_report_opts *o)
{
	return o->pid < 0 || p->host_pid == o->pid;
}

int runtime_report_csv_gcs(const struct runtime_report *rr, FILE *out,
			   const struct runtime_report_opts *o)
{
	fputs("pid,gc_number,generation,type,reason,start_ms,pause_start_ms,pause_ms,suspend_ms,"
	      "duration_ms,heap_before_bytes,heap_after_bytes,promoted_bytes,gen0_after_bytes,"
	      "gen1_after_bytes,gen2_after_bytes,loh_after_bytes,poh_after_bytes,cpu_samples,"
	      "pause_pct,gen0_alloc_bytes,gen0_alloc_mb_per_s,loh_alloc_bytes,poh_alloc_bytes,"
	      "peak_bytes,finalize_promoted_bytes,pinned_objects,gen0_frag_pct,gen1_frag_pct,"
	      "gen2_frag_pct,loh_frag_pct\n",
	      out);
	for (size_t i = 0; i < rr->nprocs; i++) {
		const struct rt_process *p = &rr->procs[i];
		if (!wanted(p, o))
			continue;
		for (size_t k = 0; k < p->ngcs; k++) {
			const struct rt_gc *g = &p->gcs[k];
			if (!g->complete)
				continue;
			fprintf(out, "%ld,%u,%u,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,%llu,%llu",
				p->host_pid, g->number, g->gen, rt_gc_type_name(g->type),
				rt_gc_reason_name(g->reason),
				rt_relative_ms(p->sync_ns, g->start_ns),
				rt_relative_ms(p->sync_ns, g->pause_start_ns),
				g->pause_ns / NS_PER_MS, g->suspend_ns / NS_PER_MS,
				g->duration_ns / NS_PER_MS, (unsigned long long)g->heap_before,
				(unsigned long long)g->heap_after, (unsigned long long)g->promoted);
			for (int gen = 0; gen < 5; gen++)
				fprintf(out, ",%llu", (unsigned long long)g->gen_after[gen]);
			fprintf(out, ",%llu,%.3f,%.0f,%.3f,%.0f,%.0f,%llu,%llu,%u",
				(unsigned long long)g->samples, g->pause_pct, g->gen0_alloc,
				rt_gc_alloc_rate(g), g->alloc[1], g->alloc[2],
				(unsigned long long)g->heap_peak,
				(unsigned long long)g->finalize_promoted, g->pinned_objects);
			/* empty without the heaps' histories (or a generation of size 0) */
			for (int gen = 0; gen < 4; gen++) {
				double f = rt_gc_frag_pct(g, gen);
				if (isfinite(f))
					fprintf(out, ",%.3f", f);
				else
					putc(',', out);
			}
			putc('\n', out);
		}
	}
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the GC table");
	return 0;
}

int runtime_report_csv_jit(const struct runtime_report *rr, FILE *out,
			   const struct runtime_report_opts *o)
{
	fputs("pid,method,jit_start_ms,jit_ms,il_bytes,tier,thread\n", out);
	for (size_t i = 0; i < rr->nprocs; i++) {
		const struct rt_process *p = &rr->procs[i];
		if (!wanted(p, o))
			continue;
		size_t n;
		uint64_t total;
		const struct rt_jit **v = rt_jits_ended(p->jits, p->njits, &n, &total);
		for (size_t k = 0; k < n; k++) {
			fprintf(out, "%ld,", p->host_pid);
			csv_str(out, v[k]->name);
			fprintf(out, ",%.3f,%.3f,%u,%s,%llu\n",
				rt_relative_ms(p->sync_ns, v[k]->start_ns),
				(double)rt_jit_ns(v[k]) / NS_PER_MS, v[k]->il_size,
				*rt_method_tier_name(v[k]->flags) ? rt_method_tier_name(v[k]->flags)
								  : "unknown",
				(unsigned long long)v[k]->tid);
		}
		free(v);
	}
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the JIT table");
	return 0;
}

int runtime_report_print_jit(const struct runtime_report *rr, FILE *out,
			     const struct runtime_report_opts *o)
{
	for (size_t i = 0; i < rr->nprocs; i++) {
		const struct rt_process *p = &rr->procs[i];
		if (!wanted(p, o))
			continue;
		size_t n;
		uint64_t total;
		const struct rt_jit **v = rt_jits_ended(p->jits, p->njits, &n, &total);
		fprintf(out,
			"# JIT of pid %ld: %zu methods compiled, %.3f ms of JIT time (JITStats: "
			"from MethodJittingStarted to MethodLoadVerbose)\n",
			p->host_pid, n, (double)total / NS_PER_MS);
		fprintf(out, "# %10s %10s %9s %-12s %s\n", "start ms", "JIT ms", "IL bytes", "tier",
			"method");
		for (size_t k = 0; k < n; k++)
			fprintf(out, "  %10.3f %10.3f %9u %-12s %s\n",
				rt_relative_ms(p->sync_ns, v[k]->start_ns),
				(double)rt_jit_ns(v[k]) / NS_PER_MS, v[k]->il_size,
				rt_method_tier_name(v[k]->flags), v[k]->name);
		free(v);
		fputc('\n', out);
	}
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the JIT table");
	return 0;
}
