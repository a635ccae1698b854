/* The one way trueline-check writes JSON (reports, --list, --provenance, --symbolize, --coredump): a writer
 * that places the commas, colons and brackets, so emitters state only keys and values. Also the finding
 * fingerprint the json and sarif reports carry (--baseline matches findings by it), and the UTF-8 test the
 * JUnit report shares. */
#ifndef TLCK_JSON_WRITE_H
#define TLCK_JSON_WRITE_H
#include <stdio.h>
#include "model.h"

/* Our documents nest at most 11 deep (SARIF notifications); deeper containers are left out, brackets and
 * contents. */
#define TLCK_JW_MAX_DEPTH 16

struct tlck_jw {
    FILE *out;
    const char *space;                 /* after ',' and ':': " " (reports), "" (--coredump: compact) */
    const char *brk;                   /* set by tlck_jw_break for the next member, element or close */
    int depth, too_deep;
    char close[TLCK_JW_MAX_DEPTH];       /* '}' or ']' per open container */
    unsigned char count[TLCK_JW_MAX_DEPTH];  /* 0 before the first member of that container, then 1 */
};

void tlck_jw_init(struct tlck_jw *w, FILE *out, int compact);
/* Line layout: the next member, element or closing bracket starts on a new line; ws is "\n" plus the indent
 * and takes the place of the space after the comma. */
void tlck_jw_break(struct tlck_jw *w, const char *ws);
/* key is the member name inside an object, NULL for an array element or the top-level value. */
void tlck_jw_object(struct tlck_jw *w, const char *key);
void tlck_jw_array(struct tlck_jw *w, const char *key);
void tlck_jw_end(struct tlck_jw *w);                                    /* closes the innermost object or array */
/* escaped (docs/internals/json-writer.md): a byte outside well-formed UTF-8 becomes the text \ooo; NULL writes null */
void tlck_jw_str(struct tlck_jw *w, const char *key, const char *s);
void tlck_jw_strf(struct tlck_jw *w, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tlck_jw_uint(struct tlck_jw *w, const char *key, unsigned long long v);
void tlck_jw_int(struct tlck_jw *w, const char *key, long long v);
void tlck_jw_bool(struct tlck_jw *w, const char *key, int b);
void tlck_jw_null(struct tlck_jw *w, const char *key);

/* Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF) that starts at p, 1 for an ASCII byte (NUL included), 0 when p[0] starts none. Reads no further
 * than a NUL. */
size_t tlck_utf8_seq(const unsigned char *p);

/* 32 hex digits of XXH3-128 over (check, file, mangled name, else symbol, else message, and "detail" for a
 * detail): stable across runs, addresses excluded when a symbol names the finding, one per symbol where two
 * demangle alike, and a detail's apart from its summary's that names the same symbol as an example. */
void tlck_finding_fingerprint(const struct tlck_finding *x, char out[33]);
/* The fingerprint as reports before the mangled name was kept wrote it (the demangled symbol): a baseline
 * written then still matches. */
void tlck_finding_fingerprint_demangled(const struct tlck_finding *x, char out[33]);

#endif
