/* safe_open: see safe_open.h. */
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sets errno to why a path was refused (safe_open.h: anything but ENOENT, ESRCH, EACCES). */
static int refused(int why, int ret)
{
	errno = why;
	return ret;
}

static void close_keeping_errno(int fd)
{
	int saved = errno;
	close(fd);
	errno = saved;
}

/* /proc/<pid>/root: a magic link into the target's mount namespace.  Following it is the
 * point; everything below it is walked one component at a time. */
static int open_root(pid_t pid, const char *shown)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT
			   ? refused(ESRCH, pc_err("%s: no process %d", shown, (int)pid))
			   : pc_err_errno("cannot open %s", root);
	return fd;
}

/* One directory below dirfd, never through a symlink (O_NOFOLLOW | O_DIRECTORY: a link
 * fails with ENOTDIR or ELOOP, and then says which it was). */
static int open_component(int dirfd, const char *name, const char *shown)
{
	if (!strcmp(name, ".."))
		return refused(EINVAL, pc_err("%s: contains '..'", shown));
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || (errno != ENOTDIR && errno != ELOOP))
		return fd >= 0 ? fd : pc_err_errno("%s", shown);
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return refused(ELOOP, pc_err("%s: a component (%s) is a symlink", shown, name));
	return refused(ENOTDIR, pc_err("%s: %s is not a directory", shown, name));
}

/* The one walk: the directories in dirs (modified), from the directory fd (taken) down. */
static int walk_from(int fd, char *dirs, const char *shown)
{
	char *save = NULL;
	for (char *c = fd < 0 ? NULL : strtok_r(dirs, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		int sub = open_component(fd, c, shown);
		close_keeping_errno(fd);
		if (sub < 0)
			return -1;
		fd = sub;
	}
	return fd;
}

/* From pid's root. */
static int walk(pid_t pid, char *dirs, const char *shown)
{
	return walk_from(open_root(pid, shown), dirs, shown);
}

/* An O_PATH fd of path's last component (path absolute), reached from the directory fd (taken)
 * by the one walk; the component itself is not followed (a symlink there comes back as the
 * link) and nothing is really opened yet: no FIFO to block on, no device to wake.  -1 with
 * pc_err() when the walk or the component fails, or the component is "", "." or "..". */
static int walk_to(int fd, const char *path, const char *shown)
{
	char *dirs = xstrdup(path);
	char *name = strrchr(dirs, '/');
	*name++ = 0;
	int pathfd = -1;
	bool dots = !strcmp(name, "..");
	if (dots || !*name || !strcmp(name, ".")) {
		if (fd >= 0)
			close(fd);
		refused(EINVAL, dots ? pc_err("%s: contains '..'", shown)
				     : pc_err("%s: not a regular file", shown));
	} else {
		int dirfd = walk_from(fd, dirs, shown);
		pathfd = dirfd < 0 ? -1 : openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (dirfd >= 0 && pathfd < 0)
			pc_err_errno("%s", shown);
		if (dirfd >= 0)
			close_keeping_errno(dirfd);
	}
	int saved = errno;
	free(dirs);
	errno = saved;
	return pathfd;
}

int root_open_dir(pid_t pid, const char *dir)
{
	char *shown = xasprintf("/proc/%d/root%s", (int)pid, dir);
	char *copy = xstrdup(dir);
	int fd = dir[0] == '/' ? walk(pid, copy, shown)
			       : refused(EINVAL, pc_err("%s: not an absolute path", dir));
	int saved = errno;
	free(copy);
	free(shown);
	errno = saved;
	return fd;
}

/* O_PATH fd of a regular file -> a readable fd of the same file.  The real open goes through
 * the fd itself (no name to swap meanwhile), non-blocking, and fstat checks again after it. */
static int reopen_regular(int pathfd, const struct stat *st, const char *shown)
{
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	int fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("%s", shown);
	struct stat now;
	if (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(fd);
		return refused(EINVAL, pc_err("%s: not a regular file", shown));
	}
	return fd;
}

/* The checks of the policy on what pathfd names, then the real open. */
static int open_checked(int pathfd, const char *shown, uid_t owner_uid, uint64_t max_size,
			bool one_link)
{
	struct stat st;
	if (fstat(pathfd, &st) < 0)
		return pc_err_errno("%s", shown);
	if (S_ISLNK(st.st_mode))
		return refused(ELOOP, pc_err("%s: is a symlink", shown));
	if (!S_ISREG(st.st_mode))
		return refused(EINVAL, pc_err("%s: not a regular file", shown));
	if (st.st_uid != owner_uid && st.st_uid != 0)
		return refused(EPERM, pc_err("%s: owned by uid %u, not the target's uid %u", shown,
					     (unsigned)st.st_uid, (unsigned)owner_uid));
	if (one_link && st.st_nlink > 1)
		return refused(EMLINK,
			       pc_err("%s: has %lu hard links", shown, (unsigned long)st.st_nlink));
	if ((uint64_t)st.st_size > max_size)
		return refused(
		    EFBIG, pc_err("%s: %llu bytes, more than the %llu taken from a target", shown,
				  (unsigned long long)st.st_size, (unsigned long long)max_size));
	return reopen_regular(pathfd, &st, shown);
}

static int open_in_root(pid_t pid, const char *path, uid_t owner_uid, uint64_t max_size,
			bool one_link)
{
	if (!path || path[0] != '/')
		return refused(EINVAL, pc_err("%s: not an absolute path", path ? path : "(null)"));
	int pathfd = walk_to(open_root(pid, path), path, path);
	if (pathfd < 0)
		return -1;
	int fd = open_checked(pathfd, path, owner_uid, max_size, one_link);
	close_keeping_errno(pathfd);
	return fd;
}

int safe_open_in_root(pid_t pid, const char *path, uid_t owner_uid, uint64_t max_size)
{
	return open_in_root(pid, path, owner_uid, max_size, true);
}

int safe_open_binary_in_root(pid_t pid, const char *path, uid_t owner_uid, uint64_t max_size)
{
	return open_in_root(pid, path, owner_uid, max_size, false);
}

int safe_open_inode(const char *path, dev_t dev, uint64_t ino, uint64_t max_size)
{
	if (!path || path[0] != '/')
		return refused(EINVAL, pc_err("%s: not an absolute path", path ? path : "(null)"));
	int pathfd = walk_to(open_root(getpid(), path), path, path);
	if (pathfd < 0)
		return -1;
	int fd = -1;
	struct stat st;
	if (fstat(pathfd, &st) < 0) {
		pc_err_errno("%s", path);
	} else if (st.st_dev != dev || (uint64_t)st.st_ino != ino) {
		/* another file by that name: another mount namespace's, or replaced since */
		refused(ESTALE,
			pc_err("%s: not the file that was mapped (device %u:%u inode %llu, "
			       "here %u:%u inode %llu)",
			       path, major(dev), minor(dev), (unsigned long long)ino,
			       major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino));
	} else if (!S_ISREG(st.st_mode)) {
		refused(EINVAL, pc_err("%s: not a regular file", path));
	} else if ((uint64_t)st.st_size > max_size) {
		refused(EFBIG,
			pc_err("%s: %llu bytes, more than the %llu read", path,
			       (unsigned long long)st.st_size, (unsigned long long)max_size));
	} else {
		fd = reopen_regular(pathfd, &st, path);
	}
	close_keeping_errno(pathfd);
	return fd;
}

int open_file_in_root(const char *root, const char *path)
{
	if (!path || path[0] != '/')
		return refused(EINVAL, pc_err("%s: not an absolute path", path ? path : "(null)"));
	bool host = !root || !*root;
	char *shown = xasprintf("%s%s", host ? "" : root, path);
	int pathfd = -1;
	if (host) {
		pathfd = open(path, O_PATH | O_CLOEXEC);
	} else {
		int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0) {
			pc_err_errno("cannot open %s", root);
			free(shown);
			return -1;
		}
		/* RESOLVE_IN_ROOT: "..", and absolute symlinks such as /lib -> /usr/lib, are
		 * resolved against root as the target resolves them, never against ours. */
		struct open_how how = {.flags = O_PATH | O_CLOEXEC,
				       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
		pathfd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		/* No openat2 (before Linux 5.6, or a seccomp profile that predates it): the
		 * walk that follows no symlink at all, never one that resolves them from our
		 * side (an absolute link there would land on the host's file).  A mapping's
		 * path has none: the kernel names the file it resolved. */
		if (pathfd < 0 && (errno == ENOSYS || errno == EPERM))
			pathfd = walk_to(dup(rootfd), path, shown);
		close_keeping_errno(rootfd);
	}
	struct stat st;
	int fd;
	if (pathfd < 0 || fstat(pathfd, &st) < 0)
		fd = pc_err_errno("%s", shown);
	else if (!S_ISREG(st.st_mode))
		fd = refused(EINVAL, pc_err("%s: not a regular file", shown));
	else
		fd = reopen_regular(pathfd, &st, shown);
	if (pathfd >= 0)
		close_keeping_errno(pathfd);
	int saved = errno;
	free(shown);
	errno = saved;
	return fd;
}
