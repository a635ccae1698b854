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

enum tlck_severity tlck_policy_severity(const struct tlck_policy *p, const char *id, enum tlck_severity dflt)
{
    if (p->only && !listed(p->only, id))
        return TLCK_SEV_NONE;
    const char *v = tl_config_get(p->cfg, "checks", id);
    enum tlck_severity s;
    if (v && tlck_severity_parse(v, &s) == 0)
        return s;
    return dflt;
}

/* "line-tables, dwarf-symbols, ...": what --list-checks shows, for messages about an unknown id. */
static const char *valid_ids(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < tlck_ncheck; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", tlck_checks[i]->id);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    return buf;
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
        for (i = 0; i < tlck_ncheck && !(strlen(tlck_checks[i]->id) == len && strncmp(tlck_checks[i]->id, item, len) == 0);
             i++)
            ;
        if (i == tlck_ncheck)
            return tl_fail(err, "--checks: unknown check '%.*s'; valid ids (--list-checks): %s", (int)len, item,
                           valid_ids(ids, sizeof ids));
    }
    if (nid == 0)
        return tl_fail(err, "--checks: '%s' names no check; valid ids (--list-checks): %s", list,
                       valid_ids(ids, sizeof ids));
    return 0;
}

/* What the [checks] walk carries: the first failure goes to err. */
struct entry_check {
    const struct tlck_policy *p;
    tl_error *err;
    int failed;
};

/* One [checks] entry: the key is a check id (any case, as tl_config_get looks it up), the value a severity. */
static void check_entry(const char *key, const char *value, int line, void *ctx)
{
    struct entry_check *c = ctx;
    char where[1200], ids[512];
    enum tlck_severity s;
    (void)line; /* tl_config_value_origin names the line, or the variable for an environment value */
    if (c->failed)
        return;
    int known = 0;
    for (size_t i = 0; i < tlck_ncheck && !known; i++)
        known = strcasecmp(tlck_checks[i]->id, key) == 0;
    if (known && tlck_severity_parse(value, &s) == 0)
        return;
    c->failed = 1;
    tl_config_value_origin(c->p->cfg, "checks", key, value, where, sizeof where);
    if (!known)
        tl_fail(c->err, "%s: [checks] unknown check '%s'; valid ids (--list-checks): %s", where, key,
                valid_ids(ids, sizeof ids));
    else
        tl_fail(c->err, "%s: [checks] %s = '%s' is not a severity; valid: error, warning, info or off", where, key,
                value);
}

int tlck_policy_validate(const struct tlck_policy *p, tl_error *err)
{
    if (p->only && check_only(p->only, err) != 0)
        return -1;
    struct entry_check c = { p, err, 0 };
    tl_config_each(p->cfg, "checks", check_entry, &c); /* every file entry, also those a later one overrides */
    /* The values in effect, which the environment may override (tl_config_each does not enumerate those). */
    for (size_t i = 0; i < tlck_ncheck && !c.failed; i++) {
        const char *v = tl_config_get(p->cfg, "checks", tlck_checks[i]->id);
        if (v)
            check_entry(tlck_checks[i]->id, v, 0, &c);
    }
    return c.failed ? -1 : 0;
}
