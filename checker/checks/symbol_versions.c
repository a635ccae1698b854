/* symbol-versions: the highest GLIBC_, GLIBCXX_, CXXABI_ and GCC_ version each file needs, the symbols that
 * need it, and pass/fail against a platform policy: --policy TAG (conf/manylinux.tsv) or explicit maxima in
 * the config ([symbol-versions] glibc = 2.28, glibcxx = 3.4.24, cxxabi = 1.3.11, gcc = 7.0.0; GLIBC_2.28 too). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks/host_util.h"
#include "checks/symbol_versions.h"
#include "conf_file.h"
#include "platform_blacklist.h"
#include "platform_table.h"

enum { P_GLIBC, P_GLIBCXX, P_CXXABI, P_GCC, NPREFIX };
static const char *const prefixes[NPREFIX] = { "GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_" };
static const char *const keys[NPREFIX] = { "glibc", "glibcxx", "cxxabi", "gcc" };
static const char *const examples[NPREFIX] = { "2.28", "3.4.24", "1.3.11", "7.0.0" }; /* manylinux_2_28 */


/* A maximum, from the config or the policy table: "2.17", or "GLIBC_2.17" as objdump prints it (the key's own
 * prefix, any case; users copy it from there). The numeric part, NULL when it is not a version. */
static const char *max_version(int k, const char *s, unsigned v[4])
{
    size_t pl = strlen(prefixes[k]);
    if (strncasecmp(s, prefixes[k], pl) == 0)
        s += pl;
    return tlck_version_parse(s, v) == 0 ? s : NULL;
}

static int cmp_version(const unsigned a[4], const unsigned b[4])
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The policy table and where it came from: loaded once per audit by prepare, read by every thread. */
struct tlck_symbol_versions_table {
    struct tlck_floors floors;
    char path[PATH_MAX];
    struct tlck_blacklist blacklist; /* conf/platform_blacklist.tsv or [symbol-versions] blacklist = FILE */
};

/* Reads fp (found at path) into t; -1 when it cannot be read, with errno. */
static int load_table_from(struct tlck_symbol_versions_table *t, FILE *fp, const char *path)
{
    if (!fp)
        return -1;
    int rc = tlck_floors_read(&t->floors, fp);
    int saved = ferror(fp) ? errno : ENOMEM;
    if (ferror(fp))
        rc = -1;
    fclose(fp);
    if (rc != 0) {
        tlck_floors_free(&t->floors);
        errno = saved;
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    return 0;
}

/* [symbol-versions] table = FILE, which must be readable; else conf/manylinux.tsv where tlck_conf_open finds it
 * (beside the installed binary, the source tree above the build directory, PREFIX's data directory, the source
 * tree's conf/ for a build directory outside it). None found is no error until a policy is asked for (the check
 * says so then). */
static int load_table(const struct tlck_policy *p, struct tlck_symbol_versions_table *t, tl_error *err)
{
    const char *cfg = tl_config_get(p->cfg, "symbol-versions", "table");
    if (cfg) {
        if (load_table_from(t, fopen(cfg, "r"), cfg) == 0)
            return 0;
        char where[1200];
        tl_config_value_origin(p->cfg, "symbol-versions", "table", cfg, where, sizeof where);
        return tl_fail(err, "%s: [symbol-versions] table = '%s' cannot be read: %s", where, cfg, strerror(errno));
    }
    char path[PATH_MAX + 64];
    FILE *fp = tlck_conf_open("manylinux.tsv", path, sizeof path);
    if (fp && load_table_from(t, fp, path) != 0)
        return tl_fail(err, "%s: cannot be read: %s", path, strerror(errno));
    return 0;
}

/* The manylinux tag an x86_64 wheel's file name claims for its members ("pkg-1.0-cp311-cp311-
 * manylinux_2_17_x86_64.manylinux2014_x86_64.whl!lib/x.so" -> "manylinux_2_17": the first of its platform tags),
 * into tag; 0 when display is no such wheel member. The table holds x86_64 maxima, so other arches are left out. */
static int wheel_tag(const char *display, char *tag, size_t cap)
{
    const char *bang = strstr(display, ".whl!");
    if (!bang)
        return 0;
    const char *plat = bang;
    while (plat > display && plat[-1] != '-' && plat[-1] != '/')
        plat--;
    const char *end = plat;
    while (end < bang && *end != '.')
        end++;
    static const char arch[] = "_x86_64";
    size_t n = (size_t)(end - plat), al = sizeof arch - 1;
    if (n <= al || n - al >= cap || strncmp(plat, "manylinux", 9) != 0 || strncmp(end - al, arch, al) != 0)
        return 0;
    memcpy(tag, plat, n - al);
    tag[n - al] = 0;
    return 1;
}

/* Maxima: explicit config values win over the named policy, which wins over the tag in a wheel's file name.
 * Returns the policy label, or NULL when none. */
static const char *limits(const struct tlck_policy *p, const struct tlck_symbol_versions_table *t,
                          const char *display, const char *max[NPREFIX], int *unknown, const char **row_tag)
{
    *row_tag = NULL;
    const char *tag = p->platform ? p->platform : tl_config_get(p->cfg, "symbol-versions", "policy");
    char claimed[64];
    if (!tag && wheel_tag(display, claimed, sizeof claimed))
        tag = claimed;
    const char *label = NULL;
    *unknown = 0;
    for (int k = 0; k < NPREFIX; k++)
        max[k] = NULL;
    if (tag) {
        size_t i, nrows = t ? t->floors.n : 0;
        for (i = 0; i < nrows && strcasecmp(t->floors.v[i].tag, tag) != 0; i++)
            ;
        if (i < nrows) {
            for (int k = 0; k < NPREFIX; k++)
                max[k] = t->floors.v[i].max[k];
            label = *row_tag = t->floors.v[i].tag;
        } else {
            *unknown = tag != claimed; /* a wheel tag newer than the table: no verdict, not an error */
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

/* What the [symbol-versions] walk carries: the first failure goes to err. */
struct max_check {
    const struct tlck_policy *p;
    tl_error *err;
    int failed;
};

static void check_max(const char *key, const char *value, int line, void *ctx)
{
    struct max_check *c = ctx;
    unsigned v[4];
    char where[1200];
    (void)line;
    int known = strcasecmp(key, "policy") == 0 || strcasecmp(key, "table") == 0 || strcasecmp(key, "blacklist") == 0;
    for (int k = 0; k < NPREFIX; k++)
        known |= strcasecmp(key, keys[k]) == 0;
    if (!known && !c->failed) { /* a misspelt maximum (glibcx) would be no limit at all */
        c->failed = 1;
        tl_config_value_origin(c->p->cfg, "symbol-versions", key, value, where, sizeof where);
        tl_fail(c->err, "%s: [symbol-versions] %s: unknown key; valid: policy, table, blacklist, glibc, glibcxx, cxxabi, gcc", where, key);
        return;
    }
    for (int k = 0; k < NPREFIX && !c->failed; k++)
        if (strcasecmp(key, keys[k]) == 0 && !max_version(k, value, v)) {
            c->failed = 1;
            tl_config_value_origin(c->p->cfg, "symbol-versions", key, value, where, sizeof where);
            tl_fail(c->err, "%s: [symbol-versions] %s = '%s' is not a version; valid: a dotted version such as %s "
                    "or, as objdump prints it, %s%s", where, key, value, examples[k], prefixes[k], examples[k]);
        }
}

/* A maximum this check cannot parse would switch its limit off, so it stops the run instead. Every file entry
 * (also those a later one overrides), then the values in effect (the environment's too). */
static int validate(const struct tlck_policy *p, tl_error *err)
{
    struct max_check c = { p, err, 0 };
    tl_config_each(p->cfg, "symbol-versions", check_max, &c);
    for (int k = 0; k < NPREFIX && !c.failed; k++) {
        const char *v = tl_config_get(p->cfg, "symbol-versions", keys[k]);
        if (v)
            check_max(keys[k], v, 0, &c);
    }
    return c.failed ? -1 : 0;
}

static void release(void *state);

/* Once per audit: the [symbol-versions] values are checked and the policy table is loaded. */
static int prepare(const struct tlck_policy *p, void **state, tl_error *err)
{
    *state = NULL;
    if (validate(p, err) != 0)
        return -1;
    struct tlck_symbol_versions_table *t = calloc(1, sizeof *t);
    if (!t)
        return tl_fail(err, "out of memory loading the platform policy table");
    if (load_table(p, t, err) != 0) {
        release(t);
        return -1;
    }
    /* the blacklist is read where manylinux.tsv is found, or from the configured file, which must be readable */
    const char *bl = tl_config_get(p->cfg, "symbol-versions", "blacklist");
    if (tlck_blacklist_load(&t->blacklist, bl, err) != 0) {
        if (bl) {
            char where[1200], msg[sizeof err->msg];
            tl_config_value_origin(p->cfg, "symbol-versions", "blacklist", bl, where, sizeof where);
            snprintf(msg, sizeof msg, "%s", err->msg);
            tl_fail(err, "%s: [symbol-versions] blacklist: %s", where, msg);
        }
        release(t);
        return -1;
    }
    *state = t;
    return 0;
}

static void release(void *state)
{
    struct tlck_symbol_versions_table *t = state;
    if (t) {
        tlck_blacklist_free(&t->blacklist);
        tlck_floors_free(&t->floors);
    }
    free(t);
}

const struct tlck_blacklist *tlck_symbol_versions_blacklist(const struct tlck_symbol_versions_table *t)
{
    return t ? &t->blacklist : NULL;
}

const struct tlck_floors *tlck_symbol_versions_floors(const struct tlck_symbol_versions_table *t)
{
    return t ? &t->floors : NULL;
}

struct need {
    unsigned best[4];
    const char *best_name, *file;
    int have;
};

static void names_needing(const struct tlck_file *f, int k, const unsigned at_least[4], int strictly_above, char *buf,
                          size_t n, size_t *count)
{
    size_t used = 0;
    *count = 0;
    buf[0] = 0;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        if (s->defined || !s->version || strncmp(s->version, prefixes[k], strlen(prefixes[k])) != 0 ||
            tlck_version_parse(s->version + strlen(prefixes[k]), v) != 0)
            continue;
        int c = cmp_version(v, at_least);
        if (strictly_above ? c <= 0 : c < 0)
            continue;
        if ((*count)++ < 8) {
            char *d = tlck_demangle(s->name);
            int w = snprintf(buf + used, n - used, "%s%s@%s", used ? ", " : "", d, s->version);
            free(d);
            if (w > 0 && (size_t)w < n - used)
                used += (size_t)w;
        }
    }
    if (*count > 8 && used + 32 < n)
        snprintf(buf + used, n - used, " and %zu more", *count - 8);
}

/* Every symbol above the maximum, each a detail of the finding that counts them (whose message names the first
 * eight): listed with --verbose, always in JSON and SARIF, so that no list there ends in "and N more". */
static void list_needing(const struct tlck_file *f, int k, const unsigned lim[4], const char *label, const char *num,
                         struct tlck_findings *out)
{
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        if (s->defined || !s->version || strncmp(s->version, prefixes[k], strlen(prefixes[k])) != 0 ||
            tlck_version_parse(s->version + strlen(prefixes[k]), v) != 0 || cmp_version(v, lim) <= 0)
            continue;
        struct tlck_finding *x = tlck_emit_symbol(out, "symbol-versions", TLCK_SEV_INFO, f->display, s->name, NULL,
                                                  "needs %s (from %s), above %s's %s%s", s->version,
                                                  s->version_file ? s->version_file : "?", label, prefixes[k], num);
        if (x)
            x->detail = 1;
    }
}

/* The symbols at the highest version of a prefix, each a detail of the info finding whose message names eight
 * of them: only when there are more than eight, so that no list ends in "and N more" in JSON. */
static void list_highest(const struct tlck_file *f, int k, const unsigned best[4], size_t count,
                         struct tlck_findings *out)
{
    for (size_t i = 0; count > 8 && i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        if (s->defined || !s->version || strncmp(s->version, prefixes[k], strlen(prefixes[k])) != 0 ||
            tlck_version_parse(s->version + strlen(prefixes[k]), v) != 0 || cmp_version(v, best) != 0)
            continue;
        struct tlck_finding *x = tlck_emit_symbol(out, "symbol-versions", TLCK_SEV_INFO, f->display, s->name, NULL,
                                                  "needs %s (from %s), the highest %s version it needs", s->version,
                                                  s->version_file ? s->version_file : "?", prefixes[k]);
        if (x)
            x->detail = 1;
    }
}

/* One prefix: above the maximum is a finding at sev; otherwise the highest version, as info. A maximum that
 * does not parse (a policy table row; the config's are checked at load) is never reported as met. */
static void judge(const struct tlck_file *f, int k, const struct need *n, const char *max, const char *label,
                  enum tlck_severity sev, struct tlck_findings *out)
{
    char names[1024];
    size_t count;
    unsigned lim[4];
    const char *num = max ? max_version(k, max, lim) : NULL;
    if (max && !num) {
        tlck_emit(out, "symbol-versions", TLCK_SEV_ERROR, f->display, NULL, "write the maximum as a dotted version",
                "the %s maximum '%s' of %s is not a version; needs %s (from %s)", prefixes[k], max, label,
                n->best_name, n->file ? n->file : "?");
    } else if (num && cmp_version(n->best, lim) > 0) {
        names_needing(f, k, lim, 1, names, sizeof names, &count);
        tlck_emit(out, "symbol-versions", sev, f->display, NULL,
                "build on (or for) the oldest platform you support, e.g. inside the manylinux image, or avoid "
                "the newer symbols",
                "needs %s (from %s) but %s allows at most %s%s; %zu symbol(s) need more: %s", n->best_name,
                n->file ? n->file : "?", label, prefixes[k], num, count, names);
        list_needing(f, k, lim, label, num, out);
    } else {
        names_needing(f, k, n->best, 0, names, sizeof names, &count);
        tlck_emit(out, "symbol-versions", TLCK_SEV_INFO, f->display, NULL, NULL,
                "highest %s version needed: %s (from %s), by %s%s%s", prefixes[k], n->best_name,
                n->file ? n->file : "?", names, max ? "; within " : "", max ? label : "");
        list_highest(f, k, n->best, count, out);
    }
}

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    const struct tlck_symbol_versions_table *t = state;
    if (f->elf_type == 1)
        return; /* relocatable objects carry no version references yet */
    const char *max[NPREFIX], *tag;
    int unknown;
    const char *label = limits(p, t, f->display, max, &unknown, &tag);
    if (unknown)
        tlck_emit(out, "symbol-versions", TLCK_SEV_ERROR, f->display, NULL, "use a tag listed in conf/manylinux.tsv",
                "unknown platform policy '%s' (%s%s)",
                p->platform ? p->platform : tl_config_get(p->cfg, "symbol-versions", "policy") ? tl_config_get(p->cfg, "symbol-versions", "policy") : "?",
                t && t->path[0] ? "table: " : "no policy table found", t ? t->path : "");
    struct need need[NPREFIX] = { 0 };
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        unsigned v[4];
        for (int k = 0; k < NPREFIX && !s->defined && s->version; k++) {
            size_t pl = strlen(prefixes[k]);
            if (strncmp(s->version, prefixes[k], pl) != 0 || tlck_version_parse(s->version + pl, v) != 0)
                continue;
            if (!need[k].have || cmp_version(v, need[k].best) > 0) {
                memcpy(need[k].best, v, sizeof v);
                need[k].best_name = s->version;
                need[k].file = s->version_file;
                need[k].have = 1;
            }
        }
    }
    for (int k = 0; k < NPREFIX; k++)
        if (need[k].have)
            judge(f, k, &need[k], max[k], label, sev, out);
    struct tlck_blacklist_hit hit;
    /* auditwheel also tests other members no member needs; which those are is the package's to tell (the verdict
     * does), so a file alone is judged when it is an extension module. The message names no path: fingerprints
     * (baselines) must not depend on where the table is installed. */
    if (!tag || !tlck_python_extension(f) || !tlck_blacklist_hit(&t->blacklist, tag, f, &hit))
        return;
    if (!hit.count)
        tlck_emit(out, "symbol-versions", sev, f->display, NULL, "do not link the library",
                "needs %s, which %s blacklists as a whole (auditwheel's policy data)", hit.lib, tag);
    else
        tlck_emit(out, "symbol-versions", sev, f->display, NULL,
                "stop using the symbol: auditwheel rejects the tag for an extension module that imports it "
                "(the library's internals, or missing from the oldest systems the tag covers)",
                "imports %s from %s, which %s blacklists (auditwheel's policy data); %zu symbol(s) of %s "
                "blacklisted: %s", hit.symbol, hit.lib, tag, hit.count, hit.lib, hit.names);
}

int tlck_symbol_versions_wheel_tag(const char *display, char *tag, size_t cap)
{
    return wheel_tag(display, tag, cap);
}

const char *tlck_symbol_versions_oldest_tag(const struct tlck_file *const *files, size_t n,
                                           const struct tlck_symbol_versions_table *t)
{
    if (!t)
        return NULL;
    struct need need[NPREFIX] = { 0 };
    for (size_t i = 0; i < n; i++) {
        const struct tlck_file *f = files[i];
        if (!f->error && f->machine != 62 /* EM_X86_64 */)
            return NULL; /* the table's maxima are x86_64's (aarch64's differ: manylinux_2_17 allows GLIBC_2.18) */
        for (size_t j = 0; !f->error && f->elf_type != 1 && j < f->ndynsyms; j++) {
            const struct tlck_symbol *s = &f->dynsyms[j];
            unsigned v[4];
            for (int k = 0; k < NPREFIX && !s->defined && s->version; k++) {
                size_t pl = strlen(prefixes[k]);
                if (strncmp(s->version, prefixes[k], pl) == 0 && tlck_version_parse(s->version + pl, v) == 0 &&
                    (!need[k].have || cmp_version(v, need[k].best) > 0)) {
                    memcpy(need[k].best, v, sizeof v);
                    need[k].have = 1;
                }
            }
        }
    }
    const struct tlck_floor *best = NULL;
    unsigned best_glibc[4] = { 0 };
    for (size_t i = 0; i < t->floors.n; i++) {
        const struct tlck_floor *r = &t->floors.v[i];
        unsigned v[4], glibc[4];
        int ok = strncmp(r->tag, "manylinux_", 10) == 0 && max_version(P_GLIBC, r->max[P_GLIBC], glibc);
        for (int k = 0; ok && k < NPREFIX; k++)
            ok = !need[k].have || (max_version(k, r->max[k], v) && cmp_version(need[k].best, v) <= 0);
        if (ok && (!best || cmp_version(glibc, best_glibc) < 0)) {
            best = r;
            memcpy(best_glibc, glibc, sizeof glibc);
        }
    }
    return best ? best->tag : NULL;
}

const struct tlck_check tlck_check_symbol_versions = {
    .id = "symbol-versions",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "version floors",
    .help_uri = "docs/checks/symbol-versions.md",
    .prepare = prepare,
    .release = release,
    .run = run,
};
