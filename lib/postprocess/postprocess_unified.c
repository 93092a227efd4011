/* postprocess_unified: see postprocess_unified.h. */
#include "postprocess_unified.h"
#include "postprocess_unified_code.h"
#include "postprocess_unified_file.h"
#include "postprocess_unified_runtime.h"
#include "base/log.h"
#include "base/outfile.h"
#include "nettrace/nettrace_write.h"
#include "perfdata/sched_switch.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The pass drives the three parts of the file: what every part writes through (file), the
 * code that ran (code), the runtime's events (runtime). */
struct nettrace_out {
	struct unified_file file;
	struct unified_code code;
	struct unified_runtime *runtime; /* the .NET runtime's event files, NULL: none */
	char *path;
	struct outfile *out; /* path under a temporary name until finished */
	int fd;
	FILE *copy; /* NULL, or the archive's stream of the file */
	bool failed, cswitch;
	uint64_t sync;
	uint32_t cswitch_md;
	uint32_t *evsel_md;  /* by evsel index, 0: not yet declared */
	size_t cpu_evsel;    /* the evsel that is PerfView's "cpu", nr_evsels if none */
	size_t switch_evsel; /* sched:sched_switch, nr_evsels if none */
};

/* The providers' GUIDs as TraceEvent's parsers know them (Guid.ToByteArray() order). */
static const uint8_t SYSTEM_GUID[16] = {0x6c, 0x7b, 0x10, 0x8c, 0xf8, 0x79, 0x31, 0x52,
					0x4d, 0xe6, 0x2a, 0x0e, 0x20, 0xa3, 0xf5, 0x62};
static const uint8_t EVENTS_GUID[16] = {0x63, 0x5d, 0x5e, 0xbc, 0x99, 0x97, 0x73, 0x58,
					0x33, 0xd9, 0xfb, 0xa8, 0x31, 0x6c, 0xef, 0x71};

/* Field types as initializers (a const object is no constant expression in C). */
static const struct nettrace_field_type UTF8_CHAR = {.code = NETTRACE_UTF8_CHAR};
#define VARUINT                                                                                    \
	{                                                                                          \
		.code = NETTRACE_VARUINT                                                           \
	}
/* A uint16 count of UTF-8 bytes: the Universal providers' strings. */
#define STRING                                                                                     \
	{                                                                                          \
		.code = NETTRACE_ARRAY, .element = &UTF8_CHAR                                      \
	}

static const struct nettrace_field_desc PROCESS_FIELDS[] = {
    {"NamespaceId", VARUINT}, {"Name", STRING}, {"NamespaceName", STRING}};
static const struct nettrace_field_desc MAPPING_FIELDS[] = {
    {"Id", VARUINT},	     {"StartAddress", VARUINT}, {"EndAddress", VARUINT},
    {"FileOffset", VARUINT}, {"FileName", STRING},	{"MetadataId", VARUINT}};
static const struct nettrace_field_desc SYMBOL_FIELDS[] = {{"Id", VARUINT},
							   {"MappingId", VARUINT},
							   {"StartAddress", VARUINT},
							   {"EndAddress", VARUINT},
							   {"Name", STRING}};
static const struct nettrace_field_desc MAPPING_METADATA_FIELDS[] = {
    {"Id", VARUINT}, {"SymbolMetadata", STRING}, {"VersionMetadata", STRING}};
static const struct nettrace_field_desc SAMPLE_FIELDS[] = {{"Value", VARUINT}, {"Trace", STRING}};

static const struct {
	const char *name;
	const struct nettrace_field_desc *fields;
	uint16_t nfields;
} SYSTEM_EVENTS[NR_SYSTEM_EVENTS] = {
    [EXISTING_PROCESS] = {"ExistingProcess", PROCESS_FIELDS, ARRAY_SIZE(PROCESS_FIELDS)},
    [PROCESS_CREATE] = {"ProcessCreate", PROCESS_FIELDS, ARRAY_SIZE(PROCESS_FIELDS)},
    [PROCESS_EXIT] = {"ProcessExit", NULL, 0},
    [PROCESS_MAPPING] = {"ProcessMapping", MAPPING_FIELDS, ARRAY_SIZE(MAPPING_FIELDS)},
    [PROCESS_SYMBOL] = {"ProcessSymbol", SYMBOL_FIELDS, ARRAY_SIZE(SYMBOL_FIELDS)},
    [PROCESS_MAPPING_METADATA] = {"ProcessMappingMetadata", MAPPING_METADATA_FIELDS,
				  ARRAY_SIZE(MAPPING_METADATA_FIELDS)},
};

static size_t evsel_index(const struct nettrace_out *o, const struct perfdata_evsel *ev)
{
	size_t n = perfdata_reader_nr_evsels(o->file.r);
	for (size_t i = 0; i < n; i++) {
		if (perfdata_reader_evsel(o->file.r, i) != ev)
			continue;
		/* Evsels of one name are one event (collect -pid -threadtime records sched_switch
		 * twice: its threads' own, and the switches to them from other tasks); TraceLog
		 * refuses two events of one name. */
		for (size_t j = 0; ev->name && j < i; j++) {
			const char *name = perfdata_reader_evsel(o->file.r, j)->name;
			if (name && !strcmp(name, ev->name))
				return j;
		}
		return i;
	}
	return n;
}

/* PerfView's CPU view is the "cpu" event: the CPU clock, else the cycles counter. */
static size_t find_cpu_evsel(struct perfdata_reader *r)
{
	size_t n = perfdata_reader_nr_evsels(r);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct perf_event_attr *a = &perfdata_reader_evsel(r, i)->attr;
			if (pass == 0 && a->type == PERF_TYPE_SOFTWARE &&
			    (a->config == PERF_COUNT_SW_CPU_CLOCK ||
			     a->config == PERF_COUNT_SW_TASK_CLOCK))
				return i;
			if (pass == 1 && a->type == PERF_TYPE_HARDWARE &&
			    (a->config == PERF_COUNT_HW_CPU_CYCLES ||
			     a->config == PERF_COUNT_HW_REF_CPU_CYCLES))
				return i;
		}
	return n;
}

struct nettrace_out *nettrace_out_new(const char *path, struct perfdata_reader *r,
				      struct symbolizer *sym)
{
	struct outfile *out = outfile_open(path);
	if (!out)
		return NULL;
	struct nettrace_out *o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->out = out;
	o->fd = outfile_fd(out);
	o->file.r = r;
	o->file.sym = sym;
	size_t n = perfdata_reader_nr_evsels(r);
	o->evsel_md = xcalloc(n + 1, sizeof(*o->evsel_md));
	o->cpu_evsel = find_cpu_evsel(r);
	o->switch_evsel = n;
	for (size_t i = 0; i < n; i++) {
		const char *name = perfdata_reader_evsel(r, i)->name;
		if (name && !strcmp(name, SCHED_SWITCH_EVENT) && o->switch_evsel == n)
			o->switch_evsel = i;
	}
	o->cswitch = o->switch_evsel < n;
	int ncpus = perfdata_reader_nrcpus(r);
	o->file.ncpus = ncpus > 0 ? (uint32_t)ncpus : 1;
	o->file.path = o->path;
	unified_code_init(&o->code, &o->file);
	return o;
}

int nettrace_out_add_runtime(struct nettrace_out *o, const char *dir, char *const *names, size_t n)
{
	return unified_runtime_add(&o->runtime, &o->file, dir, names, n);
}

/* ---- the file's start ---- */

static uint32_t declare(struct nettrace_out *o, const char *provider, const uint8_t *guid,
			uint32_t event_id, const char *name,
			const struct nettrace_field_desc *fields, uint16_t nfields,
			const char *perf_event)
{
	const char *kv[2] = {"perf.event", perf_event};
	struct nettrace_event_desc d = {
	    .provider = provider,
	    .provider_guid = guid,
	    .event_id = event_id,
	    .name = name,
	    .fields = fields,
	    .nfields = nfields,
	    .opcode = -1,
	    .level = -1,
	    .version = -1,
	    .kv = kv,
	    .nkv = perf_event ? 1 : 0,
	};
	return nettrace_writer_add_metadata(o->file.w, &d);
}

static int start(struct nettrace_out *o, uint64_t t)
{
	char cpus[16], page[24], rate[24];
	snprintf(cpus, sizeof(cpus), "%u", o->file.ncpus);
	snprintf(page, sizeof(page), "%ld", sysconf(_SC_PAGESIZE));
	const char *kv[10] = {"HardwareThreadCount", cpus, "SystemPageSize", page};
	size_t nkv = 2;
	if (o->cpu_evsel < perfdata_reader_nr_evsels(o->file.r)) {
		const struct perf_event_attr *a =
		    &perfdata_reader_evsel(o->file.r, o->cpu_evsel)->attr;
		/* nanoseconds between samples, as TraceEvent reads this key */
		if (a->freq && a->sample_freq) {
			snprintf(rate, sizeof(rate), "%llu",
				 1000000000ULL / (unsigned long long)a->sample_freq);
			kv[2 * nkv] = "ExpectedCPUSamplingRate";
			kv[2 * nkv++ + 1] = rate;
		}
	}
	const char *host = perfdata_reader_hostname(o->file.r);
	if (host) {
		kv[2 * nkv] = "HostName";
		kv[2 * nkv++ + 1] = host;
	}
	const char *release = perfdata_reader_osrelease(o->file.r);
	if (release) {
		kv[2 * nkv] = "OSRelease";
		kv[2 * nkv++ + 1] = release;
	}
	struct nettrace_trace_info info = {
	    .sync_utc_ns = unified_wall_clock_at(&o->file, t),
	    .sync_ticks = t,
	    .tick_freq = 1000000000,
	    .pointer_size = 8,
	    .kv = kv,
	    .nkv = nkv,
	};
	o->file.w = nettrace_writer_new_copy(o->fd, o->copy, &info);
	if (!o->file.w)
		return -1;
	for (int i = 0; i < NR_SYSTEM_EVENTS; i++)
		o->file.system_md[i] =
		    declare(o, "Universal.System", SYSTEM_GUID, (uint32_t)i, SYSTEM_EVENTS[i].name,
			    SYSTEM_EVENTS[i].fields, SYSTEM_EVENTS[i].nfields, NULL);
	/* Event ids of Universal.Events are not stable, but must differ (TraceEvent looks an
	 * event up by provider and id first): cswitch 1, then one per perf event. */
	if (o->cswitch)
		o->cswitch_md = declare(o, "Universal.Events", EVENTS_GUID, 1, "cswitch",
					SAMPLE_FIELDS, 1, NULL);
	o->sync = o->file.last_time = t;
	o->file.started = true;
	return 0;
}

/* The event's time: never before the one written last (a block's times only go forward). */
static int event_time(struct nettrace_out *o, bool has_time, uint64_t t, uint64_t *out)
{
	if (!has_time)
		t = o->file.last_time;
	if (!o->file.started) {
		/* the file starts with whichever is first: this event or a runtime event */
		uint64_t first = t;
		if (unified_runtime_first(o->runtime, &first) && first > t)
			first = t;
		if (start(o, first) < 0)
			return -1;
	}
	/* the runtime's events up to now go first */
	if (unified_runtime_until(o->runtime, t) < 0)
		return -1;
	if (t < o->file.last_time) {
		t = o->file.last_time;
		o->file.st.out_of_order++;
	}
	o->file.last_time = t;
	*out = t;
	return 0;
}

/* ---- context switches ---- */

/* Thread tid runs from time t on (switched in, or sampled): a wait it was in ends. */
static int thread_runs(struct nettrace_out *o, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t t)
{
	if (!o->cswitch || !tid || tid == UINT32_MAX)
		return 0;
	struct thread *th = unified_thread(&o->file, tid);
	if (pid != UINT32_MAX)
		th->pid = pid;
	bool first = !th->ran;
	th->ran = true;
	if (!th->blocked && !first)
		return 0;
	pid = th->pid;
	if (pid == UINT32_MAX && !machine_thread_pid(symbolizer_machine(o->file.sym), tid, &pid))
		return 0; /* a thread the recording never described */
	uint64_t row, value = t - o->sync;
	uint32_t stack_id = 0;
	if (unified_thread_row(&o->file, pid, tid,
			       machine_comm(symbolizer_machine(o->file.sym), pid, tid), cpu, t,
			       &row) < 0)
		return -1;
	if (th->blocked) {
		th->blocked = false;
		if (t < th->out_time)
			return 0;
		value = t - th->out_time;
		stack_id = th->nstack ? nettrace_writer_stack(o->file.w, th->stack, th->nstack) : 0;
	}
	o->file.payload.len = 0;
	bytebuf_varuint(&o->file.payload, value);
	o->file.st.cswitches++;
	return unified_put_event(&o->file, o->cswitch_md, row, cpu, stack_id, t);
}

/* The sample's thread blocked here: keep its stack for the switch-in. */
static void thread_blocks(struct nettrace_out *o, uint32_t tid, uint64_t t, size_t n)
{
	struct thread *th = unified_thread(&o->file, tid);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (n > th->stack_cap) {
		th->stack_cap = (uint32_t)n;
		th->stack = xrealloc(th->stack, n * sizeof(*th->stack));
	}
	memcpy(th->stack, o->code.ips, n * sizeof(*th->stack));
	th->nstack = (uint32_t)n;
	th->blocked = true;
	th->out_time = t;
}

/* ---- samples and records ---- */

static uint32_t evsel_metadata(struct nettrace_out *o, size_t idx, const struct perfdata_evsel *ev,
			       bool tracepoint)
{
	if (o->evsel_md[idx])
		return o->evsel_md[idx];
	const char *perf_name = ev && ev->name ? ev->name : "unknown";
	const char *name = idx == o->cpu_evsel ? "cpu" : perf_name;
	o->evsel_md[idx] = declare(o, "Universal.Events", EVENTS_GUID, (uint32_t)idx + 2, name,
				   SAMPLE_FIELDS, tracepoint ? 2 : 1, perf_name);
	return o->evsel_md[idx];
}

static int fail(struct nettrace_out *o)
{
	o->failed = true;
	return -1;
}

int nettrace_out_sample(struct nettrace_out *o, const struct perf_sample *s,
			const struct frame *frames, size_t nframes, const char *comm,
			const char *trace)
{
	if (o->failed)
		return -1;
	uint64_t t, row;
	uint32_t cpu = s->has_cpu ? s->cpu : 0, stack_id;
	if (event_time(o, s->has_time, s->time, &t) < 0)
		return fail(o);
	size_t idx = evsel_index(o, s->evsel);
	struct sched_switch sw;
	bool is_switch = idx == o->switch_evsel && trace && !sched_switch_parse(trace, &sw);
	/* as report/offcpu.c: the switch-in first, then the sample's own thread ran */
	if (is_switch && sw.next_pid > 0 &&
	    thread_runs(o, UINT32_MAX, (uint32_t)sw.next_pid, cpu, t) < 0)
		return fail(o);
	if (thread_runs(o, s->pid, s->tid, cpu, t) < 0)
		return fail(o);
	if (unified_thread_row(&o->file, s->pid, s->tid, comm, cpu, t, &row) < 0 ||
	    unified_stack(&o->code, s->pid, frames, nframes, row, cpu, t, &stack_id) < 0)
		return fail(o);
	bool tracepoint = s->evsel && s->evsel->attr.type == PERF_TYPE_TRACEPOINT;
	uint32_t md = evsel_metadata(o, idx, s->evsel, tracepoint);
	o->file.payload.len = 0;
	bytebuf_varuint(&o->file.payload, idx == o->cpu_evsel ? 1 : s->period);
	if (tracepoint)
		bytebuf_short_string(&o->file.payload, trace ? trace : "");
	if (!md || unified_put_event(&o->file, md, row, cpu, stack_id, t) < 0)
		return fail(o);
	o->file.st.samples++;
	/* a task perf names ":<tid>" (no COMM: one a -pid recording does not follow) starts no
	 * wait, as report/offcpu.c: only part of its switches is there */
	if (o->cswitch && is_switch && sw.blocked && s->tid > 0 && s->tid != UINT32_MAX &&
	    sw.prev_pid == (int)s->tid) {
		char unfollowed[16];
		snprintf(unfollowed, sizeof(unfollowed), ":%d", (int32_t)s->tid);
		if (strcmp(comm, unfollowed))
			thread_blocks(o, s->tid, t, nframes);
	}
	return 0;
}

int nettrace_out_record(struct nettrace_out *o, const struct perfdata_record *rec)
{
	if (o->failed)
		return -1;
	const struct perf_event_header *h = rec->header;
	const uint32_t *body = (const uint32_t *)(h + 1);
	uint64_t t;
	switch (h->type) {
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid: a new process when pid == tid (maybe with a pid that
		 * an earlier process had) */
		if (h->size >= sizeof(*h) + 16 && body[0] == body[2]) {
			struct process *p = unified_process(&o->file, body[0]);
			if (p->emitted || p->leader_exited)
				p->gen++;
			p->created = true;
			p->emitted = p->leader_exited = p->exit_written = false;
		}
		return 0;
	case PERF_RECORD_EXIT: {
		if (h->size < sizeof(*h) + 16 || !o->file.started)
			return 0;
		uint32_t pid = body[0], tid = body[2], cpu = rec->id.has_cpu ? rec->id.cpu : 0;
		struct thread *th = unified_thread(&o->file, tid);
		struct process *p = unified_process(&o->file, pid);
		if (pid == tid)
			p->leader_exited = true;
		bool own_row = th->index && th->pid == pid;
		/* the process ends with the last of its threads that are in the file */
		/* Events of the process can still follow (its exit runs on after perf's EXIT
		 * record): they stay with it (TraceLog finds a process by pid and start), so its
		 * exit is written once and a new process begins only with a fork. */
		if (p->emitted && !p->exit_written && p->leader_exited &&
		    p->live_rows == (own_row ? 1u : 0u)) {
			uint64_t row;
			if (event_time(o, rec->id.has_time, rec->id.time, &t) < 0 ||
			    unified_thread_row(
				&o->file, pid, tid,
				machine_comm(symbolizer_machine(o->file.sym), pid, tid), cpu, t,
				&row) < 0)
				return fail(o);
			o->file.payload.len = 0;
			if (unified_put_event(&o->file, o->file.system_md[PROCESS_EXIT], row, cpu,
					      0, t) < 0)
				return fail(o);
			p->exit_written = true;
		}
		if (th->index)
			unified_process(&o->file, th->pid)->live_rows--;
		th->index = 0;
		th->blocked = false;
		return 0;
	}
	case PERF_RECORD_COMM: {
		/* pid, tid, comm: an exec gives the process its new name (TraceLog takes the
		 * name of the latest ExistingProcess) */
		uint32_t pid = body[0], cpu = rec->id.has_cpu ? rec->id.cpu : 0;
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < sizeof(*h) + 8 ||
		    pid != body[1] || !o->file.started || !unified_process(&o->file, pid)->emitted)
			return 0;
		uint64_t row;
		if (event_time(o, rec->id.has_time, rec->id.time, &t) < 0 ||
		    unified_thread_row(&o->file, pid, pid,
				       machine_comm(symbolizer_machine(o->file.sym), pid, pid), cpu,
				       t, &row) < 0 ||
		    unified_process_event(&o->file, pid, EXISTING_PROCESS, row, cpu, t) < 0)
			return fail(o);
		return 0;
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* the switch-in of the task the record's sample_id names */
		if ((h->misc & PERF_RECORD_MISC_SWITCH_OUT) || !rec->id.has_time)
			return 0;
		if (event_time(o, true, rec->id.time, &t) < 0 ||
		    thread_runs(o, rec->id.pid, rec->id.tid, rec->id.has_cpu ? rec->id.cpu : 0, t) <
			0)
			return fail(o);
		return 0;
	default:
		return 0;
	}
}

void nettrace_out_copy_to(struct nettrace_out *o, FILE *copy)
{
	o->copy = copy;
}

int nettrace_out_finish(struct nettrace_out *o)
{
	if (o->failed)
		return -1;
	if (!o->file.started) {
		uint64_t first = o->file.last_time;
		unified_runtime_first(o->runtime, &first);
		if (start(o, first) < 0)
			return fail(o);
	}
	if (unified_runtime_until(o->runtime, UINT64_MAX) < 0)
		return fail(o);
	if (nettrace_writer_finish(o->file.w) < 0)
		return fail(o);
	const struct nettrace_writer_stats *ws = nettrace_writer_stats(o->file.w);
	o->file.st.bytes = ws->bytes;
	o->file.st.stacks = ws->stacks;
	log_info("%s: %" PRIu64 " events (%" PRIu64 " samples, %" PRIu64
		 " context switches), %" PRIu64 " processes, %" PRIu64 " thread rows, %" PRIu64
		 " mappings, %" PRIu64 " symbols, %" PRIu64 " stacks, %" PRIu64
		 " bytes (%.1f per sample)",
		 o->path, o->file.st.events, o->file.st.samples, o->file.st.cswitches,
		 o->file.st.processes, o->file.st.threads, o->file.st.mappings, o->file.st.symbols,
		 ws->stacks, ws->bytes,
		 o->file.st.samples ? (double)ws->bytes / (double)o->file.st.samples : 0.0);
	unified_runtime_log(o->runtime);
	if (o->file.st.out_of_order)
		log_info("%s: %" PRIu64 " samples earlier than the one before them were given its "
			 "time (NetTrace events go forward in time)",
			 o->path, o->file.st.out_of_order);
	struct outfile *out = o->out;
	o->out = NULL;
	o->fd = -1;
	return outfile_commit(out) < 0 ? fail(o) : 0;
}

void nettrace_out_free(struct nettrace_out *o)
{
	if (!o)
		return;
	outfile_abort(o->out);
	nettrace_writer_free(o->file.w);
	unified_runtime_free(o->runtime);
	unified_code_release(&o->code);
	unified_file_release(&o->file);
	free(o->evsel_md);
	free(o->path);
	free(o);
}
