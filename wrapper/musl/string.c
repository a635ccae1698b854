/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL), in place of musl's strlen, strchr,
 * strchrnul, memchr and strstr, on x86-64 (SSE2 is part of its base ISA; elsewhere musl's own are kept).
 *
 * Why: a warm hit reads its memo entries in place, so finding separators and ends is most of what it does
 * with its instructions: musl's word-at-a-time versions were a quarter of a warm nvcc hit's ~210 k
 * instructions (callgrind). Here sixteen bytes are compared at once.
 *
 * Every load is an aligned 16-byte block that holds at least one byte of the string or range, so it never
 * crosses into a page the caller's bytes are not on: reading around the ends is safe, never a fault. The
 * bytes before the start are masked off; those past the end are never reported.
 *
 * strstr: musl's keeps a 2 KiB shift table on the stack for needles over four bytes, which took a fresh
 * stack page (a page fault) on every warm nvcc hit (the version banner and the host compiler's name are
 * searched). The haystacks here are names and banners, so: the needle's first byte, then a comparison.
 *
 * tests/unit/musl_string.c includes this file with TLCC_STR_NAME renaming the functions, and compares them
 * with the C library's at every alignment and length up to a few blocks. */
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef TLCC_STR_NAME
#define TLCC_STR_NAME(name) name
#endif

static inline unsigned tlcc_block_mask(uintptr_t block, __m128i a, __m128i b)
{
    __m128i v = _mm_load_si128((const __m128i *)block);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)));
}

/* The first byte at or after s equal to a or b: it exists (a string's end, or known to be there). */
static inline const char *tlcc_find2(const char *s, char a, char b)
{
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    uintptr_t block = (uintptr_t)s & ~(uintptr_t)15;
    unsigned mask = tlcc_block_mask(block, va, vb) >> ((uintptr_t)s - block);
    if (mask)
        return s + __builtin_ctz(mask);
    for (block += 16;; block += 16)
        if ((mask = tlcc_block_mask(block, va, vb)) != 0)
            return (const char *)(block + (unsigned)__builtin_ctz(mask));
}

size_t TLCC_STR_NAME(strlen)(const char *s)
{
    return (size_t)(tlcc_find2(s, 0, 0) - s);
}

char *TLCC_STR_NAME(strchrnul)(const char *s, int c)
{
    return (char *)tlcc_find2(s, (char)c, 0);
}

char *TLCC_STR_NAME(strchr)(const char *s, int c)
{
    const char *r = tlcc_find2(s, (char)c, 0);
    return *r == (char)c ? (char *)r : NULL;
}

void *TLCC_STR_NAME(memchr)(const void *src, int c, size_t n)
{
    const unsigned char *s = src;
    if (!n)
        return NULL;
    const __m128i vc = _mm_set1_epi8((char)c);
    uintptr_t block = (uintptr_t)s & ~(uintptr_t)15;
    size_t skip = (uintptr_t)s - block, room = 16 - skip; /* bytes of s in the first block */
    unsigned mask = tlcc_block_mask(block, vc, vc) >> skip;
    if (mask) {
        size_t i = (size_t)__builtin_ctz(mask);
        return i < n ? (void *)(s + i) : NULL;
    }
    if (n <= room)
        return NULL;
    n -= room;
    for (block += 16;; block += 16, n -= 16) {
        if ((mask = tlcc_block_mask(block, vc, vc)) != 0) {
            size_t i = (size_t)__builtin_ctz(mask);
            return i < n ? (void *)(block + i) : NULL;
        }
        if (n <= 16)
            return NULL;
    }
}

char *TLCC_STR_NAME(strstr)(const char *h, const char *n)
{
    size_t len = TLCC_STR_NAME(strlen)(n);
    if (!len)
        return (char *)h;
    for (h = TLCC_STR_NAME(strchr)(h, n[0]); h; h = TLCC_STR_NAME(strchr)(h + 1, n[0]))
        if (strncmp(h, n, len) == 0) /* stops at the haystack's end */
            return (char *)h;
    return NULL;
}
#else
typedef int tlcc_musl_string_unused; /* ISO C wants something in every file */
#endif
