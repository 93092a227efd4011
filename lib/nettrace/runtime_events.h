/* runtime_events: the payloads of the .NET runtime's own events that reports use (GC,
 * allocation ticks, exceptions, lock contention, JIT, method load and rundown), decoded by
 * event version as the runtime's manifest (ClrEtwAll.man) lays them out.  The runtime's
 * metadata does not describe these payloads, so their layout lives here.
 *
 * Each decoder takes an event of the matching provider and id (runtime_event_kind() says
 * which) and returns 0, or -1 when the payload is shorter than its version needs (a damaged
 * or foreign event: skip it).  Strings are malloc'd UTF-8; *_release() frees them.
 */
#ifndef PC_RUNTIME_EVENTS_H
#define PC_RUNTIME_EVENTS_H

#include "nettrace_read.h"

enum runtime_event_kind {
	RT_OTHER = 0,
	RT_GC_START,
	RT_GC_END,
	RT_GC_RESTART_EE_END,
	RT_GC_HEAP_STATS,
	RT_GC_RESTART_EE_BEGIN,
	RT_GC_SUSPEND_EE_END,
	RT_GC_SUSPEND_EE_BEGIN,
	RT_GC_ALLOCATION_TICK,
	RT_GC_TRIGGERED,
	RT_EXCEPTION_THROWN,
	RT_EXCEPTION_CATCH_START,
	RT_CONTENTION_START,
	RT_CONTENTION_STOP,
	RT_METHOD_JITTING_STARTED,
	RT_METHOD_LOAD_VERBOSE,	   /* a method's code was loaded (JIT or ReadyToRun) */
	RT_METHOD_RUNDOWN_VERBOSE, /* the rundown provider's MethodDCStart/EndVerbose */
	RT_METHOD_UNLOAD_VERBOSE,
	RT_MODULE_LOAD,		  /* Loader/ModuleLoad; the rundown's ModuleDCStart/End too */
	RT_GC_ALLOCATION_SAMPLED, /* .NET 10's AllocationSampled */
	RT_GC_PER_HEAP_HISTORY,
	RT_KINDS /* how many kinds */
};

#define RT_PROVIDER_RUNTIME "Microsoft-Windows-DotNETRuntime"
#define RT_PROVIDER_RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"
#define RT_PROVIDER_PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"

/* What an event is, by its provider and event id. */
enum runtime_event_kind runtime_event_kind(const struct nettrace_metadata *m);
/* The newest version of the kind's payload the decoders know (a newer one is read as that
 * version: the runtime only ever appends fields); its name, for messages. */
unsigned rt_event_max_version(enum runtime_event_kind kind);
const char *rt_event_name(enum runtime_event_kind kind);

struct rt_gc_start {
	uint32_t count, depth, reason, type;
};
struct rt_gc_end {
	uint32_t count, depth;
};
struct rt_gc_suspend {
	uint32_t reason, count;
};
struct rt_gc_heap_stats {
	uint64_t gen_size[5]; /* 0, 1, 2, large objects, pinned objects (.NET 5+) */
	uint64_t promoted[5];
	uint64_t total;		    /* the heap's size after the GC */
	uint64_t finalize_promoted; /* bytes of finalizable objects that survived */
	uint32_t pinned_objects;
};
/* GCPerHeapHistory (version 3, .NET Core's): one heap's generations, bytes. */
struct rt_gc_per_heap {
	uint32_t ngens;		 /* generations it describes (up to 5) */
	uint64_t size_before[5]; /* 0, 1, 2, large, pinned objects */
	uint64_t obj_before[5];	 /* less the free list and free objects before */
	uint64_t obj_after[5];	 /* the size after, less its fragmentation */
	uint64_t frag_after[5];	 /* free list and free objects after */
};
struct rt_gc_triggered {
	uint32_t reason;
};
struct rt_alloc_tick {
	uint32_t kind;	 /* 0 small, 1 large, 2 pinned object heap */
	uint64_t amount; /* bytes allocated since the previous tick (about 100 KB) */
	uint64_t type_id;
	char *type_name; /* "" before version 2 */
	uint64_t object_size;
};
struct rt_exception {
	char *type; /* "(type not given)" when the event has none */
	char *message;
	uint64_t eip; /* where it was thrown */
	uint32_t hresult;
	uint16_t flags;
};
struct rt_exception_catch {
	uint64_t entry_eip, method_id;
	char *method_name;
};
struct rt_contention {
	uint8_t flags; /* 0 managed, 1 native */
	uint64_t lock_id;
	uint64_t owner_thread_id;
	double duration_ns; /* ContentionStop version 1 (.NET 8+); else 0 */
	bool has_duration;
};
struct rt_module {
	uint64_t module_id;
	char *il_path, *native_path;
};
/* AllocationSampled: one object, sampled about once per 100 KiB allocated (a Poisson
 * process, so a sample weighs more than its size: rt_alloc_sampled_weight()). */
struct rt_alloc_sampled {
	uint32_t kind;
	char *type_name;
	uint64_t object_size, sampled_byte_offset;
};
struct rt_method {
	uint64_t method_id, module_id, start, size;
	uint32_t token, flags, il_size;
	char *ns, *name, *signature; /* ns: the type, "System.String" */
};

int rt_decode_gc_start(const struct nettrace_event *e, struct rt_gc_start *out);
int rt_decode_gc_end(const struct nettrace_event *e, struct rt_gc_end *out);
int rt_decode_gc_suspend(const struct nettrace_event *e, struct rt_gc_suspend *out);
int rt_decode_gc_heap_stats(const struct nettrace_event *e, struct rt_gc_heap_stats *out);
/* -1 for versions before 3 (.NET Framework's layouts). */
int rt_decode_gc_per_heap(const struct nettrace_event *e, unsigned pointer_size,
			  struct rt_gc_per_heap *out);
int rt_decode_gc_triggered(const struct nettrace_event *e, struct rt_gc_triggered *out);
int rt_decode_alloc_tick(const struct nettrace_event *e, unsigned pointer_size,
			 struct rt_alloc_tick *out);
int rt_decode_exception(const struct nettrace_event *e, unsigned pointer_size,
			struct rt_exception *out);
int rt_decode_exception_catch(const struct nettrace_event *e, struct rt_exception_catch *out);
/* ContentionStart and ContentionStop. */
int rt_decode_contention(const struct nettrace_event *e, struct rt_contention *out);
/* The ns a ContentionStop's thread waited: the runtime's DurationNs where the event has it,
 * else the time since its ContentionStart (start_ns; 0 when the stop came first). */
double rt_contention_waited_ns(const struct rt_contention *c, uint64_t start_ns, uint64_t stop_ns);
/* MethodLoadVerbose, the rundown's MethodDC*Verbose, MethodUnloadVerbose (code range and
 * names) and MethodJittingStarted (names and IL size, no code range). */
int rt_decode_method(const struct nettrace_event *e, struct rt_method *out);

int rt_decode_module(const struct nettrace_event *e, struct rt_module *out);
int rt_decode_alloc_sampled(const struct nettrace_event *e, unsigned pointer_size,
			    struct rt_alloc_sampled *out);
/* The bytes one AllocationSampled event stands for: its object's size divided by the
 * chance that a sampling interval of mean 100 KiB falls into the object (the runtime's
 * design of allocation sampling). */
uint64_t rt_alloc_sampled_weight(const struct rt_alloc_sampled *a);

/* An allocation event, AllocationTick or AllocationSampled (kind), as what views weigh:
 * its object's type ("(type not given)" before AllocationTick version 2), its heap (0 small,
 * 1 large, 2 pinned objects) and the bytes it stands for (the tick's amount; the sample's
 * upscaled size). */
struct rt_allocation {
	char *type;
	uint32_t heap;
	uint64_t bytes;
};
int rt_decode_allocation(const struct nettrace_event *e, enum runtime_event_kind kind,
			 unsigned pointer_size, struct rt_allocation *out);
void rt_allocation_release(struct rt_allocation *a);

void rt_alloc_tick_release(struct rt_alloc_tick *t);
void rt_module_release(struct rt_module *m);
void rt_alloc_sampled_release(struct rt_alloc_sampled *a);
void rt_exception_release(struct rt_exception *x);
void rt_exception_catch_release(struct rt_exception_catch *c);
void rt_method_release(struct rt_method *m);

/* "PcDotnetApp.HotLoop.Churn", as PerfView names a method; malloc'd. */
char *rt_method_display_name(const struct rt_method *m);
/* "PcDotnetApp.HotLoop.Churn(int32)": the namespace, the name and the signature's argument
 * list, as TraceLog names a method in its stacks; malloc'd. */
char *rt_method_full_name(const struct rt_method *m);
/* A module's name in stacks, as TraceLog names it: the IL path's file name without .dll or
 * .exe ("System.Private.CoreLib"); malloc'd. */
char *rt_module_name(const char *il_path);
/* Names of GCStart's reason and type, ContentionStart's flags. */
const char *rt_gc_reason_name(uint32_t reason);
const char *rt_gc_type_name(uint32_t type);
/* The JIT tier of a MethodLoadVerbose's flags ("tier0", "tier1", "OSR", ...; "" unknown). */
const char *rt_method_tier_name(uint32_t flags);

#endif
