/* The writers view exports with, on small trees whose numbers are known: .NET short labels,
 * sub-pixel frames merged in the SVG, the differential match and table, the pprof protobuf
 * (decoded here field by field after gunzip), the speedscope JSON. */
#include "report/calltree.h"
#include "report/diff.h"
#include "report/flamegraph.h"
#include "report/pprof.h"
#include "report/speedscope.h"
#include "test.h"

#include <zlib.h>

static void test_short_names(void)
{
	char buf[256];
	CHECK_STR(flamegraph_short_name("int32 [pc-dotnet-app] PcDotnetApp.HotLoop::Digits(int32)"
					"[OptimizedTier1]",
					buf, sizeof(buf)),
		  "HotLoop::Digits");
	CHECK_STR(
	    flamegraph_short_name("instance bool [pc-dotnet-app] "
				  "PcDotnetApp.HotLoop+<Rounds>d__2::MoveNext()[OptimizedTier1]",
				  buf, sizeof(buf)),
	    "HotLoop+<Rounds>d__2::MoveNext");
	CHECK_STR(
	    flamegraph_short_name("instance void [System.Linq] System.Linq.Enumerable+"
				  "IEnumerableWhereSelectIterator`2[System.Int32,System.Int64]"
				  "::Dispose()[OptimizedTier1]",
				  buf, sizeof(buf)),
	    "Enumerable+IEnumerableWhereSelectIterator`2::Dispose");
	CHECK_STR(flamegraph_short_name("!!0[] [System.Private.CoreLib] System.GC::<Alloc>g__W|7_0("
					"int32,bool)[OptimizedTier1]",
					buf, sizeof(buf)),
		  "GC::<Alloc>g__W|7_0");
	/* Not the runtime's layout: as it is. */
	const char *cpp = "std::vector<int, std::allocator<int> >::push_back(int const&)";
	CHECK(flamegraph_short_name(cpp, buf, sizeof(buf)) == cpp);
	CHECK(flamegraph_short_name("hot_leaf", buf, sizeof(buf)) != buf);
	CHECK(flamegraph_short_name("[unknown]", buf, sizeof(buf)) != buf);
}

/* A tree: process "app", main;hot x weight, main;cold y weight. */
static struct calltree *tree(struct functable *ft, uint64_t hot, uint64_t cold, uint64_t rare)
{
	struct calltree *t = calltree_new(ft);
	uint32_t app = functable_intern(ft, "app", "", FRAME_PROCESS);
	uint32_t m = functable_intern_frame(ft, "main", "/bin/app", 0x1000);
	uint32_t h = functable_intern_frame(ft, "hot", "/bin/app", 0x1100);
	uint32_t c = functable_intern_frame(ft, "cold", "/lib/libc.so.6", 0x7000);
	uint32_t r = functable_intern_frame(ft, "rare", "/bin/app", 0x1200);
	calltree_add(t, (uint32_t[]){app, m, h}, 3, hot);
	calltree_add(t, (uint32_t[]){app, m, c}, 3, cold);
	if (rare)
		calltree_add(t, (uint32_t[]){app, m, r}, 3, rare);
	return t;
}

static char *write_mem(int (*fn)(FILE *, const struct calltree *, const void *),
		       const struct calltree *t, const void *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	CHECK(fn(f, t, o) == 0);
	fclose(f);
	return buf;
}

static int svg_fn(FILE *f, const struct calltree *t, const void *o)
{
	return flamegraph_write_svg(f, t, o);
}

static void test_merged_frames(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = calltree_new(ft);
	uint32_t app = functable_intern(ft, "app", "", FRAME_PROCESS);
	uint32_t m = functable_intern_frame(ft, "main", "/bin/app", 1);
	calltree_add(t, (uint32_t[]){app, m}, 2, 100000);
	/* 50 callees of 1 sample each: 1/100050 of 1180 px, far under a pixel. */
	for (int i = 0; i < 50; i++) {
		char name[16];
		snprintf(name, sizeof(name), "tiny%02d", i);
		uint32_t f = functable_intern_frame(ft, name, "/bin/app", 2);
		calltree_add(t, (uint32_t[]){app, m, f}, 3, 1);
	}
	struct flamegraph_opts o = {.title = "T<&>", .width = 1200};
	size_t len;
	char *svg = write_mem(svg_fn, t, &o, &len);
	CHECK(strstr(svg, "50 functions, each narrower than a pixel at 1200 px") != NULL);
	CHECK(strstr(svg, "tiny07") == NULL);
	CHECK(strstr(svg, ">T&lt;&amp;&gt;</text>") != NULL);
	CHECK(strstr(svg, "width=\"1200\"") != NULL);
	free(svg);
	calltree_free(t);
	functable_free(ft);
}

static void test_diff(void)
{
	struct functable *nft = functable_new(), *oft = functable_new();
	struct calltree *now = tree(nft, 60, 30, 10), *was = tree(oft, 30, 70, 0);
	uint64_t *bt = diff_base_totals(now, was);
	for (uint32_t i = 0; i < calltree_count(now); i++) {
		const struct calltree_node *nd = calltree_node(now, i);
		const char *name = i ? functable_name(nft, nd->func) : "root";
		if (!strcmp(name, "hot"))
			CHECK_EQ_U64(bt[i], 30);
		else if (!strcmp(name, "cold"))
			CHECK_EQ_U64(bt[i], 70);
		else if (!strcmp(name, "rare"))
			CHECK_EQ_U64(bt[i], 0);
		else
			CHECK_EQ_U64(bt[i], 100); /* root, app, main */
	}
	/* The SVG: hot grew from 30% to 60% (red), cold fell from 70% to 30% (blue, the largest
	 * change, so the deepest blue), rare is new. */
	struct flamegraph_opts o = {.base_totals = bt, .base_name = "old.trace.zip"};
	size_t len;
	char *svg = write_mem(svg_fn, now, &o, &len);
	CHECK(strstr(svg, "change +30.00 points") != NULL);
	CHECK(strstr(svg, "change -40.00 points") != NULL);
	CHECK(strstr(svg, "fill=\"rgb(45,45,255)\"") != NULL); /* cold */
	CHECK(strstr(svg, "fill=\"rgb(255,97,97)\"") != NULL); /* hot: 30/40 of the scale */
	CHECK(strstr(svg, "in old.trace.zip: 70 samples, 70.00%") != NULL);
	free(svg);
	free(bt);

	char *txt = NULL;
	FILE *f = open_memstream(&txt, &len);
	struct diff_opts d = {.top = 10, .unit = "samples", .new_name = "new", .base_name = "old"};
	CHECK(diff_report(f, now, was, &d) == 0);
	fclose(f);
	/* cold moved most (-40 points), then hot (+30), then rare (+10, new). */
	char *cold = strstr(txt, "cold"), *hot = strstr(txt, "hot"), *rare = strstr(txt, "rare");
	CHECK(cold && hot && rare && cold < hot && hot < rare);
	CHECK(strstr(txt, "70.00%    30.00%   -40.00") != NULL);
	CHECK(strstr(txt, "rare  (new)") != NULL);
	CHECK(strstr(txt, " main") == NULL); /* its share did not move */
	free(txt);
	calltree_free(now);
	calltree_free(was);
	functable_free(nft);
	functable_free(oft);
}

/* ---- a protobuf reader, enough for the pprof checks ---- */

struct pbr {
	const uint8_t *p, *end;
};

static uint64_t varint(struct pbr *r)
{
	uint64_t v = 0;
	for (int s = 0; r->p < r->end && s < 64; s += 7) {
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The next field: its number, and its value (varint) or bytes (length-delimited). */
static unsigned field(struct pbr *r, uint64_t *v, struct pbr *sub)
{
	uint64_t key = varint(r);
	if ((key & 7) == 0) {
		*v = varint(r);
	} else {
		uint64_t n = varint(r);
		sub->p = r->p;
		sub->end = r->p + n;
		r->p += n;
	}
	return (unsigned)(key >> 3);
}

static int pprof_fn(FILE *f, const struct calltree *t, const void *o)
{
	return pprof_write(f, t, o);
}

static void test_pprof(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = tree(ft, 60, 30, 10);
	struct pprof_build_id ids[] = {{"/bin/app", "00112233445566778899aabbccddeeff00112233"}};
	struct pprof_opts o = {.type = "samples",
			       .unit = "count",
			       .type2 = "cpu",
			       .unit2 = "nanoseconds",
			       .scale2 = 1000000,
			       .period = 1000000,
			       .build_ids = ids,
			       .nbuild_ids = 1};
	size_t len;
	char *gz = write_mem(pprof_fn, t, &o, &len);
	CHECK(len > 2 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	uint8_t raw[8192];
	uLongf rawlen = sizeof(raw);
	z_stream z = {.next_in = (Bytef *)gz,
		      .avail_in = (uInt)len,
		      .next_out = raw,
		      .avail_out = sizeof(raw)};
	CHECK(inflateInit2(&z, 31) == Z_OK && inflate(&z, Z_FINISH) == Z_STREAM_END);
	rawlen = z.total_out;
	inflateEnd(&z);
	free(gz);

	/* Gather the strings first (they come last), then check the rest against them. */
	const char *strs[64];
	size_t nstr = 0;
	struct pbr r = {raw, raw + rawlen}, sub;
	uint64_t v;
	while (r.p < r.end) {
		unsigned fno = field(&r, &v, &sub);
		if (fno == 6 && nstr < 64) {
			char *s = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			strs[nstr++] = s;
		}
	}
	CHECK(nstr > 0 && !strcmp(strs[0], ""));
	uint64_t samples = 0, cpu = 0, nsamples = 0, nfunc = 0, nloc = 0, nmap = 0;
	bool app_build_id = false, comm_label = false;
	r = (struct pbr){raw, raw + rawlen};
	while (r.p < r.end) {
		unsigned fno = field(&r, &v, &sub);
		if (fno == 2) { /* Sample: location_id (1, packed), value (2, packed), label (3) */
			nsamples++;
			struct pbr s2 = sub, inner;
			while (s2.p < s2.end) {
				unsigned f2 = field(&s2, &v, &inner);
				if (f2 == 2) {
					samples += varint(&inner);
					cpu += varint(&inner);
				} else if (f2 == 3) {
					uint64_t key = 0, str = 0;
					struct pbr l = inner, x;
					while (l.p < l.end) {
						unsigned f3 = field(&l, &v, &x);
						if (f3 == 1)
							key = v;
						else if (f3 == 2)
							str = v;
					}
					comm_label |= key < nstr && str < nstr &&
						      !strcmp(strs[key], "comm") &&
						      !strcmp(strs[str], "app");
				}
			}
		} else if (fno == 3) { /* Mapping: filename 5, build_id 6 */
			nmap++;
			uint64_t file = 0, bid = 0;
			struct pbr s2 = sub, x;
			while (s2.p < s2.end) {
				unsigned f2 = field(&s2, &v, &x);
				if (f2 == 5)
					file = v;
				else if (f2 == 6)
					bid = v;
			}
			app_build_id |= file < nstr && bid && bid < nstr &&
					!strcmp(strs[file], "/bin/app") &&
					!strcmp(strs[bid], ids[0].hex);
		} else if (fno == 4) {
			nloc++;
		} else if (fno == 5) {
			nfunc++;
		}
	}
	CHECK_EQ_U64(nsamples, 3);
	CHECK_EQ_U64(samples, 100);
	CHECK_EQ_U64(cpu, 100 * 1000000ULL);
	CHECK_EQ_U64(nfunc, 4); /* main hot cold rare: the process is a label */
	CHECK_EQ_U64(nloc, 4);
	CHECK_EQ_U64(nmap, 2); /* /bin/app, libc */
	CHECK(app_build_id);
	CHECK(comm_label);
	for (size_t i = 0; i < nstr; i++)
		free((char *)strs[i]);
	calltree_free(t);
	functable_free(ft);
}

static int speedscope_fn(FILE *f, const struct calltree *t, const void *o)
{
	return speedscope_write(f, t, o);
}

static void test_speedscope(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = tree(ft, 60, 30, 10);
	struct speedscope_opts o = {.name = "x \"quoted\"\n", .unit = "none", .what = "samples"};
	size_t len;
	char *js = write_mem(speedscope_fn, t, &o, &len);
	CHECK(strstr(js, "\"name\":\"x \\\"quoted\\\"\\u000a\"") != NULL);
	CHECK(strstr(js, "\"name\":\"all processes: 100 samples\"") != NULL);
	CHECK(strstr(js, "\"name\":\"app: 100 samples\"") != NULL);
	/* Frames: app 0, main 1, hot 2, cold 3, rare 4: all-process stacks start at the process,
	 * the process's own profile at main. */
	CHECK(strstr(js, "\"samples\":[[0,1,2],[0,1,3],[0,1,4]],\"weights\":[60,30,10]") != NULL);
	CHECK(strstr(js, "\"samples\":[[1,2],[1,3],[1,4]],\"weights\":[60,30,10]") != NULL);
	free(js);
	calltree_free(t);
	functable_free(ft);
}

int main(void)
{
	test_short_names();
	test_merged_frames();
	test_diff();
	test_pprof();
	test_speedscope();
	return test_failures ? 1 : 0;
}
