/* cfi: the DWARF call frame information of one ELF file (.eh_frame and .debug_frame), turned
 * into unwind rules (unwind.h) for any address it covers.
 *
 * The sections' bytes are copied and indexed once (every FDE's range, sorted); a lookup runs
 * the CIE's and the FDE's instructions up to the address (DWARF 5 section 6.4, and the LSB's
 * .eh_frame encodings).  The bytes are outside input: every read is bounded, a bad entry
 * only leaves its range uncovered.  Immutable once made: lookups may run on any number of
 * threads at once.
 */
#ifndef PC_CFI_H
#define PC_CFI_H

#include "unwind.h"

struct cfi_table;

/* One section as the file has it: its bytes and its address (sh_addr, which .eh_frame's
 * pc-relative pointers are relative to). */
struct cfi_section {
	const void *data;
	size_t size;
	uint64_t addr;
};

/* Indexes .eh_frame and .debug_frame (either may be empty: size 0).  Never NULL; a table
 * covering nothing when neither has a usable entry. */
struct cfi_table *cfi_table_new(const struct cfi_section *eh_frame,
				const struct cfi_section *debug_frame);
void cfi_table_free(struct cfi_table *t);
/* How many address ranges (FDEs) it covers, and range i's [*lo, *hi) (false past the
 * last). */
size_t cfi_table_ranges(const struct cfi_table *t);
bool cfi_table_range(const struct cfi_table *t, size_t i, uint64_t *lo, uint64_t *hi);
/* The rule of the frame at pc (an address of the file as linked; for a return address the
 * caller passes the call's address, pc - 1).  Returns false when no FDE covers pc or its
 * instructions cannot be read. */
bool cfi_table_rule(const struct cfi_table *t, uint64_t pc, struct unwind_rule *rule);

#endif
