#include "report/text_escape.h"

#include <string.h>

void tlck_text_write_escaped(FILE *out, const char *s, size_t n, const char *const *colours, size_t ncolours)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\033') {
            size_t k = 0, len = 0;
            for (; k < ncolours; k++) {
                len = strlen(colours[k]);
                if (len && len <= n - i && memcmp(s + i, colours[k], len) == 0)
                    break;
            }
            if (k < ncolours) {
                fwrite(s + i, 1, len, out);
                i += len;
                continue;
            }
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
        i++;
    }
}
