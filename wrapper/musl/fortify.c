/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL).
 *
 * Debian's static libxxhash.a and libiberty.a were compiled against glibc with _FORTIFY_SOURCE, so they call
 * glibc's checked entry points __memcpy_chk (XXH3 digests), __fprintf_chk (libiberty's expandargv and
 * xmalloc_failed messages) and __explicit_bzero_chk (libsodium.a wiping its HMAC state). musl provides every
 * other glibc-ABI symbol these archives reference, but not these three. Each keeps glibc's contract: a copy larger than the destination's known size aborts. A new
 * unresolved symbol makes the static link fail, never a silent fallback. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dst_size);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
void __explicit_bzero_chk(void *dst, size_t n, size_t dst_size);

void __explicit_bzero_chk(void *dst, size_t n, size_t dst_size)
{
    if (n > dst_size)
        abort();
    explicit_bzero(dst, n); /* musl's: a wipe the compiler may not drop */
}

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dst_size)
{
    if (n > dst_size)
        abort();
    return memcpy(dst, src, n);
}

int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
    (void)flag; /* glibc uses it to refuse %n in writable formats; musl's vfprintf is used as is */
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(fp, fmt, ap);
    va_end(ap);
    return r;
}
