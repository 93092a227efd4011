/* What a user types for the .NET runtime events (lib/dotnet/eventpipe_events.c): -events
 * group lists, -rawevents event names and -providers in dotnet-trace's syntax, turned into
 * an EventPipe configuration, then described for the log and encoded as the CollectTracing5
 * and CollectTracing2 payloads (lib/dotnet/eventpipe_session.c) the runtime is sent.
 *
 * The input is text: its first byte picks the event set ('0' default, '1' -gccollectonly,
 * '2' -gconly, '3' -gcwithheap), then up to three lines: -events, -rawevents, -providers
 * (a missing line: the option not given).  Every payload the encoder returns is walked as the
 * runtime reads it (ipc-protocol.md): it must hold exactly the providers of the
 * configuration, with their keywords, levels and names, and end where its length says. */
#include "fuzz.h"
#include "dotnet/eventpipe_events.h"

static uint64_t sink;

struct reader {
	const unsigned char *p;
	size_t len, at;
};

static uint64_t get(struct reader *r, size_t n)
{
	FUZZ_CHECK(r->at + n <= r->len);
	uint64_t v = 0;
	for (size_t i = n; i > 0; i--)
		v = v << 8 | r->p[r->at + i - 1];
	r->at += n;
	return v;
}

/* A protocol string; checks it against an ASCII original (others only for their length). */
static void check_string(struct reader *r, const char *want)
{
	uint32_t units = (uint32_t)get(r, 4);
	if (!want || !*want) {
		FUZZ_CHECK(units == 0);
		return;
	}
	FUZZ_CHECK(units >= 1 && r->at + 2 * (size_t)units <= r->len);
	bool ascii = true;
	for (const char *c = want; *c; c++)
		ascii &= (unsigned char)*c < 0x80;
	if (ascii)
		FUZZ_CHECK(units == strlen(want) + 1);
	for (uint32_t i = 0; i < units; i++) {
		uint16_t u = (uint16_t)get(r, 2);
		if (ascii)
			FUZZ_CHECK(u == (i + 1 < units ? (unsigned char)want[i] : 0));
	}
}

static void check_payload(const struct eventpipe_config *c, int command)
{
	size_t len;
	unsigned char *p = eventpipe_encode_collect(c, command, &len);
	if (!p)
		return; /* not UTF-8, or too long for one message: said with pc_err() */
	struct reader r = {p, len, 0};
	if (command == 5) {
		FUZZ_CHECK(get(&r, 4) == 0); /* streaming */
		get(&r, 4);		     /* buffer size */
		FUZZ_CHECK(get(&r, 4) == 1); /* NetTrace */
		FUZZ_CHECK(get(&r, 8) == c->rundown_keywords);
		get(&r, 1);
	} else {
		get(&r, 4);
		FUZZ_CHECK(get(&r, 4) == 1);
		FUZZ_CHECK(get(&r, 1) == (c->rundown_keywords != 0));
	}
	FUZZ_CHECK(get(&r, 4) == c->nproviders);
	for (size_t i = 0; i < c->nproviders; i++) {
		const struct eventpipe_provider *pr = &c->providers[i];
		FUZZ_CHECK(get(&r, 8) == pr->keywords);
		FUZZ_CHECK(get(&r, 4) == pr->level);
		check_string(&r, pr->name);
		check_string(&r, pr->args);
		if (command == 5) {
			FUZZ_CHECK(get(&r, 1) == (pr->nids != 0));
			FUZZ_CHECK(get(&r, 4) == pr->nids);
			for (size_t k = 0; k < pr->nids; k++)
				FUZZ_CHECK(get(&r, 4) == pr->ids[k]);
		}
	}
	FUZZ_CHECK(r.at == len);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	if (size == 0 || size > 64 * 1024)
		return 0;
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	char *lines[3] = {NULL, NULL, NULL};
	char *p = text;
	for (int i = 0; i < 3 && p; i++) {
		lines[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	struct dotnet_events_opts o = {
	    .set = (enum dotnet_event_set)(data[0] % 4),
	    .events = lines[0],
	    .rawevents = lines[1],
	    .providers = lines[2],
	};
	struct eventpipe_config c;
	if (eventpipe_events_build(&o, &c) == 0) {
		for (size_t i = 0; i < c.nproviders; i++) {
			FUZZ_CHECK(c.providers[i].name && *c.providers[i].name);
			FUZZ_CHECK(c.providers[i].keywords != 0);
			FUZZ_CHECK(c.providers[i].level <= 255);
		}
		char *d = eventpipe_config_describe(&c);
		sink += strlen(d);
		free(d);
		check_payload(&c, 5);
		check_payload(&c, 2);
		eventpipe_config_release(&c);
	}
	free(text);
	return 0;
}
