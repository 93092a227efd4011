/* collect_tracedir: see collect_tracedir.h. */
#include "collect_tracedir.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/tracefile.h"
#include "dotnet/dotnet_ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tracedir_note(const struct tracedir *td, const char *fmt, ...)
{
	char *marker = xasprintf("%s/%s", td->path, TRACEDIR_MARKER);
	int fd = open(marker, O_WRONLY | O_APPEND | O_CLOEXEC);
	va_list ap;
	va_start(ap, fmt);
	if (fd >= 0)
		vdprintf(fd, fmt, ap);
	va_end(ap);
	if (fd >= 0)
		close(fd);
	free(marker);
}

void collect_undo_left_over(const char *trace_dir)
{
	char *marker = xasprintf("%s/%s", trace_dir, TRACEDIR_MARKER);
	char *text = read_file(marker, NULL);
	free(marker);
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		int pid;
		unsigned long long start;
		if (sscanf(line, "dotnet-perfmap %d %llu", &pid, &start) == 2 && pid > 0) {
			if (!start || proc_start_time(pid) != start)
				log_say(
				    "pid %d: gone since the collection; no perf maps to switch off",
				    pid);
			else if (dotnet_disable_perfmap(pid) == 0)
				log_say("pid %d: switched its .NET perf maps off again, as the "
					"collection would have",
					pid);
			else
				log_warn(
				    "pid %d: could not switch its .NET perf maps off again: %s",
				    pid, pc_strerror());
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
}

char *tracedir_merge_command(const struct tracedir *td)
{
	if (!strcmp(td->outdir, "."))
		return xasprintf("perfcollect-c merge %s.trace", td->name);
	return xasprintf("perfcollect-c merge %s -o %s", td->path, td->zip_path);
}

void tracedir_refuse(const struct tracedir *td)
{
	int holder;
	bool ours;
	int fd = tracedir_claim(td->path, &holder, &ours);
	if (fd < 0 && holder >= 0) {
		char who[32] = "";
		if (holder > 0)
			snprintf(who, sizeof(who), " (pid %d)", holder);
		pc_err("a collection named %s is running%s and writing %s; stop it (Ctrl+C in its "
		       "terminal%s) or choose another name",
		       td->name, who, td->path, holder > 0 ? ", or kill -INT that pid" : "");
		return;
	}
	if (fd >= 0)
		close(fd);
	char *cmd = tracedir_merge_command(td);
	if (ours)
		pc_err("%s was left by a collection that did not finish (killed, crashed or out "
		       "of disk space); finish it into %s with: %s (or remove it to start over)",
		       td->path, td->zip_path, cmd);
	else
		pc_err("%s already exists and is not a running collection; merge it with '%s', "
		       "remove it, or choose another name",
		       td->path, cmd);
	free(cmd);
}

int tracedir_create(const struct tracedir *td)
{
	if (mkdir(td->path, 0700) < 0) {
		if (errno == EEXIST) {
			tracedir_refuse(td);
			return -1;
		}
		return pc_err_errno("cannot create %s", td->path);
	}
	int holder;
	bool left_over; /* no marker yet: made just now */
	int lock_fd = tracedir_claim(td->path, &holder, &left_over);
	char *marker = xasprintf("%s/%s", td->path, TRACEDIR_MARKER);
	char *text = xasprintf("perfcollect-c collect pid %d\n", (int)getpid());
	int fd = outfile_create(marker, 0);
	int rc = fd >= 0 && write_all(fd, text, strlen(text)) == 0 ? 0 : -1;
	if (fd >= 0 && rc < 0)
		pc_err_errno("cannot write %s", marker);
	if (fd >= 0)
		close(fd);
	free(text);
	free(marker);
	if (lock_fd < 0 || rc < 0) {
		if (lock_fd >= 0)
			close(lock_fd);
		rm_rf(td->path);
		return -1;
	}
	return lock_fd;
}
