/* Supplementary DWARF files (dwz -m): where the file that .gnu_debugaltlink or .debug_sup names is, and whether it
 * is the one this file was made with.
 *
 * .gnu_debugaltlink holds the name, a NUL, then the supplementary file's build-id. DWARF 5's .debug_sup holds a
 * version (5), is_supplementary (0 in the file that refers), the name and a checksum; the supplementary file's
 * own .debug_sup (is_supplementary 1) carries the same checksum. A candidate with another build-id or checksum
 * was made for other files: its names would be wrong, so it is not used. */
#include "read/host_internal.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct link {
    const char *name;
    const unsigned char *id; /* build-id (.gnu_debugaltlink) or checksum (.debug_sup) */
    size_t idn;
    int sup;                 /* from .debug_sup */
};

static uint64_t uleb(const unsigned char **p, const unsigned char *end, int *bad)
{
    uint64_t v = 0;
    for (unsigned shift = 0; *p < end; shift += 7) {
        unsigned char b = *(*p)++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    *bad = 1;
    return 0;
}

/* .debug_sup: version 5, is_supplementary, name, checksum. Returns 0 with the fields, -1 when malformed. */
static int parse_sup(const tl_bytes *b, int *is_sup, struct link *l)
{
    const unsigned char *p = b->p, *end = b->p + b->n;
    int bad = 0;
    if (b->n < 4 || (p[0] | p[1] << 8) != 5)
        return -1;
    *is_sup = p[2];
    p += 3;
    const unsigned char *z = memchr(p, 0, (size_t)(end - p));
    if (!z)
        return -1;
    l->name = (const char *)p;
    p = z + 1;
    uint64_t n = uleb(&p, end, &bad);
    if (bad || n > (uint64_t)(end - p))
        return -1;
    l->id = p;
    l->idn = (size_t)n;
    l->sup = 1;
    return 0;
}

/* 1: e names a supplementary file (l filled, pointing into *raw); 0: it names none; -1: malformed (said). */
static int read_link(struct tlck_file *f, const tl_elf *e, struct link *l, tl_bytes *raw)
{
    GElf_Shdr sh;
    tl_error err;
    Elf_Scn *scn = tl_elf_section(e, ".gnu_debugaltlink", &sh);
    memset(l, 0, sizeof *l);
    if (scn && tl_elf_section_raw(e, scn, raw, &err) == 0) {
        const unsigned char *z = memchr(raw->p, 0, raw->n);
        if (!z || z == raw->p || (size_t)(z - raw->p) + 1 >= raw->n) {
            tlck_file_warn(f, ".gnu_debugaltlink is malformed");
            return -1;
        }
        l->name = (const char *)raw->p;
        l->id = z + 1;
        l->idn = raw->n - (size_t)(z + 1 - raw->p);
        return 1;
    }
    scn = tl_elf_section(e, ".debug_sup", &sh);
    if (!scn || tl_elf_section_bytes(e, scn, raw, &err) != 0)
        return 0;
    int is_sup = 0;
    if (parse_sup(raw, &is_sup, l) != 0) {
        tlck_file_warn(f, ".debug_sup is malformed");
        return -1;
    }
    return is_sup || !*l->name ? 0 : 1; /* the supplementary file itself names none */
}

/* Does the candidate carry the identity the link records? *got describes what it has instead. */
static int same_build(const tl_elf *c, const struct link *l, char *got, size_t gotn)
{
    snprintf(got, gotn, "none");
    if (l->sup) {
        GElf_Shdr sh;
        tl_error err;
        tl_bytes b;
        struct link mine;
        int is_sup = 0;
        Elf_Scn *scn = tl_elf_section(c, ".debug_sup", &sh);
        if (!scn || tl_elf_section_bytes(c, scn, &b, &err) != 0)
            return 0;
        int ok = parse_sup(&b, &is_sup, &mine) == 0 && is_sup && mine.idn == l->idn &&
                 memcmp(mine.id, l->id, l->idn) == 0;
        snprintf(got, gotn, "another checksum");
        tl_bytes_free(&b);
        return ok;
    }
    char want[256], have[256];
    if (l->idn == 0 || l->idn * 2 + 1 > sizeof want)
        return 0;
    for (size_t i = 0; i < l->idn; i++)
        snprintf(want + 2 * i, 3, "%02x", l->id[i]);
    if (tlck_elf_build_id(c, have, sizeof have) != 0)
        return 0;
    snprintf(got, gotn, "build-id %s", have);
    return strcmp(want, have) == 0;
}

int tlck_find_dwarf_alt(struct tlck_file *f, const tl_elf *e, const char *path, const struct tlck_options *o, tl_elf *out,
                      char **name, char **found)
{
    struct link l;
    tl_bytes raw = { 0 };
    *name = *found = NULL;
    memset(out, 0, sizeof *out);
    int rc = read_link(f, e, &l, &raw);
    if (rc <= 0) {
        tl_bytes_free(&raw);
        return rc;
    }
    *name = strdup(l.name);
    const char *dirs[64];
    size_t ndirs = tlck_debug_dirs(o, dirs, 64);
    char *copy = strdup(path ? path : "."), *copy2 = strdup(l.name);
    const char *dir = copy ? dirname(copy) : ".", *base = copy2 ? basename(copy2) : l.name;
    char cand[2 * PATH_MAX + 64], *other = NULL; /* the last candidate of another build: said if none fits */
    rc = -1;
    /* as named (absolute, or relative to the file), under each debug dir, beside the file, by build-id */
    for (size_t i = 0; i < 2 * ndirs + 2; i++) {
        if (i == 0 && l.name[0] == '/')
            snprintf(cand, sizeof cand, "%s", l.name);
        else if (i == 0)
            snprintf(cand, sizeof cand, "%s/%s", dir, l.name);
        else if (i == 1)
            snprintf(cand, sizeof cand, "%s/%s", dir, base);
        else if (i < ndirs + 2 && l.name[0] == '/')
            snprintf(cand, sizeof cand, "%s%s", dirs[i - 2], l.name);
        else if (i < ndirs + 2)
            continue;
        else if (!l.sup && l.idn >= 2) {
            char hex[256];
            size_t n = l.idn * 2 + 1 <= sizeof hex ? l.idn : (sizeof hex - 1) / 2;
            for (size_t k = 0; k < n; k++)
                snprintf(hex + 2 * k, 3, "%02x", l.id[k]);
            snprintf(cand, sizeof cand, "%s/.build-id/%.2s/%s.debug", dirs[i - 2 - ndirs], hex, hex + 2);
        } else {
            continue;
        }
        tl_error err;
        if (access(cand, R_OK) != 0 || tl_elf_open_path(out, cand, &err) != 0) {
            tl_elf_close(out);
            continue;
        }
        char got[300];
        if (!same_build(out, &l, got, sizeof got)) {
            free(other);
            other = tlck_asprintf("supplementary DWARF file %s has %s, not the one %s records: it is from another "
                                "build; not used", cand, got, l.sup ? ".debug_sup" : ".gnu_debugaltlink");
            tl_elf_close(out);
            continue;
        }
        *found = strdup(cand);
        rc = 1;
        break;
    }
    if (rc != 1 && other)
        tlck_file_warn(f, "%s", other);
    free(other);
    free(copy);
    free(copy2);
    tl_bytes_free(&raw);
    return rc == 1 ? 1 : -1;
}
