/* postprocess_jit: the JIT side files that go into the archive (perf-<pid>.map,
 * perfinfo-<pid>.map, jit-<pid>.dump), gathered into the output directory under the
 * collector's pid, with what was found, missing or refused and why for perfcollect.log.
 *
 * Files from a live target are copied through proc.h's safe_open_in_root() (no symlink,
 * owned by the target's user), plain paths with O_NOFOLLOW: a symlink planted in a
 * container's /tmp never pulls a host file into the archive.
 */
#ifndef PC_POSTPROCESS_JIT_H
#define PC_POSTPROCESS_JIT_H

#include "symbols/symbols.h"

struct jitfiles;

/* src_dir: the trace directory (or where a bare perf.data lies); out_dir: where the files
 * are gathered (may be src_dir). */
struct jitfiles *jitfiles_new(const char *src_dir, const char *out_dir);
void jitfiles_free(struct jitfiles *j);
/* The files the symbolizer used or looked for: found ones are copied to out_dir. */
void jitfiles_collect(struct jitfiles *j, struct symbolizer *s);
/* Every perf-N.map, perfinfo-N.map and jit-N.dump already in src_dir (a trace directory
 * whose recorder saved them), copied to out_dir when that differs. */
void jitfiles_add_dir(struct jitfiles *j);
/* Found / missing / refused, one line each, and one warning when perf maps are missing. */
void jitfiles_log(struct jitfiles *j);
/* The gathered files (names in out_dir), in archive order: maps, perfinfo, dumps by pid. */
size_t jitfiles_count(struct jitfiles *j);
const char *jitfiles_name(struct jitfiles *j, size_t i);

/* "perf-<pid>.map" etc.: the archive name of a kind of JIT file (malloc'd). */
char *jitfiles_file_name(enum jit_file_kind kind, uint32_t pid);

#endif
