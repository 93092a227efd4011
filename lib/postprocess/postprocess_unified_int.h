/* postprocess_unified_int: what the two halves of the unified NetTrace share:
 * postprocess_unified.c writes the file, its processes, threads, samples and context
 * switches; postprocess_unified_code.c the mappings, symbols and stacks of the code that
 * ran.  Not for use outside them. */
#ifndef PC_POSTPROCESS_UNIFIED_INT_H
#define PC_POSTPROCESS_UNIFIED_INT_H

#include "base/hash.h"
#include "nettrace/nettrace_write.h"
#include "postprocess_unified.h"

#define MAX_FRAMES 256
#define MEMO_SIZE  8192 /* power of two */

enum system_event {
	EXISTING_PROCESS,
	PROCESS_CREATE,
	PROCESS_EXIT,
	PROCESS_MAPPING,
	PROCESS_SYMBOL,
	PROCESS_MAPPING_METADATA,
	NR_SYSTEM_EVENTS
};

struct thread {
	uint32_t tid; /* key */
	uint32_t pid;
	uint64_t index; /* the live thread row, 0: none */
	char *comm;	/* of that row */
	bool ran;	/* has been seen running */
	bool blocked;	/* since out_time, at stack */
	uint64_t out_time;
	uint64_t *stack;
	uint32_t nstack, stack_cap;
};

struct process {
	uint32_t pid;	    /* key */
	uint32_t gen;	    /* processes that had this pid before */
	uint32_t live_rows; /* thread rows of it that are live */
	bool created;	    /* the recording saw its fork */
	bool emitted;	    /* ExistingProcess or ProcessCreate written */
	bool leader_exited; /* its main thread exited: it ends with its last thread */
	bool exit_written;  /* ProcessExit is in the file */
};

struct mapping_key {
	uint32_t pid, gen;
	uint64_t start, end, pgoff, name_hash;
};
struct mapping {
	struct mapping_key key;
	uint64_t id;
};

struct symbol_key {
	uint64_t mapping, start, end;
};
struct symbol {
	struct symbol_key key;
	uint64_t name_hash; /* of the name written last for this range */
	const char *name;   /* that name (the symbolizer's string): equal, no hash needed */
	uint32_t pid, gen;  /* the process of its mapping */
};

struct buildid_key {
	uint8_t id[64];
	uint64_t size, vaddr, offset;
};
struct buildid {
	struct buildid_key key;
	uint64_t id;
};

/* The tables: threads and processes by id (pointers: callers hold them across inserts),
 * mappings, symbols and build-ids stored in their slots. */
#define HTAB_NAME	    thread_table
#define HTAB_ENTRY	    struct thread *
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix((*(e))->tid)
#define HTAB_MATCH(t, e, k) ((*(e))->tid == (k))
#define HTAB_MIN	    256
#include "base/htab.h"

#define HTAB_NAME	    process_table
#define HTAB_ENTRY	    struct process *
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix((*(e))->pid)
#define HTAB_MATCH(t, e, k) ((*(e))->pid == (k))
#define HTAB_MIN	    256
#include "base/htab.h"

#define HTAB_NAME	    mapping_table
#define HTAB_ENTRY	    struct mapping /* id 0: empty */
#define HTAB_KEY	    const struct mapping_key *
#define HTAB_EMPTY(e)	    (!(e)->id)
#define HTAB_HASH(t, e)	    hash_bytes(&(e)->key, sizeof((e)->key))
#define HTAB_MATCH(t, e, k) (!memcmp(&(e)->key, (k), sizeof(*(k))))
#define HTAB_MIN	    256
#include "base/htab.h"

#define HTAB_NAME	    symbol_table
#define HTAB_ENTRY	    struct symbol /* key.end 0: empty */
#define HTAB_KEY	    const struct symbol_key *
#define HTAB_EMPTY(e)	    (!(e)->key.end)
#define HTAB_HASH(t, e)	    hash_bytes(&(e)->key, sizeof((e)->key))
#define HTAB_MATCH(t, e, k) (!memcmp(&(e)->key, (k), sizeof(*(k))))
#define HTAB_MIN	    256
#include "base/htab.h"

#define HTAB_NAME	    buildid_table
#define HTAB_ENTRY	    struct buildid /* id 0: empty */
#define HTAB_KEY	    const struct buildid_key *
#define HTAB_EMPTY(e)	    (!(e)->id)
#define HTAB_HASH(t, e)	    hash_bytes(&(e)->key, sizeof((e)->key))
#define HTAB_MATCH(t, e, k) (!memcmp(&(e)->key, (k), sizeof(*(k))))
#include "base/htab.h"

/* A frame whose mapping and symbol are written already: most frames of most samples. */
struct frame_memo {
	uint64_t addr, sym_start, sym_end, map_start, map_end;
	const struct map *map;
	const char *sym;
	uint32_t pid, gen;
};

struct nettrace_out {
	char *path;
	struct outfile *out; /* path under a temporary name until finished */
	int fd;
	struct perfdata_reader *r;
	struct symbolizer *sym;
	struct nettrace_writer *w;
	bool started, failed, cswitch;
	uint64_t sync, last_time;
	uint32_t ncpus;
	uint32_t system_md[NR_SYSTEM_EVENTS], cswitch_md;
	uint32_t *evsel_md;  /* by evsel index, 0: not yet declared */
	size_t cpu_evsel;    /* the evsel that is PerfView's "cpu", nr_evsels if none */
	size_t switch_evsel; /* sched:sched_switch, nr_evsels if none */
	struct thread_table threads;
	struct process_table procs;
	struct mapping_table mappings;
	struct symbol_table symbols;
	struct buildid_table buildids;
	uint64_t next_mapping, next_symbol, next_metadata;
	struct bytebuf payload;
	struct frame_memo *memo;
	uint64_t ips[MAX_FRAMES];
	struct nettrace_out_stats st;
	struct unified_runtime *runtime; /* the .NET runtime's event files, NULL: none */
};

/* The process of pid (created empty when new). */
struct process *unified_process(struct nettrace_out *o, uint32_t pid);
/* Writes an event of metadata md with o->payload; -1 with pc_err(). */
int unified_put_event(struct nettrace_out *o, uint32_t md, uint64_t thread, uint32_t cpu,
		      uint32_t stack, uint64_t t);
/* Writes the mappings and symbols of frames not written yet, and the stack (of process
 * pid, for an event of thread at t on cpu): its id in *id. */
int unified_stack(struct nettrace_out *o, uint32_t pid, const struct frame *frames, size_t n,
		  uint64_t thread, uint32_t cpu, uint64_t t, uint32_t *id);

/* The live thread row of thread tid of process pid named comm (a new one when the name or
 * process changed); writes the process's first event when it is new. */
int unified_thread_row(struct nettrace_out *o, uint32_t pid, uint32_t tid, const char *comm,
		       uint32_t cpu, uint64_t t, uint64_t *index);
/* The wall clock (ns since the epoch) at recording time t. */
int64_t unified_wall_clock_at(struct nettrace_out *o, uint64_t t);

/* postprocess_unified_runtime.c: the runtime's events.  The time of the earliest one not
 * written (false: none left); writes those up to t (after the file started); logs, frees. */
bool unified_runtime_first(struct nettrace_out *o, uint64_t *t);
int unified_runtime_until(struct nettrace_out *o, uint64_t t);
void unified_runtime_log(const struct nettrace_out *o);
void unified_runtime_free(struct unified_runtime *rt);

#endif
