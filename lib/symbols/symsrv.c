/* symsrv: see symsrv.h.  A job is one file (debug file or binary) for one ELF file, with its
 * candidates (server + key) in the order to ask; base/http.h runs the jobs' current requests
 * at once, and each answer starts that job's next candidate until one gives a good file or
 * none is left. */
#include "symsrv.h"

#include "base/http.h"
#include "base/log.h"
#include "base/outfile.h"
#include "dso.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct server {
	char *url; /* without a trailing '/' */
	bool ssqp; /* else debuginfod */
	bool unreachable;
	char host[96];
};

struct candidate {
	size_t server;
	char *key;	 /* what the server is asked for (below its URL) */
	char *store_key; /* where the answer goes in the cache (an SSQP key) */
};

struct fetch;

struct job {
	struct fetch *f;
	struct symsrv_file *file;
	enum symfile_kind kind;
	struct candidate *cands;
	size_t ncands, next;
	/* the request in flight */
	const struct candidate *cur;
	struct outfile *out;
	char *store_path;
	uint64_t have; /* bytes an earlier run left in the part it goes on with */
	unsigned char head[4];
	size_t nhead;
	bool not_elf;
	bool whole;    /* the server cannot resume: ask for all of it */
	char why[256]; /* what each server answered */
};

struct fetch {
	struct http_batch *b;
	struct symcache *cache;
	struct server *servers;
	size_t nservers;
	uint64_t deadline_ns;
	size_t fetched[2]; /* by kind */
};

static const char *const kind_name[] = {
    [SYMFILE_DEBUG] = "debug file", [SYMFILE_BINARY] = "binary"};

int symsrv_parse_timeout(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 3600)
		return pc_err("'%s' is not a number of seconds from 0.1 to 3600", s);
	*out = v;
	return 0;
}

static void add_why(char *why, size_t size, const char *fmt, ...) PC_PRINTF(3, 4);
/* Adds a reason to why ("; " between them), once: two keys asked of one server often get
 * the same answer. */
static void add_why(char *why, size_t size, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t l = strlen(why);
	if (strstr(why, msg) || l + 4 >= size)
		return;
	if (l) {
		memcpy(why + l, "; ", 3);
		l += 2;
	}
	size_t n = strlen(msg);
	if (n >= size - l)
		n = size - l - 1;
	memcpy(why + l, msg, n);
	why[l + n] = 0;
}

/* The .NET runtime's own files, whose symbols Microsoft publishes. */
static bool is_runtime_file(const char *path)
{
	static const char *const names[] = {
	    "libcoreclr.so",  "libclrjit.so",
	    "libhostfxr.so",  "libhostpolicy.so",
	    "dotnet",	      "libclrgc.so",
	    "libclrgcexp.so", "libmscordaccore.so",
	    "libmscordbi.so", "libcoreclrtraceptprovider.so",
	    "createdump",
	};
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return str_startswith(name, "libSystem.") && str_endswith(name, ".so");
}

static void add_server(struct fetch *f, const char *url, size_t len, bool ssqp)
{
	while (len && url[len - 1] == '/')
		len--;
	if (len < 8 || (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)))
		return; /* debuginfod's file:// and the like: not ours to read */
	for (size_t i = 0; i < f->nservers; i++)
		if (f->servers[i].ssqp == ssqp && strlen(f->servers[i].url) == len &&
		    !strncmp(f->servers[i].url, url, len))
			return;
	f->servers = xrealloc(f->servers, (f->nservers + 1) * sizeof(*f->servers));
	struct server *s = &f->servers[f->nservers++];
	memset(s, 0, sizeof(*s));
	s->url = xstrndup(url, len);
	s->ssqp = ssqp;
	http_url_host(s->url, s->host, sizeof(s->host));
	s->unreachable = symcache_unreachable(f->cache, s->url);
}

/* The servers of symsrv.h, in its order; the Microsoft server last among the SSQP ones.
 * Returns the index of Microsoft's (nservers when it is not asked). */
static size_t add_servers(struct fetch *f, const struct symsrv_opts *o)
{
	for (size_t i = 0; i < o->nservers; i++)
		add_server(f, o->servers[i], strlen(o->servers[i]), true);
	const char *ms = getenv("PERFCOLLECT_C_MS_SYMBOL_SERVER");
	if (!ms)
		ms = SYMSRV_MS_URL;
	size_t ms_index = f->nservers;
	add_server(f, ms, strlen(ms), true);
	if (f->nservers == ms_index)
		ms_index = SIZE_MAX; /* empty, or already one of -symbolserver */
	const char *d = getenv("DEBUGINFOD_URLS");
	while (d && *d) {
		d += strspn(d, " \t\n");
		size_t len = strcspn(d, " \t\n");
		if (len)
			add_server(f, d, len, false);
		d += len;
	}
	return ms_index;
}

/* Percent-encodes what is not unreserved in a URL path (RFC 3986), '/' kept. */
static char *url_path(const char *key)
{
	char *out = xmalloc(3 * strlen(key) + 1), *p = out;
	for (const unsigned char *k = (const unsigned char *)key; *k; k++) {
		if (isalnum(*k) || strchr("-._~/", *k))
			*p++ = (char)*k;
		else
			p += sprintf(p, "%%%02X", *k);
	}
	*p = 0;
	return out;
}

static void add_candidate(struct job *j, size_t server, const char *key, const char *store_key)
{
	j->cands = xrealloc(j->cands, (j->ncands + 1) * sizeof(*j->cands));
	j->cands[j->ncands++] = (struct candidate){server, xstrdup(key), xstrdup(store_key)};
}

static void plan_job(struct fetch *f, struct job *j, size_t ms_index)
{
	struct symsrv_file *file = j->file;
	char *keys[SYMCACHE_MAX_KEYS];
	size_t nkeys =
	    symcache_keys(j->kind, file->path, file->build_id, file->build_id_size, keys);
	char *dkey = symcache_debuginfod_key(j->kind, file->build_id, file->build_id_size);
	bool runtime = is_runtime_file(file->path);
	for (size_t s = 0; s < f->nservers; s++) {
		if (s == ms_index && !runtime)
			continue;
		if (f->servers[s].ssqp) {
			for (size_t k = 0; k < nkeys; k++)
				add_candidate(j, s, keys[k], keys[k]);
		} else if (dkey && nkeys) {
			/* stored under the name-less key of a debug file, the only key of a
			 * binary */
			add_candidate(j, s, dkey, keys[nkeys - 1]);
		}
	}
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(dkey);
}

static void job_release(struct job *j)
{
	outfile_abort(j->out);
	j->out = NULL;
	free(j->store_path);
	j->store_path = NULL;
	j->cur = NULL;
}

static bool on_body(void *arg, const void *data, size_t size)
{
	struct job *j = arg;
	const unsigned char *p = data;
	for (size_t i = 0; i < size && j->nhead < sizeof(j->head); i++)
		j->head[j->nhead++] = p[i];
	if (memcmp(j->head, "\177ELF", j->nhead)) {
		j->not_elf = true;
		return false;
	}
	return fwrite(data, 1, size, outfile_stream(j->out)) == size;
}

static void on_done(void *arg, const struct http_result *r);

/* Asks the job's next candidate that is worth asking; false when none is left. */
static bool job_next(struct job *j)
{
	struct fetch *f = j->f;
	/* a request with less than this left would only say it had no time */
	const uint64_t least_ns = 50000000;
	while (j->next < j->ncands && monotonic_ns() + least_ns < f->deadline_ns) {
		const struct candidate *c = &j->cands[j->next++];
		struct server *s = &f->servers[c->server];
		if (s->unreachable) {
			add_why(j->why, sizeof(j->why), "%s unreachable", s->host);
			continue;
		}
		if (symcache_missed(f->cache, s->url, c->key, SYMCACHE_MISS_S)) {
			add_why(j->why, sizeof(j->why), "not on %s (asked within the hour)",
				s->host);
			continue;
		}
		j->store_path = symcache_store_path(f->cache, c->store_key);
		char *name = symcache_server_name(s->url);
		char *tag = xasprintf("-%s", name);
		j->out = j->store_path ? outfile_resume(j->store_path, tag, &j->have) : NULL;
		if (j->out && j->have && (j->whole || j->have < sizeof(j->head))) {
			outfile_abort(j->out); /* start it again */
			j->out = outfile_resume(j->store_path, tag, &j->have);
		}
		free(tag);
		free(name);
		if (!j->out) {
			add_why(j->why, sizeof(j->why), "cannot write the cache: %s",
				pc_strerror());
			job_release(j);
			return false;
		}
		j->cur = c;
		/* a part was checked for its start when it was begun */
		j->nhead = j->have ? sizeof(j->head) : 0;
		memcpy(j->head, "\177ELF", j->nhead);
		j->not_elf = false;
		char *path = url_path(c->key);
		char *url = xasprintf("%s/%s", s->url, path);
		http_batch_add(f->b, url, j->have, on_body, on_done, j);
		free(url);
		free(path);
		return true;
	}
	if (j->next < j->ncands)
		add_why(j->why, sizeof(j->why), "out of time");
	return false;
}

/* A complete answer: used when the ELF reader accepts it for this file. */
static bool accept(struct job *j, const struct http_result *r)
{
	struct fetch *f = j->f;
	const struct server *s = &f->servers[j->cur->server];
	if (fflush(outfile_stream(j->out)) != 0) {
		add_why(j->why, sizeof(j->why), "cannot write the cache");
		return false;
	}
	int fd = open(outfile_temp_path(j->out), O_RDONLY | O_CLOEXEC);
	int ok = fd >= 0 ? dso_check_file(fd, j->kind, j->file->build_id, j->file->build_id_size)
			 : pc_err_errno("cannot read it back");
	if (fd >= 0)
		close(fd);
	if (ok < 0) {
		add_why(j->why, sizeof(j->why), "%s sent a file that is not it: %s", s->host,
			pc_strerror());
		symcache_note_miss(f->cache, s->url, j->cur->key);
		return false;
	}
	struct outfile *out = j->out;
	j->out = NULL;
	if (outfile_commit(out) < 0) {
		add_why(j->why, sizeof(j->why), "%s", pc_strerror());
		return false;
	}
	log_info("symbol server: %s: %s from %s (%.1f MiB in %.2f s%s) -> %s", j->file->path,
		 kind_name[j->kind], s->host, r->bytes / 1048576.0, r->seconds,
		 j->have ? ", the rest of a part an earlier run fetched" : "", j->store_path);
	f->fetched[j->kind]++;
	if (j->kind == SYMFILE_DEBUG)
		j->file->got_debug = true;
	else
		j->file->got_binary = true;
	return true;
}

static void on_done(void *arg, const struct http_result *r)
{
	struct job *j = arg;
	struct fetch *f = j->f;
	struct server *s = &f->servers[j->cur->server];
	bool done = false;
	switch (r->outcome) {
	case HTTP_OK:
		done = accept(j, r);
		break;
	case HTTP_NOT_FOUND:
		add_why(j->why, sizeof(j->why), "not on %s (%s)", s->host, r->why);
		symcache_note_miss(f->cache, s->url, j->cur->key);
		break;
	case HTTP_UNREACHABLE:
		add_why(j->why, sizeof(j->why), "%s unreachable: %s", s->host, r->why);
		if (!s->unreachable)
			symcache_note_unreachable(f->cache, s->url);
		s->unreachable = true;
		break;
	case HTTP_REFUSED:
		if (j->not_elf) {
			add_why(j->why, sizeof(j->why), "%s sent something that is not ELF",
				s->host);
			symcache_note_miss(f->cache, s->url, j->cur->key);
		} else {
			add_why(j->why, sizeof(j->why), "cannot write the cache");
		}
		break;
	case HTTP_NO_RANGE:
		/* ask again for all of it (once: whole stays set) */
		add_why(j->why, sizeof(j->why), "%s: %s", s->host, r->why);
		if (!j->whole) {
			j->whole = true;
			j->next--;
		}
		break;
	case HTTP_TIMEOUT:
	case HTTP_FAILED:
		add_why(j->why, sizeof(j->why), "%s: %s", s->host, r->why);
		if (r->resumable && j->have + r->bytes >= sizeof(j->head)) {
			/* what came stays for the next run to go on with */
			add_why(j->why, sizeof(j->why), "%.1f MiB kept for the next run",
				(j->have + r->bytes) / 1048576.0);
			fflush(outfile_stream(j->out));
			outfile_suspend(j->out);
			j->out = NULL;
		}
		break;
	case HTTP_TOO_BIG:
		add_why(j->why, sizeof(j->why), "%s: %s", s->host, r->why);
		break;
	}
	job_release(j);
	if (!done)
		job_next(j);
}

static const char *short_id(const struct symsrv_file *file, char *buf, size_t size)
{
	size_t n = file->build_id_size > 4 ? 4 : file->build_id_size;
	char hex[2 * 4 + 1];
	snprintf(buf, size, "%s%s", hex_encode(file->build_id, n, hex),
		 file->build_id_size > n ? "..." : "");
	return buf;
}

/* One line: the files that stay without symbols, and why. */
static void log_unnamed(struct symsrv_file *files, size_t n, double secs, const struct fetch *f)
{
	size_t missing = 0, needed = 0;
	for (size_t i = 0; i < n; i++) {
		needed += files[i].need_debug || files[i].need_binary;
		missing += (files[i].need_debug && !files[i].got_debug) ||
			   (files[i].need_binary && !files[i].got_binary);
	}
	if (!needed)
		return;
	size_t cap = 256, len = 0;
	char *line = xmalloc(cap);
	line[0] = 0;
	for (size_t i = 0; i < n; i++) {
		struct symsrv_file *file = &files[i];
		bool no_debug = file->need_debug && !file->got_debug;
		bool no_binary = file->need_binary && !file->got_binary;
		if (!no_debug && !no_binary)
			continue;
		char id[16];
		char *part = xasprintf("%s%s (build-id %s, %s%s%s)", len ? ", " : "", file->path,
				       short_id(file, id, sizeof(id)),
				       no_binary ? "no binary" : "no symbols",
				       file->why[0] ? ": " : "", file->why);
		size_t pl = strlen(part);
		grow_array((void **)&line, &cap, len + pl + 1, 1);
		memcpy(line + len, part, pl + 1);
		len += pl;
		free(part);
	}
	if (missing)
		log_info("symbol servers: %zu of %zu files without symbols here stay unnamed "
			 "(%zu debug files and %zu binaries fetched in %.2f s): %s",
			 missing, needed, f->fetched[SYMFILE_DEBUG], f->fetched[SYMFILE_BINARY],
			 secs, line);
	else
		log_info("symbol servers: all %zu files without symbols here named (%zu debug "
			 "files and %zu binaries fetched in %.2f s)",
			 needed, f->fetched[SYMFILE_DEBUG], f->fetched[SYMFILE_BINARY], secs);
	free(line);
}

void symsrv_fetch(const struct symsrv_opts *o, double default_timeout_s, struct symcache *cache,
		  struct symsrv_file *files, size_t n)
{
	uint64_t t0 = monotonic_ns();
	double timeout = o && o->timeout_s > 0 ? o->timeout_s : default_timeout_s;
	struct fetch f = {.cache = cache, .deadline_ns = t0 + (uint64_t)(timeout * 1e9)};
	size_t njobs = 0;
	for (size_t i = 0; i < n; i++)
		njobs += files[i].need_debug + files[i].need_binary;
	if (!njobs)
		return;
	if (!o || o->off) {
		for (size_t i = 0; i < n; i++)
			snprintf(files[i].why, sizeof(files[i].why), "-nosymbolserver");
		log_unnamed(files, n, 0, &f);
		return;
	}
	size_t ms_index = add_servers(&f, o);
	struct http_limits lim = {.deadline_ns = f.deadline_ns, .max_bytes = SYMSRV_MAX_BYTES};
	f.b = f.nservers ? http_batch_new(&lim) : NULL;
	struct job *jobs = xcalloc(njobs, sizeof(*jobs));
	size_t k = 0, asked = 0;
	for (size_t i = 0; i < n; i++) {
		for (int kind = SYMFILE_DEBUG; kind <= SYMFILE_BINARY; kind++) {
			bool need =
			    kind == SYMFILE_DEBUG ? files[i].need_debug : files[i].need_binary;
			if (!need)
				continue;
			struct job *j = &jobs[k++];
			j->f = &f;
			j->file = &files[i];
			j->kind = (enum symfile_kind)kind;
			plan_job(&f, j, ms_index);
			if (!j->ncands)
				add_why(j->why, sizeof(j->why),
					"no symbol server for it (-symbolserver URL, "
					"DEBUGINFOD_URLS)");
			else if (!f.b)
				add_why(j->why, sizeof(j->why), "%s", pc_strerror());
			else
				asked += job_next(j);
		}
	}
	if (asked) /* the user waits for it: say so, and how to skip it */
		log_say("Fetching symbols from symbol servers for %zu stripped file%s (at most "
			"%g s; -nosymbolserver skips it) ...",
			asked, asked == 1 ? "" : "s", timeout);
	if (f.b)
		http_batch_run(f.b);
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		job_release(j); /* the deadline ended what http_batch_run() had not */
		bool got = j->kind == SYMFILE_DEBUG ? j->file->got_debug : j->file->got_binary;
		if (!got && j->why[0])
			add_why(j->file->why, sizeof(j->file->why), "%s%s",
				j->kind == SYMFILE_BINARY ? "binary: " : "", j->why);
		for (size_t c = 0; c < j->ncands; c++) {
			free(j->cands[c].key);
			free(j->cands[c].store_key);
		}
		free(j->cands);
	}
	free(jobs);
	http_batch_free(f.b);
	log_unnamed(files, n, (monotonic_ns() - t0) / 1e9, &f);
	for (size_t i = 0; i < f.nservers; i++)
		free(f.servers[i].url);
	free(f.servers);
}
