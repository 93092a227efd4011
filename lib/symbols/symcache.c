/* symcache: see symcache.h. */
#include "symcache.h"

#include "base/outfile.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SSQP_ID_BYTES 20 /* SSQP pads shorter build-ids with zeros to this */

struct symcache {
	char *dir;	  /* ours; NULL without a home */
	char *dotnet;	  /* dotnet-symbol's, or NULL */
	char *debuginfod; /* debuginfod's client cache, or NULL */
};

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* $XDG_CACHE_HOME/<sub>, else ~/.cache/<sub>; NULL without either. */
static char *xdg_cache(const char *sub)
{
	const char *x = getenv("XDG_CACHE_HOME");
	if (x && x[0] == '/')
		return xasprintf("%s/%s", x, sub);
	const char *h = home_dir();
	return h ? xasprintf("%s/.cache/%s", h, sub) : NULL;
}

struct symcache *symcache_new(const char *dir)
{
	struct symcache *c = xcalloc(1, sizeof(*c));
	c->dir = dir && *dir ? xstrdup(dir) : xdg_cache("perfcollect-c/symbols");
	const char *h = home_dir();
	c->dotnet = h ? xasprintf("%s/.dotnet/symbolcache", h) : NULL;
	const char *dp = getenv("DEBUGINFOD_CACHE_PATH");
	c->debuginfod = dp && dp[0] == '/' ? xstrdup(dp) : xdg_cache("debuginfod_client");
	return c;
}

void symcache_free(struct symcache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c->dotnet);
	free(c->debuginfod);
	free(c);
}

const char *symcache_dir(const struct symcache *c)
{
	return c->dir;
}

static void id_hex(const uint8_t *id, size_t n, size_t pad_to, char *out)
{
	hex_encode(id, n, out);
	for (size_t i = n; i < pad_to; i++)
		memcpy(out + 2 * i, "00", 3); /* its NUL after each pair */
}

/* The file's name as a key component, lower case; NULL when it cannot be one. */
static char *key_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t len = strlen(name);
	/* perf marks a file replaced while mapped "(deleted)": the name is before it */
	if (str_endswith(name, " (deleted)"))
		len -= strlen(" (deleted)");
	if (!len || len > 200 || (len <= 2 && !strncmp(name, "..", len)))
		return NULL;
	char *out = xstrndup(name, len);
	for (char *p = out; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			free(out);
			return NULL;
		}
		*p = (char)tolower((unsigned char)*p);
	}
	return out;
}

size_t symcache_keys(enum symfile_kind kind, const char *name, const uint8_t *id, size_t idlen,
		     char *keys[SYMCACHE_MAX_KEYS])
{
	if (!idlen || idlen > 64)
		return 0;
	char hex[2 * 64 + 1];
	id_hex(id, idlen, SSQP_ID_BYTES, hex);
	char *n = key_name(name);
	size_t k = 0;
	if (kind == SYMFILE_DEBUG) {
		if (n)
			keys[k++] = xasprintf("%s.dbg/elf-buildid-sym-%s/%s.dbg", n, hex, n);
		keys[k++] = xasprintf("_.debug/elf-buildid-sym-%s/_.debug", hex);
	} else if (n) {
		keys[k++] = xasprintf("%s/elf-buildid-%s/%s", n, hex, n);
	}
	free(n);
	return k;
}

char *symcache_debuginfod_key(enum symfile_kind kind, const uint8_t *id, size_t idlen)
{
	if (!idlen || idlen > 64)
		return NULL;
	char hex[2 * 64 + 1];
	id_hex(id, idlen, 0, hex);
	return xasprintf("buildid/%s/%s", hex, kind == SYMFILE_DEBUG ? "debuginfo" : "executable");
}

static bool usable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

char *symcache_find(const struct symcache *c, enum symfile_kind kind, const char *name,
		    const uint8_t *id, size_t idlen)
{
	char *keys[SYMCACHE_MAX_KEYS];
	size_t nkeys = symcache_keys(kind, name, id, idlen, keys);
	char *found = NULL;
	const char *ssqp_dirs[] = {c->dir, c->dotnet};
	for (size_t d = 0; d < ARRAY_SIZE(ssqp_dirs) && !found; d++) {
		for (size_t k = 0; k < nkeys && !found && ssqp_dirs[d]; k++) {
			char *p = xasprintf("%s/%s", ssqp_dirs[d], keys[k]);
			if (usable(p))
				found = p;
			else
				free(p);
		}
	}
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	if (!found && c->debuginfod) {
		char *key = symcache_debuginfod_key(kind, id, idlen);
		/* debuginfod's cache has no "buildid/" level */
		char *p = key ? xasprintf("%s/%s", c->debuginfod, key + strlen("buildid/")) : NULL;
		if (p && usable(p))
			found = p;
		else
			free(p);
		free(key);
	}
	return found;
}

/* key's directories under base, made; the file's path. */
static char *make_path(const char *base, const char *key)
{
	char *path = xasprintf("%s/%s", base, key);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = 0;
	int r = mkdir_p(dir, 0700);
	free(dir);
	if (r < 0) {
		free(path);
		return NULL;
	}
	return path;
}

char *symcache_store_path(struct symcache *c, const char *key)
{
	if (!c->dir) {
		pc_err("no cache directory: neither XDG_CACHE_HOME nor HOME is set (-symbolcache "
		       "DIR names one)");
		return NULL;
	}
	return make_path(c->dir, key);
}

char *symcache_server_name(const char *server)
{
	const char *s = strstr(server, "://");
	s = s ? s + 3 : server;
	char *flat = xstrdup(s);
	for (char *p = flat; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			*p = '_';
	return flat;
}

/* .misses/<server>/<key>. */
static char *miss_path(const struct symcache *c, const char *server, const char *key)
{
	if (!c->dir)
		return NULL;
	char *flat = symcache_server_name(server);
	char *path = xasprintf("%s/.misses/%s/%s", c->dir, flat, key);
	free(flat);
	return path;
}

static bool recent(const char *path, unsigned max_age_s)
{
	struct stat st;
	if (!path || stat(path, &st) < 0)
		return false;
	time_t now = time(NULL);
	return st.st_mtime <= now && now - st.st_mtime < (time_t)max_age_s;
}

/* An empty file at path, now (its mtime is the time). */
static void touch(const char *path)
{
	if (!path)
		return;
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = 0;
	struct outfile *o = mkdir_p(dir, 0700) == 0 ? outfile_open(path) : NULL;
	if (o)
		outfile_commit(o);
	free(dir);
}

bool symcache_missed(const struct symcache *c, const char *server, const char *key,
		     unsigned max_age_s)
{
	char *p = miss_path(c, server, key);
	bool r = recent(p, max_age_s);
	free(p);
	return r;
}

void symcache_note_miss(struct symcache *c, const char *server, const char *key)
{
	char *p = miss_path(c, server, key);
	touch(p);
	free(p);
}

bool symcache_unreachable(const struct symcache *c, const char *server)
{
	return symcache_missed(c, server, ".unreachable", SYMCACHE_UNREACHABLE_S);
}

void symcache_note_unreachable(struct symcache *c, const char *server)
{
	symcache_note_miss(c, server, ".unreachable");
}
