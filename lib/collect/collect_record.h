/* collect_record: the recording half of a collection (collect.c drives it).  Private to
 * collect/: the state both halves share.
 *
 * collect.c fills struct collector's options, target, paths, events, recorder, fds and
 * kallsyms copy, and frees it all (collector_free); after recorder_open() it calls
 * collect_index_event_ids().  collect_record_to_file() opens <trace>/perf.data, writes the
 * synthesized records of what already runs, then drains the rings into it through
 * perfdata_async's thread until the recorder's stop condition, keeping the per-record books
 * (samples per event, lost, the maps samples hit, the users of sampled processes, exited
 * processes forgotten); collect_finish_file() adds the build-ids and finishes the file.
 */
#ifndef PC_COLLECT_RECORD_H
#define PC_COLLECT_RECORD_H

#include "collect_buildids.h"
#include "collect_events.h"
#include "collect_opts.h"
#include "collect_uids.h"
#include "perfdata/perfdata_write.h"
#include "record/record.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct event_id;
struct machine;
struct perfdata_async;

/* A process that exited: forgotten once no sample of it can still be in a ring. */
struct exited {
	uint32_t pid, tid;
};

struct collector {
	const struct collect_opts *o;
	pid_t pid; /* the target's tgid, or -1 */
	char *trace_dir, *data_path, *zip_path;
	struct collect_events set;
	struct record_event *events; /* set.events */
	size_t nevents;
	struct event_id *ids; /* every fd's kernel id -> its event, sorted by id */
	size_t nids;
	uint64_t *event_samples; /* per event */
	struct recorder *rec;
	struct perfdata_writer *w;
	struct perfdata_async *async; /* while recording: w is its thread's */
	struct perfdata_meta meta;    /* for w's features, at every flush */
	char *version;
	char *kallsyms; /* our copy of /proc/kallsyms, NULL when it could not be copied */
	struct machine *machine;
	int sigfd, pidfd;
	int lock_fd;	     /* on trace_dir, while we write it */
	uint64_t enabled_ns; /* when the sampling events started counting */
	uint64_t samples, lost, records;
	uint64_t stack_bytes_in, stack_bytes_out; /* samples with a stack copy: kernel's, written */
	uint8_t *packed;			  /* a sample rewritten for perf.data */
	bool write_failed;
	struct collect_buildids bids; /* of the files samples hit */
	struct collect_uids *uids;    /* the user each sampled process runs as */
	/* Exits seen: [0, ready) two drain passes ago or more, the rest since. */
	struct exited *exited;
	size_t nexited, ready, exited_cap;
};

/* (Re)builds the id -> event index from the recorder's fds (and sizes event_samples at the
 * first call). */
void collect_index_event_ids(struct collector *c);

/* Records until the recorder's stop condition: *why and *signo say which, *duration_ns how
 * long the events counted.  0, or -1 with pc_err() (c->w NULL when perf.data could not be
 * started; otherwise it holds what was written until the failure). */
int collect_record_to_file(struct collector *c, enum record_stop *why, int *signo,
			   uint64_t *duration_ns);

/* After collect_record_to_file() succeeded: build-ids of the maps samples hit, the users
 * noted, then perf.data finished (0, or -1 with pc_err()). */
int collect_finish_file(struct collector *c);

#endif
