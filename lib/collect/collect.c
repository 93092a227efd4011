/* collect: see collect.h.  Order matters: the events are opened before anything is written
 * (a permission error leaves no trace directory behind), the synthesized records go first
 * into perf.data (time 0 sorts them before all samples), then the rings are drained until a
 * stop condition; perf.data is finished, and post-processing runs with SIGINT answered by a
 * "still writing" line instead of killing us. */
#include "collect.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/tracefile.h"
#include "collect_buildids.h"
#include "collect_events.h"
#include "collect_signals.h"
#include "collect_tracedir.h"
#include "collect_uids.h"
#include "dotnet/dotnet_guard.h"
#include "dotnet/dotnet_ipc.h"
#include "dotnet/eventpipe_collect.h"
#include "perfdata/perfdata_async.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_write.h"
#include "postprocess/postprocess.h"
#include "record/record.h"
#include "record/synth.h"
#include "symbols/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* perf record -z's default level: fast enough for the recording loop, several times
 * smaller than the raw records. */
#define PERF_DATA_ZSTD_LEVEL 1
/* Post-processing's priority when we may raise it (hurry_postprocessing). */
#define POSTPROCESS_NICE (-10)
/* At most this much of the recording lives only in memory (when the writer keeps up). */
#define FLUSH_INTERVAL_NS 1000000000ULL
/* The buffers between the drain and the perf.data writer's thread (perfdata_async.h): with
 * the writer behind by half of this it stops compressing, so only a disk slower than the
 * records makes the drain wait. */
#define WRITE_QUEUE_BYTES (32u << 20)

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

static void raise_fd_limit(void)
{
	/* -pid opens one fd per thread per CPU: a big process needs more than 1024. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct event_id {
	uint64_t id;
	size_t event;
};

static int cmp_event_id(const void *a, const void *b)
{
	const struct event_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void index_event_ids(struct collector *c)
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
		index_event_ids(c);
		hit = bsearch(&key, c->ids, c->nids, sizeof(*c->ids), cmp_event_id);
	}
	return hit ? (long)hit->event : -1;
}

/* Counts a sample per event and marks the maps its ips fall in, for the build-id feature.
 * Returns its event, -1 when none. */
static long mark_hits(struct collector *c, const struct perf_event_header *h)
{
	long e = sample_event(c, h);
	if (e < 0)
		return -1;
	c->event_samples[e]++;
	struct perf_sample s;
	if (perfdata_parse_sample(&c->events[e].attr, h, &s) < 0)
		return e;
	collect_uids_note(c->uids, s.pid, s.has_time ? s.time : 0);
	bool kernel = s.cpumode == PERF_RECORD_MISC_KERNEL;
	if (!s.nr_callchain) {
		struct map *m = machine_find_map(c->machine, s.pid, s.ip, kernel);
		if (m)
			m->hit = true;
		return e;
	}
	for (uint64_t i = 0; i < s.nr_callchain; i++) {
		uint64_t ip = s.callchain[i];
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				kernel = true;
			else if (ip == PERF_CONTEXT_USER)
				kernel = false;
			continue;
		}
		struct map *m = machine_find_map(c->machine, s.pid, ip, kernel);
		if (m)
			m->hit = true;
	}
	return e;
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

/* A sample with a copy of the user stack goes to perf.data with the copy cut to what the
 * kernel copied, and in hybrid mode with the registers in front of it (perf_abi.h). */
static int write_sample(struct collector *c, const struct perf_event_header *h, long e)
{
	if (e < 0 || !(c->events[e].attr.sample_type & PERF_SAMPLE_STACK_USER))
		return write_record(c, h);
	if (!c->packed)
		c->packed = xmalloc(UINT16_MAX + 1);
	bool fold = c->o->callgraph.mode == CALLGRAPH_HYBRID;
	size_t n = perfdata_sample_pack_stack(&c->events[e].attr, h, fold, c->packed);
	if (!n)
		return write_record(c, h);
	c->stack_bytes_in += h->size;
	c->stack_bytes_out += n;
	return write_record(c, (const struct perf_event_header *)c->packed);
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
		return write_sample(c, h, mark_hits(c, h));
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

static void log_start(struct collector *c)
{
	const struct collect_opts *o = c->o;
	struct utsname u;
	log_info("perfcollect-c %s: collect %s", PC_VERSION, o->name);
	if (uname(&u) == 0)
		log_info("kernel: %s %s %s %s", u.sysname, u.release, u.version, u.machine);
	char *cmdline = xstrdup("");
	for (int i = 0; i < o->argc; i++) {
		char *next = xasprintf("%s%s%s", cmdline, i ? " " : "", o->argv[i]);
		free(cmdline);
		cmdline = next;
	}
	log_info("command line: %s", cmdline);
	free(cmdline);
	log_info("options: target %s, collectsec %g (0: until stopped), freq %ld (0: 1000), "
		 "buffersize %" PRIu64 " (0: default), callgraph %s (user stack copy %" PRIu32
		 " bytes), threadtime %d, "
		 "offcpu %d, hwevents %d, system %d, dotnet ipc %s, outdir %s",
		 c->pid > 0 ? "one process" : "all CPUs", o->collectsec, o->freq, o->buffersize,
		 callgraph_name(o->callgraph.mode), callgraph_stack_bytes(&o->callgraph),
		 o->threadtime, o->offcpu, o->hwevents, o->system, o->no_dotnet_ipc ? "off" : "on",
		 o->outdir ? o->outdir : ".");
	for (size_t i = 0; i < o->nnotes; i++)
		log_warn("%s", o->notes[i]);
}

/* What was opened: after recorder_open(). */
static void log_events(struct collector *c)
{
	if (c->pid > 0)
		log_info("target: pid %d, %zu threads at start", (int)c->pid,
			 recorder_nr_threads(c->rec));
	for (size_t e = 0; e < c->nevents; e++) {
		size_t n;
		recorder_event_ids(c->rec, e, &n);
		const struct perf_event_attr *a = &c->events[e].attr;
		log_info("event %s: type %u config %" PRIu64 ", %s %" PRIu64
			 ", sample_type %#" PRIx64 ", clock CLOCK_MONOTONIC, %zu fds",
			 c->events[e].name, a->type, (uint64_t)a->config,
			 a->freq ? "frequency (Hz)" : "period", (uint64_t)a->sample_freq,
			 (uint64_t)a->sample_type, n);
	}
	collect_events_log(&c->set);
	if (c->set.tracing_data)
		log_info("tracing data (tracepoint formats) for perf.data: %zu bytes",
			 c->set.tracing_data_size);
	log_info("ring buffers: %zu CPUs, %" PRIu64 " KiB each", recorder_nr_cpus(c->rec),
		 recorder_ring_bytes(c->rec) >> 10);
}

static int check_name(const char *name)
{
	if (!name || !*name)
		return pc_err("collect needs a trace name: perfcollect-c collect <name>");
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return pc_err("trace name '%s' must be a plain name (use -o DIR for the directory)",
			      name);
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

static int record_to_file(struct collector *c, enum record_stop *why, int *signo,
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
	c->async = perfdata_async_start(c->w, WRITE_QUEUE_BYTES);
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

static int finish_file(struct collector *c)
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

static void collector_free(struct collector *c)
{
	recorder_free(c->rec);
	perfdata_writer_free(c->w);
	machine_free(c->machine);
	if (c->sigfd >= 0)
		close(c->sigfd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	collect_events_release(&c->set);
	free(c->packed);
	free(c->ids);
	free(c->event_samples);
	free(c->trace_dir);
	free(c->data_path);
	free(c->zip_path);
	free(c->version);
	free(c->kallsyms);
	collect_buildids_free(&c->bids);
	collect_uids_free(c->uids);
	free(c->exited);
}

/* The user waits for the zip from the moment recording stops, and busy workloads would
 * leave post-processing a fraction of a CPU (a 60 s trace on 2 saturated CPUs: 1.9 s at nice
 * 0, 0.75 s at -10).  So it runs at nice -10 where allowed (root, CAP_SYS_NICE): the CPU it
 * takes is the same, only sooner.  A collector started under nice keeps what it was given.
 * Nice is per thread on Linux: this one's, and the archive's workers', started later.  True
 * when the priority was raised. */
static bool hurry_postprocessing(void)
{
	errno = 0;
	int nice_now = getpriority(PRIO_PROCESS, 0);
	if (errno) {
		log_info("post-processing at the priority we run at (%s)", strerror(errno));
		return false;
	}
	if (nice_now != 0) {
		log_info("post-processing at nice %d, as the collector was started", nice_now);
		return false;
	}
	if (setpriority(PRIO_PROCESS, 0, POSTPROCESS_NICE) < 0) {
		log_info("post-processing at nice 0 (nice %d refused: %s)", POSTPROCESS_NICE,
			 strerror(errno));
		return false;
	}
	log_info("post-processing at nice %d", getpriority(PRIO_PROCESS, 0));
	return true;
}

int collect_run(const struct collect_opts *o)
{
	if (check_name(o->name) < 0)
		return -1;
	struct collector c = {.o = o, .pid = -1, .sigfd = -1, .pidfd = -1, .lock_fd = -1};
	const char *outdir = o->outdir && *o->outdir ? o->outdir : ".";
	int rc = -1;
	uid_t target_uid = 0;

	if (o->pid > 0) {
		struct proc_status st;
		if (o->pid > INT32_MAX || proc_status((pid_t)o->pid, &st) < 0)
			return pc_err("no process %ld", o->pid);
		c.pid = st.tgid; /* a thread id given: record its whole process */
		target_uid = st.uid;
		if (proc_is_kernel_thread(c.pid)) {
			char comm[64] = "?";
			proc_comm(c.pid, c.pid, comm, sizeof(comm));
			fprintf(stderr,
				"perfcollect-c: note: pid %d is a kernel thread (%s): only its "
				"kernel stacks are sampled, and only while it runs on a CPU\n",
				(int)c.pid, comm);
		}
	} else if (o->pid == 0) {
		return pc_err("-pid needs a process id > 0");
	}
	if (mkdir_p(outdir, 0700) < 0)
		return -1;
	c.trace_dir = tracefile_path(outdir, o->name, TRACE_DIR_SUFFIX);
	c.data_path = xasprintf("%s/perf.data", c.trace_dir);
	c.zip_path = tracefile_path(outdir, o->name, TRACE_ZIP_SUFFIX);
	struct tracedir td = {
	    .name = o->name, .outdir = outdir, .path = c.trace_dir, .zip_path = c.zip_path};
	struct stat sb;
	if (lstat(c.trace_dir, &sb) == 0) {
		tracedir_refuse(&td);
		goto out;
	}

	sigset_t old_mask;
	c.sigfd = collect_block_stop_signals(&old_mask);
	if (c.sigfd < 0)
		goto out;
	raise_fd_limit();
	if (collect_events_build(&c.set, o, c.pid > 0) < 0)
		goto restore;
	c.events = c.set.events;
	c.nevents = c.set.nevents;
	if ((c.lock_fd = tracedir_create(&td)) < 0)
		goto restore;
	char *log_path = xasprintf("%s/perfcollect.log", c.trace_dir);
	if (log_open(log_path) < 0)
		fprintf(stderr, "perfcollect-c: warning: %s\n", pc_strerror());
	free(log_path);
	log_start(&c);
	/* For the rule on the JIT files of processes gone by post-processing (proc_uids.h). */
	if (!(c.uids = collect_uids_new(c.trace_dir)))
		log_warn("%s: the JIT files of processes that exit before post-processing are "
			 "taken only when root's",
			 pc_strerror());
	if (c.pid > 0)
		collect_uids_add(c.uids, (uint32_t)c.pid, target_uid);
	/* Before the events open: the code loads a .NET runtime then writes for methods it
	 * compiled earlier carry timestamps before every sample, so lookups by time find them. */
	/* The guard undoes what we ask of runtimes if we are killed first (forked now: the
	 * process has one thread yet). */
	struct dotnet_guard *guard = NULL;
	if (o->dotnet_events || (c.pid > 0 && !o->no_dotnet_ipc && dotnet_runtime_present(c.pid))) {
		guard = dotnet_guard_start();
		if (!guard)
			log_warn(
			    "no guard (%s): if the collector is killed, what it asked of .NET "
			    "runtimes stays (perf maps on, EventPipe sessions open until their "
			    "next event)",
			    pc_strerror());
	}
	bool dotnet_enabled =
	    c.pid > 0 && dotnet_prepare_target(c.pid, !o->no_dotnet_ipc, guard) == 1;
	if (dotnet_enabled)
		tracedir_note(&td, "dotnet-perfmap %d %" PRIu64 "\n", (int)c.pid,
			      proc_start_time(c.pid));
	/* Before the events open: copying it takes a while, and -pid events count at once
	 * (they stay enabled so that the FORK records of threads created meanwhile show which
	 * threads inherited them). */
	c.kallsyms = xasprintf("%s/kallsyms", c.trace_dir);
	if (synth_copy_kallsyms(c.kallsyms) < 0) {
		log_warn("cannot copy /proc/kallsyms (%s); kernel frames may not resolve",
			 pc_strerror());
		free(c.kallsyms);
		c.kallsyms = NULL;
	}
	/* The .NET runtime events stream on a thread of their own (started here: the process
	 * has one thread yet, as eventpipe_collect needs). */
	struct eventpipe_collector *ep = NULL;
	if (o->dotnet_events) {
		struct eventpipe_collect_opts eo = {.trace_dir = c.trace_dir,
						    .pid = c.pid,
						    .config = o->dotnet_events,
						    .guard = guard};
		ep = eventpipe_collector_start(&eo);
		if (!ep)
			log_warn("no .NET runtime events: %s", pc_strerror());
	}
	struct recorder_opts ro = {.pid = c.pid, .ring_bytes = o->buffersize};
	c.rec = recorder_open(&ro, c.events, c.nevents);
	if (!c.rec)
		goto abandon;
	c.enabled_ns = monotonic_ns();
	/* As opened: perf.data says what was recorded (user space only, after a fallback). */
	for (size_t e = 0; e < c.nevents; e++)
		c.events[e].attr = *recorder_event_attr(c.rec, e);
	index_event_ids(&c);
	if (c.pid > 0) {
		c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
		if (c.pidfd < 0 && errno == ESRCH) {
			pc_err("no process %d", (int)c.pid);
			goto abandon;
		}
	}
	log_events(&c);
	if (c.pid > 0 && c.pidfd < 0)
		log_warn("pidfd_open failed (%s): the target's exit will not stop recording",
			 strerror(errno));

	enum record_stop why = RECORD_STOP_ERROR;
	int signo = 0;
	uint64_t duration_ns = 0;
	int rec_rc = record_to_file(&c, &why, &signo, &duration_ns);
	/* Why the recording ended early (a full disk ...), said once more at the end. */
	char *rec_err = rec_rc < 0 ? xstrdup(pc_strerror()) : NULL;
	eventpipe_collector_stop(ep);
	ep = NULL;
	if (dotnet_enabled)
		dotnet_finish_target(c.pid);
	dotnet_guard_finish(guard);
	guard = NULL;
	collect_protect_postprocessing(c.zip_path, &old_mask);
	if (rec_err && !c.w) {
		log_warn("recording failed: %s", rec_err);
	} else {
		if (rec_err)
			log_warn("recording stopped early: %s; what was written until then is kept",
				 rec_err);
		log_info("stop reason: %s; recorded for %.3f s", collect_stop_reason(why, signo),
			 duration_ns / 1e9);
		log_info("samples written: %" PRIu64 ", records: %" PRIu64, c.samples, c.records);
		for (size_t e = 0; e < c.nevents; e++)
			log_info("samples of %s: %" PRIu64, c.events[e].name, c.event_samples[e]);
		log_info("lost samples: %" PRIu64, c.lost);
		if (c.lost)
			log_warn("%" PRIu64 " samples were lost (the rings overflowed); a larger "
				 "-buffersize helps",
				 c.lost);
		log_say("Stopped (%s): %" PRIu64 " samples in %.1f s",
			collect_stop_reason(why, signo), c.samples, duration_ns / 1e9);
		if (!c.samples && c.pid > 0 && !o->no_cpu_samples)
			log_warn(
			    "no samples: process %d did not run on a CPU while it was recorded "
			    "(it slept or waited the whole time); -offcpu shows where it "
			    "waits",
			    (int)c.pid);
	}
	/* Events that opened fds while recording (record.h: tid_filter) have more ids now. */
	for (size_t e = 0; c.w && e < c.nevents; e++) {
		size_t n;
		const uint64_t *ids = recorder_event_ids(c.rec, e, &n);
		perfdata_writer_set_ids(c.w, e, ids, n);
	}
	recorder_free(c.rec);
	c.rec = NULL;
	/* After a failed write the file stays as its last good flush left it: complete, but
	 * for the build-ids. */
	if (c.w && !rec_err && finish_file(&c) < 0) {
		log_warn("cannot finish %s: %s", c.data_path, pc_strerror());
		rec_err = xstrdup(pc_strerror());
	}
	perfdata_writer_free(c.w);
	c.w = NULL;

	char *nettrace = tracefile_path(o->outdir, o->name, TRACE_NETTRACE_SUFFIX);
	const char *output = o->format == FORMAT_NETTRACE ? nettrace : c.zip_path;
	log_say("Writing %s ...", output);
	bool hurried = hurry_postprocessing();
	/* The files samples hit, each in the root of a process that mapped it: their symbols
	 * are looked for there, and fetched by the build-id read there. */
	struct symbolizer_file *roots = xcalloc(c.bids.n + 1, sizeof(*roots));
	for (size_t i = 0; i < c.bids.n; i++)
		roots[i] = (struct symbolizer_file){.path = c.bids.paths[i], .pid = c.bids.pids[i]};
	struct postprocess_opts ppo = {
	    .trace_dir = c.trace_dir,
	    .name = o->name,
	    .zip_path = c.zip_path,
	    .live = true,
	    .format = o->format,
	    .nettrace_path = nettrace,
	    .symsrv = &o->symsrv,
	    .symsrv_timeout_s = SYMSRV_DEFAULT_TIMEOUT_S,
	    .roots = roots,
	    .nroots = c.bids.n,
	};
	struct postprocess_stats pst;
	memset(&pst, 0, sizeof(pst));
	int pp_rc = postprocess_run(&ppo, &pst);
	free(roots);
	if (hurried)
		setpriority(PRIO_PROCESS, 0, 0);
	if (pp_rc < 0 || access(output, F_OK) < 0) {
		/* The trace directory stays: it is all the user has, and merge finishes it. */
		char *pp_err = xstrdup(pc_strerror());
		char *cmd = tracedir_merge_command(&td);
		log_warn("post-processing failed: %s; the recording stays in %s", pp_err,
			 c.trace_dir);
		log_close();
		pc_err("%s%s%s%s. The recording is kept in %s; once that is fixed, finish it "
		       "with: %s",
		       rec_err ? "recording stopped early (" : "", rec_err ? rec_err : "",
		       rec_err ? "); " : "", pp_err, c.trace_dir, cmd);
		free(cmd);
		free(pp_err);
		free(rec_err);
		free(nettrace);
		goto out;
	}
	log_close();
	if (rm_rf(c.trace_dir) < 0)
		fprintf(stderr, "perfcollect-c: warning: %s\n", pc_strerror());
	if (access(c.zip_path, F_OK) == 0)
		fprintf(stderr, "Trace saved to %s\n", c.zip_path);
	if (pst.nettrace)
		fprintf(stderr, "%s saved to %s\n",
			o->format == FORMAT_NETTRACE ? "Trace" : "NetTrace", nettrace);
	rc = rec_err ? -1 : 0;
	if (rec_err)
		pc_err("recording stopped early: %s; what was recorded until then is in %s",
		       rec_err, output);
	free(rec_err);
	free(nettrace);
	goto out;

abandon:
	/* Nothing was recorded: leave nothing behind, and keep the message that says why. */
	{
		char *why_msg = xstrdup(pc_strerror());
		eventpipe_collector_stop(ep);
		if (dotnet_enabled)
			dotnet_finish_target(c.pid);
		dotnet_guard_finish(guard);
		log_close();
		rm_rf(c.trace_dir);
		pc_err("%s", why_msg);
		free(why_msg);
	}
restore:
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
out:
	collector_free(&c);
	return rc;
}
