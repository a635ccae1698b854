/* A wheel split member by member (package_split.h).
 *
 * The wheel is read whole first (libarchive, the zip's central directory), every ELF member split, then
 * written again in the same order: RECORD must hold the new members' hashes, and it may come before them. The
 * compression of each member (stored or deflate) is read from the central directory, which libarchive does not
 * report, and set again for each entry. SHA-256 for RECORD comes from libsodium; a build without it cannot
 * rewrite a wheel and says so. */
#include "split/package_split.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef TL_HAVE_SODIUM
#include <sodium.h>
#endif

struct member {
    struct archive_entry *entry;
    unsigned char *data;
    size_t n;
    int stored; /* zip method 0 */
    int changed;
};

static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Whether the central directory says member name is stored (method 0). Unknown: deflate. */
static int zip_stored(const unsigned char *p, size_t n, const char *name)
{
    if (n < 22)
        return 0;
    size_t eocd = n - 22, stop = n > 22 + 65535 ? n - 22 - 65535 : 0;
    while (le32(p + eocd) != 0x06054b50) {
        if (eocd == stop)
            return 0;
        eocd--;
    }
    size_t off = le32(p + eocd + 16), count = le16(p + eocd + 10), len = strlen(name);
    for (size_t i = 0; i < count && off + 46 <= n && le32(p + off) == 0x02014b50; i++) {
        size_t nl = le16(p + off + 28), xl = le16(p + off + 30), cl = le16(p + off + 32);
        if (off + 46 + nl > n)
            return 0;
        if (nl == len && memcmp(p + off + 46, name, len) == 0)
            return le16(p + off + 10) == 0;
        off += 46 + nl + xl + cl;
    }
    return 0;
}

static int looks_like_library(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t l = strlen(base);
    return (l > 3 && strcmp(base + l - 3, ".so") == 0) || strstr(base, ".so.") != NULL;
}

static int is_record(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash && strcmp(slash, "/RECORD") == 0 && slash - name > 10 && memcmp(slash - 10, ".dist-info", 10) == 0 &&
           memchr(name, '/', (size_t)(slash - name)) == NULL;
}

#ifdef TL_HAVE_SODIUM
/* "sha256=" + the urlsafe base64 of the digest without padding, as RECORD writes it (PEP 376, PEP 427). */
static void record_hash(const unsigned char *p, size_t n, char out[64])
{
    unsigned char d[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(d, p, n);
    memcpy(out, "sha256=", 7);
    sodium_bin2base64(out + 7, 64 - 7, d, sizeof d, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}
#endif

/* RECORD with the hash and size of every changed member replaced; other lines as they were. */
static int rewrite_record(struct member *rec, struct member *m, size_t nm, char *err, size_t errlen)
{
#ifndef TL_HAVE_SODIUM
    (void)rec, (void)m, (void)nm;
    snprintf(err, errlen, "this trueline-check was built without libsodium: no SHA-256 for the wheel's RECORD");
    return -1;
#else
    if (sodium_init() < 0)
        return snprintf(err, errlen, "libsodium cannot start"), -1;
    size_t cap = rec->n + nm * 128 + 1, o = 0;
    char *out = malloc(cap);
    if (!out)
        return snprintf(err, errlen, "out of memory"), -1;
    const char *s = (const char *)rec->data, *end = s + rec->n;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - s);
        if (ll && s[ll - 1] == '\r')
            ll--;
        /* path,hash,size: the path is all before the last two commas (it may hold commas, quoted) */
        const char *c2 = NULL, *c1 = NULL;
        for (const char *q = s + ll; q > s; q--)
            if (q[-1] == ',') {
                if (!c2)
                    c2 = q - 1;
                else {
                    c1 = q - 1;
                    break;
                }
            }
        struct member *hit = NULL;
        if (c1) {
            const char *ps = s, *pe = c1;
            if (pe - ps >= 2 && *ps == '"' && pe[-1] == '"')
                ps++, pe--;
            for (size_t i = 0; i < nm && !hit; i++)
                if (m[i].changed && strlen(archive_entry_pathname(m[i].entry)) == (size_t)(pe - ps) &&
                    memcmp(archive_entry_pathname(m[i].entry), ps, (size_t)(pe - ps)) == 0)
                    hit = &m[i];
        }
        if (hit) {
            char h[64];
            record_hash(hit->data, hit->n, h);
            o += (size_t)snprintf(out + o, cap - o, "%.*s,%s,%zu\n", (int)(c1 - s), s, h, hit->n);
        } else {
            memcpy(out + o, s, (size_t)(le - s));
            o += (size_t)(le - s);
            if (nl)
                out[o++] = '\n';
        }
        s = nl ? nl + 1 : end;
    }
    free(rec->data);
    rec->data = (unsigned char *)out, rec->n = o, rec->changed = 1;
    return 0;
#endif
}

/* One member's split into an anonymous file, read back. 0 changed, 1 nothing to split, -1 err. */
static int split_member(const char *name, struct member *m, const struct tlck_split_opts *o,
                        struct tlck_package_split_stats *st, char *err, size_t errlen)
{
    int fd = memfd_create("trueline-member", MFD_CLOEXEC);
    if (fd < 0)
        return snprintf(err, errlen, "memfd_create: %s", strerror(errno)), -1;
    struct tlck_split_stats es;
    int rc = tlck_split_elf(name, m->data, m->n, o, fd, &es, err, errlen);
    struct stat sb;
    if (rc == 0 && fstat(fd, &sb) == 0) {
        unsigned char *nd = malloc((size_t)sb.st_size ? (size_t)sb.st_size : 1);
        if (!nd || pread(fd, nd, (size_t)sb.st_size, 0) != (ssize_t)sb.st_size) {
            free(nd);
            rc = -1, snprintf(err, errlen, "cannot read the split member back");
        } else {
            free(m->data);
            m->data = nd, m->n = (size_t)sb.st_size, m->changed = 1;
            st->host_parts += (size_t)es.host_part;
            st->device_parts += es.device_parts;
        }
    }
    close(fd);
    return rc;
}

int tlck_split_package(const char *name, const unsigned char *p, size_t n, const struct tlck_split_opts *o,
                       int out_fd, struct tlck_package_split_stats *st, char *err, size_t errlen)
{
    (void)name;
    memset(st, 0, sizeof *st);
    struct archive *ar = archive_read_new();
    struct member *m = NULL;
    size_t nm = 0, cap = 0;
    int rc = -1;
    archive_read_support_format_zip_seekable(ar);
    if (archive_read_open_memory(ar, p, n) != ARCHIVE_OK) {
        snprintf(err, errlen, "not a readable zip: %s", archive_error_string(ar));
        goto done;
    }
    struct archive_entry *e;
    int r;
    while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
        if (nm == cap) {
            cap = cap ? cap * 2 : 64;
            struct member *nmv = realloc(m, cap * sizeof *m);
            if (!nmv) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            m = nmv;
        }
        struct member *x = &m[nm];
        memset(x, 0, sizeof *x);
        x->entry = archive_entry_clone(e);
        nm++;
        const char *mn = archive_entry_pathname(e);
        size_t sz = archive_entry_size_is_set(e) ? (size_t)archive_entry_size(e) : 0, got = 0;
        x->data = malloc(sz ? sz : 1);
        if (!x->entry || !mn || !x->data) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        for (;;) {
            if (got == sz) {
                unsigned char probe;
                la_ssize_t k = archive_read_data(ar, &probe, 1);
                if (k == 0)
                    break;
                if (k < 0) {
                    snprintf(err, errlen, "member %s: %s", mn, archive_error_string(ar));
                    goto done;
                }
                unsigned char *bigger = realloc(x->data, sz * 2 + 64);
                if (!bigger) {
                    snprintf(err, errlen, "out of memory");
                    goto done;
                }
                x->data = bigger, sz = sz * 2 + 64;
                x->data[got++] = probe;
                continue;
            }
            la_ssize_t k = archive_read_data(ar, x->data + got, sz - got);
            if (k < 0) {
                snprintf(err, errlen, "member %s: %s", mn, archive_error_string(ar));
                goto done;
            }
            if (k == 0)
                break;
            got += (size_t)k;
        }
        x->n = got;
        x->stored = zip_stored(p, n, mn);
        st->members++;
        if (x->n >= 4 && memcmp(x->data, "\177ELF", 4) == 0) {
            st->elf_members++;
            char merr[1024] = "";
            int sr = split_member(mn, x, o, st, merr, sizeof merr);
            if (sr < 0) {
                snprintf(err, errlen, "member %s: %s", mn, merr);
                goto done;
            }
            st->split_members += sr == 0;
        } else if (looks_like_library(mn) && archive_entry_filetype(e) == AE_IFREG) {
            snprintf(err, errlen, "member %s: named like a shared library but not an ELF file", mn);
            goto done;
        }
    }
    if (r != ARCHIVE_EOF) {
        snprintf(err, errlen, "not a readable zip: %s", archive_error_string(ar));
        goto done;
    }
    if (st->split_members == 0) {
        rc = 1;
        goto done;
    }
    struct member *rec = NULL;
    for (size_t i = 0; i < nm; i++)
        if (is_record(archive_entry_pathname(m[i].entry)))
            rec = &m[i];
    if (!rec) {
        snprintf(err, errlen, "no .dist-info/RECORD: not a wheel");
        goto done;
    }
    if (rewrite_record(rec, m, nm, err, errlen) != 0)
        goto done;

    struct archive *aw = archive_write_new();
    if (archive_write_set_format_zip(aw) != ARCHIVE_OK || archive_write_open_fd(aw, out_fd) != ARCHIVE_OK) {
        snprintf(err, errlen, "cannot write the wheel: %s", archive_error_string(aw));
        archive_write_free(aw);
        goto done;
    }
    for (size_t i = 0; i < nm; i++) {
        if (m[i].stored)
            archive_write_zip_set_compression_store(aw);
        else
            archive_write_zip_set_compression_deflate(aw);
        archive_entry_set_size(m[i].entry, (la_int64_t)m[i].n);
        if (archive_write_header(aw, m[i].entry) != ARCHIVE_OK ||
            (m[i].n && archive_write_data(aw, m[i].data, m[i].n) != (la_ssize_t)m[i].n)) {
            snprintf(err, errlen, "cannot write member %s: %s", archive_entry_pathname(m[i].entry),
                     archive_error_string(aw));
            archive_write_free(aw);
            goto done;
        }
    }
    if (archive_write_close(aw) != ARCHIVE_OK) {
        snprintf(err, errlen, "cannot write the wheel: %s", archive_error_string(aw));
        archive_write_free(aw);
        goto done;
    }
    archive_write_free(aw);
    rc = 0;
done:
    for (size_t i = 0; i < nm; i++) {
        archive_entry_free(m[i].entry);
        free(m[i].data);
    }
    free(m);
    archive_read_free(ar);
    return rc;
}
