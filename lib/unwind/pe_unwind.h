/* pe_unwind: the x64 unwind information of a PE image (a .NET ReadyToRun assembly: the
 * exception directory's RUNTIME_FUNCTION table and its UNWIND_INFO, Microsoft's "x64
 * exception handling" format, which the .NET runtime uses on Linux too), turned into unwind
 * rules (unwind.h).
 *
 * The headers and the function table are read once; a lookup reads the function's
 * UNWIND_INFO (and, at the leaf, the instructions after pc, to tell an epilogue) from the
 * file, which stays open, with pread: the image is outside input, every size read from it is
 * bounded, and a file cut short only leaves its functions without rules.  Immutable once
 * made: lookups may run on any number of threads at once.
 */
#ifndef PC_PE_UNWIND_H
#define PC_PE_UNWIND_H

#include "unwind.h"

struct pe_unwind;

/* Reads the PE image open on fd (the table keeps it: closed by pe_unwind_free).  NULL, with
 * fd closed, when it is no x64 PE image or has no function table. */
struct pe_unwind *pe_unwind_new(int fd);
void pe_unwind_free(struct pe_unwind *t);
size_t pe_unwind_functions(const struct pe_unwind *t);
/* Function i's [*begin, *end) (relative virtual addresses); false past the last. */
bool pe_unwind_function(const struct pe_unwind *t, size_t i, uint32_t *begin, uint32_t *end);
/* The relative virtual address of a file offset, by the section that holds it; false when no
 * section does. */
bool pe_unwind_rva(const struct pe_unwind *t, uint64_t file_off, uint32_t *rva);
/* The rule of the frame at rva (exact: an interrupted instruction, which may be in an
 * epilogue; else a return address, the call being at rva - 1).  false when no function
 * covers it or its unwind information is unreadable. */
bool pe_unwind_rule(const struct pe_unwind *t, uint32_t rva, bool exact, struct unwind_rule *rule);

#endif
