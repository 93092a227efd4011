/* tracing_blob: builds perf's tracing-data blob (HEADER_TRACING_DATA, layout in
 * lib/record/tracing_data.c) from formats given as text, for the tests of its readers.
 * The header page and event description are this kernel's as of Linux 6.x. */
#ifndef PC_TRACING_BLOB_H
#define PC_TRACING_BLOB_H

#include "base/util.h"

#include <byteswap.h>
#include <stdlib.h>
#include <string.h>

struct tblob {
	char *p;
	size_t len, cap;
	bool swap; /* write the sizes big-endian (the endian byte says so) */
};

static inline void tblob_put(struct tblob *b, const void *p, size_t n)
{
	grow_array((void **)&b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void tblob_u32(struct tblob *b, uint32_t v)
{
	if (b->swap)
		v = bswap_32(v);
	tblob_put(b, &v, 4);
}

static inline void tblob_sized(struct tblob *b, const char *text, int width)
{
	size_t n = strlen(text);
	if (width == 4) {
		tblob_u32(b, (uint32_t)n);
	} else {
		uint64_t v = b->swap ? bswap_64(n) : n;
		tblob_put(b, &v, 8);
	}
	tblob_put(b, text, n);
}

#define TBLOB_HEADER_PAGE                                                                          \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"                                 \
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"                                \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"                                 \
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"

/* One system's formats (NULL-terminated list), then printk formats (may be NULL). */
static inline struct tblob tblob_build(const char *system, const char *const *formats,
				       const char *printk, bool big_endian)
{
	struct tblob b = {.swap = big_endian};
	tblob_put(&b, "\027\010\104tracing0.6", 14);
	uint8_t flags[2] = {big_endian, 8};
	tblob_put(&b, flags, 2);
	tblob_u32(&b, 4096);
	tblob_put(&b, "header_page", 12);
	tblob_sized(&b, TBLOB_HEADER_PAGE, 8);
	tblob_put(&b, "header_event", 13);
	tblob_sized(&b, "# compressed entry header\n\ttype_len    :    5 bits\n", 8);
	tblob_u32(&b, 0); /* ftrace */
	tblob_u32(&b, 1);
	tblob_put(&b, system, strlen(system) + 1);
	uint32_t n = 0;
	while (formats[n])
		n++;
	tblob_u32(&b, n);
	for (uint32_t i = 0; i < n; i++)
		tblob_sized(&b, formats[i], 8);
	tblob_u32(&b, 0); /* kallsyms */
	tblob_sized(&b, printk ? printk : "", 4);
	tblob_sized(&b, "", 8); /* saved cmdlines */
	return b;
}

/* A tracepoint format in the kernel's shape: id, a u32 "value" and a char[16] "name". */
static inline char *tblob_format(const char *event, unsigned id, const char *print_fmt)
{
	return xasprintf(
	    "name: %s\nID: %u\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "\tfield:unsigned int value;\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:char name[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	    "\n"
	    "print fmt: %s\n",
	    event, id, print_fmt);
}

#define TBLOB_RECORD_SIZE 28

/* pctest:ev (ID 900) with this print fmt, alone in a blob. */
static inline struct tblob tblob_one(const char *print_fmt, const char *printk, bool big_endian)
{
	char *fmt = tblob_format("ev", 900, print_fmt);
	const char *formats[] = {fmt, NULL};
	struct tblob b = tblob_build("pctest", formats, printk, big_endian);
	free(fmt);
	return b;
}

#endif
