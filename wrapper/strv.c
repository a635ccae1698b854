#include "strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *r = realloc(p, n);
    if (!r) {
        fputs("trueline-cc: out of memory\n", stderr);
        exit(2);
    }
    return r;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

static void grow(tlcc_strv *s)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
    }
}

static void insert_owned(tlcc_strv *s, int at, char *str)
{
    grow(s);
    memmove(s->v + at + 1, s->v + at, (size_t)(s->n - at) * sizeof *s->v);
    s->v[at] = str;
    s->v[++s->n] = NULL;
}

void tlcc_strv_insert(tlcc_strv *s, int at, const char *str)
{
    insert_owned(s, at, xstrdup(str));
}

void tlcc_strv_push(tlcc_strv *s, const char *str)
{
    insert_owned(s, s->n, xstrdup(str));
}

void tlcc_strv_push_owned(tlcc_strv *s, char *str)
{
    if (str)
        insert_owned(s, s->n, str);
}

char *tlcc_concatn(const char *s, ...)
{
    va_list ap;
    size_t n = 1;
    va_start(ap, s);
    for (const char *p = s; p; p = va_arg(ap, const char *))
        n += va_arg(ap, size_t);
    va_end(ap);
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    va_start(ap, s);
    for (const char *p = s; p; p = va_arg(ap, const char *)) {
        size_t len = va_arg(ap, size_t);
        memcpy(o, p, len);
        o += len;
    }
    va_end(ap);
    *o = 0;
    return out;
}

/* Formatted into a small buffer first: an 8 KiB one on the stack took two fresh stack pages (page faults)
 * on every cache hit that stamps; the rare longer string is formatted again into one of its exact size. */
void tlcc_strv_pushf(tlcc_strv *s, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0, small[0] = 0;
    if ((size_t)n < sizeof small) {
        tlcc_strv_push(s, small);
        return;
    }
    char *big = xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tlcc_strv_push_owned(s, big);
}

void tlcc_strv_splice(tlcc_strv *s, int at, int drop, const tlcc_strv *ins)
{
    for (int k = 0; k < drop; k++)
        free(s->v[at + k]);
    int n = s->n - drop + ins->n;
    if (n + 1 > s->cap) {
        s->cap = n + 1 > 2 * s->cap ? n + 1 : 2 * s->cap;
        s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
    }
    memmove(s->v + at + ins->n, s->v + at + drop, (size_t)(s->n - at - drop) * sizeof *s->v);
    for (int k = 0; k < ins->n; k++)
        s->v[at + k] = xstrdup(ins->v[k]);
    s->n = n;
    s->v[n] = NULL;
}

void tlcc_strv_replace(tlcc_strv *s, int at, const char *str)
{
    char *c = xstrdup(str);
    free(s->v[at]);
    s->v[at] = c;
}

void tlcc_strv_append(tlcc_strv *s, const tlcc_strv *from)
{
    for (int i = 0; i < from->n; i++)
        tlcc_strv_push(s, from->v[i]);
}

void tlcc_strv_free(tlcc_strv *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

char *tlcc_strv_join(const tlcc_strv *s, int from)
{
    size_t len = 1;
    for (int i = from; i < s->n; i++)
        len += strlen(s->v[i]) + 1;
    char *out = xrealloc(NULL, len), *p = out;
    *p = 0;
    for (int i = from; i < s->n; i++) {
        size_t k = strlen(s->v[i]);
        if (p != out)
            *p++ = ' ';
        memcpy(p, s->v[i], k + 1);
        p += k;
    }
    return out;
}

int tlcc_fmt(char *dst, unsigned long cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    return n;
}
