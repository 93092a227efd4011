/* The perf.data reader (lib/perfdata/): file and pipe layouts, attrs, feature sections,
 * the record stream with ordering and zstd-compressed records.  Every delivered record is
 * decoded as the merge pass does, and every byte it points to is read. */
#include "fuzz.h"
#include "perfdata/perfdata_read.h"

#include <errno.h>

static uint64_t sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void touch_str(const char *s)
{
	if (s)
		touch(s, strlen(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd = fuzz_fd(data, size);
	struct perfdata_reader *r = perfdata_reader_open(fuzz_fd_path(fd));
	if (!r) {
		close(fd);
		return 0;
	}
	touch_str(perfdata_reader_hostname(r));
	touch_str(perfdata_reader_osrelease(r));
	touch_str(perfdata_reader_version(r));
	touch_str(perfdata_reader_arch(r));
	touch_str(perfdata_reader_cmdline(r));
	for (size_t i = 0; i < perfdata_reader_nr_evsels(r); i++) {
		const struct perfdata_evsel *e = perfdata_reader_evsel(r, i);
		touch_str(e->name);
		touch(e->ids, e->nids * sizeof(*e->ids));
	}
	struct perfdata_record rec;
	int ret;
	/* -1 is a bad record; the reader goes on after it, until 0 */
	for (unsigned errors = 0; (ret = perfdata_reader_next(r, &rec)) != 0 && errors < 1000;) {
		if (ret < 0) {
			errors++;
			continue;
		}
		touch(rec.header, rec.header->size);
		if (rec.header->type == PERF_RECORD_SAMPLE) {
			const struct perf_sample *s = &rec.sample;
			touch(s->callchain, s->nr_callchain * sizeof(*s->callchain));
			touch(s->raw_data, s->raw_size);
			if (s->evsel)
				touch_str(s->evsel->name);
		}
	}
	size_t tsize;
	const void *tracing = perfdata_reader_tracing_data(r, &tsize);
	touch(tracing, tracing ? tsize : 0);
	sink += perfdata_reader_truncated(r) + perfdata_reader_data_pos(r);
	perfdata_reader_free(r);
	close(fd);
	return 0;
}
