/* Built only into the musl-linked trueline-cc (Makefile): malloc and friends as a bump allocator.
 *
 * Why: trueline-cc lives for well under a millisecond on a cache hit and then execs the cache. musl's
 * allocator (mallocng) keeps memory small by mapping a fresh group for each size class and unmapping groups
 * as soon as they empty; on the hit path that was 8 mmap/munmap calls and ~11 page faults of 41 (perf stat
 * -r 500 of --trueline-print-fingerprint: 0.39 ms CPU with mallocng, 0.30 ms with this; docs/wrapper.md).
 * Here small blocks are carved from chunks (the first in .bss, then 1 MiB anonymous ones) and never reused (only the tail a shrunk last
 * block gives back is handed out again): a hit allocates a few tens of KiB in all. Blocks of 128 KiB and
 * more (files read whole, ELF data of the object being stamped) get their own mapping and are unmapped by
 * free(), so the stamping stage does not keep what it frees.
 *
 * musl supports replacing malloc in a static link (its own environment bookkeeping keeps a separate internal
 * allocator). Fresh memory (.bss, anonymous mappings) is zero, so calloc clears only what a shrunk last block
 * gave back (see high). Threads (the fingerprint's cold-path hashing) take a spinlock around the bump. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK ((size_t)1 << 20)
#define BIG ((size_t)128 << 10)
#define PAGE ((size_t)4096)
#define HDR 16 /* before each block: its size, then the offset of its own mapping (bit 0 set) or 0 */

/* The first chunk is in .bss: the kernel sets it up with the executable, so a hit (a few tens of KiB) makes
 * no mmap of its own, and its first blocks share a page with the other zeroed variables. */
#define FIRST_CHUNK ((size_t)256 << 10)
static unsigned char first_chunk[FIRST_CHUNK] __attribute__((aligned(64), section(".lbss")));

static atomic_flag lock = ATOMIC_FLAG_INIT;
/* high: the furthest any block of this chunk has reached. Below it, memory may have been written and given
 * back by a shrink (realloc of the last block), so calloc clears what it hands out there. */
static unsigned char *cur = first_chunk, *end = first_chunk + FIRST_CHUNK, *high = first_chunk;

static size_t *hdr(void *p)
{
    return (size_t *)p - 2;
}

/* A mapping of its own: its length at its start, then the block's header right before the block. */
static void *own_mapping(size_t n, size_t align)
{
    size_t len = (n + 2 * HDR + (align > HDR ? align : 0) + PAGE - 1) & ~(PAGE - 1);
    if (len < n)
        return errno = ENOMEM, NULL;
    unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return errno = ENOMEM, NULL;
    *(size_t *)m = len;
    uintptr_t u = ((uintptr_t)m + 2 * HDR + align - 1) & ~(uintptr_t)(align - 1);
    size_t *h = hdr((void *)u);
    h[0] = n;
    h[1] = ((u - (uintptr_t)m) << 1) | 1;
    return (void *)u;
}

/* *used: how many bytes at the block's start were handed out before (0 for fresh memory). */
static void *bump(size_t n, size_t align, size_t *used)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
    uintptr_t u = ((uintptr_t)cur + HDR + align - 1) & ~(uintptr_t)(align - 1);
    if (u + n > (uintptr_t)end) {
        unsigned char *c = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED) {
            atomic_flag_clear_explicit(&lock, memory_order_release);
            return errno = ENOMEM, NULL;
        }
        cur = high = c, end = c + CHUNK; /* the rest of the old chunk is left unused */
        u = ((uintptr_t)cur + HDR + align - 1) & ~(uintptr_t)(align - 1);
    }
    cur = (unsigned char *)(u + n);
    *used = (uintptr_t)high > u ? ((uintptr_t)high - u < n ? (uintptr_t)high - u : n) : 0;
    if (cur > high)
        high = cur;
    atomic_flag_clear_explicit(&lock, memory_order_release);
    size_t *h = hdr((void *)u);
    h[0] = n;
    h[1] = 0;
    return (void *)u;
}

static void *alloc(size_t n, size_t align, size_t *used)
{
    *used = 0;
    if (align < HDR)
        align = HDR;
    if (align & (align - 1))
        return errno = EINVAL, NULL;
    /* a big alignment in a chunk could waste most of it: those get a mapping of their own too */
    return n >= BIG || align > 256 ? own_mapping(n, align) : bump(n ? n : 1, align, used);
}

void *malloc(size_t n)
{
    size_t used;
    return alloc(n, HDR, &used);
}

void *calloc(size_t count, size_t size)
{
    size_t n, used;
    if (__builtin_mul_overflow(count, size, &n))
        return errno = ENOMEM, NULL;
    void *p = alloc(n, HDR, &used);
    if (p && used)
        memset(p, 0, used);
    return p;
}

void free(void *p)
{
    if (!p || !(hdr(p)[1] & 1))
        return;
    unsigned char *m = (unsigned char *)p - (hdr(p)[1] >> 1);
    munmap(m, *(size_t *)m);
}

size_t malloc_usable_size(void *p)
{
    return p ? hdr(p)[0] : 0;
}

/* The chunk's last block is resized where it is: an array filled with nothing allocated in between (the
 * memo's entry index) grows without a copy, and the unused tail it gives back is where the next blocks go,
 * on a page already touched instead of past the gap (a page fault each on the hit path). */
static int resize_last(unsigned char *p, size_t old, size_t n)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
    int ok = p + old == cur && n <= (size_t)(end - p);
    if (ok)
        cur = p + n;
    if (ok && cur > high)
        high = cur;
    atomic_flag_clear_explicit(&lock, memory_order_release);
    return ok;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    size_t old = hdr(p)[0];
    if (!(hdr(p)[1] & 1) && n < BIG && resize_last(p, old, n)) {
        hdr(p)[0] = n;
        return p;
    }
    if (n <= old)
        return p;
    void *q = malloc(n);
    if (q) {
        memcpy(q, p, old);
        free(p);
    }
    return q;
}

void *aligned_alloc(size_t align, size_t n)
{
    size_t used;
    return alloc(n, align, &used);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *))
        return EINVAL;
    size_t used;
    void *p = alloc(n, align, &used);
    if (!p)
        return errno == EINVAL ? EINVAL : ENOMEM;
    *out = p;
    return 0;
}

void *memalign(size_t align, size_t n)
{
    size_t used;
    return alloc(n, align, &used);
}
