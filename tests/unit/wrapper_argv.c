/* Pure functions of the wrapper's effective-argv stage: nvcc's splits, clang's override edits, the
 * -g classification. The expectations come from the real tools (see docs/wrapper.md, "Verified"). */
#include "../../wrapper/argv.h"
#include "../../wrapper/force.h"
#include "unit.h"

#include <stdlib.h>

static char *joined(const tl_strv *v)
{
    static char buf[1024];
    buf[0] = 0;
    for (int i = 0; i < v->n; i++) {
        strcat(buf, "[");
        strcat(buf, v->v[i]);
        strcat(buf, "]");
    }
    return buf;
}

static void env_split(void)
{
    tl_strv v = { 0 };
    UNIT_CHECK("env split accepts quotes", tl_nvcc_env_split("  -DA=\"x y\"\t-DC=\"p q\"r  -lineinfo ", &v) == 0);
    UNIT_STREQ("env split keeps double quotes in the word", joined(&v), "[-DA=\"x y\"][-DC=\"p q\"r][-lineinfo]");
    tl_strv_free(&v);
    tl_nvcc_env_split("-DA='x y'", &v);
    UNIT_STREQ("env split: single quotes do not group", joined(&v), "[-DA='x][y']");
    tl_strv_free(&v);
    UNIT_CHECK("env split refuses a backslash", tl_nvcc_env_split("-DA=x\\ y", &v) == -1 && v.n == 0);
    UNIT_CHECK("env split of blanks is empty", tl_nvcc_env_split(" \t ", &v) == 0 && v.n == 0);
}

static void optf_split(void)
{
    tl_strv v = { 0 };
    tl_nvcc_optf_split("-DA=\"x y\" -DC=\"p q\"r\n-DB=p\\ q -DS='a b'", &v);
    UNIT_STREQ("optf split removes quotes, honours backslash", joined(&v), "[-DA=x y][-DC=p qr][-DB=p q][-DS='a][b']");
    tl_strv_free(&v);
}

static char *ccc(const char *script, const char *const *args)
{
    tl_strv v = { 0 };
    tl_strv_push(&v, "clang");
    for (; *args; args++)
        tl_strv_push(&v, *args);
    tl_ccc_override(&v, script, NULL);
    char *r = strdup(joined(&v));
    tl_strv_free(&v);
    return r;
}

static void ccc_edits(void)
{
    const char *a[] = { "-O1", "-Wall", "-include", "x.h", "-DX=1", "-Os", "-c", "a.c", NULL };
    char *r = ccc("^-DFIRST +-DLAST", a);
    UNIT_STREQ("^ prepends after argv[0], + appends", r, "[clang][-DFIRST][-O1][-Wall][-include][x.h][-DX=1][-Os][-c][a.c][-DLAST]");
    free(r);
    r = ccc("x-Wall X-include", a);
    UNIT_STREQ("x deletes, X deletes with value", r, "[clang][-O1][-DX=1][-Os][-c][a.c]");
    free(r);
    r = ccc("O3", a);
    UNIT_STREQ("O replaces every -O", r, "[clang][-Wall][-include][x.h][-DX=1][-c][a.c][-O3]");
    free(r);
    r = ccc("s/X=([0-9])/Y=\\1\\1/", a);
    UNIT_STREQ("s/// rewrites with back-references", r, "[clang][-O1][-Wall][-include][x.h][-DY=11][-Os][-c][a.c]");
    free(r);
    r = ccc("#  +-g  bogus", a);
    UNIT_STREQ("# silences, empty edits skipped, unknown edits ignored", r,
               "[clang][-O1][-Wall][-include][x.h][-DX=1][-Os][-c][a.c][-g]");
    free(r);
}

static void debug_flags(void)
{
    UNIT_CHECK("-g turns debug on", tl_is_debug_on("-g") && tl_is_debug_on("-g1") && tl_is_debug_on("-ggdb3") &&
                                         tl_is_debug_on("-gdwarf-4") && tl_is_debug_on("-gline-tables-only"));
    UNIT_CHECK("-g0 and neutral -g options do not", !tl_is_debug_on("-g0") && !tl_is_debug_on("-gz") &&
                                                         !tl_is_debug_on("-gsplit-dwarf") && !tl_is_debug_on("-gno-column-info") &&
                                                         tl_is_debug_off("-g0"));
}

int main(void)
{
    env_split();
    optf_split();
    ccc_edits();
    debug_flags();
    UNIT_EXIT();
}
