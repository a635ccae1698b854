#include "report/json_write.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trueline/hash.h"

size_t tlck_utf8_seq(const unsigned char *p)
{
    /* the second byte's range narrows where an overlong form, a surrogate or a code point past U+10FFFF
     * would start */
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        if (p[0] == 0xe0)
            lo = 0xa0;
        if (p[0] == 0xed)
            hi = 0x9f;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        if (p[0] == 0xf0)
            lo = 0x90;
        if (p[0] == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) /* a NUL fails here too: never read past the string's end */
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* JSON text must be UTF-8 (RFC 8259 §8.1), but file names, symbols and messages are bytes: a byte that does not
 * belong to a well-formed UTF-8 sequence is written as the four characters \ooo (backslash, three octal digits,
 * as `ls -b` shows it), so the document stays valid and the byte can still be told apart. */
static void put_escaped(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n = tlck_utf8_seq(p);
        if (n == 0) {
            fprintf(out, "\\\\%03o", *p); /* written \\351, read back as the text \351 */
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, n, out);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void tlck_jw_init(struct tlck_jw *w, FILE *out, int compact)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->space = compact ? "" : " ";
}

void tlck_jw_break(struct tlck_jw *w, const char *ws)
{
    w->brk = ws;
}

/* The separator before a value: a comma after an earlier sibling, then the pending break or the space. */
static int begin_value(struct tlck_jw *w, const char *key)
{
    if (w->too_deep)
        return 0;
    if (w->depth > 0) {
        unsigned char *seen = &w->count[w->depth - 1];
        if (*seen)
            fputc(',', w->out);
        if (w->brk)
            fputs(w->brk, w->out);
        else if (*seen)
            fputs(w->space, w->out);
        *seen = 1;
    }
    w->brk = NULL;
    if (key) {
        put_escaped(w->out, key);
        fputc(':', w->out);
        fputs(w->space, w->out);
    }
    return 1;
}

static void open_container(struct tlck_jw *w, const char *key, char open, char close)
{
    if (w->too_deep || w->depth >= TLCK_JW_MAX_DEPTH) {
        w->too_deep++;
        return;
    }
    begin_value(w, key);
    fputc(open, w->out);
    w->close[w->depth] = close;
    w->count[w->depth++] = 0;
}

void tlck_jw_object(struct tlck_jw *w, const char *key)
{
    open_container(w, key, '{', '}');
}

void tlck_jw_array(struct tlck_jw *w, const char *key)
{
    open_container(w, key, '[', ']');
}

void tlck_jw_end(struct tlck_jw *w)
{
    if (w->too_deep) {
        w->too_deep--;
        return;
    }
    if (w->brk)
        fputs(w->brk, w->out);
    w->brk = NULL;
    if (w->depth > 0)
        fputc(w->close[--w->depth], w->out);
}

void tlck_jw_str(struct tlck_jw *w, const char *key, const char *s)
{
    if (begin_value(w, key))
        put_escaped(w->out, s);
}

void tlck_jw_strf(struct tlck_jw *w, const char *key, const char *fmt, ...)
{
    char buf[256], *s = buf;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf && (s = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    tlck_jw_str(w, key, s ? s : buf);
    if (s != buf)
        free(s);
}

void tlck_jw_uint(struct tlck_jw *w, const char *key, unsigned long long v)
{
    if (begin_value(w, key))
        fprintf(w->out, "%llu", v);
}

void tlck_jw_int(struct tlck_jw *w, const char *key, long long v)
{
    if (begin_value(w, key))
        fprintf(w->out, "%lld", v);
}

void tlck_jw_bool(struct tlck_jw *w, const char *key, int b)
{
    if (begin_value(w, key))
        fputs(b ? "true" : "false", w->out);
}

void tlck_jw_null(struct tlck_jw *w, const char *key)
{
    tlck_jw_str(w, key, NULL);
}

static void fingerprint_of(const struct tlck_finding *x, const char *name, char out[33])
{
    tl_hasher *h = tl_hasher_new();
    tl_hasher_update_str(h, x->check);
    tl_hasher_update_str(h, x->file ? x->file : "");
    tl_hasher_update_str(h, name ? name : x->message ? x->message : "");
    if (x->detail) /* a detail names the symbol its summary may also name as an example */
        tl_hasher_update_str(h, "detail");
    tl_hash_hex(tl_hasher_final(h), out);
}

void tlck_finding_fingerprint(const struct tlck_finding *x, char out[33])
{
    fingerprint_of(x, x->mangled ? x->mangled : x->symbol, out);
}

void tlck_finding_fingerprint_demangled(const struct tlck_finding *x, char out[33])
{
    fingerprint_of(x, x->symbol, out);
}
