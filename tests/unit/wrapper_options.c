/* The option tables (wrapper/options_*.c): sorted and unique, as the binary search needs; flags that agree with
 * each other; spot checks against gcc's and nvcc's manuals; and, where the compilers are installed, against
 * what they say of their own options (`gcc --help=separate`, `--help=joined`; `nvcc --help`'s long/short pairs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../wrapper/understand/families.h"
#include "../../wrapper/understand/options.h"
#include "unit.h"

static const tlcc_opt *row(const tlcc_opt_table *t, const char *name)
{
    return tlcc_opt_exact(t, name, strlen(name));
}

/* The row's flags, 0 when the table has no such row. */
static unsigned flags_of(const tlcc_opt_table *t, const char *name)
{
    const tlcc_opt *o = row(t, name);
    return o ? o->flags : 0;
}

#define HAS(t, name, bits) ((flags_of(t, name) & (bits)) == (bits))

/* What one argument is found as, its joined value and its flags (0: nothing). */
static unsigned found(const tlcc_opt_table *t, const char *arg, unsigned want, const char **value, const char **name)
{
    const tlcc_opt *o = tlcc_opt_find(t, arg, want, value);
    *name = o ? o->name : NULL;
    return o ? o->flags : 0;
}

static void sorted_unique(void)
{
    int tables = 0;
    for (const tlcc_opt_table *const *t = tlcc_opt_tables; *t; t++, tables++) {
        UNIT_CHECK("a table has rows", (*t)->n > 10);
        for (size_t i = 0; i < (*t)->n; i++) {
            const char *n = (*t)->rows[i].name;
            UNIT_CHECK("a name is an option: '-' and at least one character", n[0] == '-' && n[1]);
            if (i && strcmp((*t)->rows[i - 1].name, n) >= 0)
                printf("    %s: '%s' then '%s'\n", (*t)->syntax, (*t)->rows[i - 1].name, n);
            UNIT_CHECK("strictly increasing by strcmp (sorted, each name once)", !i || strcmp((*t)->rows[i - 1].name, n) < 0);
            UNIT_CHECK("every row is found by the binary search", row(*t, n) == &(*t)->rows[i]);
        }
    }
    UNIT_CHECK("gnu and nvcc tables listed", tables == 2);
}

static void families_name_a_table(void)
{
    enum tlcc_family all[] = { TLCC_FAM_GCC, TLCC_FAM_CLANG, TLCC_FAM_NVCC, TLCC_FAM_OTHER };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        const tlcc_opt_table *mine = tlcc_family_of(all[i])->options;
        int listed = 0;
        for (const tlcc_opt_table *const *t = tlcc_opt_tables; *t; t++)
            listed |= *t == mine;
        UNIT_CHECK("each family's table is one of tlcc_opt_tables (the lookups over all families see it)", listed);
    }
    UNIT_CHECK("gcc and clang read gnu options", tlcc_family_of(TLCC_FAM_GCC)->options == &tlcc_opts_gnu &&
                                                     tlcc_family_of(TLCC_FAM_CLANG)->options == &tlcc_opts_gnu);
    UNIT_CHECK("nvcc reads its own", tlcc_family_of(TLCC_FAM_NVCC)->options == &tlcc_opts_nvcc);
}

/* force.c reads one meaning per row (an else-if over the bits): two would silently lose one. */
static int bits(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static void flags_agree(void)
{
    const unsigned value_syntax = TLCC_OPT_SEPARATE | TLCC_OPT_JOINED | TLCC_OPT_EQ;
    const unsigned value_roles = TLCC_OPT_OUTPUT | TLCC_OPT_LANGUAGE | TLCC_OPT_HOST_COMPILER | TLCC_OPT_OUTPUT_DIR |
                                 TLCC_OPT_HOST_OPTIONS;
    const unsigned flag_roles = TLCC_OPT_COMPILE_ONLY | TLCC_OPT_DEVICE_DEBUG | TLCC_OPT_LINE_INFO |
                                TLCC_OPT_DEBUG_ON | TLCC_OPT_DEBUG_OFF | TLCC_OPT_PREPROCESS | TLCC_OPT_DEPS_ONLY |
                                TLCC_OPT_DEPS_COMPILE | TLCC_OPT_QUERY | TLCC_OPT_DRY_RUN;
    for (const tlcc_opt_table *const *t = tlcc_opt_tables; *t; t++)
        for (size_t i = 0; i < (*t)->n; i++) {
            unsigned f = (*t)->rows[i].flags;
            int ok = 1;
            ok &= !(f & TLCC_OPT_PREFIX) || !(f & value_syntax);         /* a family of spellings has no value */
            ok &= !(f & value_roles) || (f & value_syntax);              /* a value has a way to be given */
            ok &= !(f & (value_roles | TLCC_OPT_PATH)) || !(f & flag_roles);
            ok &= bits(f & value_roles) <= 1 && bits(f & flag_roles) <= 1;
            ok &= !(f & TLCC_OPT_KEY_LONE) || (f & TLCC_OPT_KEY_DROP && f & TLCC_OPT_JOINED);
            ok &= !(f & TLCC_OPT_PATH) || (f & (TLCC_OPT_JOINED | TLCC_OPT_EQ));
            if (!ok)
                printf("    %s: %s\n", (*t)->syntax, (*t)->rows[i].name);
            UNIT_CHECK("the row's flags agree with each other", ok);
        }
}

/* From gcc's manual ("Options Controlling the Kind of Output", "Debugging Options", "Preprocessor Options"). */
static void gcc_manual(void)
{
    const tlcc_opt_table *g = &tlcc_opts_gnu;
    UNIT_CHECK("-o FILE and -oFILE name the output", HAS(g, "-o", TLCC_OPT_SEPARATE | TLCC_OPT_JOINED | TLCC_OPT_OUTPUT));
    UNIT_CHECK("-c compiles without linking", HAS(g, "-c", TLCC_OPT_COMPILE_ONLY));
    UNIT_CHECK("-E preprocesses only", HAS(g, "-E", TLCC_OPT_PREPROCESS));
    UNIT_CHECK("-x LANG and -xLANG name the language", HAS(g, "-x", TLCC_OPT_SEPARATE | TLCC_OPT_JOINED | TLCC_OPT_LANGUAGE));
    UNIT_CHECK("-M and -MM write dependencies instead of compiling",
               HAS(g, "-M", TLCC_OPT_DEPS_ONLY) && HAS(g, "-MM", TLCC_OPT_DEPS_ONLY));
    UNIT_CHECK("-MD and -MMD write them beside the compile",
               HAS(g, "-MD", TLCC_OPT_DEPS_COMPILE) && HAS(g, "-MMD", TLCC_OPT_DEPS_COMPILE));
    UNIT_CHECK("-MF FILE names the dependency file, which the cache leaves out",
               HAS(g, "-MF", TLCC_OPT_SEPARATE | TLCC_OPT_JOINED | TLCC_OPT_KEY_DROP));
    UNIT_CHECK("-I DIR and -IDIR name a directory, a path", HAS(g, "-I", TLCC_OPT_SEPARATE | TLCC_OPT_JOINED | TLCC_OPT_PATH));
    UNIT_CHECK("-D is not a path", !HAS(g, "-D", TLCC_OPT_PATH) && HAS(g, "-D", TLCC_OPT_SEPARATE | TLCC_OPT_JOINED));
    UNIT_CHECK("-g and -g1..-g3 turn debug info on", HAS(g, "-g", TLCC_OPT_DEBUG_ON) && HAS(g, "-g1", TLCC_OPT_DEBUG_ON) &&
                                                         HAS(g, "-g3", TLCC_OPT_DEBUG_ON));
    UNIT_CHECK("-g0 turns it off", HAS(g, "-g0", TLCC_OPT_DEBUG_OFF) && HAS(g, "-ggdb0", TLCC_OPT_DEBUG_OFF));
    UNIT_CHECK("-fdebug-prefix-map=OLD=NEW is joined and left out of the key",
               HAS(g, "-fdebug-prefix-map=", TLCC_OPT_JOINED | TLCC_OPT_KEY_DROP));
    UNIT_CHECK("-### prints the commands", HAS(g, "-###", TLCC_OPT_DRY_RUN));
    UNIT_CHECK("--version is a query", HAS(g, "--version", TLCC_OPT_QUERY));
    UNIT_CHECK("-dumpdir DIR takes a value and is no query", HAS(g, "-dumpdir", TLCC_OPT_SEPARATE) &&
                                                                !HAS(g, "-dumpdir", TLCC_OPT_QUERY));
    UNIT_CHECK("-Wl,... only links", HAS(g, "-Wl,", TLCC_OPT_JOINED | TLCC_OPT_KEY_DROP));
    UNIT_CHECK("-O2, -Wall, -fPIC mean nothing here", !row(g, "-O2") && !row(g, "-Wall") && !row(g, "-fPIC"));
}

/* From nvcc's manual ("NVCC Command Options"): long and short names, values separate or after '='. */
static void nvcc_manual(void)
{
    const tlcc_opt_table *n = &tlcc_opts_nvcc;
    UNIT_CHECK("-G/--device-debug: device debug info", HAS(n, "-G", TLCC_OPT_DEVICE_DEBUG) &&
                                                         HAS(n, "--device-debug", TLCC_OPT_DEVICE_DEBUG));
    UNIT_CHECK("-lineinfo/--generate-line-info: device line info", HAS(n, "-lineinfo", TLCC_OPT_LINE_INFO) &&
                                                                     HAS(n, "--generate-line-info", TLCC_OPT_LINE_INFO));
    UNIT_CHECK("-g/--debug: host debug info", HAS(n, "-g", TLCC_OPT_DEBUG_ON) && HAS(n, "--debug", TLCC_OPT_DEBUG_ON));
    UNIT_CHECK("-ccbin/--compiler-bindir selects the host compiler",
               HAS(n, "-ccbin", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_HOST_COMPILER) &&
                   HAS(n, "--compiler-bindir", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_HOST_COMPILER));
    UNIT_CHECK("-Xcompiler/--compiler-options: host options",
               HAS(n, "-Xcompiler", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_HOST_OPTIONS) &&
                   HAS(n, "--compiler-options", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_HOST_OPTIONS));
    UNIT_CHECK("-o/--output-file: the output", HAS(n, "-o", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_OUTPUT) &&
                                                 HAS(n, "--output-file", TLCC_OPT_SEPARATE | TLCC_OPT_EQ | TLCC_OPT_OUTPUT));
    UNIT_CHECK("nvcc's -o is not joined (-odir, -optf are options)", !HAS(n, "-o", TLCC_OPT_JOINED) &&
                                                                       HAS(n, "-odir", TLCC_OPT_OUTPUT_DIR));
    UNIT_CHECK("-c, -dc, -dw compile without linking", HAS(n, "-c", TLCC_OPT_COMPILE_ONLY) &&
                                                           HAS(n, "-dc", TLCC_OPT_COMPILE_ONLY) &&
                                                           HAS(n, "-dw", TLCC_OPT_COMPILE_ONLY));
    UNIT_CHECK("-arch and -gencode take values", HAS(n, "-arch", TLCC_OPT_SEPARATE | TLCC_OPT_EQ) &&
                                                     HAS(n, "-gencode", TLCC_OPT_SEPARATE | TLCC_OPT_EQ));
    UNIT_CHECK("-M/--generate-dependencies: dependencies only", HAS(n, "-M", TLCC_OPT_DEPS_ONLY) &&
                                                                 HAS(n, "--generate-dependencies", TLCC_OPT_DEPS_ONLY));
    UNIT_CHECK("--dryrun runs nothing", HAS(n, "--dryrun", TLCC_OPT_DRY_RUN));
}

static void lookups(void)
{
    const tlcc_opt_table *g = &tlcc_opts_gnu, *n = &tlcc_opts_nvcc;
    const char *v, *name;
    UNIT_CHECK("gcc -ofoo.o: -o with value foo.o", found(g, "-ofoo.o", TLCC_OPT_JOINED, &v, &name) & TLCC_OPT_OUTPUT);
    UNIT_STREQ("... the value", v, "foo.o");
    UNIT_CHECK("nvcc -o=foo.o: the value after '='", found(n, "-o=foo.o", TLCC_OPT_EQ, &v, &name) & TLCC_OPT_OUTPUT);
    UNIT_STREQ("... the value", v, "foo.o");
    UNIT_CHECK("nvcc -ofoo.o is no -o", !(found(n, "-ofoo.o", TLCC_OPT_JOINED | TLCC_OPT_EQ, &v, &name) & TLCC_OPT_OUTPUT));
    UNIT_CHECK("nvcc -odir=d: -odir, not -o", found(n, "-odir=d", TLCC_OPT_EQ, &v, &name) & TLCC_OPT_OUTPUT_DIR);
    UNIT_STREQ("... the value", v, "d");
    found(g, "-iwithprefixbefore/x", TLCC_OPT_JOINED, &v, &name);
    UNIT_STREQ("the longest row that starts the argument", name, "-iwithprefixbefore");
    UNIT_STREQ("... and its value", v, "/x");
    found(g, "-iwithprefix/x", TLCC_OPT_JOINED, &v, &name);
    UNIT_STREQ("a shorter one when the longer does not fit", name, "-iwithprefix");
    UNIT_CHECK("-ggdb3: a -ggdb spelling, debug on", found(g, "-ggdb3", TLCC_OPT_PREFIX, &v, &name) & TLCC_OPT_DEBUG_ON);
    UNIT_CHECK("-ggdb0: its own row, debug off", found(g, "-ggdb0", TLCC_OPT_PREFIX, &v, &name) & TLCC_OPT_DEBUG_OFF);
    UNIT_CHECK("-gsplit-dwarf, -gz, -g4: no row", !found(g, "-gsplit-dwarf", TLCC_OPT_PREFIX, &v, &name) &&
                                                      !found(g, "-gz", TLCC_OPT_PREFIX, &v, &name) &&
                                                      !found(g, "-g4", TLCC_OPT_PREFIX, &v, &name));
    UNIT_CHECK("-dumpmachine: a query", found(g, "-dumpmachine", TLCC_OPT_PREFIX, &v, &name) & TLCC_OPT_QUERY);
    UNIT_CHECK("-MDx is no -MD", !found(g, "-MDx", TLCC_OPT_JOINED | TLCC_OPT_EQ | TLCC_OPT_PREFIX, &v, &name));
    UNIT_CHECK("a row without a bit of want is passed over", !found(g, "-DX", TLCC_OPT_KEY_DROP, &v, &name));
    UNIT_CHECK("-MFdep.d is found by the key's search", found(g, "-MFdep.d", TLCC_OPT_KEY_DROP, &v, &name) & TLCC_OPT_KEY_DROP);
    UNIT_CHECK("an exact spelling is found whatever want is", found(g, "-c", 0, &v, &name) & TLCC_OPT_COMPILE_ONLY);
    UNIT_CHECK("any family takes -ccbin's value separately", tlcc_opt_any_exact("-ccbin", 6, TLCC_OPT_SEPARATE));
    UNIT_CHECK("... and no family -c's", !tlcc_opt_any_exact("-c", 2, TLCC_OPT_SEPARATE));
}

/* The first word of each indented line of a command's output, cut at '<' or '[' (-D<macro>[=<val>] -> -D). */
static int help_names(const char *cmd, char ***out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char line[4096];
    int n = 0;
    *out = NULL;
    while (fgets(line, sizeof line, p)) {
        char *w = line + strspn(line, " \t");
        if (*w != '-')
            continue;
        w[strcspn(w, " \t\n<[")] = 0;
        char **grown = realloc(*out, (size_t)(n + 1) * sizeof **out);
        if (!grown)
            break;
        *out = grown;
        (*out)[n++] = strdup(w);
    }
    pclose(p);
    return n;
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* gcc says which of its options take a separate value and which a joined one. */
static void gcc_says(void)
{
    char **sep, **joined;
    int ns = help_names("gcc --help=separate 2>/dev/null", &sep), nj = help_names("gcc --help=joined 2>/dev/null", &joined);
    if (ns < 10 || nj < 10) {
        free_names(sep, ns);
        free_names(joined, nj);
        UNIT_SKIP("gcc --help=separate/--help=joined gave no list (gcc absent or too old)");
    }
    int checked = 0;
    for (int i = 0; i < ns; i++) {
        /* -MD/-MMD take a file only in cc1's command line (the driver hands them one: NoDriverArg) */
        if (strcmp(sep[i], "-MD") == 0 || strcmp(sep[i], "-MMD") == 0)
            continue;
        const tlcc_opt *o = row(&tlcc_opts_gnu, sep[i]);
        if (!o)
            continue;
        checked++;
        if (!(o->flags & TLCC_OPT_SEPARATE))
            printf("    gcc takes %s's value separately; the row says not\n", sep[i]);
        UNIT_CHECK("an option gcc lists as separate is TLCC_OPT_SEPARATE", o->flags & TLCC_OPT_SEPARATE);
    }
    UNIT_CHECK("gcc's separate list and the table share options (-o, -I, -x ...)", checked >= 10);
    checked = 0;
    for (int i = 0; i < nj; i++) {
        const tlcc_opt *o = row(&tlcc_opts_gnu, joined[i]);
        /* -g itself is a row of its own, and so are its levels -g0..-g3 */
        if (!o || strcmp(joined[i], "-g") == 0)
            continue;
        checked++;
        if (!(o->flags & (TLCC_OPT_JOINED | TLCC_OPT_PREFIX)))
            printf("    gcc joins %s's value; the row says not\n", joined[i]);
        UNIT_CHECK("an option gcc lists as joined is TLCC_OPT_JOINED (or a PREFIX family)",
                   o->flags & (TLCC_OPT_JOINED | TLCC_OPT_PREFIX));
    }
    UNIT_CHECK("gcc's joined list and the table share options (-o, -I, -MF, -fdebug-prefix-map= ...)", checked >= 5);
    free_names(sep, ns);
    free_names(joined, nj);
}

/* nvcc --help prints "--long-name <arg>   (-short)" for each option: a long and a short name of one option
 * must mean the same. */
static void nvcc_says(void)
{
    FILE *p = popen("nvcc --help 2>/dev/null", "r");
    if (!p)
        UNIT_SKIP("nvcc not runnable");
    char line[4096];
    int pairs = 0, lines = 0;
    /* what the analysis and the key read; the value syntax of the long dependency names differs on purpose
     * (options_nvcc.c), and only the short -MD/-MMD count as a compile beside -M */
    const unsigned compared = ~(TLCC_OPT_JOINED | TLCC_OPT_DEPS_COMPILE);
    while (fgets(line, sizeof line, p)) {
        char lng[256], shrt[256];
        if (line[0] != '-' || line[1] != '-')
            continue;
        lines++;
        const char *open = strstr(line, "(-"), *close = open ? strchr(open, ')') : NULL;
        if (!open || !close || sscanf(line, "%255s", lng) != 1 || (size_t)(close - open - 1) >= sizeof shrt)
            continue;
        memcpy(shrt, open + 1, (size_t)(close - open - 1));
        shrt[close - open - 1] = 0;
        const tlcc_opt *l = row(&tlcc_opts_nvcc, lng), *s = row(&tlcc_opts_nvcc, shrt);
        if (!l && !s)
            continue;
        if (!l || !s || (l->flags & compared) != (s->flags & compared)) {
            printf("    nvcc: %s and %s are one option; the table has %s\n", lng, shrt,
                   !l ? "only the short name" : !s ? "only the long name" : "different flags");
            /* a name missing on one side is only worth failing for where the other side means something */
            if (l && s)
                UNIT_CHECK("a long and a short name of one nvcc option have the same flags", 0);
            continue;
        }
        pairs++;
    }
    pclose(p);
    if (lines < 20)
        UNIT_SKIP("nvcc --help listed no options (nvcc absent)");
    UNIT_CHECK("nvcc's pairs found in the table (-o/--output-file, -G/--device-debug ...)", pairs >= 20);
}

UNIT_MAIN(UNIT_CASE(sorted_unique),
          UNIT_CASE(families_name_a_table),
          UNIT_CASE(flags_agree),
          UNIT_CASE(gcc_manual),
          UNIT_CASE(nvcc_manual),
          UNIT_CASE(lookups),
          UNIT_CASE(gcc_says),
          UNIT_CASE(nvcc_says))
