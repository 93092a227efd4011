/* tracefile: see tracefile.h. */
#include "tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum tracefile_kind tracefile_kind_of(const void *head, size_t len)
{
	static const struct {
		const char *magic;
		size_t len;
		enum tracefile_kind kind;
	} magics[] = {
	    {"PERFILE2", 8, TRACEFILE_PERF_DATA},
	    {"2ELIFREP", 8, TRACEFILE_PERF_DATA}, /* written on a big-endian machine */
	    {"PK\3\4", 4, TRACEFILE_ZIP},
	    {"Nettrace", 8, TRACEFILE_NETTRACE},
	    /* a .netperf (NetTrace 3, .NET Core 2.1): no magic, the FastSerialization header's
	     * length (20) and its start */
	    {"\x14\0\0\0!Fas", 8, TRACEFILE_NETTRACE},
	};
	if (!len)
		return TRACEFILE_EMPTY;
	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if (len >= magics[i].len && !memcmp(head, magics[i].magic, magics[i].len))
			return magics[i].kind;
	return TRACEFILE_OTHER;
}

int tracefile_classify(const char *path, enum tracefile_kind *kind)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return pc_err_errno("cannot open %s", path);
	if (S_ISDIR(st.st_mode)) {
		*kind = TRACEFILE_DIR;
		return 0;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("cannot open %s", path);
	char head[8];
	ssize_t n;
	while ((n = read(fd, head, sizeof(head))) < 0 && errno == EINTR)
		;
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return pc_err_errno("cannot read %s", path);
	}
	*kind = tracefile_kind_of(head, (size_t)n);
	return 0;
}

bool tracefile_is_nettrace_name(const char *name)
{
	return str_endswith(name, TRACE_NETTRACE_SUFFIX) || str_endswith(name, ".netperf");
}

bool tracefile_is_runtime_stream(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	return str_startswith(base, "dotnet-") && str_endswith(base, TRACE_NETTRACE_SUFFIX);
}

/* The last component of path, trailing slashes dropped ("x.trace/" -> "x.trace"). */
static char *last_component(const char *path)
{
	char *copy = xstrdup(path);
	size_t l = strlen(copy);
	while (l > 1 && copy[l - 1] == '/')
		copy[--l] = 0;
	char *b = xstrdup(basename(copy));
	free(copy);
	return b;
}

char *tracefile_name(const char *path)
{
	static const char *const suffixes[] = {TRACE_ZIP_SUFFIX, ".zip", TRACE_DIR_SUFFIX,
					       ".data",		 ".txt", TRACE_NETTRACE_SUFFIX,
					       ".netperf"};
	char *base = last_component(path);
	size_t bl = strlen(base);
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);
		if (bl > sl && str_endswith(base, suffixes[i])) {
			base[bl - sl] = 0;
			break;
		}
	}
	return base;
}

char *tracefile_path(const char *dir, const char *name, const char *suffix)
{
	return xasprintf("%s/%s%s", dir && *dir ? dir : ".", name, suffix);
}

char *tracefile_nettrace_beside(const char *zip)
{
	size_t l = strlen(zip);
	if (str_endswith(zip, TRACE_ZIP_SUFFIX))
		l -= strlen(TRACE_ZIP_SUFFIX);
	else if (str_endswith(zip, ".zip"))
		l -= strlen(".zip");
	return xasprintf("%.*s%s", (int)l, zip, TRACE_NETTRACE_SUFFIX);
}

char *tracefile_entry(const char *zip, const char *file)
{
	char *base = last_component(zip);
	if (str_endswith(base, ".zip"))
		base[strlen(base) - 4] = 0;
	char *entry = xasprintf("%s%s/%s", base[0] ? base : "stacks",
				str_endswith(base, TRACE_DIR_SUFFIX) ? "" : TRACE_DIR_SUFFIX, file);
	free(base);
	return entry;
}

int tracedir_claim(const char *dir, int *holder, bool *left_over)
{
	*left_over = false;
	int fd = lock_dir(dir, holder);
	if (fd < 0)
		return -1;
	char *marker = xasprintf("%s/%s", dir, TRACEDIR_MARKER);
	*left_over = access(marker, F_OK) == 0;
	free(marker);
	return fd;
}
