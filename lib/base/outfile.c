/* outfile: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct outfile {
	char *path, *temp;
	FILE *f;
};

/* ".<base>.XXXXXX" beside path, created with O_EXCL and mode 0666 (less the umask, as
 * fopen would give the target). */
static int create_temp(const char *path, char **temp)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	const char *base = slash ? slash + 1 : path;
	static unsigned counter;
	for (int tries = 0; tries < 100; tries++) {
		unsigned r =
		    (unsigned)getpid() * 2654435761u ^ (unsigned)monotonic_ns() ^ counter++;
		char *t = xasprintf("%.*s.%s.%06x", dirlen, path, base, r & 0xffffff);
		int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
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

struct outfile *outfile_open(const char *path)
{
	if (!path || !*path) {
		pc_err("no output file name");
		return NULL;
	}
	char *temp = NULL;
	int fd = create_temp(path, &temp);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		pc_err_errno("cannot create %s", path);
		close(fd);
		unlink(temp);
		free(temp);
		return NULL;
	}
	struct outfile *o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->temp = temp;
	o->f = f;
	return o;
}

FILE *outfile_stream(struct outfile *o)
{
	return o->f;
}

const char *outfile_temp_path(const struct outfile *o)
{
	return o->temp;
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
	if (o->f)
		fclose(o->f);
	unlink(o->temp);
	outfile_free(o);
}

int outfile_commit(struct outfile *o)
{
	int rc = 0;
	/* A full disk shows at fflush or fsync; only a file that got all its bytes may take
	 * the target's name. */
	if (fflush(o->f) != 0 || ferror(o->f))
		rc = pc_err_errno("cannot write %s", o->path);
	else if (fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS)
		rc = pc_err_errno("cannot write %s", o->path);
	if (fclose(o->f) != 0 && rc == 0)
		rc = pc_err_errno("cannot write %s", o->path);
	o->f = NULL;
	if (rc == 0 && rename(o->temp, o->path) != 0)
		rc = pc_err_errno("cannot rename the finished %s into place", o->path);
	if (rc < 0)
		unlink(o->temp);
	outfile_free(o);
	return rc;
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
	if (str_endswith(path, ".trace.zip") || str_endswith(path, ".trace.zip/"))
		return pc_err("refusing to write %s to %s: a .trace.zip name is for traces "
			      "(collect and merge write them); name another file",
			      what, path);
	return 0;
}
