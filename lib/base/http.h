/* http: a batch of HTTP(S) GET requests run concurrently under one deadline, each body
 * streamed to its caller and cut at a size cap.  For fetching symbol files from symbol
 * servers (symbols/symsrv.h), whose answers are untrusted and may never come.
 *
 * libcurl does the protocol, chosen over elfutils' libdebuginfod: libdebuginfod speaks only
 * debuginfod's URL layout (not Microsoft's SSQP), fetches one file per call with its own
 * timeouts and its own cache, and gives no deadline for a whole batch.  libcurl's multi
 * interface runs many transfers on one thread under one deadline, and brings what a user's
 * network needs: proxies as curl reads them (http_proxy, https_proxy, no_proxy), TLS with
 * the system's CA certificates (SSL_CERT_FILE, else the first bundle found where
 * distributions keep it: a static binary may run on another distribution), redirects
 * (Microsoft's server answers with one to its CDN), keep-alive across requests to a server.
 *
 * Bounded: no transfer outlives the batch's deadline; a body larger than max_bytes is cut
 * (a declared Content-Length over it is refused before any byte); only http and https are
 * spoken, after redirects too; nothing is kept in memory (each chunk goes to the sink).
 *
 *	struct http_batch *b = http_batch_new(&limits);
 *	http_batch_add(b, url, sink, done, arg);   (done may add further requests)
 *	http_batch_run(b);                          (returns by the deadline)
 *	http_batch_free(b);
 */
#ifndef PC_HTTP_H
#define PC_HTTP_H

#include "util.h"

struct http_limits {
	uint64_t deadline_ns; /* CLOCK_MONOTONIC (monotonic_ns()) by when the batch ends */
	uint64_t max_bytes;   /* per body */
	unsigned parallel;    /* transfers at once (0: 8) */
};

enum http_outcome {
	HTTP_OK,	  /* 2xx, the whole body went to the sink */
	HTTP_NOT_FOUND,	  /* 4xx: the server has no such file */
	HTTP_FAILED,	  /* 5xx, or the transfer broke (why says how) */
	HTTP_UNREACHABLE, /* no answer at all: name not resolved, connection refused or
			     not made in time */
	HTTP_TOO_BIG,	  /* over max_bytes */
	HTTP_REFUSED,	  /* the sink refused the body */
	HTTP_TIMEOUT,	  /* the deadline came first (an answer had begun) */
	HTTP_NO_RANGE,	  /* asked from an offset, the server can only send it all */
};

struct http_result {
	enum http_outcome outcome;
	long status;	/* HTTP status, 0 when none came */
	uint64_t bytes; /* of the body given to the sink */
	double seconds;
	bool resumable; /* the server said how long the body is and that it sends ranges of it
			   (Accept-Ranges: bytes, or it sent one): what came may be gone on with */
	char why[160];	/* for the log: curl's message, "HTTP 503" ... */
};

/* Takes each piece of a 2xx body; false refuses the rest (HTTP_REFUSED). */
typedef bool (*http_sink_fn)(void *arg, const void *data, size_t size);
/* Called once per request added, with its result (also when the deadline ended it). */
typedef void (*http_done_fn)(void *arg, const struct http_result *r);

/* NULL with pc_err() when libcurl cannot be set up. */
struct http_batch *http_batch_new(const struct http_limits *l);
/* Queues a GET of url (http:// or https://; anything else is done at once as HTTP_FAILED),
 * of its body from byte offset on (0: all of it; the rest of a download an earlier run
 * began: max_bytes counts the offset, and a server with nothing past it (416) is HTTP_OK
 * with no body). */
void http_batch_add(struct http_batch *b, const char *url, uint64_t offset, http_sink_fn sink,
		    http_done_fn done, void *arg);
/* Runs every request, those added by done() callbacks too, until all are done or the
 * deadline passes (the rest then end as HTTP_TIMEOUT or HTTP_UNREACHABLE). */
void http_batch_run(struct http_batch *b);
void http_batch_free(struct http_batch *b);

/* "host:port" of url, for the log (a copy, at most size bytes). */
void http_url_host(const char *url, char *out, size_t size);

#endif
