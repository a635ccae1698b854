/* PTX summary: directives scanned line by line (docs/cuda-formats.md §6; syntax per the PTX ISA
 * "Debugging Directives" section). Only directives at the start of a line count, so comments and strings
 * mentioning ".loc" do not. */
#include "read/ptx.h"

#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static int directive(const char *p, const char *end, const char *d)
{
    size_t n = strlen(d);
    return (size_t)(end - p) > n && memcmp(p, d, n) == 0 && (p[n] == ' ' || p[n] == '\t');
}

/* ".target sm_90a, debug" */
static void target(struct tlck_device_info *d, const char *p, const char *end)
{
    p = skip_ws(p + 7, end);
    /* each prefix is compared only where that many bytes remain (fuzz/targets/ptx.c read past the text) */
    if ((end - p > 3 && memcmp(p, "sm_", 3) == 0) || (end - p > 8 && memcmp(p, "compute_", 8) == 0)) {
        p += p[0] == 's' ? 3 : 8;
        unsigned sm = 0;
        while (p < end && *p >= '0' && *p <= '9')
            sm = sm * 10 + (unsigned)(*p++ - '0');
        d->sm = sm;
        if (p < end && (*p == 'a' || *p == 'f'))
            d->arch_suffix = *p;
    }
    for (; p + 5 <= end; p++)
        if (memcmp(p, "debug", 5) == 0)
            d->is_debug = 1;
}

/* ".visible .entry _Z5kernAPfPKfi(" → the name. Every function and name counts in the input's budget: a
 * 98 KB fatbin of PTX that is nothing but .entry lines asked for 11.4 GB of them. -1: the budget refused (err). */
static int entry(struct tlck_image *img, size_t *cap, const char *p, const char *end, tl_budget *budget,
                 tl_error *err)
{
    const char *e = NULL;
    for (const char *q = p; q + 7 <= end; q++)
        if (memcmp(q, ".entry", 6) == 0 && (q[6] == ' ' || q[6] == '\t')) {
            e = q + 7;
            break;
        }
    if (!e)
        return 0;
    e = skip_ws(e, end);
    const char *s = e;
    while (e < end && *e != '(' && *e != ' ' && *e != '\t' && *e != '\r')
        e++;
    if (e == s)
        return 0;
    size_t old = *cap;
    if (tlck_grow((void **)&img->funcs, cap, img->nfuncs + 1, sizeof *img->funcs) != 0)
        return tl_fail(err, "PTX .entry functions: out of memory");
    if ((*cap > old && tl_budget_take(budget, "PTX .entry functions", 0, (unsigned long long)(*cap - old) *
                                      sizeof *img->funcs, 0, err) != 0) ||
        tl_budget_take(budget, "PTX .entry names", 0, (unsigned long long)(e - s) + 1, 0, err) != 0)
        return -1;
    struct tlck_function *f = &img->funcs[img->nfuncs++];
    memset(f, 0, sizeof *f);
    f->name = strndup(s, (size_t)(e - s));
    f->is_kernel = 1;
    img->dev.nkernels++;
    return 0;
}

int tlck_ptx_summarize(const char *text, size_t n, tl_budget *budget, struct tlck_image *img)
{
    struct tlck_device_info *d = &img->dev;
    const char *end = text + n;
    /* The stored PTX is NUL-terminated and zero-padded (docs/cuda-formats.md): trim from the end rather than
     * search from the start (PTX images reach megabytes; this scan is a measurable part of --list). */
    while (end > text && end[-1] == 0)
        end--;
    int has_version = 0, has_target = 0, has_loc = 0, has_file = 0;
    size_t cap = 0;
    tl_error err;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = skip_ws(p, le);
        if (s < le && *s == '.') {
            if (directive(s, le, ".version"))
                has_version = 1;
            else if (directive(s, le, ".target"))
                has_target = 1, target(d, s, le);
            else if (directive(s, le, ".loc"))
                has_loc = 1, d->line_bytes += (uint64_t)(le - p) + (nl != NULL);
            else if (directive(s, le, ".file"))
                has_file = 1, d->line_bytes += (uint64_t)(le - p) + (nl != NULL);
            else if (directive(s, le, ".section") && memmem(s, (size_t)(le - s), ".debug_info", 11))
                d->is_debug = 1;
            else if (entry(img, &cap, s, le, budget, &err) != 0) {
                d->error = tlck_asprintf("%s", err.msg);
                return -1;
            }
        }
        p = nl ? nl + 1 : end;
    }
    if (!has_version || !has_target) {
        d->error = strdup("PTX entry has no .version or .target directive");
        return -1;
    }
    d->has_lineinfo = has_loc && has_file;
    return 0;
}
