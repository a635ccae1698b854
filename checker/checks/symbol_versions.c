/* symbol-versions: the highest GLIBC_, GLIBCXX_, CXXABI_ and GCC_ version each file needs, the symbols that
 * need it, and pass/fail against a platform policy: --policy TAG (conf/manylinux.tsv) or explicit maxima in
 * the config ([symbol-versions] glibc = 2.28, glibcxx = 3.4.24, cxxabi = 1.3.11, gcc = 7.0.0). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checks/host_util.h"

enum { P_GLIBC, P_GLIBCXX, P_CXXABI, P_GCC, NPREFIX };
static const char *const prefixes[NPREFIX] = { "GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_" };
static const char *const keys[NPREFIX] = { "glibc", "glibcxx", "cxxabi", "gcc" };

/* Dotted versions compared numerically: "3.4.9" < "3.4.24". Returns -1 when not numeric (GLIBC_PRIVATE). */
static int parse_version(const char *s, unsigned v[4])
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

static int cmp_version(const unsigned a[4], const unsigned b[4])
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The policy table, loaded once for all threads. */
struct row {
    char tag[64];
    char max[NPREFIX][16];
};
static struct row table[64];
static size_t ntable;
static char table_path[PATH_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int table_loaded;

static int load_table_from(const char *path)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    if (!fp)
        return -1;
    while (fgets(line, sizeof line, fp) && ntable < 64) {
        struct row r;
        if (line[0] == '#' || strncmp(line, "tag\t", 4) == 0)
            continue;
        if (sscanf(line, "%63s %15s %15s %15s %15s", r.tag, r.max[0], r.max[1], r.max[2], r.max[3]) == 5)
            table[ntable++] = r;
    }
    fclose(fp);
    snprintf(table_path, sizeof table_path, "%s", path);
    return 0;
}

/* [symbol-versions] table = FILE; else next to the installed binary (../share/trueline/), else the source tree
 * (the build directory's ../conf/). */
static void load_table(const struct tl_policy *p)
{
    pthread_mutex_lock(&table_lock);
    if (!table_loaded) {
        table_loaded = 1;
        const char *cfg = tl_config_get(p->cfg, "symbol-versions", "table");
        char exe[PATH_MAX], path[PATH_MAX + 64];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (!(cfg && load_table_from(cfg) == 0) && n > 0) {
            exe[n] = 0;
            char *slash = strrchr(exe, '/');
            if (slash)
                *slash = 0;
            snprintf(path, sizeof path, "%s/../share/trueline/manylinux.tsv", exe);
            if (load_table_from(path) != 0) {
                snprintf(path, sizeof path, "%s/../../conf/manylinux.tsv", exe);
                load_table_from(path);
            }
        }
    }
    pthread_mutex_unlock(&table_lock);
}

/* Maxima: explicit config values win over the named policy. Returns the policy label, or NULL when none. */
static const char *limits(const struct tl_policy *p, const char *max[NPREFIX], int *unknown)
{
    const char *tag = p->platform ? p->platform : tl_config_get(p->cfg, "symbol-versions", "policy");
    const char *label = NULL;
    *unknown = 0;
    for (int k = 0; k < NPREFIX; k++)
        max[k] = NULL;
    if (tag) {
        load_table(p);
        size_t i;
        for (i = 0; i < ntable && strcasecmp(table[i].tag, tag) != 0; i++)
            ;
        if (i < ntable) {
            for (int k = 0; k < NPREFIX; k++)
                max[k] = table[i].max[k];
            label = table[i].tag;
        } else {
            *unknown = 1;
        }
    }
    for (int k = 0; k < NPREFIX; k++) {
        const char *v = tl_config_get(p->cfg, "symbol-versions", keys[k]);
        if (v) {
            max[k] = v;
            label = label ? label : "the configured maxima";
        }
    }
    return label;
}

struct need {
    unsigned best[4];
    const char *best_name, *file;
    int have;
};

static void names_needing(const struct tl_file *f, int k, const unsigned at_least[4], int strictly_above, char *buf,
                          size_t n, size_t *count)
{
    size_t used = 0;
    *count = 0;
    buf[0] = 0;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tl_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        if (s->defined || !s->version || strncmp(s->version, prefixes[k], strlen(prefixes[k])) != 0 ||
            parse_version(s->version + strlen(prefixes[k]), v) != 0)
            continue;
        int c = cmp_version(v, at_least);
        if (strictly_above ? c <= 0 : c < 0)
            continue;
        if ((*count)++ < 8) {
            char *d = tl_demangle(s->name);
            int w = snprintf(buf + used, n - used, "%s%s@%s", used ? ", " : "", d, s->version);
            free(d);
            if (w > 0 && (size_t)w < n - used)
                used += (size_t)w;
        }
    }
    if (*count > 8 && used + 32 < n)
        snprintf(buf + used, n - used, " and %zu more", *count - 8);
}

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    if (f->elf_type == 1)
        return; /* relocatable objects carry no version references yet */
    const char *max[NPREFIX];
    int unknown;
    const char *label = limits(p, max, &unknown);
    if (unknown)
        tl_emit(out, "symbol-versions", TL_SEV_ERROR, f->display, NULL, "use a tag listed in conf/manylinux.tsv",
                "unknown platform policy '%s' (%s%s)", p->platform ? p->platform : "?",
                table_path[0] ? "table: " : "no policy table found", table_path);
    struct need need[NPREFIX] = { 0 };
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tl_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        for (int k = 0; k < NPREFIX && !s->defined && s->version; k++) {
            size_t pl = strlen(prefixes[k]);
            if (strncmp(s->version, prefixes[k], pl) != 0 || parse_version(s->version + pl, v) != 0)
                continue;
            if (!need[k].have || cmp_version(v, need[k].best) > 0) {
                memcpy(need[k].best, v, sizeof v);
                need[k].best_name = s->version;
                need[k].file = s->version_file;
                need[k].have = 1;
            }
        }
    }
    for (int k = 0; k < NPREFIX; k++) {
        if (!need[k].have)
            continue;
        char names[1024];
        size_t count;
        unsigned lim[4];
        if (max[k] && parse_version(max[k], lim) == 0 && cmp_version(need[k].best, lim) > 0) {
            names_needing(f, k, lim, 1, names, sizeof names, &count);
            tl_emit(out, "symbol-versions", sev, f->display, NULL,
                    "build on (or for) the oldest platform you support, e.g. inside the manylinux image, or avoid "
                    "the newer symbols",
                    "needs %s (from %s) but %s allows at most %s%s; %zu symbol(s) need more: %s", need[k].best_name,
                    need[k].file ? need[k].file : "?", label, prefixes[k], max[k], count, names);
        } else {
            names_needing(f, k, need[k].best, 0, names, sizeof names, &count);
            tl_emit(out, "symbol-versions", TL_SEV_INFO, f->display, NULL, NULL, "highest %s version needed: %s (from %s), by %s%s%s",
                    prefixes[k], need[k].best_name, need[k].file ? need[k].file : "?", names,
                    max[k] ? "; within " : "", max[k] ? label : "");
        }
    }
}

const struct tl_check tl_check_symbol_versions = {
    .id = "symbol-versions",
    .default_severity = TL_SEV_ERROR,
    .summary = "version floors",
    .help_uri = "docs/checks/symbol-versions.md",
    .run = run,
};
