/* universal: the Universal providers' events of a NetTrace turned back into perf script's
 * samples: frames named by ProcessSymbol through their mapping's name, JIT code in a /memfd:
 * double mapping named by the perf map, unnamed frames by the mapping covering them (the
 * kernel's as [kernel.kallsyms]) or [unknown]; a later symbol over the same code replaces the
 * earlier; a pid used again starts afresh; event names from "perf.event", cpu = cpu-clock;
 * cswitch left out; bad payloads counted, never trusted. */
#include "nettrace/nettrace_write.h"
#include "report/universal.h"
#include "test.h"

#include <string.h>

static struct stack_sample last;
static struct stack_frame frames[8];
static char comm[32], event[32], trace[64];
static int nsamples;

static int on_sample(const struct stack_sample *s, void *arg)
{
	last = *s;
	for (size_t i = 0; i < s->nframes && i < 8; i++)
		frames[i] = s->frames[i];
	snprintf(comm, sizeof(comm), "%s", s->comm);
	snprintf(event, sizeof(event), "%s", s->event);
	snprintf(trace, sizeof(trace), "%s", s->trace);
	nsamples++;
	return 0;
}

enum { M_CREATE = 1, M_EXIT, M_MAP, M_SYM, M_CPU, M_SWITCH, M_CSWITCH };

static void put(struct universal *u, uint32_t md, uint32_t pid, const struct bytebuf *b,
		const uint64_t *stack, size_t depth)
{
	struct universal_event e = {.metadata_id = md,
				    .pid = pid,
				    .tid = pid,
				    .cpu = 0,
				    .time_ns = 1000,
				    .stack = stack,
				    .depth = depth,
				    .payload = b->data,
				    .payload_size = b->len};
	CHECK(universal_event(u, &e) == 0);
}

static void create(struct universal *u, uint32_t pid, const char *name)
{
	struct bytebuf b = {0};
	bytebuf_varuint(&b, pid);
	bytebuf_short_string(&b, name);
	bytebuf_short_string(&b, "");
	put(u, M_CREATE, pid, &b, NULL, 0);
	bytebuf_free(&b);
}

static void mapping(struct universal *u, uint32_t pid, uint64_t id, uint64_t start, uint64_t end,
		    const char *name)
{
	struct bytebuf b = {0};
	bytebuf_varuint(&b, id);
	bytebuf_varuint(&b, start);
	bytebuf_varuint(&b, end);
	bytebuf_varuint(&b, 0);
	bytebuf_short_string(&b, name);
	bytebuf_varuint(&b, 0);
	put(u, M_MAP, pid, &b, NULL, 0);
	bytebuf_free(&b);
}

static void symbol(struct universal *u, uint32_t pid, uint64_t map, uint64_t start, uint64_t end,
		   const char *name)
{
	struct bytebuf b = {0};
	bytebuf_varuint(&b, 7);
	bytebuf_varuint(&b, map);
	bytebuf_varuint(&b, start);
	bytebuf_varuint(&b, end - 1);
	bytebuf_short_string(&b, name);
	put(u, M_SYM, pid, &b, NULL, 0);
	bytebuf_free(&b);
}

static void sample(struct universal *u, uint32_t md, uint32_t pid, const uint64_t *stack,
		   size_t depth, const char *text)
{
	struct bytebuf b = {0};
	bytebuf_varuint(&b, 1);
	if (text)
		bytebuf_short_string(&b, text);
	put(u, md, pid, &b, stack, depth);
	bytebuf_free(&b);
}

int main(void)
{
	struct universal *u = universal_new(on_sample, NULL);
	CHECK(!universal_is_universal(u));
	universal_metadata(u, M_CREATE, "Universal.System", "ExistingProcess", NULL, false);
	universal_metadata(u, M_EXIT, "Universal.System", "ProcessExit", NULL, false);
	universal_metadata(u, M_MAP, "Universal.System", "ProcessMapping", NULL, false);
	universal_metadata(u, M_SYM, "Universal.System", "ProcessSymbol", NULL, false);
	universal_metadata(u, M_CPU, "Universal.Events", "cpu", NULL, false);
	universal_metadata(u, M_SWITCH, "Universal.Events", "sched:sched_switch",
			   "sched:sched_switch", true);
	universal_metadata(u, M_CSWITCH, "Universal.Events", "cswitch", NULL, false);
	CHECK(universal_is_universal(u));

	create(u, 42, "hot");
	mapping(u, 42, 1, 0x400000, 0x500000, "/srv/hot");
	mapping(u, 42, 2, 0x7f0000000000, 0x7f0000100000, "/memfd:doublemapper (deleted)");
	mapping(u, 42, 3, 0xffffffff81000000ULL, 0xffffffff82000000ULL, "[kernel.kallsyms]");
	symbol(u, 42, 1, 0x401000, 0x401100, "hot_leaf");
	symbol(u, 42, 2, 0x7f0000000100, 0x7f0000000200, "void [App] App::Run()[Optimized]");
	symbol(u, 42, 3, 0xffffffff81001000ULL, 0xffffffff81001100ULL, "__schedule");
	uint64_t st[] = {
	    0x401010, 0x7f0000000150, 0xffffffff81001010ULL, 0xffffffff81500000ULL, 0x402000, 0x10};
	sample(u, M_CPU, 42, st, 6, NULL);
	CHECK_EQ_U64(nsamples, 1);
	CHECK_STR(comm, "hot");
	CHECK_STR(event, "cpu-clock");
	CHECK_STR(trace, "");
	CHECK_EQ_U64(last.nframes, 6);
	CHECK_STR(frames[0].sym, "hot_leaf");
	CHECK_STR(frames[0].dso, "/srv/hot");
	CHECK_STR(frames[1].sym, "void [App] App::Run()[Optimized]");
	CHECK_STR(frames[1].dso, "/tmp/perf-42.map");
	CHECK_STR(frames[2].sym, "__schedule");
	CHECK_STR(frames[2].dso, "[kernel.kallsyms]");
	CHECK_STR(frames[3].sym, "[unknown]");
	CHECK_STR(frames[3].dso, "[kernel.kallsyms]");
	CHECK_STR(frames[4].sym, "[unknown]");
	CHECK_STR(frames[4].dso, "/srv/hot");
	CHECK_STR(frames[5].dso, "[unknown]");
	CHECK(frames[0].ip == 0x401010);

	/* code re-JIT'd at the same place: the later symbol wins there, the rest stays */
	symbol(u, 42, 2, 0x7f0000000180, 0x7f0000000190, "void [App] App::Other()[Tier1]");
	uint64_t j[] = {0x7f0000000150, 0x7f0000000185, 0x7f00000001a0};
	sample(u, M_SWITCH, 42, j, 3, "prev_comm=hot prev_pid=42 prev_state=S ==> next_pid=0");
	CHECK_STR(event, "sched:sched_switch");
	CHECK_STR(trace, "prev_comm=hot prev_pid=42 prev_state=S ==> next_pid=0");
	CHECK_STR(frames[0].sym, "void [App] App::Run()[Optimized]");
	CHECK_STR(frames[1].sym, "void [App] App::Other()[Tier1]");
	CHECK_STR(frames[2].sym, "void [App] App::Run()[Optimized]");

	/* cswitch is not a sample */
	sample(u, M_CSWITCH, 42, st, 1, NULL);
	CHECK_EQ_U64(nsamples, 2);

	/* the pid used again after an exit: a new process, nothing of the old one */
	struct bytebuf none = {0};
	put(u, M_EXIT, 42, &none, NULL, 0);
	create(u, 42, "other");
	sample(u, M_CPU, 42, st, 1, NULL);
	CHECK_STR(comm, "other");
	CHECK_STR(frames[0].sym, "[unknown]");
	CHECK_STR(frames[0].dso, "[unknown]");

	/* a process never described, a thread name, truncated payloads */
	struct universal_event e = {.metadata_id = M_CPU,
				    .pid = 9,
				    .tid = 10,
				    .thread_name = "worker",
				    .stack = st,
				    .depth = 1};
	uint8_t cut[] = {0x80};
	e.payload = cut;
	e.payload_size = 1;
	CHECK(universal_event(u, &e) == 0);
	CHECK_STR(comm, "worker");
	CHECK(universal_stats(u)->bad_payloads == 1);
	e.metadata_id = M_MAP;
	CHECK(universal_event(u, &e) == 0);
	CHECK(universal_stats(u)->bad_payloads == 2);
	e.metadata_id = 999; /* undeclared: skipped */
	CHECK(universal_event(u, &e) == 0);
	CHECK(universal_stats(u)->skipped_events >= 1);
	universal_free(u);
	return TEST_DONE();
}
