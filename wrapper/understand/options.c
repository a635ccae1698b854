#include "understand/options.h"

#include <string.h>

const tlcc_opt_table *const tlcc_opt_tables[] = { &tlcc_opts_gnu, &tlcc_opts_nvcc, NULL };

/* strcmp of name against s[0..n) (s holds no NUL in it). Written out: names differ from an argument within a
 * byte or two, and a call to the C library's strncmp cost more than the comparison (every hit runs ~10 of
 * these per argument). */
static inline int cmp_n(const char *name, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (name[i] != s[i])
            return (unsigned char)name[i] < (unsigned char)s[i] ? -1 : 1;
    return name[n] != 0;
}

const tlcc_opt *tlcc_opt_exact(const tlcc_opt_table *t, const char *s, size_t n)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_n(t->rows[mid].name, s, n);
        if (c == 0)
            return &t->rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* How many rows compare <= s[0..n): the greatest of them is rows[result - 1]. */
static size_t floor_count(const tlcc_opt_table *t, const char *s, size_t n)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_n(t->rows[mid].name, s, n) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const tlcc_opt *tlcc_opt_find(const tlcc_opt_table *t, const char *arg, unsigned want, const char **value)
{
    size_t len = strlen(arg);
    *value = NULL;
    /* The greatest row <= arg[0..n) is arg itself or the longest row that starts it when there is one; when it
     * is neither, no row that starts arg is longer than what the two have in common: search again below that.
     * The first round finds an exact spelling too. Every name has a character after its '-' (n >= 2). */
    for (size_t n = len; n >= 2;) {
        size_t k = floor_count(t, arg, n);
        if (!k)
            return NULL;
        const tlcc_opt *o = &t->rows[k - 1];
        size_t c = 0;
        while (c < n && o->name[c] == arg[c])
            c++;
        if (o->name[c]) { /* not a prefix (c < n) */
            n = c;
            continue;
        }
        if (c == len)
            return o; /* spelt exactly */
        if (o->flags & want) {
            if (o->flags & TLCC_OPT_PREFIX)
                return o;
            if ((o->flags & TLCC_OPT_EQ) && arg[c] == '=') {
                *value = arg + c + 1;
                return o;
            }
            if (o->flags & TLCC_OPT_JOINED) {
                *value = arg + c;
                return o;
            }
        }
        n = c - 1;
    }
    return NULL;
}

int tlcc_opt_any_exact(const char *arg, size_t n, unsigned flags)
{
    for (const tlcc_opt_table *const *t = tlcc_opt_tables; *t; t++) {
        const tlcc_opt *o = tlcc_opt_exact(*t, arg, n);
        if (o && (o->flags & flags) == flags)
            return 1;
    }
    return 0;
}
