/* symtab: a sorted table of symbols with perf's rules for sizes and aliases, shared by the
 * kallsyms and ELF readers.  Names are not copied: they point into storage the owner keeps
 * (a file buffer or an ELF string table).
 *
 * perf's rules: a symbol without a size ends where the next one starts (the last one at the
 * next page boundary); of several symbols at one address only one is kept, preferring one
 * with a size, then non-weak, then global, then fewer leading underscores, then the longer
 * name, then the first one read.
 */
#ifndef PC_SYMTAB_H
#define PC_SYMTAB_H

#include "base/util.h"

enum sym_binding { SYM_LOCAL, SYM_GLOBAL, SYM_WEAK };

struct sym {
	uint64_t start, end; /* [start, end) */
	const char *name;
	uint32_t seq; /* read order, for stable sorting */
	uint16_t aux; /* owner's tag (kallsyms: module index, 0 = kernel image) */
	uint8_t binding;
	bool sized; /* had a size of its own (not extended to the next symbol) */
};

struct symtab {
	struct sym *syms;
	size_t n, cap;
	/* Optional, for owners that keep names in another form than the one shown (mangled
	 * C++): gives the shown name, which the alias rule compares.  It may update s->name
	 * (and s->aux) so that the work is done once. */
	const char *(*shown_name)(void *owner, struct sym *s);
	void *owner;
};

/* Room for n more symbols (when the count is known beforehand: no regrowing). */
void symtab_reserve(struct symtab *t, size_t n);
void symtab_add(struct symtab *t, uint64_t start, uint64_t size, enum sym_binding b,
		const char *name, uint16_t aux);
/* Sort and apply the rules above.  kallsyms: a symbol without a size that is followed by
 * one of another module (aux differs) ends at the next page instead (perf does not let the
 * kernel's last symbol swallow the gap up to the modules). */
void symtab_finish(struct symtab *t, bool kallsyms);
/* The symbol covering addr.  Where symbols nest (a label inside a function, extended to
 * the next symbol), one with its own size is preferred. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);
void symtab_release(struct symtab *t);

#endif
