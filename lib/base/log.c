/* log: see log.h. */
#include "log.h"
#include "outfile.h"

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

static void emit(const char *prefix, bool to_stderr, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	if (log_file) {
		time_t t = time(NULL);
		struct tm tm;
		char stamp[32];
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(log_file, "[%s] %s", stamp, prefix);
		vfprintf(log_file, fmt, ap);
		fputc('\n', log_file);
		fflush(log_file);
	}
	if (to_stderr && !log_quiet) {
		fprintf(stderr, "perfcollect-c: %s", prefix);
		vfprintf(stderr, fmt, ap2);
		fputc('\n', stderr);
	}
	va_end(ap2);
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
