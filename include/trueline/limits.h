/* Bounds on hostile input: how much one input may decompress to, and how long it may take. One budget per input,
 * zstd-style: the front end makes it, every reader of that input (helper threads included) is handed it, and it
 * records the first bound that was hit. What it counts is counted in the run's pool too (tl_pool), which the
 * front end makes once and hands to every budget. No process or thread state. */
#ifndef TRUELINE_LIMITS_H
#define TRUELINE_LIMITS_H
#include <pthread.h>
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
/* bzip2 has no bound that helps (178 bytes give 200 MB of zeros: over 1,000,000:1) and xz's is near 7000:1
 * (29 KB for the same zeros). What no real package comes near is the bound instead: binaries with their debug
 * info compress 3-10:1 and deflate, which every wheel uses, cannot pass 1032:1. */
#define TL_DENSE_MAX_RATIO 8192u
/* Largest plausible output of n compressed bytes at ratio r (one 128 KiB block of slack for headers). */
size_t tl_decompress_bound(size_t n, unsigned ratio);

/* The default of what one input's decompressed buffers may hold together (and so each of them). */
#define TL_BUDGET_DEFAULT ((size_t)1 << 32)

/* What all inputs read at the same time may hold together: one per run, made by the front end and handed to each
 * input's budget, so that -j3 does not make three budgets of memory out of one. A take that does not fit waits
 * for other inputs to give theirs back; when every other input holding some is waiting too, the input asking
 * gives way (tl_budget_deferred): its front end reads it again once the others are done. */
typedef struct tl_pool {
    size_t cap;
    const char *cap_origin;     /* what set cap, for messages; NULL: nothing said */
    pthread_mutex_t lock;
    pthread_cond_t room;        /* signalled when bytes are given back */
    size_t held;                /* under lock, as the counts below */
    unsigned holders;           /* budgets holding some of it */
    unsigned waiting;           /* takes waiting for room */
} tl_pool;

/* cap 0: TL_BUDGET_DEFAULT. */
void tl_pool_init(tl_pool *p, size_t cap);
void tl_pool_destroy(tl_pool *p);

typedef struct tl_budget {
    size_t cap;                 /* most bytes this input's decompressed buffers hold together */
    const char *cap_origin;     /* what set cap, for messages (the front end's option); NULL: nothing said */
    struct timespec deadline;   /* CLOCK_MONOTONIC */
    unsigned seconds;           /* 0: no deadline */
    const char *deadline_origin;
    atomic_size_t held;         /* counted so far (threads of one input share the budget) */
    atomic_int hit;             /* a bound refused something (not corruption): the input is not fully read */
    char reason[320];           /* the first such refusal, in words; written by whoever set hit */
    tl_pool *pool;              /* the run's, or NULL: what is counted here is taken from it too */
    size_t pool_held;           /* of it, under pool->lock */
    atomic_int deferred;        /* a take gave way to other inputs (see tl_pool): read the input again later */
} tl_budget;

/* cap 0: TL_BUDGET_DEFAULT; seconds 0: no deadline (counted from now otherwise). */
void tl_budget_init(tl_budget *b, size_t cap, unsigned seconds);
/* Fails (-1, err naming what and how big) when `what` would decompress n compressed bytes to `size` bytes past the
 * codec's ratio (corruption), or past what is left of b (a bound: recorded as hit); 0 when it may go ahead, and
 * the size is counted. b NULL: the ratio and TL_BUDGET_DEFAULT for this one buffer only. With b->pool the size is
 * taken from the run's pool too, waiting while other inputs hold what is missing (tl_pool). */
int tl_budget_take(tl_budget *b, const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err);
/* Gives back n bytes counted by tl_budget_take (a buffer freed before the input is done). */
void tl_budget_give(tl_budget *b, size_t n);
/* Gives back to the run's pool all that b holds of it: the input is done (its buffers are freed). */
void tl_budget_release(tl_budget *b);
/* Whether a take gave way to other inputs holding the run's pool (the input was not read; read it again). */
int tl_budget_deferred(const tl_budget *b);
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
