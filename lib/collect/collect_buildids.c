/* collect_buildids: see collect_buildids.h. */
#include "collect_buildids.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/proc_maps.h"
#include "base/safe_open.h"
#include "perfdata/buildid.h"

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The largest mapped file whose build-id is read (its notes are near the start). */
#define BUILDID_FILE_MAX (4ull << 30)

/* Whether name was taken (or tried) already; else it is now, with the process whose root
 * it was read in. */
static bool seen_before(struct collect_buildids *b, const char *name, uint32_t pid)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->paths[i], name))
			return true;
	grow_array((void **)&b->paths, &b->paths_cap, b->n + 1, sizeof(*b->paths));
	grow_array((void **)&b->pids, &b->pids_cap, b->n + 1, sizeof(*b->pids));
	b->pids[b->n] = pid;
	b->paths[b->n++] = xstrdup(name);
	return false;
}

/* Reads a hit map's build-id: the kernel's from /sys/kernel/notes, a module's from
 * /sys/module, a file's through the process's root (its own mount namespace) while it
 * runs, else by its path on our side only when that is the very inode its MMAP2 record
 * named (a container's file is another, or a FIFO, or a device it named so). */
static int read_map_build_id(uint32_t pid, bool kernel, const struct map *map, uint8_t *id,
			     uint8_t *size)
{
	const char *name = map->filename;
	if (kernel) {
		if (str_startswith(name, "[kernel.kallsyms]"))
			return buildid_read_kernel(id, size);
		const char *base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (*base == '[')
			base++;
		char *mod = xstrndup(base, strcspn(base, ".]"));
		for (char *p = mod; *p; p++)
			if (*p == '-')
				*p = '_';
		char *path = xasprintf("/sys/module/%s/notes/.note.gnu.build-id", mod);
		int rc = buildid_read_notes_file(path, id, size);
		free(path);
		free(mod);
		return rc;
	}
	if (name[0] != '/' || str_endswith(name, " (deleted)") || str_startswith(name, "/memfd:"))
		return -1; /* [vdso], //anon, gone files: nothing to read */
	struct proc_status st;
	if (proc_status((pid_t)pid, &st) == 0) {
		/* the mapped inode itself where we may (map_files), else its path in its root */
		struct proc_map pm = {.start = map->start, .end = map->end, .path = name};
		int fd = proc_map_open((pid_t)pid, &pm, st.uid, BUILDID_FILE_MAX);
		if (fd < 0)
			return -1;
		int rc = buildid_read_fd(fd, id, size);
		close(fd);
		return rc;
	}
	if (!map->ino)
		return -1; /* an MMAP record without its inode: nothing to check a file against */
	int fd = safe_open_inode(name, makedev(map->maj, map->min), map->ino, BUILDID_FILE_MAX);
	if (fd < 0) {
		log_info("no build-id for %s of pid %u: %s", name, pid, pc_strerror());
		return -1;
	}
	int rc = buildid_read_fd(fd, id, size);
	close(fd);
	return rc;
}

void collect_buildids_add(void *arg, uint32_t pid, bool kernel, const struct map *map)
{
	struct collect_buildids *b = arg;
	const char *name = map->filename;
	if (!name)
		return;
	/* perf keeps one entry per DSO and names the kernel "[kernel.kallsyms]". */
	const char *entry =
	    kernel && str_startswith(name, "[kernel.kallsyms]") ? "[kernel.kallsyms]" : name;
	if (seen_before(b, entry, kernel ? 0 : pid))
		return;
	struct perfdata_build_id bid = {.pid = -1, .kernel = kernel, .filename = entry};
	if (map->build_id_size) {
		memcpy(bid.id, map->build_id, map->build_id_size);
		bid.size = map->build_id_size;
	} else if (read_map_build_id(pid, kernel, map, bid.id, &bid.size) < 0) {
		return;
	}
	if (b->async)
		perfdata_async_add_build_id(b->async, &bid);
	else if (b->w)
		perfdata_writer_add_build_id(b->w, &bid);
}

void collect_buildids_free(struct collect_buildids *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->paths[i]);
	free(b->paths);
	free(b->pids);
	memset(b, 0, sizeof(*b));
}
