/* postprocess_unified_file: the unified NetTrace's writer and what every part of the pass
 * writes through it: events (unified_put_event), processes (their first event and gen),
 * thread rows.  The bottom of the unified pass: postprocess_unified_code.h (mappings,
 * symbols, stacks) and postprocess_unified_runtime.h (the .NET runtime's events) write
 * through it, and postprocess_unified.c drives all three.  Internal to the pass. */
#ifndef PC_POSTPROCESS_UNIFIED_FILE_H
#define PC_POSTPROCESS_UNIFIED_FILE_H

#include "base/bytebuf.h"
#include "base/hash.h"
#include "nettrace/nettrace_write.h"
#include "perfdata/perfdata_read.h"
#include "symbols/symbols.h"

#define MAX_FRAMES 256 /* of a stack in the file */

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

/* By id; pointers, which callers hold across inserts. */
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

/* What went into the file, for the log. */
struct unified_stats {
	uint64_t events, samples, cswitches, processes, threads, mappings, symbols, stacks;
	uint64_t runtime_events; /* copied from the runtime's event files */
	uint64_t out_of_order;	 /* samples earlier than the one before: given its time */
	uint64_t bytes;
};

struct unified_file {
	const char *path; /* for messages */
	struct perfdata_reader *r;
	struct symbolizer *sym;
	struct nettrace_writer *w;
	bool started; /* w made and the system events declared */
	uint32_t ncpus;
	uint32_t system_md[NR_SYSTEM_EVENTS];
	uint64_t last_time;	/* of the event written last: times only go forward */
	uint64_t capture;	/* the one capture thread of every event (a thread row) */
	struct bytebuf payload; /* of the next event */
	struct thread_table threads;
	struct process_table procs;
	struct unified_stats st;
};

/* Frees what f holds but its writer (the caller's). */
void unified_file_release(struct unified_file *f);

/* Writes an event of metadata md with f->payload; -1 with pc_err(). */
int unified_put_event(struct unified_file *f, uint32_t md, uint64_t thread, uint32_t cpu,
		      uint32_t stack, uint64_t t);
/* The process of pid, and the thread of tid (created empty when new). */
struct process *unified_process(struct unified_file *f, uint32_t pid);
struct thread *unified_thread(struct unified_file *f, uint32_t tid);
/* ExistingProcess or ProcessCreate of pid, named by its main thread's comm. */
int unified_process_event(struct unified_file *f, uint32_t pid, enum system_event ev,
			  uint64_t thread, uint32_t cpu, uint64_t t);
/* The live thread row of thread tid of process pid named comm (a new one when the name or
 * process changed); writes the process's first event when it is new. */
int unified_thread_row(struct unified_file *f, uint32_t pid, uint32_t tid, const char *comm,
		       uint32_t cpu, uint64_t t, uint64_t *index);
/* The wall clock (ns since the epoch) at recording time t. */
int64_t unified_wall_clock_at(const struct unified_file *f, uint64_t t);

#endif
