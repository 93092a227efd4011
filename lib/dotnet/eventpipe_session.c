/* eventpipe_session: see eventpipe_session.h.  Encoding: ipc-protocol.md ("EventPipe Payloads
 * are encoded with the following rules"): little-endian integers, strings as a uint32 count
 * of UTF-16 units including the terminating NUL, then the units. */
#include "eventpipe_session.h"
#include "dotnet_ipc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { CMDSET_EVENTPIPE = 0x02 };
enum {
	EP_STOP_TRACING = 0x01,
	EP_COLLECT_TRACING2 = 0x03,
	EP_COLLECT_TRACING5 = 0x06,
};
#define FORMAT_NETTRACE	  1 /* the "NetTrace V4" serialization */
#define DEFAULT_BUFFER_MB 256
#define MAX_MESSAGE	  (0xffff - 20)

struct eventpipe_provider *eventpipe_config_provider(struct eventpipe_config *c, const char *name)
{
	for (size_t i = 0; i < c->nproviders; i++)
		if (!strcasecmp(c->providers[i].name, name))
			return &c->providers[i];
	grow_array((void **)&c->providers, &c->cap, c->nproviders + 1, sizeof(*c->providers));
	struct eventpipe_provider *p = &c->providers[c->nproviders++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	return p;
}

void eventpipe_config_release(struct eventpipe_config *c)
{
	for (size_t i = 0; i < c->nproviders; i++) {
		free(c->providers[i].name);
		free(c->providers[i].args);
		free(c->providers[i].ids);
	}
	free(c->providers);
	memset(c, 0, sizeof(*c));
}

char *eventpipe_config_describe(const struct eventpipe_config *c)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < c->nproviders; i++) {
		const struct eventpipe_provider *p = &c->providers[i];
		char *ids = p->nids ? xasprintf(" (%zu event ids)", p->nids) : xstrdup("");
		char *next = xasprintf("%s%s%s:0x%llx:%u%s%s%s", s, i ? ", " : "", p->name,
				       (unsigned long long)p->keywords, p->level, ids,
				       p->args ? ":" : "", p->args ? p->args : "");
		free(ids);
		free(s);
		s = next;
	}
	return s;
}

/* ---- encoding ------------------------------------------------------------------------------ */

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool bad;
};

static void put(struct buf *b, const void *p, size_t n)
{
	grow_array((void **)&b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24};
	put(b, x, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

/* A UTF-8 string as the protocol's UTF-16 string; NULL or "" as the empty string (length 0),
 * which the runtime takes as "none". */
static void put_string(struct buf *b, const char *s)
{
	if (!s || !*s) {
		put_u32(b, 0);
		return;
	}
	size_t at = b->len;
	put_u32(b, 0); /* patched below */
	uint32_t units = 0;
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		uint32_t c = *u++;
		int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		if (c >= 0x80 && c < 0xc0) {
			b->bad = true; /* a continuation byte where a character should start */
			break;
		}
		c &= more == 3 ? 0x07 : more == 2 ? 0x0f : more == 1 ? 0x1f : 0x7f;
		for (; more; more--) {
			if ((*u & 0xc0) != 0x80) {
				b->bad = true;
				break;
			}
			c = c << 6 | (*u++ & 0x3f);
		}
		if (b->bad)
			break;
		if (c >= 0x10000) {
			c -= 0x10000;
			uint16_t hi = 0xd800 + (c >> 10), lo = 0xdc00 + (c & 0x3ff);
			unsigned char x[4] = {hi & 0xff, hi >> 8, lo & 0xff, lo >> 8};
			put(b, x, 4);
			units += 2;
		} else {
			unsigned char x[2] = {c & 0xff, c >> 8};
			put(b, x, 2);
			units++;
		}
	}
	unsigned char nul[2] = {0, 0};
	put(b, nul, 2);
	units++;
	b->p[at] = units & 0xff;
	b->p[at + 1] = (units >> 8) & 0xff;
	b->p[at + 2] = (units >> 16) & 0xff;
	b->p[at + 3] = units >> 24;
}

unsigned char *eventpipe_encode_collect(const struct eventpipe_config *c, int command, size_t *len)
{
	struct buf b = {0};
	uint32_t mb = c->buffer_mb ? c->buffer_mb : DEFAULT_BUFFER_MB;
	if (command == 5) {
		put_u32(&b, 0); /* session_type: streaming */
		put_u32(&b, mb);
		put_u32(&b, FORMAT_NETTRACE);
		put_u64(&b, c->rundown_keywords);
		put_u8(&b, !c->no_stacks);
	} else {
		put_u32(&b, mb);
		put_u32(&b, FORMAT_NETTRACE);
		put_u8(&b, c->rundown_keywords != 0);
	}
	put_u32(&b, (uint32_t)c->nproviders);
	for (size_t i = 0; i < c->nproviders; i++) {
		const struct eventpipe_provider *p = &c->providers[i];
		put_u64(&b, p->keywords);
		put_u32(&b, p->level);
		put_string(&b, p->name);
		put_string(&b, p->args);
		if (command == 5) { /* event_filter: enable only these, or disable none */
			put_u8(&b, p->nids != 0);
			put_u32(&b, (uint32_t)p->nids);
			for (size_t k = 0; k < p->nids; k++)
				put_u32(&b, p->ids[k]);
		}
	}
	if (b.bad) {
		free(b.p);
		pc_err("a provider name or argument is not valid UTF-8");
		return NULL;
	}
	if (b.len > MAX_MESSAGE) {
		free(b.p);
		pc_err("the EventPipe configuration needs %zu bytes; the diagnostics IPC takes "
		       "at most %d (fewer providers or event ids)",
		       b.len, MAX_MESSAGE);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* ---- commands ------------------------------------------------------------------------------ */

static int collect(pid_t pid, const struct eventpipe_config *c, int command,
		   struct eventpipe_session *s)
{
	size_t len;
	unsigned char *payload = eventpipe_encode_collect(c, command, &len);
	if (!payload)
		return -1;
	unsigned char *answer;
	size_t alen;
	int fd = -1;
	const char *what = command == 5 ? "CollectTracing5" : "CollectTracing2";
	int r = dotnet_ipc_call(pid, CMDSET_EVENTPIPE,
				command == 5 ? EP_COLLECT_TRACING5 : EP_COLLECT_TRACING2, payload,
				len, what, &answer, &alen, &fd);
	free(payload);
	if (r < 0)
		return -1;
	if (alen < 8) {
		free(answer);
		close(fd);
		return pc_err("%s: pid %d answered without a session id", what, (int)pid);
	}
	uint64_t id = 0;
	for (int i = 7; i >= 0; i--)
		id = id << 8 | answer[i];
	free(answer);
	*s = (struct eventpipe_session){.pid = pid, .id = id, .fd = fd, .command = command};
	return 0;
}

int eventpipe_session_start(pid_t pid, const struct eventpipe_config *c,
			    struct eventpipe_session *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!c->nproviders)
		return pc_err("no EventPipe provider to enable");
	if (collect(pid, c, 5, s) == 0)
		return 0;
	/* An older runtime answers "unknown command" and closes; anything else is final. */
	if (!strstr(pc_strerror(), "does not know this command"))
		return -1;
	if (collect(pid, c, 2, s) == 0)
		return 0;
	if (strstr(pc_strerror(), "does not know this command"))
		return pc_err("pid %d runs a .NET runtime older than .NET 5: it has no "
			      "EventPipe sessions over its diagnostics IPC",
			      (int)pid);
	return -1;
}

int eventpipe_session_stop_send(const struct eventpipe_session *s)
{
	struct buf b = {0};
	put_u64(&b, s->id);
	int fd =
	    dotnet_ipc_send(s->pid, CMDSET_EVENTPIPE, EP_STOP_TRACING, b.p, b.len, "StopTracing");
	free(b.p);
	return fd;
}

int eventpipe_session_stop_answer(const struct eventpipe_session *s, int fd)
{
	unsigned char *answer;
	size_t alen;
	int r = dotnet_ipc_answer(fd, s->pid, "StopTracing", &answer, &alen);
	close(fd);
	if (r == 0)
		free(answer);
	return r;
}

void eventpipe_session_close(struct eventpipe_session *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
