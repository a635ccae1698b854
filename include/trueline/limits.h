/* Bounds on hostile input: how much one input may decompress to, and how long it may take. One budget per input,
 * zstd-style: the front end makes it, every reader of that input (helper threads included) is handed it, and it
 * records the first bound that was hit. No process or thread state: two inputs read at once never share one. */
#ifndef TRUELINE_LIMITS_H
#define TRUELINE_LIMITS_H
#include <stdatomic.h>
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

/* The default of what one input's decompressed buffers may hold together (and so each of them). */
#define TL_BUDGET_DEFAULT ((size_t)1 << 32)

typedef struct tl_budget {
    size_t cap;                 /* most bytes this input's decompressed buffers hold together */
    const char *cap_origin;     /* what set cap, for messages (the front end's option); NULL: nothing said */
    struct timespec deadline;   /* CLOCK_MONOTONIC */
    unsigned seconds;           /* 0: no deadline */
    const char *deadline_origin;
    atomic_size_t held;         /* counted so far (threads of one input share the budget) */
    atomic_int hit;             /* a bound refused something (not corruption): the input is not fully read */
    char reason[320];           /* the first such refusal, in words; written by whoever set hit */
} tl_budget;

/* cap 0: TL_BUDGET_DEFAULT; seconds 0: no deadline (counted from now otherwise). */
void tl_budget_init(tl_budget *b, size_t cap, unsigned seconds);
/* Fails (-1, err naming what and how big) when `what` would decompress n compressed bytes to `size` bytes past the
 * codec's ratio (corruption), or past what is left of b (a bound: recorded as hit); 0 when it may go ahead, and
 * the size is counted. b NULL: the ratio and TL_BUDGET_DEFAULT for this one buffer only. */
int tl_budget_take(tl_budget *b, const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err);
/* A decompression that passed tl_budget_take found no memory: the input is then not fully read either. */
void tl_budget_oom(tl_budget *b, const char *what, unsigned long long size);
/* Whether a bound was hit, and which ("" when none). */
int tl_budget_hit(const tl_budget *b);
const char *tl_budget_reason(const tl_budget *b);
/* The deadline: long loops in readers ask now and then; past it, tl_budget_check fails with a message naming the
 * limit, so that the input is reported and the others are still read. b NULL: never expired. */
int tl_budget_expired(const tl_budget *b);
int tl_budget_check(const tl_budget *b, tl_error *err);

#endif
