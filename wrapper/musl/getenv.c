/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL), in place of musl's getenv.
 *
 * A warm wrapper run makes ~35 lookups (configuration overrides, PATH, the recursion guard, the folded
 * flag variables) in an environment of ~40 entries. A scan per lookup, even with an inline comparison, was
 * 12 % of a warm nvcc hit's instructions (callgrind, tenth session). Here the environment is indexed once,
 * by a hash of each name, and a lookup is one probe or two. Same contract as getenv(3): the first
 * definition wins, a name with '=' or an empty name finds nothing.
 *
 * The index is rebuilt when the environment may have changed: setenv, unsetenv and putenv are wrapped
 * (-Wl,--wrap, Makefile) to count changes, and environ itself is compared (a program may assign it). An
 * entry of the environ array written over in place is not noticed: nothing in trueline-cc does that. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#ifndef TL_ENV_NAME /* tests/unit/musl_getenv.c renames them to compare with the C library's */
#define TL_ENV_NAME(name) name
#endif

#define SLOTS 128 /* a power of two; environments of more than SLOTS/2 entries are scanned instead */

/* "NAME=value" of each name's first definition, NULL: an empty slot. Only the pointer is kept (1 KiB in
 * all): names are short, and at most half the slots are used, so a probe rarely compares twice. */
static const char *table[SLOTS];
static char **indexed_env; /* the environ the table was built from */
static unsigned indexed_gen, gen = 1;
static int too_big;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static const char **probe(const char *name, size_t len)
{
    /* From the length and the first and last four bytes, not every byte: the names looked up differ there
     * (TRUELINE_PROVENANCE_STAMP/_VERIFY, NVCC_PREPEND/APPEND_FLAGS), and a byte loop was most of the cost. */
    uint32_t a, b;
    if (len >= 4) {
        memcpy(&a, name, 4);
        memcpy(&b, name + len - 4, 4);
    } else {
        a = (unsigned char)name[0];
        b = (unsigned char)name[len - 1] | (unsigned char)name[len / 2] << 8;
    }
    uint32_t h = (a * 0x9e3779b1u ^ b * 0x85ebca6bu ^ (uint32_t)len) * 0xc2b2ae35u;
    h ^= h >> 15;
    for (uint32_t i = h & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1))
        if (!table[i] || (strncmp(table[i], name, len) == 0 && table[i][len] == '=')) /* stops at the entry's end */
            return &table[i];
}

static void build(void)
{
    memset(table, 0, sizeof table);
    too_big = 0;
    size_t n = 0;
    for (char **e = environ; e && *e; e++, n++) {
        if (n >= SLOTS / 2) {
            too_big = 1;
            break;
        }
        const char *eq = strchr(*e, '=');
        const char **slot = eq ? probe(*e, (size_t)(eq - *e)) : NULL; /* no '=': getenv never finds it */
        if (slot && !*slot) /* else an earlier definition, which wins */
            *slot = *e;
    }
    indexed_env = environ;
    indexed_gen = gen;
}

static char *scan(const char *name, size_t len)
{
    for (char **e = environ; *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static size_t name_len(const char *name)
{
    size_t len = (size_t)(strchrnul(name, '=') - name);
    return !len || name[len] ? 0 : len;
}

char *TL_ENV_NAME(getenv)(const char *name)
{
    size_t len = name_len(name);
    if (!len || !environ)
        return NULL;
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
    if (indexed_env != environ || indexed_gen != gen)
        build();
    char *v;
    if (too_big) {
        v = scan(name, len);
    } else {
        const char *entry = *probe(name, len);
        v = entry ? (char *)entry + len + 1 : NULL;
    }
    atomic_flag_clear_explicit(&lock, memory_order_release);
    return v;
}

int TL_ENV_NAME(__real_setenv)(const char *name, const char *value, int overwrite);
int TL_ENV_NAME(__real_unsetenv)(const char *name);
int TL_ENV_NAME(__real_putenv)(char *string);

int TL_ENV_NAME(__wrap_setenv)(const char *name, const char *value, int overwrite)
{
    size_t len = name_len(name);
    int current = len && !too_big && indexed_env == environ && indexed_gen == gen;
    int rc = TL_ENV_NAME(__real_setenv)(name, value, overwrite);
    /* Other entries keep their strings when the array moves: with the index current, only this name's
     * slot changes (trueline-cc sets a variable early on every run; a rebuild was half of getenv's work). */
    char *now = current && rc == 0 ? scan(name, len) : NULL;
    if (now) {
        *probe(name, len) = now - len - 1;
        indexed_env = environ;
    } else {
        gen++;
    }
    return rc;
}

int TL_ENV_NAME(__wrap_unsetenv)(const char *name)
{
    int rc = TL_ENV_NAME(__real_unsetenv)(name);
    gen++;
    return rc;
}

int TL_ENV_NAME(__wrap_putenv)(char *string)
{
    int rc = TL_ENV_NAME(__real_putenv)(string);
    gen++;
    return rc;
}
