/* postprocess_unified_runtime: the .NET runtime's own events (dotnet-<pid>.nettrace, written
 * by collect over EventPipe) copied into the unified NetTrace, on the samples' timeline.
 *
 * Each file is read region by region (between its sequence points: the format promises no
 * event of a later region is earlier than one of an earlier region), a region sorted by
 * time, and the files merged with the samples: before the pass writes anything at time t,
 * every runtime event up to t is written.  Memory follows the largest region of a file.
 *
 * An event keeps its metadata (declared again in the unified file with a new id: provider,
 * event id, name, version, level, keywords, opcode, fields as the runtime gave them, so
 * TraceEvent's parsers read the payload), its payload byte for byte, its stack (the
 * runtime's managed IPs) and its thread, named by the thread row the samples of that
 * thread use, so TraceLog gives it to the same process and thread.  Time: the runtime's
 * clock on Linux is CLOCK_MONOTONIC in ns, the samples' clock; a file whose header says
 * otherwise (its tick rate, or a wall-clock offset more than a second off the recording's)
 * is moved onto the recording's clock by its wall-clock time and said in the log. */
#include "postprocess_unified_runtime.h"
#include "base/log.h"
#include "nettrace/nettrace_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rt_event {
	uint64_t t, seq;
	const struct nettrace_metadata *md;
	uint32_t pid, tid, cpu;
	size_t payload, payload_len, stack, nstack;
};

struct md_slot {
	const struct nettrace_metadata *md; /* key (the reader keeps it until its end) */
	uint32_t out;			    /* the unified file's id */
};

#define HTAB_NAME	    md_table
#define HTAB_ENTRY	    struct md_slot
#define HTAB_KEY	    const struct nettrace_metadata *
#define HTAB_EMPTY(e)	    (!(e)->md)
#define HTAB_HASH(t, e)	    hash_mix((uintptr_t)(e)->md)
#define HTAB_MATCH(t, e, k) ((e)->md == (k))
#include "base/htab.h"

struct rt_file {
	char *path;
	FILE *f;
	struct nettrace_reader *r;
	bool done;
	int64_t shift; /* added to the runtime's ns to give the recording's clock */
	uint32_t pid;  /* the process as the collector saw it (the file's name), 0: unknown */
	bool other_ns; /* the runtime's pid differs: its thread ids are of another namespace */
	struct rt_event *ev;
	size_t nev, ev_cap, next;
	struct bytebuf data; /* payloads of the region */
	uint64_t *ips;
	size_t nips, ips_cap;
	struct md_table md;
	uint64_t seq, copied;
};

struct unified_runtime {
	struct unified_file *f;
	struct rt_file *files;
	size_t n;
};

static int cmp_event(const void *a, const void *b)
{
	const struct rt_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The recording's offset of wall clock over its own clock, against the runtime's. */
static void set_clock(const struct unified_file *f, struct rt_file *rf,
		      const struct nettrace_trace *tr)
{
	struct tm tm = {.tm_year = (int)tr->sync_utc.year - 1900,
			.tm_mon = (int)tr->sync_utc.month - 1,
			.tm_mday = (int)tr->sync_utc.day,
			.tm_hour = (int)tr->sync_utc.hour,
			.tm_min = (int)tr->sync_utc.minute,
			.tm_sec = (int)tr->sync_utc.second};
	int64_t utc =
	    (int64_t)timegm(&tm) * 1000000000 + (int64_t)tr->sync_utc.millisecond * 1000000;
	int64_t rt_off = utc - (int64_t)nettrace_ticks_to_ns(tr, tr->sync_ticks);
	int64_t perf_off = unified_wall_clock_at(f, 0);
	int64_t d = rt_off - perf_off;
	/* without the recording's own clock reading, the offset is this machine's now, which
	 * says nothing of a recording made elsewhere: the tick rate alone decides */
	int clockid;
	uint64_t wall, clk;
	bool comparable = perfdata_reader_clock_data(f->r, &clockid, &wall, &clk);
	if (tr->tick_freq != 1000000000 || (comparable && (d > 1000000000 || d < -1000000000))) {
		rf->shift = d;
		log_info("%s: the runtime's clock (%" PRIu64 " ticks/s) is %.3f s off the "
			 "recording's: its events are placed by wall-clock time",
			 rf->path, tr->tick_freq, (double)d / 1e9);
	}
}

/* Reads the file's next region (up to a sequence point or the end) and sorts it. */
static int read_region(const struct unified_file *f, struct rt_file *rf)
{
	rf->nev = rf->next = 0;
	rf->data.len = 0;
	rf->nips = 0;
	while (!rf->done) {
		struct nettrace_item it;
		int rc = nettrace_reader_next(rf->r, &it);
		if (rc < 0) {
			log_warn("%s: %s (the runtime events after it are not in %s)", rf->path,
				 pc_strerror(), f->path);
			rf->done = true;
			break;
		}
		if (rc == 0) {
			rf->done = true;
			break;
		}
		if (it.kind == NETTRACE_ITEM_SEQUENCE_POINT && rf->nev)
			break;
		if (it.kind != NETTRACE_ITEM_EVENT || !it.event->meta)
			continue;
		const struct nettrace_event *e = it.event;
		const struct nettrace_trace *tr = nettrace_reader_trace(rf->r);
		if (!rf->seq++) {
			set_clock(f, rf, tr);
			if (rf->pid && tr->pid && tr->pid != rf->pid) {
				rf->other_ns = true;
				log_info(
				    "%s: the runtime is pid %u in its pid namespace: its events "
				    "go to its main thread (%u), its thread ids are not the "
				    "recording's",
				    rf->path, tr->pid, rf->pid);
			}
		}
		grow_array((void **)&rf->ev, &rf->ev_cap, rf->nev + 1, sizeof(*rf->ev));
		struct rt_event *x = &rf->ev[rf->nev++];
		int64_t t = (int64_t)nettrace_ticks_to_ns(tr, e->timestamp) + rf->shift;
		x->t = t > 0 ? (uint64_t)t : 0;
		x->seq = rf->seq;
		x->md = e->meta;
		x->pid = (uint32_t)(e->process_id ? e->process_id : tr->pid);
		x->tid = (uint32_t)e->thread_id;
		if (rf->pid && (rf->other_ns || !x->pid))
			x->pid = rf->pid;
		if (rf->other_ns)
			x->tid = rf->pid;
		x->cpu = e->processor;
		x->payload = rf->data.len;
		x->payload_len = e->payload_size;
		if (e->payload_size)
			bytebuf_bytes(&rf->data, e->payload, e->payload_size);
		x->stack = rf->nips;
		x->nstack = e->stack ? e->stack_depth : 0;
		if (x->nstack > MAX_FRAMES)
			x->nstack = MAX_FRAMES;
		grow_array((void **)&rf->ips, &rf->ips_cap, rf->nips + x->nstack + 1,
			   sizeof(*rf->ips));
		if (x->nstack)
			memcpy(rf->ips + rf->nips, e->stack, x->nstack * sizeof(*rf->ips));
		rf->nips += x->nstack;
	}
	if (rf->nev > 1)
		qsort(rf->ev, rf->nev, sizeof(*rf->ev), cmp_event);
	return 0;
}

/* The file's next event, NULL at its end. */
static struct rt_event *peek(const struct unified_file *f, struct rt_file *rf)
{
	while (rf->next == rf->nev && !rf->done)
		read_region(f, rf);
	return rf->next < rf->nev ? &rf->ev[rf->next] : NULL;
}

int unified_runtime_add(struct unified_runtime **runtime, struct unified_file *f, const char *dir,
			char *const *names, size_t n)
{
	if (!n)
		return 0;
	struct unified_runtime *rt = *runtime;
	if (!rt) {
		rt = *runtime = xcalloc(1, sizeof(*rt));
		rt->f = f;
	}
	rt->files = xrealloc(rt->files, (rt->n + n) * sizeof(*rt->files));
	for (size_t i = 0; i < n; i++) {
		struct rt_file *rf = &rt->files[rt->n];
		memset(rf, 0, sizeof(*rf));
		rf->path = xasprintf("%s/%s", dir, names[i]);
		unsigned pid;
		char end;
		if (sscanf(names[i], "dotnet-%u.nettrac%c", &pid, &end) == 2 && end == 'e')
			rf->pid = pid;
		rf->f = fopen(rf->path, "re");
		if (!rf->f) {
			log_warn("cannot read %s: %s (its runtime events are not in %s)", rf->path,
				 strerror(errno), f->path);
			free(rf->path);
			continue;
		}
		rf->r = nettrace_reader_new_file(rf->f, rf->path);
		rt->n++;
	}
	return 0;
}

bool unified_runtime_first(struct unified_runtime *rt, uint64_t *t)
{
	bool any = false;
	for (size_t i = 0; rt && i < rt->n; i++) {
		struct rt_event *x = peek(rt->f, &rt->files[i]);
		if (x && (!any || x->t < *t)) {
			*t = x->t;
			any = true;
		}
	}
	return any;
}

/* A field list as the writer takes it, from the reader's (freed with free_fields). */
static struct nettrace_field_desc *convert_fields(const struct nettrace_field *f, size_t n);

static void convert_type(const struct nettrace_field *f, struct nettrace_field_type *t)
{
	t->code = (uint8_t)f->type;
	t->count = (uint16_t)f->count;
	if (f->element) {
		struct nettrace_field_type *el = xcalloc(1, sizeof(*el));
		convert_type(f->element, el);
		t->element = el;
	}
	if (f->type == NETTRACE_OBJECT && f->nfields) {
		t->fields = convert_fields(f->fields, f->nfields);
		t->nfields = (uint16_t)f->nfields;
	}
}

static void free_type(const struct nettrace_field_type *t);

static void free_fields(const struct nettrace_field_desc *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_type(&d[i].type);
	free((void *)d);
}

static void free_type(const struct nettrace_field_type *t)
{
	if (t->element) {
		free_type(t->element);
		free((void *)t->element);
	}
	if (t->fields)
		free_fields(t->fields, t->nfields);
}

static struct nettrace_field_desc *convert_fields(const struct nettrace_field *f, size_t n)
{
	struct nettrace_field_desc *d = xcalloc(n ? n : 1, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i].name = f[i].name;
		convert_type(&f[i], &d[i].type);
	}
	return d;
}

/* The unified file's metadata id of a runtime event type, declared when first used. */
static uint32_t metadata_of(struct unified_file *f, struct rt_file *rf,
			    const struct nettrace_metadata *md)
{
	uint64_t h = hash_mix((uintptr_t)md);
	const struct md_slot *s = md_table_find(&rf->md, md, h);
	if (s)
		return s->out;
	uint16_t nf = md->fields_known && md->nfields <= UINT16_MAX ? (uint16_t)md->nfields : 0;
	struct nettrace_field_desc *fields = convert_fields(md->fields, nf);
	struct nettrace_event_desc d = {
	    .provider = md->provider,
	    .event_id = md->event_id,
	    .name = md->event_name,
	    .fields = fields,
	    .nfields = nf,
	    .opcode = md->opcode ? (int)md->opcode : -1,
	    .level = (int)md->level,
	    .version = (int)md->version,
	    .keywords = md->keywords,
	};
	uint32_t id = nettrace_writer_add_metadata(f->w, &d);
	free_fields(fields, nf);
	if (!id)
		return 0;
	bool found;
	struct md_slot *slot = md_table_insert(&rf->md, md, h, &found);
	slot->md = md;
	slot->out = id;
	return id;
}

static int put(struct unified_file *f, struct rt_file *rf, const struct rt_event *x)
{
	uint32_t md = metadata_of(f, rf, x->md);
	if (!md)
		return -1;
	uint64_t t = x->t < f->last_time ? f->last_time : x->t, row;
	f->last_time = t;
	const char *comm = machine_comm(symbolizer_machine(f->sym), x->pid, x->tid);
	uint32_t cpu = x->cpu < f->ncpus ? x->cpu : 0;
	if (unified_thread_row(f, x->pid, x->tid, comm, cpu, t, &row) < 0)
		return -1;
	uint32_t stack = x->nstack ? nettrace_writer_stack(f->w, rf->ips + x->stack, x->nstack) : 0;
	f->payload.len = 0;
	if (x->payload_len)
		bytebuf_bytes(&f->payload, rf->data.data + x->payload, x->payload_len);
	if (unified_put_event(f, md, row, cpu, stack, t) < 0)
		return -1;
	rf->copied++;
	f->st.runtime_events++;
	return 0;
}

int unified_runtime_until(struct unified_runtime *rt, uint64_t t)
{
	if (!rt || !rt->f->started)
		return 0;
	for (;;) {
		struct rt_file *best = NULL;
		struct rt_event *bx = NULL;
		for (size_t i = 0; i < rt->n; i++) {
			struct rt_event *x = peek(rt->f, &rt->files[i]);
			if (x && x->t <= t && (!bx || x->t < bx->t)) {
				bx = x;
				best = &rt->files[i];
			}
		}
		if (!best)
			return 0;
		if (put(rt->f, best, bx) < 0)
			return -1;
		best->next++;
	}
}

void unified_runtime_log(const struct unified_runtime *rt)
{
	for (size_t i = 0; rt && i < rt->n; i++) {
		const struct rt_file *rf = &rt->files[i];
		log_info("%s: %" PRIu64 " runtime events of %s", rt->f->path, rf->copied, rf->path);
	}
}

void unified_runtime_free(struct unified_runtime *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; i < rt->n; i++) {
		struct rt_file *rf = &rt->files[i];
		nettrace_reader_free(rf->r);
		if (rf->f)
			fclose(rf->f);
		free(rf->path);
		free(rf->ev);
		free(rf->ips);
		md_table_free(&rf->md);
		bytebuf_free(&rf->data);
	}
	free(rt->files);
	free(rt);
}
