/* view_nettrace: a NetTrace stream into the view, written here with the NetTrace writer so
 * that every case is known: SampleProfiler samples in and outside managed code, frames named
 * by MethodLoadVerbose and by the rundown at the end (after the samples), allocation ticks
 * with the type as the leaf, exceptions, a contention with its wait; and bad input, one
 * warning line each with the view of what was readable: an event version newer than the
 * decoders know, events whose stacks no stack block holds, no rundown, a cut file. */
#include "base/bytebuf.h"
#include "base/utf16.h"
#include "nettrace/nettrace_write.h"
#include "report/flamegraph.h"
#include "report/view.h"
#include "test.h"

#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define RT	"Microsoft-Windows-DotNETRuntime"
#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"
#define MS	1000000ULL

static void utf16z(struct bytebuf *b, const char *s)
{
	size_t units;
	CHECK(utf16_from_utf8(b, s, &units) == 0);
	bytebuf_u16(b, 0);
}

/* MethodLoadVerbose / MethodDCEndVerbose's payload. */
static void method(struct bytebuf *b, uint64_t id, uint64_t start, uint32_t size, const char *ns,
		   const char *name, uint32_t flags)
{
	bytebuf_u64(b, id);
	bytebuf_u64(b, 77); /* module */
	bytebuf_u64(b, start);
	bytebuf_u32(b, size);
	bytebuf_u32(b, 0x06000001);
	bytebuf_u32(b, flags);
	utf16z(b, ns);
	utf16z(b, name);
	utf16z(b, "void  (int32)");
}

struct file {
	int fd;
	struct nettrace_writer *w;
	uint64_t thread;
	uint64_t t;
};

static uint32_t md(struct file *f, const char *provider, uint32_t id, const char *name, int version)
{
	struct nettrace_event_desc d = {.provider = provider,
					.event_id = id,
					.name = name,
					.opcode = -1,
					.level = 5,
					.version = version};
	return nettrace_writer_add_metadata(f->w, &d);
}

static void ev(struct file *f, uint32_t meta, const struct bytebuf *b, const uint64_t *ips,
	       size_t n)
{
	struct nettrace_event_out e = {.metadata_id = meta,
				       .thread = f->thread,
				       .stack_id = n ? nettrace_writer_stack(f->w, ips, n) : 0,
				       .timestamp = f->t += MS,
				       .sorted = true,
				       .payload = b->data,
				       .payload_size = b->len};
	CHECK(nettrace_writer_event(f->w, &e) == 0);
}

static void open_file(struct file *f, const char *path)
{
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(f->fd >= 0);
	const char *kv[] = {"ProcessId", "4242"};
	struct nettrace_trace_info info = {.sync_ticks = 1000 * MS,
					   .tick_freq = 1000000000,
					   .pointer_size = 8,
					   .kv = kv,
					   .nkv = 1};
	f->w = nettrace_writer_new(f->fd, &info);
	CHECK(f->w != NULL);
	struct nettrace_thread_info th = {
	    .has_pid = true, .has_tid = true, .pid = 4242, .tid = 4243};
	f->thread = nettrace_writer_add_thread(f->w, &th);
	f->t = 1000 * MS;
}

static void close_file(struct file *f)
{
	CHECK(nettrace_writer_finish(f->w) == 0);
	nettrace_writer_free(f->w);
	close(f->fd);
}

/* The file: Hot (JIT'd, loaded before the samples) and Main (ReadyToRun: named only by the
 * rundown at the end); 3 samples in Hot, 2 outside managed code; 2 allocation ticks of
 * Widget; one exception; one wait of 5 ms; a GCStart of version 9.  rundown: with it. */
static void write_trace(const char *path, bool rundown, bool newer_gc)
{
	struct file f;
	open_file(&f, path);
	uint32_t m_load = md(&f, RT, 143, "MethodLoadVerbose", 1);
	uint32_t m_sample = md(&f, "Microsoft-DotNETCore-SampleProfiler", 0, "ThreadSample", 0);
	uint32_t m_tick = md(&f, RT, 10, "GCAllocationTick", 4);
	uint32_t m_throw = md(&f, RT, 80, "ExceptionThrown", 1);
	uint32_t m_cstart = md(&f, RT, 81, "ContentionStart", 2);
	uint32_t m_cstop = md(&f, RT, 91, "ContentionStop", 1);
	uint32_t m_gc = md(&f, RT, 1, "GCStart", newer_gc ? 9 : 2);
	uint32_t m_dc = md(&f, RUNDOWN, 144, "MethodDCEndVerbose", 1);
	struct bytebuf b = {0};
	method(&b, 1, 0x1000, 0x100, "App.Program", "Hot", 0x8);
	ev(&f, m_load, &b, NULL, 0);
	uint64_t hot[] = {0x1010, 0x2020}; /* leaf first: Hot, called by Main */
	for (int i = 0; i < 5; i++) {
		b.len = 0;
		bytebuf_u32(&b, i < 3 ? 2 : 1); /* managed, then external */
		ev(&f, m_sample, &b, hot, 2);
	}
	for (int i = 0; i < 2; i++) {
		b.len = 0;
		bytebuf_u32(&b, 100000);
		bytebuf_u32(&b, 0);
		bytebuf_u16(&b, 0);
		bytebuf_u64(&b, 100000);
		bytebuf_u64(&b, 0xabc);
		utf16z(&b, "App.Widget");
		bytebuf_u32(&b, 0);
		bytebuf_u64(&b, 0xdead);
		bytebuf_u64(&b, 64);
		ev(&f, m_tick, &b, hot, 2);
	}
	b.len = 0;
	utf16z(&b, "App.Oops");
	utf16z(&b, "message");
	bytebuf_u64(&b, 0x1010);
	bytebuf_u32(&b, 0x80131500);
	bytebuf_u16(&b, 0);
	bytebuf_u16(&b, 0);
	ev(&f, m_throw, &b, hot, 2);
	b.len = 0;
	bytebuf_u8(&b, 0);
	bytebuf_u16(&b, 0);
	bytebuf_u64(&b, 0x5000); /* lock */
	bytebuf_u64(&b, 0x6000);
	bytebuf_u64(&b, 99);
	ev(&f, m_cstart, &b, hot, 2);
	b.len = 0;
	bytebuf_u8(&b, 0);
	bytebuf_u16(&b, 0);
	double waited = 5e6;
	bytebuf_bytes(&b, &waited, 8);
	ev(&f, m_cstop, &b, hot, 2);
	b.len = 0;
	for (int i = 0; i < 4; i++)
		bytebuf_u32(&b, i == 0 ? 1 : 0);
	bytebuf_u16(&b, 0);
	bytebuf_u64(&b, 0); /* a field of a version to come */
	ev(&f, m_gc, &b, NULL, 0);
	if (rundown) {
		b.len = 0;
		method(&b, 2, 0x2000, 0x100, "App.Program", "Main", 0);
		ev(&f, m_dc, &b, NULL, 0);
	}
	bytebuf_free(&b);
	close_file(&f);
}

static size_t observed;
static uint64_t observed_weight;

static void observe(void *arg, const struct view_event *e)
{
	observed++;
	observed_weight += e->tree && e->tree->kind == VIEW_ALLOC ? e->weight : 0;
	(void)arg;
}

static struct view *read_view(const char *path)
{
	struct view *v = view_new(-1, -1, NULL);
	view_observe(v, observe, NULL);
	CHECK(view_read(v, path, NULL) == 0);
	return v;
}

static char *folded(const struct calltree *t)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	CHECK(flamegraph_write_folded(f, t) == 0);
	fclose(f);
	return s;
}

static size_t warnings_with(const struct view *v, const char *what)
{
	size_t n = 0;
	for (size_t i = 0; i < v->nwarnings; i++)
		n += strstr(v->warnings[i], what) != NULL;
	return n;
}

int main(void)
{
	char dir[] = "/tmp/test_view_nettrace.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *good = xasprintf("%s/good.nettrace", dir), *bare = xasprintf("%s/bare.nettrace", dir);
	char *cut = xasprintf("%s/cut.nettrace", dir), *hole = xasprintf("%s/hole.nettrace", dir);
	write_trace(good, true, false);
	write_trace(bare, false, true);

	/* Frames named by the load before the samples and by the rundown after them. */
	struct view *v = read_view(good);
	struct event_tree *cpu = view_choose_event(v, "cpu-clock", false);
	CHECK(cpu && !strcmp(cpu->name, "ThreadSample"));
	char *s = folded(cpu->tree);
	CHECK_STR(s, "pid 4242;App.Program.Main(int32);App.Program.Hot(int32) 3\n");
	free(s);
	CHECK(functable_kind(v->ft, functable_intern(v->ft, "App.Program.Main(int32)", "",
						     FRAME_R2R)) == FRAME_R2R);
	CHECK(v->external_samples == 2 && calltree_total(v->offcpu_tree) == 2 * MS);
	s = folded(view_tree_of(v, VIEW_ALLOC)->tree);
	CHECK_STR(s, "pid 4242;App.Program.Main(int32);App.Program.Hot(int32);App.Widget 200000\n");
	free(s);
	s = folded(view_tree_of(v, VIEW_EXCEPTIONS)->tree);
	CHECK_STR(s, "pid 4242;App.Program.Main(int32);App.Program.Hot(int32);App.Oops 1\n");
	free(s);
	s = folded(view_tree_of(v, VIEW_CONTENTION)->tree);
	CHECK_STR(s,
		  "pid 4242;App.Program.Main(int32);App.Program.Hot(int32);lock 0x5000 5000000\n");
	free(s);
	CHECK(v->nwarnings == 0);
	/* The observer saw each weighted event: 5 samples, 2 ticks, 1 throw, 1 wait. */
	CHECK_EQ_U64(observed, 9);
	CHECK_EQ_U64(observed_weight, 200000);
	view_free(v);

	/* No rundown, a GCStart of a version to come: a line each; Main is its address. */
	v = read_view(bare);
	CHECK(warnings_with(v, "has no rundown") == 1);
	CHECK(warnings_with(v, "GCStart version 9 is newer than this reader knows (2)") == 1);
	CHECK(v->nwarnings == 2);
	s = folded(view_choose_event(v, NULL, false)->tree);
	CHECK_STR(s, "pid 4242;0x2020;App.Program.Hot(int32) 3\n");
	free(s);
	view_free(v);

	/* Stacks no stack block holds: the stack block's ids moved past the events'. */
	FILE *in = fopen(good, "rb");
	uint8_t *buf = xmalloc(1 << 20);
	size_t n = fread(buf, 1, 1 << 20, in);
	fclose(in);
	size_t blocks = 0;
	for (size_t at = 20; at + 4 <= n;) { /* v6: 20 bytes of header, then blocks */
		uint32_t h =
		    buf[at] | buf[at + 1] << 8 | buf[at + 2] << 16 | (uint32_t)buf[at + 3] << 24;
		if (h >> 24 == 5) { /* a stack block: its first id += 100 */
			buf[at + 4 + 0] += 100;
			blocks++;
		}
		at += 4 + (h & 0xffffff);
	}
	CHECK(blocks >= 1);
	FILE *out = fopen(hole, "wb");
	CHECK(fwrite(buf, 1, n, out) == n);
	fclose(out);
	v = read_view(hole);
	CHECK(warnings_with(v, "name stacks no stack block holds") == 1);
	CHECK(view_choose_event(v, NULL, false) != NULL); /* the samples, without stacks */
	view_free(v);

	/* Cut: the events before the cut. */
	out = fopen(cut, "wb");
	CHECK(fwrite(buf, 1, n * 3 / 4, out) == n * 3 / 4);
	fclose(out);
	v = read_view(cut);
	CHECK(warnings_with(v, "stops before its end") == 1);
	view_free(v);

	free(buf);
	unlink(good);
	unlink(bare);
	unlink(cut);
	unlink(hole);
	rmdir(dir);
	free(good);
	free(bare);
	free(cut);
	free(hole);
	return TEST_DONE();
}
