/* wrapper/musl/string.c (the SSE2 strlen, strchr, strchrnul and memchr and the strstr of the musl-linked
 * trueline-cc),
 * renamed and compared with the C library's at every alignment, length and target position up to a few
 * 16-byte blocks, and on strings that end at the last byte before an unmapped page. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TLCC_STR_NAME(name) tl_sse_##name
#include "../../wrapper/musl/string.c"
#include "unit.h"

#if defined(__x86_64__) && defined(__SSE2__)
static _Alignas(16) char buf[256];

static int check_all(void)
{
    int bad = 0;
    for (size_t at = 0; at < 16; at++)
        for (size_t len = 0; len < 80; len++) {
            memset(buf, 'x', sizeof buf);
            char *s = buf + 32 + at;
            s[len] = 0;
            s[-1] = '/'; /* before the start: never found */
            bad |= tl_sse_strlen(s) != len;
            bad |= tl_sse_strchr(s, '/') != NULL || tl_sse_strchrnul(s, '/') != s + len;
            bad |= tl_sse_strchr(s, 0) != s + len;
            for (size_t pos = 0; pos < len; pos++) {
                s[pos] = (char)0xe9; /* a byte above 0x7f: signedness */
                bad |= tl_sse_strchr(s, 0xe9) != s + pos || tl_sse_strchrnul(s, 0xe9) != s + pos;
                for (size_t n = 0; n <= len + 1; n++)
                    bad |= tl_sse_memchr(s, 0xe9, n) != memchr(s, 0xe9, n);
                s[pos] = 'x';
            }
            for (size_t n = 0; n <= len; n++)
                bad |= tl_sse_memchr(s, '/', n) != NULL;
        }
    return bad;
}

static int check_page_end(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE) != 0)
        return 1;
    int bad = 0;
    for (size_t len = 1; len < 40; len++) {
        char *s = m + page - len; /* the last byte of the page is the NUL */
        memset(s, 'y', len - 1);
        s[len - 1] = 0;
        bad |= tl_sse_strlen(s) != len - 1 || tl_sse_strchr(s, 'z') != NULL;
        bad |= tl_sse_memchr(s, 'z', len) != NULL || tl_sse_memchr(s, 0, len) != s + len - 1;
    }
    munmap(m, (size_t)page * 2);
    return bad;
}

static int check_strstr(void)
{
    static const char *const hay[] = { "", "a", "aaab", "abababc",
                                       "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0",
                                       "x86_64-linux-gnu-gcc-12", "clang++-14", "aab", "abcabd" };
    static const char *const needle[] = { "", "a", "b", "aab", "ababc", "Cuda compilation tools", "clang", "gcc", "g++",
                                          "abd", "abcabdx", "c" };
    /* copied into aligned buffers: the 16-byte loads read around a string's ends (never past its page),
     * which a sanitizer build reports for string literals */
    static _Alignas(16) char h[128], n[64];
    int bad = 0;
    for (size_t i = 0; i < sizeof hay / sizeof *hay; i++)
        for (size_t j = 0; j < sizeof needle / sizeof *needle; j++) {
            memset(h, 0, sizeof h);
            memset(n, 0, sizeof n);
            strcpy(h, hay[i]);
            strcpy(n, needle[j]);
            bad |= tl_sse_strstr(h, n) != strstr(h, n);
        }
    /* a haystack ending in a prefix of the needle, on the last bytes before an unmapped page */
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE) != 0)
        return 1;
    char *s = m + page - 6;
    memcpy(s, "xxcla", 6);
    strcpy(n, "clang");
    bad |= tl_sse_strstr(s, n) != NULL;
    strcpy(n, "cla");
    bad |= tl_sse_strstr(s, n) != s + 2;
    munmap(m, (size_t)page * 2);
    return bad;
}
#endif

#if defined(__x86_64__) && defined(__SSE2__)
static void agree_everywhere(void)
{
    UNIT_CHECK("SSE2 string functions agree with the C library at every alignment and length", check_all() == 0);
}

static void page_end(void)
{
    UNIT_CHECK("SSE2 string functions stop before an unmapped page", check_page_end() == 0);
}

static void strstr_agrees(void)
{
    UNIT_CHECK("strstr agrees with the C library, and stops at the haystack's end", check_strstr() == 0);
}

UNIT_MAIN(UNIT_CASE(agree_everywhere), UNIT_CASE(page_end), UNIT_CASE(strstr_agrees))
#else
static void sse2_string_functions(void)
{
    UNIT_SKIP("the SSE2 string functions are built on x86-64 only");
}

UNIT_MAIN(UNIT_CASE(sse2_string_functions))
#endif
