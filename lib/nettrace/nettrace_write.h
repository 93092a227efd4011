/* nettrace_write: writes NetTrace format 6 (microsoft/perfview
 * src/TraceEvent/EventPipe/NetTraceFormat.md), streaming.
 *
 * The caller declares event types (metadata rows), threads, stacks and label lists and
 * writes events; the writer keeps what it was given since the last flush and writes it as
 * blocks in the order the format needs (metadata, threads, stacks, label lists, then the
 * events that refer to them, then thread removals), all in one write().  A block is written
 * whole or not at all, so a writer killed at any point leaves a file that is readable up to
 * its last flush (it lacks only the end-of-stream block).
 *
 * Memory is bounded: events are flushed every block_bytes; stacks and label lists are
 * interned only until the next sequence point, which the writer puts in by itself once the
 * interned data passes region_bytes (and the caller may put in any time).  What grows with
 * the trace is one small entry per thread and per metadata row.
 *
 * Events are written with header compression, each marked sorted when the caller says so.
 * An event's sequence number is counted per capture thread by the writer (so readers see no
 * loss unless nettrace_writer_lost() says there was some).  Timestamps must not go back past
 * the last sequence point (the format's promise to readers): an older one is raised to it and
 * counted (nettrace_writer_stats()).
 */
#ifndef PC_NETTRACE_WRITE_H
#define PC_NETTRACE_WRITE_H

#include "base/util.h"
#include "base/bytebuf.h"
#include "nettrace_metadata.h" /* enum nettrace_type: the field type codes */

struct nettrace_field_desc;
struct nettrace_field_type {
	uint8_t code;				   /* enum nettrace_type */
	const struct nettrace_field_type *element; /* ARRAY, FIXED_ARRAY, RELLOC, DATALOC */
	uint16_t count;				   /* FIXED_ARRAY */
	const struct nettrace_field_desc *fields;  /* OBJECT */
	uint16_t nfields;
};
struct nettrace_field_desc {
	const char *name;
	struct nettrace_field_type type;
};

/* One type of event (a metadata row). */
struct nettrace_event_desc {
	const char *provider;
	const uint8_t *provider_guid; /* 16 bytes as .NET's Guid.ToByteArray(), or NULL */
	uint32_t event_id;	      /* 0 when the provider has none */
	const char *name;
	const struct nettrace_field_desc *fields;
	uint16_t nfields;
	int opcode, level, version; /* -1: not said */
	uint64_t keywords;	    /* 0: not said */
	const char *message;	    /* message template, NULL: none */
	const char *const *kv;	    /* key, value, key, value ...: free-form facts */
	size_t nkv;		    /* pairs */
};

/* The trace block. */
struct nettrace_trace_info {
	int64_t sync_utc_ns;   /* wall clock (ns since the epoch) at sync_ticks */
	uint64_t sync_ticks;   /* the trace's start, in ticks */
	uint64_t tick_freq;    /* ticks per second */
	uint32_t pointer_size; /* of the stacks' addresses: 4 or 8 */
	const char *const *kv; /* key, value, key, value ... (e.g. "HardwareThreadCount") */
	size_t nkv;	       /* pairs */
};

struct nettrace_thread_info {
	bool has_pid, has_tid;
	uint64_t pid, tid;
	const char *name; /* NULL: none */
};

enum nettrace_label_kind {
	NETTRACE_LABEL_ACTIVITY_ID = 1,
	NETTRACE_LABEL_RELATED_ACTIVITY_ID = 2,
	NETTRACE_LABEL_TRACE_ID = 3,
	NETTRACE_LABEL_SPAN_ID = 4,
	NETTRACE_LABEL_KEY_STRING = 5,
	NETTRACE_LABEL_KEY_INT = 6,
	NETTRACE_LABEL_OPCODE = 7,
	NETTRACE_LABEL_KEYWORDS = 8,
	NETTRACE_LABEL_LEVEL = 9,
	NETTRACE_LABEL_VERSION = 10,
};
struct nettrace_label {
	uint8_t kind;	   /* enum nettrace_label_kind */
	uint8_t bytes[16]; /* ACTIVITY_ID, RELATED_ACTIVITY_ID, TRACE_ID */
	uint64_t u64;	   /* SPAN_ID, KEYWORDS, OPCODE/LEVEL/VERSION (low byte) */
	int64_t i64;	   /* KEY_INT */
	const char *key;   /* KEY_STRING, KEY_INT */
	const char *value; /* KEY_STRING */
};

struct nettrace_event_out {
	uint32_t metadata_id;
	uint64_t thread;	 /* thread index */
	uint64_t capture_thread; /* 0: the event's own thread */
	uint32_t cpu;
	uint32_t stack_id;	/* 0: none */
	uint32_t label_list_id; /* 0: none */
	uint64_t timestamp;	/* ticks */
	bool sorted;		/* every later event has a timestamp at or after this one */
	const void *payload;
	size_t payload_size;
};

struct nettrace_writer_stats {
	uint64_t events, stacks, stack_refs, blocks, sequence_points, bytes;
	uint64_t raised_timestamps; /* events older than the last sequence point, raised to it */
};

struct nettrace_writer;

/* Writes the file header and the trace block to fd (which stays the caller's; it is not
 * closed).  NULL with pc_err() when that write fails. */
struct nettrace_writer *nettrace_writer_new(int fd, const struct nettrace_trace_info *info);
/* The same, every byte written to fd also written to copy (a zip entry's stream, say: the
 * same bytes; a failed write to it is copy's to report, not the writer's). */
struct nettrace_writer *nettrace_writer_new_copy(int fd, FILE *copy,
						 const struct nettrace_trace_info *info);
/* Bytes of events kept before a flush (default 64 KiB) and of interned stacks and label
 * lists before a sequence point (default 4 MiB; 0: only when the caller asks). */
void nettrace_writer_set_limits(struct nettrace_writer *w, size_t block_bytes, size_t region_bytes);

/* Declares an event type; its metadata id (>= 1), or 0 with pc_err() (a row too large). */
uint32_t nettrace_writer_add_metadata(struct nettrace_writer *w,
				      const struct nettrace_event_desc *d);
/* Declares a thread; its index (>= 1). */
uint64_t nettrace_writer_add_thread(struct nettrace_writer *w,
				    const struct nettrace_thread_info *t);
/* The thread logs no more: it is removed (after the events already written).  -1 if the
 * index is not a live thread.  (TraceEvent carries out a removal by the thread's OS tid, not
 * its index: a file meant for it should not remove threads; postprocess_unified.c does not.) */
int nettrace_writer_remove_thread(struct nettrace_writer *w, uint64_t thread);
/* Events of this capture thread were lost: its sequence numbers skip n, so readers see it. */
void nettrace_writer_lost(struct nettrace_writer *w, uint64_t capture_thread, uint32_t n);
/* A stack (leaf first, pointer_size addresses), interned until the next sequence point;
 * its id (>= 1). */
uint32_t nettrace_writer_stack(struct nettrace_writer *w, const uint64_t *ips, size_t n);
/* A label list (n >= 1), interned like stacks; its id (>= 1), 0 with pc_err() if too large. */
uint32_t nettrace_writer_label_list(struct nettrace_writer *w, const struct nettrace_label *l,
				    size_t n);
/* Writes one event (kept until the next flush).  -1 with pc_err() on a write error (sticky:
 * every later call fails too) or an event that refers to what was not declared. */
int nettrace_writer_event(struct nettrace_writer *w, const struct nettrace_event_out *e);
/* Writes everything kept so far. */
int nettrace_writer_flush(struct nettrace_writer *w);
/* Flushes and writes a sequence point at timestamp (no event before it in the file is later,
 * none after it earlier); stacks and label lists are forgotten.  flush_threads,
 * flush_metadata: readers may forget those too (the caller must declare them again). */
int nettrace_writer_sequence_point(struct nettrace_writer *w, uint64_t timestamp,
				   bool flush_threads, bool flush_metadata);
/* Flushes, writes a last sequence point and the end-of-stream block. */
int nettrace_writer_finish(struct nettrace_writer *w);
const struct nettrace_writer_stats *nettrace_writer_stats(const struct nettrace_writer *w);
void nettrace_writer_free(struct nettrace_writer *w);

#endif
