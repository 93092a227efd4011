/* runtime_report_int: the model runtime_report.c builds and runtime_report_print.c prints.
 * Internal to those two files. */
#ifndef PC_RUNTIME_REPORT_INT_H
#define PC_RUNTIME_REPORT_INT_H

#include "base/hash.h"
#include "runtime_report.h"

#define RT_FRAMES 16 /* frames kept per exception or contention, leaf first */

struct rt_gc {
	uint32_t number, gen, reason, type;
	uint64_t start_ns, end_ns;	 /* GCStart, GCEnd; 0 when not seen */
	uint64_t pause_start, pause_end; /* the suspension it ran in; 0 when not seen */
	uint64_t heap_after;
	bool has_heap;
	uint64_t samples; /* CPU samples of the process inside the pause */
};

struct rt_throw {
	char *type;
	uint64_t eip;
	uint64_t ips[RT_FRAMES];
	size_t n;
};

struct rt_wait {
	uint64_t tid, start_ns;
	double wait_ns;
	bool ended;
	uint64_t ips[RT_FRAMES];
	size_t n;
};

struct rt_jit {
	uint64_t method_id, tid, start_ns, end_ns;
	uint32_t il_size;
	uint32_t flags; /* of the MethodLoadVerbose that ended it */
	char *name;
};

struct rt_code {
	uint64_t start, size;
	char *name;
};

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

struct rt_process {
	char *name;		   /* the file */
	long host_pid;		   /* as the samples name it */
	uint32_t pid;		   /* as the runtime saw itself */
	uint64_t start_ns, end_ns; /* the session, on the runtime's clock */
	uint64_t events, lost;
	bool truncated;
	struct rt_gc *gcs;
	size_t ngcs, gcs_cap;
	uint64_t other_pauses;	 /* suspensions without a GC */
	struct rt_gc **by_pause; /* gcs with a pause, by pause start: for the samples */
	size_t nby_pause;
	uint64_t samples, samples_in_pauses;
	struct rt_throw *throws;
	size_t nthrows, throws_cap;
	struct rt_wait *waits;
	size_t nwaits, waits_cap;
	struct rt_jit *jits;
	size_t njits, jits_cap;
	struct rt_code *code;
	size_t ncode, code_cap;
	bool code_sorted;
	struct rt_tally allocs; /* by type: ticks, bytes */
	uint64_t alloc_ticks;
};

struct runtime_report {
	struct rt_process *procs;
	size_t nprocs, cap;
};

/* The method whose code holds ip at the end of the trace ("" if none). */
const char *rt_process_method_at(const struct rt_process *p, uint64_t ip);

void rt_tally_add(struct rt_tally *t, const char *key, uint64_t count, double sum);
void rt_tally_release(struct rt_tally *t);
/* The entries sorted by count (then sum, then key), descending; malloc'd array of n. */
struct rt_tally_entry **rt_tally_sorted(const struct rt_tally *t);

#endif
