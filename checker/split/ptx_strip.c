#include "split/fatbin_split.h"

#include <stdlib.h>
#include <string.h>

/* What -lineinfo adds to PTX (nvcc 13.0, diffed against the same build without it): `.loc` lines, `.file`
 * lines, and a `.section .debug_str { ... }` block with the names the .loc lines' `function_name` refer to.
 * Nothing else refers to them, so removing exactly these lines gives PTX that ptxas compiles to the same code. */
static int starts(const char *l, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n >= k && memcmp(l, w, k) == 0 && (n == k || l[k] == ' ' || l[k] == '\t');
}

int tlck_ptx_strip_lines(const char *p, size_t n, char **out, size_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    char *o = malloc(n + 1);
    if (!o)
        return -1;
    size_t w = 0;
    int dropped = 0, in_str = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && p[e] != '\n')
            e++;
        size_t next = e < n ? e + 1 : e;
        const char *l = p + i;
        size_t ln = e - i, k = 0;
        while (k < ln && (l[k] == ' ' || l[k] == '\t'))
            k++;
        int drop = 0;
        if (in_str) {
            drop = 1;
            if (ln - k >= 1 && l[k] == '}')
                in_str = 0;
        } else if (starts(l + k, ln - k, ".loc") || starts(l + k, ln - k, ".file")) {
            drop = 1;
        } else if (starts(l + k, ln - k, ".section") && ln - k >= 19 &&
                   memmem(l + k, ln - k, ".debug_str", 10) != NULL) {
            drop = 1;
            in_str = 1; /* the block's braces follow on their own lines */
        }
        if (drop)
            dropped = 1;
        else {
            memcpy(o + w, l, next - i);
            w += next - i;
        }
        i = next;
    }
    if (!dropped) {
        free(o);
        return 1;
    }
    *out = o;
    *out_n = w;
    return 0;
}
