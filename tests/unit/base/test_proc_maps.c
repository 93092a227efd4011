/* proc_maps: the maps of this very process (a mapping of its own code, of a file with
 * spaces in its name at an offset, of anonymous memory, [vdso], a deleted file), every line
 * of a real maps file parsed, crafted lines good and bad, a process that is gone, and
 * proc_map_open() opening the very inode a mapping maps. */
#include "base/proc_maps.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* The mapping of ours that holds addr (copied, path included). */
static bool find_own(const void *addr, struct proc_map *out, char *path, size_t len)
{
	struct proc_maps *m = proc_maps_open(0);
	bool found = false;
	for (struct proc_map map; !found && m && proc_maps_next(m, &map);) {
		if ((uintptr_t)addr < map.start || (uintptr_t)addr >= map.end)
			continue;
		*out = map;
		snprintf(path, len, "%s", map.path);
		out->path = path;
		found = true;
	}
	proc_maps_close(m);
	return found;
}

static void test_own_maps(void)
{
	/* Every line of the real file is a mapping (one snapshot of it: mappings come and go
	 * with our own allocations, a sanitizer's above all). */
	char *text = read_file("/proc/self/maps", NULL);
	size_t lines = 0, parsed = 0;
	char *save = NULL;
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		struct proc_map map;
		lines++;
		parsed += proc_maps_parse_line(l, &map) == 0;
	}
	free(text);
	CHECK(lines > 5 && parsed == lines);
	/* The iterator: in address order, whole fields. */
	struct proc_maps *m = proc_maps_open(getpid());
	CHECK(m != NULL);
	size_t n = 0;
	uint64_t last_end = 0;
	bool vdso = false, stack = false;
	for (struct proc_map map; m && proc_maps_next(m, &map); n++) {
		CHECK(map.start >= last_end && map.end > map.start);
		CHECK(strlen(map.perms) == 4 && strchr("sp", map.perms[3]));
		CHECK(!strchr(map.path, '\n'));
		last_end = map.end;
		vdso |= !strcmp(map.path, "[vdso]");
		stack |= !strcmp(map.path, "[stack]");
	}
	proc_maps_close(m);
	CHECK(n > 5 && vdso && stack);

	/* Our code: executable, private, the file /proc/self/exe names. */
	struct proc_map map;
	char path[4096], exe[4096] = {0};
	CHECK(find_own((const void *)test_own_maps, &map, path, sizeof(path)));
	CHECK(map.perms[0] == 'r' && map.perms[2] == 'x' && map.perms[3] == 'p');
	CHECK(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0);
	CHECK_STR(path, exe);
	/* ... opened as the very file (an overlay's stat may show other numbers than maps:
	 * the inode is checked on /tmp's file below) */
	int fd = proc_map_open(getpid(), &map, geteuid(), UINT64_MAX);
	struct stat st, fst;
	CHECK(fd >= 0 && fstat(fd, &fst) == 0 && stat(exe, &st) == 0 && fst.st_size == st.st_size);
	if (fd >= 0)
		close(fd);
	/* ... unless it is larger than the caller takes */
	CHECK(proc_map_open(getpid(), &map, geteuid(), 16) < 0);

	/* Anonymous memory: no path, its protection as mapped. */
	long page = sysconf(_SC_PAGESIZE);
	char *anon = mmap(NULL, 3 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	CHECK(find_own(anon + page, &map, path, sizeof(path)));
	CHECK(map.start <= (uintptr_t)anon && map.end >= (uintptr_t)anon + 3 * page);
	CHECK_STR(map.perms, "r--p");
	CHECK_STR(map.path, "");
	CHECK(map.inode == 0 && map.offset == 0);
	CHECK(proc_map_open(getpid(), &map, geteuid(), UINT64_MAX) < 0);
	munmap(anon, 3 * page);
}

/* A shared mapping of a file whose name has spaces and parentheses, at an offset; then the
 * same file deleted: still opened as the mapped inode where map_files may be read. */
static void test_file_mapping(void)
{
	char dir[] = "/tmp/pc-maps-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *name = xasprintf("%s/a file (x) y.bin", dir);
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(name, O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4 * page) == 0);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * page);
	CHECK(p != MAP_FAILED);
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	close(fd);
	struct proc_map map;
	char path[4096];
	CHECK(find_own(p, &map, path, sizeof(path)));
	CHECK_STR(map.path, name);
	CHECK_STR(map.perms, "rw-s");
	CHECK(map.offset == (uint64_t)(2 * page) && map.inode == st.st_ino);
	CHECK(map.dev_major == major(st.st_dev) && map.dev_minor == minor(st.st_dev));
	CHECK(map.start == (uintptr_t)p && map.end == (uintptr_t)p + 2 * page);
	fd = proc_map_open(getpid(), &map, geteuid(), UINT64_MAX);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	CHECK(unlink(name) == 0);
	CHECK(find_own(p, &map, path, sizeof(path)));
	char *deleted = xasprintf("%s (deleted)", name);
	CHECK_STR(map.path, deleted);
	fd = proc_map_open(getpid(), &map, geteuid(), UINT64_MAX);
	if (geteuid() == 0) { /* map_files: CAP_SYS_ADMIN */
		struct stat now;
		CHECK(fd >= 0 && fstat(fd, &now) == 0 && now.st_ino == st.st_ino);
	} else {
		CHECK(fd < 0 && errno == ENOENT); /* no other name to open it by */
	}
	if (fd >= 0)
		close(fd);
	munmap(p, 2 * page);
	free(deleted);
	free(name);
	rm_rf(dir);
}

static void test_crafted_lines(void)
{
	struct proc_map m;
	char l1[] = "7f1c2a000000-7f1c2a021000 r-xp 00001000 fd:01 1835107                    "
		    "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	CHECK(proc_maps_parse_line(l1, &m) == 0);
	CHECK(m.start == 0x7f1c2a000000ull && m.end == 0x7f1c2a021000ull);
	CHECK(m.offset == 0x1000 && m.dev_major == 0xfd && m.dev_minor == 1);
	CHECK(m.inode == 1835107);
	CHECK_STR(m.perms, "r-xp");
	CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	/* anonymous: nothing after the inode (with or without the newline) */
	char l2[] = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0\n";
	CHECK(proc_maps_parse_line(l2, &m) == 0 && !strcmp(m.path, "") && m.inode == 0);
	char l3[] = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0";
	CHECK(proc_maps_parse_line(l3, &m) == 0 && !strcmp(m.path, ""));
	/* the path runs to the end of the line, spaces included */
	char l4[] = "1000-2000 rwxs 0 08:1f 12   /memfd:doublemapper (deleted)\n";
	CHECK(proc_maps_parse_line(l4, &m) == 0);
	CHECK_STR(m.path, "/memfd:doublemapper (deleted)");
	CHECK(m.dev_major == 8 && m.dev_minor == 0x1f);
	char l5[] = "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  "
		    "[vsyscall]";
	CHECK(proc_maps_parse_line(l5, &m) == 0 && !strcmp(m.path, "[vsyscall]"));
	CHECK(m.end == 0xffffffffff601000ull);

	/* not mappings */
	const char *bad[] = {
	    "",
	    "\n",
	    "garbage",
	    "1000-2000",
	    "1000-2000 r-xp",
	    "1000-2000 r-xp 0 08:01",
	    "1000-2000 r-xp 0 08:01 x /a",
	    "2000-1000 r-xp 0 08:01 1 /a",		    /* end before start */
	    "1000-1000 r-xp 0 08:01 1 /a",		    /* empty */
	    "1000-2000 r-x 0 08:01 1 /a",		    /* three perms */
	    "1000 2000 r-xp 0 08:01 1 /a",		    /* no dash */
	    "-2000 r-xp 0 08:01 1 /a",			    /* no start */
	    "1000-2000 r-xp 0 0801 1 /a",		    /* no colon */
	    "10000000000000000-2000 r-xp 0 8:1 1 /a",	    /* 17 hex digits */
	    "1000-2000 r-xp 0 8:1 99999999999999999999 /a", /* inode past 64 bits */
	    "1000-2000 r-xp 0 100000000:1 1 /a",	    /* major past 32 bits */
	    "1000-2000 r-xp 0 8:1 12x /a",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *l = xstrdup(bad[i]);
		if (proc_maps_parse_line(l, &m) == 0) {
			fprintf(stderr, "  parsed: \"%s\"\n", bad[i]);
			test_failures++;
		}
		free(l);
	}
}

static void test_gone(void)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CHECK(proc_maps_open(child) == NULL && errno == ENOENT);
	CHECK(strstr(pc_strerror(), "maps") != NULL);
	proc_maps_close(NULL);
}

int main(void)
{
	test_crafted_lines();
	test_own_maps();
	test_file_mapping();
	test_gone();
	return TEST_DONE();
}
