/* archive_read: the reading half of archive.h, on libzip: it reads any zip, ours or one
 * written by perfcollect's `zip -r`, with every method and extension libzip knows. */
#include "archive.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

static const char *zip_errstr(int code)
{
	static __thread char buf[256];
	zip_error_t e;
	zip_error_init_with_code(&e, code);
	snprintf(buf, sizeof(buf), "%s", zip_error_strerror(&e));
	zip_error_fini(&e);
	return buf;
}

struct archive_reader {
	zip_t *zip;
	char *path;
	size_t count;
};

struct archive_reader *archive_reader_open(const char *zip_path)
{
	int err = 0;
	zip_t *z = zip_open(zip_path, ZIP_RDONLY, &err);
	if (!z) {
		if (err == ZIP_ER_NOENT || err == ZIP_ER_OPEN)
			pc_err_errno("cannot open %s", zip_path);
		else
			pc_err("cannot open %s: %s", zip_path, zip_errstr(err));
		return NULL;
	}
	struct archive_reader *r = xcalloc(1, sizeof(*r));
	r->zip = z;
	r->path = xstrdup(zip_path);
	zip_int64_t n = zip_get_num_entries(z, 0);
	r->count = n > 0 ? (size_t)n : 0;
	return r;
}

void archive_reader_free(struct archive_reader *r)
{
	if (!r)
		return;
	zip_discard(r->zip);
	free(r->path);
	free(r);
}

size_t archive_reader_count(const struct archive_reader *r)
{
	return r->count;
}

enum tracefile_kind archive_reader_kind(const struct archive_reader *r)
{
	if (archive_reader_find(r, "perf.data.txt") >= 0 ||
	    archive_reader_find(r, "perf.data") >= 0)
		return TRACEFILE_ZIP;
	for (size_t i = 0; i < archive_reader_count(r); i++)
		if (tracefile_is_nettrace_name(archive_reader_name(r, i)))
			return TRACEFILE_NETTRACE_ZIP;
	return TRACEFILE_ZIP;
}

const char *archive_reader_name(const struct archive_reader *r, size_t i)
{
	const char *n = zip_get_name(r->zip, i, ZIP_FL_ENC_GUESS);
	return n ? n : "";
}

uint64_t archive_reader_size(const struct archive_reader *r, size_t i)
{
	zip_stat_t st;
	if (zip_stat_index(r->zip, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE))
		return 0;
	return st.size;
}

long archive_reader_find(const struct archive_reader *r, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < r->count; i++) {
		const char *n = archive_reader_name(r, i);
		size_t l = strlen(n);
		if (!strcmp(n, name))
			return (long)i;
		if (l > nl && n[l - nl - 1] == '/' && !strcmp(n + l - nl, name))
			return (long)i;
	}
	return -1;
}

static ssize_t entry_read(void *cookie, char *buf, size_t size)
{
	zip_int64_t n = zip_fread(cookie, buf, size);
	if (n < 0) {
		pc_err("%s", zip_file_strerror(cookie)); /* a CRC error, a cut entry ... */
		errno = EIO;
		return -1;
	}
	return n;
}

static int entry_close(void *cookie)
{
	return zip_fclose(cookie);
}

FILE *archive_reader_open_entry(struct archive_reader *r, size_t i)
{
	if (i >= r->count) {
		pc_err("no entry %zu in %s", i, r->path);
		return NULL;
	}
	zip_file_t *zf = zip_fopen_index(r->zip, i, 0);
	if (!zf) {
		pc_err("cannot read %s in %s: %s", archive_reader_name(r, i), r->path,
		       zip_strerror(r->zip));
		return NULL;
	}
	cookie_io_functions_t io = {.read = entry_read, .close = entry_close};
	FILE *f = fopencookie(zf, "r", io);
	if (!f) {
		zip_fclose(zf);
		pc_err_errno("cannot stream %s", archive_reader_name(r, i));
		return NULL;
	}
	return f;
}

static int extract_one(struct archive_reader *r, size_t i, const char *dest_dir)
{
	const char *name = archive_reader_name(r, i);
	if (!archive_name_is_safe(name))
		return pc_err("refusing unsafe entry name '%s' in %s", name, r->path);
	char *out = xasprintf("%s/%s", dest_dir, name);
	int ret = -1;
	size_t len = strlen(out);
	if (out[len - 1] == '/') {
		ret = mkdir_p(out, 0700);
		goto done;
	}
	char *slash = strrchr(out, '/');
	*slash = 0;
	if (mkdir_p(out, 0700) < 0)
		goto done;
	*slash = '/';
	int fd = outfile_create(out, 0);
	if (fd < 0)
		goto done;
	FILE *in = archive_reader_open_entry(r, i);
	ret = in ? file_copy_stream(fd, in, UINT64_MAX, NULL) : -1;
	if (in && ret < 0)
		pc_err("cannot read %s in %s: %s", name, r->path, pc_strerror());
	if (in && fclose(in) != 0 && ret == 0)
		ret = pc_err("cannot read %s in %s", name, r->path);
	if (close(fd) < 0 && ret == 0)
		ret = pc_err_errno("cannot write %s", out);
done:
	free(out);
	return ret;
}

static bool listed(const char *name, const char *const *list)
{
	for (; list && *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

int archive_reader_extract_all(struct archive_reader *r, const char *dest_dir,
			       const char *const *skip)
{
	for (size_t i = 0; i < r->count; i++)
		if (!listed(archive_reader_name(r, i), skip) && extract_one(r, i, dest_dir) < 0)
			return -1;
	return 0;
}
