/* Pure functions of the wrapper's effective-argv stage: nvcc's splits, clang's override edits, the
 * -g classification. The expectations come from the real tools (see docs/wrapper.md, "Verified"). */
#include "../../wrapper/understand/argv.h"
#include "../../wrapper/context.h"
#include "../../wrapper/understand/force.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *joined(const tlcc_strv *v)
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
    tlcc_strv v = { 0 };
    UNIT_CHECK("env split accepts quotes", tlcc_nvcc_env_split("  -DA=\"x y\"\t-DC=\"p q\"r  -lineinfo ", &v) == 0);
    UNIT_STREQ("env split keeps double quotes in the word", joined(&v), "[-DA=\"x y\"][-DC=\"p q\"r][-lineinfo]");
    tlcc_strv_free(&v);
    tlcc_nvcc_env_split("-DA='x y'", &v);
    UNIT_STREQ("env split: single quotes do not group", joined(&v), "[-DA='x][y']");
    tlcc_strv_free(&v);
    UNIT_CHECK("env split refuses a backslash", tlcc_nvcc_env_split("-DA=x\\ y", &v) == -1 && v.n == 0);
    UNIT_CHECK("env split of blanks is empty", tlcc_nvcc_env_split(" \t ", &v) == 0 && v.n == 0);
}

static void optf_split(void)
{
    tlcc_strv v = { 0 };
    tlcc_nvcc_optf_split("-DA=\"x y\" -DC=\"p q\"r\n-DB=p\\ q -DS='a b'", &v);
    UNIT_STREQ("optf split removes quotes, honours backslash", joined(&v), "[-DA=x y][-DC=p qr][-DB=p q][-DS='a][b']");
    tlcc_strv_free(&v);
}

static char *ccc(const char *script, const char *const *args)
{
    tlcc_strv v = { 0 };
    tlcc_strv_push(&v, "clang");
    for (; *args; args++)
        tlcc_strv_push(&v, *args);
    tlcc_ccc_override(&v, script, NULL);
    char *r = strdup(joined(&v));
    tlcc_strv_free(&v);
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
    tlcc_strv v = { 0 };
    tlcc_strv_push(&v, "clang");
    for (int i = 0; i < N; i++)
        tlcc_strv_push(&v, pattern[i % 5]);
    tlcc_ccc_override(&v, "xa Xb O1", NULL);
    int keep = 0, other = 0;
    for (int i = 1; i < v.n; i++) {
        if (strcmp(v.v[i], "keep") == 0)
            keep++;
        else
            other++;
    }
    UNIT_CHECK("x, X (with its value) and O applied to every one of 200000 arguments",
               v.n == 1 + N / 5 + 1 && keep == N / 5 && other == 1 && strcmp(v.v[v.n - 1], "-O1") == 0 && !v.v[v.n]);
    tlcc_strv ins = { 0 };
    for (int i = 0; i < N; i++)
        tlcc_strv_push(&ins, "w");
    tlcc_strv_splice(&v, 1, 2, &ins);
    UNIT_CHECK("splice replaces a range by 200000 words in one move",
               v.n == 1 + N / 5 + 1 - 2 + N && strcmp(v.v[N], "w") == 0 && strcmp(v.v[N + 1], "keep") == 0 &&
                   strcmp(v.v[v.n - 1], "-O1") == 0 && !v.v[v.n]);
    tlcc_strv_free(&ins);
    tlcc_strv_free(&v);
}

static void debug_flags(void)
{
    UNIT_CHECK("-g turns debug on", tlcc_is_debug_on("-g") && tlcc_is_debug_on("-g1") && tlcc_is_debug_on("-ggdb3") &&
                                         tlcc_is_debug_on("-gdwarf-4") && tlcc_is_debug_on("-gline-tables-only"));
    UNIT_CHECK("-g0 and neutral -g options do not", !tlcc_is_debug_on("-g0") && !tlcc_is_debug_on("-gz") &&
                                                         !tlcc_is_debug_on("-gsplit-dwarf") && !tlcc_is_debug_on("-gno-column-info") &&
                                                         tlcc_is_debug_off("-g0"));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* nvcc's -optf folded as nvcc reads it: nested files expanded in place (their names relative to the current
 * directory), comma lists, the nesting limit nvcc has (15 files deep, measured). */
static void optf_nested(void)
{
    char dir[] = "/tmp/tl-unit-optf.XXXXXX", cwd[4096];
    if (!mkdtemp(dir) || !getcwd(cwd, sizeof cwd) || chdir(dir) != 0) {
        UNIT_CHECK("temporary directory for -optf files", 0);
        return;
    }
    write_file("g.optf", "-G\n");
    write_file("n.optf", "-DN=1 -optf g.optf -DAFTER --options-file=g.optf,g.optf\n");
    write_file("self.optf", "-optf self.optf\n");
    extern char **environ;
    tlcc_ctx ctx;
    tlcc_ctx_init(&ctx, environ);
    tlcc_invocation inv = { .ctx = &ctx };
    tl_error err;
    inv.family = TLCC_FAM_NVCC;
    inv.compiler_path = strdup("nvcc");
    tlcc_strv_push(&inv.user_args, "-c");
    tlcc_strv_push(&inv.user_args, "-optf=n.optf,g.optf");
    tlcc_strv_push(&inv.user_args, "k.cu");
    UNIT_CHECK("nested -optf folds", tlcc_effective_argv(&inv, &err) == 0);
    UNIT_STREQ("nested files expanded in place, words after them kept", joined(&inv.args),
               "[-c][-DN=1][-G][-DAFTER][-G][-G][-G][k.cu]");
    UNIT_STREQ("explain names the whole list and the nested files", inv.folds.n ? inv.folds.v[0] : "",
               "options file n.optf,g.optf (nested: g.optf g.optf g.optf): -DN=1 -G -DAFTER -G -G -G");
    tlcc_strv_free(&inv.user_args);
    tlcc_strv_push(&inv.user_args, "-optf");
    tlcc_strv_push(&inv.user_args, "self.optf");
    UNIT_CHECK("a file including itself is an error, not a loop",
               tlcc_effective_argv(&inv, &err) == -1 && strstr(err.msg, "self.optf: options files nested more than 15"));
    char name[32], text[64];
    for (int i = 1; i <= 16; i++) {
        snprintf(name, sizeof name, "c%d.optf", i);
        snprintf(text, sizeof text, "-optf c%d.optf", i + 1);
        write_file(name, text);
    }
    write_file("c17.optf", "-DEND");
    tlcc_strv_free(&inv.user_args);
    tlcc_strv_push(&inv.user_args, "-optf=c3.optf");
    UNIT_CHECK("15 files deep: folded, as nvcc reads them",
               tlcc_effective_argv(&inv, &err) == 0 && inv.args.n == 1 && strcmp(inv.args.v[0], "-DEND") == 0);
    tlcc_strv_free(&inv.user_args);
    tlcc_strv_push(&inv.user_args, "-optf=c2.optf");
    UNIT_CHECK("16 deep: refused, naming the 16th file as nvcc does",
               tlcc_effective_argv(&inv, &err) == -1 && strncmp(err.msg, "c17.optf: ", 10) == 0);
    tlcc_invocation_free(&inv);
    tlcc_ctx_free(&ctx);
    for (int i = 1; i <= 17; i++) {
        snprintf(name, sizeof name, "c%d.optf", i);
        unlink(name);
    }
    unlink("g.optf");
    unlink("n.optf");
    unlink("self.optf");
    UNIT_CHECK("back to the starting directory", chdir(cwd) == 0 && rmdir(dir) == 0);
}

/* The size past which the expanded argv is not exec'd (E2BIG): in all, and one argument alone. */
static void exec_size(void)
{
    tlcc_strv v = { 0 };
    tlcc_strv_push(&v, "-c");
    UNIT_CHECK("a short argv is exec'd", !tlcc_argv_exec_too_big(&v));
    char *big = malloc(TLCC_ARGV_EXEC_MAX + 1);
    memset(big, 'x', TLCC_ARGV_EXEC_MAX);
    big[TLCC_ARGV_EXEC_MAX] = 0;
    tlcc_strv_push(&v, big);
    UNIT_CHECK("one argument over 128 KiB is too big", tlcc_argv_exec_too_big(&v));
    tlcc_strv_free(&v);
    for (int i = 0; i < 1800; i++)
        tlcc_strv_push(&v, big + TLCC_ARGV_EXEC_MAX - 60);
    UNIT_CHECK("1800 arguments of 60 bytes fit (124 200 bytes with their NULs and pointers)", !tlcc_argv_exec_too_big(&v));
    for (int i = 0; i < 100; i++)
        tlcc_strv_push(&v, big + TLCC_ARGV_EXEC_MAX - 60);
    UNIT_CHECK("1900 of them (131 100 bytes) do not", tlcc_argv_exec_too_big(&v));
    tlcc_strv_free(&v);
    free(big);
}

UNIT_MAIN(UNIT_CASE(env_split),
          UNIT_CASE(optf_split),
          UNIT_CASE(ccc_edits),
          UNIT_CASE(ccc_long_command_line),
          UNIT_CASE(debug_flags),
          UNIT_CASE(optf_nested),
          UNIT_CASE(exec_size))
