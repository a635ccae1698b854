#include "trueline/config.h"
#include "trueline/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int add_entry(void *user, const char *section, const char *key, const char *value, int line)
{
    tl_config *cfg = user;
    if (cfg->n == cfg->cap) {
        int cap = cfg->cap ? cfg->cap * 2 : 32;
        struct tl_config_entry *e = realloc(cfg->entries, (size_t)cap * sizeof *e);
        if (!e)
            return 0;
        cfg->entries = e;
        cfg->cap = cap;
    }
    struct tl_config_entry *e = &cfg->entries[cfg->n++];
    e->file = cfg->nfiles - 1; /* the file being parsed, registered by tl_config_load_file */
    e->section = strdup(section);
    e->key = strdup(key);
    e->value = strdup(value ? value : "");
    e->line = line;
    return 1;
}

/* inih as Debian builds it (r55, INI_HANDLER_LINENO 0) does not pass line numbers to the handler, so the
 * reader counts them: the handler runs right after the line it parses was read. A line longer than inih's
 * buffer comes in pieces; only a piece that starts a line counts. */
struct parse_ctx {
    tl_config *cfg;
    FILE *f;
    int line, at_start;
};

static char *read_line(char *str, int num, void *stream)
{
    struct parse_ctx *p = stream;
    char *s = fgets(str, num, p->f);
    if (s) {
        size_t n = strlen(s);
        p->line += p->at_start;
        p->at_start = n && s[n - 1] == '\n';
    }
    return s;
}

static int parse_handler(void *user, const char *section, const char *key, const char *value)
{
    struct parse_ctx *p = user;
    return add_entry(p->cfg, section, key, value, p->line);
}

/* Registers path as the file whose entries come next (repo: a file the repository controls). */
static int add_file(tl_config *cfg, const char *path, int repo)
{
    char **f = realloc(cfg->files, (size_t)(cfg->nfiles + 1) * sizeof *f);
    int *r = f ? realloc(cfg->file_repo, (size_t)(cfg->nfiles + 1) * sizeof *r) : NULL;
    if (f)
        cfg->files = f;
    if (!r || !(f[cfg->nfiles] = strdup(path)))
        return -1;
    cfg->file_repo = r;
    r[cfg->nfiles++] = repo;
    return 0;
}

static int load_one(tl_config *cfg, const char *path, int repo, tl_error *err)
{
    /* a configuration file is small: 1 MiB bounds a mistake such as naming a log or a core */
    tl_error why = { 0 };
    int fd = tl_open_regular(path, 1u << 20, &why);
    if (fd < 0)
        return tl_fail(err, "config file %s", why.msg);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return tl_fail(err, "%s: cannot open config: %s", path, strerror(errno));
    }
    if (add_file(cfg, path, repo) != 0) {
        fclose(f);
        return tl_fail(err, "out of memory");
    }
    struct parse_ctx p = { cfg, f, 0, 1 };
    int rc = ini_parse_stream(read_line, &p, parse_handler, &p);
    fclose(f);
    if (rc > 0)
        return tl_fail(err, "%s:%d: config syntax error", path, rc);
    if (rc < 0)
        return tl_fail(err, "%s: cannot read config", path);
    free(cfg->path);
    cfg->path = strdup(path);
    return 0;
}

int tl_config_load_file(tl_config *cfg, const char *path, tl_error *err)
{
    return load_one(cfg, path, 0, err);
}

int tl_config_load(tl_config *cfg, tl_error *err)
{
    const char *env = getenv("TRUELINE_CONFIG");
    if (env && *env)
        return tl_config_load_file(cfg, env, err); /* named explicitly: missing is an error */
    const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    const char *base = x && *x ? x : home ? home : "/nonexistent";
    const char *rest = x && *x ? "/trueline/config.ini" : "/.config/trueline/config.ini";
    /* on the heap: trueline-cc loads this on every compile, and a 4 KiB stack buffer is a page fault */
    size_t bl = strlen(base), rl = strlen(rest);
    char *xdg = malloc(bl + rl + 1);
    if (!xdg)
        return tl_fail(err, "out of memory");
    memcpy(xdg, base, bl);
    memcpy(xdg + bl, rest, rl + 1);
    /* Merged, least specific first, so a later file's entry wins (tl_config_get reads the last): a file read
     * alone used to drop every setting of the others, the provenance key among them (tl_config_guard says what
     * the repository's own file may not loosen). */
    const char *order[] = { "/etc/trueline.ini", xdg, ".trueline.ini" };
    int rc = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order && rc == 0; i++)
        if (access(order[i], F_OK) == 0)
            rc = load_one(cfg, order[i], i == 2, err);
    free(xdg);
    return rc;
}

const char *tl_config_entry_file(const tl_config *cfg, const struct tl_config_entry *e)
{
    return e->file >= 0 && e->file < cfg->nfiles ? cfg->files[e->file] : "config";
}

/* TRUELINE_<SECTION>_<KEY>, upper case, '-' and '.' as '_'. By hand: it runs for every key looked up
 * on a warm hit, and snprintf made it the costliest part of a lookup. */
static void env_name(char *out, size_t n, const char *section, const char *key)
{
    static const char prefix[] = "TRUELINE_";
    size_t o = sizeof prefix - 1;
    memcpy(out, prefix, o);
    for (const char *parts[2] = { section, key }, **p = parts; p < parts + 2; p++) {
        for (const char *c = *p; *c && o + 2 < n; c++)
            out[o++] = *c == '-' || *c == '.' ? '_' : *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
        if (p == parts && o + 2 < n)
            out[o++] = '_';
    }
    out[o] = 0;
}

/* The file entry in effect for section.key (the last one, as tl_config_get reads it), or NULL. */
static const struct tl_config_entry *entry_of(const tl_config *cfg, const char *section, const char *key)
{
    for (int i = cfg ? cfg->n - 1 : -1; i >= 0; i--)
        if (strcasecmp(cfg->entries[i].section, section) == 0 && strcasecmp(cfg->entries[i].key, key) == 0)
            return &cfg->entries[i];
    return NULL;
}

const char *tl_config_get(const tl_config *cfg, const char *section, const char *key)
{
    char name[256];
    env_name(name, sizeof name, section, key);
    const char *env = getenv(name);
    if (env)
        return env;
    const struct tl_config_entry *e = entry_of(cfg, section, key);
    return e ? e->value : NULL;
}

const char *tl_config_get_or(const tl_config *cfg, const char *section, const char *key, const char *dflt)
{
    const char *v = tl_config_get(cfg, section, key);
    return v ? v : dflt;
}

int tl_config_parse_bool(const char *v)
{
    const char *yes[] = { "1", "true", "yes", "on" }, *no[] = { "0", "false", "no", "off" };
    for (int i = 0; v && i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
        if (strcasecmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

int tl_config_bool(const tl_config *cfg, const char *section, const char *key, int dflt)
{
    const char *v = tl_config_get(cfg, section, key);
    return v ? tl_config_parse_bool(v) : dflt;
}

void tl_config_origin(const tl_config *cfg, const char *section, const char *key, char *buf, size_t n)
{
    char name[256];
    env_name(name, sizeof name, section, key);
    const struct tl_config_entry *e = entry_of(cfg, section, key);
    if (getenv(name))
        snprintf(buf, n, "%s", name);
    else if (e && e->file >= 0 && e->file < cfg->nfiles)
        snprintf(buf, n, "%s:%d", cfg->files[e->file], e->line);
    else
        snprintf(buf, n, "%s", cfg && cfg->path ? cfg->path : "default");
}

void tl_config_value_origin(const tl_config *cfg, const char *section, const char *key, const char *value, char *buf,
                            size_t n)
{
    /* tl_config_get and tl_config_each hand out the entry's own string: identity finds the entry, also one a
     * later entry overrides */
    for (int i = 0; cfg && i < cfg->n; i++)
        if (cfg->entries[i].value == value) {
            snprintf(buf, n, "%s:%d", tl_config_entry_file(cfg, &cfg->entries[i]), cfg->entries[i].line);
            return;
        }
    char name[256]; /* otherwise the environment's override */
    env_name(name, sizeof name, section, key);
    snprintf(buf, n, "environment variable %s", name);
}

/* "a, b or c" for messages. */
static void join_valid(const char *const *valid, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; valid[i] && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i == 0 ? "" : valid[i + 1] ? ", " : " or ", valid[i]);
}

static int bad_value(const tl_config *cfg, const char *section, const char *key, const char *v, const char *valid,
                     tl_error *err)
{
    char where[300];
    tl_config_origin(cfg, section, key, where, sizeof where);
    return tl_fail(err, "%s: [%s] %s = %s: expected %s", where, section, key, v, valid);
}

int tl_config_bool_checked(const tl_config *cfg, const char *section, const char *key, int dflt, tl_error *err)
{
    const char *v = tl_config_get(cfg, section, key);
    int b = v ? tl_config_parse_bool(v) : dflt;
    if (b < 0)
        return bad_value(cfg, section, key, v, "true or false (also 1/0, yes/no, on/off)", err);
    return b;
}

const char *tl_config_enum(const tl_config *cfg, const char *section, const char *key, const char *dflt,
                           const char *const *valid, tl_error *err)
{
    const char *v = tl_config_get(cfg, section, key);
    if (!v)
        return dflt;
    for (int i = 0; valid[i]; i++)
        if (strcmp(v, valid[i]) == 0)
            return valid[i];
    char list[256];
    join_valid(valid, list, sizeof list);
    bad_value(cfg, section, key, v, list, err);
    return NULL;
}

/* Only file entries can be unknown keys: looking for unknown TRUELINE_* variables would mean a scan of the
 * whole environment on every compile. */
int tl_config_check_keys(const tl_config *cfg, const struct tl_config_section *known, tl_error *err)
{
    for (int i = 0; cfg && i < cfg->n; i++) {
        const struct tl_config_entry *e = &cfg->entries[i];
        const struct tl_config_section *s = known;
        while (s->name && strcasecmp(s->name, e->section) != 0)
            s++;
        if (!s->name)
            continue; /* another tool's section (the checker's [checks], ...): not ours to judge */
        int k = 0;
        while (s->keys[k] && strcasecmp(s->keys[k], e->key) != 0)
            k++;
        if (s->keys[k])
            continue;
        char list[256];
        size_t o = 0;
        list[0] = 0;
        for (int j = 0; s->keys[j] && o < sizeof list; j++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", j ? ", " : "", s->keys[j]);
        return tl_fail(err, "%s:%d: [%s] %s: unknown key (the keys of [%s]: %s)", tl_config_entry_file(cfg, e),
                       e->line, e->section, e->key, s->name, list);
    }
    return 0;
}

void tl_config_each(const tl_config *cfg, const char *section,
                    void (*fn)(const char *key, const char *value, int line, void *ctx), void *ctx)
{
    for (int i = 0; cfg && i < cfg->n; i++)
        if (strcasecmp(cfg->entries[i].section, section) == 0)
            fn(cfg->entries[i].key, cfg->entries[i].value, cfg->entries[i].line, ctx);
}

void tl_config_free(tl_config *cfg)
{
    for (int i = 0; i < cfg->n; i++) {
        free(cfg->entries[i].section);
        free(cfg->entries[i].key);
        free(cfg->entries[i].value);
    }
    free(cfg->entries);
    for (int i = 0; i < cfg->nfiles; i++)
        free(cfg->files[i]);
    free(cfg->files);
    free(cfg->file_repo);
    free(cfg->path);
    memset(cfg, 0, sizeof *cfg);
}
