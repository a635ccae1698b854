/* wrapper/musl/arena.c (the bump allocator of the musl-linked trueline-cc), renamed and exercised: blocks
 * never overlap (also from several threads), the last block grows and shrinks in place and what it gives
 * back is where the next block goes, any other block moves with its bytes, big blocks get mappings of their
 * own, alignment requests are met. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#define malloc tl_arena_malloc
#define calloc tl_arena_calloc
#define free tl_arena_free
#define realloc tl_arena_realloc
#define malloc_usable_size tl_arena_usable_size
#define aligned_alloc tl_arena_aligned_alloc
#define posix_memalign tl_arena_posix_memalign
#define memalign tl_arena_memalign
#include "../../wrapper/musl/arena.c"

static int filled(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void test_last_block(void)
{
    unsigned char *p = malloc(100);
    memset(p, 0xa5, 100);
    unsigned char *q = realloc(p, 3000);
    UNIT_CHECK("the last block grows in place, its bytes kept", q == p && filled(q, 100, 0xa5));
    q = realloc(q, 64);
    unsigned char *next = malloc(16);
    UNIT_CHECK("a shrunk last block gives its tail to the next block",
               next > q && next < q + 64 + 64 && filled(q, 64, 0xa5));
    UNIT_CHECK("the block's size follows the resize", malloc_usable_size(q) == 64);
    /* what a shrink gives back was written: calloc must not hand it out as if fresh */
    unsigned char *w = malloc(2000);
    memset(w, 0xff, 2000);
    w = realloc(w, 8);
    unsigned char *z = calloc(1, 1500);
    UNIT_CHECK("calloc over memory a shrink gave back is zeroed", z > w && z < w + 2000 && filled(z, 1500, 0));
    unsigned char *g = realloc(z, 3000); /* grows in place over given-back and fresh bytes */
    unsigned char *z2 = (g == z) ? (realloc(g, 16), calloc(1, 2900)) : NULL;
    UNIT_CHECK("and after a grow and a second shrink", z2 && filled(z2, 2900, 0));
}

static void test_other_blocks(void)
{
    unsigned char *a = malloc(50), *b = malloc(50);
    memset(a, 1, 50);
    memset(b, 2, 50);
    unsigned char *a2 = realloc(a, 500);
    UNIT_CHECK("a block that is not the last moves with its bytes", a2 != a && filled(a2, 50, 1) && filled(b, 50, 2));
    UNIT_CHECK("shrinking a block that is not the last keeps it", realloc(b, 10) == b);
    unsigned char *big = malloc(200000);
    memset(big, 3, 200000);
    unsigned char *big2 = realloc(big, 300000);
    UNIT_CHECK("a big block moves to a mapping of its own with its bytes", big2 && filled(big2, 200000, 3));
    free(big2);
    unsigned char *z = calloc(1000, 3);
    UNIT_CHECK("calloc gives zeroed memory", z && filled(z, 3000, 0));
    void *al = aligned_alloc(64, 100), *page = NULL;
    UNIT_CHECK("aligned_alloc aligns", al && (uintptr_t)al % 64 == 0);
    UNIT_CHECK("posix_memalign aligns to a page",
               posix_memalign(&page, 4096, 5000) == 0 && (uintptr_t)page % 4096 == 0);
    free(page);
}

#define THREADS 4
#define BLOCKS 4000

static void *fill_blocks(void *arg)
{
    unsigned char v = (unsigned char)(uintptr_t)arg;
    unsigned char **blocks = malloc(BLOCKS * sizeof *blocks);
    for (int i = 0; i < BLOCKS; i++) {
        size_t n = 1 + (size_t)(i * 37 % 300);
        blocks[i] = malloc(n);
        memset(blocks[i], v, n);
        if (i % 7 == 0) /* resizing races the other threads' bumps */
            blocks[i] = realloc(blocks[i], n + 40), memset(blocks[i], v, n + 40);
    }
    uintptr_t bad = 0;
    for (int i = 0; i < BLOCKS; i++)
        bad |= !filled(blocks[i], 1 + (size_t)(i * 37 % 300) + (i % 7 == 0 ? 40 : 0), v);
    return (void *)bad;
}

static void test_threads(void)
{
    pthread_t th[THREADS];
    uintptr_t bad = 0;
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, fill_blocks, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad |= (uintptr_t)r;
    }
    UNIT_CHECK("blocks from four threads never overlap, resized ones included", bad == 0);
}

UNIT_MAIN(UNIT_CASE(test_last_block),
          UNIT_CASE(test_other_blocks),
          UNIT_CASE(test_threads))
