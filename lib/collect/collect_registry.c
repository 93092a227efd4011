/* collect_registry: see collect_registry.h.  A state file is a few "key value" lines:
 *
 *   pid 4242
 *   starttime 1234567
 *   boot_id 0b5e...
 *   exe 8,1:1311890         (major,minor:inode of the collector's executable)
 *   started 2026-01-01T10:00:00Z
 *   state recording
 *   status 0                (once finished)
 *   shown 312
 *   zip /home/me/x/bg.trace.zip
 *   trace_dir /home/me/x/bg.trace
 */
#include "collect_registry.h"
#include "base/outfile.h"
#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A state file is a dozen short lines; anything larger is not one. */
#define STATE_MAX (64 * 1024)
/* What a collector prints: its messages, never its samples. */
#define OUTPUT_MAX (16 * 1024 * 1024)

struct registry {
	int dirfd; /* -1: it does not exist yet (opened without create) */
	char *path;
};

const char *registry_path(const struct registry *r)
{
	return r->path;
}

void registry_free(struct registry *r)
{
	if (!r)
		return;
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->path);
	free(r);
}

/* The directory must be ours alone: a directory we own (not a symlink: O_NOFOLLOW) that no
 * one else may enter or write. */
static int check_dir(int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return pc_err_errno("cannot stat %s", path);
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return pc_err("%s belongs to uid %u with mode %04o; a registry of background "
			      "collections must be uid %u's alone (mode 0700): remove it",
			      path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			      (unsigned)geteuid());
	return 0;
}

struct registry *registry_open(bool create)
{
	char *parent, *leaf;
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (geteuid() == 0) {
		parent = xstrdup("/run");
		leaf = xstrdup("perfcollect-c");
	} else if (xdg && xdg[0] == '/') {
		parent = xstrdup(xdg);
		leaf = xstrdup("perfcollect-c");
	} else {
		parent = xstrdup("/tmp");
		leaf = xasprintf("perfcollect-c-%u", (unsigned)geteuid());
	}
	struct registry *r = xcalloc(1, sizeof(*r));
	r->dirfd = -1;
	r->path = xasprintf("%s/%s", parent, leaf);
	/* A root that holds nothing but the binary and /proc (a minimal container) has no /run. */
	if (create && geteuid() == 0 && mkdir(parent, 0755) < 0 && errno != EEXIST) {
		pc_err_errno("cannot create %s", parent);
		goto fail;
	}
	int pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		if (errno == ENOENT && !create)
			goto empty;
		pc_err_errno("cannot open %s", parent);
		goto fail;
	}
	if (create && mkdirat(pfd, leaf, 0700) < 0 && errno != EEXIST) {
		pc_err_errno("cannot create %s", r->path);
		close(pfd);
		goto fail;
	}
	r->dirfd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	close(pfd);
	if (r->dirfd < 0) {
		if (e == ENOENT && !create)
			goto empty;
		errno = e;
		if (e == ELOOP || e == ENOTDIR)
			pc_err("%s is a symlink or not a directory; it should be this user's "
			       "registry of background collections: remove it",
			       r->path);
		else
			pc_err_errno("cannot open %s", r->path);
		goto fail;
	}
	if (check_dir(r->dirfd, r->path) < 0)
		goto fail;
empty:
	free(parent);
	free(leaf);
	return r;
fail:
	free(parent);
	free(leaf);
	registry_free(r);
	return NULL;
}

int registry_check_name(const char *name)
{
	if (!*name)
		return pc_err("a background collection needs a name");
	if (strchr(name, '/') || strstr(name, ".."))
		return pc_err("'%s' is not a plain name: a background collection's name holds no "
			      "'/' and no '..' (use -o DIR for the directory)",
			      name);
	if (name[0] == '.')
		return pc_err("'%s': a background collection's name does not start with '.'", name);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return pc_err("a background collection's name holds no control "
				      "characters");
	if (strlen(name) > 200)
		return pc_err("a background collection's name is at most 200 bytes");
	return 0;
}

void registry_entry_release(struct registry_entry *e)
{
	free(e->zip);
	free(e->trace_dir);
	e->zip = e->trace_dir = NULL;
}

static char *file_of(const char *name, const char *suffix)
{
	return xasprintf("%s.%s", name, suffix);
}

/* Opens a file of the registry for reading: a regular file of ours (our euid), never through
 * a symlink, never blocking on a FIFO, at most max bytes; one_link: of one link (the output,
 * which is shown: never another file of ours linked in its place; not the state, which
 * start's claim links into place, two links for a moment). */
static int open_ours(struct registry *r, const char *file, off_t max, bool one_link)
{
	if (r->dirfd < 0) {
		errno = ENOENT;
		return -1;
	}
	int fd = openat(r->dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			pc_err("%s/%s is a symlink: refused (remove it)", r->path, file);
		else if (errno != ENOENT)
			pc_err_errno("cannot open %s/%s", r->path, file);
		return -1;
	}
	struct stat st;
	int why = 0;
	if (fstat(fd, &st) < 0) {
		why = errno;
		pc_err_errno("cannot stat %s/%s", r->path, file);
	} else if (!S_ISREG(st.st_mode)) {
		why = EINVAL;
		pc_err("%s/%s is not a regular file: refused (remove it)", r->path, file);
	} else if (st.st_uid != geteuid()) {
		why = EPERM;
		pc_err("%s/%s is owned by uid %u, not by us (uid %u): refused (remove it)", r->path,
		       file, (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (one_link && st.st_nlink != 1) {
		why = EMLINK;
		pc_err("%s/%s has %lu hard links: refused (remove it)", r->path, file,
		       (unsigned long)st.st_nlink);
	} else if (st.st_size > max) {
		why = EFBIG;
		pc_err("%s/%s is %lld bytes, more than the %lld expected: refused (remove it)",
		       r->path, file, (long long)st.st_size, (long long)max);
	}
	if (why) {
		close(fd);
		errno = why;
		return -1;
	}
	return fd;
}

int registry_read(struct registry *r, const char *name, struct registry_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->status = -1;
	char *file = file_of(name, "state");
	int fd = open_ours(r, file, STATE_MAX, false);
	if (fd < 0) {
		int rc = errno == ENOENT ? 0 : -1;
		free(file);
		return rc;
	}
	size_t len;
	char *s = read_fd_max(fd, STATE_MAX, &len);
	close(fd);
	if (!s) {
		pc_err_errno("cannot read %s/%s", r->path, file);
		free(file);
		return -1;
	}
	for (char *line = s, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		unsigned ma, mi;
		unsigned long long ino;
		if (!strcmp(line, "pid"))
			e->pid = strtol(val, NULL, 10);
		else if (!strcmp(line, "starttime"))
			e->starttime = strtoull(val, NULL, 10);
		else if (!strcmp(line, "boot_id"))
			snprintf(e->boot_id, sizeof(e->boot_id), "%s", val);
		else if (!strcmp(line, "exe") && sscanf(val, "%u,%u:%llu", &ma, &mi, &ino) == 3) {
			e->exe_dev = makedev(ma, mi);
			e->exe_ino = (ino_t)ino;
		} else if (!strcmp(line, "started"))
			snprintf(e->started, sizeof(e->started), "%s", val);
		else if (!strcmp(line, "state"))
			snprintf(e->state, sizeof(e->state), "%s", val);
		else if (!strcmp(line, "status"))
			e->status = atoi(val);
		else if (!strcmp(line, "shown"))
			e->shown = strtol(val, NULL, 10);
		else if (!strcmp(line, "zip") && !e->zip)
			e->zip = xstrdup(val);
		else if (!strcmp(line, "trace_dir") && !e->trace_dir)
			e->trace_dir = xstrdup(val);
	}
	free(s);
	if (e->pid <= 0 || !e->zip || !e->trace_dir) {
		registry_entry_release(e);
		pc_err("%s/%s is not a background collection's state (no pid, zip or trace "
		       "directory): remove it",
		       r->path, file);
		free(file);
		return -1;
	}
	free(file);
	return 1;
}

int registry_write(struct registry *r, const char *name, const struct registry_entry *e,
		   bool exclusive)
{
	char *text =
	    xasprintf("pid %ld\nstarttime %llu\nboot_id %s\nexe %u,%u:%llu\nstarted %s\nstate %s\n",
		      e->pid, (unsigned long long)e->starttime, e->boot_id, major(e->exe_dev),
		      minor(e->exe_dev), (unsigned long long)e->exe_ino, e->started, e->state);
	if (e->status >= 0) {
		char *more = xasprintf("%sstatus %d\n", text, e->status);
		free(text);
		text = more;
	}
	char *more =
	    xasprintf("%sshown %ld\nzip %s\ntrace_dir %s\n", text, e->shown, e->zip, e->trace_dir);
	free(text);
	text = more;
	/* Written whole under a temporary name beside it, then renamed (or, for start's
	 * claim on the name, linked: of two starts of one name, one wins). */
	char *path = xasprintf("%s/%s.state", r->path, name);
	int rc = -1, e_no = 0;
	/* ours, never the sudo user's: stop believes it (which pid to signal) */
	struct outfile *o = outfile_open_flags(path, OUTFILE_OURS);
	if (o && write_all(outfile_fd(o), text, strlen(text)) < 0) {
		pc_err_errno("cannot write %s", path);
		outfile_abort(o);
	} else if (o) {
		rc = exclusive ? outfile_commit_new(o) : outfile_commit(o);
		if (rc < 0 && (e_no = errno) == EEXIST)
			pc_err("'%s' is already a background collection (%s)", name, path);
	}
	free(path);
	free(text);
	if (e_no)
		errno = e_no;
	return rc;
}

void registry_remove(struct registry *r, const char *name)
{
	if (r->dirfd < 0)
		return;
	char *state = file_of(name, "state"), *out = file_of(name, "out");
	unlinkat(r->dirfd, state, 0);
	unlinkat(r->dirfd, out, 0);
	free(state);
	free(out);
}

int registry_create_output(struct registry *r, const char *name)
{
	/* The name is ours (its state was created exclusively): an older output goes. */
	char *path = xasprintf("%s/%s.out", r->path, name);
	int fd = outfile_create(path, OUTFILE_REPLACE | OUTFILE_APPEND | OUTFILE_OURS);
	free(path);
	return fd;
}

char *registry_read_output(struct registry *r, const char *name, long from, long to, size_t *len)
{
	char *file = file_of(name, "out");
	int fd = open_ours(r, file, OUTPUT_MAX, true);
	free(file);
	if (fd < 0)
		return NULL;
	size_t all;
	char *s = read_fd_max(fd, OUTPUT_MAX, &all);
	close(fd);
	if (!s)
		return NULL;
	size_t a = from > 0 && (size_t)from < all ? (size_t)from : from > 0 ? all : 0;
	size_t b = to >= 0 && (size_t)to < all ? (size_t)to : all;
	if (b < a)
		b = a;
	memmove(s, s + a, b - a);
	s[b - a] = '\0';
	*len = b - a;
	return s;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int registry_names(struct registry *r, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	if (r->dirfd < 0)
		return 0;
	int fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return pc_err_errno("cannot list %s", r->path);
	}
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || !str_endswith(de->d_name, ".state"))
			continue;
		grow_array((void **)names, &cap, *n + 1, sizeof(**names));
		(*names)[(*n)++] = xstrndup(de->d_name, len - strlen(".state"));
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return 0;
}

void registry_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void read_boot_id(char *buf, size_t len)
{
	char *s = sysctl_read("kernel.random.boot_id");
	snprintf(buf, len, "%s", s ? s : "unknown");
	free(s);
}

int registry_entry_self(struct registry_entry *e)
{
	e->pid = getpid();
	e->starttime = proc_start_time((pid_t)e->pid);
	read_boot_id(e->boot_id, sizeof(e->boot_id));
	struct stat st;
	if (stat("/proc/self/exe", &st) < 0)
		return pc_err_errno("cannot stat /proc/self/exe");
	e->exe_dev = st.st_dev;
	e->exe_ino = st.st_ino;
	return 0;
}

bool registry_entry_alive(const struct registry_entry *e)
{
	char boot[sizeof(e->boot_id)];
	read_boot_id(boot, sizeof(boot));
	if (strcmp(boot, e->boot_id) || !e->starttime ||
	    proc_start_time((pid_t)e->pid) != e->starttime)
		return false;
	/* A collector is a perfcollect-c: its executable is the one it recorded (a zombie or a
	 * process of another user has no readable exe). */
	char exe[64];
	snprintf(exe, sizeof(exe), "/proc/%ld/exe", e->pid);
	struct stat st;
	if (stat(exe, &st) < 0 || st.st_dev != e->exe_dev || st.st_ino != e->exe_ino)
		return false;
	/* and that executable is this program (or was, before an upgrade replaced it): a state
	 * naming a script's pid with its interpreter's identity names no collector */
	return proc_runs_our_program((pid_t)e->pid);
}
