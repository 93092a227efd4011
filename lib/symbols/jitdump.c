/* jitdump: see jitdump.h.
 *
 * The file is read into memory once; names are copied into one arena so the code bytes
 * (most of a jitdump) are not kept.  Loads are indexed by start address with a running
 * maximum of their ends, so a lookup walks back only over loads that can still cover.
 */
#include "jitdump.h"
#include "base/span.h"
#include "base/hash.h"
#include "base/search.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JITDUMP_MAGIC		     0x4A695444u
#define JITDUMP_MAGIC_SWAPPED	     0x4454694Au
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1ull

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1 };

#define FILE_HEADER_SIZE   40
#define RECORD_HEADER_SIZE 16
#define CODE_LOAD_FIXED	   40 /* pid, tid, vma, code_addr, code_size, code_index */
#define CODE_MOVE_FIXED	   48 /* pid, tid, vma, old_code_addr, new_code_addr, code_size, index */

/* The latest load of each (code index, address): where a move finds the code it moves. */
struct code_at {
	uint64_t index, addr;
	size_t load_plus1; /* 0: an empty slot */
};
#define HTAB_NAME	    code_table
#define HTAB_ENTRY	    struct code_at
#define HTAB_KEY	    struct code_at
#define HTAB_EMPTY(e)	    (!(e)->load_plus1)
#define HTAB_HASH(t, e)	    hash_two((e)->index, (e)->addr)
#define HTAB_MATCH(t, e, k) ((e)->index == (k).index && (e)->addr == (k).addr)
#define HTAB_MIN	    1024
#include "base/htab.h"

struct jitdump {
	struct jitdump_load *loads; /* file order */
	size_t nloads, loads_cap;
	uint32_t *by_addr; /* indexes sorted by addr */
	uint64_t *max_end; /* max end over by_addr[0..i] */
	char *names;
	size_t names_len, names_cap;
	uint32_t pid;
	bool truncated, arch_time;
	size_t bad;
	struct code_table latest; /* while parsing */
};

static size_t add_name(struct jitdump *j, const char *s, size_t len)
{
	grow_array((void **)&j->names, &j->names_cap, j->names_len + len + 1, 1);
	size_t off = j->names_len;
	memcpy(j->names + off, s, len);
	j->names[off + len] = 0;
	j->names_len += len + 1;
	return off;
}

/* A new load of code index at addr: the latest there from now on. */
static struct jitdump_load *new_load(struct jitdump *j, uint64_t index, uint64_t addr)
{
	grow_array((void **)&j->loads, &j->loads_cap, j->nloads + 1, sizeof(*j->loads));
	struct jitdump_load *l = &j->loads[j->nloads++];
	memset(l, 0, sizeof(*l));
	l->code_index = index;
	l->addr = addr;
	struct code_at key = {index, addr, 0};
	bool found;
	struct code_at *e = code_table_insert(&j->latest, key, hash_two(index, addr), &found);
	*e = key;
	e->load_plus1 = j->nloads;
	return l;
}

static void parse_code_load(struct jitdump *j, const uint8_t *rec, uint32_t size, uint64_t time)
{
	if (size < RECORD_HEADER_SIZE + CODE_LOAD_FIXED + 1) {
		j->bad++;
		return;
	}
	const uint8_t *p = rec + RECORD_HEADER_SIZE;
	const char *name = (const char *)p + CODE_LOAD_FIXED;
	size_t room = size - RECORD_HEADER_SIZE - CODE_LOAD_FIXED;
	const char *nul = memchr(name, 0, room);
	uint64_t addr = load_le64(p + 16), len = load_le64(p + 24);
	if (!nul || addr + len < addr) {
		j->bad++;
		return;
	}
	size_t off = add_name(j, name, nul - name);
	struct jitdump_load *l = new_load(j, load_le64(p + 32), addr);
	l->time = time;
	l->pid = load_le32(p);
	l->tid = load_le32(p + 4);
	l->size = len;
	l->name = (const char *)(uintptr_t)off; /* an offset until loading is done */
}

/* A move keeps the name of the code it moves: the latest load of its code index at its old
 * address (a hash lookup: a runtime that moves much code writes a million of them). */
static void parse_code_move(struct jitdump *j, const uint8_t *rec, uint32_t size, uint64_t time)
{
	if (size < RECORD_HEADER_SIZE + CODE_MOVE_FIXED) {
		j->bad++;
		return;
	}
	const uint8_t *p = rec + RECORD_HEADER_SIZE;
	uint64_t old_addr = load_le64(p + 16), new_addr = load_le64(p + 24),
		 len = load_le64(p + 32);
	uint64_t index = load_le64(p + 40);
	struct code_at key = {index, old_addr, 0};
	const struct code_at *at = code_table_find(&j->latest, key, hash_two(index, old_addr));
	if (!at || new_addr + len < new_addr) {
		j->bad++;
		return;
	}
	uintptr_t name = (uintptr_t)j->loads[at->load_plus1 - 1].name;
	struct jitdump_load *l = new_load(j, index, new_addr);
	l->time = time;
	l->pid = load_le32(p);
	l->tid = load_le32(p + 4);
	l->size = len;
	l->name = (const char *)name;
	l->moved = true;
}

static int cmp_by_addr(const void *a, const void *b, void *arg)
{
	const struct jitdump_load *loads = arg;
	const struct jitdump_load *x = &loads[*(const uint32_t *)a],
				  *y = &loads[*(const uint32_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void build_index(struct jitdump *j)
{
	for (size_t i = 0; i < j->nloads; i++)
		j->loads[i].name = j->names + (uintptr_t)j->loads[i].name;
	j->by_addr = xmalloc((j->nloads + 1) * sizeof(*j->by_addr));
	j->max_end = xmalloc((j->nloads + 1) * sizeof(*j->max_end));
	for (size_t i = 0; i < j->nloads; i++)
		j->by_addr[i] = (uint32_t)i;
	qsort_r(j->by_addr, j->nloads, sizeof(*j->by_addr), cmp_by_addr, j->loads);
	uint64_t m = 0;
	for (size_t i = 0; i < j->nloads; i++) {
		const struct jitdump_load *l = &j->loads[j->by_addr[i]];
		if (l->addr + l->size > m)
			m = l->addr + l->size;
		j->max_end[i] = m;
	}
}

static int parse(struct jitdump *j, const uint8_t *buf, size_t len)
{
	if (len < 8)
		return pc_err("jitdump: file too short for a header (%zu bytes)", len);
	uint32_t magic = load_le32(buf);
	if (magic == JITDUMP_MAGIC_SWAPPED)
		return pc_err("jitdump: written on a machine of the other byte order");
	if (magic != JITDUMP_MAGIC)
		return pc_err("jitdump: bad magic 0x%08x", magic);
	uint32_t version = load_le32(buf + 4);
	if (version != 1)
		return pc_err("jitdump: unsupported version %u", version);
	if (len < FILE_HEADER_SIZE)
		return pc_err("jitdump: file too short for a header (%zu bytes)", len);
	uint32_t hsize = load_le32(buf + 8);
	if (hsize < FILE_HEADER_SIZE || hsize > len)
		return pc_err("jitdump: bad header size %u", hsize);
	j->pid = load_le32(buf + 20);
	j->arch_time = load_le64(buf + 32) & JITDUMP_FLAGS_ARCH_TIMESTAMP;

	size_t off = hsize;
	while (off < len) {
		if (len - off < RECORD_HEADER_SIZE) {
			j->truncated = true;
			break;
		}
		const uint8_t *rec = buf + off;
		uint32_t id = load_le32(rec), size = load_le32(rec + 4);
		uint64_t time = load_le64(rec + 8);
		if (size < RECORD_HEADER_SIZE) {
			/* no way to find the next record */
			j->bad++;
			j->truncated = true;
			break;
		}
		if (size > len - off) {
			j->truncated = true;
			break;
		}
		if (id == JIT_CODE_LOAD)
			parse_code_load(j, rec, size, time);
		else if (id == JIT_CODE_MOVE)
			parse_code_move(j, rec, size, time);
		off += size;
	}
	return 0;
}

struct jitdump *jitdump_load_fd(int fd)
{
	/* Read, not mapped: the process writing it (or a container that planted it) may
	 * truncate it while we parse, which would SIGBUS a reader of a mapping.  Its size is
	 * capped where it is opened (symbols_jit.h). */
	size_t len = 0;
	uint8_t *buf = (uint8_t *)read_fd_seen(fd, &len);
	if (!buf)
		return NULL;
	struct jitdump *j = xcalloc(1, sizeof(*j));
	int r = parse(j, buf, len);
	free(buf);
	code_table_free(&j->latest);
	if (r < 0) {
		jitdump_free(j);
		return NULL;
	}
	build_index(j);
	return j;
}

struct jitdump *jitdump_load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", path);
		return NULL;
	}
	struct jitdump *j = jitdump_load_fd(fd);
	close(fd);
	return j;
}

void jitdump_free(struct jitdump *j)
{
	if (!j)
		return;
	free(j->loads);
	free(j->by_addr);
	free(j->max_end);
	free(j->names);
	free(j);
}

const struct jitdump_load *jitdump_lookup(const struct jitdump *j, uint64_t addr, uint64_t time)
{
	size_t lo = LOWER_BOUND(j->nloads, i, j->loads[j->by_addr[i]].addr <= addr);
	const struct jitdump_load *best = NULL;
	size_t best_idx = 0;
	for (size_t i = lo; i > 0 && j->max_end[i - 1] > addr; i--) {
		size_t idx = j->by_addr[i - 1];
		const struct jitdump_load *l = &j->loads[idx];
		if (addr >= l->addr + l->size)
			continue;
		if (!j->arch_time && l->time > time)
			continue;
		bool later =
		    !best || (j->arch_time ? idx > best_idx
					   : l->time > best->time ||
						 (l->time == best->time && idx > best_idx));
		if (later) {
			best = l;
			best_idx = idx;
		}
	}
	return best;
}

size_t jitdump_nr_loads(const struct jitdump *j)
{
	return j->nloads;
}

const struct jitdump_load *jitdump_load_at(const struct jitdump *j, size_t i)
{
	return i < j->nloads ? &j->loads[i] : NULL;
}

uint32_t jitdump_pid(const struct jitdump *j)
{
	return j->pid;
}

bool jitdump_truncated(const struct jitdump *j)
{
	return j->truncated;
}

bool jitdump_arch_timestamps(const struct jitdump *j)
{
	return j->arch_time;
}

size_t jitdump_bad_records(const struct jitdump *j)
{
	return j->bad;
}
