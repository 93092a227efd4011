/* Unit tests for eventpipe_events (perfcollect's .NET event sets as EventPipe providers,
 * dotnet-trace's provider syntax) and eventpipe_session's CollectTracing payloads, whose
 * layout ipc-protocol.md gives byte by byte. */
#include "dotnet/eventpipe_events.h"
#include "test.h"

static const struct eventpipe_provider *find(const struct eventpipe_config *c, const char *name)
{
	for (size_t i = 0; i < c->nproviders; i++)
		if (!strcmp(c->providers[i].name, name))
			return &c->providers[i];
	return NULL;
}

static bool has_id(const struct eventpipe_provider *p, uint32_t id)
{
	for (size_t i = 0; p && i < p->nids; i++)
		if (p->ids[i] == id)
			return true;
	return false;
}

#define RUNTIME "Microsoft-Windows-DotNETRuntime"
#define PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"

static void test_sets(void)
{
	struct eventpipe_config c;
	struct dotnet_events_opts o = {.set = DOTNET_EVENTS_DEFAULT};
	CHECK(eventpipe_events_build(&o, &c) == 0);
	const struct eventpipe_provider *rt = find(&c, RUNTIME), *pv = find(&c, PRIVATE);
	CHECK(rt && pv);
	CHECK(!find(&c, "Microsoft-Windows-DotNETRuntimeRundown")); /* the session's rundown */
	if (rt) {
		/* GC, loader, JIT, NGen, contention, exceptions, threading, thread transfer,
		 * compilation */
		uint64_t want = 0x1 | 0x8 | 0x10 | 0x20 | 0x4000 | 0x8000 | 0x10000 |
				0x80000000ULL | 0x1000000000ULL;
		CHECK_EQ_U64(rt->keywords & want, want);
		CHECK_EQ_U64(rt->level, 5);
		CHECK(has_id(rt, 1) && has_id(rt, 2) && has_id(rt, 80) && has_id(rt, 81) &&
		      has_id(rt, 143) && has_id(rt, 145));
		CHECK(!has_id(rt, 10)); /* GCAllocationTick: not at collect-only verbosity */
	}
	CHECK(c.rundown_keywords == EVENTPIPE_RUNDOWN_DEFAULT);
	eventpipe_config_release(&c);

	o.set = DOTNET_EVENTS_GCONLY;
	CHECK(eventpipe_events_build(&o, &c) == 0);
	rt = find(&c, RUNTIME);
	CHECK(rt && has_id(rt, 10) && has_id(rt, 145) && !has_id(rt, 81));
	eventpipe_config_release(&c);

	o.set = DOTNET_EVENTS_GCWITHHEAP;
	CHECK(eventpipe_events_build(&o, &c) == 0);
	rt = find(&c, RUNTIME);
	CHECK(rt && (rt->keywords & 0x400000) && !find(&c, PRIVATE));
	eventpipe_config_release(&c);

	/* -events replaces the default set; -rawevents adds; names are case-insensitive */
	o = (struct dotnet_events_opts){.set = DOTNET_EVENTS_DEFAULT,
					.events = "dotnetruntime_exceptionkeyword",
					.rawevents =
					    "DotNETRuntime:GCStart_V2, DotNETRuntime:GCEnd_V1"};
	CHECK(eventpipe_events_build(&o, &c) == 0);
	rt = find(&c, RUNTIME);
	CHECK(rt && has_id(rt, 80) && has_id(rt, 1) && has_id(rt, 2) && !has_id(rt, 145));
	CHECK(c.nproviders == 1);
	eventpipe_config_release(&c);

	o = (struct dotnet_events_opts){.events = "threading"};
	CHECK(eventpipe_events_build(&o, &c) == 0);
	rt = find(&c, RUNTIME);
	CHECK(rt && (rt->keywords & 0x10000) && !(rt->keywords & 0x8000));
	eventpipe_config_release(&c);

	o = (struct dotnet_events_opts){.events = "DotNETRuntime_Bogus"};
	CHECK(eventpipe_events_build(&o, &c) == -1);
	CHECK(strstr(pc_strerror(), "no event group 'DotNETRuntime_Bogus'") != NULL);
	o = (struct dotnet_events_opts){.rawevents = "GCStart"};
	CHECK(eventpipe_events_build(&o, &c) == -1);
	CHECK(strstr(pc_strerror(), "with its provider") != NULL);
}

static void test_providers(void)
{
	struct eventpipe_config c;
	memset(&c, 0, sizeof(c));
	CHECK(eventpipe_parse_providers(
		  "Microsoft-Extensions-Logging:2::FilterSpecs=App*:Information;Microsoft*:Warning,"
		  "System.Runtime,MyEventSource:0x10:informational,Quoted:::\"a=1,b=2\"",
		  &c) == 0);
	CHECK_EQ_U64(c.nproviders, 4);
	const struct eventpipe_provider *p = find(&c, "Microsoft-Extensions-Logging");
	CHECK(p && p->keywords == 2 && p->level == 5);
	CHECK_STR(p ? p->args : NULL, "FilterSpecs=App*:Information;Microsoft*:Warning");
	p = find(&c, "System.Runtime");
	CHECK(p && p->keywords == UINT64_MAX && p->level == 5 && !p->args);
	p = find(&c, "MyEventSource");
	CHECK(p && p->keywords == 0x10 && p->level == 4);
	p = find(&c, "Quoted");
	CHECK_STR(p ? p->args : NULL, "a=1,b=2");
	eventpipe_config_release(&c);

	CHECK(eventpipe_parse_providers("A:zz", &c) == -1);
	eventpipe_config_release(&c);
	CHECK(eventpipe_parse_providers("A:1:loud", &c) == -1);
	eventpipe_config_release(&c);
	CHECK(eventpipe_parse_providers("A:1:5:\"open", &c) == -1);
	eventpipe_config_release(&c);
}

static uint32_t at32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_encoding(void)
{
	struct eventpipe_config c;
	memset(&c, 0, sizeof(c));
	struct eventpipe_provider *p = eventpipe_config_provider(&c, "Ab");
	p->keywords = 0x1122334455667788ULL;
	p->level = 4;
	p->ids = xmalloc(2 * sizeof(*p->ids));
	p->ids[0] = 1;
	p->ids[1] = 80;
	p->nids = 2;
	c.rundown_keywords = EVENTPIPE_RUNDOWN_DEFAULT;
	size_t len;
	/* CollectTracing2: buffer, format, rundown, providers (kw, level, name, args) */
	unsigned char *m = eventpipe_encode_collect(&c, 2, &len);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_U64(len, 4 + 4 + 1 + 4 + 8 + 4 + (4 + 6) + 4);
		CHECK_EQ_U64(at32(m), 256);
		CHECK_EQ_U64(at32(m + 4), 1);
		CHECK_EQ_U64(m[8], 1);
		CHECK_EQ_U64(at32(m + 9), 1);
		CHECK_EQ_U64(at32(m + 13), 0x55667788);
		CHECK_EQ_U64(at32(m + 21), 4);
		CHECK_EQ_U64(at32(m + 25), 3); /* "Ab" + NUL in UTF-16 units */
		CHECK(m[29] == 'A' && m[30] == 0 && m[31] == 'b' && m[33] == 0 && m[34] == 0);
		CHECK_EQ_U64(at32(m + 35), 0); /* no arguments */
		free(m);
	}
	/* CollectTracing5: session type, buffer, format, rundown keywords, stacks, providers
	 * with their event filter (enable, ids) */
	m = eventpipe_encode_collect(&c, 5, &len);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_U64(at32(m), 0);
		CHECK_EQ_U64(at32(m + 12), (uint32_t)EVENTPIPE_RUNDOWN_DEFAULT);
		CHECK_EQ_U64(m[20], 1);
		size_t f = 21 + 4 + 8 + 4 + 10 + 4; /* the filter */
		CHECK_EQ_U64(len, f + 1 + 4 + 8);
		CHECK_EQ_U64(m[f], 1);
		CHECK_EQ_U64(at32(m + f + 1), 2);
		CHECK_EQ_U64(at32(m + f + 5), 1);
		CHECK_EQ_U64(at32(m + f + 9), 80);
		free(m);
	}
	free(p->args);
	p->args = xstrdup("k=\xc3\xa9\xf0\x9f\x98\x80"); /* é and an emoji: 1 + 2 UTF-16 units */
	m = eventpipe_encode_collect(&c, 2, &len);
	CHECK(m && at32(m + 35) == 2 + 1 + 2 + 1);
	free(m);
	free(p->args);
	p->args = xstrdup("bad \xff");
	CHECK(eventpipe_encode_collect(&c, 2, &len) == NULL);
	CHECK(strstr(pc_strerror(), "UTF-8") != NULL);
	eventpipe_config_release(&c);
}

int main(void)
{
	test_sets();
	test_providers();
	test_encoding();
	return TEST_DONE();
}
