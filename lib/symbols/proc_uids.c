/* proc_uids: see proc_uids.h. */
#include "proc_uids.h"
#include "base/search.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct proc_uid {
	uint32_t pid;
	uid_t uid;
};

struct proc_uids {
	struct proc_uid *v; /* sorted by pid, then uid, once sorted is set */
	size_t n, cap;
	bool sorted;
	uid_t *out; /* proc_uids_of()'s answer */
	size_t out_cap;
};

struct proc_uids *proc_uids_new(void)
{
	return xcalloc(1, sizeof(struct proc_uids));
}

void proc_uids_free(struct proc_uids *u)
{
	if (!u)
		return;
	free(u->v);
	free(u->out);
	free(u);
}

void proc_uids_add(struct proc_uids *u, uint32_t pid, uid_t uid)
{
	grow_array((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v));
	u->v[u->n++] = (struct proc_uid){pid, uid};
	u->sorted = false;
}

size_t proc_uids_parse(struct proc_uids *u, const char *text, size_t len)
{
	size_t taken = 0;
	char *copy = xstrndup(text, len); /* (a NUL ends it: no text of ours has one) */
	for (char *line = copy, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *sp = strchr(line, ' ');
		long pid, uid;
		if (!sp)
			continue;
		*sp = 0;
		if (parse_int(line, 0, UINT32_MAX, &pid) == 0 &&
		    parse_int(sp + 1, 0, UINT32_MAX - 1, &uid) == 0) {
			proc_uids_add(u, (uint32_t)pid, (uid_t)uid);
			taken++;
		}
	}
	free(copy);
	return taken;
}

int proc_uids_load(struct proc_uids *u, const char *dir)
{
	char *path = xasprintf("%s/%s", dir, PROC_UIDS_FILE);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int ret = 0;
	if (fd < 0) {
		if (errno != ENOENT)
			ret = pc_err_errno("%s", path);
	} else {
		size_t len;
		struct stat st;
		char *text = NULL;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
			ret = pc_err("%s: not a regular file", path);
		else if (!(text = read_fd_max(fd, PROC_UIDS_FILE_MAX, &len)))
			ret = pc_err("%s: %s", path, pc_strerror());
		else
			proc_uids_parse(u, text, len);
		free(text);
		close(fd);
	}
	free(path);
	return ret;
}

static int cmp_uid(const void *a, const void *b)
{
	const struct proc_uid *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

size_t proc_uids_of(struct proc_uids *u, uint32_t pid, const uid_t **uids)
{
	if (!u->sorted) {
		if (u->n)
			qsort(u->v, u->n, sizeof(*u->v), cmp_uid);
		u->sorted = true;
	}
	size_t i = LOWER_BOUND(u->n, k, u->v[k].pid < pid), n = 0;
	for (; i < u->n && u->v[i].pid == pid; i++) {
		if (n && u->out[n - 1] == u->v[i].uid)
			continue;
		grow_array((void **)&u->out, &u->out_cap, n + 1, sizeof(*u->out));
		u->out[n++] = u->v[i].uid;
	}
	*uids = u->out;
	return n;
}
