/* nettrace_read: a streaming reader of NetTrace, the format of EventPipe (the .NET
 * runtime's event stream and *.nettrace files).
 *
 * Formats: version 3 (the .netperf files of .NET Core 2.1, NetPerfFormat.md), version 4
 * (what .NET Core 3 to .NET 10 write; the "version 5" metadata tags included) and version 6
 * (TraceEvent's current format), as microsoft/perfview's NetTraceFormat.md and
 * NetTraceFormat_v5.md define them.  Versions 1 and 2 (.NET Core 2.0) are refused, as
 * TraceEvent refuses them.  The input is pulled through a
 * read function, block by block, so a file of any size (or a live stream) is read with
 * memory that follows the largest block and the caches the format bounds (stacks and label
 * lists until the next sequence point; metadata and threads of the trace).
 *
 * nettrace_reader_next() hands out the file's items in file order: each metadata row when
 * it is defined, each event with its header, payload and stack resolved, each sequence
 * point.  Events are not sorted: the format only orders them per capture thread and between
 * sequence points (see NetTraceFormat.md, "Event TimeStamp sorting"); a caller that needs
 * time order sorts them.  Pointers in an item live until the next call, except metadata,
 * which lives as long as the reader.
 *
 * Time: timestamps are ticks of trace->tick_freq per second.  On Linux the runtime's clock
 * is CLOCK_MONOTONIC in nanoseconds (tick_freq 1e9), so nettrace_ticks_to_ns() gives
 * CLOCK_MONOTONIC time, the clock of perfcollect-c's samples; sync_ticks is the trace's
 * start, sync_utc the wall-clock time then.
 *
 * Bad input: a malformed block is an error naming its byte offset (-1, pc_err()); a stream
 * that stops before its end mark (a killed writer) ends the items normally with
 * stats->truncated set, after everything complete before the cut.  Nothing is trusted:
 * every size and index is checked.
 */
#ifndef PC_NETTRACE_READ_H
#define PC_NETTRACE_READ_H

#include "base/util.h"
#include "nettrace_metadata.h" /* struct nettrace_metadata and its fields */

#include <sys/types.h>

struct nettrace_trace {
	unsigned version; /* 3 (.netperf), 4 (FastSerialization objects, v4/v5) or 6 */
	struct {
		unsigned year, month, day_of_week, day, hour, minute, second, millisecond;
	} sync_utc;
	uint64_t sync_ticks; /* the clock at sync_utc */
	uint64_t tick_freq;  /* ticks per second */
	unsigned pointer_size;
	uint32_t pid;	     /* v3, v4: the process traced; v6: "ProcessId" if given, else 0 */
	uint32_t processors; /* v3, v4: NumberOfProcessors; v6: "HardwareThreadCount" */
	uint32_t expected_sampling_ns; /* v3, v4: ExpectedCPUSamplingRate */
	char **keys, **values;	       /* v6 key-value pairs */
	size_t nkeys;
};

struct nettrace_event {
	const struct nettrace_metadata *meta;
	uint64_t timestamp;  /* ticks */
	uint64_t thread_id;  /* OS thread id (v6: of the thread index, 0 when not given) */
	uint64_t process_id; /* v3, v4: the trace's; v6: the thread's */
	uint64_t capture_thread_id;
	uint64_t thread_index; /* v6: the thread table's index; v3, v4: = thread_id */
	uint32_t sequence, processor, stack_id;
	bool sorted; /* every later event in the file has a timestamp >= this one's */
	uint8_t activity_id[16], related_activity_id[16];
	const uint8_t *payload;
	uint32_t payload_size;
	const uint64_t *stack; /* instruction pointers, leaf first; NULL when none */
	size_t stack_depth;
};

enum nettrace_item_kind {
	NETTRACE_ITEM_METADATA = 1,
	NETTRACE_ITEM_EVENT,
	NETTRACE_ITEM_SEQUENCE_POINT,
};

struct nettrace_item {
	enum nettrace_item_kind kind;
	const struct nettrace_metadata *metadata; /* METADATA */
	const struct nettrace_event *event;	  /* EVENT */
	uint64_t sequence_point_ticks;		  /* SEQUENCE_POINT */
};

struct nettrace_stats {
	uint64_t bytes, blocks, events, metadata, stacks, sequence_points;
	uint64_t lost_events;		  /* gaps in the writers' sequence numbers */
	uint64_t missing_stacks;	  /* events naming a stack id no stack block held */
	uint32_t first_missing_stack;	  /* the first such id */
	uint64_t first_ticks, last_ticks; /* of the events; 0 without events */
	bool ended;			  /* the end mark was read */
	bool truncated;			  /* the input stopped before it */
};

/* Fills buf with up to len bytes; returns the count, 0 at the end, -1 with pc_err(). */
typedef ssize_t (*nettrace_read_fn)(void *arg, void *buf, size_t len);

struct nettrace_reader;
/* name is for messages.  The header is read on the first nettrace_reader_next(). */
struct nettrace_reader *nettrace_reader_new(nettrace_read_fn fn, void *arg, const char *name);
/* Reading a FILE (not closed by the reader) or an fd (not closed either). */
struct nettrace_reader *nettrace_reader_new_file(FILE *f, const char *name);
struct nettrace_reader *nettrace_reader_new_fd(int fd, const char *name);
void nettrace_reader_free(struct nettrace_reader *r);

/* The next item: 1 with *it filled, 0 at the end (see stats->truncated), -1 with pc_err(). */
int nettrace_reader_next(struct nettrace_reader *r, struct nettrace_item *it);

/* The trace block's contents; NULL until the first item was read. */
const struct nettrace_trace *nettrace_reader_trace(const struct nettrace_reader *r);
const struct nettrace_stats *nettrace_reader_stats(const struct nettrace_reader *r);
/* Metadata row id (NULL if undefined) and stack id (0 when undefined or empty) as of the
 * current position in the file. */
const struct nettrace_metadata *nettrace_reader_metadata(const struct nettrace_reader *r,
							 uint32_t id);
size_t nettrace_reader_stack(const struct nettrace_reader *r, uint32_t id, const uint64_t **ips);

/* ticks -> nanoseconds of the trace's clock (CLOCK_MONOTONIC for a Linux runtime). */
uint64_t nettrace_ticks_to_ns(const struct nettrace_trace *t, uint64_t ticks);

#endif
