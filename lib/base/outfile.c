/* outfile: see outfile.h. */
#include "outfile.h"
#include "tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTFILE_MODE 0600

static uid_t owner_uid = (uid_t)-1;
static gid_t owner_gid = (gid_t)-1;

void outfile_set_owner(uid_t uid, gid_t gid)
{
	owner_uid = uid;
	owner_gid = gid;
}

/* A decimal id (not -1, which fchown takes for "unchanged"). */
static bool parse_id(const char *s, unsigned long *id)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*id = strtoul(s, &end, 10);
	return !errno && !*end && *id < (unsigned long)(uid_t)-1;
}

long outfile_owner_from_sudo(void)
{
	unsigned long uid, gid;
	/* root who ran sudo (SUDO_UID 0) has nothing to be given */
	if (getuid() != 0 || !parse_id(getenv("SUDO_UID"), &uid) || !uid ||
	    !parse_id(getenv("SUDO_GID"), &gid))
		return -1;
	outfile_set_owner((uid_t)uid, (gid_t)gid);
	return (long)uid;
}

/* The one creation: every output file is opened here. */
static int create_fd(const char *path, int flags)
{
	int how = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	if ((flags & OUTFILE_APPEND) && !(flags & OUTFILE_REPLACE))
		how |= O_APPEND | O_NONBLOCK; /* an existing FIFO must not block us */
	else
		how |= O_EXCL | (flags & OUTFILE_APPEND ? O_APPEND : 0);
	if ((flags & OUTFILE_REPLACE) && unlink(path) < 0 && errno != ENOENT)
		return pc_err_errno("cannot replace %s", path);
	int fd = open(path, how, OUTFILE_MODE);
	if (fd < 0 && errno == ENXIO) /* a FIFO nobody reads */
		errno = EINVAL;
	if (fd < 0)
		return errno == ELOOP	 ? pc_err("cannot create %s: it is a symlink", path)
		       : errno == EINVAL ? pc_err("cannot write %s: not a regular file", path)
					 : pc_err_errno("cannot create %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return pc_err("cannot write %s: not a regular file", path);
	}
	if ((how & O_NONBLOCK) && fcntl(fd, F_SETFL, O_APPEND) < 0) {
		close(fd);
		return pc_err_errno("cannot write %s", path);
	}
	if (!(flags & OUTFILE_OURS) && (owner_uid != (uid_t)-1 || owner_gid != (gid_t)-1) &&
	    fchown(fd, owner_uid, owner_gid) < 0) {
		int r = pc_err_errno("cannot give %s to uid %d", path, (int)owner_uid);
		close(fd);
		if (!(how & O_APPEND) || (flags & OUTFILE_REPLACE))
			unlink(path);
		return r;
	}
	return fd;
}

int outfile_create(const char *path, int flags)
{
	if (!path || !*path)
		return pc_err("no output file name");
	return create_fd(path, flags);
}

struct outfile {
	char *path, *temp;
	int fd;
	FILE *f;
};

/* ".<base>.XXXXXX" beside path. */
static int create_temp(const char *path, int flags, char **temp)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	const char *base = slash ? slash + 1 : path;
	static unsigned counter;
	for (int tries = 0; tries < 100; tries++) {
		unsigned r =
		    (unsigned)getpid() * 2654435761u ^ (unsigned)monotonic_ns() ^ counter++;
		char *t = xasprintf("%.*s.%s.%06x", dirlen, path, base, r & 0xffffff);
		int fd = create_fd(t, flags);
		if (fd >= 0) {
			*temp = t;
			return fd;
		}
		int e = errno;
		free(t);
		if (e != EEXIST) {
			errno = e;
			return pc_err_errno("cannot create %s", path);
		}
	}
	return pc_err("cannot create a temporary file beside %s", path);
}

/* An outfile writing fd, temp (taken) to become path. */
static struct outfile *outfile_new(const char *path, char *temp, int fd)
{
	struct outfile *o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->temp = temp;
	o->fd = fd;
	return o;
}

struct outfile *outfile_open(const char *path)
{
	return outfile_open_flags(path, 0);
}

struct outfile *outfile_open_flags(const char *path, int flags)
{
	if (!path || !*path) {
		pc_err("no output file name");
		return NULL;
	}
	char *temp = NULL;
	int fd = create_temp(path, flags & OUTFILE_OURS, &temp);
	if (fd < 0)
		return NULL;
	return outfile_new(path, temp, fd);
}

FILE *outfile_stream(struct outfile *o)
{
	if (!o->f && !(o->f = fdopen(o->fd, "w"))) {
		/* fdopen of a valid fd fails only without memory, as xmalloc() would */
		fputs("perfcollect-c: out of memory\n", stderr);
		abort();
	}
	return o->f;
}

int outfile_fd(const struct outfile *o)
{
	return o->fd;
}

const char *outfile_temp_path(const struct outfile *o)
{
	return o->temp;
}

/* Closes the file (its stream, if one was made); -1 with errno when a write failed. */
static int close_file(struct outfile *o)
{
	int rc = o->f ? fclose(o->f) : close(o->fd);
	o->f = NULL;
	o->fd = -1;
	return rc;
}

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->temp);
	free(o);
}

void outfile_abort(struct outfile *o)
{
	if (!o)
		return;
	close_file(o);
	unlink(o->temp);
	outfile_free(o);
}

int outfile_write(const char *path, int (*write)(FILE *out, const void *arg), const void *arg)
{
	if (!strcmp(path, "-"))
		return write(stdout, arg) ? -1 : 0;
	struct outfile *o = outfile_open(path);
	if (!o)
		return -1;
	if (write(outfile_stream(o), arg)) {
		outfile_abort(o);
		return -1;
	}
	return outfile_commit(o);
}

struct outfile *outfile_resume(const char *path, const char *tag, uint64_t *have)
{
	char *temp = xasprintf("%s.part%s", path, tag);
	int fd = outfile_create(temp, OUTFILE_APPEND);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) < 0) {
		pc_err_errno("cannot write %s", temp);
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		free(temp);
		return NULL;
	}
	*have = (uint64_t)st.st_size;
	return outfile_new(path, temp, fd);
}

void outfile_suspend(struct outfile *o)
{
	if (!o)
		return;
	close_file(o);
	outfile_free(o);
}

/* Flush, fsync, then the target's name: replaced (rename) or only where none is (link). */
static int commit(struct outfile *o, bool exclusive)
{
	int rc = 0, e = 0;
	/* A full disk shows at fflush or fsync; only a file that got all its bytes may take
	 * the target's name. */
	if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
		rc = pc_err_errno("cannot write %s", o->path);
	else if (fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS)
		rc = pc_err_errno("cannot write %s", o->path);
	if (close_file(o) != 0 && rc == 0)
		rc = pc_err_errno("cannot write %s", o->path);
	if (rc == 0 && !exclusive && rename(o->temp, o->path) != 0)
		rc = pc_err_errno("cannot rename the finished %s into place", o->path);
	if (rc == 0 && exclusive && link(o->temp, o->path) != 0) {
		e = errno;
		rc = e == EEXIST ? pc_err("%s exists already", o->path)
				 : pc_err_errno("cannot link the finished %s into place", o->path);
	}
	if (rc < 0 || exclusive)
		unlink(o->temp);
	outfile_free(o);
	if (e)
		errno = e;
	return rc;
}

int outfile_commit(struct outfile *o)
{
	return commit(o, false);
}

int outfile_commit_new(struct outfile *o)
{
	return commit(o, true);
}

/* The copy loop: read pieces from rd until the end or max bytes, write them all to dst.
 * rd says why it failed (pc_err()). */
static int copy_loop(int dst, ssize_t (*rd)(void *arg, void *buf, size_t n), void *arg,
		     uint64_t max, uint64_t *copied)
{
	char buf[65536];
	uint64_t total = 0;
	int ret = 0;
	while (total < max) {
		size_t want = max - total < sizeof(buf) ? (size_t)(max - total) : sizeof(buf);
		ssize_t n = rd(arg, buf, want);
		if (n < 0)
			ret = -1;
		if (n <= 0)
			break;
		if (write_all(dst, buf, (size_t)n) < 0) {
			ret = pc_err_errno("cannot write");
			break;
		}
		total += (uint64_t)n;
	}
	if (copied)
		*copied = total;
	return ret;
}

static ssize_t read_fd_piece(void *arg, void *buf, size_t n)
{
	ssize_t r;
	while ((r = read(*(int *)arg, buf, n)) < 0 && errno == EINTR)
		;
	return r < 0 ? pc_err_errno("cannot read") : r;
}

/* A stream's own reader says why it failed (archive_reader_open_entry(): what zip found). */
static ssize_t read_stream_piece(void *arg, void *buf, size_t n)
{
	FILE *f = arg;
	size_t got = fread(buf, 1, n, f);
	return got == 0 && ferror(f) ? -1 : (ssize_t)got;
}

int file_copy_fd(int dst, int src, uint64_t max, uint64_t *copied)
{
	return copy_loop(dst, read_fd_piece, &src, max, copied);
}

int file_copy_stream(int dst, FILE *src, uint64_t max, uint64_t *copied)
{
	return copy_loop(dst, read_stream_piece, src, max, copied);
}

int outfile_copy(int src, const char *dest, uint64_t max, uint64_t *copied)
{
	if (copied)
		*copied = 0;
	int fd = create_fd(dest, OUTFILE_REPLACE);
	if (fd < 0)
		return -1;
	int r = file_copy_fd(fd, src, max, copied);
	if (r < 0)
		pc_err("cannot copy to %s: %s", dest, pc_strerror());
	if (close(fd) < 0 && r == 0)
		r = pc_err_errno("cannot write %s", dest);
	if (r < 0)
		unlink(dest); /* no half copy */
	return r;
}

bool same_file(const char *a, const char *b)
{
	struct stat x, y;
	return a && b && stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

int outfile_check_target(const char *path, const char *what, const char *const *inputs)
{
	for (size_t i = 0; inputs && inputs[i]; i++)
		if (same_file(path, inputs[i]))
			return pc_err("refusing to write %s over the input %s; name another file",
				      what, inputs[i]);
	if (str_endswith(path, TRACE_ZIP_SUFFIX) || str_endswith(path, TRACE_ZIP_SUFFIX "/"))
		return pc_err("refusing to write %s to %s: a .trace.zip name is for traces "
			      "(collect and merge write them); name another file",
			      what, path);
	return 0;
}
