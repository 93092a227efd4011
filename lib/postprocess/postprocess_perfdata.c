/* postprocess_perfdata: see postprocess_perfdata.h. */
#include "postprocess_perfdata.h"
#include "base/log.h"
#include "perfdata/perfdata_rewrite.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

/* zstd's level for the rewrite, compressed on the pass's thread: of 4.1 MB of records (20 k
 * samples, system-wide), level 1 makes 555 kB, 3 478 kB, 6 398 kB at about twice 3's CPU,
 * 19 349 kB at ten times it (bench/README.md). */
#define ZIP_PERFDATA_ZSTD 3

/* perf's PERF_MAX_STACK_DEPTH and its markers, with room to spare */
#define MAX_CHAIN 512

struct zip_perfdata {
	struct perfdata_rewrite *rw;
	char *path;
	uint64_t chain[MAX_CHAIN];
};

static void as_recorded(void)
{
	log_warn("perf.data goes into the zip as recorded (with its stack copies): %s",
		 pc_strerror());
}

struct zip_perfdata *zip_perfdata_new(const char *path, const struct perfdata_reader *r,
				      bool user_stacks)
{
	if (!user_stacks)
		return NULL;
	struct perfdata_rewrite *rw = perfdata_rewrite_new(path, r, ZIP_PERFDATA_ZSTD);
	if (!rw) {
		as_recorded();
		return NULL;
	}
	struct zip_perfdata *z = xcalloc(1, sizeof(*z));
	z->rw = rw;
	z->path = xstrdup(path);
	return z;
}

static void failed(struct zip_perfdata *z)
{
	as_recorded();
	perfdata_rewrite_free(z->rw);
	z->rw = NULL;
}

void zip_perfdata_record(struct zip_perfdata *z, const struct perfdata_record *rec)
{
	if (z && z->rw && perfdata_rewrite_record(z->rw, rec) < 0)
		failed(z);
}

/* The sample's chain with its user part as the frames have it (unwound): the kernel's part
 * and its markers as they were, then the user frames at the addresses perf.data.txt
 * prints. */
static size_t unwound_chain(struct zip_perfdata *z, const struct perf_sample *s,
			    const struct frame *frames, size_t n)
{
	size_t m = 0, k = 0;
	uint64_t mode = PERF_CONTEXT_USER; /* perf starts in user mode */
	for (uint64_t i = 0; i < s->nr_callchain && m < MAX_CHAIN; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= PERF_CONTEXT_MAX)
			mode = ip;
		else if (mode == PERF_CONTEXT_USER)
			break; /* the user part: the frames' */
		else
			k++;
		z->chain[m++] = ip;
	}
	if (k >= n)
		return m;
	if (mode != PERF_CONTEXT_USER && m < MAX_CHAIN)
		z->chain[m++] = PERF_CONTEXT_USER;
	for (size_t j = k; j < n && m < MAX_CHAIN; j++)
		z->chain[m++] = frames[j].addr;
	return m;
}

void zip_perfdata_sample(struct zip_perfdata *z, const struct perfdata_record *rec,
			 const struct frame *frames, size_t n)
{
	if (!z || !z->rw)
		return;
	const struct perf_sample *s = &rec->sample;
	int r;
	if (s->user_regs && s->callchain && n)
		r = perfdata_rewrite_sample(z->rw, rec, z->chain, unwound_chain(z, s, frames, n));
	else
		r = perfdata_rewrite_record(z->rw, rec);
	if (r < 0)
		failed(z);
}

const char *zip_perfdata_finish(struct zip_perfdata *z)
{
	if (!z || !z->rw)
		return NULL;
	if (perfdata_rewrite_finish(z->rw) < 0) {
		failed(z);
		return NULL;
	}
	uint64_t raw, file;
	perfdata_rewrite_stats(z->rw, &raw, &file);
	log_info("perf.data in the zip: the samples with their unwound call chains instead of "
		 "the stack copies, %" PRIu64 " bytes of records in %" PRIu64 " (zstd %d)",
		 raw, file, ZIP_PERFDATA_ZSTD);
	return z->path;
}

void zip_perfdata_free(struct zip_perfdata *z)
{
	if (!z)
		return;
	perfdata_rewrite_free(z->rw);
	unlink(z->path);
	free(z->path);
	free(z);
}
