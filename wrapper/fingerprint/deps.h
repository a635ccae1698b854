/* What a memoized answer depends on, and the cheap check that it still holds.
 *
 * A warm compile must not redo the PATH searches and closure walk of a cold one (each stat costs ~3 us
 * on a VM; a cold nvcc closure is ~90 of them). Instead the memo keeps, next to an answer (where a
 * program was found, the whole toolchain closure), the stat identity of every file and directory that
 * decided it: the directories searched before the hit (creating, removing or renaming an entry changes a
 * directory's mtime/ctime), the files found or rejected (dev, ino, size, mtime, ctime, mode), paths that
 * were absent. The answer is reused only when every one of them stats the same again. Stats go through the
 * run's cache (tlcc_deps_ctx, in the wrapper context), so the PATH directories shared by several searches cost
 * one stat each.
 *
 * An entry is not recorded (unmemoizable) when it depends on a relative path (the working directory is no
 * part of the key), on a dangling symlink (its target appearing changes nothing we stat), or on anything
 * modified in the last two seconds: timestamps are kernel-tick coarse, so a change in the same tick as our
 * stat would keep the same mtime (git's "racily clean" problem). */
#ifndef TLCC_WRAPPER_DEPS_H
#define TLCC_WRAPPER_DEPS_H
#include <sys/stat.h>

#include "strv.h"

typedef struct tlcc_deps {
    tlcc_strv items; /* "path\x1fid" */
    int unmemoizable;
} tlcc_deps;

/* One run's stat cache and its active recordings (the recorder): part of the wrapper context (context.h),
 * zero-initialized. Every function below is handed it; nothing of it is process state. */
typedef struct tlcc_deps_ctx {
    struct tlcc_stat_entry *cache;
    int ncache, capcache;
    tlcc_deps *active[4]; /* the recordings every note adds to, innermost last */
    int nactive;
} tlcc_deps_ctx;

/* stat(2) through the run's cache; 0, or -1 with errno. Of *st only the identity fields are filled
 * (st_dev, st_ino, st_size, st_mode, st_mtim, st_ctim), the rest is zero. */
int tlcc_stat_cached(tlcc_deps_ctx *dc, const char *path, struct stat *st);

/* Recording: while d is active (at most 4 nested), every tlcc_deps_note* call adds to it. */
void tlcc_deps_begin(tlcc_deps_ctx *dc, tlcc_deps *d);
void tlcc_deps_end(tlcc_deps_ctx *dc, tlcc_deps *d);
void tlcc_deps_free(tlcc_deps_ctx *dc, tlcc_deps *d);
/* Records path as it stats now (through the cache). */
void tlcc_deps_note(tlcc_deps_ctx *dc, const char *path);
/* A path found absent that the directory's identity covers (recorded only when it is a dangling
 * symlink, which taints: see above). */
void tlcc_deps_note_absent(tlcc_deps_ctx *dc, const char *path);
/* Records path with a stat already taken (NULL: absent). */
void tlcc_deps_note_stat(tlcc_deps_ctx *dc, const char *path, const struct stat *st);
/* Marks every active recording unmemoizable. */
void tlcc_deps_taint(tlcc_deps_ctx *dc);
/* Adds the dependencies of a memo value (a nested answer reused inside an outer recording): the n bytes
 * at s, read in place (a memo value is not NUL-ended). */
void tlcc_deps_note_serialized(tlcc_deps_ctx *dc, const char *s, size_t n);

/* "path\x1fid\x1e..." (no tabs or newlines); NULL when d is unmemoizable or cannot be serialized. */
char *tlcc_deps_serialize(const tlcc_deps *d);
/* The number of dependencies in the n bytes at s when every one stats as recorded, else 0 (also for an
 * empty or malformed list). borrow: the bytes stay valid until tlcc_stat_cache_drop (a memo mapping), so the
 * stat cache keeps pointers into them instead of copies. */
int tlcc_deps_hold(tlcc_deps_ctx *dc, const char *s, size_t n, int borrow);
/* Empties the run's stat cache (before what it borrowed is unmapped). */
void tlcc_stat_cache_drop(tlcc_deps_ctx *dc);

#endif
