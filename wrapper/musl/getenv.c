/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL), in place of musl's getenv.
 *
 * A warm wrapper run makes ~35 lookups (configuration overrides, PATH, the recursion guard, the folded
 * flag variables) in an environment of ~40 entries. A scan per lookup, even with an inline comparison, was
 * 12 % of a warm nvcc hit's instructions (callgrind). Here the environment is indexed once,
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

#ifndef TLCC_ENV_NAME /* tests/unit/musl_getenv.c renames them to compare with the C library's */
#define TLCC_ENV_NAME(name) name
#endif

/* "NAME=value" of each name's first definition (NULL: an empty slot) and its name's hash, compared before
 * the bytes; at most half the slots used. Sized to the environment (a CI job's has 100-200 entries, a
 * shell's ~40) and taken from the allocator (the musl build's bump arena: pages a hit touches anyway). */
struct slot {
    const char *entry;
    uint32_t hash;
};
static struct slot *table;
static size_t mask; /* slots - 1 */
static char **indexed_env; /* the environ the table was built from */
static unsigned indexed_gen, gen = 1;
static atomic_flag lock = ATOMIC_FLAG_INIT;

/* From the length and the first and last eight bytes, not every byte (a byte loop was most of the cost);
 * names that differ only in between share a hash and are told apart by their bytes. */
static uint32_t hash_name(const char *name, size_t len)
{
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, name, 8);
        memcpy(&b, name + len - 8, 8);
    } else {
        memcpy(&a, name, len);
    }
    uint64_t h = (a ^ (uint64_t)len << 56) * 0x9e3779b97f4a7c15u ^ b * 0xc2b2ae3d27d4eb4fu;
    h ^= h >> 29; /* every input bit reaches the low bits the mask keeps */
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    return (uint32_t)h;
}

static struct slot *probe(const char *name, size_t len, uint32_t h)
{
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct slot *s = &table[i];
        if (!s->entry || (s->hash == h && strncmp(s->entry, name, len) == 0 && s->entry[len] == '='))
            return s; /* strncmp stops at the entry's end */
    }
}

/* 0, or -1 when no table could be had (getenv then scans). */
static int build(void)
{
    size_t n = 0, slots = 64;
    for (char **e = environ; e && *e; e++)
        n++;
    while (slots < 2 * n)
        slots *= 2;
    if (!table || slots > mask + 1) {
        struct slot *t = malloc(slots * sizeof *t); /* the old one is left: the arena does not reuse */
        if (!t)
            return -1;
        free(table);
        table = t;
        mask = slots - 1;
    }
    memset(table, 0, (mask + 1) * sizeof *table);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue; /* not NAME=value: getenv never finds it */
        uint32_t h = hash_name(*e, (size_t)(eq - *e));
        struct slot *slot = probe(*e, (size_t)(eq - *e), h);
        if (!slot->entry) /* else an earlier definition, which wins */
            *slot = (struct slot){ *e, h };
    }
    indexed_env = environ;
    indexed_gen = gen;
    return 0;
}

static char *scan(const char *name, size_t len)
{
    for (char **e = environ; *e; e++)
        if ((*e)[0] == name[0] && strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static size_t name_len(const char *name)
{
    size_t len = (size_t)(strchrnul(name, '=') - name);
    return !len || name[len] ? 0 : len;
}

char *TLCC_ENV_NAME(getenv)(const char *name)
{
    size_t len = name_len(name);
    if (!len || !environ)
        return NULL;
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
    char *v;
    if ((indexed_env != environ || indexed_gen != gen || !table) && build() != 0) {
        v = scan(name, len);
    } else {
        const char *entry = probe(name, len, hash_name(name, len))->entry;
        v = entry ? (char *)entry + len + 1 : NULL;
    }
    atomic_flag_clear_explicit(&lock, memory_order_release);
    return v;
}

int TLCC_ENV_NAME(__real_setenv)(const char *name, const char *value, int overwrite);
int TLCC_ENV_NAME(__real_unsetenv)(const char *name);
int TLCC_ENV_NAME(__real_putenv)(char *string);

int TLCC_ENV_NAME(__wrap_setenv)(const char *name, const char *value, int overwrite)
{
    size_t len = name_len(name);
    int current = len && table && indexed_env == environ && indexed_gen == gen;
    int rc = TLCC_ENV_NAME(__real_setenv)(name, value, overwrite);
    /* Other entries keep their strings when the array moves: with the index current, only this name's
     * slot changes (trueline-cc sets a variable early on every run; a rebuild was half of getenv's work). */
    char *now = NULL; /* the name's first entry now, and the entries counted, in one walk */
    size_t n = 0;
    for (char **e = environ; current && rc == 0 && *e; e++, n++)
        if (!now && (*e)[0] == name[0] && strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            now = *e + len + 1;
    if (now && 2 * n <= mask + 1) { /* a new name must not fill the table past half */
        uint32_t h = hash_name(name, len);
        *probe(name, len, h) = (struct slot){ now - len - 1, h };
        indexed_env = environ;
    } else {
        gen++;
    }
    return rc;
}

int TLCC_ENV_NAME(__wrap_unsetenv)(const char *name)
{
    int rc = TLCC_ENV_NAME(__real_unsetenv)(name);
    gen++;
    return rc;
}

int TLCC_ENV_NAME(__wrap_putenv)(char *string)
{
    int rc = TLCC_ENV_NAME(__real_putenv)(string);
    gen++;
    return rc;
}
