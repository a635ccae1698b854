/* Linked into the wheel's trueline-check only (Makefile, WHEEL_CHECKER_LIBS).
 *
 * libarchive's zip writer (used by --split to write a wheel) draws its encryption salts from archive_random(),
 * which Debian 12's static libarchive compiled against arc4random_buf: a GLIBC_2.36 symbol that would raise the
 * wheel's platform tag from manylinux_2_34 to manylinux_2_36 and lock out RHEL 9 and Ubuntu 22.04. trueline never
 * encrypts, but the reference is there; it is routed (ld --wrap) to getrandom(2), which glibc has had since 2.25
 * and which is what arc4random_buf itself reads from. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/random.h>

void __wrap_arc4random_buf(void *buf, size_t n);

void __wrap_arc4random_buf(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            abort(); /* as arc4random_buf does: it cannot fail */
        }
        p += r;
        n -= (size_t)r;
    }
}
