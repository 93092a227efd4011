/* postprocess: see postprocess.h.  One pass over perf.data: every non-sample record goes to
 * the symbolizer (which keeps the process/map state), every sample is symbolized and
 * formatted at once, so memory stays flat in the number of samples.  The archive is
 * written meanwhile on a second thread (archive.h's streaming): perf.data.txt is
 * compressed as it is produced.  Then the JIT side files are gathered (postprocess_jit.c)
 * and appended with the log. */
#include "postprocess.h"
#include "base/archive.h"
#include "base/deflate_chunk.h"
#include "base/log.h"
#include "base/outfile.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_write.h"
#include "perfdata/sched_switch.h"
#include "postprocess_jit.h"
#include "postprocess_nettrace.h"
#include "postprocess_perfdata.h"
#include "postprocess_unified.h"
#include "trace_fields.h"
#include "script.h"
#include "switch_fill.h"
#include "symbols/proc_uids.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <strings.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* perf script's default --max-stack (PERF_MAX_STACK_DEPTH). */
#define SCRIPT_MAX_STACK 127
#define TEXT_WORKERS_MAX 3

struct pass {
	const struct postprocess_opts *o;
	struct postprocess_stats *st;
	struct perfdata_reader *reader;
	struct symbolizer *sym;
	struct script_writer *script;	/* NULL without perf.data.txt (the NetTrace alone) */
	struct nettrace_out *nt;	/* NULL without a NetTrace */
	struct trace_fields *tf;	/* tracepoint samples' `trace` field */
	struct switch_fill *sf;		/* NULL unless sched_switch and switch records are there */
	struct zip_perfdata *zpd;	/* NULL: perf.data goes into the zip as recorded */
	struct archive_writer *archive; /* the zip perf.data.txt is streamed into, or NULL */
	FILE *out;			/* perf.data.txt's stream (or file) */
	uint64_t *evsel_samples;	/* per evsel index */
	size_t nr_evsels;
	uint64_t frames, unresolved, no_cpu_samples;
	uint64_t pass_ns, pass_cpu_ns;
	int text_threads; /* formatting perf.data.txt beside the pass */
};

/* CPU time of this thread (user + system), to tell work from waiting for a CPU; the
 * archive is compressed on another thread meanwhile. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

static const char *or_unknown(const char *s)
{
	return s ? s : "(not recorded)";
}

static void log_sample_type(const struct perfdata_evsel *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	char rate[64];
	if (a->freq)
		snprintf(rate, sizeof(rate), "%" PRIu64 " Hz", (uint64_t)a->sample_freq);
	else
		snprintf(rate, sizeof(rate), "every %" PRIu64, (uint64_t)a->sample_period);
	char stack[96] = "";
	if (a->sample_type & PERF_SAMPLE_STACK_USER)
		snprintf(stack, sizeof(stack), ", user registers and stack copies of %u bytes%s",
			 a->sample_stack_user,
			 perfdata_attr_regs_in_stack(a) ? " (hybrid call stacks)" : "");
	log_info("event %s: type %u config %#" PRIx64 ", sampled %s%s%s%s%s%s", ev->name, a->type,
		 (uint64_t)a->config, rate,
		 a->sample_type & PERF_SAMPLE_CALLCHAIN
		     ? (a->exclude_callchain_user ? ", kernel callchains" : ", callchains")
		     : "",
		 stack, a->sample_type & PERF_SAMPLE_CPU ? ", cpu" : ", no cpu",
		 a->sample_type & PERF_SAMPLE_RAW ? ", raw data" : "",
		 a->exclude_kernel ? ", user only" : "");
}

/* Versions, kernel, the recording's command line and its events. */
static void log_header(struct pass *p)
{
	struct utsname u;
	const struct perfdata_reader *r = p->reader;
	log_info("post-processing %s with perfcollect-c %s (deflate: %s)", p->o->perf_data,
		 PC_VERSION, deflate_backend());
	if (uname(&u) == 0)
		log_info("this machine: %s %s %s", u.sysname, u.release, u.machine);
	log_info("recorded by: %s", or_unknown(perfdata_reader_version(r)));
	log_info("recorded on: host %s, kernel %s, arch %s, %d cpus",
		 or_unknown(perfdata_reader_hostname(r)), or_unknown(perfdata_reader_osrelease(r)),
		 or_unknown(perfdata_reader_arch(r)), perfdata_reader_nrcpus(r));
	log_info("command line: %s", or_unknown(perfdata_reader_cmdline(r)));
	for (size_t i = 0; i < p->nr_evsels; i++)
		log_sample_type(perfdata_reader_evsel(r, i));
}

/* Whether samples carry user registers and stack copies to unwind (collect's hybrid and
 * dwarf call stacks, perf record --call-graph dwarf). */
static bool has_user_stacks(struct pass *p)
{
	for (size_t i = 0; i < p->nr_evsels; i++) {
		const struct perf_event_attr *a = &perfdata_reader_evsel(p->reader, i)->attr;
		if ((a->sample_type & PERF_SAMPLE_STACK_USER) &&
		    ((a->sample_type & PERF_SAMPLE_REGS_USER) || perfdata_attr_regs_in_stack(a)))
			return true;
	}
	return false;
}

/* Whether any event samples the kernel (its frames need kallsyms). */
static bool samples_kernel(struct pass *p)
{
	for (size_t i = 0; i < p->nr_evsels; i++)
		if (!perfdata_reader_evsel(p->reader, i)->attr.exclude_kernel)
			return true;
	return false;
}

static size_t evsel_index(struct pass *p, const struct perfdata_evsel *ev)
{
	for (size_t i = 0; i < p->nr_evsels; i++)
		if (perfdata_reader_evsel(p->reader, i) == ev)
			return i;
	return p->nr_evsels;
}

static void count_lost(struct pass *p, const struct perf_event_header *h)
{
	const uint64_t *body = (const uint64_t *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / sizeof(uint64_t);
	if (h->type == PERF_RECORD_LOST && words >= 2)
		p->st->lost += body[1]; /* id, lost */
	else if (h->type == PERF_RECORD_LOST_SAMPLES && words >= 1)
		p->st->lost += body[0];
}

/* The NetTrace could not be written (a full disk): said once; perf.data.txt goes on. */
static void nettrace_failed(struct pass *p)
{
	log_warn("%s: %s; the NetTrace is left out", p->o->nettrace_path, pc_strerror());
	nettrace_out_free(p->nt);
	p->nt = NULL;
}

static int write_sample(struct pass *p, const struct perfdata_record *rec, struct frame *frames)
{
	const struct perf_sample *s = &rec->sample;
	const struct perfdata_evsel *ev = s->evsel;
	size_t n = symbolizer_frames(p->sym, s, frames, SCRIPT_MAX_STACK);
	zip_perfdata_sample(p->zpd, rec, frames, n);
	p->frames += n;
	for (size_t i = 0; i < n; i++)
		if (frames[i].kind == FRAME_UNKNOWN)
			p->unresolved++;
	if (!s->has_cpu)
		p->no_cpu_samples++;
	size_t idx = evsel_index(p, ev);
	if (idx < p->nr_evsels)
		p->evsel_samples[idx]++;
	/* A copy: machine_comm() may return its scratch ":<tid>", which the NetTrace writer's own
	 * lookups (the process's name) overwrite before perf.data.txt's line is written. */
	char comm[256];
	const char *name = machine_comm(symbolizer_machine(p->sym), s->pid, s->tid);
	size_t len = strnlen(name, sizeof(comm) - 1); /* (not snprintf: once per sample) */
	memcpy(comm, name, len);
	comm[len] = 0;
	const char *trace = trace_fields_text(p->tf, rec);
	if (p->sf && ev && ev->name && !strcmp(ev->name, SCHED_SWITCH_EVENT))
		switch_fill_tracepoint(p->sf, trace);
	if (p->nt && nettrace_out_sample(p->nt, s, frames, n, comm, trace) < 0)
		nettrace_failed(p);
	if (!p->script)
		return 0;
	struct script_sample ss = {
	    .comm = comm,
	    .pid = (int32_t)s->pid,
	    .tid = (int32_t)s->tid,
	    .has_cpu = s->has_cpu,
	    .cpu = s->cpu,
	    .has_time = s->has_time,
	    .time = s->time,
	    .period = s->period,
	    .event = ev ? ev->name : NULL,
	    .trace = trace,
	    .callchain = ev && (ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN),
	    .ip = s->ip,
	    .frames = frames,
	    .nframes = n,
	};
	return script_writer_sample(p->script, &ss);
}

/* A switch the sched_switch tracepoint missed (switch_fill.h), as perf.data.txt's line of
 * the sample the tracepoint would have given: no call stack. */
static int write_missed_switch(struct pass *p, const struct perfdata_record *rec)
{
	struct switch_fill_sample fs;
	if (!p->script || !switch_fill_record(p->sf, rec, symbolizer_machine(p->sym), &fs))
		return 0;
	struct script_sample ss = {
	    .comm = fs.comm,
	    .pid = fs.pid,
	    .tid = fs.tid,
	    .has_cpu = rec->id.has_cpu,
	    .cpu = rec->id.cpu,
	    .has_time = rec->id.has_time,
	    .time = rec->id.time,
	    .period = 1,
	    .event = SCHED_SWITCH_EVENT,
	    .trace = fs.trace,
	    .callchain = true,
	};
	return script_writer_sample(p->script, &ss);
}

/* Whether the file has sched_switch samples and switch records to complete them with. */
static bool wants_switch_fill(struct pass *p)
{
	bool tracepoint = false, records = false;
	for (size_t i = 0; i < p->nr_evsels; i++) {
		const struct perfdata_evsel *ev = perfdata_reader_evsel(p->reader, i);
		tracepoint |= ev->name && !strcmp(ev->name, SCHED_SWITCH_EVENT);
		records |= ev->attr.context_switch;
	}
	return tracepoint && records;
}

/* perf.data.txt's text into the archive without a copy (archive_writer_give()). */
static int give_to_archive(void *arg, uint8_t **buf, size_t *cap, size_t len)
{
	struct pass *p = arg;
	return archive_writer_give(p->archive, p->out, buf, cap, len);
}

/* Threads that format perf.data.txt beside the pass (script_pool.h).  By default the CPUs
 * but two, one for the pass and one for the archive's compressors: on 2 CPUs a worker only
 * took CPU from the compressors, which bound merge's wall there (bench/README.md, "The
 * text on threads of its own"); the text is about a third of the pass's work, so a few keep
 * up with it on any machine.  PERFCOLLECT_C_PASS_THREADS sets the number (0: none). */
static int text_workers(void)
{
	long n = usable_cpus() - 2, set;
	n = n < 0 ? 0 : n > TEXT_WORKERS_MAX ? TEXT_WORKERS_MAX : n;
	const char *env = getenv("PERFCOLLECT_C_PASS_THREADS");
	if (env && *env && parse_int(env, 0, 64, &set) == 0)
		n = set;
	else if (env && *env)
		log_warn("PERFCOLLECT_C_PASS_THREADS=%s is not a number from 0 to 64; %ld used",
			 env, n);
	return (int)n;
}

/* The streaming pass.  Returns 0 (also when the data ended early: st->truncated), -1 when
 * perf.data.txt could not be written. */
static int run_pass(struct pass *p, FILE *out)
{
	int name_width = 0;
	for (size_t i = 0; i < p->nr_evsels; i++) {
		const char *n = perfdata_reader_evsel(p->reader, i)->name;
		if (n && (int)strlen(n) > name_width)
			name_width = (int)strlen(n);
	}
	p->out = out;
	p->script = out ? script_writer_new(out, name_width) : NULL;
	if (p->script && p->archive)
		script_writer_give_to(p->script, give_to_archive, p, ARCHIVE_PIECE);
	if (p->script) {
		p->text_threads = script_writer_parallel(p->script, text_workers(), 0);
	}
	if (p->script && wants_switch_fill(p))
		p->sf = switch_fill_new();
	struct frame *frames = xcalloc(SCRIPT_MAX_STACK + 1, sizeof(*frames));
	struct progress *prog =
	    progress_new("post-processing", perfdata_reader_data_size(p->reader));
	struct perfdata_record rec;
	int r, ret = 0;
	uint64_t t0 = monotonic_ns(), cpu0 = cpu_ns();
	while ((r = perfdata_reader_next(p->reader, &rec)) > 0) {
		p->st->records++;
		uint32_t type = rec.header->type;
		if (type == PERF_RECORD_SAMPLE) {
			p->st->samples++;
			if (write_sample(p, &rec, frames) < 0) {
				ret = -1;
				break;
			}
		} else {
			if (type == PERF_RECORD_LOST || type == PERF_RECORD_LOST_SAMPLES)
				count_lost(p, rec.header);
			symbolizer_process(p->sym, &rec);
			zip_perfdata_record(p->zpd, &rec);
			if (p->sf && write_missed_switch(p, &rec) < 0) {
				ret = -1;
				break;
			}
			if (p->nt && nettrace_out_record(p->nt, &rec) < 0)
				nettrace_failed(p);
		}
		if ((p->st->records & 1023) == 0)
			progress_update(prog, perfdata_reader_data_pos(p->reader));
	}
	progress_free(prog);
	if (r < 0) {
		p->st->truncated = true;
		log_warn("perf.data: %s; kept the %" PRIu64 " samples before it", pc_strerror(),
			 p->st->samples);
	}
	if (perfdata_reader_truncated(p->reader)) {
		p->st->truncated = true;
		log_warn("perf.data was not finished by its writer (truncated): recovered %" PRIu64
			 " records, %" PRIu64 " samples",
			 p->st->records, p->st->samples);
	}
	if (p->script && script_writer_flush(p->script) < 0)
		ret = -1;
	p->pass_ns = monotonic_ns() - t0;
	p->pass_cpu_ns = cpu_ns() - cpu0;
	free(frames);
	return ret;
}

static void log_summary(struct pass *p)
{
	const struct postprocess_stats *st = p->st;
	log_info("records: %" PRIu64 ", samples: %" PRIu64 ", lost: %" PRIu64 "%s", st->records,
		 st->samples, st->lost, st->truncated ? " (perf.data truncated)" : "");
	for (size_t i = 0; i < p->nr_evsels; i++)
		log_info("samples of %s: %" PRIu64, perfdata_reader_evsel(p->reader, i)->name,
			 p->evsel_samples[i]);
	if (st->lost)
		log_warn("%" PRIu64 " samples were lost (the ring buffer was full); a larger "
			 "-buffersize or a lower frequency keeps them",
			 st->lost);
	if (p->no_cpu_samples)
		log_info("%" PRIu64 " samples carry no CPU (recorded per process): the [cpu] "
			 "column is left out for them",
			 p->no_cpu_samples);
	log_info("frames: %" PRIu64 ", unresolved: %" PRIu64 " (%.1f%%)", p->frames, p->unresolved,
		 p->frames ? 100.0 * p->unresolved / p->frames : 0.0);
	const struct symbolizer_unwind_stats *us = symbolizer_unwind_stats(p->sym);
	if (us->samples)
		log_info("call stacks unwound from user registers and stack copies: %" PRIu64
			 " samples, %" PRIu64 " with callers the frame-pointer chain lacked; user "
			 "frames %" PRIu64 " in the chains, %" PRIu64 " unwound; %" PRIu64
			 " copies ended before the stack; unwind tables of %" PRIu64
			 " files read in %.3f s",
			 us->samples, us->mended, us->frames_in, us->frames_out, us->copy_short,
			 us->tables, us->tables_ns / 1e9);
	if (p->sf && (switch_fill_stats(p->sf)->ins || switch_fill_stats(p->sf)->outs))
		log_info("sched_switch: %" PRIu64 " switch-ins and %" PRIu64
			 " switch-outs the kernel's tracepoint did not record are written from its "
			 "PERF_RECORD_SWITCH records (without a call stack)",
			 switch_fill_stats(p->sf)->ins, switch_fill_stats(p->sf)->outs);
	if (p->script)
		log_info("perf.data.txt: %" PRIu64
			 " bytes, written in %.3f s (%.3f s of CPU on the "
			 "pass's thread; %d thread%s formatting the text beside it)",
			 script_writer_bytes(p->script), p->pass_ns / 1e9, p->pass_cpu_ns / 1e9,
			 p->text_threads, p->text_threads == 1 ? "" : "s");
}

static int add_entry(struct archive_writer *w, const char *name, const char *file, const char *dir)
{
	char *src = xasprintf("%s/%s", dir, file);
	char *entry = xasprintf("%s.trace/%s", name, file);
	int r = archive_writer_add_file(w, entry, src);
	if (r < 0)
		log_warn("%s", pc_strerror());
	free(src);
	free(entry);
	return r;
}

/* Adds the .NET runtime's event files, as collect streamed them (loose: not ours to pick
 * up). */
static int add_runtime_files(const struct postprocess_opts *o, struct archive_writer *w)
{
	size_t nnt = 0;
	char **nt = o->loose ? NULL : nettrace_files_find(o->trace_dir, &nnt);
	int r = 0;
	for (size_t i = 0; r == 0 && i < nnt; i++)
		r = add_entry(w, o->name, nt[i], o->trace_dir);
	nettrace_files_free(nt, nnt);
	return r;
}

/* The archive, started before the pass: perf.data first as recorded unless the pass
 * rewrites it (rewritten: it comes after the text), and the runtime's event files (their
 * pieces compressed while the symbolizer loads); then perf.data.txt, compressed by the
 * archive's threads while the pass writes it (so it never goes to disk).  NULL when that
 * cannot be set up: then perf.data.txt goes to out_dir and pack() says what failed. */
static struct archive_writer *start_archive(const struct postprocess_opts *o, bool rewritten,
					    FILE **txt)
{
	*txt = NULL;
	struct archive_writer *w = archive_writer_new(o->zip_path);
	if (!w)
		return NULL;
	char *txt_entry = xasprintf("%s.trace/perf.data.txt", o->name);
	char *data_entry = xasprintf("%s.trace/perf.data", o->name);
	FILE *f = NULL;
	if ((rewritten || archive_writer_add_file(w, data_entry, o->perf_data) == 0) &&
	    add_runtime_files(o, w) == 0 && (f = archive_writer_add_stream(w, txt_entry))) {
		*txt = f;
	} else {
		archive_writer_free(w);
		w = NULL;
	}
	free(txt_entry);
	free(data_entry);
	return w;
}

/* The files of perf.data's build-id table to the symbolizer, which fetches what lacks
 * symbols (symbolizer_prepare()). */
static void prepare_symbols(const struct postprocess_opts *o, struct pass *p)
{
	size_t nb = 0;
	const struct perfdata_build_id *ids = perfdata_reader_build_ids(p->reader, &nb);
	struct symbolizer_file *files = xcalloc(nb + 1, sizeof(*files));
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		if (ids[i].kernel || !ids[i].filename)
			continue;
		struct symbolizer_file *f = &files[n++];
		f->path = ids[i].filename;
		f->build_id = ids[i].id;
		f->build_id_size = ids[i].size;
		for (size_t r = 0; r < o->nroots && !f->pid; r++)
			if (!strcmp(o->roots[r].path, f->path))
				f->pid = o->roots[r].pid;
	}
	symbolizer_prepare(p->sym, files, n, o->symsrv, o->symsrv_timeout_s);
	free(files);
}

/* Symbolize perf.data into perf.data.txt: into the archive *w when it could be started,
 * else out_dir/perf.data.txt.  Returns -1 when perf.data cannot be opened at all or
 * perf.data.txt cannot be written; *txt says whether it exists. */
/* The unified NetTrace's entry, streamed into the archive beside the pass (compressed by
 * the archive's threads at their best effort, so that costs nothing after the pass): NULL
 * when it cannot be, and then pack() adds the finished file. */
static FILE *stream_nettrace(const struct postprocess_opts *o, struct archive_writer *w,
			     struct nettrace_out *nt)
{
	if (!w || !nt)
		return NULL;
	char *entry = xasprintf("%s.trace/%s.nettrace", o->name, o->name);
	FILE *f = archive_writer_add_side_stream(w, entry);
	free(entry);
	if (f)
		nettrace_out_copy_to(nt, f);
	else
		log_warn("%s; the NetTrace is added after the pass", pc_strerror());
	return f;
}

static int symbolize(const struct postprocess_opts *o, const char *out_dir,
		     struct postprocess_stats *st, struct jitfiles *jf, bool *txt,
		     struct archive_writer **w, struct zip_perfdata **zpd, bool *nt_in_zip)
{
	struct pass p = {.o = o, .st = st};
	*txt = false;
	p.reader = perfdata_reader_open(o->perf_data);
	if (!p.reader) {
		/* The caller says it on stderr; the log keeps it too. */
		log_info("cannot read %s: %s", o->perf_data, pc_strerror());
		return -1;
	}
	/* zstd beside the pass where there is a CPU for it (decomp_ahead.h) */
	if (usable_cpus() > 1)
		perfdata_reader_decompress_ahead(p.reader);
	p.nr_evsels = perfdata_reader_nr_evsels(p.reader);
	p.evsel_samples = xcalloc(p.nr_evsels + 1, sizeof(*p.evsel_samples));
	log_header(&p);
	p.tf = trace_fields_new(p.reader, o->perf_data);
	/* The users the collector saw the processes run as (none beside a bare perf.data). */
	struct proc_uids *uids = proc_uids_new();
	if (!o->loose && proc_uids_load(uids, o->trace_dir) < 0)
		log_warn("%s; the JIT files of processes gone are taken only when root's",
			 pc_strerror());
	struct symbolizer_opts so = {.side_dir = o->trace_dir,
				     .side_dir_foreign = o->loose,
				     .uids = uids,
				     .live = o->live,
				     .symfs = o->symfs,
				     .symbol_cache = o->symsrv ? o->symsrv->cache_dir : NULL,
				     .unwind = has_user_stacks(&p)};
	p.sym = symbolizer_new(&so);
	if (p.sym && samples_kernel(&p)) /* read beside the set-up below */
		symbolizer_prefetch_kernel(p.sym);
	int ret = -1;
	bool zip = o->format != FORMAT_NETTRACE, ran = false;
	char *txt_path = xasprintf("%s/perf.data.txt", out_dir);
	FILE *out = NULL;
	if (p.sym && o->format != FORMAT_PERFCOLLECT &&
	    !(p.nt = nettrace_out_new(o->nettrace_path, p.reader, p.sym)))
		log_warn("%s", pc_strerror());
	if (p.nt && !o->loose) {
		/* the .NET runtime's own events go into the same file */
		size_t nnt = 0;
		char **nt = nettrace_files_find(o->trace_dir, &nnt);
		nettrace_out_add_runtime(p.nt, o->trace_dir, nt, nnt);
		nettrace_files_free(nt, nnt);
	}
	if (p.sym && zip) {
		char *path = xasprintf("%s/.perf.data.%d.unwound", out_dir, (int)getpid());
		*zpd = p.zpd = zip_perfdata_new(path, p.reader, so.unwind);
		free(path);
	}
	if (p.sym && zip && (*w = start_archive(o, p.zpd != NULL, &out)) == NULL) {
		int fd = outfile_create(txt_path, OUTFILE_REPLACE);
		if (fd >= 0 && !(out = fdopen(fd, "w")))
			close(fd);
	}
	FILE *nt_entry = stream_nettrace(o, *w, p.nt);
	if (p.sym) /* while the archive's threads compress perf.data */
		prepare_symbols(o, &p);
	if (!p.sym) {
		log_warn("cannot symbolize: %s", pc_strerror());
	} else if (zip && !out) {
		pc_err_errno("cannot create %s", txt_path);
		log_warn("%s", pc_strerror());
	} else if (zip || p.nt) {
		ran = true;
		p.archive = *w;
		ret = run_pass(&p, out);
		if (out && fclose(out) != 0 && ret == 0)
			ret = pc_err_errno("cannot write %s", txt_path);
		if (ret < 0)
			log_warn("%s", pc_strerror());
		*txt = out != NULL;
		if (p.nt && nettrace_out_finish(p.nt) < 0)
			log_warn("%s", pc_strerror());
		else if (p.nt)
			st->nettrace = true;
		if (st->nettrace && nt_entry) {
			fclose(nt_entry); /* the entry is complete */
			nt_entry = NULL;
			*nt_in_zip = true;
		}
		if (!zip && !st->nettrace)
			ret = -1;
		log_summary(&p);
		if (zip)
			jitfiles_collect(jf, p.sym);
	}
	/* a NetTrace failed or not written: nothing of it in the archive */
	archive_writer_abandon_side_stream(*w, nt_entry);
	if (!ran) { /* perf.data goes as recorded */
		zip_perfdata_free(p.zpd);
		*zpd = NULL;
	}
	nettrace_out_free(p.nt);
	script_writer_free(p.script);
	switch_fill_free(p.sf);
	trace_fields_free(p.tf);
	symbolizer_free(p.sym);
	proc_uids_free(uids);
	perfdata_reader_free(p.reader);
	free(p.evsel_samples);
	free(txt_path);
	return ret;
}

/* Packs the archive: perf.data, perf.data.txt, JIT files, the NetTrace, the log.  w: the
 * archive that start_archive() began, which holds perf.data.txt (and the recorded perf.data
 * unless zpd rewrote it) already. */
static int pack(const struct postprocess_opts *o, const char *out_dir, bool txt, bool nettrace,
		bool nt_in_zip, struct jitfiles *jf, struct archive_writer *w,
		struct zip_perfdata *zpd)
{
	int r = 0;
	const char *unwound = zip_perfdata_finish(zpd);
	if (w && zpd) {
		char *entry = xasprintf("%s.trace/perf.data", o->name);
		r = archive_writer_add_file(w, entry, unwound ? unwound : o->perf_data);
		free(entry);
		if (r < 0)
			log_warn("%s", pc_strerror());
	} else if (!w) {
		w = archive_writer_new(o->zip_path);
		if (!w) {
			log_warn("%s", pc_strerror());
			return -1;
		}
		char *entry = xasprintf("%s.trace/perf.data", o->name);
		r = archive_writer_add_file(w, entry, unwound ? unwound : o->perf_data);
		free(entry);
		if (r < 0)
			log_warn("%s", pc_strerror());
		if (r == 0 && txt)
			r = add_entry(w, o->name, "perf.data.txt", out_dir);
		if (r == 0)
			r = add_runtime_files(o, w);
	}
	for (size_t i = 0; r == 0 && i < jitfiles_count(jf); i++)
		r = add_entry(w, o->name, jitfiles_name(jf, i), out_dir);
	size_t nnt = 0;
	char **nt = o->loose ? NULL : nettrace_files_find(o->trace_dir, &nnt);
	nettrace_files_log(o->trace_dir, nt, nnt);
	nettrace_files_free(nt, nnt);
	if (r == 0 && nettrace && !nt_in_zip) {
		char *entry = xasprintf("%s.trace/%s.nettrace", o->name, o->name);
		if ((r = archive_writer_add_file(w, entry, o->nettrace_path)) < 0)
			log_warn("%s", pc_strerror());
		free(entry);
	}
	char *log_path = xasprintf("%s/perfcollect.log", out_dir);
	if (r == 0) {
		struct archive_stats st;
		archive_writer_stats(w, &st);
		if (st.waits)
			log_info("archive: the pass waited %" PRIu64 " times (%.3f s) for the "
				 "compressors; %" PRIu64 " of %" PRIu64 " pieces so far compressed "
				 "a step lighter for it",
				 st.waits, st.wait_s, st.lighter, st.deflated);
		log_info("writing %s", o->zip_path);
		if (access(log_path, F_OK) == 0)
			r = add_entry(w, o->name, "perfcollect.log", out_dir);
	}
	free(log_path);
	if (r == 0 && (r = archive_writer_finish(w)) < 0)
		log_warn("%s", pc_strerror());
	archive_writer_free(w);
	return r;
}

int output_format_parse(const char *s, enum output_format *f)
{
	static const char *const names[] = {[FORMAT_BOTH] = "both",
					    [FORMAT_PERFCOLLECT] = "perfcollect",
					    [FORMAT_NETTRACE] = "nettrace"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i])) {
			*f = (enum output_format)i;
			return 0;
		}
	return pc_err("-format %s: it is perfcollect (the trace.zip), nettrace (one .nettrace "
		      "file for PerfView) or both",
		      s);
}

int postprocess_run(const struct postprocess_opts *o_in, struct postprocess_stats *st)
{
	struct postprocess_opts o = *o_in;
	struct postprocess_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	char *perf_data = o.perf_data ? NULL : xasprintf("%s/perf.data", o.trace_dir);
	if (perf_data)
		o.perf_data = perf_data;
	if (!o.nettrace_path)
		o.format = FORMAT_PERFCOLLECT;
	const char *out_dir = o.out_dir ? o.out_dir : o.trace_dir;

	struct jitfiles *jf = jitfiles_new(o.trace_dir, out_dir);
	bool txt = false;
	struct archive_writer *w = NULL;
	struct zip_perfdata *zpd = NULL;
	bool nt_in_zip = false;
	int ret = symbolize(&o, out_dir, st, jf, &txt, &w, &zpd, &nt_in_zip);
	char *err = ret < 0 ? xstrdup(pc_strerror()) : NULL;
	if (!o.loose)
		jitfiles_add_dir(jf);
	jitfiles_log(jf);
	int pr;
	if ((ret < 0 && o.all_or_nothing) || o.format == FORMAT_NETTRACE) {
		archive_writer_free(w); /* discards what it began, if anything */
		pr = 0;
	} else {
		pr = pack(&o, out_dir, txt, st->nettrace, nt_in_zip, jf, w, zpd);
	}
	zip_perfdata_free(zpd);
	if (pr < 0)
		ret = -1;
	else if (err)
		pc_err("%s", err); /* the first failure is the one to report */
	free(err);
	jitfiles_free(jf);
	free(perf_data);
	return ret;
}
