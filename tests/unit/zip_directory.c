/* checker/zip_directory.c: zips written here field by field as APPNOTE.TXT lays them out (stored members, zlib's
 * CRC), then each one changed where a reader of the local headers and pip would part: the shapes the shell suite
 * package_zip_cd cannot make with python's zipfile (data descriptors of either form, zip64 locators of a split
 * zip, a directory that ends early, a zip that is only its end record). */
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "zip_directory.h"

struct zb {
    unsigned char b[4096];
    size_t n;
};

static void p16(struct zb *z, unsigned v)
{
    z->b[z->n++] = (unsigned char)v;
    z->b[z->n++] = (unsigned char)(v >> 8);
}

static void p32(struct zb *z, uint32_t v)
{
    p16(z, v & 0xFFFFu);
    p16(z, v >> 16);
}

static void p64(struct zb *z, uint64_t v)
{
    p32(z, (uint32_t)v);
    p32(z, (uint32_t)(v >> 32));
}

static void bytes(struct zb *z, const void *p, size_t n)
{
    memcpy(z->b + z->n, p, n);
    z->n += n;
}

static uint32_t crc(const char *s) { return (uint32_t)crc32(0, (const unsigned char *)s, (unsigned)strlen(s)); }

/* A stored member: its local header (sizes there, or zeros and a descriptor after the data: 0 none, 1 with the
 * signature, 2 without, 3 with 8-byte sizes), its data; returns where it starts. */
static size_t local(struct zb *z, const char *name, const char *data, int descriptor)
{
    size_t at = z->n, len = strlen(data);
    p32(z, 0x04034b50);
    p16(z, 20);
    p16(z, descriptor ? 8 : 0);
    p16(z, 0); /* stored */
    p32(z, 0); /* time, date */
    p32(z, descriptor ? 0 : crc(data));
    p32(z, descriptor ? 0 : (uint32_t)len);
    p32(z, descriptor ? 0 : (uint32_t)len);
    p16(z, (unsigned)strlen(name));
    p16(z, 0);
    bytes(z, name, strlen(name));
    bytes(z, data, len);
    if (descriptor == 1 || descriptor == 3)
        p32(z, 0x08074b50);
    if (descriptor) {
        p32(z, crc(data));
        if (descriptor == 3) {
            p64(z, len);
            p64(z, len);
        } else {
            p32(z, (uint32_t)len);
            p32(z, (uint32_t)len);
        }
    }
    return at;
}

static void central(struct zb *z, const char *name, const char *data, size_t off, int descriptor)
{
    size_t len = strlen(data);
    p32(z, 0x02014b50);
    p16(z, 20);
    p16(z, 20);
    p16(z, descriptor ? 8 : 0);
    p16(z, 0);
    p32(z, 0);
    p32(z, crc(data));
    p32(z, (uint32_t)len);
    p32(z, (uint32_t)len);
    p16(z, (unsigned)strlen(name));
    p16(z, 0); /* extra */
    p16(z, 0); /* comment */
    p16(z, 0); /* disk */
    p16(z, 0);
    p32(z, 0);
    p32(z, (uint32_t)off);
    bytes(z, name, strlen(name));
}

static void end(struct zb *z, unsigned disk, unsigned count, size_t cd_off)
{
    size_t cd_size = z->n - cd_off;
    p32(z, 0x06054b50);
    p16(z, disk);
    p16(z, disk);
    p16(z, count);
    p16(z, count);
    p32(z, (uint32_t)cd_size);
    p32(z, (uint32_t)cd_off);
    p16(z, 0);
}

/* Two members a.so and b.py, b.py with descriptor form d; the directory, the end record on `disk`. */
static void two(struct zb *z, int d, unsigned disk)
{
    z->n = 0;
    size_t a = local(z, "a.so", "\177ELF library bytes", 0), b = local(z, "b.py", "x = 1\n", d), cd = z->n;
    central(z, "a.so", "\177ELF library bytes", a, 0);
    central(z, "b.py", "x = 1\n", b, d);
    end(z, disk, 2, cd);
}

static enum tlck_zip_view view(const struct zb *z, const char *want)
{
    char *why = NULL;
    enum tlck_zip_view v = tlck_zip_memory_check(z->b, z->n, NULL, &why);
    if (want && (!why || !strstr(why, want)))
        printf("    | message: %s (want %s)\n", why ? why : "(none)", want);
    if (want && (!why || !strstr(why, want)))
        v = (enum tlck_zip_view)-1;
    free(why);
    return v;
}

static void agreeing(void)
{
    struct zb z;
    two(&z, 0, 0);
    UNIT_CHECK("two stored members agree", view(&z, NULL) == TLCK_ZIP_AGREES);
    for (int d = 1; d <= 3; d++) {
        two(&z, d, 0);
        UNIT_CHECK("a data descriptor (signed, unsigned, 8-byte sizes) agrees", view(&z, NULL) == TLCK_ZIP_AGREES);
    }
    z.n = 0;
    end(&z, 0, 0, 0);
    UNIT_CHECK("only an end record: empty", view(&z, NULL) == TLCK_ZIP_EMPTY);
    z.n = 0;
    local(&z, "a.so", "x", 0);
    UNIT_CHECK("local headers and no end record", view(&z, NULL) == TLCK_ZIP_NO_END_RECORD);
}

static void disagreeing(void)
{
    struct zb z;
    two(&z, 0, 1);
    UNIT_CHECK("end record on disk 1", view(&z, "says disk 1") == TLCK_ZIP_DISAGREES);
    two(&z, 1, 0);
    size_t dd = z.n - 22 - 2 * (46 + 4) - 16; /* b.py's descriptor, before the directory's two entries */
    z.b[dd + 4] ^= 1;                         /* its CRC */
    UNIT_CHECK("a descriptor with another CRC", view(&z, "b.py has no data descriptor") == TLCK_ZIP_DISAGREES);
    two(&z, 0, 0);
    z.b[z.n - 22 + 10] = 1; /* the end record counts one member of two */
    z.b[z.n - 22 + 8] = 1;
    UNIT_CHECK("a directory entry past the count", view(&z, "more entries than the 1") == TLCK_ZIP_DISAGREES);
    two(&z, 0, 0);
    z.b[z.n - 22 + 10] = 3; /* ... and three */
    z.b[z.n - 22 + 8] = 3;
    UNIT_CHECK("a count past the directory's entries", view(&z, "counts 3 members") == TLCK_ZIP_DISAGREES);
    /* a prefix: 8 bytes before the first member, offsets kept as written (python would shift them) */
    z.n = 0;
    bytes(&z, "prefix!!", 8);
    size_t a = local(&z, "a.so", "lib", 0), cd = z.n;
    central(&z, "a.so", "lib", a, 0);
    end(&z, 0, 1, cd);
    UNIT_CHECK("bytes before the first member", view(&z, "8 bytes at offset 0, before the first member") ==
                                                    TLCK_ZIP_DISAGREES);
    /* a zip64 locator of a zip split over two disks */
    z.n = 0;
    a = local(&z, "a.so", "lib", 0);
    cd = z.n;
    central(&z, "a.so", "lib", a, 0);
    size_t cd_size = z.n - cd, rec = z.n;
    p32(&z, 0x06064b50);
    p64(&z, 44);
    p16(&z, 45);
    p16(&z, 45);
    p32(&z, 0);
    p32(&z, 0);
    p64(&z, 1);
    p64(&z, 1);
    p64(&z, cd_size);
    p64(&z, cd);
    p32(&z, 0x07064b50);
    p32(&z, 0);
    p64(&z, rec);
    p32(&z, 2); /* two disks */
    p32(&z, 0x06054b50);
    p16(&z, 0);
    p16(&z, 0);
    p16(&z, 0xFFFF);
    p16(&z, 0xFFFF);
    p32(&z, 0xFFFFFFFFu);
    p32(&z, 0xFFFFFFFFu);
    p16(&z, 0);
    UNIT_CHECK("a zip64 locator of two disks", view(&z, "disk 0 of 2") == TLCK_ZIP_DISAGREES);
    z.b[z.n - 22 - 4] = 1; /* one disk: the same zip agrees */
    UNIT_CHECK("... of one disk, it agrees", view(&z, NULL) == TLCK_ZIP_AGREES);
}

UNIT_MAIN(UNIT_CASE(agreeing), UNIT_CASE(disagreeing))
