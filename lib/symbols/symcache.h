/* symcache: symbol files by build-id on this machine's disk, and what servers lacked.
 *
 * Our cache is -symbolcache DIR, else $XDG_CACHE_HOME/perfcollect-c/symbols, else
 * ~/.cache/perfcollect-c/symbols, laid out by SSQP keys (a symbol server's layout, and
 * dotnet-symbol's cache's: either can serve or copy it as it is):
 *
 *	<name>.dbg/elf-buildid-sym-<id>/<name>.dbg   a debug file as Microsoft publishes it
 *	_.debug/elf-buildid-sym-<id>/_.debug         any debug file (debuginfod's too)
 *	<name>/elf-buildid-<id>/<name>               the binary itself
 *
 * <id> is the build-id in lower-case hex, zero-padded to 20 bytes; <name> the file's name
 * (its last path component) in lower case.  Read too, never written: dotnet-symbol's cache
 * (~/.dotnet/symbolcache, the same keys) and debuginfod's client cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client: <id>/debuginfo, <id>/executable, the id unpadded).
 *
 * A request that found nothing is remembered as an empty file
 * .misses/<server>/<key> (<server> the URL without its scheme, every character but
 * [A-Za-z0-9.-] as '_'), its mtime the time; a server that could not be reached as
 * .misses/<server>/.unreachable.  `rm -r DIR/.misses` forgets them.  A download the
 * deadline cut stays as <key>.part-<server>, for the next run to go on with.
 *
 * Nothing here touches the network (symsrv.h fetches) or trusts what it finds: the ELF
 * reader checks each file's build-id when it is used.
 */
#ifndef PC_SYMCACHE_H
#define PC_SYMCACHE_H

#include "base/util.h"

enum symfile_kind { SYMFILE_DEBUG, SYMFILE_BINARY };

#define SYMCACHE_MAX_KEYS 2
/* How long a miss and an unreachable server are remembered, in seconds. */
#define SYMCACHE_MISS_S	       3600
#define SYMCACHE_UNREACHABLE_S 600

struct symcache;

/* dir: -symbolcache, or NULL for the default.  Never NULL; creates nothing yet. */
struct symcache *symcache_new(const char *dir);
void symcache_free(struct symcache *c);
/* Our cache's directory (NULL when there is no HOME to put it in). */
const char *symcache_dir(const struct symcache *c);

/* The SSQP keys of kind for the file named name (a path: its last component counts) with
 * build-id id, in the order to ask: for a debug file "<name>.dbg/..." then "_.debug/...",
 * for a binary "<name>/...".  Names that cannot be a key component (".", "..", control
 * characters) give only the name-less key, or none.  Returns how many (malloc'd each). */
size_t symcache_keys(enum symfile_kind kind, const char *name, const uint8_t *id, size_t idlen,
		     char *keys[SYMCACHE_MAX_KEYS]);
/* debuginfod's path for kind: "buildid/<id>/debuginfo" or "buildid/<id>/executable". */
char *symcache_debuginfod_key(enum symfile_kind kind, const uint8_t *id, size_t idlen);

/* A cached file of kind for name and id: a malloc'd path of a non-empty regular file in our
 * cache, dotnet-symbol's or debuginfod's, or NULL. */
char *symcache_find(const struct symcache *c, enum symfile_kind kind, const char *name,
		    const uint8_t *id, size_t idlen);
/* Where key goes in our cache, its directories made: a malloc'd path, or NULL with pc_err(). */
char *symcache_store_path(struct symcache *c, const char *key);

/* A server's URL as a file name: without its scheme, every character but [A-Za-z0-9.-]
 * as '_' (malloc'd).  Names its misses, and the parts of unfinished downloads from it
 * ("<key>.part-<server>", symsrv.h). */
char *symcache_server_name(const char *server);

/* Whether server was asked for key less than max_age_s seconds ago and had nothing. */
bool symcache_missed(const struct symcache *c, const char *server, const char *key,
		     unsigned max_age_s);
void symcache_note_miss(struct symcache *c, const char *server, const char *key);
/* The same for a server that gave no answer at all (key NULL). */
bool symcache_unreachable(const struct symcache *c, const char *server);
void symcache_note_unreachable(struct symcache *c, const char *server);

#endif
