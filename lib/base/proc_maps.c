/* proc_maps: see proc_maps.h. */
#include "proc_maps.h"
#include "proc.h"
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct proc_maps {
	FILE *f;
	char *line;
	size_t cap;
};

struct proc_maps *proc_maps_open(pid_t pid)
{
	char path[64];
	proc_path(path, sizeof(path), pid, "maps");
	FILE *f = fopen(path, "re");
	if (!f) {
		pc_err_errno("cannot read %s", path);
		return NULL;
	}
	struct proc_maps *m = xcalloc(1, sizeof(*m));
	m->f = f;
	return m;
}

bool proc_maps_next(struct proc_maps *m, struct proc_map *map)
{
	while (getline(&m->line, &m->cap, m->f) > 0)
		if (proc_maps_parse_line(m->line, map) == 0)
			return true;
	return false;
}

void proc_maps_close(struct proc_maps *m)
{
	if (!m)
		return;
	fclose(m->f);
	free(m->line);
	free(m);
}

/* A hex number ending at the character end; *p moves past that. */
static bool hex_field(char **p, char end, uint64_t *v)
{
	const char *s = *p;
	if (!parse_hex_digits(&s, v) || *s != end)
		return false;
	*p = (char *)s + 1;
	return true;
}

static bool dec_field(char **p, uint64_t *v)
{
	char *s = *p;
	uint64_t n = 0;
	int digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	if (!digits || (*s != ' ' && *s != '\n' && *s != '\0'))
		return false;
	*v = n;
	*p = s;
	return true;
}

/* "start-end perms offset major:minor inode   path", as fs/proc/task_mmu.c prints it. */
int proc_maps_parse_line(char *line, struct proc_map *map)
{
	char *p = line;
	uint64_t maj, min;
	if (!hex_field(&p, '-', &map->start) || !hex_field(&p, ' ', &map->end) ||
	    map->end <= map->start)
		return -1;
	for (int i = 0; i < 4; i++, p++) {
		if (!*p || *p == ' ')
			return -1;
		map->perms[i] = *p;
	}
	map->perms[4] = 0;
	if (*p++ != ' ' || !hex_field(&p, ' ', &map->offset) || !hex_field(&p, ':', &maj) ||
	    !hex_field(&p, ' ', &min) || maj > UINT32_MAX || min > UINT32_MAX ||
	    !dec_field(&p, &map->inode))
		return -1;
	map->dev_major = (unsigned)maj;
	map->dev_minor = (unsigned)min;
	p += strspn(p, " ");
	p[strcspn(p, "\n")] = 0;
	map->path = p;
	return 0;
}

int proc_map_open(pid_t pid, const struct proc_map *map, uid_t owner_uid, uint64_t max_size)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		 map->start, map->end);
	/* stat before open: a mapped device must not even be opened */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max_size) {
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct stat now;
		if (fd >= 0 && fstat(fd, &now) == 0 && S_ISREG(now.st_mode))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	/* A deleted or anonymous one has no other name to open it by. */
	if (map->path[0] != '/' || str_endswith(map->path, " (deleted)")) {
		errno = ENOENT;
		return pc_err("%s: no file to open (%s)", map->path[0] ? map->path : "[anon]",
			      path);
	}
	return safe_open_binary_in_root(pid, map->path, owner_uid, max_size);
}

bool proc_self_vdso(const void **image, size_t *size)
{
	struct proc_maps *m = proc_maps_open(0);
	bool found = false;
	for (struct proc_map map; !found && m && proc_maps_next(m, &map);) {
		if (strcmp(map.path, "[vdso]"))
			continue;
		*image = (const void *)(uintptr_t)map.start;
		*size = map.end - map.start;
		found = true;
	}
	proc_maps_close(m);
	return found;
}
