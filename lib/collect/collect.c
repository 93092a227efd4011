/* collect: see collect.h.  Order matters: the events are opened before anything is written
 * (a permission error leaves no trace directory behind), the synthesized records go first
 * into perf.data (time 0 sorts them before all samples), then the rings are drained until a
 * stop condition (collect_record.c, the recording half); perf.data is finished, and
 * post-processing runs with SIGINT answered by a "still writing" line instead of killing
 * us. */
#include "collect.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/tracefile.h"
#include "collect_record.h"
#include "collect_signals.h"
#include "collect_tracedir.h"
#include "dotnet/dotnet_guard.h"
#include "dotnet/dotnet_ipc.h"
#include "dotnet/eventpipe_collect.h"
#include "postprocess/postprocess.h"
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

/* Recording's and post-processing's priority when we may raise it (raise_priority). */
#define COLLECTOR_NICE (-10)

static void raise_fd_limit(void)
{
	/* -pid opens one fd per thread per CPU: a big process needs more than 1024. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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

/* Recording and post-processing run at nice -10 where allowed (root, CAP_SYS_NICE):
 *  - the drain (this thread) and the perf.data writer's thread, started after, must keep up
 *    with the rings: on 2 CPUs saturated by nice-0 loops at load 11-18 a drain at nice 0 got
 *    a tenth of the CPU time it needed when it needed it and lost up to 40 % of the samples
 *    at 10 kHz, where perf record's cheaper drain lost none (bench/README.md);
 *  - the user waits for the zip from the moment recording stops (a 60 s trace on 2 saturated
 *    CPUs: 1.9 s at nice 0, 0.75 s at -10).
 * The CPU taken is the same, only sooner; the target's priority is not touched (nice is per
 * thread on Linux: this one's, and the threads it starts later).  Not SCHED_FIFO: a drain
 * that ran away would starve the box.  A collector started under nice keeps what it was
 * given.  True when the priority was raised. */
static bool raise_priority(const char *what)
{
	errno = 0;
	int nice_now = getpriority(PRIO_PROCESS, 0);
	if (errno) {
		log_info("%s at the priority we run at (%s)", what, strerror(errno));
		return false;
	}
	if (nice_now != 0) {
		log_info("%s at nice %d, as the collector was started", what, nice_now);
		return false;
	}
	if (setpriority(PRIO_PROCESS, 0, COLLECTOR_NICE) < 0) {
		log_info("%s at nice 0 (nice %d refused: %s)", what, COLLECTOR_NICE,
			 strerror(errno));
		return false;
	}
	log_info("%s at nice %d", what, getpriority(PRIO_PROCESS, 0));
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
	collect_index_event_ids(&c);
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
	bool rec_raised = raise_priority("recording (the drain and the perf.data writer)");
	int rec_rc = collect_record_to_file(&c, &why, &signo, &duration_ns);
	if (rec_raised)
		setpriority(PRIO_PROCESS, 0, 0);
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
	if (c.w && !rec_err && collect_finish_file(&c) < 0) {
		log_warn("cannot finish %s: %s", c.data_path, pc_strerror());
		rec_err = xstrdup(pc_strerror());
	}
	perfdata_writer_free(c.w);
	c.w = NULL;

	char *nettrace = tracefile_path(o->outdir, o->name, TRACE_NETTRACE_SUFFIX);
	const char *output = o->format == FORMAT_NETTRACE ? nettrace : c.zip_path;
	log_say("Writing %s ...", output);
	bool hurried = raise_priority("post-processing");
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
