/* archive_zip: the zip layout of the archive (APPNOTE 6.3).  Per entry a local header, the
 * data; then the central directory and its end record, in zip64 form where a size or an
 * offset needs it.  An entry whose size is unknown when it starts (a stream, a file that
 * may grow) gets a zip64 local header whose sizes are filled in when it ends; every other
 * header is written once. */
#include "archive_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define ZIP64_NEEDED 45
#define ZIP_NEEDED   20

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Appends to the file; the first failure is kept and later writes are skipped. */
void zip_write(struct archive_writer *w, const void *buf, size_t len)
{
	if (w->write_errno)
		return;
	if (write_all(w->fd, buf, len) < 0) {
		w->write_errno = errno ? errno : EIO;
		return;
	}
	w->offset += len;
}

static void file_pwrite(struct archive_writer *w, const void *buf, size_t len, uint64_t off)
{
	if (w->write_errno)
		return;
	if (pwrite(w->fd, buf, len, (off_t)off) != (ssize_t)len)
		w->write_errno = errno ? errno : EIO;
}

void zip_dos_time(time_t t, uint16_t *tm, uint16_t *date)
{
	struct tm lt;
	if (!localtime_r(&t, &lt) || lt.tm_year < 80) {
		*tm = 0;
		*date = (1 << 5) | 1; /* 1980-01-01 */
		return;
	}
	*tm = (uint16_t)((lt.tm_hour << 11) | (lt.tm_min << 5) | (lt.tm_sec / 2));
	*date = (uint16_t)(((lt.tm_year - 80) << 9) | ((lt.tm_mon + 1) << 5) | lt.tm_mday);
}

static uint16_t entry_flags(const struct zentry *e)
{
	for (const char *p = e->name; *p; p++)
		if (*p & 0x80)
			return 1 << 11; /* the name is UTF-8 */
	return 0;
}

void zip_local_header(struct archive_writer *w, struct zentry *e)
{
	uint8_t h[30];
	size_t name_len = strlen(e->name);
	e->header_offset = w->offset;
	put32(h, 0x04034b50);
	put16(h + 4, e->zip64_local ? ZIP64_NEEDED : ZIP_NEEDED);
	put16(h + 6, entry_flags(e));
	put16(h + 8, e->method);
	put16(h + 10, e->dos_time);
	put16(h + 12, e->dos_date);
	memset(h + 14, 0, 12); /* crc and sizes: filled in when the entry ends */
	put16(h + 26, (uint16_t)name_len);
	put16(h + 28, e->zip64_local ? 20 : 0);
	zip_write(w, h, 30);
	zip_write(w, e->name, name_len);
	if (e->zip64_local) {
		memset(h, 0, 20);
		put16(h, 0x0001);
		put16(h + 2, 16);
		zip_write(w, h, 20);
	}
}

/* The entry's data is all written: its CRC and sizes go into the local header. */
void zip_local_header_end(struct archive_writer *w, struct zentry *e)
{
	uint8_t b[16];
	put32(b, e->crc);
	if (e->zip64_local) {
		put32(b + 4, (uint32_t)U32_MAX);
		put32(b + 8, (uint32_t)U32_MAX);
		file_pwrite(w, b, 12, e->header_offset + 14);
		put64(b, e->usize);
		put64(b + 8, e->csize);
		file_pwrite(w, b, 16, e->header_offset + 30 + strlen(e->name) + 4);
	} else {
		put32(b + 4, (uint32_t)e->csize);
		put32(b + 8, (uint32_t)e->usize);
		file_pwrite(w, b, 12, e->header_offset + 14);
	}
	e->written = true;
}

/* Central directory and end records. */
void zip_directory(struct archive_writer *w)
{
	uint64_t cd_start = w->offset;
	for (size_t i = 0; i < w->nentries; i++) {
		struct zentry *e = w->entries[i];
		uint8_t h[46], x[4 + 24];
		size_t name_len = strlen(e->name), xl = 4;
		bool big_u = e->usize >= U32_MAX, big_c = e->csize >= U32_MAX,
		     big_o = e->header_offset >= U32_MAX;
		if (big_u)
			put64(x + (xl += 8) - 8, e->usize);
		if (big_c)
			put64(x + (xl += 8) - 8, e->csize);
		if (big_o)
			put64(x + (xl += 8) - 8, e->header_offset);
		bool zip64 = xl > 4;
		put16(x, 0x0001);
		put16(x + 2, (uint16_t)(xl - 4));
		uint16_t needed = zip64 || e->zip64_local ? ZIP64_NEEDED : ZIP_NEEDED;
		put32(h, 0x02014b50);
		put16(h + 4, (3 << 8) | needed); /* made by: Unix */
		put16(h + 6, needed);
		put16(h + 8, entry_flags(e));
		put16(h + 10, e->method);
		put16(h + 12, e->dos_time);
		put16(h + 14, e->dos_date);
		put32(h + 16, e->crc);
		put32(h + 20, big_c ? (uint32_t)U32_MAX : (uint32_t)e->csize);
		put32(h + 24, big_u ? (uint32_t)U32_MAX : (uint32_t)e->usize);
		put16(h + 28, (uint16_t)name_len);
		put16(h + 30, zip64 ? (uint16_t)xl : 0);
		put16(h + 32, 0);			   /* comment */
		put16(h + 34, 0);			   /* disk */
		put16(h + 36, 0);			   /* internal attributes */
		put32(h + 38, (uint32_t)(0100644u << 16)); /* a regular file, rw-r--r-- */
		put32(h + 42, big_o ? (uint32_t)U32_MAX : (uint32_t)e->header_offset);
		zip_write(w, h, 46);
		zip_write(w, e->name, name_len);
		if (zip64)
			zip_write(w, x, xl);
	}
	uint64_t cd_size = w->offset - cd_start, n = w->nentries;
	uint8_t r[56 + 20 + 22];
	if (n >= 0xffff || cd_start >= U32_MAX || cd_size >= U32_MAX) {
		uint64_t z64_start = w->offset;
		put32(r, 0x06064b50); /* zip64 end of central directory */
		put64(r + 4, 44);
		put16(r + 12, (3 << 8) | ZIP64_NEEDED);
		put16(r + 14, ZIP64_NEEDED);
		put32(r + 16, 0);
		put32(r + 20, 0);
		put64(r + 24, n);
		put64(r + 32, n);
		put64(r + 40, cd_size);
		put64(r + 48, cd_start);
		put32(r + 56, 0x07064b50); /* its locator */
		put32(r + 60, 0);
		put64(r + 64, z64_start);
		put32(r + 72, 1);
		zip_write(w, r, 76);
	}
	put32(r, 0x06054b50);
	put16(r + 4, 0);
	put16(r + 6, 0);
	put16(r + 8, n >= 0xffff ? 0xffff : (uint16_t)n);
	put16(r + 10, n >= 0xffff ? 0xffff : (uint16_t)n);
	put32(r + 12, cd_size >= U32_MAX ? (uint32_t)U32_MAX : (uint32_t)cd_size);
	put32(r + 16, cd_start >= U32_MAX ? (uint32_t)U32_MAX : (uint32_t)cd_start);
	put16(r + 20, 0);
	zip_write(w, r, 22);
}
