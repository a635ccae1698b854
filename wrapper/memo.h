/* The memo cache: content hashes of toolchain files keyed by (path, dev, ino, size, mtime, ctime), and
 * outputs of compiler probes (--version, -print-prog-name) keyed by the driver's stat and the probe's
 * arguments. A warm fingerprint then costs only stat calls. One small text file, replaced atomically
 * (temp file + rename) so concurrent writers never corrupt it; a lost update only costs a re-hash. */
#ifndef TL_WRAPPER_MEMO_H
#define TL_WRAPPER_MEMO_H
#include <sys/stat.h>

#include "trueline/diag.h"
#include "trueline/hash.h"

typedef struct tl_memo tl_memo;

/* dir NULL: memoization off (every lookup misses, nothing written). Never fails. */
tl_memo *tl_memo_open(const char *dir);
/* Writes new entries back; returns -1 with err set when the directory or file cannot be written. */
int tl_memo_save(tl_memo *m, tl_error *err);
void tl_memo_close(tl_memo *m);
/* How the file was read: 0 none was loaded, 1 through its index (records found on demand: a lookup finds a
 * record of the key, or none where the index is damaged), 2 every record (no index, or one that does not fit
 * the file). */
int tl_memo_read_mode(const tl_memo *m);

/* Content hash of path (following symlinks); *hit says whether it came from the memo. */
int tl_memo_file_hash(tl_memo *m, const char *path, tl_hash128 *out, int *hit, tl_error *err);
/* The two halves of tl_memo_file_hash, so callers can hash misses in parallel: lookup stats path into
 * *st and returns 1 with *out on a memo hit, 0 on a miss, -1 (err) when path cannot be stat'ed;
 * store records a hash computed after lookup, unless the file changed meanwhile. Not thread-safe. */
int tl_memo_file_lookup(tl_memo *m, const char *path, struct stat *st, tl_hash128 *out, tl_error *err);
void tl_memo_file_store(tl_memo *m, const char *path, const struct stat *before, tl_hash128 h);
/* Any other memoized answer (one line: no tab or newline in key or value). get: NULL when absent; the
 * string belongs to the memo. put: a later put or a save replaces an older value under the same key. */
const char *tl_memo_get(tl_memo *m, const char *key);
void tl_memo_put(tl_memo *m, const char *key, const char *val);
/* An answer memoized with what it depends on (deps.h), as the value "ANSWER\x1dDEPENDENCIES". get: the number
 * of dependencies when every one still holds (the answer in *answer, not NUL-ended, *len bytes, valid until
 * the memo is closed), else 0;
 * the dependencies also join any recording in progress. put: stores answer (NULL: "") with the dependencies
 * recorded in d, unless d could not be memoized. */
struct tl_deps;
int tl_memo_get_held(tl_memo *m, const char *key, const char **answer, size_t *len);
void tl_memo_put_held(tl_memo *m, const char *key, const char *answer, const struct tl_deps *d);

#ifdef TL_FUZZING
#include <stddef.h>
/* fuzz/targets/memo.c: every entry as loaded, in file order (key and value as stored, not terminated). */
void tl_memo_fuzz_each(const tl_memo *m, void (*fn)(const char *key, size_t klen, const char *val, size_t vlen, void *ctx),
                       void *ctx);
#endif
/* stdout of argv (argv[0] an absolute path, run without a shell, stdin /dev/null, stderr dropped),
 * trailing newlines removed; memoized by the stat of argv[0]. Returns NULL when it could not run or
 * exited non-zero. The string belongs to the memo. */
const char *tl_memo_probe(tl_memo *m, char *const argv[]);

#endif
