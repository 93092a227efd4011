/* nettrace_write: the bytes it writes, decoded here by an independent reading of
 * NetTraceFormat.md (v6): header and trace block, block order (declarations before the
 * events that use them), metadata rows, thread rows, interned stacks and label lists,
 * compressed event headers (delta rules, a new block when time goes back or the capture
 * thread changes unsorted), sequence numbers per capture thread, thread removal, sequence
 * points resetting the interning, the end block; and that every prefix cut at a block
 * boundary is readable (what a killed writer leaves). */
#include "nettrace/nettrace_write.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a minimal decoder, for this test only ---- */

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_le(struct rd *r, int n)
{
	uint64_t v = 0;
	if (r->end - r->p < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_var(struct rd *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		uint64_t b = rd_le(r, 1);
		v |= (b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return v;
}

static void rd_str(struct rd *r, char *out, size_t size)
{
	uint64_t n = rd_var(r);
	if (n >= size || (uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return;
	}
	memcpy(out, r->p, n);
	out[n] = 0;
	r->p += n;
}

#define MAXN 64
struct decoded {
	unsigned blocks[16]; /* count per kind */
	char providers[MAXN][32], names[MAXN][32];
	uint32_t meta_ids[MAXN], nmeta;
	uint64_t thread_index[MAXN], thread_tid[MAXN];
	char thread_name[MAXN][32];
	unsigned nthreads;
	uint32_t stack_first[MAXN], stack_count[MAXN], nstack_blocks;
	uint32_t ev_meta[MAXN], ev_seq[MAXN], ev_cpu[MAXN], ev_stack[MAXN], ev_label[MAXN];
	uint64_t ev_thread[MAXN], ev_capture[MAXN], ev_ts[MAXN];
	bool ev_sorted[MAXN];
	uint8_t ev_payload[MAXN][8];
	uint32_t ev_size[MAXN];
	unsigned nevents;
	uint64_t removed[MAXN];
	unsigned nremoved;
	unsigned sequence_points;
	bool ended;
	uint64_t sync_ticks, tick_freq;
	char kv[4][32];
};

/* Decodes buf; false when the bytes are malformed (a truncated block too). */
static bool decode(const uint8_t *buf, size_t len, struct decoded *d)
{
	memset(d, 0, sizeof(*d));
	struct rd r = {buf, buf + len, false};
	if (len < 20 || memcmp(buf, "Nettrace", 8))
		return false;
	r.p += 8;
	if (rd_le(&r, 4) != 0 || rd_le(&r, 4) != 6 || rd_le(&r, 4) != 0)
		return false;
	bool first = true;
	while (r.p < r.end) {
		uint32_t h = (uint32_t)rd_le(&r, 4);
		uint32_t size = h & 0xffffff, kind = h >> 24;
		if (r.bad || (size_t)(r.end - r.p) < size)
			return false;
		struct rd b = {r.p, r.p + size, false};
		r.p += size;
		if (first != (kind == 1))
			return false; /* the trace block comes first, once */
		first = false;
		if (kind < 16)
			d->blocks[kind]++;
		switch (kind) {
		case 0:
			d->ended = true;
			return r.p == r.end && size == 0;
		case 1:
			b.p += 16; /* SYSTEMTIME */
			d->sync_ticks = rd_le(&b, 8);
			d->tick_freq = rd_le(&b, 8);
			if (rd_le(&b, 4) != 8)
				return false;
			for (uint32_t n = (uint32_t)rd_le(&b, 4), i = 0; i < n && i < 2; i++) {
				rd_str(&b, d->kv[2 * i], 32);
				rd_str(&b, d->kv[2 * i + 1], 32);
			}
			break;
		case 3: {
			b.p += 2 + rd_le(&b, 2) - 2; /* HeaderSize (uint16, empty) */
			while (b.p < b.end) {
				uint16_t rs = (uint16_t)rd_le(&b, 2);
				struct rd row = {b.p, b.p + rs, false};
				b.p += rs;
				unsigned i = d->nmeta++;
				d->meta_ids[i] = (uint32_t)rd_var(&row);
				rd_str(&row, d->providers[i], 32);
				rd_var(&row);
				rd_str(&row, d->names[i], 32);
				if (row.bad)
					return false;
			}
			break;
		}
		case 6:
			while (b.p < b.end) {
				uint16_t rs = (uint16_t)rd_le(&b, 2);
				struct rd row = {b.p, b.p + rs, false};
				b.p += rs;
				unsigned i = d->nthreads++;
				d->thread_index[i] = rd_var(&row);
				while (row.p < row.end) {
					uint8_t k = (uint8_t)rd_le(&row, 1);
					if (k == 1)
						rd_str(&row, d->thread_name[i], 32);
					else if (k == 2)
						rd_var(&row);
					else if (k == 3)
						d->thread_tid[i] = rd_var(&row);
					else
						return false;
				}
				if (row.bad)
					return false;
			}
			break;
		case 5: {
			unsigned i = d->nstack_blocks++;
			d->stack_first[i] = (uint32_t)rd_le(&b, 4);
			d->stack_count[i] = (uint32_t)rd_le(&b, 4);
			for (uint32_t n = 0; n < d->stack_count[i]; n++)
				b.p += rd_le(&b, 4);
			if (b.p != b.end)
				return false;
			break;
		}
		case 2: {
			uint16_t hs = (uint16_t)rd_le(&b, 2);
			if (hs < 20 || rd_le(&b, 2) != 1)
				return false;
			uint64_t min = rd_le(&b, 8), max = rd_le(&b, 8);
			b.p += hs - 20;
			struct {
				uint32_t meta, seq, cpu, stack, label, size;
				uint64_t thread, capture, ts;
			} prev = {0};
			while (b.p < b.end) {
				uint8_t f = (uint8_t)rd_le(&b, 1);
				if (f & 1)
					prev.meta = (uint32_t)rd_var(&b);
				if (f & 2) {
					prev.seq += (uint32_t)rd_var(&b) + 1;
					prev.capture = rd_var(&b);
					prev.cpu = (uint32_t)rd_var(&b);
				} else {
					prev.seq++;
				}
				if (f & 4)
					prev.thread = rd_var(&b);
				if (f & 8)
					prev.stack = (uint32_t)rd_var(&b);
				prev.ts += rd_var(&b);
				if (f & 16)
					prev.label = (uint32_t)rd_var(&b);
				if (f & 128)
					prev.size = (uint32_t)rd_var(&b);
				if (b.bad || (size_t)(b.end - b.p) < prev.size || prev.ts < min ||
				    prev.ts > max || d->nevents >= MAXN)
					return false;
				unsigned i = d->nevents++;
				d->ev_meta[i] = prev.meta;
				d->ev_seq[i] = prev.seq;
				d->ev_cpu[i] = prev.cpu;
				d->ev_stack[i] = prev.stack;
				d->ev_label[i] = prev.label;
				d->ev_thread[i] = prev.thread;
				d->ev_capture[i] = prev.capture;
				d->ev_ts[i] = prev.ts;
				d->ev_sorted[i] = f & 64;
				d->ev_size[i] = prev.size;
				memcpy(d->ev_payload[i], b.p, prev.size < 8 ? prev.size : 8);
				b.p += prev.size;
			}
			break;
		}
		case 4:
			d->sequence_points++;
			break;
		case 7:
			while (b.p < b.end) {
				d->removed[d->nremoved++] = rd_var(&b);
				rd_var(&b);
			}
			break;
		default:
			break;
		}
		if (b.bad)
			return false;
	}
	return !r.bad;
}

/* ---- the writer, into a temporary file ---- */

static uint8_t *slurp(int fd, size_t *len)
{
	off_t n = lseek(fd, 0, SEEK_END);
	uint8_t *buf = malloc(n + 1);
	if (pread(fd, buf, n, 0) != n)
		abort();
	*len = (size_t)n;
	return buf;
}

static const struct nettrace_field_type VARUINT = {.code = NETTRACE_VARUINT};

static void test_file(void)
{
	FILE *tmp = tmpfile();
	int fd = fileno(tmp);
	const char *kv[] = {"HardwareThreadCount", "2"};
	struct nettrace_trace_info info = {.sync_utc_ns = 1700000000123456789LL,
					   .sync_ticks = 1000,
					   .tick_freq = 1000000000,
					   .pointer_size = 8,
					   .kv = kv,
					   .nkv = 1};
	struct nettrace_writer *w = nettrace_writer_new(fd, &info);
	CHECK(w != NULL);
	nettrace_writer_set_limits(w, 1 << 20, 0);
	struct nettrace_field_desc f = {"Value", VARUINT};
	struct nettrace_event_desc cpu = {.provider = "Universal.Events",
					  .event_id = 2,
					  .name = "cpu",
					  .fields = &f,
					  .nfields = 1,
					  .opcode = -1,
					  .level = -1,
					  .version = -1};
	uint32_t m1 = nettrace_writer_add_metadata(w, &cpu);
	cpu.name = "cswitch";
	uint32_t m2 = nettrace_writer_add_metadata(w, &cpu);
	CHECK(m1 == 1 && m2 == 2);
	struct nettrace_thread_info ta = {true, true, 10, 11, "a"}, tb = {true, true, 10, 12, "b"};
	uint64_t a = nettrace_writer_add_thread(w, &ta), b = nettrace_writer_add_thread(w, &tb);
	CHECK(a == 1 && b == 2);
	uint64_t ips1[] = {0x401000, 0x402000}, ips2[] = {0xffffffff81000000ULL};
	uint32_t s1 = nettrace_writer_stack(w, ips1, 2), s2 = nettrace_writer_stack(w, ips2, 1);
	CHECK(s1 == 1 && s2 == 2 && nettrace_writer_stack(w, ips1, 2) == 1); /* interned */
	struct nettrace_label l = {.kind = NETTRACE_LABEL_KEY_STRING, .key = "k", .value = "v"};
	uint32_t lab = nettrace_writer_label_list(w, &l, 1);
	CHECK(lab == 1 && nettrace_writer_label_list(w, &l, 1) == 1);

	uint8_t one = 1, big[3] = {0x80, 0x80, 0x01};
	struct nettrace_event_out e[] = {
	    /* a, cpu 0; then the same thread and cpu (only time and payload need saying) */
	    {m1, a, 0, 0, s1, 0, 2000, true, &one, 1},
	    {m1, a, 0, 0, s1, 0, 2005, true, &one, 1},
	    /* another thread on another cpu, sorted: the capture thread may change */
	    {m2, b, 0, 1, s2, lab, 2010, true, big, 3},
	    /* time goes back (unsorted writer): a new block */
	    {m1, a, 0, 1, 0, 0, 2008, false, &one, 1},
	    /* an unsorted event of another capture thread: a new block */
	    {m1, b, 0, 1, 0, 0, 2009, false, &one, 1},
	};
	for (size_t i = 0; i < ARRAY_SIZE(e); i++)
		CHECK(nettrace_writer_event(w, &e[i]) == 0);
	struct nettrace_event_out bad = {99, a, 0, 0, 0, 0, 3000, true, NULL, 0};
	CHECK(nettrace_writer_event(w, &bad) < 0); /* undeclared metadata */
	bad.metadata_id = m1;
	bad.thread = 7;
	CHECK(nettrace_writer_event(w, &bad) < 0); /* undeclared thread */
	CHECK(nettrace_writer_remove_thread(w, b) == 0);
	CHECK(nettrace_writer_remove_thread(w, b) < 0);
	bad.thread = b;
	CHECK(nettrace_writer_event(w, &bad) < 0); /* removed thread */
	CHECK(nettrace_writer_sequence_point(w, 2500, false, false) == 0);
	/* after a sequence point the old stack ids are gone: the same stack is new */
	uint32_t s3 = nettrace_writer_stack(w, ips1, 2);
	CHECK(s3 == 3);
	struct nettrace_event_out old = {m1, a, 0, 0, s1, 0, 2600, true, &one, 1};
	CHECK(nettrace_writer_event(w, &old) < 0); /* a stack of the earlier region */
	old.stack_id = s3;
	old.timestamp = 2400; /* before the sequence point: raised to it */
	CHECK(nettrace_writer_event(w, &old) == 0);
	CHECK(nettrace_writer_stats(w)->raised_timestamps == 1);
	size_t before_finish;
	CHECK(nettrace_writer_flush(w) == 0);
	uint8_t *partial = slurp(fd, &before_finish);
	CHECK(nettrace_writer_finish(w) == 0);
	nettrace_writer_free(w);

	size_t len;
	uint8_t *buf = slurp(fd, &len);
	struct decoded d;
	CHECK(decode(buf, len, &d));
	CHECK(d.ended);
	CHECK_EQ_U64(d.sync_ticks, 1000);
	CHECK_EQ_U64(d.tick_freq, 1000000000);
	CHECK_STR(d.kv[0], "HardwareThreadCount");
	CHECK_STR(d.kv[1], "2");
	CHECK_EQ_U64(d.nmeta, 2);
	CHECK_STR(d.providers[0], "Universal.Events");
	CHECK_STR(d.names[1], "cswitch");
	CHECK_EQ_U64(d.nthreads, 2);
	CHECK(d.thread_tid[0] == 11 && d.thread_tid[1] == 12);
	CHECK_STR(d.thread_name[1], "b");
	CHECK_EQ_U64(d.nevents, 6);
	CHECK(d.blocks[2] == 4); /* events: {0,1,2}, {3}, {4}, {5} */
	CHECK(d.blocks[8] == 1); /* one label list block */
	CHECK(d.nstack_blocks == 2 && d.stack_first[0] == 1 && d.stack_count[0] == 2 &&
	      d.stack_first[1] == 3 && d.stack_count[1] == 1);
	CHECK(d.nremoved == 1 && d.removed[0] == b);
	CHECK(d.sequence_points == 2); /* the one asked for and the last */
	for (size_t i = 0; i < ARRAY_SIZE(e); i++) {
		CHECK_EQ_U64(d.ev_meta[i], e[i].metadata_id);
		CHECK_EQ_U64(d.ev_thread[i], e[i].thread);
		CHECK_EQ_U64(d.ev_capture[i], e[i].thread);
		CHECK_EQ_U64(d.ev_cpu[i], e[i].cpu);
		CHECK_EQ_U64(d.ev_stack[i], e[i].stack_id);
		CHECK_EQ_U64(d.ev_label[i], e[i].label_list_id);
		CHECK_EQ_U64(d.ev_ts[i], e[i].timestamp);
		CHECK(d.ev_sorted[i] == e[i].sorted);
		CHECK(d.ev_size[i] == e[i].payload_size &&
		      !memcmp(d.ev_payload[i], e[i].payload, e[i].payload_size));
	}
	/* sequence numbers count per capture thread from 1 */
	CHECK(d.ev_seq[0] == 1 && d.ev_seq[1] == 2 && d.ev_seq[2] == 1 && d.ev_seq[3] == 3 &&
	      d.ev_seq[4] == 2 && d.ev_seq[5] == 4);
	CHECK_EQ_U64(d.ev_ts[5], 2500); /* raised to the sequence point */

	/* What a killed writer leaves: every prefix cut at a block boundary reads. */
	struct decoded pd;
	CHECK(decode(partial, before_finish, &pd) && !pd.ended && pd.nevents == 6);
	size_t off = 20, cuts = 0;
	while (off < len) {
		uint32_t h = buf[off] | buf[off + 1] << 8 | buf[off + 2] << 16;
		off += 4 + h;
		if (off < len) {
			CHECK(decode(buf, off, &pd) && !pd.ended);
			cuts++;
		}
	}
	CHECK(cuts >= 8);
	CHECK(!decode(buf, len - 3, &pd)); /* a block cut in the middle is not */
	free(partial);
	free(buf);
	fclose(tmp);
}

/* The interning is bounded: past region_bytes the writer puts in a sequence point itself. */
static void test_bounded(void)
{
	FILE *tmp = tmpfile();
	struct nettrace_trace_info info = {.tick_freq = 1000000000, .pointer_size = 8};
	struct nettrace_writer *w = nettrace_writer_new(fileno(tmp), &info);
	nettrace_writer_set_limits(w, 4096, 64 * 1024);
	struct nettrace_field_desc f = {"Value", VARUINT};
	struct nettrace_event_desc desc = {.provider = "p",
					   .name = "e",
					   .fields = &f,
					   .nfields = 1,
					   .opcode = -1,
					   .level = -1,
					   .version = -1};
	uint32_t m = nettrace_writer_add_metadata(w, &desc);
	struct nettrace_thread_info ti = {true, true, 1, 1, NULL};
	uint64_t t = nettrace_writer_add_thread(w, &ti);
	uint8_t v = 1;
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t ips[4] = {i, i + 1, i + 2, i + 3}; /* every stack new: 32 bytes each */
		uint32_t s = nettrace_writer_stack(w, ips, 4);
		struct nettrace_event_out e = {m, t, 0, 0, s, 0, 100 + i, true, &v, 1};
		if (nettrace_writer_event(w, &e) < 0) {
			CHECK(!"event failed");
			break;
		}
	}
	CHECK(nettrace_writer_finish(w) == 0);
	CHECK(nettrace_writer_stats(w)->sequence_points >= 8); /* 640 KB of stacks / 64 KB */
	CHECK_EQ_U64(nettrace_writer_stats(w)->events, 20000);
	nettrace_writer_free(w);
	fclose(tmp);
}

int main(void)
{
	test_file();
	test_bounded();
	return TEST_DONE();
}
