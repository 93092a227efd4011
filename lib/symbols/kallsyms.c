/* kallsyms: see kallsyms.h.  The file is kept in memory; names point into it. */
#include "kallsyms.h"

#include "symtab.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct kallsyms {
	char *text;
	struct symtab tab;
	char **modules; /* "[name]", index = aux - 1 */
	size_t nmodules, modules_cap;
	bool restricted;
};

static uint16_t module_index(struct kallsyms *k, const char *name, size_t len)
{
	/* modules come in runs; the last one is the likely match */
	for (size_t i = k->nmodules; i > 0; i--) {
		const char *m = k->modules[i - 1];
		if (strlen(m) == len + 2 && !memcmp(m + 1, name, len))
			return (uint16_t)i;
	}
	if (k->nmodules >= UINT16_MAX - 1)
		return UINT16_MAX;
	grow_array((void **)&k->modules, &k->modules_cap, k->nmodules + 1, sizeof(*k->modules));
	k->modules[k->nmodules++] = xasprintf("[%.*s]", (int)len, name);
	return (uint16_t)k->nmodules;
}

/* "ADDR TYPE NAME[\t[MODULE]]" */
static void parse_line(struct kallsyms *k, char *line, bool *all_zero)
{
	/* the address by hand: strtoull() is a fifth of the load time */
	char *p = line, *end = line;
	uint64_t addr = 0;
	for (;; end++) {
		unsigned c = (unsigned char)*end, v;
		if (c - '0' < 10)
			v = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			v = (c | 0x20) - 'a' + 10;
		else
			break;
		addr = addr << 4 | v;
	}
	if (end == p || end - p > 16 || *end != ' ')
		return;
	p = end + 1;
	char type = *p;
	if (!type || p[1] != ' ')
		return;
	char *name = p + 2;
	if (!*name)
		return;
	if (addr)
		*all_zero = false;
	char up = toupper((unsigned char)type);
	if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
		return;
	uint16_t aux = 0;
	char *tab = strchr(name, '\t');
	if (tab) {
		*tab = 0;
		char *mod = tab + 1;
		size_t len = strlen(mod);
		if (len >= 2 && mod[0] == '[' && mod[len - 1] == ']')
			aux = module_index(k, mod + 1, len - 2);
	}
	enum sym_binding b = up == 'W'			    ? SYM_WEAK
			     : isupper((unsigned char)type) ? SYM_GLOBAL
							    : SYM_LOCAL;
	symtab_add(&k->tab, addr, 0, b, name, aux);
}

struct kallsyms *kallsyms_load(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	return text ? kallsyms_parse(text, len) : NULL;
}

struct kallsyms *kallsyms_parse(char *text, size_t len)
{
	struct kallsyms *k = xcalloc(1, sizeof(*k));
	k->text = text;
	bool all_zero = true;
	char *line = text, *end = text + len;
	size_t lines = 0;
	for (char *q = text; (q = memchr(q, '\n', end - q)); q++)
		lines++;
	symtab_reserve(&k->tab, lines + 1);
	while (line < end) {
		char *nl = memchr(line, '\n', end - line);
		if (nl)
			*nl = 0;
		parse_line(k, line, &all_zero);
		line = nl ? nl + 1 : end;
	}
	k->restricted = all_zero;
	if (all_zero)
		k->tab.n = 0; /* every symbol at 0 resolves nothing */
	symtab_finish(&k->tab, true);
	return k;
}

void kallsyms_free(struct kallsyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nmodules; i++)
		free(k->modules[i]);
	free(k->modules);
	symtab_release(&k->tab);
	free(k->text);
	free(k);
}

const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr, const char **module,
			    uint64_t range[2])
{
	const struct sym *s = symtab_find(&k->tab, addr);
	*module = NULL;
	if (!s)
		return NULL;
	if (range) {
		range[0] = s->start;
		range[1] = s->end;
	}
	if (s->aux && s->aux <= k->nmodules)
		*module = k->modules[s->aux - 1];
	return s->name;
}

size_t kallsyms_count(const struct kallsyms *k)
{
	return k->tab.n;
}

bool kallsyms_restricted(const struct kallsyms *k)
{
	return k->restricted;
}
