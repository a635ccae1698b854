/* A static library split member by member (archive_split.h).
 *
 * Written here rather than through libarchive: its ar writer makes no symbol index, and the linker needs the
 * one the archive had (`ar s` would rebuild it from the members, but from a tool the user may not have). The
 * format is small and documented (ar(5)): "!<arch>\n", then per member a 60-byte header (name, date, uid, gid,
 * mode, size in decimal, "`\n") and its bytes padded to even. "/" is the 32-bit symbol index (a big-endian
 * count, that many member-header offsets, the names), "/SYM64/" the 64-bit one, "//" the long names. Only the
 * sizes of split members and the index's offsets change. BSD archives ("#1/" names) and thin archives are
 * refused. */
#include "split/archive_split.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trueline/files.h"

#define AR_MAGIC "!<arch>\n"
#define HDR 60

struct ar_member {
    size_t hdr_off;      /* in the input */
    size_t data_off, n;  /* in the input */
    unsigned char *data; /* the split member, or NULL: the input's bytes */
    size_t new_n;
    size_t new_hdr_off;
};

static size_t parse_size(const unsigned char *h)
{
    size_t v = 0;
    for (int i = 48; i < 58 && h[i] >= '0' && h[i] <= '9'; i++)
        v = v * 10 + (size_t)(h[i] - '0');
    return v;
}

/* The member's name for messages: "lib.a(member)". */
static void member_name(const unsigned char *p, size_t n, const struct ar_member *m, size_t longnames_off,
                        size_t longnames_n, char *out, size_t outlen)
{
    const char *h = (const char *)p + m->hdr_off;
    size_t len = 0;
    if (h[0] == '/' && h[1] >= '0' && h[1] <= '9' && longnames_n) {
        size_t at = (size_t)strtoul(h + 1, NULL, 10);
        const char *s = (const char *)p + longnames_off + at;
        while (at + len < longnames_n && s[len] != '/' && s[len] != '\n')
            len++;
        snprintf(out, outlen, "%.*s", (int)len, s);
        return;
    }
    while (len < 16 && h[len] != '/' && h[len] != ' ')
        len++;
    snprintf(out, outlen, "%.*s", (int)len, h);
    (void)n;
}

static int split_one(const char *display, struct ar_member *m, unsigned char *p, const struct tlck_split_opts *o,
                     struct tlck_archive_split_stats *st, char *err, size_t errlen)
{
    int fd = memfd_create("trueline-member", MFD_CLOEXEC);
    if (fd < 0)
        return snprintf(err, errlen, "memfd_create: %s", strerror(errno)), -1;
    struct tlck_split_stats es;
    int rc = tlck_split_elf(display, p + m->data_off, m->n, o, fd, &es, err, errlen);
    struct stat sb;
    if (rc == 0 && fstat(fd, &sb) == 0) {
        m->new_n = (size_t)sb.st_size;
        m->data = malloc(m->new_n ? m->new_n : 1);
        if (!m->data || pread(fd, m->data, m->new_n, 0) != (ssize_t)m->new_n)
            rc = -1, snprintf(err, errlen, "cannot read the split member back");
        else
            st->split_members++, st->device_parts += es.device_parts;
    }
    close(fd);
    return rc;
}

static void put_be(unsigned char *q, uint64_t v, int w)
{
    for (int i = 0; i < w; i++)
        q[i] = (unsigned char)(v >> (8 * (w - 1 - i)));
}

static uint64_t get_be(const unsigned char *q, int w)
{
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v = v << 8 | q[i];
    return v;
}

int tlck_split_archive(const char *name, unsigned char *p, size_t n, const struct tlck_split_opts *o, int out_fd,
                       struct tlck_archive_split_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (n < 8 || memcmp(p, AR_MAGIC, 8) != 0)
        return snprintf(err, errlen, "not a GNU/System V ar archive (a thin archive is not split)"), -1;
    struct ar_member *m = NULL;
    size_t nm = 0, cap = 0, longnames_off = 0, longnames_n = 0;
    int rc = -1;
    for (size_t off = 8; off < n;) {
        if (n - off < HDR || p[off + 58] != '`' || p[off + 59] != '\n') {
            snprintf(err, errlen, "member header at offset %zu is damaged", off);
            goto done;
        }
        size_t sz = parse_size(p + off);
        if (sz > n - off - HDR) {
            snprintf(err, errlen, "member at offset %zu runs past the end", off);
            goto done;
        }
        if (memcmp(p + off, "#1/", 3) == 0) {
            snprintf(err, errlen, "a BSD archive (#1/ names) is not split");
            goto done;
        }
        if (nm == cap) {
            cap = cap ? cap * 2 : 32;
            struct ar_member *g = realloc(m, cap * sizeof *m);
            if (!g) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            m = g;
        }
        m[nm++] = (struct ar_member){ .hdr_off = off, .data_off = off + HDR, .n = sz, .new_n = sz };
        if (memcmp(p + off, "// ", 3) == 0)
            longnames_off = off + HDR, longnames_n = sz;
        off += HDR + sz + (sz & 1);
    }
    for (size_t i = 0; i < nm; i++) {
        const unsigned char *h = p + m[i].hdr_off;
        if (h[0] == '/' && (h[1] == ' ' || h[1] == '/' || memcmp(h, "/SYM64/", 7) == 0))
            continue; /* the index and the long names */
        st->members++;
        if (m[i].n < 4 || memcmp(p + m[i].data_off, "\177ELF", 4) != 0)
            continue;
        char mn[512], display[1024];
        member_name(p, n, &m[i], longnames_off, longnames_n, mn, sizeof mn);
        snprintf(display, sizeof display, "%s(%s)", name, mn);
        char merr[1024] = "";
        int sr = split_one(display, &m[i], p, o, st, merr, sizeof merr);
        if (sr < 0) {
            snprintf(err, errlen, "member %s: %s", mn, merr);
            goto done;
        }
    }
    if (st->split_members == 0) {
        rc = 1;
        goto done;
    }
    size_t at = 8;
    for (size_t i = 0; i < nm; i++) {
        m[i].new_hdr_off = at;
        at += HDR + m[i].new_n + (m[i].new_n & 1);
    }
    if (tl_write_all(out_fd, AR_MAGIC, 8) != 0)
        goto werr;
    for (size_t i = 0; i < nm; i++) {
        unsigned char h[HDR];
        memcpy(h, p + m[i].hdr_off, HDR);
        char size[11];
        snprintf(size, sizeof size, "%-10zu", m[i].new_n);
        memcpy(h + 48, size, 10);
        const unsigned char *d = m[i].data ? m[i].data : p + m[i].data_off;
        unsigned char *idx = NULL;
        int w = h[0] == '/' && h[1] == ' ' ? 4 : memcmp(h, "/SYM64/", 7) == 0 ? 8 : 0;
        if (w && m[i].n >= (size_t)w) { /* the symbol index: each member offset moved to the member's new place */
            idx = malloc(m[i].n);
            if (!idx) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            memcpy(idx, d, m[i].n);
            uint64_t count = get_be(idx, w);
            if (count > (m[i].n - (size_t)w) / (size_t)w) {
                free(idx);
                snprintf(err, errlen, "the symbol index is damaged");
                goto done;
            }
            for (uint64_t k = 0; k < count; k++) {
                unsigned char *q = idx + w + k * (uint64_t)w;
                uint64_t old = get_be(q, w);
                size_t j = 0;
                while (j < nm && m[j].hdr_off != old)
                    j++;
                if (j == nm) {
                    free(idx);
                    snprintf(err, errlen, "the symbol index names no member at offset %llu", (unsigned long long)old);
                    goto done;
                }
                put_be(q, m[j].new_hdr_off, w);
            }
            d = idx;
        }
        int bad = tl_write_all(out_fd, h, HDR) != 0 || tl_write_all(out_fd, d, m[i].new_n) != 0 ||
                  ((m[i].new_n & 1) && tl_write_all(out_fd, "\n", 1) != 0);
        free(idx);
        if (bad)
            goto werr;
    }
    rc = 0;
    goto done;
werr:
    snprintf(err, errlen, "cannot write: %s", strerror(errno));
done:
    for (size_t i = 0; i < nm; i++)
        free(m[i].data);
    free(m);
    return rc;
}
