/* Bounds on hostile input: how much one decompression may produce, and how long one input may take.
 * The checker sets both from --max-input-mb / --timeout; readers consult them in their loops. */
#ifndef TRUELINE_LIMITS_H
#define TRUELINE_LIMITS_H
#include <stddef.h>
#include <time.h>
#include "trueline/diag.h"

/* Most output one input byte can give: deflate tops out near 1032:1; a zstd block holds at most 128 KiB and
 * costs at least 4 bytes (3-byte header + 1 RLE byte), so 32768:1 (measured: 1 GB of zeros at -19 is 30741
 * bytes). LZ4's format caps a match at 255 more length per byte: 255:1. A declared size above
 * tl_decompress_bound() cannot be honest, so it is refused before anything is allocated. */
#define TL_ZLIB_MAX_RATIO 1032u
#define TL_ZSTD_MAX_RATIO 32768u
#define TL_LZ4_MAX_RATIO 256u
/* Largest plausible output of n compressed bytes at ratio r (one 128 KiB block of slack for headers). */
size_t tl_decompress_bound(size_t n, unsigned ratio);

/* Per-process cap on one decompressed buffer (the checker's --max-input-mb); 0 restores the default (4 GiB).
 * Every decompression (ELF sections, fatbin entries) checks its declared size against tl_decompress_limit(). */
#define TL_DECOMPRESS_DEFAULT ((size_t)1 << 32)
void tl_set_decompress_limit(size_t bytes);
size_t tl_decompress_limit(void);
/* Fails (-1, err naming what and how big) when `what` would decompress n compressed bytes to `size` bytes past
 * the codec's ratio, the cap on one buffer, or the cap on what one input's sections hold together (counted
 * from the last tl_decompress_limit_reset on this thread); 0 when it may go ahead, and the size is counted. */
int tl_decompress_check(const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err);
/* Whether tl_decompress_check refused something for the cap (not for corruption) on this thread since the last
 * reset: readers may treat a refused section as absent, so the loader asks afterwards and reports the input as
 * not fully read (exit 2) rather than audited without it. */
void tl_decompress_limit_reset(void);
int tl_decompress_limit_hit(void);
/* What was hit, in words naming the section and the bound ("" when nothing was). */
const char *tl_decompress_limit_reason(void);
/* A decompression that passed the checks found no memory: the input is then not fully read either. */
void tl_decompress_oom(const char *what, unsigned long long size);

/* Per-thread deadline for the input being read (the checker's --timeout): 0 seconds = none. Long loops in
 * readers call tl_deadline_check() now and then; past the deadline it fails with a message naming the limit,
 * so the input is reported (exit 2) and the others are still checked. */
void tl_deadline_start(unsigned seconds);
void tl_deadline_stop(void);
int tl_deadline_expired(void);
int tl_deadline_check(tl_error *err);
/* Helper threads working for one input take over its reader's deadline (the device reader's decompression pool). */
typedef struct tl_deadline {
    struct timespec at;
    unsigned seconds;
} tl_deadline;
tl_deadline tl_deadline_get(void);
void tl_deadline_set(tl_deadline d);

#endif
