/* perfdata_read: reads perf.data files, ours and those written by real `perf record`:
 * with or without PERF_SAMPLE_CPU, with `perf record -z` (PERF_RECORD_COMPRESSED, zstd),
 * and files whose writer died before it wrote the final header (data size 0): then the
 * records that are there are recovered and perfdata_reader_truncated() says so.
 *
 * Records come out in the order `perf script` (perf 6.1) processes them: sorted by time
 * within the flush windows that PERF_RECORD_FINISHED_ROUND marks (perf's ordered-events
 * rule, see ordered_events.h).  Records without a time (time 0 as in synthesized records, no
 * sample_id_all, no PERF_SAMPLE_TIME) and user records (PERF_RECORD_HEADER_*) are delivered
 * as soon as they are read, ahead of queued ones, as perf does.  A queued record costs 32
 * bytes until released (records decompressed from PERF_RECORD_COMPRESSED are held as a
 * copy); a file without FINISHED_ROUND is sorted as a whole, as perf does.
 *
 * A file counts as truncated when its data size is 0 (perf record killed), when the data
 * section runs past the end of the file, or when it has no feature bits (our writer killed:
 * it keeps data.size current but sets the feature bits only when it finishes); records are
 * then read up to the end of the file and a final partial record is dropped.
 */
#ifndef PC_PERFDATA_READ_H
#define PC_PERFDATA_READ_H

#include "base/util.h"
#include "perf_abi.h"
#include "perfdata_features.h" /* struct perfdata_build_id */
#include "perfdata_sample.h"   /* struct perf_sample, perf_sample_id */

struct perfdata_reader;

struct perfdata_evsel {
	struct perf_event_attr attr;
	char *name; /* from HEADER_EVENT_DESC, else derived ("cpu-clock", "sched:...") */
	uint64_t *ids;
	size_t nids;
};

struct perfdata_record {
	const struct perf_event_header *header; /* the raw record, decompressed */
	struct perf_sample sample;		/* valid when header->type == PERF_RECORD_SAMPLE */
	struct perf_sample_id id;		/* valid for other kernel record types */
	uint64_t file_offset;			/* of the record (or of its COMPRESSED container) */
};

struct perfdata_reader *perfdata_reader_open(const char *path);
void perfdata_reader_free(struct perfdata_reader *r);
/* From now on, PERF_RECORD_COMPRESSED records are decompressed on a thread ahead of
 * perfdata_reader_next() (decomp_ahead.h): the same records, less work on the caller's
 * thread.  Before the first record is read. */
void perfdata_reader_decompress_ahead(struct perfdata_reader *r);

/* 1 = a record in *rec, 0 = end of data, -1 = error (message in pc_strerror(); the records
 * before it were good; calling again goes on with the next record, or returns 0 when the
 * error ended the data: records queued before it are still delivered first).  Only records of
 * interest reach the caller: kernel records (SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, LOST, ...) and
 * PERF_RECORD_HEADER_* records that carry data; FINISHED_ROUND and COMPRESSED are consumed inside.
 */
int perfdata_reader_next(struct perfdata_reader *r, struct perfdata_record *rec);

size_t perfdata_reader_nr_evsels(const struct perfdata_reader *r);
const struct perfdata_evsel *perfdata_reader_evsel(const struct perfdata_reader *r, size_t i);
/* Feature strings (NULL where the file lacks the feature). */
const char *perfdata_reader_hostname(const struct perfdata_reader *r);
const char *perfdata_reader_osrelease(const struct perfdata_reader *r);
const char *perfdata_reader_version(const struct perfdata_reader *r);
const char *perfdata_reader_arch(const struct perfdata_reader *r);
const char *perfdata_reader_cmdline(const struct perfdata_reader *r);
int perfdata_reader_nrcpus(const struct perfdata_reader *r);
/* HEADER_CLOCK_DATA: the wall clock (ns since the epoch) and the sampling clock read at one
 * moment, to turn sample times into times of day; false when the file lacks it. */
bool perfdata_reader_clock_data(const struct perfdata_reader *r, int *clockid, uint64_t *wall_ns,
				uint64_t *clock_ns);
/* HEADER_TRACING_DATA (or PERF_RECORD_HEADER_TRACING_DATA) blob, for libtraceevent. */
const void *perfdata_reader_tracing_data(const struct perfdata_reader *r, size_t *size);
bool perfdata_reader_truncated(const struct perfdata_reader *r);
uint64_t perfdata_reader_data_size(const struct perfdata_reader *r); /* for progress */
uint64_t perfdata_reader_data_pos(const struct perfdata_reader *r);
bool perfdata_reader_has_feature(const struct perfdata_reader *r, int feature);
/* The bytes of a feature section as they are in the file (valid until _free()); NULL when
 * the file has no such section (a pipe file's features came as records). */
const void *perfdata_reader_feature_body(const struct perfdata_reader *r, int feature,
					 size_t *size);
/* HEADER_BUILD_ID: the build-id of each DSO samples hit. */
const struct perfdata_build_id *perfdata_reader_build_ids(const struct perfdata_reader *r,
							  size_t *n);

#endif
