/* kallsyms: kernel symbols from /proc/kallsyms (or a copy saved at collect time), as perf
 * reads them: text and data symbols ('T', 'W', 'D', 'B', any case), sizes taken as the
 * distance to the next symbol, aliases at one address reduced to the one perf prefers.
 * Module symbols ("name\t[module]") carry their module so the caller can print "[module]".
 */
#ifndef PC_KALLSYMS_H
#define PC_KALLSYMS_H

#include "base/util.h"

struct kallsyms;

/* NULL with pc_err() when the file cannot be read. */
struct kallsyms *kallsyms_load(const char *path);
/* The same from the file's text (NUL-terminated, len bytes before the NUL), which the
 * result owns from then on. */
struct kallsyms *kallsyms_parse(char *text, size_t len);
void kallsyms_free(struct kallsyms *k);
/* The symbol covering addr, or NULL.  *module gets "[name]" for module symbols, NULL for
 * the kernel image; range (may be NULL) the addresses [start, end) the symbol spans. */
const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr, const char **module,
			    uint64_t range[2]);
size_t kallsyms_count(const struct kallsyms *k);
/* true when every address read was 0 (kptr_restrict hid them). */
bool kallsyms_restricted(const struct kallsyms *k);

#endif
