/* Lines of the text report, wrapped at the terminal's width when the report goes to a terminal. */
#include "report/text_wrap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define INDENT "      " /* continuation lines: deeper than a hint line's four blanks */

size_t tlck_text_width(FILE *out)
{
    int fd = fileno(out);
    if (fd < 0 || !isatty(fd))
        return 0; /* piped or written to a file: one finding per line, for grep */
    const char *cols = getenv("COLUMNS");
    if (cols && *cols) {
        char *end;
        long v = strtol(cols, &end, 10);
        if (*end == 0 && v > 0)
            return v < 20 ? 20 : (size_t)v;
    }
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col < 20 ? 20 : ws.ws_col;
    return 80;
}

/* Columns s[0..n) takes: colour escapes (ESC [ ... m) take none, a UTF-8 sequence one. */
static size_t columns(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\033') {
            while (i < n && s[i] != 'm')
                i++;
            continue;
        }
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    }
    return w;
}

/* Bytes of s that fit in `room` columns. */
static size_t fitting(const char *s, size_t n, size_t room)
{
    size_t i = 0, w = 0;
    while (i < n) {
        size_t j = i + 1;
        if (s[i] == '\033') {
            while (j < n && s[j - 1] != 'm')
                j++;
        } else {
            while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80)
                j++;
            if (w + 1 > room)
                break;
            w++;
        }
        i = j;
    }
    return i;
}

void tlck_text_put(FILE *out, const char *line, size_t width)
{
    size_t n = strlen(line), indent = sizeof INDENT - 1;
    if (width == 0 || columns(line, n) <= width) {
        fwrite(line, 1, n, out);
        fputc('\n', out);
        return;
    }
    int first = 1;
    while (n) {
        size_t room = first ? width : width - indent;
        if (!first)
            fputs(INDENT, out);
        if (columns(line, n) <= room) {
            fwrite(line, 1, n, out);
            fputc('\n', out);
            return;
        }
        size_t fit = fitting(line, n, room), cut = fit;
        while (cut > 0 && line[cut] != ' ')
            cut--;
        if (cut == 0) /* one word longer than the line (a long path or template name): cut it */
            cut = fit ? fit : 1;
        fwrite(line, 1, cut, out);
        fputc('\n', out);
        line += cut, n -= cut;
        while (n && *line == ' ')
            line++, n--;
        first = 0;
    }
}
