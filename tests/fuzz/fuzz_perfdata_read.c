/* The perf.data reader (lib/perfdata/): file and pipe layouts, attrs, feature sections,
 * the record stream with ordering and zstd-compressed records.  Every delivered record is
 * decoded as the merge pass does, and every byte it points to is read. */
#include "fuzz_perfdata.h"

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
	int fd;
	struct perfdata_reader *r = fuzz_reader(data, size, &fd);
	if (!r)
		return 0;
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
	unsigned errors = 0;
	while (fuzz_next_record(r, &rec, &errors)) {
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
