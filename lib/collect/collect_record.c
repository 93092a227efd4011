/* collect_record: see collect_record.h.  The drain's callbacks run on the collector's own
 * thread; what they write goes to perfdata_async's thread, which compresses and writes it. */
#include "collect_record.h"
#include "base/log.h"
#include "base/util.h"
#include "perfdata/perfdata_async.h"
#include "perfdata/perfdata_read.h"
#include "record/synth.h"
#include "symbols/machine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* zstd's first fast level, one below perf record -z's default (1): this file is the
 * recording's own, read once by post-processing (the zip holds the rewritten one).  On a
 * collect trace's records (stack copies) in our 32 KiB flushes, 28 % less CPU than level 1
 * for 1.8 % more bytes, still 20 times smaller than the records; the writer's thread per
 * sample at 10 kHz under bench's mix 2.04-2.18 -> 1.69-1.74 us (bench/README.md, "The
 * recording's zstd a level faster"). */
#define PERF_DATA_ZSTD_LEVEL -1
/* At most this much of the recording lives only in memory (when the writer keeps up). */
#define FLUSH_INTERVAL_NS 1000000000ULL
/* The buffers between the drain and the perf.data writer's thread (perfdata_async.h): with
 * the writer behind by half of this it stops compressing, so only a disk slower than the
 * records makes the drain wait. */
#define WRITE_QUEUE_BYTES (32u << 20)

struct event_id {
	uint64_t id;
	size_t event;
};

static int cmp_event_id(const void *a, const void *b)
{
	const struct event_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void collect_index_event_ids(struct collector *c)
{
	c->nids = 0;
	for (size_t e = 0; e < c->nevents; e++) {
		size_t n;
		const uint64_t *ids = recorder_event_ids(c->rec, e, &n);
		c->ids = xrealloc(c->ids, (c->nids + n + 1) * sizeof(*c->ids));
		for (size_t i = 0; i < n; i++)
			c->ids[c->nids++] = (struct event_id){ids[i], e};
	}
	qsort(c->ids, c->nids, sizeof(*c->ids), cmp_event_id);
	if (!c->event_samples)
		c->event_samples = xcalloc(c->nevents, sizeof(*c->event_samples));
}

/* The event a sample belongs to, by the id every attr puts first (PERF_SAMPLE_IDENTIFIER);
 * -1 for an id we did not open. */
static long sample_event(struct collector *c, const struct perf_event_header *h)
{
	uint64_t id;
	if (perfdata_record_id(&c->events[0].attr, h, &id) < 0)
		return -1;
	struct event_id key = {.id = id};
	const struct event_id *hit = bsearch(&key, c->ids, c->nids, sizeof(*c->ids), cmp_event_id);
	if (!hit && recorder_nr_ids(c->rec) != c->nids) { /* fds opened since (record.h) */
		collect_index_event_ids(c);
		hit = bsearch(&key, c->ids, c->nids, sizeof(*c->ids), cmp_event_id);
	}
	return hit ? (long)hit->event : -1;
}

/* Marks the maps a sample's ips fall in, for the build-id feature, and notes its process's
 * user. */
static void mark_hits(struct collector *c, const struct perf_sample *s)
{
	collect_uids_note(c->uids, s->pid, s->has_time ? s->time : 0);
	bool kernel = s->cpumode == PERF_RECORD_MISC_KERNEL;
	if (!s->nr_callchain) {
		struct map *m = machine_find_map(c->machine, s->pid, s->ip, kernel);
		if (m)
			m->hit = true;
		return;
	}
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				kernel = true;
			else if (ip == PERF_CONTEXT_USER)
				kernel = false;
			continue;
		}
		struct map *m = machine_find_map(c->machine, s->pid, ip, kernel);
		if (m)
			m->hit = true;
	}
}

static void feed_machine(struct collector *c, const struct perf_event_header *h)
{
	struct perfdata_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.header = h;
	if (perfdata_parse_sample_id(&c->events[0].attr, h, &rec.id) < 0)
		return;
	machine_process(c->machine, &rec);
}

static int write_record(struct collector *c, const struct perf_event_header *h)
{
	if (c->write_failed)
		return -1;
	if ((c->async ? perfdata_async_write(c->async, h, h->size)
		      : perfdata_writer_write(c->w, h, h->size)) < 0) {
		c->write_failed = true;
		return -1;
	}
	return 0;
}

/* A sample goes to perf.data as it is or, with a copy of the user stack, with the copy cut
 * to what the kernel copied and in hybrid mode with the registers in front of it
 * (perf_abi.h), packed straight into the writer's queue (one copy of the stack, not two);
 * the sample is parsed once, for the packing and the books.  Counted per event. */
static int write_sample(struct collector *c, const struct perf_event_header *h)
{
	long e = sample_event(c, h);
	if (e < 0)
		return write_record(c, h);
	c->event_samples[e]++;
	const struct perf_event_attr *attr = &c->events[e].attr;
	struct perf_sample s;
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		if (c->write_failed)
			return -1;
		if (!c->async && !c->packed)
			c->packed = xmalloc(UINT16_MAX + 1);
		void *room = c->async ? perfdata_async_reserve(c->async, h->size) : c->packed;
		if (!room) {
			c->write_failed = true;
			return -1;
		}
		bool fold = c->o->callgraph.mode == CALLGRAPH_HYBRID;
		size_t n = perfdata_sample_pack_stack(attr, h, fold, room, &s);
		if (n) {
			mark_hits(c, &s);
			c->stack_bytes_in += h->size;
			c->stack_bytes_out += n;
			if (!c->async)
				return write_record(c, room);
			if (perfdata_async_commit(c->async, n) < 0) {
				c->write_failed = true;
				return -1;
			}
			return 0;
		}
	}
	if (perfdata_parse_sample(attr, h, &s) == 0)
		mark_hits(c, &s);
	return write_record(c, h);
}

static int on_synth(void *arg, const struct perf_event_header *h)
{
	struct collector *c = arg;
	feed_machine(c, h);
	return write_record(c, h);
}

/* EXIT: the thread (and with its leader, the process and its maps) is forgotten two drain
 * passes later, by when every sample it left in any ring has been read (a pass drains each
 * ring up to where it was); the build-ids of the maps its samples hit are taken first.  So
 * memory follows the processes that run, not all that ever ran.  FORK of a pid waiting to
 * be forgotten: a new process took it, keep it. */
static void note_exit_or_fork(struct collector *c, const struct perf_event_header *h)
{
	/* EXIT and FORK: { u32 pid, ppid, tid, ptid; u64 time; } */
	uint32_t ids[4];
	if (h->size < sizeof(*h) + sizeof(ids))
		return;
	memcpy(ids, h + 1, sizeof(ids));
	if (h->type == PERF_RECORD_FORK) {
		for (size_t i = 0; i < c->nexited; i++)
			if (c->exited[i].tid == ids[2])
				c->exited[i].pid = c->exited[i].tid = UINT32_MAX;
		return;
	}
	grow_array((void **)&c->exited, &c->exited_cap, c->nexited + 1, sizeof(*c->exited));
	c->exited[c->nexited++] = (struct exited){ids[0], ids[2]};
}

static void forget_exited(struct collector *c)
{
	if (!c->ready)
		return; /* (c->exited may still be NULL: memmove() must not see it) */
	for (size_t i = 0; i < c->ready; i++) {
		struct exited *e = &c->exited[i];
		if (e->tid == UINT32_MAX)
			continue;
		if (e->pid == e->tid) {
			machine_foreach_hit_map_of(c->machine, e->pid, collect_buildids_add,
						   &c->bids);
			collect_uids_forget(c->uids, e->pid);
		}
		machine_forget(c->machine, e->pid, e->tid);
	}
	memmove(c->exited, c->exited + c->ready, (c->nexited - c->ready) * sizeof(*c->exited));
	c->nexited -= c->ready;
	c->ready = c->nexited;
}

static int on_record(void *arg, const struct perf_event_header *h, int cpu)
{
	struct collector *c = arg;
	c->records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		c->samples++;
		return write_sample(c, h);
	case PERF_RECORD_LOST:
		/* { u64 id; u64 lost; } */
		if (h->size >= sizeof(*h) + 16) {
			uint64_t n;
			memcpy(&n, (const char *)h + sizeof(*h) + 8, sizeof(n));
			c->lost += n;
		}
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		feed_machine(c, h);
		note_exit_or_fork(c, h);
		break;
	default:
		feed_machine(c, h);
		break;
	}
	return write_record(c, h);
}

static int on_pass(void *arg)
{
	struct collector *c = arg;
	if (c->write_failed)
		return -1;
	forget_exited(c);
	if (collect_uids_flush(c->uids) < 0)
		log_warn("%s", pc_strerror());
	if (perfdata_async_finished_round(c->async) < 0) {
		c->write_failed = true;
		return -1;
	}
	return 0;
}

static int open_file(struct collector *c)
{
	c->w = perfdata_writer_new(c->data_path);
	if (!c->w)
		return -1;
	c->bids.w = c->w;
	for (size_t e = 0; e < c->nevents; e++) {
		size_t n;
		const uint64_t *ids = recorder_event_ids(c->rec, e, &n);
		struct perf_event_attr attr = c->events[e].attr;
		if (c->o->callgraph.mode == CALLGRAPH_HYBRID)
			perfdata_attr_fold_regs(&attr);
		if (perfdata_writer_add_attr(c->w, &attr, c->events[e].name, ids, n) < 0)
			return -1;
	}
	/* Streamed: a killed collector loses at most the last second, and every flush leaves
	 * a file perf reads as it is (features included, build-ids aside). */
	c->version = xasprintf("perfcollect-c %s", PC_VERSION);
	c->meta = (struct perfdata_meta){
	    .version = c->version,
	    .argc = c->o->argc,
	    .argv = c->o->argv,
	    .clockid = CLOCK_MONOTONIC,
	    .tracing_data = c->set.tracing_data,
	    .tracing_data_size = c->set.tracing_data_size,
	};
	perfdata_writer_set_meta(c->w, &c->meta);
	if (perfdata_writer_compress(c->w, PERF_DATA_ZSTD_LEVEL) < 0)
		return -1;
	perfdata_writer_set_flush_interval(c->w, FLUSH_INTERVAL_NS);
	c->machine = machine_new();
	return 0;
}

/* What already runs, as records at the start of perf.data. */
static int synthesize(struct collector *c, const char *kallsyms)
{
	size_t nids;
	const uint64_t *ids = recorder_event_ids(c->rec, 0, &nids);
	struct synth s = {.attr = &c->events[0].attr,
			  .id = nids ? ids[0] : 0,
			  .emit = on_synth,
			  .arg = c,
			  .kallsyms_path = kallsyms,
			  .data_maps = c->o->callgraph.mode == CALLGRAPH_DWARF};
	uint64_t t0 = monotonic_ns();
	/* User space only (the paranoid fallback): no kernel map to describe. */
	bool kernel = !c->events[0].attr.exclude_kernel;
	if ((kernel && synth_kernel(&s) < 0) ||
	    (c->pid > 0 ? synth_process(&s, c->pid) : synth_all_processes(&s)) < 0)
		return -1;
	log_info("synthesized %" PRIu64 " threads and %" PRIu64 " executable maps in %" PRIu64
		 " ms",
		 s.nthreads, s.nmaps, (monotonic_ns() - t0) / 1000000);
	return 0;
}

int collect_record_to_file(struct collector *c, enum record_stop *why, int *signo,
			   uint64_t *duration_ns)
{
	const struct collect_opts *o = c->o;
	int rc = open_file(c);
	if (rc == 0)
		rc = synthesize(c, c->kallsyms);
	/* On disk before the first sample: from now on a killed collector leaves a perf.data
	 * with its events, the processes and the feature sections. */
	if (rc == 0 && perfdata_writer_flush(c->w) < 0)
		c->write_failed = true, rc = -1;
	if (rc < 0)
		return -1;
	/* System-wide sampling events were opened disabled so that the rings do not overflow
	 * while /proc is read (collect_events.c); from here they count, and so does
	 * -collectsec.  -pid events count since they were opened. */
	if (c->pid < 0) {
		c->enabled_ns = monotonic_ns();
		recorder_enable(c->rec);
	}
	uint64_t start = c->enabled_ns;

	const char *hint = o->stop_hint ? o->stop_hint : "press Ctrl+C to stop";
	if (o->collectsec > 0)
		log_say("Collecting %s for %g s (or until stopped: %s)...",
			c->pid > 0 ? "the process" : "all CPUs", o->collectsec, hint);
	else
		log_say("Collecting %s; %s...", c->pid > 0 ? "the process" : "all CPUs", hint);
	if (o->on_recording)
		o->on_recording(o->on_recording_arg);
	/* From here the drain only copies records: zstd and write(2) run on the writer's
	 * thread, which inherits our blocked stop signals. */
	c->async = perfdata_async_start(c->w, WRITE_QUEUE_BYTES, true);
	if (!c->async)
		return -1;
	c->bids.async = c->async;
	struct record_loop loop = {
	    .signal_fd = c->sigfd,
	    .pid_fd = c->pidfd,
	    .deadline_ns = o->collectsec > 0 ? start + (uint64_t)(o->collectsec * 1e9) : 0,
	    .on_record = on_record,
	    .on_pass = on_pass,
	    .arg = c,
	};
	rc = recorder_run(c->rec, &loop, why, signo);
	*duration_ns = monotonic_ns() - start;
	char *run_err = rc < 0 ? xstrdup(pc_strerror()) : NULL;
	struct perfdata_async_stats st;
	c->bids.async = NULL;
	if (perfdata_async_stop(c->async, &st) < 0)
		c->write_failed = true, rc = -1;
	else if (run_err)
		pc_err("%s", run_err); /* a write error is the cause; else the loop's */
	free(run_err);
	c->async = NULL;
	log_info("perf.data writer thread: %" PRIu64 " buffers of %u KiB, %" PRIu64
		 " written uncompressed (it fell behind), at most %zu of %zu queued; the drain "
		 "waited for one %" PRIu64 " times (%.1f ms)",
		 st.handed_off, PERFDATA_ASYNC_BUF >> 10, st.uncompressed, st.peak_queued, st.nbufs,
		 st.waits, st.wait_ns / 1e6);
	return rc;
}

int collect_finish_file(struct collector *c)
{
	machine_foreach_hit_map(c->machine, collect_buildids_add, &c->bids);
	log_info("build-ids of %zu DSOs hit by samples", c->bids.n);
	log_info("users of %zu sampled processes noted", collect_uids_count(c->uids));
	if (collect_uids_flush(c->uids) < 0)
		log_warn("%s", pc_strerror());
	uint64_t raw, file;
	perfdata_writer_stats(c->w, &raw, &file);
	int rc = perfdata_writer_finish(c->w, NULL);
	if (rc == 0)
		log_info("perf.data: %.1f MB of records in %.1f MB (zstd level %d)", raw / 1e6,
			 file / 1e6, PERF_DATA_ZSTD_LEVEL);
	if (c->stack_bytes_in)
		log_info("call stacks %s: samples with a stack copy %.1f MB as the kernel wrote "
			 "them, %.1f MB cut to what it copied",
			 callgraph_name(c->o->callgraph.mode), c->stack_bytes_in / 1e6,
			 c->stack_bytes_out / 1e6);
	return rc;
}
