#include "report/json_write.h"

#include <string.h>

#include "trueline/hash.h"

void tl_json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
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

void tl_finding_fingerprint(const struct tl_finding *x, char out[33])
{
    tl_hasher *h = tl_hasher_new();
    tl_hasher_update_str(h, x->check);
    tl_hasher_update_str(h, x->file ? x->file : "");
    tl_hasher_update_str(h, x->symbol ? x->symbol : x->message ? x->message : "");
    tl_hash_hex(tl_hasher_final(h), out);
}
