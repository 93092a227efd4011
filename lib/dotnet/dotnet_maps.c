/* dotnet_maps: see dotnet_maps.h.  The runtime's side (dotnet/runtime perfmap.cpp,
 * perfjitdump.cpp): EnablePerfMap(type) opens the perf map only when none is open and
 * starts the jitdump only when it is not running, each with O_TRUNC, then writes every
 * loaded method (ReadyToRun ones to the jitdump only); a jitdump write that fails (.NET 10
 * reports stub blocks whose pages are partly unreadable: EFAULT) closes the jitdump for
 * good; DisablePerfMap closes both. */
#include "dotnet_maps.h"
#include "base/span.h"
#include "base/log.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool dotnet_holds_open(pid_t pid, int fd)
{
	struct stat want;
	struct proc_fds *d = fstat(fd, &want) == 0 ? proc_fds_open(pid) : NULL;
	bool found = false;
	for (int n; !found && d && proc_fds_next(d, &n);) {
		struct stat st;
		found = proc_fds_stat(d, &st) == 0 && st.st_dev == want.st_dev &&
			st.st_ino == want.st_ino;
	}
	proc_fds_close(d);
	return found;
}

/* Whole records of a jitdump (jitdump-specification.txt: a header whose third u32 is its
 * size, then records of u32 id, u32 total size, u64 timestamp), for messages. */
static uint64_t jitdump_records(int fd)
{
	struct stat st;
	unsigned char h[12];
	if (fstat(fd, &st) < 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    load_le32(h) != 0x4A695444) /* "JiTD" as a little-endian u32 */
		return 0;
	uint64_t n = 0, off = load_le32(h + 8), size = (uint64_t)st.st_size;
	while (off + 8 <= size) {
		unsigned char r[8];
		if (pread(fd, r, sizeof(r), (off_t)off) != (ssize_t)sizeof(r))
			break;
		uint32_t total = load_le32(r + 4);
		if (total < 16 || off + total > size)
			break;
		off += total;
		n++;
	}
	return n;
}

/* One of the runtime's files: whether it exists (or something we refuse sits there) and
 * whether the runtime has it open. */
struct map_file {
	char *shown;
	bool exists, open;
	uint64_t records; /* jitdump only */
};

static void look_at(pid_t pid, const char *name_fmt, struct map_file *f, bool count)
{
	int fd = dotnet_open_map_file(pid, name_fmt, &f->shown);
	f->exists = fd >= 0 || errno != ENOENT;
	f->open = fd >= 0 && dotnet_holds_open(pid, fd);
	f->records = fd >= 0 && count ? jitdump_records(fd) : 0;
	if (fd >= 0)
		close(fd);
	if (!f->shown)
		f->shown = xasprintf("/proc/%d/root/tmp/%s", (int)pid, name_fmt);
}

/* The one warning a user sees when managed frames will be unnamed, with how to fix it. */
static void warn_unnamed(pid_t pid, const char *why, bool ipc_off)
{
	log_warn("pid %d runs .NET without perf maps and %s: its managed frames will be "
		 "[unknown]. To fix it, start it with DOTNET_PerfMapEnabled=1 (e.g. from the "
		 "shell 'perfcollect-c setenv' opens)%s",
		 (int)pid, why,
		 ipc_off ? ", or let collect ask the runtime (.NET 8 or later)" : "");
}

/* `dotnet run` (watch, test) is the .NET SDK's own process, whose entry assembly is the
 * SDK's dotnet.dll: the app it runs is a child process, and recording the SDK instead is an
 * easy mistake that gives a trace of nothing (its samples are the SDK waiting). */
static void warn_sdk(pid_t pid, const struct dotnet_process_info *info)
{
	if (!info->entry_assembly || strcmp(info->entry_assembly, "dotnet"))
		return;
	const char *verb = info->command_line ? strstr(info->command_line, "dotnet.dll ") : NULL;
	char *what = xasprintf("dotnet %s", verb ? verb + strlen("dotnet.dll ") : "");
	char *kids = xstrdup("");
	pid_t *pids;
	size_t n;
	if (proc_pids(&pids, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct proc_status st;
			char comm[32] = "?";
			if (proc_status(pids[i], &st) < 0 || st.ppid != pid)
				continue;
			proc_comm(pids[i], pids[i], comm, sizeof(comm));
			char *more =
			    xasprintf("%s%s%d (%s)", kids, *kids ? ", " : "", (int)pids[i], comm);
			free(kids);
			kids = more;
		}
		free(pids);
	}
	if (*kids)
		log_warn("pid %d is the .NET SDK running '%s', not the app: the app it started "
			 "is pid %s; collect -pid that one",
			 (int)pid, what, kids);
	else
		log_warn("pid %d is the .NET SDK running '%s', not an app: collect -pid the "
			 "app's own process",
			 (int)pid, what);
	free(kids);
	free(what);
}

static void log_runtime(pid_t pid)
{
	struct dotnet_process_info info;
	if (dotnet_process_info(pid, &info) == 0) {
		log_info("pid %d: .NET %s, entry assembly %s, command line: %s", (int)pid,
			 info.version, info.entry_assembly, info.command_line);
		warn_sdk(pid, &info);
		dotnet_process_info_free(&info);
	} else {
		log_info("pid %d: .NET runtime loaded; no process info (%s)", (int)pid,
			 pc_strerror());
	}
}

/* The runtime writes a perf map but its jitdump is gone (or never was). */
static int perfmap_only(struct dotnet_maps *m, bool may_ask, unsigned env,
			const struct map_file *map, const struct map_file *dump)
{
	pid_t pid = m->pid;
	if (env != DOTNET_PERFMAP_ALL && env != DOTNET_PERFMAP_JITDUMP) {
		/* A perf map alone by choice: a jitdump we started could not be stopped again
		 * without stopping the perf map too. */
		log_warn(
		    "pid %d: its .NET runtime writes %s but no jitdump (DOTNET_PerfMapEnabled=%u"
		    " or a tool asked for the perf map alone): ReadyToRun frames will be "
		    "unnamed; start it with DOTNET_PerfMapEnabled=1 to name them",
		    (int)pid, map->shown, env);
		return 0;
	}
	m->jitdump_records = dump->records;
	if (!may_ask) {
		log_warn("pid %d: its .NET runtime stopped writing %s after %llu records; "
			 "ReadyToRun frames will be unnamed (start it with "
			 "DOTNET_PerfMapStubGranularity=2 as 'perfcollect-c setenv' does, or allow "
			 "the diagnostics IPC)",
			 (int)pid, dump->shown, (unsigned long long)dump->records);
		return 0;
	}
	/* The jitdump alone: the perf map is open, the runtime leaves it as it is (it appends
	 * the methods it has compiled again, the same lines). */
	if (dotnet_enable_perfmap(pid, DOTNET_PERFMAP_JITDUMP) < 0) {
		log_warn("pid %d: its .NET runtime stopped writing %s after %llu records and could "
			 "not be asked to start again (%s); ReadyToRun frames will be unnamed",
			 (int)pid, dump->shown, (unsigned long long)dump->records, pc_strerror());
		return 0;
	}
	m->asked = DOTNET_PERFMAP_JITDUMP;
	m->disable_after = false;
	log_say("pid %d: its .NET runtime had stopped writing %s after %llu record%s (start it "
		"with DOTNET_PerfMapStubGranularity=2 to avoid that); asked it over the "
		"diagnostics IPC to write the jitdump again, loaded methods included; its perf "
		"map %s is left as it is",
		(int)pid, dump->shown, (unsigned long long)dump->records,
		dump->records == 1 ? "" : "s", map->shown);
	return 1;
}

/* The runtime writes neither file. */
static int nothing_written(struct dotnet_maps *m, bool may_ask, unsigned env,
			   const struct map_file *map, const struct map_file *dump)
{
	pid_t pid = m->pid;
	if (!may_ask) {
		warn_unnamed(pid, "asking its runtime for them is turned off", true);
		return 0;
	}
	/* Both files when no perf map (nor perfinfo map) is there to be truncated: the perf
	 * map goes on naming new code should the jitdump fail. */
	struct map_file info = {0};
	look_at(pid, "perfinfo-%d.map", &info, false);
	int type = map->exists || info.exists ? DOTNET_PERFMAP_JITDUMP : DOTNET_PERFMAP_ALL;
	free(info.shown);
	/* Maps its environment asked for stay on (the runtime had failed to open them); ours
	 * are told to the guard before they are on. */
	bool disable_after = env == 0;
	if (disable_after)
		dotnet_guard_perfmap(m->guard, pid, m->start, true);
	if (dotnet_enable_perfmap(pid, (enum dotnet_perfmap_type)type) < 0) {
		if (disable_after)
			dotnet_guard_perfmap(m->guard, pid, m->start, false);
		char *why = xasprintf("its runtime cannot be asked for them (%s)", pc_strerror());
		warn_unnamed(pid, why, false);
		free(why);
		return 0;
	}
	m->asked = type;
	m->disable_after = disable_after;
	/* The runtime opens its files before it answers: name the real one. */
	struct map_file now = {0};
	look_at(pid, "jit-%d.dump", &now, false);
	if (!now.open)
		log_warn("pid %d: its .NET runtime accepted EnablePerfMap but writes no jitdump "
			 "(%s)",
			 (int)pid, now.shown);
	free(now.shown);
	if (type == DOTNET_PERFMAP_ALL)
		log_say("pid %d: asked its .NET runtime over the diagnostics IPC to write perf "
			"maps (%s and its jitdump), loaded methods included; %s",
			(int)pid, map->shown,
			m->disable_after ? "they are turned off again afterwards"
					 : "they stay on, as its environment asks");
	else
		log_say(
		    "pid %d: asked its .NET runtime over the diagnostics IPC to write its "
		    "jitdump %s, loaded methods included (the perf map already at %s is left as "
		    "it is); %s",
		    (int)pid, dump->shown, map->shown,
		    m->disable_after ? "it is turned off again afterwards"
				     : "it stays on, as its environment asks");
	return 1;
}

int dotnet_maps_ensure(pid_t pid, bool may_ask, struct dotnet_guard *g, struct dotnet_maps *m)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	m->guard = g;
	m->start = proc_start_time(pid);
	if (!dotnet_runtime_present(pid)) {
		log_info("pid %d: no .NET runtime (no libcoreclr.so, no diagnostics socket)",
			 (int)pid);
		return 0;
	}
	m->runtime = true;
	log_runtime(pid);
	struct map_file map = {0}, dump = {0};
	look_at(pid, "perf-%d.map", &map, false);
	look_at(pid, "jit-%d.dump", &dump, true);
	m->had_perfmap = map.open;
	m->had_jitdump = dump.open;
	unsigned env = dotnet_perfmap_env_type(pid);
	log_info("pid %d: DOTNET_PerfMapEnabled=%u; the runtime writes %s: %s, %s: %s", (int)pid,
		 env, map.shown,
		 map.open     ? "yes"
		 : map.exists ? "no (it exists)"
			      : "no",
		 dump.shown,
		 dump.open     ? "yes"
		 : dump.exists ? "no (it exists)"
			       : "no");
	int r;
	if (dump.open)
		r = 1; /* it names everything: nothing to ask */
	else if (map.open)
		r = perfmap_only(m, may_ask, env, &map, &dump);
	else
		r = nothing_written(m, may_ask, env, &map, &dump);
	free(map.shown);
	free(dump.shown);
	return r;
}

void dotnet_maps_restore(struct dotnet_maps *m)
{
	if (!m->asked)
		return;
	pid_t pid = m->pid;
	bool disable = m->disable_after;
	m->asked = 0;
	m->disable_after = false;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		log_info("pid %d: exited; no perf maps to turn off", (int)pid);
		return;
	}
	struct map_file dump = {0};
	look_at(pid, "jit-%d.dump", &dump, true);
	if (!dump.open)
		log_warn(
		    "pid %d: its .NET runtime gave up writing %s after %llu records (start it "
		    "with DOTNET_PerfMapStubGranularity=2 to avoid that): code it compiled later "
		    "is named from its perf map only, if it writes one",
		    (int)pid, dump.shown, (unsigned long long)dump.records);
	free(dump.shown);
	if (!disable) {
		log_info("pid %d: its jitdump stays on: DisablePerfMap would stop the perf map its "
			 "environment turned on as well",
			 (int)pid);
		return;
	}
	int r = dotnet_disable_perfmap(pid);
	dotnet_guard_perfmap(m->guard, pid, m->start, false);
	if (r == 0)
		log_info("pid %d: perf maps turned off again (DisablePerfMap)", (int)pid);
	else if (kill(pid, 0) < 0 && errno == ESRCH)
		log_info("pid %d: exited; no perf maps to turn off", (int)pid);
	else
		log_warn("pid %d: could not turn its perf maps off again: %s", (int)pid,
			 pc_strerror());
}
