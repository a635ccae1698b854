/* Variables to set in this process's environment before it runs (or execs) the compile: gathered by the
 * plan, applied at once by the run step. Names are string constants; a value is either one that outlives
 * the list (the invocation's, the plan's) or a copy the list owns, so that a cache hit copies nothing it
 * need not. */
#ifndef TLCC_WRAPPER_ENV_EDITS_H
#define TLCC_WRAPPER_ENV_EDITS_H
#include <stdlib.h>
#include <string.h>

#define TLCC_ENV_EDITS_MAX 16 /* the cache key, the stage's four, the hook's eight */

typedef struct tlcc_env_edits {
    struct {
        const char *name, *value;
        char *owned; /* value, when the list owns it */
    } set[TLCC_ENV_EDITS_MAX];
    int n;
} tlcc_env_edits;

/* value must live as long as the list (NULL: nothing is set). */
static inline void tlcc_env_set(tlcc_env_edits *e, const char *name, const char *value)
{
    if (value && e->n < TLCC_ENV_EDITS_MAX) {
        e->set[e->n].name = name;
        e->set[e->n].value = value;
        e->set[e->n++].owned = NULL;
    }
}

/* Takes value (malloc'ed) itself. */
static inline void tlcc_env_set_owned(tlcc_env_edits *e, const char *name, char *value)
{
    if (value && e->n < TLCC_ENV_EDITS_MAX) {
        tlcc_env_set(e, name, value);
        e->set[e->n - 1].owned = value;
    } else {
        free(value);
    }
}

static inline void tlcc_env_set_copy(tlcc_env_edits *e, const char *name, const char *value)
{
    tlcc_env_set_owned(e, name, value ? strdup(value) : NULL);
}

static inline void tlcc_env_edits_free(tlcc_env_edits *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->set[i].owned);
    e->n = 0;
}

#endif
