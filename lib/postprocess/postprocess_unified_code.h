/* postprocess_unified_code: the code that ran, in the unified NetTrace: each mapping a frame
 * lies in (ProcessMapping, with ProcessMappingMetadata for an ELF build-id) and each symbol a
 * frame was named by (ProcessSymbol), written before the first event that needs them, and the
 * stacks.  Entries of processes that ended are pruned when the tables would grow.  Writes
 * through postprocess_unified_file.h; internal to the unified pass. */
#ifndef PC_POSTPROCESS_UNIFIED_CODE_H
#define PC_POSTPROCESS_UNIFIED_CODE_H

#include "postprocess_unified_file.h"

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

/* Stored in their slots. */
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

struct unified_code {
	struct unified_file *f;
	struct mapping_table mappings;
	struct symbol_table symbols;
	struct buildid_table buildids;
	uint64_t next_mapping, next_symbol, next_metadata;
	struct frame_memo *memo;
	uint64_t ips[MAX_FRAMES]; /* of the stack written last */
};

void unified_code_init(struct unified_code *c, struct unified_file *f);
void unified_code_release(struct unified_code *c);
/* Writes the mappings and symbols of frames not written yet, and the stack (of process
 * pid, for an event of thread at t on cpu): its id in *id. */
int unified_stack(struct unified_code *c, uint32_t pid, const struct frame *frames, size_t n,
		  uint64_t thread, uint32_t cpu, uint64_t t, uint32_t *id);

#endif
