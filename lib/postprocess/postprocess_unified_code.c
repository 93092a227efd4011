/* postprocess_unified_code: see postprocess_unified_code.h. */
#include "postprocess_unified_code.h"

#include "symbols/machine.h"

#include <stdlib.h>
#include <string.h>

#define MEMO_SIZE 8192 /* power of two */

void unified_code_init(struct unified_code *c, struct unified_file *f)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->next_mapping = c->next_symbol = c->next_metadata = 1;
	c->memo = xcalloc(MEMO_SIZE, sizeof(*c->memo));
}

void unified_code_release(struct unified_code *c)
{
	mapping_table_free(&c->mappings);
	symbol_table_free(&c->symbols);
	buildid_table_free(&c->buildids);
	free(c->memo);
}

/* ---- mappings and symbols ---- */

/* The end of a named frame's symbol: at least one byte (perf maps may give size 0). */
static uint64_t sym_end(const struct frame *f)
{
	return f->sym_end > f->sym_start ? f->sym_end : f->sym_start + 1;
}

/* A kernel map's name as perf names its frames: [kernel.kallsyms], or [module]. */
static void kernel_map_name(const char *filename, char *out, size_t size)
{
	if (str_startswith(filename, "[kernel.kallsyms]") || filename[0] != '/') {
		snprintf(out, size, "%s",
			 filename[0] == '[' && !str_startswith(filename, "[kernel.kallsyms]")
			     ? filename
			     : "[kernel.kallsyms]");
		return;
	}
	const char *base = strrchr(filename, '/') + 1;
	size_t n = strcspn(base, ".");
	if (n + 3 > size)
		n = size - 3;
	out[0] = '[';
	for (size_t i = 0; i < n; i++)
		out[1 + i] = base[i] == '-' ? '_' : base[i];
	out[1 + n] = ']';
	out[2 + n] = '\0';
}

/* ProcessMappingMetadata for an ELF file, once per build-id; its id, 0 for none. */
static int mapping_metadata(struct unified_code *c, const struct map *map, uint64_t thread,
			    uint32_t cpu, uint64_t t, uint64_t *id)
{
	struct map_elf elf;
	*id = 0;
	if (!symbolizer_map_elf(c->f->sym, map, &elf) || !elf.build_id_size)
		return 0;
	struct buildid_key key;
	memset(&key, 0, sizeof(key));
	memcpy(key.id, elf.build_id, elf.build_id_size);
	key.size = elf.build_id_size;
	key.vaddr = elf.p_vaddr;
	key.offset = elf.p_offset;
	bool found;
	struct buildid *b =
	    buildid_table_insert(&c->buildids, &key, hash_bytes(&key, sizeof(key)), &found);
	if (found) {
		*id = b->id;
		return 0;
	}
	b->key = key;
	b->id = c->next_metadata++;
	char hex[2 * sizeof(elf.build_id) + 1];
	hex_encode(elf.build_id, elf.build_id_size, hex);
	char json[256];
	if (elf.has_exec_load)
		snprintf(json, sizeof(json),
			 "{\"type\":\"ELF\",\"build_id\":\"%s\",\"p_vaddr\":\"0x%llx\","
			 "\"p_offset\":\"0x%llx\"}",
			 hex, (unsigned long long)elf.p_vaddr, (unsigned long long)elf.p_offset);
	else
		snprintf(json, sizeof(json), "{\"type\":\"ELF\",\"build_id\":\"%s\"}", hex);
	c->f->payload.len = 0;
	bytebuf_varuint(&c->f->payload, b->id);
	bytebuf_short_string(&c->f->payload, json);
	bytebuf_short_string(&c->f->payload, "{}");
	*id = b->id;
	return unified_put_event(c->f, c->f->system_md[PROCESS_MAPPING_METADATA], thread, cpu, 0,
				 t);
}

/* Whether the process (pid, gen) can still have frames: not one that ended (its ProcessExit
 * written, or all its threads gone as the symbolizer's machine tells: a process sampled after
 * its last EXIT record gets a thread row again and never a ProcessExit, and a long trace has
 * thousands of them) or whose pid a later process has. */
static bool process_current(struct unified_code *c, uint32_t pid, uint32_t gen)
{
	const struct process *p = unified_process(c->f, pid);
	return p->gen == gen && !p->exit_written &&
	       !machine_process_ended(symbolizer_machine(c->f->sym), pid);
}

static bool mapping_current(void *arg, struct mapping *m)
{
	return process_current(arg, m->key.pid, m->key.gen);
}

static bool symbol_current(void *arg, struct symbol *s)
{
	return process_current(arg, s->pid, s->gen);
}

/* The id of the mapping [start, end) of process pid named name, written when new. */
static int mapping(struct unified_code *c, uint32_t pid, uint64_t start, uint64_t end,
		   uint64_t pgoff, const char *name, const struct map *elf_map, uint64_t thread,
		   uint32_t cpu, uint64_t t, uint64_t *id)
{
	struct mapping_key key = {.pid = pid,
				  .gen = unified_process(c->f, pid)->gen,
				  .start = start,
				  .end = end,
				  .pgoff = pgoff,
				  .name_hash = hash_str(name)};
	uint64_t h = hash_bytes(&key, sizeof(key));
	const struct mapping *m = mapping_table_find(&c->mappings, &key, h);
	if (m) {
		*id = m->id;
		return 0;
	}
	uint64_t md = 0;
	if (elf_map && mapping_metadata(c, elf_map, thread, cpu, t, &md) < 0)
		return -1;
	mapping_table_prune(&c->mappings, mapping_current, c);
	bool found;
	struct mapping *added = mapping_table_insert(&c->mappings, &key, h, &found);
	added->key = key;
	added->id = c->next_mapping++;
	m = added;
	c->f->st.mappings++;
	c->f->payload.len = 0;
	bytebuf_varuint(&c->f->payload, m->id);
	bytebuf_varuint(&c->f->payload, start);
	bytebuf_varuint(&c->f->payload, end);
	bytebuf_varuint(&c->f->payload, pgoff);
	bytebuf_short_string(&c->f->payload, name);
	bytebuf_varuint(&c->f->payload, md);
	*id = m->id;
	return unified_put_event(c->f, c->f->system_md[PROCESS_MAPPING], thread, cpu, 0, t);
}

/* The mapping of a user frame with a map, as frame_mapping() keys it: for consecutive frames
 * of one stack in the same mapping (deep JIT recursion), which then skip the lookup. */
struct last_mapping {
	uint64_t start, end, pgoff, id;
	const char *name;
};

static const char *user_mapping_name(const struct frame *f)
{
	return f->jit_map ? f->jit_map : f->map->filename;
}

static bool in_last_mapping(const struct last_mapping *l, const struct frame *f)
{
	return l->id && l->start == f->map->start && l->end == f->map->end &&
	       l->pgoff == f->map->pgoff && l->name == user_mapping_name(f);
}

/* The mapping a frame's symbol belongs to (0: none), written when new. */
static int frame_mapping(struct unified_code *c, uint32_t pid, const struct frame *f,
			 uint64_t thread, uint32_t cpu, uint64_t t, uint64_t *id)
{
	bool named = f->kind != FRAME_UNKNOWN;
	*id = 0;
	if (f->kernel) {
		char base[64] = "";
		if (f->map)
			kernel_map_name(f->map->filename, base, sizeof(base));
		if (f->map && (!named || !strcmp(base, f->dso)))
			return mapping(c, pid, f->map->start, f->map->end, 0, base, NULL, thread,
				       cpu, t, id);
		/* a kernel symbol outside the recorded kernel maps (BPF, init code) */
		if (named)
			return mapping(c, pid, f->sym_start, sym_end(f), 0, f->dso, NULL, thread,
				       cpu, t, id);
		return 0;
	}
	if (!f->map)
		return 0;
	/* A mapping is named one way whatever its frames' dso in perf.data.txt: JIT code in a
	 * double mapping by the mapping (TraceLog names such code's module from the method's
	 * name), anonymous JIT code by the perf map that names it, as perf does, and a file by
	 * itself (ReadyToRun code in CoreLib is CoreLib's). */
	const char *name = user_mapping_name(f);
	return mapping(c, pid, f->map->start, f->map->end, f->map->pgoff, name, f->map, thread, cpu,
		       t, id);
}

static int frame_symbol(struct unified_code *c, uint32_t pid, uint64_t mapping_id,
			const struct frame *f, uint64_t thread, uint32_t cpu, uint64_t t)
{
	struct symbol_key key = {.mapping = mapping_id, .start = f->sym_start, .end = sym_end(f)};
	uint64_t h = hash_bytes(&key, sizeof(key));
	struct symbol *s = symbol_table_find(&c->symbols, &key, h);
	if (s && s->name == f->sym)
		return 0;
	uint64_t name_hash = hash_str(f->sym);
	if (s && s->name_hash == name_hash) {
		s->name = f->sym;
		return 0;
	}
	if (!s) {
		symbol_table_prune(&c->symbols, symbol_current, c);
		bool found;
		s = symbol_table_insert(&c->symbols, &key, h, &found);
		s->key = key;
		s->pid = pid;
		s->gen = unified_process(c->f, pid)->gen;
	}
	s->name_hash = name_hash; /* re-JIT'd code at the same place: the new name */
	s->name = f->sym;
	c->f->st.symbols++;
	c->f->payload.len = 0;
	bytebuf_varuint(&c->f->payload, c->next_symbol++);
	bytebuf_varuint(&c->f->payload, mapping_id);
	bytebuf_varuint(&c->f->payload, f->sym_start);
	bytebuf_varuint(&c->f->payload, key.end - 1); /* inclusive */
	bytebuf_short_string(&c->f->payload, f->sym);
	return unified_put_event(c->f, c->f->system_md[PROCESS_SYMBOL], thread, cpu, 0, t);
}

/* Writes the mappings and symbols of frames not written yet, and the stack; its id. */
int unified_stack(struct unified_code *c, uint32_t pid, const struct frame *frames, size_t n,
		  uint64_t thread, uint32_t cpu, uint64_t t, uint32_t *id)
{
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	const struct process *p = unified_process(c->f, pid);
	uint32_t gen = p->gen;
	/* The memo skips frames whose mapping and symbol the tables hold.  Those of a process
	 * that ended may be pruned from the tables, so its late frames are always looked at:
	 * then what the memo skips would write nothing, whichever frames share its slots.
	 * (One the machine calls ended, pruned too, has no late frames: not asked here, per
	 * sample.) */
	bool current = !p->exit_written;
	/* (only while current: a table insert prunes the mappings of ended processes) */
	struct last_mapping last = {0};
	for (size_t i = 0; i < n; i++) {
		const struct frame *f = &frames[i];
		c->ips[i] = f->addr;
		/* JIT names depend on time: those frames are always looked at */
		struct frame_memo *memo = &c->memo[hash_two(pid, f->addr) & (MEMO_SIZE - 1)];
		bool memoable = current && f->kind != FRAME_JIT && f->map;
		if (memoable && memo->addr == f->addr && memo->pid == pid && memo->gen == gen &&
		    memo->map == f->map && memo->map_start == f->map->start &&
		    memo->map_end == f->map->end && memo->sym == f->sym &&
		    memo->sym_start == f->sym_start && memo->sym_end == f->sym_end)
			continue;
		uint64_t m;
		bool user = current && !f->kernel && f->map;
		if (user && in_last_mapping(&last, f)) {
			m = last.id;
		} else {
			if (frame_mapping(c, pid, f, thread, cpu, t, &m) < 0)
				return -1;
			if (user)
				last = (struct last_mapping){.start = f->map->start,
							     .end = f->map->end,
							     .pgoff = f->map->pgoff,
							     .id = m,
							     .name = user_mapping_name(f)};
		}
		if (m && f->kind != FRAME_UNKNOWN && frame_symbol(c, pid, m, f, thread, cpu, t) < 0)
			return -1;
		if (memoable && m)
			*memo = (struct frame_memo){.addr = f->addr,
						    .sym_start = f->sym_start,
						    .sym_end = f->sym_end,
						    .map_start = f->map->start,
						    .map_end = f->map->end,
						    .map = f->map,
						    .sym = f->sym,
						    .pid = pid,
						    .gen = gen};
	}
	*id = n ? nettrace_writer_stack(c->f->w, c->ips, n) : 0;
	return 0;
}
