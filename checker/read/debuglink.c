/* Separate debug files, found the way gdb finds them: build-id first (DIR/.build-id/xx/rest.debug), then
 * .gnu_debuglink (name + CRC-32 of the debug file, zlib's polynomial) next to the file, in .debug/, and under
 * each debug dir. A debug file whose own build-id differs from the file's (a build-id path filled by hand or
 * by a broken packaging step), or whose CRC differs from the debuglink's, is not used: it belongs to another
 * build, and its DWARF would describe other code. */
#include "read/host_internal.h"
#include "read/debug_store.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int tlck_elf_build_id(const tl_elf *e, char *hex, size_t hexn)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t off = 0, noff, doff;
        GElf_Nhdr nh;
        while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
                nh.n_descsz >= 2 && nh.n_descsz * 2 + 1 <= hexn) {
                const unsigned char *p = (const unsigned char *)d->d_buf + doff;
                for (size_t i = 0; i < nh.n_descsz; i++)
                    snprintf(hex + 2 * i, 3, "%02x", p[i]);
                return 0;
            }
        }
    }
    return -1;
}

static int open_if(const char *path, tl_elf *out)
{
    tl_error err;
    if (access(path, R_OK) != 0)
        return -1;
    if (tl_elf_open_path(out, path, &err) != 0) {
        tl_elf_close(out);
        return -1;
    }
    return 0;
}

static int has_debug_info(const tl_elf *e)
{
    GElf_Shdr sh;
    Elf_Scn *scn = tl_elf_section(e, ".debug_info", &sh);
    return scn && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

static int by_build_id(struct tlck_file *f, const tl_elf *e, const char *const *dirs, size_t ndirs, tl_elf *out,
                       int *other)
{
    char hex[256], got[256], path[PATH_MAX];
    if (tlck_elf_build_id(e, hex, sizeof hex) != 0)
        return -1;
    for (size_t i = 0; i < ndirs; i++) {
        snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", dirs[i], hex, hex + 2);
        if (open_if(path, out) != 0)
            continue;
        if (!has_debug_info(out)) {
            tl_elf_close(out);
            continue;
        }
        /* the path says only where the file was put; the note inside it says which build it came from */
        int has_id = tlck_elf_build_id(out, got, sizeof got) == 0;
        if (!has_id || strcmp(got, hex) != 0) {
            tlck_file_warn(f, "separate debug file %s has build-id %s but the file's is %s: it is from another build; "
                         "not used", path, has_id ? got : "(none)", hex);
            *other = 1;
            tl_elf_close(out);
            continue;
        }
        f->debug_file = strdup(path);
        return 0;
    }
    return -1;
}

static int crc_of(const tl_elf *e, uint32_t *crc)
{
    *crc = (uint32_t)crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < e->size;) {
        uInt chunk = e->size - off > (1u << 30) ? (1u << 30) : (uInt)(e->size - off);
        *crc = (uint32_t)crc32(*crc, e->data + off, chunk);
        off += chunk;
    }
    return 0;
}

/* *missing: the name it gives was found nowhere, and no candidate of another build either (said by the caller). */
static int by_debuglink(struct tlck_file *f, const tl_elf *e, const char *const *dirs, size_t ndirs, tl_elf *out,
                        const char **missing)
{
    GElf_Shdr sh;
    Elf_Scn *scn = tl_elf_section(e, ".gnu_debuglink", &sh);
    tl_bytes b;
    tl_error err;
    if (!scn || tl_elf_section_raw(e, scn, &b, &err) != 0)
        return -1;
    const unsigned char *z = memchr(b.p, 0, b.n);
    size_t crc_at = z ? ((size_t)(z - b.p) + 4) & ~(size_t)3 : 0;
    if (!z || crc_at + 4 > b.n || z == b.p) {
        tlck_file_warn(f, ".gnu_debuglink is malformed");
        return -1;
    }
    const char *name = (const char *)b.p;
    uint32_t want = (uint32_t)b.p[crc_at] | (uint32_t)b.p[crc_at + 1] << 8 | (uint32_t)b.p[crc_at + 2] << 16 |
                    (uint32_t)b.p[crc_at + 3] << 24;
    char *copy = strdup(f->path), path[2 * PATH_MAX + 256];
    const char *dir = dirname(copy);
    char rdir[PATH_MAX];
    if (!realpath(dir, rdir))
        snprintf(rdir, sizeof rdir, "%s", dir);
    int rc = -1;
    char *other_build = NULL; /* the last candidate with another CRC: said only when none matches */
    /* candidates: next to the file, its .debug/, DIR/<real dir of the file>/, DIR/ */
    for (size_t i = 0; rc != 0 && i < 2 * ndirs + 2; i++) {
        if (i == 0)
            snprintf(path, sizeof path, "%s/%s", dir, name);
        else if (i == 1)
            snprintf(path, sizeof path, "%s/.debug/%s", dir, name);
        else if (i < ndirs + 2)
            snprintf(path, sizeof path, "%s%s/%s", dirs[i - 2], rdir, name);
        else
            snprintf(path, sizeof path, "%s/%s", dirs[i - 2 - ndirs], name);
        if (strcmp(path, f->path) == 0 || open_if(path, out) != 0)
            continue;
        uint32_t got;
        crc_of(out, &got);
        if (got != want) {
            free(other_build);
            other_build = tlck_asprintf("separate debug file %s has CRC %08x but .gnu_debuglink expects %08x: it is "
                                      "from another build; not used", path, got, want);
            tl_elf_close(out);
            continue;
        }
        f->debug_file = strdup(path);
        rc = 0;
    }
    if (rc != 0 && other_build)
        tlck_file_warn(f, "%s", other_build);
    else if (rc != 0)
        *missing = name; /* points into the section, which lives as long as e */
    free(other_build);
    free(copy);
    return rc;
}

/* The servers of DEBUGINFOD_URLS, for a file whose debug info was split out (it names its debug file by
 * .gnu_debuglink): asked only then, so that auditing files that never had DWARF sends nothing anywhere. */
static int by_server(struct tlck_file *f, const tl_elf *e, tl_elf *out)
{
    char hex[256], got[256], path[PATH_MAX], err[1024];
    unsigned char id[128];
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (!urls || !*urls || !tl_elf_section(e, ".gnu_debuglink", NULL) || tlck_elf_build_id(e, hex, sizeof hex) != 0)
        return -1;
    size_t idlen = strlen(hex) / 2;
    for (size_t i = 0; i < idlen && i < sizeof id; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        id[i] = (unsigned char)v;
    }
    int rc = tlck_store_find(NULL, id, idlen < sizeof id ? idlen : sizeof id, path, sizeof path, err, sizeof err);
    if (rc < 0)
        tlck_file_warn(f, "%s", err);
    if (rc != 0 || open_if(path, out) != 0)
        return -1;
    if (!has_debug_info(out) || tlck_elf_build_id(out, got, sizeof got) != 0 || strcmp(got, hex) != 0) {
        tlck_file_warn(f, "the debug file DEBUGINFOD_URLS gave for build-id %s (%s) is not that build's; not used", hex,
                       path);
        tl_elf_close(out);
        return -1;
    }
    f->debug_file = strdup(path);
    return 0;
}

size_t tlck_debug_dirs(const struct tlck_options *o, const char **dirs, size_t max)
{
    size_t n = 0;
    if (o->debug_store && n + 1 < max) /* the debug store has the .build-id layout of a debug directory */
        dirs[n++] = o->debug_store;
    for (size_t i = 0; i < o->ndebug_dirs && n + 1 < max; i++)
        dirs[n++] = o->debug_dirs[i];
    dirs[n++] = "/usr/lib/debug";
    return n;
}

int tlck_find_debug_file(struct tlck_file *f, const tl_elf *e, const struct tlck_options *o, tl_elf *out)
{
    const char *dirs[64];
    size_t n = tlck_debug_dirs(o, dirs, 64);
    memset(out, 0, sizeof *out);
    int other = 0;
    const char *missing = NULL;
    if (by_build_id(f, e, dirs, n, out, &other) == 0)
        return 1;
    if (by_server(f, e, out) == 0)
        return 1;
    if (by_debuglink(f, e, dirs, n, out, &missing) == 0)
        return 1; /* a build-id candidate's warning stays */
    char hex[256];
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (missing && !other && tlck_elf_build_id(e, hex, sizeof hex) == 0) {
        /* what --split (or eu-strip -f) leaves: line-tables says "split out" once, naming the build-id */
        f->split_build_id = strdup(hex);
        f->split_store_asked = o->debug_store || (urls && *urls);
    } else if (missing)
        tlck_file_warn(f, "no debug info, and the separate debug file '%s' named by .gnu_debuglink was not found (use "
                       "--debug-dir)", missing);
    return 0;
}
