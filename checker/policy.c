#include "policy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "checks/checks.h"

/* One item of a comma-separated id list, blanks around it trimmed: "line-tables, stl-leak" is two ids (a
 * space after the comma is how people write lists). Returns where the next item starts, NULL after the last. */
static const char *next_id(const char *p, const char **id, size_t *len)
{
    const char *e = p + strcspn(p, ","), *b = p, *t = e;
    while (b < t && isspace((unsigned char)*b))
        b++;
    while (t > b && isspace((unsigned char)t[-1]))
        t--;
    *id = b;
    *len = (size_t)(t - b);
    return *e ? e + 1 : NULL;
}

static int listed(const char *list, const char *id)
{
    size_t n = strlen(id), len;
    const char *item;
    for (const char *p = list; p;) {
        p = next_id(p, &item, &len);
        if (len == n && strncmp(item, id, n) == 0)
            return 1;
    }
    return 0;
}

enum tl_severity tl_policy_severity(const struct tl_policy *p, const char *id, enum tl_severity dflt)
{
    if (p->only && !listed(p->only, id))
        return TL_SEV_NONE;
    const char *v = tl_config_get(p->cfg, "checks", id);
    enum tl_severity s;
    if (v && tl_severity_parse(v, &s) == 0)
        return s;
    return dflt;
}

/* "line-tables, dwarf-symbols, ...": what --list-checks shows, for messages about an unknown id. */
static const char *valid_ids(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < tl_ncheck; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", tl_checks[i]->id);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    return buf;
}

/* The config file's line of entry idx (its place in cfg->entries, file order). lib/config.c cannot record lines
 * (inih r55 does not pass them to its handler), so the file is read again the way inih r55 reads it: 200-byte
 * fgets (INI_MAX_LINE), ';'/'#' comment lines, '[section]' lines, and an indented line after an entry being one
 * more entry (a continuation). 0 when the file does not agree (its key differs): the message then names no line. */
static int file_line(const tl_config *cfg, int idx)
{
    FILE *f = cfg->path ? fopen(cfg->path, "r") : NULL;
    char buf[200], key[200] = "";
    int lineno = 0, entry = -1, at_start = 1;
    if (!f)
        return 0;
    while (entry < idx && fgets(buf, sizeof buf, f)) {
        char *s = buf;
        lineno += at_start; /* a line longer than the buffer comes in pieces, as it does to inih */
        at_start = strchr(buf, '\n') != NULL;
        if (lineno == 1 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3;
        char *start = s;
        while (isspace((unsigned char)*start))
            start++;
        if (!*start || *start == ';' || *start == '#')
            continue;
        if (*key && start > s) { /* continuation of the previous entry */
            entry++;
            continue;
        }
        if (*start == '[') {
            key[0] = 0;
            continue;
        }
        size_t kl = strcspn(start, "=:");
        while (kl && isspace((unsigned char)start[kl - 1]))
            kl--;
        snprintf(key, sizeof key, "%.*s", (int)kl, start);
        entry++;
    }
    fclose(f);
    return entry == idx && strcasecmp(key, cfg->entries[idx].key) == 0 ? lineno : 0;
}

void tl_policy_value_origin(const struct tl_policy *p, const char *section, const char *key, const char *value,
                            char *buf, size_t n)
{
    const tl_config *cfg = p->cfg;
    /* tl_config_get and tl_config_each hand out the entry's own string: identity finds the entry. */
    for (int i = 0; cfg && i < cfg->n; i++)
        if (cfg->entries[i].value == value) {
            int line = file_line(cfg, i);
            const char *path = cfg->path ? cfg->path : "config";
            if (line > 0)
                snprintf(buf, n, "%s:%d", path, line);
            else
                snprintf(buf, n, "%s", path);
            return;
        }
    /* Otherwise the environment override, TRUELINE_<SECTION>_<KEY> as lib/config.c spells it. */
    size_t o = (size_t)snprintf(buf, n, "environment variable TRUELINE_");
    for (const char *parts[2] = { section, key }, **q = parts; q < parts + 2; q++) {
        for (const char *c = *q; *c && o + 2 < n; c++)
            buf[o++] = *c == '-' || *c == '.' ? '_' : (char)toupper((unsigned char)*c);
        if (q == parts && o + 2 < n)
            buf[o++] = '_';
    }
    buf[o < n ? o : n - 1] = 0;
}

static int check_only(const char *list, tl_error *err)
{
    char ids[512];
    size_t len, nid = 0;
    const char *item;
    for (const char *p = list; p;) {
        p = next_id(p, &item, &len);
        if (len == 0)
            continue; /* "a,,b" and a trailing comma: nothing asked, nothing wrong */
        nid++;
        size_t i;
        for (i = 0; i < tl_ncheck && !(strlen(tl_checks[i]->id) == len && strncmp(tl_checks[i]->id, item, len) == 0);
             i++)
            ;
        if (i == tl_ncheck)
            return tl_fail(err, "--checks: unknown check '%.*s'; valid ids (--list-checks): %s", (int)len, item,
                           valid_ids(ids, sizeof ids));
    }
    if (nid == 0)
        return tl_fail(err, "--checks: '%s' names no check; valid ids (--list-checks): %s", list,
                       valid_ids(ids, sizeof ids));
    return 0;
}

/* One [checks] entry: the key is a check id (any case, as tl_config_get looks it up), the value a severity. */
static void check_entry(const char *key, const char *value, int line, void *ctx)
{
    struct tl_policy_check *c = ctx;
    char where[1200], ids[512];
    enum tl_severity s;
    (void)line; /* an entry index, not a line: tl_policy_value_origin finds the line */
    if (c->failed)
        return;
    int known = 0;
    for (size_t i = 0; i < tl_ncheck && !known; i++)
        known = strcasecmp(tl_checks[i]->id, key) == 0;
    if (known && tl_severity_parse(value, &s) == 0)
        return;
    c->failed = 1;
    tl_policy_value_origin(c->p, "checks", key, value, where, sizeof where);
    if (!known)
        tl_fail(c->err, "%s: [checks] unknown check '%s'; valid ids (--list-checks): %s", where, key,
                valid_ids(ids, sizeof ids));
    else
        tl_fail(c->err, "%s: [checks] %s = '%s' is not a severity; valid: error, warning, info or off", where, key,
                value);
}

int tl_policy_validate(const struct tl_policy *p, tl_error *err)
{
    if (p->only && check_only(p->only, err) != 0)
        return -1;
    struct tl_policy_check c = { p, err, 0 };
    tl_config_each(p->cfg, "checks", check_entry, &c); /* every file entry, also those a later one overrides */
    /* The values in effect, which the environment may override (tl_config_each does not enumerate those). */
    for (size_t i = 0; i < tl_ncheck && !c.failed; i++) {
        const char *v = tl_config_get(p->cfg, "checks", tl_checks[i]->id);
        if (v)
            check_entry(tl_checks[i]->id, v, 0, &c);
    }
    if (c.failed)
        return -1;
    return tl_symbol_versions_validate(p, err);
}
