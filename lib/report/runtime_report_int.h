/* runtime_report_int: the model runtime_report.c builds and runtime_report_print.c prints.
 * Internal to those two files. */
#ifndef PC_RUNTIME_REPORT_INT_H
#define PC_RUNTIME_REPORT_INT_H

#include "base/hash.h"
#include "runtime_report.h"

/* Counts (and sums) by name. */
struct rt_tally_entry {
	char *key;
	uint64_t count;
	double sum;
};
/* The entries by key: a slot is an index + 1 into the tally's e (0: empty). */
#define HTAB_NAME	    rt_tally_index
#define HTAB_ENTRY	    size_t
#define HTAB_KEY	    const char *
#define HTAB_CTX	    struct rt_tally_entry *const *
#define HTAB_EMPTY(s)	    (!*(s))
#define HTAB_HASH(t, s)	    hash_str((*(t)->ctx)[*(s)-1].key)
#define HTAB_MATCH(t, s, k) (!strcmp((*(t)->ctx)[*(s)-1].key, (k)))
#define HTAB_MIN	    64
#include "base/htab.h"
struct rt_tally {
	struct rt_tally_entry *e;
	size_t n, cap;
	struct rt_tally_index index;
};

/* thread id -> index + 1 of its open wait or JIT (0: none); an entry once used stays (its
 * index may go back to 0). */
struct thread_slot {
	uint64_t tid;
	size_t idx;
	bool used;
};
#define HTAB_NAME	    thread_slots
#define HTAB_ENTRY	    struct thread_slot
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->used)
#define HTAB_HASH(t, e)	    hash_mix((e)->tid)
#define HTAB_MATCH(t, e, k) ((e)->tid == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

struct gc_event;

struct rt_process {
	char *name;		   /* the file */
	size_t stream;		   /* runtime_report_begin()'s order */
	long host_pid;		   /* as the samples name it */
	uint32_t pid;		   /* as the runtime saw itself */
	uint64_t start_ns, end_ns; /* the session, on the runtime's clock */
	uint64_t sync_ns;
	uint64_t events, lost;
	bool truncated;
	struct rt_gc *gcs;
	size_t ngcs, gcs_cap;
	uint64_t other_suspensions; /* suspensions of the runtime for something else */
	struct rt_gc **by_pause;    /* complete GCs, by pause start: for the samples */
	size_t nby_pause;
	uint64_t samples, samples_in_pauses;
	struct rt_tally exceptions; /* by type */
	uint64_t nexceptions;
	uint64_t waits, waits_ended;
	double wait_ns;
	struct rt_tally owners; /* "lock 0x..\x1fthread" -> waits (ContentionStart v2) */
	struct rt_jit *jits;
	size_t njits, jits_cap;
	struct rt_tally allocs; /* by type: events, bytes */
	uint64_t alloc_events;
	/* while the stream is read */
	struct gc_event *gcev;
	size_t ngcev, gcev_cap;
	struct thread_slots open_waits, open_jits;
	uint64_t *wait_start; /* per open wait */
	size_t nwait_start, wait_start_cap;
};

struct runtime_report {
	struct rt_process *procs;
	size_t nprocs, cap;
	struct rt_stream **streams;
	size_t nstreams, streams_cap;
};

struct rt_stream {
	struct runtime_report *rr;
	size_t index;
	char *name;
	long host_pid;
};

void rt_tally_add(struct rt_tally *t, const char *key, uint64_t count, double sum);
void rt_tally_release(struct rt_tally *t);
/* The entries sorted by count (then sum, then key), descending; malloc'd array of n. */
struct rt_tally_entry **rt_tally_sorted(const struct rt_tally *t);

/* The GC analysis of a process's GC events (runtime_report_gc.c). */
void rt_build_gcs(struct rt_process *p);
void rt_gc_event(struct rt_process *p, const struct nettrace_event *e, enum runtime_event_kind kind,
		 uint64_t ns, unsigned pointer_size);
/* An allocation tick of heap (0 small, 1 large, 2 pinned objects): counted in time order
 * with the GC events. */
void rt_gc_alloc(struct rt_process *p, uint64_t ns, unsigned heap, double bytes);
/* The pause of a complete GC, as its row counts it (ns). */
static inline double rt_gc_pause(const struct rt_gc *g)
{
	return g->complete ? g->pause_ns : 0;
}

#endif
