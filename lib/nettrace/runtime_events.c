/* runtime_events: see runtime_events.h.  Offsets and versions: the templates of ClrEtwAll.man
 * (and TraceEvent's ClrTraceEventParser, which reads the same payloads). */
#include "runtime_events.h"
#include "nettrace_metadata.h"
#include "base/span.h"
#include "base/utf16.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <strings.h>

enum runtime_event_kind runtime_event_kind(const struct nettrace_metadata *m)
{
	static const struct {
		uint32_t id;
		enum runtime_event_kind kind;
	} runtime[] = {
	    {1, RT_GC_START},
	    {2, RT_GC_END},
	    {3, RT_GC_RESTART_EE_END},
	    {4, RT_GC_HEAP_STATS},
	    {7, RT_GC_RESTART_EE_BEGIN},
	    {8, RT_GC_SUSPEND_EE_END},
	    {9, RT_GC_SUSPEND_EE_BEGIN},
	    {10, RT_GC_ALLOCATION_TICK},
	    {35, RT_GC_TRIGGERED},
	    {80, RT_EXCEPTION_THROWN},
	    {81, RT_CONTENTION_START},
	    {91, RT_CONTENTION_STOP},
	    {143, RT_METHOD_LOAD_VERBOSE},
	    {144, RT_METHOD_UNLOAD_VERBOSE},
	    {145, RT_METHOD_JITTING_STARTED},
	    {152, RT_MODULE_LOAD},
	    {303, RT_GC_ALLOCATION_SAMPLED},
	    {204, RT_GC_PER_HEAP_HISTORY},
	    {250, RT_EXCEPTION_CATCH_START},
	};
	if (!strcmp(m->provider, RT_PROVIDER_RUNDOWN))
		return m->event_id == 143 || m->event_id == 144	  ? RT_METHOD_RUNDOWN_VERBOSE
		       : m->event_id == 153 || m->event_id == 154 ? RT_MODULE_LOAD
								  : RT_OTHER;
	if (strcmp(m->provider, RT_PROVIDER_RUNTIME))
		return RT_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(runtime); i++)
		if (runtime[i].id == m->event_id)
			return runtime[i].kind;
	return RT_OTHER;
}

static const struct {
	const char *name;
	unsigned max_version;
} kinds[] = {
    [RT_OTHER] = {"event", 0},
    [RT_GC_START] = {"GCStart", 2},
    [RT_GC_END] = {"GCEnd", 1},
    [RT_GC_RESTART_EE_END] = {"GCRestartEEEnd", 1},
    [RT_GC_HEAP_STATS] = {"GCHeapStats", 2},
    [RT_GC_RESTART_EE_BEGIN] = {"GCRestartEEBegin", 1},
    [RT_GC_SUSPEND_EE_END] = {"GCSuspendEEEnd", 1},
    [RT_GC_SUSPEND_EE_BEGIN] = {"GCSuspendEEBegin", 1},
    [RT_GC_ALLOCATION_TICK] = {"GCAllocationTick", 4},
    [RT_GC_TRIGGERED] = {"GCTriggered", 0},
    [RT_EXCEPTION_THROWN] = {"ExceptionThrown", 1},
    [RT_EXCEPTION_CATCH_START] = {"ExceptionCatchStart", 0},
    [RT_CONTENTION_START] = {"ContentionStart", 2},
    [RT_CONTENTION_STOP] = {"ContentionStop", 1},
    [RT_METHOD_JITTING_STARTED] = {"MethodJittingStarted", 1},
    [RT_METHOD_LOAD_VERBOSE] = {"MethodLoadVerbose", 2},
    [RT_METHOD_RUNDOWN_VERBOSE] = {"MethodDCEndVerbose", 2},
    [RT_METHOD_UNLOAD_VERBOSE] = {"MethodUnloadVerbose", 2},
    [RT_MODULE_LOAD] = {"ModuleLoad", 2},
    [RT_GC_ALLOCATION_SAMPLED] = {"AllocationSampled", 0},
    [RT_GC_PER_HEAP_HISTORY] = {"GCPerHeapHistory", 3},
};

unsigned rt_event_max_version(enum runtime_event_kind kind)
{
	return (size_t)kind < ARRAY_SIZE(kinds) ? kinds[kind].max_version : 0;
}

const char *rt_event_name(enum runtime_event_kind kind)
{
	return (size_t)kind < ARRAY_SIZE(kinds) && kinds[kind].name ? kinds[kind].name : "event";
}

static struct span payload(const struct nettrace_event *e)
{
	return span_of(e->payload, e->payload_size);
}

int rt_decode_gc_start(const struct nettrace_event *e, struct rt_gc_start *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->count = span_u32(&s);
	if (e->meta->version == 0) {
		out->reason = span_u32(&s);
	} else {
		out->depth = span_u32(&s);
		out->reason = span_u32(&s);
		out->type = span_u32(&s);
	}
	return s.bad ? -1 : 0;
}

int rt_decode_gc_end(const struct nettrace_event *e, struct rt_gc_end *out)
{
	struct span s = payload(e);
	out->count = span_u32(&s);
	out->depth = span_u32(&s);
	return s.bad ? -1 : 0;
}

int rt_decode_gc_suspend(const struct nettrace_event *e, struct rt_gc_suspend *out)
{
	struct span s = payload(e);
	out->reason = span_u32(&s);
	out->count = span_u32(&s);
	/* GCSuspendEEBegin version 0 had a 16-bit reason: the count is then unknown. */
	if (e->meta->version == 0)
		out->count = 0;
	return e->payload_size < 2 ? -1 : 0;
}

int rt_decode_gc_heap_stats(const struct nettrace_event *e, struct rt_gc_heap_stats *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	for (int g = 0; g < 4; g++) {
		out->gen_size[g] = span_u64(&s);
		out->promoted[g] = span_u64(&s);
	}
	out->finalize_promoted = span_u64(&s);
	span_u64(&s); /* finalization count */
	out->pinned_objects = span_u32(&s);
	span_take(&s, 4 + 4); /* sync blocks, handles */
	if (s.bad)
		return -1;
	if (e->meta->version >= 2) {
		span_u16(&s); /* ClrInstanceID */
		out->gen_size[4] = span_u64(&s);
		out->promoted[4] = span_u64(&s);
		if (s.bad)
			return -1;
	}
	for (int g = 0; g < 5; g++)
		out->total += out->gen_size[g];
	return 0;
}

int rt_decode_gc_per_heap(const struct nettrace_event *e, unsigned pointer_size,
			  struct rt_gc_per_heap *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	if (e->meta->version < 3 || (pointer_size != 4 && pointer_size != 8))
		return -1;
	/* ClrInstanceID, six pointer-sized allocation figures, six u32 (free list efficiency,
	 * condemn reasons, mechanisms, heap index), ExtraGen0Commit, then the generations */
	span_take(&s, 2 + 6 * pointer_size + 6 * 4 + pointer_size);
	uint32_t count = span_u32(&s);
	out->ngens = count < 5 ? count : 5;
	for (uint32_t g = 0; g < out->ngens; g++) {
		uint64_t v[10];
		for (int i = 0; i < 10; i++)
			v[i] = pointer_size == 8 ? span_u64(&s) : span_u32(&s);
		/* SizeBefore, FreeListSpaceBefore, FreeObjSpaceBefore, SizeAfter,
		 * FreeListSpaceAfter, FreeObjSpaceAfter, In, PinnedSurv, NonePinnedSurv,
		 * NewAllocation */
		out->size_before[g] = v[0];
		out->obj_before[g] = v[0] - v[1] - v[2];
		out->frag_after[g] = v[4] + v[5];
		out->obj_after[g] = v[3] - out->frag_after[g];
	}
	return s.bad ? -1 : 0;
}

int rt_decode_gc_triggered(const struct nettrace_event *e, struct rt_gc_triggered *out)
{
	struct span s = payload(e);
	out->reason = span_u32(&s);
	return s.bad ? -1 : 0;
}

int rt_decode_alloc_tick(const struct nettrace_event *e, unsigned pointer_size,
			 struct rt_alloc_tick *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->amount = span_u32(&s);
	out->kind = span_u32(&s);
	if (s.bad)
		return -1;
	if (e->meta->version >= 2) {
		span_u16(&s); /* ClrInstanceID */
		out->amount = span_u64(&s);
		out->type_id = span_ptr(&s, pointer_size);
		out->type_name = utf16z_take(&s);
		if (s.bad) {
			rt_alloc_tick_release(out);
			return -1;
		}
		span_u32(&s); /* HeapIndex */
		if (e->meta->version >= 4) {
			span_ptr(&s, pointer_size); /* Address */
			out->object_size = span_u64(&s);
			if (s.bad)
				out->object_size = 0;
		}
	}
	if (!out->type_name)
		out->type_name = xstrdup("");
	return 0;
}

void rt_alloc_tick_release(struct rt_alloc_tick *t)
{
	free(t->type_name);
	t->type_name = NULL;
}

int rt_decode_exception(const struct nettrace_event *e, unsigned pointer_size,
			struct rt_exception *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	if (e->meta->version == 0) { /* no payload: the type is unknown */
		out->type = xstrdup("");
		out->message = xstrdup("");
	} else {
		out->type = utf16z_take(&s);
		out->message = utf16z_take(&s);
		out->eip = span_ptr(&s, pointer_size);
		out->hresult = span_u32(&s);
		out->flags = span_u16(&s);
		if (s.bad) {
			rt_exception_release(out);
			return -1;
		}
	}
	if (!*out->type) { /* named as an allocation without its type is */
		free(out->type);
		out->type = xstrdup("(type not given)");
	}
	return 0;
}

void rt_exception_release(struct rt_exception *x)
{
	free(x->type);
	free(x->message);
	x->type = x->message = NULL;
}

int rt_decode_exception_catch(const struct nettrace_event *e, struct rt_exception_catch *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->entry_eip = span_u64(&s);
	out->method_id = span_u64(&s);
	out->method_name = utf16z_take(&s);
	if (s.bad) {
		rt_exception_catch_release(out);
		return -1;
	}
	return 0;
}

void rt_exception_catch_release(struct rt_exception_catch *c)
{
	free(c->method_name);
	c->method_name = NULL;
}

int rt_decode_contention(const struct nettrace_event *e, struct rt_contention *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	bool start = e->meta->event_id == 81;
	if (start && e->meta->version == 0)
		return 0; /* ContentionStart version 0 has no payload */
	out->flags = span_u8(&s);
	span_u16(&s); /* ClrInstanceID */
	if (s.bad)
		return -1;
	if (start && e->meta->version >= 2) {
		out->lock_id = span_u64(&s);
		span_u64(&s); /* AssociatedObjectID */
		out->owner_thread_id = span_u64(&s);
		if (s.bad)
			out->lock_id = out->owner_thread_id = 0;
	} else if (!start && e->meta->version >= 1) {
		const uint8_t *d = span_take(&s, 8);
		if (d) {
			memcpy(&out->duration_ns, d, 8); /* little-endian IEEE double */
			out->has_duration = true;
		}
	}
	return 0;
}

double rt_contention_waited_ns(const struct rt_contention *c, uint64_t start_ns, uint64_t stop_ns)
{
	if (c->has_duration)
		return c->duration_ns;
	return stop_ns > start_ns ? (double)(stop_ns - start_ns) : 0;
}

int rt_decode_method(const struct nettrace_event *e, struct rt_method *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->method_id = span_u64(&s);
	out->module_id = span_u64(&s);
	if (e->meta->event_id == 145) { /* MethodJittingStarted */
		out->token = span_u32(&s);
		out->il_size = span_u32(&s);
	} else {
		out->start = span_u64(&s);
		out->size = span_u32(&s);
		out->token = span_u32(&s);
		out->flags = span_u32(&s);
	}
	out->ns = utf16z_take(&s);
	out->name = utf16z_take(&s);
	out->signature = utf16z_take(&s);
	if (s.bad) {
		rt_method_release(out);
		return -1;
	}
	return 0;
}

int rt_decode_module(const struct nettrace_event *e, struct rt_module *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->module_id = span_u64(&s);
	span_u64(&s); /* AssemblyID */
	span_u32(&s); /* ModuleFlags */
	span_u32(&s); /* Reserved1 */
	out->il_path = utf16z_take(&s);
	out->native_path = utf16z_take(&s);
	if (s.bad) {
		rt_module_release(out);
		return -1;
	}
	return 0;
}

void rt_module_release(struct rt_module *m)
{
	free(m->il_path);
	free(m->native_path);
	m->il_path = m->native_path = NULL;
}

int rt_decode_alloc_sampled(const struct nettrace_event *e, unsigned pointer_size,
			    struct rt_alloc_sampled *out)
{
	struct span s = payload(e);
	memset(out, 0, sizeof(*out));
	out->kind = span_u32(&s);
	span_u16(&s);		    /* ClrInstanceID */
	span_ptr(&s, pointer_size); /* TypeID */
	out->type_name = utf16z_take(&s);
	span_ptr(&s, pointer_size); /* Address */
	out->object_size = span_u64(&s);
	out->sampled_byte_offset = span_u64(&s);
	if (s.bad) {
		rt_alloc_sampled_release(out);
		return -1;
	}
	return 0;
}

void rt_alloc_sampled_release(struct rt_alloc_sampled *a)
{
	free(a->type_name);
	a->type_name = NULL;
}

uint64_t rt_alloc_sampled_weight(const struct rt_alloc_sampled *a)
{
	const double mean = 100.0 * 1024; /* the runtime's mean sampling distance */
	double size = a->object_size ? (double)a->object_size : 1;
	return u64_round(size / -expm1(-size / mean));
}

int rt_decode_allocation(const struct nettrace_event *e, enum runtime_event_kind kind,
			 unsigned pointer_size, struct rt_allocation *out)
{
	memset(out, 0, sizeof(*out));
	char *type;
	if (kind == RT_GC_ALLOCATION_TICK) {
		struct rt_alloc_tick t;
		if (rt_decode_alloc_tick(e, pointer_size, &t) < 0)
			return -1;
		type = t.type_name;
		out->heap = t.kind;
		out->bytes = t.amount;
	} else if (kind == RT_GC_ALLOCATION_SAMPLED) {
		struct rt_alloc_sampled a;
		if (rt_decode_alloc_sampled(e, pointer_size, &a) < 0)
			return -1;
		type = a.type_name;
		out->heap = a.kind;
		out->bytes = rt_alloc_sampled_weight(&a);
	} else {
		return -1;
	}
	if (!*type) {
		free(type);
		type = xstrdup("(type not given)");
	}
	out->type = type;
	return 0;
}

void rt_allocation_release(struct rt_allocation *a)
{
	free(a->type);
	a->type = NULL;
}

void rt_method_release(struct rt_method *m)
{
	free(m->ns);
	free(m->name);
	free(m->signature);
	m->ns = m->name = m->signature = NULL;
}

char *rt_method_display_name(const struct rt_method *m)
{
	const char *ns = m->ns ? m->ns : "", *name = m->name ? m->name : "?";
	return *ns ? xasprintf("%s.%s", ns, name) : xstrdup(name);
}

char *rt_method_full_name(const struct rt_method *m)
{
	const char *ns = m->ns ? m->ns : "", *name = m->name ? m->name : "?";
	const char *args = m->signature ? strchr(m->signature, '(') : NULL;
	return xasprintf("%s.%s%s", ns, name, args ? args : "");
}

char *rt_module_name(const char *il_path)
{
	const char *base = il_path;
	for (const char *p = il_path; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	const char *dot = strrchr(base, '.');
	size_t n = strlen(base);
	if (dot && (!strcasecmp(dot, ".dll") || !strcasecmp(dot, ".exe")))
		n = (size_t)(dot - base);
	return xstrndup(base, n);
}

const char *rt_gc_reason_name(uint32_t reason)
{
	/* the GC's gc_reason */
	static const char *const names[] = {"AllocSmall",	 "Induced",
					    "LowMemory",	 "Empty",
					    "AllocLarge",	 "OutOfSpaceSOH",
					    "OutOfSpaceLOH",	 "InducedNotForced",
					    "Internal",		 "InducedLowMemory",
					    "InducedCompacting", "LowMemoryHost",
					    "PMFullGC",		 "LowMemoryHostBlocking",
					    "BGCTuningSOH",	 "BGCTuningLOH",
					    "BGCStepping",	 "InducedAggressive"};
	return reason < ARRAY_SIZE(names) ? names[reason] : "Other";
}

const char *rt_gc_type_name(uint32_t type)
{
	static const char *const names[] = {"NonConcurrent", "Background", "Foreground"};
	return type < ARRAY_SIZE(names) ? names[type] : "Other";
}

const char *rt_method_tier_name(uint32_t flags)
{
	/* MethodFlags: 0x8 jitted; bits 7-9 the optimization tier (TraceEvent's
	 * OptimizationTier) */
	static const char *const names[] = {"",	     "minopts", "optimized",	"tier0",
					    "tier1", "OSR",	"tier0 instr.", "tier1 instr."};
	if (!(flags & 0x8))
		return "";
	return names[(flags >> 7) & 0x7];
}
