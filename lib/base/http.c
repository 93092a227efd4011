/* http: see http.h.  One libcurl multi handle per batch, driven on the caller's thread:
 * requests wait in a queue until one of `parallel` slots is free, and the loop polls with
 * a timeout that never passes the deadline. */
#include "http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_PARALLEL 8
#define MAX_REDIRECTS	 5

struct request {
	struct http_batch *b;
	char *url;
	http_sink_fn sink;
	http_done_fn done;
	void *arg;
	CURL *easy;
	uint64_t offset, bytes, started_ns;
	bool too_big, refused;
	char errbuf[CURL_ERROR_SIZE];
};

struct http_batch {
	struct http_limits lim;
	CURLM *multi;
	struct request **queue; /* not started yet, in the order added */
	size_t nqueue, queue_cap, queue_head;
	struct request **active;
	size_t nactive, active_cap;
};

static CURLcode global_rc = CURLE_FAILED_INIT;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Where the CA certificates are: SSL_CERT_FILE, else libcurl's own default when that file
 * exists, else the first bundle found where distributions keep one (a static binary built
 * on Debian runs on others too).  NULL: leave libcurl's default. */
static const char *ca_bundle(CURL *easy)
{
	static const char *const known[] = {
	    "/etc/ssl/certs/ca-certificates.crt",		 /* Debian, Ubuntu, Alpine, Arch */
	    "/etc/pki/tls/certs/ca-bundle.crt",			 /* Fedora, RHEL */
	    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7+ */
	    "/etc/ssl/ca-bundle.pem",				 /* openSUSE */
	    "/etc/ssl/cert.pem",				 /* Alpine, macOS-like */
	};
	const char *env = getenv("SSL_CERT_FILE");
	if (env && *env)
		return env;
	char *def = NULL;
	if (curl_easy_getinfo(easy, CURLINFO_CAINFO, &def) == CURLE_OK && def &&
	    access(def, R_OK) == 0)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (access(known[i], R_OK) == 0)
			return known[i];
	return NULL;
}

struct http_batch *http_batch_new(const struct http_limits *l)
{
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		pc_err("libcurl: %s", curl_easy_strerror(global_rc));
		return NULL;
	}
	CURLM *m = curl_multi_init();
	if (!m) {
		pc_err("libcurl: cannot start a transfer set");
		return NULL;
	}
	struct http_batch *b = xcalloc(1, sizeof(*b));
	b->lim = *l;
	if (!b->lim.parallel)
		b->lim.parallel = DEFAULT_PARALLEL;
	b->multi = m;
	return b;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct request *r = arg;
	size_t n = size * nmemb;
	if (r->offset + r->bytes + n > r->b->lim.max_bytes) {
		r->too_big = true;
		return 0; /* CURLE_WRITE_ERROR ends the transfer */
	}
	if (!r->sink(r->arg, data, n)) {
		r->refused = true;
		return 0;
	}
	r->bytes += n;
	return n;
}

void http_batch_add(struct http_batch *b, const char *url, uint64_t offset, http_sink_fn sink,
		    http_done_fn done, void *arg)
{
	struct request *r = xcalloc(1, sizeof(*r));
	r->b = b;
	r->url = xstrdup(url);
	r->offset = offset;
	r->sink = sink;
	r->done = done;
	r->arg = arg;
	grow_array((void **)&b->queue, &b->queue_cap, b->nqueue + 1, sizeof(*b->queue));
	b->queue[b->nqueue++] = r;
}

static void request_free(struct request *r)
{
	if (r->easy)
		curl_easy_cleanup(r->easy);
	free(r->url);
	free(r);
}

/* Whether the answer could be continued from where it stopped (see http_result). */
static bool resumable(struct request *r)
{
	long status = 0;
	curl_off_t len = -1;
	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
	if (len < 0)
		return false;
	if (status == 206)
		return true;
	struct curl_header *h = NULL;
	return curl_easy_header(r->easy, "Accept-Ranges", 0, CURLH_HEADER, -1, &h) == CURLHE_OK &&
	       h && h->value && strstr(h->value, "bytes");
}

/* Reports r's result and frees it. */
static void finish(struct request *r, enum http_outcome outcome, long status, const char *fmt, ...)
    PC_PRINTF(4, 5);
static void finish(struct request *r, enum http_outcome outcome, long status, const char *fmt, ...)
{
	struct http_result res = {.outcome = outcome, .status = status, .bytes = r->bytes};
	res.resumable = r->easy && resumable(r);
	res.seconds = r->started_ns ? (monotonic_ns() - r->started_ns) / 1e9 : 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res.why, sizeof(res.why), fmt, ap);
	va_end(ap);
	r->done(r->arg, &res);
	request_free(r);
}

/* Milliseconds left before the deadline, at least 1 (0 means "none" to libcurl). */
static long ms_left(const struct http_batch *b)
{
	uint64_t now = monotonic_ns();
	if (now >= b->lim.deadline_ns)
		return 1;
	uint64_t ms = (b->lim.deadline_ns - now) / 1000000;
	return ms < 1 ? 1 : ms > 0x7fffffff ? 0x7fffffff : (long)ms;
}

static bool start(struct http_batch *b, struct request *r)
{
	bool web = !strncasecmp(r->url, "http://", 7) || !strncasecmp(r->url, "https://", 8);
	if (!web) {
		finish(r, HTTP_FAILED, 0, "not an http:// or https:// URL");
		return false;
	}
	if (r->offset >= b->lim.max_bytes) {
		finish(r, HTTP_TOO_BIG, 0, "larger than %" PRIu64 " MiB", b->lim.max_bytes >> 20);
		return false;
	}
	CURL *e = curl_easy_init();
	if (!e) {
		finish(r, HTTP_FAILED, 0, "libcurl: cannot start a transfer");
		return false;
	}
	r->easy = e;
	r->started_ns = monotonic_ns();
	long left = ms_left(b);
	curl_easy_setopt(e, CURLOPT_URL, r->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, r);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "perfcollect-c/" PC_VERSION);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(e, CURLOPT_MAXREDIRS, (long)MAX_REDIRECTS);
	curl_easy_setopt(e, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, left);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, left);
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(b->lim.max_bytes - r->offset));
	if (r->offset)
		curl_easy_setopt(e, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)r->offset);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
	const char *ca = ca_bundle(e);
	if (ca)
		curl_easy_setopt(e, CURLOPT_CAINFO, ca);
	const char *capath = getenv("SSL_CERT_DIR");
	if (capath && *capath)
		curl_easy_setopt(e, CURLOPT_CAPATH, capath);
	CURLMcode mc = curl_multi_add_handle(b->multi, e);
	if (mc != CURLM_OK) {
		finish(r, HTTP_FAILED, 0, "libcurl: %s", curl_multi_strerror(mc));
		return false;
	}
	grow_array((void **)&b->active, &b->active_cap, b->nactive + 1, sizeof(*b->active));
	b->active[b->nactive++] = r;
	return true;
}

static void drop_active(struct http_batch *b, struct request *r)
{
	curl_multi_remove_handle(b->multi, r->easy);
	for (size_t i = 0; i < b->nactive; i++)
		if (b->active[i] == r) {
			b->active[i] = b->active[--b->nactive];
			break;
		}
}

/* Whether a connection to the server (or its proxy) was made. */
static bool connected(struct request *r)
{
	curl_off_t t = 0;
	return curl_easy_getinfo(r->easy, CURLINFO_CONNECT_TIME_T, &t) == CURLE_OK && t > 0;
}

static void completed(struct http_batch *b, struct request *r, CURLcode rc)
{
	long status = 0;
	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	bool conn = connected(r);
	drop_active(b, r);
	const char *msg = r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc);
	switch (rc) {
	case CURLE_OK:
		if (status >= 200 && status < 300)
			finish(r, HTTP_OK, status, "HTTP %ld", status);
		else
			finish(r, HTTP_FAILED, status, "HTTP %ld", status);
		return;
	case CURLE_HTTP_RETURNED_ERROR:
		if (status == 416 && r->offset) /* nothing past what the caller has */
			finish(r, HTTP_OK, status, "HTTP %ld", status);
		else
			finish(r, status >= 400 && status < 500 ? HTTP_NOT_FOUND : HTTP_FAILED,
			       status, "HTTP %ld", status);
		return;
	case CURLE_RANGE_ERROR:
		finish(r, HTTP_NO_RANGE, status, "cannot resume at byte %" PRIu64, r->offset);
		return;
	case CURLE_FILESIZE_EXCEEDED:
		finish(r, HTTP_TOO_BIG, status, "larger than %" PRIu64 " MiB",
		       b->lim.max_bytes >> 20);
		return;
	case CURLE_WRITE_ERROR:
		if (r->too_big)
			finish(r, HTTP_TOO_BIG, status, "larger than %" PRIu64 " MiB",
			       b->lim.max_bytes >> 20);
		else
			finish(r, HTTP_REFUSED, status, "%s", r->refused ? "refused" : msg);
		return;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		finish(r, HTTP_UNREACHABLE, 0, "%s", msg);
		return;
	case CURLE_OPERATION_TIMEDOUT:
		finish(r, conn ? HTTP_TIMEOUT : HTTP_UNREACHABLE, status, "%s", msg);
		return;
	default:
		finish(r, HTTP_FAILED, status, "%s", msg);
		return;
	}
}

/* The deadline passed: what still runs or waits ends now. */
static void give_up(struct http_batch *b)
{
	while (b->nactive) {
		struct request *r = b->active[b->nactive - 1];
		long status = 0;
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
		bool conn = connected(r);
		uint64_t secs = (monotonic_ns() - r->started_ns) / 1000000000ULL;
		drop_active(b, r);
		if (conn)
			finish(r, HTTP_TIMEOUT, status,
			       "not complete after %" PRIu64 " s (%" PRIu64 " bytes came)", secs,
			       r->bytes);
		else
			finish(r, HTTP_UNREACHABLE, 0, "no connection within %" PRIu64 " s", secs);
	}
	while (b->queue_head < b->nqueue)
		finish(b->queue[b->queue_head++], HTTP_TIMEOUT, 0, "not asked before the deadline");
}

void http_batch_run(struct http_batch *b)
{
	for (;;) {
		while (b->nactive < b->lim.parallel && b->queue_head < b->nqueue &&
		       monotonic_ns() < b->lim.deadline_ns)
			start(b, b->queue[b->queue_head++]);
		if (!b->nactive && b->queue_head >= b->nqueue)
			break;
		if (monotonic_ns() >= b->lim.deadline_ns) {
			give_up(b);
			continue; /* done() callbacks may have queued more: they time out too */
		}
		int running = 0;
		curl_multi_perform(b->multi, &running);
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(b->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct request *r = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			if (r)
				completed(b, r, msg->data.result);
		}
		if (b->nactive) {
			long wait = ms_left(b);
			curl_multi_poll(b->multi, NULL, 0, wait < 100 ? (int)wait : 100, NULL);
		}
	}
	/* the queue is empty: reset it for requests added after this run */
	b->nqueue = b->queue_head = 0;
}

void http_batch_free(struct http_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nactive; i++) {
		curl_multi_remove_handle(b->multi, b->active[i]->easy);
		request_free(b->active[i]);
	}
	for (size_t i = b->queue_head; i < b->nqueue; i++)
		request_free(b->queue[i]);
	free(b->active);
	free(b->queue);
	curl_multi_cleanup(b->multi);
	free(b);
}

void http_url_host(const char *url, char *out, size_t size)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, "/?#");
	const char *at = memchr(p, '@', n); /* no user:password in the log */
	if (at) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	snprintf(out, size, "%.*s", (int)n, p);
}
