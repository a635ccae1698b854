/* The one way trueline-check writes JSON (reports, --list, --provenance, --symbolize, --coredump): a writer
 * that places the commas, colons and brackets, so emitters state only keys and values. Also the finding
 * fingerprint the json and sarif reports carry (--baseline matches findings by it), and the UTF-8 test the
 * JUnit report shares. */
#ifndef TL_JSON_WRITE_H
#define TL_JSON_WRITE_H
#include <stdio.h>
#include "model.h"

/* Our documents nest at most 11 deep (SARIF notifications); deeper containers are left out, brackets and
 * contents. */
#define TL_JW_MAX_DEPTH 16

struct tl_jw {
    FILE *out;
    const char *space;                 /* after ',' and ':': " " (reports), "" (--coredump: compact) */
    const char *brk;                   /* set by tl_jw_break for the next member, element or close */
    int depth, too_deep;
    char close[TL_JW_MAX_DEPTH];       /* '}' or ']' per open container */
    unsigned char count[TL_JW_MAX_DEPTH];  /* 0 before the first member of that container, then 1 */
};

void tl_jw_init(struct tl_jw *w, FILE *out, int compact);
/* Line layout: the next member, element or closing bracket starts on a new line; ws is "\n" plus the indent
 * and takes the place of the space after the comma. */
void tl_jw_break(struct tl_jw *w, const char *ws);
/* key is the member name inside an object, NULL for an array element or the top-level value. */
void tl_jw_object(struct tl_jw *w, const char *key);
void tl_jw_array(struct tl_jw *w, const char *key);
void tl_jw_end(struct tl_jw *w);                                    /* closes the innermost object or array */
/* escaped (docs/internals/json-writer.md): a byte outside well-formed UTF-8 becomes the text \ooo; NULL writes null */
void tl_jw_str(struct tl_jw *w, const char *key, const char *s);
void tl_jw_strf(struct tl_jw *w, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tl_jw_uint(struct tl_jw *w, const char *key, unsigned long long v);
void tl_jw_int(struct tl_jw *w, const char *key, long long v);
void tl_jw_bool(struct tl_jw *w, const char *key, int b);
void tl_jw_null(struct tl_jw *w, const char *key);

/* 32 hex digits of XXH3-128 over (check, file, symbol or message): stable across runs, addresses excluded
 * when a symbol names the finding. */
/* Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF) that starts at p, 1 for an ASCII byte (NUL included), 0 when p[0] starts none. Reads no further
 * than a NUL. */
size_t tl_utf8_seq(const unsigned char *p);

void tl_finding_fingerprint(const struct tl_finding *x, char out[33]);

#endif
