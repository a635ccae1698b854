/* Forced line info must not cost a hit the user had without it.
 *
 * trueline-cc forces -g1 (clang: -gline-tables-only) where the user asked for no debug information, and debug
 * information names the working directory (DW_AT_comp_dir). The caches protect that name, each its own way:
 * - ccache hashes the working directory whenever an option starting with -g is given (its hash_dir setting),
 *   unless a -fdebug-prefix-map / -ffile-prefix-map rewrites it: then it hashes the rewritten directory and
 *   leaves the option's text out ("Compiling in different directories" in ccache's manual). Two checkouts
 *   sharing a cache under CCACHE_BASEDIR, or a build in a fresh temporary directory each time (scikit-build-
 *   core), missed every compile through trueline-cc that bare ccache hit. The fix is ccache's documented one,
 *   -fdebug-prefix-map=CWD=.: the directory hashed is ".", and every object says "." as its compilation
 *   directory, so an object built in one directory is right in another (debuggers resolve "." against where
 *   they run, or a `directory` given them: docs/wrapper.md).
 *   Not -ffile-prefix-map: it also rewrites __FILE__, which is code. nvcc: ccache does not take
 *   -Xcompiler=-g1 for -g and hashes no directory (measured with ccache 4.7: the second checkout hits), while
 *   a per-directory -Xcompiler=-fdebug-prefix-map would be hashed as text and miss: nothing is added.
 * - sccache (0.16) hashes gcc's preprocessed output, and with debug information on gcc writes the working
 *   directory into it (a `# 1 "/dir//"` line marker, -fworking-directory). sccache hashes arguments as text,
 *   so a per-directory prefix map would miss too; -fno-working-directory leaves the marker out and is the same
 *   text in every directory. The object keeps the directory of the compile that filled the cache (measured:
 *   bare sccache with -g1 hits across checkouts with it, misses without). clang writes no such marker.
 *
 * A table, one row per (cache, compiler family): a new cache or family is a row. */
#include "understand/cache_dir.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "strv.h"

enum neutral_kind {
    MAP_CWD,  /* flag CWD=. unless the user maps a prefix of the working directory */
    ADD_FLAG, /* the flag as written unless the user gave one of `settled` */
};

static const char *const prefix_maps[] = { "-fdebug-prefix-map=", "-ffile-prefix-map=", NULL };
static const char *const working_dir[] = { "-fworking-directory", "-fno-working-directory", NULL };

static const struct neutral_rule {
    enum tlcc_cache cache;
    enum tlcc_family family;
    enum neutral_kind kind;
    const char *flag;
    const char *const *settled; /* MAP_CWD: the options whose OLD=NEW value may already map the directory */
} rules[] = {
    { TLCC_CACHE_CCACHE, TLCC_FAM_GCC, MAP_CWD, "-fdebug-prefix-map=", prefix_maps },
    { TLCC_CACHE_CCACHE, TLCC_FAM_CLANG, MAP_CWD, "-fdebug-prefix-map=", prefix_maps },
    { TLCC_CACHE_SCCACHE, TLCC_FAM_GCC, ADD_FLAG, "-fno-working-directory", working_dir },
};

char *tlcc_apparent_cwd(const tlcc_env_snapshot *env)
{
    const char *pwd = env->v[TLCC_EV_PWD];
    struct stat a, b;
    if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return strdup(pwd);
    return getcwd(NULL, 0);
}

/* Whether one of the user's maps (OPT=OLD=NEW) has an OLD that prefixes cwd as ccache compares it (strings). */
static int user_maps(const tlcc_strv *args, const char *const *opts, const char *cwd)
{
    for (int i = 0; i < args->n; i++)
        for (const char *const *o = opts; *o; o++) {
            size_t n = strlen(*o);
            if (strncmp(args->v[i], *o, n) != 0)
                continue;
            const char *old = args->v[i] + n, *eq = strchr(old, '=');
            if (eq && strncmp(cwd, old, (size_t)(eq - old)) == 0)
                return 1;
        }
    return 0;
}

static int user_gave(const tlcc_strv *args, const char *const *opts)
{
    for (int i = 0; i < args->n; i++)
        for (const char *const *o = opts; *o; o++)
            if (strcmp(args->v[i], *o) == 0)
                return 1;
    return 0;
}

static int push_forced(tlcc_invocation *inv, char *flag)
{
    if (!flag)
        return -1;
    tlcc_strv_push(&inv->args, flag);
    tlcc_strv_push_owned(&inv->forced, flag);
    return 0;
}

int tlcc_cache_dir_neutral(tlcc_invocation *inv)
{
    const struct neutral_rule *r = NULL;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (rules[i].cache == inv->cache && rules[i].family == inv->family)
            r = &rules[i];
    if (!r)
        return 0;
    if (r->kind == ADD_FLAG)
        return user_gave(&inv->args, r->settled) ? 0 : push_forced(inv, strdup(r->flag));
    char *cwd = tlcc_apparent_cwd(&inv->ctx->env);
    if (!cwd)
        return 0; /* no directory to map: the cache hashes what it finds, as without trueline-cc's -g */
    int rc = 0;
    if (strchr(cwd, '=')) /* OLD=NEW splits at the first '=': such a directory cannot be mapped */
        tlcc_strv_push(&inv->notes, "the working directory has an '=' in its name: no prefix map added");
    else if (user_maps(&inv->args, r->settled, cwd))
        tlcc_strv_push(&inv->notes, "a prefix map of the working directory is given: none added");
    else
        rc = push_forced(inv, tlcc_concatn(TLCC_S(r->flag), TLCC_S(cwd), TLCC_S("=."), NULL));
    free(cwd);
    return rc;
}
