/* wrapper/musl/getenv.c (the indexed getenv of the musl-linked trueline-cc), renamed and compared with the
 * C library's getenv: on random environments with duplicate names, entries without '=', names that share
 * prefixes; after setenv, unsetenv and putenv through its wrappers; after environ is assigned; and on an
 * environment too big for its table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define TLCC_ENV_NAME(name) tl_idx_##name
#include "../../wrapper/musl/getenv.c"

int tl_idx___real_setenv(const char *name, const char *value, int overwrite)
{
    return setenv(name, value, overwrite);
}

int tl_idx___real_unsetenv(const char *name)
{
    return unsetenv(name);
}

int tl_idx___real_putenv(char *string)
{
    return putenv(string);
}

static const char *const names[] = { "PATH", "PAT", "PATH2", "P", "TRUELINE_CONFIG", "TRUELINE_CONFIG_X", "CPATH",
                                     "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "HOME", "A", "AB", "ABC", "ZZ_TOP" };
#define NNAMES (int)(sizeof names / sizeof *names)

/* Every name (and a few malformed ones) looked up both ways; 1 when all agree. */
static int agree(void)
{
    for (int i = 0; i < NNAMES; i++) {
        const char *a = tl_idx_getenv(names[i]), *b = getenv(names[i]);
        if (a != b) {
            printf("    %s: indexed %s, libc %s\n", names[i], a ? a : "(null)", b ? b : "(null)");
            return 0;
        }
    }
    return tl_idx_getenv("") == NULL && tl_idx_getenv("PATH=x") == NULL && tl_idx_getenv("=") == NULL;
}

static unsigned rnd = 12345;
static unsigned next(void)
{
    rnd = rnd * 1103515245u + 12345u;
    return rnd >> 16;
}

static void random_environments(void)
{
    static char strings[200][64];
    static char *envs[2][201]; /* a new array each round, as assigning environ makes (entries edited in place
                                * are not noticed: nothing in trueline-cc does that) */
    int ok = 1;
    for (int round = 0; round < 300 && ok; round++) {
        int n = (int)(next() % 40);
        char **env = envs[round % 2];
        for (int i = 0; i < n; i++) {
            if (next() % 9 == 0)
                snprintf(strings[i], sizeof strings[i], "%s", names[next() % NNAMES]); /* no '=' */
            else
                snprintf(strings[i], sizeof strings[i], "%s=v%d", names[next() % NNAMES], i);
            env[i] = strings[i];
        }
        env[n] = NULL;
        environ = env;
        ok = agree();
    }
    UNIT_CHECK("random environments: the same answers as the C library's getenv (first definition wins)", ok);
}

static void environ_assigned(void)
{
    static char *base[] = { "PATH=/bin", "HOME=/root", "PATH=/second", NULL };
    environ = base;
    UNIT_STREQ("the first of two definitions", tl_idx_getenv("PATH"), "/bin");
    static char *other[] = { "PATH=/other", NULL };
    environ = other;
    UNIT_STREQ("environ assigned: the new array is read", tl_idx_getenv("PATH"), "/other");
}

static void set_and_unset(void)
{
    clearenv();
    tl_idx___wrap_setenv("NVCC_APPEND_FLAGS", "-G", 1);
    UNIT_STREQ("after setenv of a new name", tl_idx_getenv("NVCC_APPEND_FLAGS"), "-G");
    tl_idx___wrap_setenv("NVCC_APPEND_FLAGS", "-lineinfo", 1);
    UNIT_STREQ("after setenv over a name", tl_idx_getenv("NVCC_APPEND_FLAGS"), "-lineinfo");
    tl_idx___wrap_setenv("A", "1", 1);
    tl_idx___wrap_setenv("AB", "2", 1);
    tl_idx___wrap_setenv("A", "kept", 0);
    UNIT_CHECK("setenv of new names (the array grows) and without overwrite: all agree",
               agree() && strcmp(tl_idx_getenv("A"), "1") == 0 && strcmp(tl_idx_getenv("AB"), "2") == 0);
    tl_idx___wrap_unsetenv("NVCC_APPEND_FLAGS");
    UNIT_CHECK("after unsetenv: gone, the others still found", tl_idx_getenv("NVCC_APPEND_FLAGS") == NULL &&
               tl_idx_getenv("A") && strcmp(tl_idx_getenv("A"), "1") == 0 && agree());
    static char put[] = "ZZ_TOP=beard";
    tl_idx___wrap_putenv(put);
    UNIT_STREQ("after putenv", tl_idx_getenv("ZZ_TOP"), "beard");
}

static void big_environment(void)
{
    static char big[400][32];
    static char *bigenv[401];
    for (int i = 0; i < 400; i++) {
        snprintf(big[i], sizeof big[i], "V%d=%d", i, i);
        bigenv[i] = big[i];
    }
    snprintf(big[399], sizeof big[399], "PATH=/last");
    bigenv[400] = NULL;
    environ = bigenv;
    UNIT_CHECK("a big environment (400 entries) gets a table of its size",
               tl_idx_getenv("PATH") && strcmp(tl_idx_getenv("PATH"), "/last") == 0 && tl_idx_getenv("V7") &&
                   strcmp(tl_idx_getenv("V7"), "7") == 0 && tl_idx_getenv("V400") == NULL);
}

static void hash_spreads(void)
{
    /* a family of names that differ in their last bytes only (CI_VAR_1..CI_VAR_150): the hash must spread
     * them, or every lookup walks a long run of slots */
    static char fam[150][32];
    static char *famenv[151];
    for (int i = 0; i < 150; i++) {
        snprintf(fam[i], sizeof fam[i], "CI_VAR_%d=%d", i + 1, i);
        famenv[i] = fam[i];
    }
    famenv[150] = NULL;
    environ = famenv;
    (void)tl_idx_getenv("CI_VAR_1");
    size_t displaced = 0, used = 0;
    for (size_t i = 0; i <= mask; i++)
        if (table[i].entry) {
            used++;
            displaced += (i - (table[i].hash & mask)) & mask; /* slots past its home */
        }
    UNIT_CHECK("150 names differing in their last bytes: spread over the table (mean displacement under 1)",
               used == 150 && displaced < used);
}

static void table_regrows(void)
{
    clearenv();
    tl_idx___wrap_setenv("PATH", "/bin", 1);
    (void)tl_idx_getenv("PATH"); /* the index is current: every setenv below updates it in place */
    int grown = 1;
    for (int i = 0; i < 300 && grown; i++) {
        char name[16], value[16];
        snprintf(name, sizeof name, "G%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        tl_idx___wrap_setenv(name, value, 1);
        grown = tl_idx_getenv(name) && strcmp(tl_idx_getenv(name), value) == 0 && tl_idx_getenv("PATH") &&
                strcmp(tl_idx_getenv("PATH"), "/bin") == 0 && tl_idx_getenv("G300") == NULL;
    }
    UNIT_CHECK("300 new names set one by one: each found, the table regrown as it fills", grown);
}

UNIT_MAIN(UNIT_CASE(random_environments),
          UNIT_CASE(environ_assigned),
          UNIT_CASE(set_and_unset),
          UNIT_CASE(big_environment),
          UNIT_CASE(hash_spreads),
          UNIT_CASE(table_regrows))
