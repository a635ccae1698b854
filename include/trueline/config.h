/* Configuration: one INI file (inih), found by the documented lookup order, overridden by environment. */
#ifndef TRUELINE_CONFIG_H
#define TRUELINE_CONFIG_H
#include "trueline/diag.h"

struct tl_config_entry {
    char *section, *key, *value;
    int line;
};

typedef struct tl_config {
    char *path; /* the file that was loaded, NULL when none was found */
    struct tl_config_entry *entries;
    int n, cap;
} tl_config;

/* Lookup order: $TRUELINE_CONFIG, ./.trueline.ini, $XDG_CONFIG_HOME/trueline/config.ini
 * (~/.config when unset), /etc/trueline.ini. The first that exists is loaded; none is fine.
 * A file that exists but does not parse is an error naming file and line. */
int tl_config_load(tl_config *cfg, tl_error *err);
/* Loads one file (used by the checker's --config and by tests). */
int tl_config_load_file(tl_config *cfg, const char *path, tl_error *err);
/* Value of section.key: the environment variable TRUELINE_<SECTION>_<KEY> (upper case, '-' and '.'
 * as '_') wins over the file; NULL when neither has it. The last occurrence in the file wins. */
const char *tl_config_get(const tl_config *cfg, const char *section, const char *key);
const char *tl_config_get_or(const tl_config *cfg, const char *section, const char *key, const char *dflt);
/* Boolean: 1/0 for true/yes/on/1 and false/no/off/0; dflt when unset; -1 when set to anything else. */
int tl_config_bool(const tl_config *cfg, const char *section, const char *key, int dflt);
/* Calls fn for each entry of section in file order (environment overrides are not enumerated). */
void tl_config_each(const tl_config *cfg, const char *section,
                    void (*fn)(const char *key, const char *value, int line, void *ctx), void *ctx);
void tl_config_free(tl_config *cfg);

#endif
