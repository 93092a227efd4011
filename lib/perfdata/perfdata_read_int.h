/* perfdata_read_int: what the reader's two halves share.  perfdata_header.c reads the file
 * header, the attrs and the feature sections (and their pipe-mode record forms);
 * perfdata_read.c walks the data section, decompresses and orders the records.
 * Not for use outside lib/perfdata_*.c. */
#ifndef PC_PERFDATA_READ_INT_H
#define PC_PERFDATA_READ_INT_H

#include "decomp_ahead.h"
#include "ordered_events.h"
#include "perfdata_read.h"

struct pd_id {
	uint64_t id;
	struct perfdata_evsel *evsel;
};

struct perfdata_reader {
	char *path;
	const uint8_t *map; /* the whole file, read-only */
	size_t map_size;
	bool pipe; /* written by `perf record -o -`: header, attrs, features are records */

	uint64_t data_start, data_end; /* the data section, clipped to the file */
	uint64_t pos;		       /* next record in the file */
	uint64_t dropped, drop_next;   /* pages below `dropped` are released (drop_behind) */
	bool truncated;

	struct perfdata_evsel **evsels; /* pointers stay valid: pipe files add evsels late */
	size_t nr_evsels, evsels_cap;
	struct pd_id *ids; /* sorted by id */
	size_t nr_ids, ids_cap;
	bool ordered; /* perf orders only when the first attr has sample_id_all */

	uint64_t features[HEADER_FEAT_BITS / 64];
	struct perf_file_section feature_at[HEADER_FEAT_BITS]; /* in the file; 0, 0: none */
	char *hostname, *osrelease, *version, *arch, *cmdline;
	int nrcpus;
	bool has_clock_data; /* HEADER_CLOCK_DATA */
	int clockid;
	uint64_t clock_wall_ns, clock_ns;
	const void *tracing_data; /* into the map, or tracing_copy */
	size_t tracing_size;
	void *tracing_copy;
	uint32_t comp_type;		     /* HEADER_COMPRESSED: 1 = zstd */
	struct perfdata_build_id *build_ids; /* HEADER_BUILD_ID, filenames owned */
	size_t nbuild_ids;

	/* record stream (perfdata_read.c) */
	struct ordered_events *oe;
	void *zstd;		    /* ZSTD_DCtx */
	bool decompress_ahead;	    /* perfdata_reader_decompress_ahead() */
	struct decomp_ahead *ahead; /* started at the first COMPRESSED record */
	struct oe_block *decomp;    /* decompressed bytes, not yet consumed from decomp_head */
	size_t decomp_head;
	uint64_t decomp_offset;	    /* file offset of the COMPRESSED record they came from */
	struct oe_block *delivered; /* the block of the record handed out last, put on the
				       next call */
	uint64_t *align_buf;	    /* aligned copy of a record that sits misaligned in the file */
	size_t align_cap;
	bool at_end, reported_error;
	char *error; /* a structural error met while reading; reported after the queue drains */
	uint64_t nr_unknown_id, nr_bad_samples;
};

/* perfdata_header.c */
int pd_read_file_header(struct perfdata_reader *r);
int pd_add_evsel(struct perfdata_reader *r, const uint8_t *attr, size_t attr_len,
		 const uint8_t *ids, size_t nids);
struct perfdata_evsel *pd_find_evsel(const struct perfdata_reader *r, uint64_t id);
/* One feature's payload (the section of a file, or a HEADER_FEATURE record's body). */
void pd_read_feature(struct perfdata_reader *r, unsigned feat, const uint8_t *p, size_t size,
		     bool copy);
/* PERF_RECORD_EVENT_UPDATE: names given after the attrs (pipe mode mostly). */
void pd_event_update(struct perfdata_reader *r, const struct perf_event_header *h);
void pd_free_header(struct perfdata_reader *r);

#endif
