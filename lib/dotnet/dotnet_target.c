/* dotnet_target: what `collect -pid` does with a .NET target (see dotnet_ipc.h): turn its
 * perf maps on over the diagnostics IPC and off again at the end, or say why it cannot. */
#include "base/log.h"
#include "dotnet_ipc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pids whose maps dotnet_prepare_target() turned on, to turn off in dotnet_finish_target().
 * The collector calls both from its main thread. */
static pid_t *enabled_pids;
static size_t n_enabled, cap_enabled;

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
/* Walks a jitdump's record headers (jitdump-specification.txt: a file header whose third
 * u32 is its size, then records of u32 id, u32 total size, u64 timestamp).  Returns 1 when
 * the file ends inside a record, i.e. the runtime gave up writing it, 0 when it ends on a
 * record boundary, -1 when it is not a jitdump. */
static int jitdump_is_cut(int fd, uint64_t *records)
{
	struct stat st;
	unsigned char h[12];
	*records = 0;
	if (fstat(fd, &st) < 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	if (get_u32(h) != 0x4A695444) /* "JiTD" read as a little-endian u32 */
		return -1;
	uint64_t off = get_u32(h + 8), size = (uint64_t)st.st_size;
	while (off + 8 <= size) {
		unsigned char r[8];
		if (pread(fd, r, sizeof(r), (off_t)off) != (ssize_t)sizeof(r))
			return -1;
		uint32_t total = get_u32(r + 4);
		if (total < 16)
			return 1; /* garbage where a record should be */
		if (off + total > size)
			return 1;
		off += total;
		(*records)++;
	}
	return off != size;
}

/* With DOTNET_PerfMapEnabled=1 some runtimes (seen with .NET 10.0) stop writing the jitdump
 * at startup: a 64 KiB stub block is only half readable, writev() fails with EFAULT and
 * the runtime disables the jitdump for good.  ReadyToRun methods are only in the jitdump,
 * so they would all be unnamed.  Turning the maps off and on again over IPC makes the
 * runtime write both files afresh, every loaded method included. */
static void repair_cut_jitdump(pid_t pid, bool enable_ipc)
{
	char *shown;
	int fd = dotnet_open_map_file(pid, "jit-%d.dump", &shown);
	if (fd < 0) {
		log_info("pid %d: no jitdump (%s)", (int)pid, pc_strerror());
		free(shown);
		return;
	}
	uint64_t records;
	int cut = jitdump_is_cut(fd, &records);
	/* Caught mid-write?  Then the file grows within moments: look again while it does. */
	for (int tries = 0; cut == 1 && tries < 5; tries++) {
		struct stat before, after;
		if (fstat(fd, &before) < 0)
			break;
		usleep(10 * 1000);
		if (fstat(fd, &after) < 0 || after.st_size == before.st_size)
			break;
		cut = jitdump_is_cut(fd, &records);
	}
	close(fd);
	if (cut != 1) {
		log_info("pid %d: %s holds %llu records", (int)pid, shown,
			 (unsigned long long)records);
		free(shown);
		return;
	}
	if (!enable_ipc) {
		log_warn("pid %d: the runtime stopped writing %s after %llu records; ReadyToRun "
			 "frames will be unnamed (start it with DOTNET_PerfMapStubGranularity=2 as "
			 "'perfcollect-c setenv' does, or allow the diagnostics IPC)",
			 (int)pid, shown, (unsigned long long)records);
	} else if (dotnet_disable_perfmap(pid) < 0 ||
		   dotnet_enable_perfmap(pid, DOTNET_PERFMAP_ALL) < 0) {
		log_warn("pid %d: the runtime stopped writing %s after %llu records and could not "
			 "be asked to start again (%s); ReadyToRun frames will be unnamed",
			 (int)pid, shown, (unsigned long long)records, pc_strerror());
	} else {
		log_say("pid %d: the runtime had stopped writing %s after %llu record%s (start it "
			"with DOTNET_PerfMapStubGranularity=2 to avoid that); asked it over the "
			"diagnostics IPC to write its perf map and jitdump again, loaded methods "
			"included",
			(int)pid, shown, (unsigned long long)records, records == 1 ? "" : "s");
	}
	free(shown);
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

int dotnet_prepare_target(pid_t pid, bool enable_ipc)
{
	if (!dotnet_runtime_present(pid)) {
		log_info("pid %d: no .NET runtime (no libcoreclr.so, no diagnostics socket)",
			 (int)pid);
		return 0;
	}
	struct dotnet_process_info info;
	if (dotnet_process_info(pid, &info) == 0) {
		log_info("pid %d: .NET %s, entry assembly %s, command line: %s", (int)pid,
			 info.version, info.entry_assembly, info.command_line);
		dotnet_process_info_free(&info);
	} else {
		log_info("pid %d: .NET runtime loaded; no process info (%s)", (int)pid,
			 pc_strerror());
	}
	if (dotnet_perfmap_enabled_by_env(pid)) {
		log_info("pid %d: perf maps are on (DOTNET_PerfMapEnabled in its environment)",
			 (int)pid);
		repair_cut_jitdump(pid, enable_ipc);
		return 0;
	}
	if (!enable_ipc) {
		warn_unnamed(pid, "asking its runtime for them is turned off", true);
		return 0;
	}
	if (dotnet_enable_perfmap(pid, DOTNET_PERFMAP_ALL) < 0) {
		char *why = xasprintf("its runtime cannot be asked for them (%s)", pc_strerror());
		warn_unnamed(pid, why, false);
		free(why);
		return 0;
	}
	/* The runtime creates its files before it answers: name the real one. */
	char *shown;
	int fd = dotnet_open_map_file(pid, "perf-%d.map", &shown);
	if (fd >= 0) {
		close(fd);
		log_say(
		    "pid %d: asked its .NET runtime over the diagnostics IPC to write perf maps; "
		    "it writes %s and its jitdump, loaded methods included; they are turned off "
		    "again when the collection ends",
		    (int)pid, shown);
	} else {
		log_warn("pid %d: its .NET runtime accepted EnablePerfMap but no perf map appeared "
			 "(%s)",
			 (int)pid, pc_strerror());
	}
	free(shown);
	grow_array((void **)&enabled_pids, &cap_enabled, n_enabled + 1, sizeof(*enabled_pids));
	enabled_pids[n_enabled++] = pid;
	return 1;
}

void dotnet_finish_target(pid_t pid)
{
	size_t i = 0;
	while (i < n_enabled && enabled_pids[i] != pid)
		i++;
	if (i == n_enabled)
		return;
	enabled_pids[i] = enabled_pids[--n_enabled];
	if (!n_enabled) {
		free(enabled_pids);
		enabled_pids = NULL;
		cap_enabled = 0;
	}
	if (dotnet_disable_perfmap(pid) == 0)
		log_info("pid %d: perf maps turned off again (DisablePerfMap)", (int)pid);
	else if (kill(pid, 0) < 0 && errno == ESRCH)
		log_info("pid %d: exited; no perf maps to turn off", (int)pid);
	else
		log_warn("pid %d: could not turn its perf maps off again: %s", (int)pid,
			 pc_strerror());
}
