/* summary: see summary.h. */
#include "summary.h"

#include <string.h>

static double seconds_of(const struct view_recording *r)
{
	if (r->logged_seconds > 0)
		return r->logged_seconds;
	return r->last_ns > r->first_ns ? (double)(r->last_ns - r->first_ns) / 1e9 : 0;
}

int summary_write(FILE *out, const struct view *v, const struct event_tree *e)
{
	const struct view_recording *r = &v->rec;
	double secs = seconds_of(r);
	fputs("# Recorded", out);
	if (secs > 0)
		fprintf(out, " %.3f s", secs);
	else
		fputs(" for an unknown time (no sample times)", out);
	if (r->logged_cpus > 0)
		fprintf(out, " on %ld CPUs (%zu with samples)", r->logged_cpus, r->cpus_sampled);
	else if (r->cpus_sampled)
		fprintf(out, " on %zu CPUs with samples", r->cpus_sampled);
	fprintf(out, ", %llu samples", (unsigned long long)r->samples);
	if (secs > 0)
		fprintf(out, " (%.0f/s)", (double)r->samples / secs);
	if (r->lost >= 0)
		fprintf(out, ", %lld lost", r->lost);
	else
		fputs(", lost samples unknown (no perfcollect.log)", out);
	fputc('\n', out);
	if (e && e->samples && secs > 0) {
		double rate = (double)e->samples / secs;
		fprintf(out, "# %s: %.0f samples/s", e->name, rate);
		if (r->logged_hz > 0)
			fprintf(out, " (asked: %ld per second on each busy CPU)", r->logged_hz);
		fputc('\n', out);
	}
	if (r->lost > 0) {
		double share = 100.0 * (double)r->lost / (double)(r->lost + (long long)r->samples);
		fprintf(out,
			"# WARNING: %lld samples were lost (%.1f%% of those taken): the ring "
			"buffers overflowed, so busy stretches are under-counted; record with a "
			"larger -buffersize (e.g. -buffersize 4M)\n",
			r->lost, share);
	}
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}
