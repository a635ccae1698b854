#include "report/xml_text.h"

#include "report/json_write.h"

/* Is the well-formed UTF-8 sequence p[0..n) a character XML 1.0 allows (§2.2 Char)? Of the valid sequences
 * only controls other than TAB/LF/CR and U+FFFE/U+FFFF (EF BF BE/BF) are not; no character reference can
 * carry them either. */
static int xml_char(const unsigned char *p, size_t n)
{
    if (n == 1)
        return *p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r';
    return !(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
}

/* Text and attribute values alike. TAB, LF and CR go as character references, which survive attribute-value
 * normalization; every byte XML cannot carry (a forbidden character, or one outside well-formed UTF-8) becomes
 * the text \ooo, three octal digits, as the JSON writer writes bytes that are not UTF-8 (docs/internals/json-writer.md). */
void tlck_xml_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        size_t n = tlck_utf8_seq(p);
        if (n == 0 || !xml_char(p, n)) {
            for (size_t i = 0; i < (n ? n : 1); i++)
                fprintf(out, "\\%03o", p[i]);
            p += n ? n - 1 : 0;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, n, out);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\t': case '\n': case '\r': fprintf(out, "&#%d;", *p); break;
        default: fputc(*p, out);
        }
    }
}
