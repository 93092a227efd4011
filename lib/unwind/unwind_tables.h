/* unwind_tables: the unwind tables of one mapped file, read once: an ELF file's CFI
 * (cfi.h), or a PE image's x64 unwind info (pe_unwind.h), looked up by file offset (what a
 * mapping gives: address - start + pgoff).  Immutable once made, so one file's tables serve
 * every process that maps it, from any thread; a lookup's answers are kept in an
 * unwind_memo, one per thread.
 */
#ifndef PC_UNWIND_TABLES_H
#define PC_UNWIND_TABLES_H

#include "unwind.h"

struct unwind_tables;

/* Reads the tables of the file open on fd (ELF or PE; the fd stays the caller's: a PE
 * image's tables keep a duplicate).  Never NULL: a file with none
 * gives tables that cover nothing. */
struct unwind_tables *unwind_tables_new_fd(int fd);
/* The same from an ELF image in memory (the vdso); the bytes it needs are copied. */
struct unwind_tables *unwind_tables_new_mem(const void *image, size_t size);
void unwind_tables_free(struct unwind_tables *t);
/* What they hold, for the log: ".eh_frame: 1234 ranges", "PE: 50578 functions", "none". */
const char *unwind_tables_describe(const struct unwind_tables *t, char *buf, size_t len);
bool unwind_tables_empty(const struct unwind_tables *t);

/* The rule at file offset off (exact: an interrupted instruction; else a return address).
 * false when the tables do not cover it. */
bool unwind_tables_rule(const struct unwind_tables *t, uint64_t off, bool exact,
			struct unwind_rule *rule);

/* Rules already looked up, by tables and offset: a lookup is a binary search and a run of
 * CFI instructions, and stacks repeat.  One per thread; tables must outlive the memo's use
 * of them (each has an id no later tables reuse, so a stale entry never answers). */
struct unwind_memo;
struct unwind_memo *unwind_memo_new(void);
void unwind_memo_free(struct unwind_memo *m);
bool unwind_memo_rule(struct unwind_memo *m, const struct unwind_tables *t, uint64_t off,
		      bool exact, struct unwind_rule *rule);

#endif
