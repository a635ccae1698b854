/* A cache of device-image summaries across runs, keyed by what a summary is computed from.
 *
 * Summarizing a device image means decompressing it whole (a cubin's section headers are at its end), and the
 * CUDA libraries a team audits on every CI run are the same bytes each time: libnccl.so.2 alone is 1338 MB of
 * zstd-compressed images, most of its full audit. A summary depends only on the entry's compressed bytes, its
 * header fields and the trueline-check binary that computed it, so those are the key (XXH3-128): a new build of
 * trueline-check, or any changed byte, is a miss. An input with an image that failed to decode is never
 * stored. One entry per input, not per image: a file per image made a first audit of libnccl.so.2 (976 images)
 * spend more time creating files than it saved.
 *
 * One file per input (the summaries of all its device images) under DIR/xx/<30 hex>, written to a temporary name and renamed, so concurrent runs never
 * see half an entry. A file that does not decode (damaged, truncated, another version's) is a miss and is
 * replaced. After a run that stored something, the oldest entries go until the cache is under its size cap.
 * Thread-safe: the device reader's helper threads share one cache. */
#ifndef TLCK_READ_IMAGE_CACHE_H
#define TLCK_READ_IMAGE_CACHE_H
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "read/device.h"
#include "trueline/hash.h"

struct tlck_image_cache;

/* The default directory: $XDG_CACHE_HOME/trueline/images, else $HOME/.cache/trueline/images; NULL when neither
 * variable is set. Returns malloc'd text. */
char *tlck_image_cache_default_dir(void);
/* Opens (creating, mode 0700) the cache in dir with a size cap in bytes (0: TLCK_IMAGE_CACHE_CAP_DEFAULT).
 * NULL when dir cannot be made or this binary cannot be hashed: the audit then runs without a cache. */
#define TLCK_IMAGE_CACHE_CAP_DEFAULT ((uint64_t)256 << 20)
struct tlck_image_cache *tlck_image_cache_open(const char *dir, uint64_t cap);
/* Trims the cache to its cap if this run stored anything, then frees it. */
void tlck_image_cache_close(struct tlck_image_cache *c);

/* The key of the summaries of one input's device images: every entry's header fields and compressed bytes, and
 * the bounds they were read under (a summary stored under looser bounds must not hide what tighter ones
 * refuse: the result of a run never depends on what the cache holds). done, when not NULL, is called on each
 * entry once its bytes are hashed (the device reader lets the kernel drop a file mapping's pages there, so that
 * hashing a 400 MB fatbin section does not hold it all resident). */
tl_hash128 tlck_image_cache_key(const struct tlck_image_cache *c, const struct tlck_device_refs *refs, size_t image_cap,
                               size_t input_cap, void (*done)(const struct tlck_fatbin_entry *));
/* Fills what the summaries add to n images already described from their entry headers (device.c's
 * describe): 1 on a hit, 0 on a miss (no image touched). */
int tlck_image_cache_get(struct tlck_image_cache *c, tl_hash128 key, struct tlck_image *imgs, size_t n);
/* Stores the n images' summaries under key (best effort: a full disk or a read-only cache only loses the
 * speed). */
void tlck_image_cache_put(struct tlck_image_cache *c, tl_hash128 key, const struct tlck_image *imgs, size_t n);

/* This run's counts, for --verbose. */
struct tlck_image_cache_stats {
    uint64_t hits, misses, stored;
};
struct tlck_image_cache_stats tlck_image_cache_stats(const struct tlck_image_cache *c);
const char *tlck_image_cache_dir(const struct tlck_image_cache *c);

/* The serialized form alone, for tests and the fuzz target: encode returns a malloc'd buffer (NULL on no
 * memory); decode returns 0 and fills the summary fields of all n images, or -1 leaving every image as it was
 * (a form for another number of images is not theirs). */
unsigned char *tlck_image_summary_encode(const struct tlck_image *imgs, size_t n, size_t *len);
int tlck_image_summary_decode(const unsigned char *p, size_t len, struct tlck_image *imgs, size_t n);

#endif
