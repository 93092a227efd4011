/* fuzz: what the harnesses share.  Most parsers take a path or an fd, as they do in the
 * product: the input is handed over as a memfd (a regular file, never on disk), by its fd or
 * by /proc/self/fd/N.  Work that must write files gets a private directory, removed at exit.
 */
#ifndef PC_FUZZ_H
#define PC_FUZZ_H

#include "base/log.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the code under test promises: a finding when it fails (NDEBUG or not). */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, __LINE__,      \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a regular file at offset 0; the caller closes it. */
static inline int fuzz_fd(const uint8_t *data, size_t size)
{
	/* not close-on-exec: merge's child process for foreign tracepoint formats (a fresh exec of
	 * this program) opens the input again by its /proc/self/fd path */
	int fd = memfd_create("fuzz-input", 0);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			perror("write to memfd");
			abort();
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* A path that opens fd's file again (valid while fd is open). */
static inline const char *fuzz_fd_path(int fd)
{
	static char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return path;
}

static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	if (fuzz_dir_path[0])
		rm_rf(fuzz_dir_path);
}

/* A private directory, made on first use, removed at exit. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/pcfuzz.XXXXXX",
			 tmp && strlen(tmp) < 40 ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path)) {
			perror("mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Empties the private directory, for the next input. */
static inline void fuzz_dir_clear(void)
{
	fuzz_dir_remove();
	if (fuzz_dir_path[0] && mkdir(fuzz_dir_path, 0700) < 0) {
		perror("mkdir");
		abort();
	}
}

/* Reads a stream to its end, at most limit bytes; returns how many. */
static inline size_t fuzz_drain(FILE *f, size_t limit)
{
	char buf[4096];
	size_t total = 0, n;
	while (total < limit && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		total += n;
	return total;
}

#endif
