/* log: see log.h. */
#include "log.h"
#include "outfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static FILE *log_file;
static bool log_quiet;

int log_open(const char *path)
{
	log_close();
	int fd = outfile_create(path, OUTFILE_APPEND);
	if (fd >= 0 && !(log_file = fdopen(fd, "a"))) {
		close(fd);
		fd = pc_err_errno("cannot open log %s", path);
	}
	return fd < 0 ? -1 : 0;
}

void log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

void log_forget(void)
{
	log_file = NULL;
}

void log_set_quiet(bool quiet)
{
	log_quiet = quiet;
}

/* One line each: what a target named in it (its name, a path, a symbol) is made printable,
 * so it can neither drive the terminal nor forge a line of the log. */
static void emit(const char *prefix, bool to_stderr, const char *fmt, va_list ap)
{
	if (!log_file && (!to_stderr || log_quiet))
		return;
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	const char *line = str_printable(msg);
	if (log_file) {
		time_t t = time(NULL);
		struct tm tm;
		char stamp[32];
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(log_file, "[%s] %s%s\n", stamp, prefix, line);
		fflush(log_file);
	}
	if (to_stderr && !log_quiet)
		fprintf(stderr, "perfcollect-c: %s%s\n", prefix, line);
	free(msg);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("", false, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("warning: ", true, fmt, ap);
	va_end(ap);
}

void log_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("", true, fmt, ap);
	va_end(ap);
}
