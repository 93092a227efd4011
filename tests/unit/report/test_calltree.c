/* calltree: interning, the trie's weights, re-shaping (invert, drop the process level, merge
 * names), per-function self and inclusive weights with recursion, frame kinds; and the
 * writers on top of it (report, folded, SVG) on a small tree whose numbers are known. */
#include "report/calltree.h"
#include "report/flamegraph.h"
#include "report/report.h"
#include "test.h"

static void test_kinds(void)
{
	CHECK(frame_kind_of("schedule", "[kernel.kallsyms]", 0xffffffff81000000ULL) ==
	      FRAME_KERNEL);
	CHECK(frame_kind_of("nft_do_chain", "[nf_tables]", 0xffffffffc0000000ULL) == FRAME_KERNEL);
	CHECK(frame_kind_of("[unknown]", "[unknown]", 0xffffffff81000000ULL) == FRAME_KERNEL);
	CHECK(frame_kind_of("[unknown]", "[unknown]", 0x7f0000001000ULL) == FRAME_NATIVE);
	CHECK(frame_kind_of("__vdso_clock_gettime", "[vdso]", 0x7ffc0000ULL) == FRAME_NATIVE);
	CHECK(frame_kind_of("main", "/usr/bin/hot", 0x1000) == FRAME_NATIVE);
	CHECK(frame_kind_of("JS:*fib /a.js:1:1", "/tmp/perf-12.map", 0x1000) == FRAME_JIT);
	CHECK(frame_kind_of("Program::Main()", "/tmp/perf-4100.map", 0x1000) == FRAME_JIT);
	CHECK(frame_kind_of("x", "/tmp/perf-abc.map", 0x1000) == FRAME_NATIVE);
	CHECK(frame_kind_of("x", "/root/.debug/jit/jitted-4100-12.so", 0x1000) == FRAME_JIT);
	CHECK(frame_kind_of("x", "/tmp/jit-4100.so", 0x1000) == FRAME_JIT);
	CHECK(frame_kind_of("x", "/usr/share/dotnet/System.Private.CoreLib.dll", 1) == FRAME_R2R);
	CHECK(frame_kind_of("x",
			    "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.1/libcoreclr.so",
			    1) == FRAME_RUNTIME);
	CHECK(frame_kind_managed(FRAME_R2R) && !frame_kind_managed(FRAME_RUNTIME));
	CHECK(frame_kind_of("x", "/memfd:doublemapper (deleted)", 1) == FRAME_JIT);
	CHECK(frame_kind_of("[unknown]", "memfd:doublemapper", 1) == FRAME_JIT);
	CHECK_STR(frame_kind_name(FRAME_JIT), "jit");
}

static void test_functable(void)
{
	struct functable *ft = functable_new();
	uint32_t a = functable_intern_frame(ft, "main", "/bin/hot", 0x10);
	uint32_t b = functable_intern_frame(ft, "main", "/bin/other", 0x10);
	CHECK(a != b);
	CHECK(functable_intern_frame(ft, "main", "/bin/hot", 0x20) == a);
	CHECK(functable_count(ft) == 2);
	uint32_t u = functable_intern_frame(ft, "[unknown]", "/usr/lib/libcoreclr.so", 1);
	CHECK_STR(functable_name(ft, u), "[libcoreclr.so]");
	CHECK_STR(functable_name(ft, functable_intern_frame(ft, "", "[unknown]", 1)), "[unknown]");
	CHECK_STR(functable_name(ft, functable_intern_frame(ft, "[unknown]", "[vdso]", 1)),
		  "[vdso]");
	CHECK_STR(functable_dso(ft, a), "/bin/hot");
	/* Many distinct functions: the table grows and still finds each one. */
	char sym[32];
	for (int i = 0; i < 20000; i++) {
		snprintf(sym, sizeof(sym), "f%d", i);
		functable_intern(ft, sym, "/lib/x.so", FRAME_NATIVE);
	}
	CHECK(functable_count(ft) == 5 + 20000);
	CHECK(functable_intern(ft, "f12345", "/lib/x.so", FRAME_KERNEL) == 5 + 12345);
	CHECK(functable_kind(ft, 5 + 12345) == FRAME_NATIVE); /* the first kind stays */
	functable_free(ft);
}

/* The tree of these stacks (root first), weights in brackets:
 *   hot: main->mid->leaf [6], main->mid [1], main->leaf [2]
 *   sh:  main->rec->rec->leaf [1]  */
static struct calltree *small_tree(struct functable *ft)
{
	uint32_t hot = functable_intern(ft, "hot", "", FRAME_PROCESS);
	uint32_t sh = functable_intern(ft, "sh", "", FRAME_PROCESS);
	uint32_t m = functable_intern_frame(ft, "main", "/bin/hot", 1);
	uint32_t mid = functable_intern_frame(ft, "mid", "/bin/hot", 2);
	uint32_t leaf = functable_intern_frame(ft, "leaf", "/bin/hot", 3);
	uint32_t rec = functable_intern_frame(ft, "rec", "/bin/hot", 4);
	struct calltree *t = calltree_new(ft);
	calltree_add(t, (uint32_t[]){hot, m, mid, leaf}, 4, 5);
	calltree_add(t, (uint32_t[]){hot, m, mid, leaf}, 4, 1);
	calltree_add(t, (uint32_t[]){hot, m, mid}, 3, 1);
	calltree_add(t, (uint32_t[]){hot, m, leaf}, 3, 2);
	calltree_add(t, (uint32_t[]){sh, m, rec, rec, leaf}, 5, 1);
	return t;
}

static void test_tree(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = small_tree(ft);
	CHECK_EQ_U64(calltree_total(t), 10);
	/* root, hot, main, mid, leaf, leaf, sh, main, rec, rec, leaf */
	CHECK(calltree_count(t) == 11);
	uint32_t *kids = NULL;
	size_t cap = 0;
	CHECK(calltree_children(t, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &kids, &cap) == 2);
	CHECK_STR(functable_name(ft, calltree_node(t, kids[0])->func), "hot");
	CHECK_EQ_U64(calltree_node(t, kids[0])->total, 9);
	CHECK_EQ_U64(calltree_node(t, kids[0])->self, 0);

	/* The callee view: leaves at the root. */
	struct calltree *inv = calltree_derive(t, CALLTREE_DROP_FIRST | CALLTREE_INVERT);
	CHECK_EQ_U64(calltree_total(inv), 10);
	CHECK(calltree_children(inv, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &kids, &cap) == 2);
	CHECK_STR(functable_name(ft, calltree_node(inv, kids[0])->func), "leaf");
	CHECK_EQ_U64(calltree_node(inv, kids[0])->total, 9);
	CHECK_STR(functable_name(ft, calltree_node(inv, kids[1])->func), "mid");
	CHECK_EQ_U64(calltree_node(inv, kids[1])->total, 1);
	uint32_t leaf = kids[0];
	CHECK(calltree_children(inv, leaf, CALLTREE_BY_TOTAL, &kids, &cap) == 3);
	CHECK_STR(functable_name(ft, calltree_node(inv, kids[0])->func), "mid");
	CHECK_EQ_U64(calltree_node(inv, kids[0])->total, 6);
	CHECK_STR(functable_name(ft, calltree_node(inv, kids[1])->func), "main");
	CHECK_EQ_U64(calltree_node(inv, kids[1])->total, 2);

	/* The caller view without the process level merges both processes' main. */
	struct calltree *top = calltree_derive(t, CALLTREE_DROP_FIRST);
	CHECK(calltree_children(top, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &kids, &cap) == 1);
	CHECK_EQ_U64(calltree_node(top, kids[0])->total, 10);

	/* Self and inclusive: rec recurses but counts once. */
	uint64_t *self, *incl;
	calltree_func_weights(t, &self, &incl);
	uint32_t frec = functable_intern(ft, "rec", "/bin/hot", FRAME_NATIVE);
	uint32_t fleaf = functable_intern(ft, "leaf", "/bin/hot", FRAME_NATIVE);
	uint32_t fmain = functable_intern(ft, "main", "/bin/hot", FRAME_NATIVE);
	CHECK_EQ_U64(incl[frec], 1);
	CHECK_EQ_U64(self[frec], 0);
	CHECK_EQ_U64(self[fleaf], 9);
	CHECK_EQ_U64(incl[fmain], 10);
	free(self);
	free(incl);

	free(kids);
	calltree_free(inv);
	calltree_free(top);
	calltree_free(t);
	functable_free(ft);
}

static char *capture(int (*fn)(FILE *, const struct calltree *, const void *),
		     const struct calltree *t, const void *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fn(f, t, opts) == 0);
	fclose(f);
	return buf;
}

static int folded_fn(FILE *f, const struct calltree *t, const void *o)
{
	return flamegraph_write_folded(f, t);
}
static int tree_fn(FILE *f, const struct calltree *t, const void *o)
{
	return report_tree(f, t, o);
}
static int svg_fn(FILE *f, const struct calltree *t, const void *o)
{
	return flamegraph_write_svg(f, t, o);
}

static void test_writers(void)
{
	struct functable *ft = functable_new();
	struct calltree *t = small_tree(ft);
	/* Two functions that print alike (same name, other dso) are one folded frame. */
	uint32_t hot = functable_intern(ft, "hot", "", FRAME_PROCESS);
	uint32_t m2 = functable_intern_frame(ft, "main", "/other/hot", 1);
	uint32_t mid = functable_intern_frame(ft, "mid", "/bin/hot", 2);
	calltree_add(t, (uint32_t[]){hot, m2, mid}, 3, 3);

	char *folded = capture(folded_fn, t, NULL);
	CHECK_STR(folded, "hot;main;leaf 2\n"
			  "hot;main;mid 4\n"
			  "hot;main;mid;leaf 6\n"
			  "sh;main;rec;rec;leaf 1\n");
	free(folded);

	/* The callee graph: leaf 9 of 13 (69.23%), called by mid (6) and main (3: 2 + 1 via rec).
	 */
	struct calltree *inv = calltree_derive(t, CALLTREE_DROP_FIRST | CALLTREE_INVERT);
	struct report_opts ro = {.percent_limit = 10, .top = 5, .unit = "samples"};
	char *tree = capture(tree_fn, inv, &ro);
	CHECK(strstr(tree, "    69.23%           9  [.] leaf  (hot)\n"
			   "            |\n"
			   "            ---leaf\n"
			   "               |\n"
			   "               |--46.15% [6]--mid\n"
			   "               |              main\n"
			   "               |\n"
			   "                --15.38% [2]--main\n") != NULL);
	/* mid's own entry: 4 samples (30.77%); rec's branch (1 sample) is under 10%. */
	CHECK(strstr(tree, "    30.77%           4  [.] mid  (hot)\n") != NULL);
	CHECK(strstr(tree, "rec") == NULL);
	free(tree);
	ro.percent_limit = 50;
	tree = capture(tree_fn, inv, &ro);
	CHECK(strstr(tree, "# 1 more entry under 50%: 4 samples (30.77%)") != NULL);
	free(tree);

	/* The SVG: names escaped, kinds colored, one frame per node. */
	uint32_t odd = functable_intern_frame(ft, "operator<<(a&, \"b\")\001\xff", "/bin/hot", 5);
	calltree_add(t, (uint32_t[]){hot, odd}, 2, 1);
	struct flamegraph_opts fo = {.subtitle = "cpu-clock <test>", .unit = "samples"};
	char *svg = capture(svg_fn, t, &fo);
	CHECK(strstr(svg, "<title>operator&lt;&lt;(a&amp;, &quot;b&quot;)??\n/bin/hot (native)") !=
	      NULL);
	CHECK(strstr(svg, "cpu-clock &lt;test&gt;") != NULL);
	CHECK(strstr(svg, "<title>all\n14 samples, 100.00%") != NULL);
	CHECK(strstr(svg, "\001") == NULL && strstr(svg, "\xff") == NULL);
	size_t frames = 0;
	for (const char *p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	CHECK(frames == calltree_count(t));
	free(svg);

	calltree_free(inv);
	calltree_free(t);
	functable_free(ft);
}

int main(void)
{
	test_kinds();
	test_functable();
	test_tree();
	test_writers();
	return TEST_DONE();
}
