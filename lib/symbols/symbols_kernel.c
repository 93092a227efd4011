/* symbols_kernel: the symbolizer's kernel symbols (kallsyms), found and loaded once, on a
 * thread of their own when the caller asks early (symbolizer_prefetch_kernel()).
 *
 * Reading /proc/kallsyms is some 40 ms of the kernel's formatting, the largest fixed cost of
 * a short merge, and parsing its 120k lines another 35 M instructions (7 % of the pass's
 * thread on a 20 s trace); the pass needs it at its first kernel frame, right at the start,
 * so a thread started when the pass begins saves little.  Started while the pass is set up
 * (the archive, the NetTrace, the build-id table's files), it reads and parses beside that
 * work.  What the log says, and when, is the same either way: the lines are written at the
 * first kernel frame, as when the load happens there. */
#include "base/log.h"
#include "base/safe_open.h"
#include "kallsyms.h"
#include "symbols_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A kallsyms copy is some 10 MB; one beside a bare perf.data is taken up to this. */
#define KALLSYMS_FILE_MAX (256ull << 20)
/* The first block the text is read into (/proc/kallsyms is 5-8 MB; grown if it is more):
 * allocated by the caller's thread, so that its pages come from the main heap (heap.h's
 * huge pages) and not from a fresh arena of the loading thread's, 4 KiB at a time. */
#define KALLSYMS_BUF (16u << 20)

struct kernel_load {
	char *path;  /* what the log names */
	int side_fd; /* a side file opened safely (read through /proc/self/fd), or -1 */
	char *warn;  /* a line for the log, from choosing the file */
	char *buf;   /* KALLSYMS_BUF bytes to read into, then the text read */
	size_t len;
	struct kallsyms *k; /* the text parsed (it owns buf then) */
	char *err;	    /* why there is no text */
	pthread_t thread;
	bool threaded;
};

/* Which file: the caller's, the trace directory's copy, else /proc/kallsyms. */
static struct kernel_load *kernel_load_new(struct symbolizer *s)
{
	struct kernel_load *l = xcalloc(1, sizeof(*l));
	l->side_fd = -1;
	if (s->kallsyms_path) {
		l->path = xstrdup(s->kallsyms_path);
	} else if (s->side_dir && s->opts.side_dir_foreign) {
		/* Beside a bare perf.data (in /tmp, say) anybody may have written it: only a
		 * regular file of one link, root's or ours, is taken, as a JIT map there. */
		l->path = xasprintf("%s/kallsyms", s->side_dir);
		l->side_fd = safe_open_in_root(getpid(), l->path, geteuid(), KALLSYMS_FILE_MAX);
		if (l->side_fd < 0 && errno != ENOENT)
			l->warn =
			    xasprintf("kernel symbols: %s not taken: %s; /proc/kallsyms instead",
				      l->path, pc_strerror());
		if (l->side_fd < 0) {
			free(l->path);
			l->path = NULL;
		}
	} else if (s->side_dir) {
		l->path = xasprintf("%s/kallsyms", s->side_dir);
		if (access(l->path, R_OK)) {
			free(l->path);
			l->path = NULL;
		}
	}
	if (!l->path)
		l->path = xstrdup("/proc/kallsyms");
	l->buf = xmalloc(KALLSYMS_BUF);
	return l;
}

/* Reads the file's text (the kernel's formatting of /proc/kallsyms is most of the time) and
 * parses it. */
static void *kernel_load_run(void *arg)
{
	struct kernel_load *l = arg;
	char *fd_path = l->side_fd < 0 ? NULL : xasprintf("/proc/self/fd/%d", l->side_fd);
	const char *name = fd_path ? fd_path : l->path;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_err_errno("cannot open %s", name);
		free(l->buf);
		l->buf = NULL;
	} else {
		l->buf = read_fd_into(fd, l->buf, KALLSYMS_BUF, UINT64_MAX, &l->len);
		if (!l->buf)
			pc_err_errno("cannot read %s", name);
		close(fd);
	}
	if (!l->buf)
		l->err = xstrdup(pc_strerror());
	else
		l->k = kallsyms_parse(l->buf, l->len);
	l->buf = NULL;
	free(fd_path);
	if (l->side_fd >= 0)
		close(l->side_fd);
	l->side_fd = -1;
	return NULL;
}

/* The loaded symbols, the load's lines logged unless quiet; l freed. */
static struct kallsyms *kernel_load_end(struct kernel_load *l, bool quiet)
{
	if (l->threaded)
		pthread_join(l->thread, NULL);
	else
		kernel_load_run(l);
	struct kallsyms *k = l->k;
	if (quiet) {
		kallsyms_free(k);
		k = NULL;
	} else {
		if (l->warn)
			log_warn("%s", l->warn);
		if (!k)
			log_warn("kernel symbols: %s; kernel frames stay [unknown]", l->err);
		else if (kallsyms_restricted(k))
			log_warn("kernel symbols: %s shows no addresses (kernel.kptr_restrict); "
				 "kernel frames stay [unknown]",
				 l->path);
		else
			log_info("kernel symbols: %zu from %s", kallsyms_count(k), l->path);
	}
	free(l->path);
	free(l->warn);
	free(l->err);
	free(l);
	return k;
}

void symbolizer_prefetch_kernel(struct symbolizer *s)
{
	if (s->kallsyms_tried || s->kernel_load)
		return;
	struct kernel_load *l = kernel_load_new(s);
	/* without a thread, loaded at the first kernel frame as without this call */
	l->threaded = pthread_create(&l->thread, NULL, kernel_load_run, l) == 0;
	s->kernel_load = l;
}

struct kallsyms *symbols_kallsyms(struct symbolizer *s)
{
	if (s->kallsyms_tried)
		return s->kallsyms;
	s->kallsyms_tried = true;
	struct kernel_load *l = s->kernel_load ? s->kernel_load : kernel_load_new(s);
	s->kernel_load = NULL;
	s->kallsyms = kernel_load_end(l, false);
	return s->kallsyms;
}

void symbols_kernel_free(struct symbolizer *s)
{
	if (s->kernel_load) /* prefetched, never needed: nothing is logged */
		kallsyms_free(kernel_load_end(s->kernel_load, true));
	s->kernel_load = NULL;
	kallsyms_free(s->kallsyms);
	s->kallsyms = NULL;
}
