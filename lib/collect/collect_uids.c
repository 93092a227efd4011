/* collect_uids: see collect_uids.h. */
#include "collect_uids.h"
#include "base/hash.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "symbols/proc_uids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HTAB_NAME	    pid_set
#define HTAB_ENTRY	    uint32_t
#define HTAB_KEY	    uint32_t
#define HTAB_EMPTY(e)	    (!*(e))
#define HTAB_HASH(t, e)	    hash_mix(*(e))
#define HTAB_MATCH(t, e, k) (*(e) == (k))
#define HTAB_MIN	    64
#include "base/htab.h"

struct collect_uids {
	int fd;
	struct pid_set seen; /* noted, or tried: pid 0 is never sampled user space */
	char *pending;	     /* lines not written yet */
	size_t len, cap;
	size_t count;
	uint64_t boot_minus_mono; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC, ns */
	uint64_t tick_ns;	  /* a clock tick, the unit of a process's start time */
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct collect_uids *collect_uids_new(const char *trace_dir)
{
	char *path = xasprintf("%s/%s", trace_dir, PROC_UIDS_FILE);
	/* ours: the owner rule must not be handed to whoever ran sudo */
	int fd = outfile_create(path, OUTFILE_APPEND | OUTFILE_OURS);
	free(path);
	if (fd < 0)
		return NULL;
	struct collect_uids *u = xcalloc(1, sizeof(*u));
	u->fd = fd;
	u->boot_minus_mono = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
	long hz = sysconf(_SC_CLK_TCK);
	u->tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	return u;
}

void collect_uids_free(struct collect_uids *u)
{
	if (!u)
		return;
	collect_uids_flush(u);
	close(u->fd);
	pid_set_free(&u->seen);
	free(u->pending);
	free(u);
}

static void append(struct collect_uids *u, uint32_t pid, uid_t uid)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%u %u\n", pid, (unsigned)uid);
	grow_array((void **)&u->pending, &u->cap, u->len + (size_t)n, 1);
	memcpy(u->pending + u->len, line, (size_t)n);
	u->len += (size_t)n;
	u->count++;
}

/* Marks pid seen; false when it was already. */
static bool first_sight(struct collect_uids *u, uint32_t pid)
{
	if (!u || !pid || pid > INT32_MAX)
		return false;
	bool found;
	uint32_t *slot = pid_set_insert(&u->seen, pid, hash_mix(pid), &found);
	*slot = pid;
	return !found;
}

void collect_uids_add(struct collect_uids *u, uint32_t pid, uid_t uid)
{
	if (first_sight(u, pid))
		append(u, pid, uid);
}

void collect_uids_note(struct collect_uids *u, uint32_t pid, uint64_t time)
{
	if (!first_sight(u, pid))
		return;
	/* status first, then stat: a start time from before the sample means the pid was that
	 * process's all along, so the status read before was its own too (a zombie's pid is
	 * not free yet) */
	struct proc_status st;
	struct proc_stat ps;
	if (proc_status((pid_t)pid, &st) < 0 || proc_task_stat((pid_t)pid, (pid_t)pid, &ps) < 0)
		return;
	uint64_t sampled = (time ? time : clock_ns(CLOCK_MONOTONIC)) + u->boot_minus_mono;
	if (ps.starttime * u->tick_ns > sampled)
		return; /* another process took the pid since */
	append(u, pid, st.uid);
}

void collect_uids_forget(struct collect_uids *u, uint32_t pid)
{
	uint32_t *e = u && pid ? pid_set_find(&u->seen, pid, hash_mix(pid)) : NULL;
	if (e)
		pid_set_remove(&u->seen, e);
}

int collect_uids_flush(struct collect_uids *u)
{
	if (!u || !u->len)
		return 0;
	int ret = write_all(u->fd, u->pending, u->len);
	u->len = 0;
	return ret;
}

size_t collect_uids_count(const struct collect_uids *u)
{
	return u ? u->count : 0;
}
