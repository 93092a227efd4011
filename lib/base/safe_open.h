/* safe_open: opening files inside a target's root (/proc/<pid>/root), which the target
 * controls: a container may plant symlinks, FIFOs, devices and hard links there to turn a
 * root collector against its host.  Two ways in, each for its own kind of file:
 *
 * safe_open_in_root(): the one policy for every file we take from a target.  The path is
 * walked one component at a time from the root (root_open_dir()): no symlink is followed on
 * any component, ".." is refused, so nothing outside the root is ever reached; the file is
 * opened O_PATH first and really opened (O_RDONLY | O_NONBLOCK | O_NOCTTY, through its own
 * fd) only once fstat says it is a regular file: a FIFO never blocks us, a device never sees
 * an open.  It must belong to the target's uid (or root), have one link (st_nlink == 1: a
 * hard link could make a file the target cannot read look like its own, and its bytes would
 * go into our outputs) and be at most the size the caller states.  Callers: the files whose
 * bytes we take, symbols/symbols_jit.c (JIT maps, perfinfo maps, jitdumps of live processes)
 * and dotnet/dotnet_ipc.c (the runtime's map files).
 *
 * safe_open_binary_in_root(): the same walk and checks but for the link count, for ELF files
 * read only for their build-id and symbols: perf's build-id cache (~/.debug) hard-links
 * every binary perf has seen, so system binaries and libraries often have several names
 * (/usr/bin/rm, node, ld.bfd on this project's machines), and the one-link rule lost their
 * build-ids.  That is safe here, where it is not for files whose bytes we copy: these are
 * files the target mapped (it could read them), nothing of them is copied, and the names
 * read from them are those of addresses its own samples or stack hit.  Callers:
 * collect/collect.c (build-ids of the files samples hit), and through proc_map_open()
 * stacks/stacks.c and stacks/clr_threads.c (the libraries a stopped target maps).
 *
 * safe_open_inode(): a file a process that is gone mapped, on our own side, only when it is
 * the very inode its record named (collect's build-ids of processes that exited).
 *
 * open_file_in_root(): ELF binaries and their debug files, read for symbols only (never
 * copied into an output): symlinks are followed, as the target's own loader follows them
 * (/lib -> /usr/lib in most images), but resolved inside the root (openat2 RESOLVE_IN_ROOT),
 * and only a regular file is opened.  Without openat2 (a kernel before 5.6, a seccomp
 * profile that refuses it) no symlink is followed at all (the walk above): a mapping's path
 * names the resolved file anyway.  A NULL root is our own side, for our own files only (the
 * host's debug directories, the symbol cache, the files of a perf.data merged where it was
 * recorded), never in place of a target's: symbols/ looks a gone process's file up on the
 * host only by the build-id the collector recorded for it.  Callers: symbols/symbols.c
 * (every file-backed mapping of a trace) and symbols/dso.c (their separate debug files); a
 * file that becomes data goes through safe_open_in_root() instead.
 *
 * Errors: -1 with pc_err() and errno ENOENT when the file (or a directory on its way) does
 * not exist, ESRCH when the process is gone, EACCES when we may not look (no ptrace access
 * to the process: CAP_SYS_PTRACE); any other errno means the file is there but was refused
 * (ELOOP a symlink, EINVAL not a regular file or "..", EPERM its owner, EMLINK a hard link,
 * EFBIG too large; pc_strerror() says which).
 */
#ifndef PC_SAFE_OPEN_H
#define PC_SAFE_OPEN_H

#include "util.h"
#include <sys/types.h>

/* The directory dir (absolute, as the target sees it) inside /proc/<pid>/root, walked
 * without following a symlink on any component: an O_PATH | O_DIRECTORY fd, for *at()
 * calls (listing a socket directory, making and removing a directory there). */
int root_open_dir(pid_t pid, const char *dir);

/* Opens path (absolute, as the target sees it) for reading under the policy above: a
 * regular file owned by owner_uid (or root), one link, at most max_size bytes. */
int safe_open_in_root(pid_t pid, const char *path, uid_t owner_uid, uint64_t max_size);
/* The same for an ELF file read for its build-id and symbols: hard links allowed. */
int safe_open_binary_in_root(pid_t pid, const char *path, uid_t owner_uid, uint64_t max_size);

/* A file a process that is gone mapped, on our own side: path (as its MMAP record names it,
 * absolute) walked from our root without following a symlink on any component, opened
 * only when it is that very inode (device and inode number of the record), a regular
 * file of at most max_size bytes.  A container's file has another inode at that path on
 * the host (or none): refused, errno ESTALE, never read in its stead. */
int safe_open_inode(const char *path, dev_t dev, uint64_t ino, uint64_t max_size);

/* Opens path the way a process whose root directory is root (e.g. "/proc/<pid>/root"; NULL
 * or "" for ours) sees it: symlinks followed inside root, a regular file only. */
int open_file_in_root(const char *root, const char *path);

#endif
