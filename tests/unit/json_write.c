/* report/json_write.c, the one JSON writer: separators in both spacings, line breaks, escapes, null, long
 * formatted strings, and nesting past the depth limit (left out whole, the document stays balanced). */
#include <stdlib.h>
#include <string.h>

#include "report/json_write.h"
#include "unit.h"

struct doc { char *buf; size_t len; FILE *f; struct tl_jw w; };

static void start(struct doc *d, int compact)
{
    d->f = open_memstream(&d->buf, &d->len);
    tl_jw_init(&d->w, d->f, compact);
}

static const char *text(struct doc *d)
{
    fclose(d->f);
    return d->buf;
}

static void sample(struct tl_jw *w)
{
    tl_jw_object(w, NULL);
    tl_jw_str(w, "s", "a");
    tl_jw_uint(w, "u", 18446744073709551615ull);
    tl_jw_int(w, "i", -7);
    tl_jw_bool(w, "t", 1);
    tl_jw_bool(w, "f", 0);
    tl_jw_null(w, "n");
    tl_jw_array(w, "a");
    tl_jw_uint(w, NULL, 1);
    tl_jw_str(w, NULL, NULL);
    tl_jw_end(w);
    tl_jw_array(w, "e");
    tl_jw_end(w);
    tl_jw_object(w, "o");
    tl_jw_end(w);
    tl_jw_end(w);
}

int main(void)
{
    struct doc d;
    start(&d, 0);
    sample(&d.w);
    UNIT_STREQ("spaced: ', ' and ': ', empty containers, null, full uint64, negative int", text(&d),
               "{\"s\": \"a\", \"u\": 18446744073709551615, \"i\": -7, \"t\": true, \"f\": false, \"n\": null, "
               "\"a\": [1, null], \"e\": [], \"o\": {}}");
    free(d.buf);

    start(&d, 1);
    sample(&d.w);
    UNIT_STREQ("compact: ',' and ':'", text(&d),
               "{\"s\":\"a\",\"u\":18446744073709551615,\"i\":-7,\"t\":true,\"f\":false,\"n\":null,\"a\":[1,null],"
               "\"e\":[],\"o\":{}}");
    free(d.buf);

    start(&d, 0);
    tl_jw_array(&d.w, NULL);
    for (int i = 0; i < 2; i++) {
        tl_jw_break(&d.w, "\n  ");
        tl_jw_uint(&d.w, NULL, (unsigned)i);
    }
    tl_jw_break(&d.w, "\n");
    tl_jw_end(&d.w);
    tl_jw_array(&d.w, NULL); /* a second top-level value gets no comma */
    tl_jw_break(&d.w, "\n");
    tl_jw_end(&d.w);
    UNIT_STREQ("breaks replace the space after the comma, and lead the first element and the close", text(&d),
               "[\n  0,\n  1\n][\n]");
    free(d.buf);

    start(&d, 0);
    tl_jw_str(&d.w, NULL, "q\" b\\ n\n r\r t\t \x01 \x1f \x7f é");
    UNIT_STREQ("escapes: quote, backslash, \\n \\r \\t, other controls as \\u00XX, the rest as is", text(&d),
               "\"q\\\" b\\\\ n\\n r\\r t\\t \\u0001 \\u001f \x7f é\"");
    free(d.buf);

    start(&d, 1);
    tl_jw_object(&d.w, NULL);
    tl_jw_str(&d.w, "k\"ey", "v");
    tl_jw_strf(&d.w, "pc", "0x%08x", 0x90u);
    tl_jw_end(&d.w);
    UNIT_STREQ("keys escaped; strf formats", text(&d), "{\"k\\\"ey\":\"v\",\"pc\":\"0x00000090\"}");
    free(d.buf);

    char longs[1000];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    start(&d, 1);
    tl_jw_strf(&d.w, NULL, "%s\"", longs);
    const char *t = text(&d);
    UNIT_CHECK("strf past its stack buffer: whole and escaped", strlen(t) == 1 + 999 + 2 + 1 && t[0] == '"' &&
               strncmp(t + 1, longs, 999) == 0 && strcmp(t + 1000, "\\\"\"") == 0);
    free(d.buf);

    start(&d, 1);
    tl_jw_array(&d.w, NULL);
    for (int i = 0; i < TL_JW_MAX_DEPTH + 3; i++)
        tl_jw_array(&d.w, NULL);
    tl_jw_uint(&d.w, NULL, 5);
    for (int i = 0; i < TL_JW_MAX_DEPTH + 3; i++)
        tl_jw_end(&d.w);
    tl_jw_uint(&d.w, NULL, 6);
    tl_jw_end(&d.w);
    t = text(&d);
    size_t opens = 0, closes = 0;
    for (const char *p = t; *p; p++)
        opens += *p == '[', closes += *p == ']';
    UNIT_CHECK("past the depth limit: nothing deeper written, brackets balanced, writing resumes after",
               opens == TL_JW_MAX_DEPTH && closes == opens && !strchr(t, '5') && strstr(t, "],6]") != NULL);
    free(d.buf);
    UNIT_EXIT();
}
