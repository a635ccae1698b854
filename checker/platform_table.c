#include "platform_table.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef TL_DATADIR
#define TL_DATADIR "/usr/local/share/trueline"
#endif
#ifndef TL_SOURCE_CONF
#define TL_SOURCE_CONF "conf"
#endif

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

FILE *tlck_conf_open(const char *name, char *found, size_t cap)
{
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *fp = NULL;
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(path, sizeof path, "%s/../share/trueline/%s", exe, name);
        if (!(fp = fopen(path, "r"))) {
            snprintf(path, sizeof path, "%s/../../conf/%s", exe, name);
            fp = fopen(path, "r");
        }
    }
    if (!fp) {
        snprintf(path, sizeof path, "%s/%s", TL_DATADIR, name);
        fp = fopen(path, "r");
    }
    if (!fp) {
        snprintf(path, sizeof path, "%s/%s", TL_SOURCE_CONF, name);
        fp = fopen(path, "r");
    }
    if (fp && found)
        snprintf(found, cap, "%s", path);
    return fp;
}

static int read_libs(struct tlck_platforms *t, FILE *fp)
{
    char line[4096], tag[64], libs[3500];
    size_t cap = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || strncmp(line, "tag\t", 4) == 0 || sscanf(line, "%63s %3499s", tag, libs) != 2)
            continue;
        if (tlck_grow((void **)&t->v, &cap, t->n + 1, sizeof *t->v) != 0)
            return -1;
        struct tlck_platform *r = &t->v[t->n];
        memset(r, 0, sizeof *r);
        snprintf(r->tag, sizeof r->tag, "%s", tag);
        if (!(r->libs = tlck_asprintf(",%s,", libs)))
            return -1;
        t->n++;
    }
    return 0;
}

static void read_maxima(struct tlck_platforms *t, FILE *fp)
{
    char line[512], tag[64], max[TLCK_NVER][16];
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || strncmp(line, "tag\t", 4) == 0 ||
            sscanf(line, "%63s %15s %15s %15s %15s", tag, max[0], max[1], max[2], max[3]) != 5)
            continue;
        for (size_t i = 0; i < t->n; i++)
            if (strcasecmp(t->v[i].tag, tag) == 0)
                memcpy(t->v[i].max, max, sizeof max);
    }
}

int tlck_platforms_load(struct tlck_platforms *t, const struct tlck_policy *p)
{
    memset(t, 0, sizeof *t);
    FILE *fp = tlck_conf_open("platform_libs.tsv", NULL, 0);
    if (!fp)
        return -1;
    int rc = read_libs(t, fp);
    fclose(fp);
    const char *cfg = p ? tl_config_get(p->cfg, "symbol-versions", "table") : NULL;
    if (rc == 0 && ((cfg && (fp = fopen(cfg, "r"))) || (fp = tlck_conf_open("manylinux.tsv", NULL, 0)))) {
        read_maxima(t, fp);
        fclose(fp);
    }
    return rc;
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
