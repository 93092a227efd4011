/* nettrace_tables: what a NetTrace reader remembers between blocks: metadata rows by id,
 * stacks by id (until the next sequence point), threads by index and label lists (v6), and
 * each capture thread's last sequence number (to count lost events).  Internal to the
 * reader. */
#ifndef PC_NETTRACE_TABLES_H
#define PC_NETTRACE_TABLES_H

#include "base/hash.h"
#include "nettrace_metadata.h"

/* uint64 -> uint64. */
struct u64pair {
	uint64_t key, val;
	bool used;
};
#define HTAB_NAME	    u64map
#define HTAB_ENTRY	    struct u64pair
#define HTAB_KEY	    uint64_t
#define HTAB_EMPTY(e)	    (!(e)->used)
#define HTAB_HASH(t, e)	    hash_mix((e)->key)
#define HTAB_MATCH(t, e, k) ((e)->key == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

struct nettrace_stack_entry {
	uint32_t id;
	size_t off, n; /* into ips */
};

struct nettrace_thread {
	uint64_t tid, pid;
};

struct nettrace_label {
	uint8_t activity[16], related[16];
	bool has_activity, has_related;
};

struct nettrace_tables {
	struct u64map meta_ids; /* id -> index into metas */
	struct nettrace_metadata **metas;
	size_t nmetas, metas_cap;
	struct nettrace_stack_entry *stacks;
	size_t nstacks, stacks_cap;
	bool stacks_sorted;
	uint64_t *ips;
	size_t nips, ips_cap;
	struct u64map threads; /* index -> index into thread_info */
	struct nettrace_thread *thread_info;
	size_t nthreads, threads_cap;
	struct u64map labels; /* id -> index into label_info */
	struct nettrace_label *label_info;
	size_t nlabels, labels_cap;
	struct u64map seqs; /* capture thread -> last sequence number */
};

void nettrace_tables_init(struct nettrace_tables *t);
void nettrace_tables_release(struct nettrace_tables *t);

/* Takes m's contents; returns the stored row (a redefinition replaces the id's row). */
struct nettrace_metadata *nettrace_tables_add_metadata(struct nettrace_tables *t,
						       struct nettrace_metadata *m);
const struct nettrace_metadata *nettrace_tables_metadata(const struct nettrace_tables *t,
							 uint32_t id);

void nettrace_tables_add_stack(struct nettrace_tables *t, uint32_t id, const uint8_t *bytes,
			       size_t size, unsigned pointer_size);
size_t nettrace_tables_stack(const struct nettrace_tables *t, uint32_t id, const uint64_t **ips);
/* Whether a stack block defined id (an empty stack included). */
bool nettrace_tables_has_stack(const struct nettrace_tables *t, uint32_t id);

/* v6 blocks; -1 when malformed. */
int nettrace_tables_add_threads(struct nettrace_tables *t, const uint8_t *p, size_t len);
int nettrace_tables_remove_threads(struct nettrace_tables *t, const uint8_t *p, size_t len);
int nettrace_tables_add_labels(struct nettrace_tables *t, const uint8_t *p, size_t len);
void nettrace_tables_thread(const struct nettrace_tables *t, uint64_t index, uint64_t *tid,
			    uint64_t *pid);
/* The activity ids of label list id (0: none), zeros where the list has none. */
void nettrace_tables_activity_ids(const struct nettrace_tables *t, uint32_t id,
				  uint8_t activity[16], uint8_t related[16]);

/* An event's sequence number on its capture thread: returns how many were skipped. */
uint64_t nettrace_tables_sequence(struct nettrace_tables *t, uint64_t thread, uint32_t seq);
/* A sequence point's lower bound for a thread: returns how many were lost before it. */
uint64_t nettrace_tables_checkpoint(struct nettrace_tables *t, uint64_t thread, uint32_t seq);
/* A sequence point: stacks and label lists are forgotten; v6 flags 1 and 2 forget threads and
 * metadata too. */
void nettrace_tables_sequence_point(struct nettrace_tables *t, uint32_t flags);

#endif
