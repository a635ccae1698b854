/* Small JSON writing helpers shared by the json and sarif emitters, and the finding fingerprint both carry
 * (--baseline matches findings by it). */
#ifndef TL_JSON_WRITE_H
#define TL_JSON_WRITE_H
#include <stdio.h>
#include "model.h"

void tl_json_str(FILE *out, const char *s);  /* "..." with escapes, or null */
/* 32 hex digits of XXH3-128 over (check, file, symbol or message): stable across runs, addresses excluded
 * when a symbol names the finding. */
void tl_finding_fingerprint(const struct tl_finding *x, char out[33]);

#endif
