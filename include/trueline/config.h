/* Configuration: one INI file (inih), found by the documented lookup order, overridden by environment. */
#ifndef TRUELINE_CONFIG_H
#define TRUELINE_CONFIG_H
#include <stddef.h>

#include "trueline/diag.h"

struct tl_config_entry {
    char *section, *key, *value;
    int line; /* the entry's line in the file (1-based) */
    int file; /* index in files */
};

typedef struct tl_config {
    char *path; /* the last file loaded (the most specific), NULL when none was found */
    struct tl_config_entry *entries;
    int n, cap;
    char **files;   /* every file loaded, in load order */
    int *file_repo; /* per file: 1 for ./.trueline.ini, the file the repository being built controls */
    int nfiles;
} tl_config;

/* $TRUELINE_CONFIG alone when set (named explicitly: missing is an error). Otherwise every one of
 * /etc/trueline.ini, $XDG_CONFIG_HOME/trueline/config.ini (~/.config when unset) and ./.trueline.ini that
 * exists, merged in that order: a later file's entry for a key wins over an earlier one's; none is fine.
 * A file that exists but does not parse is an error naming file and line. */
int tl_config_load(tl_config *cfg, tl_error *err);
/* Loads one file (used by the checker's --config and by tests); its entries win over those loaded before. */
int tl_config_load_file(tl_config *cfg, const char *path, tl_error *err);
/* The file an entry was read from. */
const char *tl_config_entry_file(const tl_config *cfg, const struct tl_config_entry *e);
/* Value of section.key: the environment variable TRUELINE_<SECTION>_<KEY> (upper case, '-' and '.'
 * as '_') wins over the file; NULL when neither has it. The last occurrence in the file wins. */
const char *tl_config_get(const tl_config *cfg, const char *section, const char *key);
const char *tl_config_get_or(const tl_config *cfg, const char *section, const char *key, const char *dflt);
/* Boolean: 1/0 for true/yes/on/1 and false/no/off/0; dflt when unset; -1 when set to anything else. */
int tl_config_bool(const tl_config *cfg, const char *section, const char *key, int dflt);
/* The one yes/no parser behind tl_config_bool: 1, 0, or -1 for anything else (NULL included). */
int tl_config_parse_bool(const char *v);
/* Where section.key's value comes from, for messages: the TRUELINE_<SECTION>_<KEY> variable when it is set,
 * else "FILE:LINE" of the file entry in effect, else the file (or "default"). */
void tl_config_origin(const tl_config *cfg, const char *section, const char *key, char *buf, size_t n);
/* Where one value (a string tl_config_get or tl_config_each handed out) came from, for messages: "FILE:LINE" of
 * its entry (also one a later entry overrides), else "environment variable TRUELINE_<SECTION>_<KEY>". */
void tl_config_value_origin(const tl_config *cfg, const char *section, const char *key, const char *value, char *buf,
                            size_t n);
/* tl_config_bool, but a value that is not yes/no is -1 with err: "ORIGIN: [section] key = v: expected ...". */
int tl_config_bool_checked(const tl_config *cfg, const char *section, const char *key, int dflt, tl_error *err);
/* A key with a fixed set of values (valid: NULL-terminated, compared exactly): the value (an element of
 * valid), dflt when unset, or NULL with err naming the origin and the valid values. */
const char *tl_config_enum(const tl_config *cfg, const char *section, const char *key, const char *dflt,
                           const char *const *valid, tl_error *err);
/* The keys one tool knows in one section it owns (keys NULL-terminated); a list ends with { NULL, NULL }. */
struct tl_config_section {
    const char *name;
    const char *const *keys;
};
/* -1 with err "FILE:LINE: [section] key: unknown key (...)" for the first file entry of a listed section
 * whose key is not listed (case-insensitively, as tl_config_get matches); other sections are another
 * tool's and are left alone. Environment variables are not enumerated. */
int tl_config_check_keys(const tl_config *cfg, const struct tl_config_section *known, tl_error *err);
/* Calls fn for each entry of section in file order (environment overrides are not enumerated). */
void tl_config_each(const tl_config *cfg, const char *section,
                    void (*fn)(const char *key, const char *value, int line, void *ctx), void *ctx);
/* A security setting: what the repository's own file (./.trueline.ini) may not loosen. order: its values from
 * loosest to strictest (tl_config_guard_bool for a yes/no key, stricter when on); NULL: a value set outside the
 * repository may not be replaced at all (a key file). A table ends with { NULL }. */
struct tl_config_guard {
    const char *section, *key;
    const char *const *order;
};
extern const char *const tl_config_guard_bool[];
/* -1 with err naming both files and lines when the repository's file, deciding a guarded key, loosens or
 * replaces what /etc, the user's file or $TRUELINE_CONFIG set; the environment's value is the user's own. */
int tl_config_guard(const tl_config *cfg, const struct tl_config_guard *rows, tl_error *err);
void tl_config_free(tl_config *cfg);

#endif
