/* What the repository's own configuration file may not do to a setting made outside it (tl_config_guard).
 * The files are merged (config.c), the repository's last; a row of the caller's table names a security setting
 * and which way is stricter. A file the repository controls may tighten such a setting, never loosen or replace
 * it: a `.trueline.ini` dropping the provenance key would otherwise serve a forged cache entry again. */
#include "trueline/config.h"

#include <string.h>
#include <strings.h>

const char *const tl_config_guard_bool[] = { "false", "true", NULL };

static const struct tl_config_entry *last_entry(const tl_config *cfg, const char *section, const char *key, int repo)
{
    for (int i = cfg->n - 1; i >= 0; i--) {
        const struct tl_config_entry *e = &cfg->entries[i];
        int from_repo = e->file >= 0 && e->file < cfg->nfiles && cfg->file_repo[e->file];
        if ((repo < 0 || from_repo == repo) && strcasecmp(e->section, section) == 0 && strcasecmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

/* A value's place from loosest (0) to strictest; -1 when unknown (the key's own validation reports it). */
static int rank(const char *const *order, const char *v)
{
    if (order == tl_config_guard_bool)
        return tl_config_parse_bool(v);
    for (int i = 0; order[i]; i++)
        if (strcmp(order[i], v) == 0)
            return i;
    return -1;
}

int tl_config_guard(const tl_config *cfg, const struct tl_config_guard *rows, tl_error *err)
{
    for (const struct tl_config_guard *g = rows; cfg && g->section; g++) {
        const struct tl_config_entry *eff = last_entry(cfg, g->section, g->key, -1);
        if (!eff || !cfg->file_repo[eff->file] || tl_config_get(cfg, g->section, g->key) != eff->value)
            continue; /* not the repository's file that decides (another file, or the environment) */
        const struct tl_config_entry *set = last_entry(cfg, g->section, g->key, 0);
        if (!set)
            continue; /* nothing set outside the repository: its value only adds */
        int looser = g->order ? rank(g->order, eff->value) >= 0 && rank(g->order, set->value) >= 0 &&
                                    rank(g->order, eff->value) < rank(g->order, set->value)
                              : strcmp(eff->value, set->value) != 0;
        if (looser)
            return tl_fail(err,
                           "%s:%d: [%s] %s = %s would %s the setting of %s:%d (%s = %s): a security setting a "
                           "repository's own configuration may tighten, never loosen; remove the line, or change "
                           "the setting in %s",
                           tl_config_entry_file(cfg, eff), eff->line, g->section, g->key, eff->value,
                           g->order ? "loosen" : "replace", tl_config_entry_file(cfg, set), set->line, g->key,
                           set->value, tl_config_entry_file(cfg, set));
    }
    return 0;
}
