/* NetTrace streams (lib/nettrace/nettrace_read.c), as the .NET runtime writes them over
 * EventPipe and as dotnet-<pid>.nettrace files hold them.  The reader hands every metadata
 * block to lib/nettrace/nettrace_metadata.c (v4/v5 and v6 rows, field lists, UTF-16 names)
 * and keeps its state in lib/nettrace/nettrace_tables.c (metadata, stacks, thread and label
 * blocks, sequence numbers and points): both are fuzzed through it.  Every item read through a
 * reader fed in small chunks (the input's length picks their size), every event decoded by
 * runtime_events when it is one of the runtime's.  What `view` makes of the stream
 * (view_nettrace.c and the reports) is fuzz_view_nettrace's. */
#include "fuzz.h"
#include "nettrace/nettrace_read.h"
#include "nettrace/runtime_events.h"

static uint64_t sink;

struct input {
	const uint8_t *p;
	size_t n, pos, chunk;
};

static ssize_t feed(void *arg, void *buf, size_t len)
{
	struct input *in = arg;
	size_t n = in->n - in->pos;
	if (n > len)
		n = len;
	if (n > in->chunk)
		n = in->chunk;
	memcpy(buf, in->p + in->pos, n);
	in->pos += n;
	return (ssize_t)n;
}

static void touch_fields(const struct nettrace_field *f, size_t n, int depth)
{
	for (size_t i = 0; i < n && depth < 32; i++) {
		sink += strlen(f[i].name) + f[i].type + f[i].count;
		if (f[i].element)
			touch_fields(f[i].element, 1, depth + 1);
		touch_fields(f[i].fields, f[i].nfields, depth + 1);
	}
}

static void decode(const struct nettrace_event *e, unsigned ptr)
{
	struct rt_gc_start gs;
	struct rt_gc_end ge;
	struct rt_gc_suspend su;
	struct rt_gc_heap_stats hs;
	struct rt_gc_triggered tr;
	struct rt_gc_per_heap ph;
	struct rt_alloc_tick at;
	struct rt_exception x;
	struct rt_exception_catch xc;
	struct rt_contention c;
	struct rt_method m;
	switch (runtime_event_kind(e->meta)) {
	case RT_GC_START:
		if (rt_decode_gc_start(e, &gs) == 0)
			sink += gs.count + gs.depth + strlen(rt_gc_reason_name(gs.reason)) +
				strlen(rt_gc_type_name(gs.type));
		break;
	case RT_GC_END:
		if (rt_decode_gc_end(e, &ge) == 0)
			sink += ge.count;
		break;
	case RT_GC_SUSPEND_EE_BEGIN:
		if (rt_decode_gc_suspend(e, &su) == 0)
			sink += su.reason;
		break;
	case RT_GC_HEAP_STATS:
		if (rt_decode_gc_heap_stats(e, &hs) == 0)
			sink += hs.total;
		break;
	case RT_GC_TRIGGERED:
		if (rt_decode_gc_triggered(e, &tr) == 0)
			sink += tr.reason;
		break;
	case RT_GC_PER_HEAP_HISTORY:
		if (rt_decode_gc_per_heap(e, ptr, &ph) == 0)
			sink += ph.ngens + ph.obj_before[0] + ph.frag_after[0];
		break;
	case RT_GC_ALLOCATION_TICK:
		if (rt_decode_alloc_tick(e, ptr, &at) == 0) {
			sink += strlen(at.type_name) + at.amount;
			rt_alloc_tick_release(&at);
		}
		break;
	case RT_EXCEPTION_THROWN:
		if (rt_decode_exception(e, ptr, &x) == 0) {
			sink += strlen(x.type) + strlen(x.message) + x.eip;
			rt_exception_release(&x);
		}
		break;
	case RT_EXCEPTION_CATCH_START:
		if (rt_decode_exception_catch(e, &xc) == 0) {
			sink += strlen(xc.method_name);
			rt_exception_catch_release(&xc);
		}
		break;
	case RT_CONTENTION_START:
	case RT_CONTENTION_STOP:
		if (rt_decode_contention(e, &c) == 0)
			sink += c.flags + c.lock_id + (c.duration_ns > 0); /* any double: no cast */
		break;
	case RT_METHOD_JITTING_STARTED:
	case RT_METHOD_LOAD_VERBOSE:
	case RT_METHOD_RUNDOWN_VERBOSE:
	case RT_METHOD_UNLOAD_VERBOSE:
		if (rt_decode_method(e, &m) == 0) {
			char *name = rt_method_display_name(&m);
			sink += strlen(name) + strlen(rt_method_tier_name(m.flags));
			free(name);
			rt_method_release(&m);
		}
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	struct input in = {data, size, 0, 1 + size % 97};
	struct nettrace_reader *r = nettrace_reader_new(feed, &in, "fuzz");
	struct nettrace_item it;
	for (int n = 0; n < 100000 && nettrace_reader_next(r, &it) > 0; n++) {
		if (it.kind == NETTRACE_ITEM_METADATA) {
			sink += strlen(it.metadata->provider) + strlen(it.metadata->event_name);
			touch_fields(it.metadata->fields, it.metadata->nfields, 0);
		} else if (it.kind == NETTRACE_ITEM_EVENT) {
			const struct nettrace_event *e = it.event;
			for (size_t i = 0; i < e->payload_size; i++)
				sink += e->payload[i];
			for (size_t i = 0; i < e->stack_depth; i++)
				sink += e->stack[i];
			const struct nettrace_trace *t = nettrace_reader_trace(r);
			sink += nettrace_ticks_to_ns(t, e->timestamp);
			decode(e, t->pointer_size);
		} else {
			sink += it.sequence_point_ticks;
		}
	}
	sink += nettrace_reader_stats(r)->lost_events;
	nettrace_reader_free(r);

	return 0;
}
