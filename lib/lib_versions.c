#include "trueline/lib_versions.h"

#include <elfutils/version.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

static const char *libc_ver(char *buf, size_t n)
{
#ifdef __GLIBC__
    snprintf(buf, n, "glibc %s", gnu_get_libc_version());
#else
    snprintf(buf, n, "a C library other than glibc"); /* musl and others have no version API */
#endif
    return buf;
}

/* elfutils states its version only in its header: 188 is 0.188. */
static const char *elf_ver(char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000);
    return buf;
}

static const char *zstd_ver(char *buf, size_t n)
{
    (void)buf, (void)n;
    return ZSTD_versionString();
}

/* XXH_versionNumber(): major*10000 + minor*100 + release. */
static const char *xxhash_ver(char *buf, size_t n)
{
    unsigned v = XXH_versionNumber();
    snprintf(buf, n, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    return buf;
}

static const char *zlib_ver(char *buf, size_t n)
{
    (void)buf, (void)n;
    return zlibVersion();
}

static const struct tl_lib_version common[] = {
    { "libelf", elf_ver }, { "zstd", zstd_ver }, { "xxhash", xxhash_ver },
    { "zlib", zlib_ver },      { "inih", NULL },         { "libiberty", NULL },
};

static void print_one(FILE *out, const struct tl_lib_version *l)
{
    char buf[64];
    const char *v = l->version ? l->version(buf, sizeof buf) : NULL;
    fprintf(out, ", %s%s%s", l->name, v ? " " : "", v ? v : "");
}

void tl_print_lib_versions(FILE *out, const struct tl_lib_version *extra, size_t nextra)
{
    char buf[64];
    fprintf(out, "built with: %s", libc_ver(buf, sizeof buf));
    for (size_t i = 0; i < sizeof common / sizeof *common; i++)
        print_one(out, &common[i]);
    for (size_t i = 0; i < nextra; i++)
        print_one(out, &extra[i]);
    fputc('\n', out);
}
