/* eventpipe_session: see eventpipe_session.h.  Encoding: ipc-protocol.md ("EventPipe Payloads
 * are encoded with the following rules"): little-endian integers, strings as a uint32 count
 * of UTF-16 units including the terminating NUL, then the units. */
#include "eventpipe_session.h"
#include "dotnet_ipc.h"
#include "base/span.h"

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

/* "" as no string at all (the count 0), which the runtime takes as none. */
static const char *or_none(const char *s)
{
	return s && *s ? s : NULL;
}

unsigned char *eventpipe_encode_collect(const struct eventpipe_config *c, int command, size_t *len)
{
	struct bytebuf b = {0};
	uint32_t mb = c->buffer_mb ? c->buffer_mb : DEFAULT_BUFFER_MB;
	if (command == 5) {
		bytebuf_u32(&b, 0); /* session_type: streaming */
		bytebuf_u32(&b, mb);
		bytebuf_u32(&b, FORMAT_NETTRACE);
		bytebuf_u64(&b, c->rundown_keywords);
		bytebuf_u8(&b, !c->no_stacks);
	} else {
		bytebuf_u32(&b, mb);
		bytebuf_u32(&b, FORMAT_NETTRACE);
		bytebuf_u8(&b, c->rundown_keywords != 0);
	}
	bytebuf_u32(&b, (uint32_t)c->nproviders);
	for (size_t i = 0; i < c->nproviders; i++) {
		const struct eventpipe_provider *p = &c->providers[i];
		bytebuf_u64(&b, p->keywords);
		bytebuf_u32(&b, p->level);
		if (dotnet_ipc_put_string(&b, or_none(p->name)) < 0 ||
		    dotnet_ipc_put_string(&b, or_none(p->args)) < 0) {
			bytebuf_free(&b);
			return NULL;
		}
		if (command == 5) { /* event_filter: enable only these, or disable none */
			bytebuf_u8(&b, p->nids != 0);
			bytebuf_u32(&b, (uint32_t)p->nids);
			for (size_t k = 0; k < p->nids; k++)
				bytebuf_u32(&b, p->ids[k]);
		}
	}
	if (b.len > MAX_MESSAGE) {
		bytebuf_free(&b);
		pc_err("the EventPipe configuration needs %zu bytes; the diagnostics IPC takes "
		       "at most %d (fewer providers or event ids)",
		       b.len, MAX_MESSAGE);
		return NULL;
	}
	*len = b.len;
	return b.data;
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
	uint64_t id = load_le64(answer);
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
	struct bytebuf b = {0};
	bytebuf_u64(&b, s->id);
	int fd = dotnet_ipc_send(s->pid, CMDSET_EVENTPIPE, EP_STOP_TRACING, b.data, b.len,
				 "StopTracing");
	bytebuf_free(&b);
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
