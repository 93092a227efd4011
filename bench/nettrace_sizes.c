/* nettrace_sizes: where a NetTrace file's bytes go.
 *
 *   nettrace_sizes FILE.nettrace
 *
 * Per event name: the events, their payloads' bytes and what those payloads deflate to on
 * their own (each kind's payloads compressed as one stream, as the zip's deflate would see
 * them were they alone: an estimate of each kind's share of the deflated file); the stacks
 * (each id counted once per sequence-point region, as the stack blocks hold them: 8 bytes an
 * address); the rest (block and event headers, metadata, threads) as the file's remaining
 * bytes.  For ProcessSymbol it also counts the distinct (start, end, name): what written once
 * per symbol would leave.  bench/README.md ("Where `<name>.nettrace`'s bytes go") has figures. */
#include "base/bytebuf.h"
#include "base/deflate_chunk.h"
#include "base/hash.h"
#include "nettrace/nettrace_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KINDS 256

struct kind {
	const char *name;
	uint64_t events;
	struct bytebuf payloads;
};

/* A set of 64-bit hashes (open addressing, 0 empty). */
struct set {
	uint64_t *v;
	size_t cap, n;
};

static bool set_add(struct set *s, uint64_t h)
{
	h = hash_mix(h) | 1; /* 0 marks an empty slot */
	if (2 * (s->n + 1) > s->cap) {
		struct set g = {xcalloc(s->cap ? 2 * s->cap : 1024, sizeof(uint64_t)),
				s->cap ? 2 * s->cap : 1024, 0};
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				set_add(&g, s->v[i]);
		free(s->v);
		*s = g;
	}
	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == h)
			return false;
		if (!s->v[i]) {
			s->v[i] = h;
			s->n++;
			return true;
		}
	}
}

static size_t deflated_as(struct deflate_chunker *c, enum deflate_effort effort,
			  const struct bytebuf *b)
{
	uint8_t *out = xmalloc(deflate_chunk_bound(b->len));
	size_t n = deflate_chunk(c, effort, NULL, 0, b->data, b->len, true, out);
	free(out);
	return n;
}

static size_t deflated(struct deflate_chunker *c, const struct bytebuf *b)
{
	return deflated_as(c, DEFLATE_FAST, b); /* the archive's effort for a .nettrace */
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nettrace_sizes FILE.nettrace\n");
		return 2;
	}
	FILE *fp = fopen(argv[1], "rb");
	if (!fp) {
		perror(argv[1]);
		return 1;
	}
	struct nettrace_reader *r = nettrace_reader_new_file(fp, argv[1]);
	if (!r) {
		fprintf(stderr, "%s\n", pc_strerror());
		return 1;
	}
	struct kind kinds[MAX_KINDS] = {{0}};
	size_t nkinds = 0;
	struct set region_stacks = {0}, symbols = {0}, process_symbols = {0};
	struct set kernel_distinct = {0};
	uint64_t kernel_symbols = 0;
	struct bytebuf stacks = {0};
	uint64_t stack_count = 0, symbol_events = 0;
	struct nettrace_item it;
	int rc;
	while ((rc = nettrace_reader_next(r, &it)) > 0) {
		if (it.kind == NETTRACE_ITEM_SEQUENCE_POINT) {
			free(region_stacks.v);
			region_stacks = (struct set){0};
			continue;
		}
		if (it.kind != NETTRACE_ITEM_EVENT)
			continue;
		const struct nettrace_event *e = it.event;
		const char *name = e->meta && e->meta->event_name[0] ? e->meta->event_name : "?";
		size_t k = 0;
		while (k < nkinds && strcmp(kinds[k].name, name))
			k++;
		if (k == nkinds && nkinds < MAX_KINDS)
			kinds[nkinds++].name = xstrdup(name);
		if (k < nkinds) {
			kinds[k].events++;
			bytebuf_bytes(&kinds[k].payloads, e->payload, e->payload_size);
		}
		if (!strcmp(name, "ProcessSymbol")) {
			symbol_events++;
			/* Id, MappingId, then start, end, name: the symbol without its ids */
			const uint8_t *p = e->payload, *end = p + e->payload_size;
			for (int skip = 0; skip < 2 && p < end; skip++)
				while (p < end && *p++ & 0x80)
					;
			uint64_t h = hash_bytes(p, (size_t)(end - p));
			set_add(&symbols, h);
			set_add(&process_symbols, hash_two(h, e->process_id));
			if (end - p > 9 && p[8] & 0x80) { /* a varuint of 10 bytes: the kernel half */
				kernel_symbols++;
				set_add(&kernel_distinct, h);
			}
		}
		if (e->stack_id && e->stack && set_add(&region_stacks, e->stack_id)) {
			stack_count++;
			bytebuf_bytes(&stacks, e->stack, e->stack_depth * 8);
		}
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", pc_strerror());
		return 1;
	}
	const struct nettrace_stats *st = nettrace_reader_stats(r);
	struct deflate_chunker *c = deflate_chunker_new();
	uint64_t accounted = stacks.len + 4 * stack_count;
	printf("%-28s %9s %11s %11s\n", "", "count", "raw bytes", "deflated");
	for (size_t k = 0; k < nkinds; k++) {
		printf("%-28s %9llu %11zu %11zu\n", kinds[k].name,
		       (unsigned long long)kinds[k].events, kinds[k].payloads.len,
		       deflated(c, &kinds[k].payloads));
		accounted += kinds[k].payloads.len;
	}
	printf("%-28s %9llu %11zu %11zu\n", "stacks (per region)", (unsigned long long)stack_count,
	       stacks.len + 4 * stack_count, deflated(c, &stacks));
	printf("%-28s %9s %11llu\n", "headers, metadata, threads", "",
	       (unsigned long long)(st->bytes - accounted));
	struct bytebuf whole = {0};
	whole.data = (uint8_t *)read_file(argv[1], &whole.len);
	if (!whole.data) {
		fprintf(stderr, "%s: %s\n", argv[1], pc_strerror());
		return 1;
	}
	printf("%-28s %9s %11llu %11zu (%zu with more effort)\n", "file", "",
	       (unsigned long long)st->bytes, deflated(c, &whole),
	       deflated_as(c, DEFLATE_SMALL, &whole));
	printf("ProcessSymbol: %llu events (%llu in the kernel's half, %zu distinct), %zu distinct "
	       "(start, end, name), %zu distinct (process, start, end, name)\n",
	       (unsigned long long)symbol_events, (unsigned long long)kernel_symbols,
	       kernel_distinct.n, symbols.n, process_symbols.n);
	return 0;
}
