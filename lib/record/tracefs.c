/* tracefs: see tracefs.h. */
#include "tracefs.h"

#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static const char *const candidates[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

static bool has_events_dir(const char *dir)
{
	char *p = xasprintf("%s/events/header_page", dir);
	bool ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

const char *tracefs_find(bool *readable)
{
	*readable = true;
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++)
		if (has_events_dir(candidates[i]))
			return candidates[i];
	*readable = false;
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		struct statfs fs;
		if (statfs(candidates[i], &fs) == 0 && fs.f_type == TRACEFS_MAGIC)
			return candidates[i];
	}
	return NULL;
}

const char *tracefs_path(void)
{
	bool readable;
	const char *dir = tracefs_find(&readable);
	struct stat st;
	if (dir && readable)
		return dir;
	/* Mounted but closed to us: say that, not "not mounted". */
	if (dir && stat(dir, &st) == 0) {
		pc_err(
		    "tracefs at %s is mounted but you may not read it (mode %04o, owner uid %u); "
		    "the scheduler tracepoints of -offcpu and -threadtime need root (or read "
		    "access to it, CAP_PERFMON and kernel.perf_event_paranoid=-1)",
		    dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		return NULL;
	}
	if (!dir && mount("nodev", candidates[0], "tracefs", 0, NULL) == 0 &&
	    has_events_dir(candidates[0]))
		return candidates[0];
	pc_err_errno("tracefs is not mounted and cannot be mounted (tracepoints need it; as "
		     "root: mount -t tracefs nodev /sys/kernel/tracing)");
	return NULL;
}
