/* The memo cache: content hashes of toolchain files keyed by (path, dev, ino, size, mtime, ctime), and
 * outputs of compiler probes (--version, -print-prog-name) keyed by the driver's stat and the probe's
 * arguments. A warm fingerprint then costs only stat calls. One small text file, replaced atomically
 * (temp file + rename) so concurrent writers never corrupt it; a lost update only costs a re-hash. */
#ifndef TLCC_WRAPPER_MEMO_H
#define TLCC_WRAPPER_MEMO_H
#include <sys/stat.h>

#include "trueline/diag.h"
#include "trueline/hash.h"

typedef struct tlcc_memo tlcc_memo;
struct tlcc_deps_ctx;

/* dir NULL: memoization off (every lookup misses, nothing written). Never fails. deps: the run's stat cache
 * and recorder (deps.h; the wrapper context's), which answers' dependencies are checked in and join; the
 * memo drops that stat cache when it is closed (the cache may borrow the memo's mappings). NULL: one of the
 * memo's own. */
tlcc_memo *tlcc_memo_open(const char *dir, struct tlcc_deps_ctx *deps);
/* Writes new entries back; returns -1 with err set when the directory or file cannot be written. */
int tlcc_memo_save(tlcc_memo *m, tl_error *err);
void tlcc_memo_close(tlcc_memo *m);
/* How the file was read: 0 none was loaded, 1 through its index (records found on demand: a lookup finds a
 * record of the key, or none where the index is damaged), 2 every record (no index, or one that does not fit
 * the file). */
int tlcc_memo_read_mode(const tlcc_memo *m);

/* Content hash of path (following symlinks); *hit says whether it came from the memo. */
int tlcc_memo_file_hash(tlcc_memo *m, const char *path, tl_hash128 *out, int *hit, tl_error *err);
/* The two halves of tlcc_memo_file_hash, so callers can hash misses in parallel: lookup stats path into
 * *st and returns 1 with *out on a memo hit, 0 on a miss, -1 (err) when path cannot be stat'ed;
 * store records a hash computed after lookup, unless the file changed meanwhile. Not thread-safe. */
int tlcc_memo_file_lookup(tlcc_memo *m, const char *path, struct stat *st, tl_hash128 *out, tl_error *err);
void tlcc_memo_file_store(tlcc_memo *m, const char *path, const struct stat *before, tl_hash128 h);
/* Any other memoized answer (one line: no tab or newline in key or value). get: NULL when absent; the
 * string belongs to the memo. put: a later put or a save replaces an older value under the same key. */
const char *tlcc_memo_get(tlcc_memo *m, const char *key);
void tlcc_memo_put(tlcc_memo *m, const char *key, const char *val);
/* An answer memoized with what it depends on (deps.h), as the value "ANSWER\x1dDEPENDENCIES". get: the number
 * of dependencies when every one still holds (the answer in *answer, not NUL-ended, *len bytes, valid until
 * the memo is closed), else 0;
 * the dependencies also join any recording in progress. put: stores answer (NULL: "") with the dependencies
 * recorded in d, unless d could not be memoized. */
struct tlcc_deps;
int tlcc_memo_get_held(tlcc_memo *m, const char *key, const char **answer, size_t *len);
void tlcc_memo_put_held(tlcc_memo *m, const char *key, const char *answer, const struct tlcc_deps *d);

#ifdef TL_FUZZING
#include <stddef.h>
/* fuzz/targets/memo.c: every entry as loaded, in file order (key and value as stored, not terminated). */
void tlcc_memo_fuzz_each(const tlcc_memo *m, void (*fn)(const char *key, size_t klen, const char *val, size_t vlen, void *ctx),
                       void *ctx);
#endif
/* stdout of argv (argv[0] an absolute path, run without a shell, stdin /dev/null, stderr dropped),
 * trailing newlines removed; memoized by the stat of argv[0]. Returns NULL when it could not run or
 * exited non-zero. The string belongs to the memo. */
const char *tlcc_memo_probe(tlcc_memo *m, char *const argv[]);
/* The same for what argv writes on stderr (stdout dropped): nvcc -dryrun says where it is installed there. */
const char *tlcc_memo_probe_stderr(tlcc_memo *m, char *const argv[]);

#endif
