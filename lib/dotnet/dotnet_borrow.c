/* dotnet_borrow: see dotnet_borrow.h. */
#include "dotnet_borrow.h"
#include "base/proc.h"
#include "base/safe_open.h"
#include "dotnet_guard.h"
#include "dotnet_ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATH_VAR "DOTNET_PerfMapJitDumpPath"

/* Which map files the runtime holds open, i.e. writes now; *dir gets the directory of the
 * first one found (a path as the target sees it). */
static void open_maps(pid_t pid, pid_t nspid, bool *perfmap, bool *jitdump, char **dir)
{
	char want_map[48], want_dump[48];
	snprintf(want_map, sizeof(want_map), "/perf-%d.map", (int)nspid);
	snprintf(want_dump, sizeof(want_dump), "/jit-%d.dump", (int)nspid);
	struct proc_fds *d = proc_fds_open(pid);
	for (int fd; d && proc_fds_next(d, &fd);) {
		const char *target = proc_fds_target(d);
		if (!target || target[0] != '/')
			continue;
		bool map = str_endswith(target, want_map), dump = str_endswith(target, want_dump);
		if (!map && !dump)
			continue;
		*perfmap |= map;
		*jitdump |= dump;
		if (!*dir) {
			size_t len = strrchr(target, '/') - target;
			*dir = len ? xstrndup(target, len) : xstrdup("/");
		}
	}
	proc_fds_close(d);
}

/* A fresh directory in the target's /tmp, owned by the target's user (the runtime writes
 * there as that user); its path as the target sees it, or NULL with pc_err().  The guard
 * (m->guard) is told each name before it is made, so a SIGKILL between the mkdir and the
 * rest leaves nothing behind either (it removes a name not made yet as absent). */
static char *make_private_dir(pid_t pid, uid_t uid, struct dotnet_borrowed *m)
{
	int tmp = root_open_dir(pid, "/tmp");
	if (tmp < 0)
		return NULL;
	for (int attempt = 0; attempt < 16; attempt++) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		char name[80];
		snprintf(name, sizeof(name), ".perfcollect-c-stacks-%d-%lx", (int)getpid(),
			 (unsigned long)(ts.tv_nsec ^ ((unsigned long)attempt << 20)));
		char *dir = xasprintf("/tmp/%s", name);
		dotnet_guard_borrow(m->guard, pid, m->start, dir, m->old_path, true);
		if (mkdirat(tmp, name, 0700) < 0) {
			/* not ours: the guard must not remove it */
			dotnet_guard_borrow(m->guard, pid, m->start, NULL, NULL, false);
			free(dir);
			if (errno == EEXIST)
				continue;
			pc_err_errno("cannot make a directory in /proc/%d/root/tmp", (int)pid);
			break;
		}
		if (fchownat(tmp, name, uid, (gid_t)-1, AT_SYMLINK_NOFOLLOW) < 0) {
			pc_err_errno("cannot give /proc/%d/root%s to uid %u", (int)pid, dir,
				     (unsigned)uid);
			unlinkat(tmp, name, AT_REMOVEDIR);
			dotnet_guard_borrow(m->guard, pid, m->start, NULL, NULL, false);
			free(dir);
			break;
		}
		m->tmp_fd = tmp; /* kept: the directory is removed through it */
		return dir;
	}
	close(tmp);
	return NULL;
}

void dotnet_borrow_maps(pid_t pid, int timeout_ms, struct dotnet_guard *g,
			struct dotnet_borrowed *m)
{
	memset(m, 0, sizeof(*m));
	m->tmp_fd = -1;
	m->timeout_ms = timeout_ms;
	m->guard = g;
	struct proc_status st;
	if (proc_status(pid, &st) < 0 || !dotnet_runtime_present(pid))
		return;
	m->runtime = true;
	open_maps(pid, st.nspid, &m->writes_perfmap, &m->writes_jitdump, &m->dir);
	if (m->writes_perfmap || m->writes_jitdump) {
		if (!m->writes_jitdump)
			m->why = xstrdup("its runtime writes a perf map but no jitdump, where "
					 "ReadyToRun code is named (DOTNET_PerfMapEnabled=3, or a "
					 "jitdump it stopped writing)");
		return;
	}
	dotnet_ipc_set_timeout_ms(timeout_ms);
	m->old_path = proc_getenv(pid, PATH_VAR);
	m->start = proc_start_time(pid);
	/* The guard knows before the runtime is changed: a SIGKILL from here on is undone. */
	char *dir = make_private_dir(pid, st.uid, m);
	if (!dir) {
		m->why = xasprintf("no directory for its maps: %s", pc_strerror());
		goto out;
	}
	m->borrowed = true;
	m->private_dir = dir;
	if (dotnet_set_env(pid, PATH_VAR, dir) < 0) {
		m->why = xasprintf("its runtime cannot be asked for perf maps: %s", pc_strerror());
		/* sent but perhaps unanswered: it may still be carried out, so undo it all */
		goto out;
	}
	if (dotnet_enable_perfmap(pid, DOTNET_PERFMAP_ALL) < 0) {
		m->why = xasprintf("its runtime did not write perf maps: %s", pc_strerror());
		goto out;
	}
	m->dir = xstrdup(dir);
	m->done = xasprintf("asked its runtime over the diagnostics IPC to write its perf map and "
			    "jitdump into %s for this snapshot; turned off and removed again",
			    dir);
out:
	dotnet_ipc_set_timeout_ms(0);
}

void dotnet_return_maps(pid_t pid, struct dotnet_borrowed *m, bool alive)
{
	if (!m->borrowed)
		return;
	m->borrowed = false;
	dotnet_ipc_set_timeout_ms(m->timeout_ms);
	if (dotnet_give_back_maps(pid, m->tmp_fd, m->private_dir, m->old_path, alive) < 0) {
		char *why =
		    xasprintf("%s%sthe runtime was not fully restored (%s); both requests were "
			      "sent and run if it answers later",
			      m->why ? m->why : "", m->why ? "; " : "", pc_strerror());
		free(m->why);
		m->why = why;
	}
	dotnet_ipc_set_timeout_ms(0);
	dotnet_guard_borrow(m->guard, pid, m->start, NULL, NULL, false);
}

void dotnet_borrowed_free(struct dotnet_borrowed *m)
{
	free(m->dir);
	free(m->why);
	free(m->done);
	free(m->old_path);
	free(m->private_dir);
	if (m->tmp_fd >= 0)
		close(m->tmp_fd);
	memset(m, 0, sizeof(*m));
	m->tmp_fd = -1;
}
