#include "trueline/config.h"

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
    e->section = strdup(section);
    e->key = strdup(key);
    e->value = strdup(value ? value : "");
    e->line = line;
    return 1;
}

static int parse_handler(void *user, const char *section, const char *key, const char *value)
{
    /* inih (r55) does not pass line numbers to the handler; record the entry index instead. */
    tl_config *cfg = user;
    return add_entry(user, section, key, value, cfg->n + 1);
}

int tl_config_load_file(tl_config *cfg, const char *path, tl_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tl_fail(err, "%s: cannot open config: %s", path, strerror(errno));
    int rc = ini_parse_file(f, parse_handler, cfg);
    fclose(f);
    if (rc > 0)
        return tl_fail(err, "%s:%d: config syntax error", path, rc);
    if (rc < 0)
        return tl_fail(err, "%s: cannot read config", path);
    free(cfg->path);
    cfg->path = strdup(path);
    return 0;
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
    const char *order[] = { ".trueline.ini", xdg, "/etc/trueline.ini" };
    int rc = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (access(order[i], F_OK) == 0) {
            rc = tl_config_load_file(cfg, order[i], err);
            break;
        }
    free(xdg);
    return rc;
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

const char *tl_config_get(const tl_config *cfg, const char *section, const char *key)
{
    char name[256];
    env_name(name, sizeof name, section, key);
    const char *env = getenv(name);
    if (env)
        return env;
    for (int i = cfg ? cfg->n - 1 : -1; i >= 0; i--)
        if (strcasecmp(cfg->entries[i].section, section) == 0 && strcasecmp(cfg->entries[i].key, key) == 0)
            return cfg->entries[i].value;
    return NULL;
}

const char *tl_config_get_or(const tl_config *cfg, const char *section, const char *key, const char *dflt)
{
    const char *v = tl_config_get(cfg, section, key);
    return v ? v : dflt;
}

int tl_config_bool(const tl_config *cfg, const char *section, const char *key, int dflt)
{
    const char *v = tl_config_get(cfg, section, key);
    if (!v)
        return dflt;
    const char *yes[] = { "1", "true", "yes", "on" }, *no[] = { "0", "false", "no", "off" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
        if (strcasecmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
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
    free(cfg->path);
    memset(cfg, 0, sizeof *cfg);
}
