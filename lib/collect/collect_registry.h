/* collect_registry: the one place per user where background collections (start NAME) are
 * listed, so that `stop NAME` finds one from any directory and any shell.
 *
 * Root's is /run/perfcollect-c; another user's is $XDG_RUNTIME_DIR/perfcollect-c (or
 * /tmp/perfcollect-c-<uid> without one).  The directory is created 0700 and, each time it
 * is opened, must be a real directory (O_NOFOLLOW) owned by us with no access for anyone
 * else.  Its files are created by base/outfile in that verified directory, O_EXCL |
 * O_NOFOLLOW and OUTFILE_OURS (never given to the sudo user outfile_owner_from_sudo() names:
 * they are ours alone), and read through the directory's fd, never through a symlink or a
 * FIFO, only when regular, ours and bounded (the output also of one link).  Per
 * collection it holds <name>.state (key value lines, replaced whole by rename, so a reader
 * never sees half of one; created by link, so two starts of one name cannot both have it)
 * and <name>.out (what the collector printed).  A name is a plain file name: no '/', no
 * "..", no leading '.', no control characters.
 */
#ifndef PC_COLLECT_REGISTRY_H
#define PC_COLLECT_REGISTRY_H

#include "base/util.h"

#include <sys/types.h>

struct registry;

/* One background collection, as its collector recorded it. */
struct registry_entry {
	long pid;
	uint64_t starttime; /* /proc/<pid>/stat field 22: with pid and boot_id, one process */
	char boot_id[40];   /* /proc/sys/kernel/random/boot_id */
	dev_t exe_dev;	    /* the collector's /proc/<pid>/exe: a perfcollect-c binary */
	ino_t exe_ino;
	char started[24]; /* UTC, ISO 8601 */
	char state[16];	  /* starting | recording | finished */
	int status;	  /* collect's exit status once finished, else -1 */
	long shown;	  /* bytes of <name>.out that start already showed */
	char *zip;	  /* where the zip goes (absolute) */
	char *trace_dir;  /* <name>.trace beside it, for merge when the collector died */
};

/* Opens (create: making it when missing) this user's registry.  NULL with pc_err() when it
 * cannot be had or fails a check; with !create, a registry that does not exist yet is an
 * empty one (not an error). */
struct registry *registry_open(bool create);
void registry_free(struct registry *r);
/* Its directory, for messages. */
const char *registry_path(const struct registry *r);

/* 0 when name can name a background collection, else -1 with pc_err() saying why. */
int registry_check_name(const char *name);

/* 1 read, 0 no such entry, -1 unreadable or refused (pc_err()).  e is released by
 * registry_entry_release(). */
int registry_read(struct registry *r, const char *name, struct registry_entry *e);
void registry_entry_release(struct registry_entry *e);
/* Replaces name's state with e; exclusive: only when there is none (-1 with errno EEXIST
 * otherwise: someone else holds the name). */
int registry_write(struct registry *r, const char *name, const struct registry_entry *e,
		   bool exclusive);
/* Removes name's state and output. */
void registry_remove(struct registry *r, const char *name);
/* A fresh <name>.out for the collector to write to (O_APPEND), an fd or -1 with pc_err(). */
int registry_create_output(struct registry *r, const char *name);
/* <name>.out from byte from to byte to (the end when < 0), NUL-terminated, or NULL. */
char *registry_read_output(struct registry *r, const char *name, long from, long to, size_t *len);
/* The names it holds, sorted; malloc'd array of malloc'd names. */
int registry_names(struct registry *r, char ***names, size_t *n);
void registry_names_free(char **names, size_t n);

/* Fills pid, starttime, boot_id and the executable's identity of this process (in the
 * collector, before its first write). */
int registry_entry_self(struct registry_entry *e);
/* Whether the process e names is still that collector: same boot, same pid and start time,
 * and it runs the executable the collector ran. */
bool registry_entry_alive(const struct registry_entry *e);

#endif
