#include "platform_table.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_file.h"
#include "model.h"

const char *const tlck_version_prefixes[TLCK_NVER] = { "GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_" };

int tlck_version_parse(const char *s, unsigned v[4])
{
    memset(v, 0, 4 * sizeof *v);
    for (int i = 0; i < 4; i++) {
        char *end;
        if (*s < '0' || *s > '9')
            return -1;
        v[i] = (unsigned)strtoul(s, &end, 10);
        if (*end == 0)
            return 0;
        if (*end != '.')
            return -1;
        s = end + 1;
    }
    return 0;
}

int tlck_version_cmp(const char *a, const char *b)
{
    unsigned x[4], y[4];
    if (tlck_version_parse(a, x) != 0 || tlck_version_parse(b, y) != 0)
        return 2;
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

struct libs_read {
    struct tlck_platforms *t;
    size_t cap;
};

static int libs_row(char **field, size_t n, void *ctx)
{
    struct libs_read *c = ctx;
    struct tlck_platforms *t = c->t;
    if (n < 2)
        return 0;
    if (tlck_grow((void **)&t->v, &c->cap, t->n + 1, sizeof *t->v) != 0)
        return -1;
    struct tlck_platform *r = &t->v[t->n];
    memset(r, 0, sizeof *r);
    snprintf(r->tag, sizeof r->tag, "%s", field[0]);
    if (!(r->libs = tlck_asprintf(",%s,", field[1])))
        return -1;
    t->n++;
    return 0;
}

struct floors_read {
    struct tlck_floors *f;
    size_t cap;
};

static int floor_row(char **field, size_t n, void *ctx)
{
    struct floors_read *c = ctx;
    if (n < 1 + TLCK_NVER)
        return 0;
    if (tlck_grow((void **)&c->f->v, &c->cap, c->f->n + 1, sizeof *c->f->v) != 0)
        return -1;
    struct tlck_floor *r = &c->f->v[c->f->n++];
    snprintf(r->tag, sizeof r->tag, "%s", field[0]);
    for (int k = 0; k < TLCK_NVER; k++)
        snprintf(r->max[k], sizeof r->max[k], "%s", field[1 + k]);
    return 0;
}

int tlck_floors_read(struct tlck_floors *f, FILE *fp)
{
    struct floors_read c = { f, 0 };
    memset(f, 0, sizeof *f);
    return tlck_tsv_each(fp, floor_row, &c) == 0 ? 0 : -1;
}

void tlck_floors_free(struct tlck_floors *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

int tlck_platforms_load(struct tlck_platforms *t, const struct tlck_floors *floors, char *found, size_t cap,
                        tl_error *err)
{
    char path[PATH_MAX + 64] = "";
    memset(t, 0, sizeof *t);
    FILE *fp = tlck_conf_open("platform_libs.tsv", path, sizeof path);
    if (found)
        snprintf(found, cap, "%s", path);
    if (!fp)
        return 1;
    struct libs_read c = { t, 0 };
    int rc = tlck_tsv_each(fp, libs_row, &c), bad = ferror(fp) ? errno : 0;
    fclose(fp);
    if (rc != 0 || bad) {
        tlck_platforms_free(t);
        return bad ? tl_fail(err, "%s: cannot be read: %s", path, strerror(bad))
                   : tl_fail(err, "%s: out of memory reading the table", path);
    }
    for (size_t i = 0; floors && i < floors->n; i++)
        for (size_t k = 0; k < t->n; k++)
            if (strcasecmp(t->v[k].tag, floors->v[i].tag) == 0)
                memcpy(t->v[k].max, floors->v[i].max, sizeof t->v[k].max);
    return 0;
}

void tlck_platforms_free(struct tlck_platforms *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].libs);
    free(t->v);
    memset(t, 0, sizeof *t);
}

const struct tlck_platform *tlck_platform_find(const struct tlck_platforms *t, const char *tag)
{
    for (size_t i = 0; tag && i < t->n; i++)
        if (strcasecmp(t->v[i].tag, tag) == 0)
            return &t->v[i];
    return NULL;
}

int tlck_platform_allows_lib(const struct tlck_platform *row, const char *lib)
{
    /* auditwheel never counts the dynamic loader as an external library */
    if (strncmp(lib, "ld-linux", 8) == 0 || strcmp(lib, "ld64.so.1") == 0 || strcmp(lib, "ld64.so.2") == 0)
        return 1;
    size_t n = strlen(lib);
    for (const char *s = strstr(row->libs, lib); s; s = strstr(s + 1, lib))
        if (s[-1] == ',' && s[n] == ',')
            return 1;
    return 0;
}
