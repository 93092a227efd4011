/* tracing_data: the "tracing data" of a perf.data (HEADER_TRACING_DATA: tracepoint formats,
 * header page, printk formats, kallsyms, saved cmdlines) taken apart and checked before
 * libtraceevent sees any of it.
 *
 * A perf.data from elsewhere carries formats anyone may have written, and libtraceevent
 * (Debian's 1.7.1) reads past buffers and dereferences NULL on malformed ones.  So: every
 * size must fit the blob, every text section is NUL-free printable text, each event format
 * has the kernel's shape ("name:", "ID:", "format:", field lines with offsets and sizes that
 * fit a record, "print fmt:" with balanced quotes and parentheses), and the printk formats,
 * kallsyms and cmdlines sections keep only lines of the shape libtraceevent's line parsers
 * can take (others are dropped and counted).  A format that fails its check is left out
 * (its samples print no fields) and counted; a blob whose layout does not add up fails.
 *
 * tracing_data_is_local() says whether the formats are this machine's own, byte for byte
 * as its tracefs shows them (our recordings, perf's on this machine): only those are
 * handed to libtraceevent in our own process (postprocess/trace_fields.h).
 */
#ifndef PC_TRACING_DATA_H
#define PC_TRACING_DATA_H

#include "base/util.h"

/* The blob's first bytes. */
extern const char tracing_data_magic[10];

struct tracing_format {
	const char *system; /* "sched"; "ftrace" for the ftrace section */
	char name[64];	    /* from its "name:" line */
	const char *text;   /* into the blob, not NUL-terminated */
	size_t len;
};

struct tracing_data {
	char version[8]; /* "0.5", "0.6" */
	bool big_endian;
	uint8_t long_size; /* 4 or 8 */
	uint32_t page_size;
	const char *header_page, *header_event; /* into the blob */
	size_t header_page_len, header_event_len;
	struct tracing_format *formats; /* the ones that passed their check */
	size_t nr_formats, nr_bad_formats;
	char first_bad[160]; /* "sys:name: why" of the first format left out */
	/* NUL-terminated copies holding only well-formed lines (NULL when the blob has none) */
	char *kallsyms, *printk_formats, *cmdlines;
	size_t nr_bad_lines;
};

/* Parses and checks the blob; the result points into it.  -1 with pc_err() saying what is
 * wrong when its layout does not add up. */
int tracing_data_parse(const void *blob, size_t size, struct tracing_data *td);
void tracing_data_release(struct tracing_data *td);

/* True when the byte order, long and page size are this machine's, there are no ftrace
 * formats, and header_page and every event format equal this machine's tracefs files. */
bool tracing_data_is_local(const struct tracing_data *td);

#endif
