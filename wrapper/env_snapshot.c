/* The one reader of the environment in trueline-cc (env_snapshot.h). */
#include "env_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "understand/compiler.h"    /* TLCC_ACTIVE_ENV */
#include "run/depth_guard.h" /* TLCC_DEPTH_ENV */
#include "provenance/line_split.h"  /* TLCC_STAGE_ENV_LINE_STORE */
#include "provenance/stage.h"       /* TLCC_STAGE_ENV_* */

#define NAME(x) { x, sizeof x - 1 }
#define LONGEST 40 /* longer names are none of ours: skipped at once */

static const struct {
    const char *s;
    unsigned char len;
} names[TLCC_EV_N] = {
    [TLCC_EV_COMPILER_PATH] = NAME("COMPILER_PATH"),
    [TLCC_EV_GCC_EXEC_PREFIX] = NAME("GCC_EXEC_PREFIX"),
    [TLCC_EV_CPATH] = NAME("CPATH"),
    [TLCC_EV_C_INCLUDE_PATH] = NAME("C_INCLUDE_PATH"),
    [TLCC_EV_CPLUS_INCLUDE_PATH] = NAME("CPLUS_INCLUDE_PATH"),
    [TLCC_EV_OBJC_INCLUDE_PATH] = NAME("OBJC_INCLUDE_PATH"),
    [TLCC_EV_OBJCPLUS_INCLUDE_PATH] = NAME("OBJCPLUS_INCLUDE_PATH"),
    [TLCC_EV_GCC_COMPARE_DEBUG] = NAME("GCC_COMPARE_DEBUG"),
    [TLCC_EV_DEPENDENCIES_OUTPUT] = NAME("DEPENDENCIES_OUTPUT"),
    [TLCC_EV_SUNPRO_DEPENDENCIES] = NAME("SUNPRO_DEPENDENCIES"),
    [TLCC_EV_SOURCE_DATE_EPOCH] = NAME("SOURCE_DATE_EPOCH"),
    [TLCC_EV_LANG] = NAME("LANG"),
    [TLCC_EV_LC_ALL] = NAME("LC_ALL"),
    [TLCC_EV_LC_CTYPE] = NAME("LC_CTYPE"),
    [TLCC_EV_LC_MESSAGES] = NAME("LC_MESSAGES"),
    [TLCC_EV_CLANG_CONFIG_FILE_SYSTEM_DIR] = NAME("CLANG_CONFIG_FILE_SYSTEM_DIR"),
    [TLCC_EV_CLANG_CONFIG_FILE_USER_DIR] = NAME("CLANG_CONFIG_FILE_USER_DIR"),
    [TLCC_EV_NVCC_CCBIN] = NAME("NVCC_CCBIN"),
    [TLCC_EV_HOME] = NAME("HOME"),
    [TLCC_EV_PATH] = NAME("PATH"),
    [TLCC_EV_PWD] = NAME("PWD"),
    [TLCC_EV_TMPDIR] = NAME("TMPDIR"),
    [TLCC_EV_XDG_CACHE_HOME] = NAME("XDG_CACHE_HOME"),
    [TLCC_EV_XDG_CONFIG_HOME] = NAME("XDG_CONFIG_HOME"),
    [TLCC_EV_LD_LIBRARY_PATH] = NAME("LD_LIBRARY_PATH"),
    [TLCC_EV_LD_PRELOAD] = NAME("LD_PRELOAD"),
    [TLCC_EV_CCACHE_DISABLE] = NAME("CCACHE_DISABLE"),
    [TLCC_EV_CCACHE_COMPILERTYPE] = NAME("CCACHE_COMPILERTYPE"),
    [TLCC_EV_CCACHE_BASEDIR] = NAME("CCACHE_BASEDIR"),
    [TLCC_EV_CCACHE_IGNOREOPTIONS] = NAME("CCACHE_IGNOREOPTIONS"),
    [TLCC_EV_CCACHE_CONFIGPATH] = NAME("CCACHE_CONFIGPATH"),
    [TLCC_EV_CCACHE_DIR] = NAME("CCACHE_DIR"),
    [TLCC_EV_UNCACHED_ERR_FD] = NAME("UNCACHED_ERR_FD"),
    [TLCC_EV_SCCACHE_CONF] = NAME("SCCACHE_CONF"),
    [TLCC_EV_SCCACHE_BASEDIRS] = NAME("SCCACHE_BASEDIRS"),
    [TLCC_EV_CCC_OVERRIDE_OPTIONS] = NAME("CCC_OVERRIDE_OPTIONS"),
    [TLCC_EV_TRUELINE_EXPLAIN] = NAME("TRUELINE_EXPLAIN"),
    [TLCC_EV_TRUELINE_CC_ACTIVE] = NAME(TLCC_ACTIVE_ENV),
    [TLCC_EV_TRUELINE_CC_DEPTH] = NAME(TLCC_DEPTH_ENV),
    [TLCC_EV_TRUELINE_STAGE_REAL] = NAME(TLCC_STAGE_ENV_REAL),
    [TLCC_EV_TRUELINE_STAGE_NOTE] = NAME(TLCC_STAGE_ENV_NOTE),
    [TLCC_EV_TRUELINE_STAGE_KEY_FILE] = NAME(TLCC_STAGE_ENV_KEY_FILE),
    [TLCC_EV_TRUELINE_STAGE_LINE_INFO_STORE] = NAME(TLCC_STAGE_ENV_LINE_STORE),
};

const char *tlcc_env_snapshot_name(enum tlcc_env_var which)
{
    return names[which].s;
}

/* One pass over the environment for every name at once: a getenv per name scanned it once each (40 scans per
 * compile were 19 % of a warm hit's instructions, callgrind). The names are bucketed by length here, on the
 * stack, so that an entry is compared with the few names of its length only. */
void tlcc_env_snapshot_take(tlcc_env_snapshot *s, char *const *envp)
{
    unsigned char start[LONGEST + 2] = { 0 }, order[TLCC_EV_N];
    memset(s, 0, sizeof *s);
    for (int i = 0; i < TLCC_EV_N; i++)
        start[names[i].len + 1]++;
    for (int l = 1; l < LONGEST + 2; l++)
        start[l] += start[l - 1];
    unsigned char fill[LONGEST + 1];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < TLCC_EV_N; i++)
        order[fill[names[i].len]++] = (unsigned char)i;
    size_t n = 0;
    for (char *const *e = envp; e && *e; e++, n++) {
        size_t nl = (size_t)(strchrnul(*e, '=') - *e);
        if (nl > LONGEST || !(*e)[nl])
            continue;
        for (int k = start[nl]; k < start[nl + 1]; k++) {
            int i = order[k];
            if (!s->v[i] && memcmp(*e, names[i].s, nl) == 0) {
                s->v[i] = *e + nl + 1;
                break;
            }
        }
    }
    /* the array, not the strings: setenv replaces an entry of the array it finds in place */
    if ((s->all = malloc((n + 1) * sizeof *s->all)))
        memcpy(s->all, envp, (n + 1) * sizeof *s->all);
}

void tlcc_env_snapshot_free(tlcc_env_snapshot *s)
{
    free(s->all);
    for (int i = 0; i < s->nput; i++)
        free(s->put[i].value);
    memset(s, 0, sizeof *s);
}

const char *tlcc_env_snapshot_get(const tlcc_env_snapshot *s, const char *name)
{
    size_t nl = strlen(name);
    for (int i = 0; i < s->nput; i++) /* what this run set is what the children see */
        if (strcmp(names[s->put[i].which].s, name) == 0)
            return s->put[i].value;
    for (char **e = s->all; e && *e; e++)
        if (strncmp(*e, name, nl) == 0 && (*e)[nl] == '=')
            return *e + nl + 1;
    return NULL;
}

int tlcc_env_snapshot_put(tlcc_env_snapshot *s, enum tlcc_env_var which, const char *value)
{
    int k = 0;
    while (k < s->nput && s->put[k].which != (int)which)
        k++;
    char *copy = k < 4 ? strdup(value) : NULL;
    if (!copy || setenv(names[which].s, value, 1) != 0) {
        free(copy);
        return -1;
    }
    if (k == s->nput)
        s->put[s->nput++].which = (int)which;
    else
        free(s->put[k].value);
    s->put[k].value = copy;
    s->v[which] = copy;
    return 0;
}
