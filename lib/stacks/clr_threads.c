/* clr_threads: see clr_threads.h. */
#include "clr_threads.h"

#include "base/proc.h"
#include "base/proc_maps.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define DESCRIPTOR_SYMBOL "DotNetRuntimeContractDescriptor"
#define DESCRIPTOR_MAGIC  0x0043414443434e44ull /* "DNCCDAC\0" read little-endian */
#define MAX_JSON	  (4u << 20)
#define MAX_THREADS	  100000
#define CORECLR_FILE_MAX  (1ull << 30) /* libcoreclr.so is some 7 MB */

/* The number after `key` in [p, end): N or [N, ...]; -1 if none. */
static long number_after(const char *p, const char *end, const char *key)
{
	size_t klen = strlen(key);
	for (const char *q = p; q && q + klen < end; q++) {
		q = memmem(q, end - q, key, klen);
		if (!q)
			break;
		const char *v = q + klen;
		while (v < end && (*v == '[' || *v == ' '))
			v++;
		char *num_end;
		long n = strtol(v, &num_end, 0);
		if (num_end != v)
			return n;
	}
	return -1;
}

long clr_descriptor_field(const char *json, const char *type, const char *field)
{
	const char *types = strstr(json, "\"types\":{");
	if (!types)
		return -1;
	char key[128];
	snprintf(key, sizeof(key), "\"%s\":{", type);
	const char *t = strstr(types, key);
	const char *close = t ? strchr(t + strlen(key), '}') : NULL;
	if (!close)
		return -1;
	snprintf(key, sizeof(key), "\"%s\":", field);
	return number_after(t, close, key);
}

long clr_descriptor_global(const char *json, const char *name)
{
	const char *globals = strstr(json, "\"globals\":{");
	if (!globals)
		return -1;
	char key[128];
	snprintf(key, sizeof(key), "\"%s\":[[", name);
	const char *g = strstr(globals, key);
	if (!g)
		return -1;
	char *end;
	long n = strtol(g + strlen(key), &end, 10);
	return end != g + strlen(key) && *end == ']' ? n : -1;
}

static bool read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)addr, len};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static uint64_t read_u64(pid_t pid, uint64_t addr, bool *ok)
{
	uint64_t v = 0;
	*ok = *ok && read_mem(pid, addr, &v, 8);
	return v;
}

/* libcoreclr.so's load address (its mapping at file offset 0) and an fd of the very file,
 * opened as stacks opens every mapped library (proc_map_open()). */
static int find_coreclr(pid_t pid, uint64_t *base)
{
	struct proc_status st;
	struct proc_maps *m = proc_status(pid, &st) == 0 ? proc_maps_open(pid) : NULL;
	int fd = -1;
	for (struct proc_map map; fd < 0 && m && proc_maps_next(m, &map);) {
		if (map.offset != 0 || !str_endswith(map.path, "/libcoreclr.so"))
			continue;
		fd = proc_map_open(pid, &map, st.uid, CORECLR_FILE_MAX);
		*base = map.start;
	}
	proc_maps_close(m);
	return fd;
}

/* The descriptor's address in the target: its .dynsym value, relocated. */
static uint64_t descriptor_address(int fd, uint64_t base)
{
	elf_version(EV_CURRENT);
	/* read, not mapped: the target may truncate its file while we look */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t addr = 0, first_load = UINT64_MAX;
	size_t nph = 0;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < first_load)
			first_load = ph.p_vaddr & ~0xfffull;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) && !addr;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name = gelf_getsym(data, (int)i, &sym)
					       ? elf_strptr(elf, sh.sh_link, sym.st_name)
					       : NULL;
			if (name && !strcmp(name, DESCRIPTOR_SYMBOL) && sym.st_value) {
				addr = base + sym.st_value -
				       (first_load == UINT64_MAX ? 0 : first_load);
				break;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	return addr;
}

size_t clr_threads_read(pid_t pid, struct clr_thread_id **out, char **why)
{
	*out = NULL;
	*why = NULL;
	uint64_t base = 0;
	int fd = find_coreclr(pid, &base);
	if (fd < 0) {
		*why = xstrdup("libcoreclr.so is not mapped (or cannot be opened)");
		return 0;
	}
	uint64_t desc = descriptor_address(fd, base);
	close(fd);
	if (!desc) {
		*why = xstrdup("its runtime has no contract descriptor (.NET 8 or older)");
		return 0;
	}
	/* u64 magic, u32 flags, u32 descriptor size, char *descriptor, u32 pointer count, u32
	 * pad, void **pointers */
	unsigned char hdr[40];
	uint64_t magic, json_at, ptrs_at;
	uint32_t flags, json_len, nptrs;
	if (!read_mem(pid, desc, hdr, sizeof(hdr))) {
		*why = xstrdup("its contract descriptor cannot be read");
		return 0;
	}
	memcpy(&magic, hdr, 8);
	memcpy(&flags, hdr + 8, 4);
	memcpy(&json_len, hdr + 12, 4);
	memcpy(&json_at, hdr + 16, 8);
	memcpy(&nptrs, hdr + 24, 4);
	memcpy(&ptrs_at, hdr + 32, 8);
	if (magic != DESCRIPTOR_MAGIC || !(flags & 1) || (flags & 2) || !json_len ||
	    json_len > MAX_JSON) {
		*why = xstrdup("its contract descriptor is not one this reader knows");
		return 0;
	}
	char *json = xmalloc(json_len + 1);
	size_t n = 0, cap = 0;
	if (!read_mem(pid, json_at, json, json_len)) {
		*why = xstrdup("its contract descriptor's text cannot be read");
		goto out;
	}
	json[json_len] = 0;
	long id = clr_descriptor_field(json, "Thread", "Id");
	long osid = clr_descriptor_field(json, "Thread", "OSId");
	long next = clr_descriptor_field(json, "Thread", "LinkNext");
	long first = clr_descriptor_field(json, "ThreadStore", "FirstThreadLink");
	long store = clr_descriptor_global(json, "ThreadStore");
	if (id < 0 || osid < 0 || next < 0 || first < 0 || store < 0 || (uint32_t)store >= nptrs) {
		*why = xstrdup("its contract descriptor does not describe the thread list");
		goto out;
	}
	bool ok = true;
	uint64_t store_var = read_u64(pid, ptrs_at + 8 * (uint64_t)store, &ok);
	uint64_t ts = read_u64(pid, store_var, &ok);
	uint64_t link = ok ? read_u64(pid, ts + (uint64_t)first, &ok) : 0;
	while (ok && link && n < MAX_THREADS) {
		uint64_t thread = link - (uint64_t)next;
		uint32_t managed = 0;
		uint64_t os = read_u64(pid, thread + (uint64_t)osid, &ok);
		ok = ok && read_mem(pid, thread + (uint64_t)id, &managed, 4);
		if (!ok)
			break;
		grow_array((void **)out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct clr_thread_id){managed, (pid_t)os};
		link = read_u64(pid, thread + (uint64_t)next, &ok);
	}
	if (!ok && !n)
		*why = xstrdup("its thread list cannot be read");
out:
	free(json);
	return n;
}
