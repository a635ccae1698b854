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
    r = ccc("s/-O1+*/-O9/ s/-Os{300}/-O8/ s/-O1+/-O7/", a);
    UNIT_STREQ("s/// with a quantified quantifier or a bound over 255 is ignored, as clang -### shows", r,
               "[clang][-O7][-Wall][-include][x.h][-DX=1][-Os][-c][a.c]");
    free(r);
    r = ccc("#  +-g  bogus", a);
    UNIT_STREQ("# silences, empty edits skipped, unknown edits ignored", r,
               "[clang][-O1][-Wall][-include][x.h][-DX=1][-Os][-c][a.c][-g]");
    free(r);
}

/* A command line grown by response files (CMake writes them for long link lines) with deletions on top: the
 * edits must be one pass each (fuzz/targets/argv.c timed out on the per-argument memmove version). */
static void ccc_long_command_line(void)
{
    enum { N = 200000 };
    static const char *const pattern[] = { "a", "-O2", "b", "v", "keep" };
    tl_strv v = { 0 };
    tl_strv_push(&v, "clang");
    for (int i = 0; i < N; i++)
        tl_strv_push(&v, pattern[i % 5]);
    tl_ccc_override(&v, "xa Xb O1", NULL);
    int keep = 0, other = 0;
    for (int i = 1; i < v.n; i++) {
        if (strcmp(v.v[i], "keep") == 0)
            keep++;
        else
            other++;
    }
    UNIT_CHECK("x, X (with its value) and O applied to every one of 200000 arguments",
               v.n == 1 + N / 5 + 1 && keep == N / 5 && other == 1 && strcmp(v.v[v.n - 1], "-O1") == 0 && !v.v[v.n]);
    tl_strv ins = { 0 };
    for (int i = 0; i < N; i++)
        tl_strv_push(&ins, "w");
    tl_strv_splice(&v, 1, 2, &ins);
    UNIT_CHECK("splice replaces a range by 200000 words in one move",
               v.n == 1 + N / 5 + 1 - 2 + N && strcmp(v.v[N], "w") == 0 && strcmp(v.v[N + 1], "keep") == 0 &&
                   strcmp(v.v[v.n - 1], "-O1") == 0 && !v.v[v.n]);
    tl_strv_free(&ins);
    tl_strv_free(&v);
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
    ccc_long_command_line();
    debug_flags();
    UNIT_EXIT();
}
