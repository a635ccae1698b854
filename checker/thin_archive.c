/* GNU thin archives (`ar rcT`, "!<thin>\n"): the member table of an archive whose members stay in their own
 * files. libelf reads only archives that hold their members ("!<arch>\n"), so the headers are read here: the
 * usual 60-byte ar headers, where only the symbol tables ("/", "/SYM64/") and the long-name table ("//") carry
 * their bytes; every other header names a file (directly, "name/", or "/OFFSET" into the long-name table) that
 * is found relative to the archive's directory. */
#include "thin_archive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "trueline/elf_file.h"

#define HDR 60

static int stored(const char *name)
{
    return strncmp(name, "/ ", 2) == 0 || strncmp(name, "// ", 3) == 0 || strncmp(name, "/SYM64/ ", 8) == 0;
}

/* The member's name: a short "name/" or "/OFFSET" into the long-name table (entries end with "/\n"). */
static char *member_name(const char *field, const char *names, size_t nnames)
{
    if (field[0] == '/' && field[1] >= '0' && field[1] <= '9') {
        unsigned long off = strtoul(field + 1, NULL, 10);
        if (!names || off >= nnames)
            return NULL;
        const char *s = names + off, *e = memchr(s, '\n', nnames - off);
        if (!e || e == s)
            return NULL;
        if (e[-1] == '/')
            e--;
        return e > s ? tlck_asprintf("%.*s", (int)(e - s), s) : NULL;
    }
    const char *slash = memchr(field, '/', 16);
    return slash && slash > field ? tlck_asprintf("%.*s", (int)(slash - field), field) : NULL;
}

static char *member_path(const char *archive, const char *name)
{
    const char *slash = strrchr(archive, '/');
    if (name[0] == '/' || !slash)
        return strdup(name);
    return tlck_asprintf("%.*s/%s", (int)(slash - archive), archive, name);
}

int tlck_thin_archive_read(const char *path, const unsigned char *data, size_t size, struct tlck_thin_members *out,
                         tl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *names = NULL;
    size_t nnames = 0, cap = 0;
    for (size_t at = 8; at < size;) {
        if (data[at] == '\n') { /* padding after a stored table of odd size */
            at++;
            continue;
        }
        if (size - at < HDR || memcmp(data + at + 58, "`\n", 2) != 0)
            return tl_fail(err, "bad thin archive member header at offset %zu", at);
        const char *h = (const char *)data + at;
        char field[11];
        memcpy(field, h + 48, 10);
        field[10] = 0;
        char *end;
        unsigned long long len = strtoull(field, &end, 10);
        at += HDR;
        if (stored(h)) {
            if (len > size - at)
                return tl_fail(err, "thin archive table at offset %zu runs past the end", at - HDR);
            if (h[1] == '/')
                names = (const char *)data + at, nnames = (size_t)len;
            at += (size_t)len + (len & 1);
            continue;
        }
        char *name = member_name(h, names, nnames);
        if (!name)
            return tl_fail(err, "thin archive member at offset %zu has no readable name", at - HDR);
        if (tlck_grow((void **)&out->v, &cap, out->n + 1, sizeof *out->v) != 0) {
            free(name);
            return tl_fail(err, "out of memory");
        }
        out->v[out->n].name = name;
        out->v[out->n++].path = member_path(path, name);
    }
    return 0;
}

void tlck_thin_members_free(struct tlck_thin_members *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].name);
        free(m->v[i].path);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}
