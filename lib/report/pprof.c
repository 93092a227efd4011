/* pprof: see pprof.h.  The protobuf is written by hand (a few varints and length-delimited
 * fields, after github.com/google/pprof's proto/profile.proto), then gzipped with zlib. */
#include "pprof.h"
#include "base/bytebuf.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- protobuf encoding ---- */

enum { PB_VARINT = 0, PB_LEN = 2 };

static void pb_key(struct bytebuf *b, unsigned field, unsigned wire)
{
	bytebuf_varuint(b, (uint64_t)field << 3 | wire);
}

/* proto3: a zero scalar is the default and is not written. */
static void pb_uint(struct bytebuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, PB_VARINT);
	bytebuf_varuint(b, v);
}

static void pb_bytes(struct bytebuf *b, unsigned field, const void *data, size_t n)
{
	pb_key(b, field, PB_LEN);
	bytebuf_varuint(b, n);
	bytebuf_bytes(b, data, n);
}

/* Appends sub as message field `field` of b, and empties sub for the next one. */
static void pb_msg(struct bytebuf *b, unsigned field, struct bytebuf *sub)
{
	pb_bytes(b, field, sub->data, sub->len);
	sub->len = 0;
}

/* ---- the string table ---- */

/* A functable interns each distinct string once, numbered from 0 in order of arrival: the
 * profile's string table ("" first, as pprof wants). */
struct strtab {
	struct functable *ft;
};

static uint64_t str_index(struct strtab *t, const char *s)
{
	return functable_intern(t->ft, s, "", FRAME_NATIVE);
}

/* ---- the profile ---- */

/* Profile fields. */
enum {
	P_SAMPLE_TYPE = 1,
	P_SAMPLE = 2,
	P_MAPPING = 3,
	P_LOCATION = 4,
	P_FUNCTION = 5,
	P_STRING_TABLE = 6,
	P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10,
	P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
	P_COMMENT = 13,
};

struct mapping {
	const char *dso;
	uint64_t lo, hi; /* addresses seen: [lo, hi] */
	const char *build_id;
};

struct builder {
	const struct calltree *t;
	const struct functable *ft;
	const struct pprof_opts *o;
	struct strtab st;
	struct mapping *maps;
	size_t nmaps, maps_cap;
	uint32_t *func_map; /* function id -> mapping id (1-based; 0 = none) */
	bool *used;	    /* function id -> appears as a frame */
};

static bool has_dso(const char *dso)
{
	return *dso && strcmp(dso, "[unknown]");
}

static uint32_t mapping_of(struct builder *b, uint32_t f)
{
	const char *dso = functable_dso(b->ft, f);
	if (!has_dso(dso))
		return 0;
	size_t i = 0;
	while (i < b->nmaps && strcmp(b->maps[i].dso, dso))
		i++;
	if (i == b->nmaps) {
		grow_array((void **)&b->maps, &b->maps_cap, b->nmaps + 1, sizeof(*b->maps));
		b->maps[i] = (struct mapping){.dso = dso, .lo = UINT64_MAX};
		for (size_t k = 0; k < b->o->nbuild_ids; k++)
			if (!strcmp(b->o->build_ids[k].dso, dso))
				b->maps[i].build_id = b->o->build_ids[k].hex;
		b->nmaps++;
	}
	uint64_t ip = functable_ip(b->ft, f);
	if (ip && ip < b->maps[i].lo)
		b->maps[i].lo = ip;
	if (ip && ip > b->maps[i].hi)
		b->maps[i].hi = ip;
	return (uint32_t)i + 1;
}

static void value_type(struct builder *b, struct bytebuf *out, unsigned field, const char *type,
		       const char *unit)
{
	struct bytebuf vt = {0};
	pb_uint(&vt, 1, str_index(&b->st, type));
	pb_uint(&vt, 2, str_index(&b->st, unit));
	pb_msg(out, field, &vt);
	bytebuf_free(&vt);
}

static bool is_process(const struct builder *b, const struct calltree_node *nd)
{
	return nd->depth == 1 && functable_kind(b->ft, nd->func) == FRAME_PROCESS;
}

static uint32_t heaviest_child(const struct calltree *t, uint32_t node)
{
	uint32_t best = CALLTREE_NONE;
	for (uint32_t c = calltree_node(t, node)->first_child; c != CALLTREE_NONE;
	     c = calltree_node(t, c)->next_sibling)
		if (best == CALLTREE_NONE ||
		    calltree_node(t, c)->total > calltree_node(t, best)->total)
			best = c;
	return best;
}

/* One Sample per node with self weight: its frames leaf first, its process as a label. */
static void add_samples(struct builder *b, struct bytebuf *out)
{
	struct bytebuf s = {0}, ids = {0}, lab = {0};
	uint64_t comm_key = str_index(&b->st, "comm");
	for (uint32_t i = 1; i < calltree_count(b->t); i++) {
		const struct calltree_node *nd = calltree_node(b->t, i);
		if (!nd->self)
			continue;
		const char *comm = NULL;
		for (uint32_t at = i; at != CALLTREE_ROOT;) {
			const struct calltree_node *a = calltree_node(b->t, at);
			if (is_process(b, a))
				comm = functable_name(b->ft, a->func);
			else {
				bytebuf_varuint(&ids, (uint64_t)a->func + 1);
				b->used[a->func] = true;
			}
			at = a->parent;
		}
		if (ids.len)
			pb_msg(&s, 1, &ids); /* location_id, packed */
		struct bytebuf vals = {0};
		bytebuf_varuint(&vals, nd->self);
		if (b->o->type2)
			bytebuf_varuint(&vals, u64_round((double)nd->self * b->o->scale2));
		pb_msg(&s, 2, &vals); /* value, packed */
		bytebuf_free(&vals);
		if (comm) {
			pb_uint(&lab, 1, comm_key);
			pb_uint(&lab, 2, str_index(&b->st, comm));
			pb_msg(&s, 3, &lab);
		}
		pb_msg(out, P_SAMPLE, &s);
	}
	bytebuf_free(&s);
	bytebuf_free(&ids);
	bytebuf_free(&lab);
}

static void add_functions_and_locations(struct builder *b, struct bytebuf *out)
{
	struct bytebuf m = {0}, line = {0};
	size_t nf = functable_count(b->ft);
	for (uint32_t f = 0; f < nf; f++) {
		if (!b->used[f])
			continue;
		uint64_t id = (uint64_t)f + 1;
		const char *dso = functable_dso(b->ft, f);
		pb_uint(&m, 1, id);
		pb_uint(&m, 2, str_index(&b->st, functable_name(b->ft, f)));
		pb_uint(&m, 3, str_index(&b->st, functable_sym(b->ft, f)));
		pb_uint(&m, 4, str_index(&b->st, has_dso(dso) ? dso : "[unknown]"));
		pb_msg(out, P_FUNCTION, &m);

		pb_uint(&m, 1, id);
		pb_uint(&m, 2, mapping_of(b, f));
		pb_uint(&m, 3, functable_ip(b->ft, f));
		pb_uint(&line, 1, id);
		pb_msg(&m, 4, &line);
		pb_msg(out, P_LOCATION, &m);
	}
	bytebuf_free(&m);
	bytebuf_free(&line);
}

static void add_mappings(struct builder *b, struct bytebuf *out)
{
	struct bytebuf m = {0};
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct mapping *mp = &b->maps[i];
		pb_uint(&m, 1, i + 1);
		if (mp->lo != UINT64_MAX) {
			pb_uint(&m, 2, mp->lo);
			pb_uint(&m, 3, mp->hi + 1);
		}
		pb_uint(&m, 5, str_index(&b->st, mp->dso));
		if (mp->build_id)
			pb_uint(&m, 6, str_index(&b->st, mp->build_id));
		pb_uint(&m, 7, 1); /* has_functions: the names are in the profile */
		pb_msg(out, P_MAPPING, &m);
	}
	bytebuf_free(&m);
}

static int gzip_out(FILE *out, const struct bytebuf *data)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return pc_err("cannot start gzip");
	uint8_t buf[65536];
	z.next_in = data->data;
	z.avail_in = (uInt)data->len;
	int zr;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		size_t n = sizeof(buf) - z.avail_out;
		if (n && fwrite(buf, 1, n, out) != n)
			break;
	} while (zr == Z_OK);
	deflateEnd(&z);
	if (zr != Z_STREAM_END || fflush(out) || ferror(out))
		return pc_err_errno("cannot write the profile");
	return 0;
}

int pprof_write(FILE *out, const struct calltree *t, const struct pprof_opts *o)
{
	struct builder b = {.t = t, .ft = calltree_functable(t), .o = o};
	size_t nf = functable_count(b.ft);
	b.used = xcalloc(nf ? nf : 1, sizeof(*b.used));
	struct bytebuf prof = {0};
	b.st.ft = functable_new();
	str_index(&b.st, ""); /* string 0 is always "" */

	/* Viewers call the first mapping the profile's main binary: make it the heaviest
	 * process's executable (the shared object named as its command). */
	uint32_t proc = heaviest_child(t, CALLTREE_ROOT);
	if (proc != CALLTREE_NONE && is_process(&b, calltree_node(t, proc))) {
		const char *comm = functable_name(b.ft, calltree_node(t, proc)->func);
		for (uint32_t f = 0; f < nf; f++) {
			const char *dso = functable_dso(b.ft, f), *base = strrchr(dso, '/');
			/* comm is at most 15 bytes of the name (TASK_COMM_LEN). */
			if (base && *comm && !strncmp(base + 1, comm, 15) &&
			    strlen(base + 1) >= strlen(comm)) {
				mapping_of(&b, f);
				break;
			}
		}
	}
	value_type(&b, &prof, P_SAMPLE_TYPE, o->type, o->unit);
	if (o->type2)
		value_type(&b, &prof, P_SAMPLE_TYPE, o->type2, o->unit2);
	add_samples(&b, &prof);
	add_functions_and_locations(&b, &prof);
	add_mappings(&b, &prof);
	pb_uint(&prof, P_TIME_NANOS, (uint64_t)o->time_ns);
	pb_uint(&prof, P_DURATION_NANOS, (uint64_t)o->duration_ns);
	value_type(&b, &prof, P_PERIOD_TYPE, o->type2 ? o->type2 : o->type,
		   o->type2 ? o->unit2 : o->unit);
	pb_uint(&prof, P_PERIOD, (uint64_t)o->period);
	if (o->comment)
		pb_uint(&prof, P_COMMENT, str_index(&b.st, o->comment));
	/* The string table last: every string is known only now. */
	for (uint32_t i = 0; i < functable_count(b.st.ft); i++) {
		const char *str = functable_sym(b.st.ft, i);
		pb_bytes(&prof, P_STRING_TABLE, str, strlen(str));
	}

	int rc = gzip_out(out, &prof);
	bytebuf_free(&prof);
	functable_free(b.st.ft);
	free(b.maps);
	free(b.used);
	return rc;
}
