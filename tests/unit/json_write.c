/* report/json_write.c, the one JSON writer: separators in both spacings, line breaks, escapes (bytes outside
 * UTF-8 included), null, long formatted strings, and nesting past the depth limit (left out whole, the document
 * stays balanced). */
#include <stdlib.h>
#include <string.h>

#include "report/json_write.h"
#include "unit.h"

struct doc { char *buf; size_t len; FILE *f; struct tlck_jw w; };

static void start(struct doc *d, int compact)
{
    d->f = open_memstream(&d->buf, &d->len);
    tlck_jw_init(&d->w, d->f, compact);
}

static const char *text(struct doc *d)
{
    fclose(d->f);
    return d->buf;
}

static void sample(struct tlck_jw *w)
{
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "s", "a");
    tlck_jw_uint(w, "u", 18446744073709551615ull);
    tlck_jw_int(w, "i", -7);
    tlck_jw_bool(w, "t", 1);
    tlck_jw_bool(w, "f", 0);
    tlck_jw_null(w, "n");
    tlck_jw_array(w, "a");
    tlck_jw_uint(w, NULL, 1);
    tlck_jw_str(w, NULL, NULL);
    tlck_jw_end(w);
    tlck_jw_array(w, "e");
    tlck_jw_end(w);
    tlck_jw_object(w, "o");
    tlck_jw_end(w);
    tlck_jw_end(w);
}

static void separators(void)
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
    tlck_jw_array(&d.w, NULL);
    for (int i = 0; i < 2; i++) {
        tlck_jw_break(&d.w, "\n  ");
        tlck_jw_uint(&d.w, NULL, (unsigned)i);
    }
    tlck_jw_break(&d.w, "\n");
    tlck_jw_end(&d.w);
    tlck_jw_array(&d.w, NULL); /* a second top-level value gets no comma */
    tlck_jw_break(&d.w, "\n");
    tlck_jw_end(&d.w);
    UNIT_STREQ("breaks replace the space after the comma, and lead the first element and the close", text(&d),
               "[\n  0,\n  1\n][\n]");
    free(d.buf);
}

static void escapes(void)
{
    struct doc d;

    start(&d, 0);
    tlck_jw_str(&d.w, NULL, "q\" b\\ n\n r\r t\t \x01 \x1f \x7f é");
    UNIT_STREQ("escapes: quote, backslash, \\n \\r \\t, other controls as \\u00XX, the rest as is", text(&d),
               "\"q\\\" b\\\\ n\\n r\\r t\\t \\u0001 \\u001f \x7f é\"");
    free(d.buf);

    /* bytes outside well-formed UTF-8 (RFC 3629) become the text \ooo: a Latin-1 byte, a stray continuation,
     * 0xff, an overlong '/', a surrogate, a code point past U+10FFFF, a sequence cut by the string's end;
     * 2-, 3- and 4-byte sequences up to U+10FFFF pass as they are */
    start(&d, 1);
    tlck_jw_str(&d.w, NULL, "lat\xe9.o \x80 \xff \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82");
    UNIT_STREQ("bytes outside UTF-8 as \\ooo, one per byte", text(&d),
               "\"lat\\\\351.o \\\\200 \\\\377 \\\\300\\\\257 \\\\355\\\\240\\\\200 "
               "\\\\364\\\\220\\\\200\\\\200 \\\\342\\\\202\"");
    free(d.buf);

    start(&d, 1);
    tlck_jw_str(&d.w, "cl\xe9", "é € \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf \xef\xbf\xbf ctl\x01");
    UNIT_STREQ("well-formed UTF-8 unchanged (U+10FFFF, U+D7FF, U+FFFF too); keys escaped alike", text(&d),
               "\"cl\\\\351\":\"é € \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf \xef\xbf\xbf ctl\\u0001\"");
    free(d.buf);

    UNIT_CHECK("tlck_utf8_seq: lengths, and 0 where no sequence starts",
               tlck_utf8_seq((const unsigned char *)"a") == 1 && tlck_utf8_seq((const unsigned char *)"") == 1 &&
               tlck_utf8_seq((const unsigned char *)"\xc3\xa9") == 2 &&
               tlck_utf8_seq((const unsigned char *)"\xe0\xa0\x80") == 3 &&
               tlck_utf8_seq((const unsigned char *)"\xf0\x90\x80\x80") == 4 &&
               tlck_utf8_seq((const unsigned char *)"\xc1\xbf") == 0 &&
               tlck_utf8_seq((const unsigned char *)"\xe0\x9f\xbf") == 0 &&
               tlck_utf8_seq((const unsigned char *)"\xf0\x8f\xbf\xbf") == 0 &&
               tlck_utf8_seq((const unsigned char *)"\xf5\x80\x80\x80") == 0 &&
               tlck_utf8_seq((const unsigned char *)"\xf0\x90\x80") == 0 &&
               tlck_utf8_seq((const unsigned char *)"\xe9.o") == 0);
}

static void keys_and_strf(void)
{
    struct doc d;

    start(&d, 1);
    tlck_jw_object(&d.w, NULL);
    tlck_jw_str(&d.w, "k\"ey", "v");
    tlck_jw_strf(&d.w, "pc", "0x%08x", 0x90u);
    tlck_jw_end(&d.w);
    UNIT_STREQ("keys escaped; strf formats", text(&d), "{\"k\\\"ey\":\"v\",\"pc\":\"0x00000090\"}");
    free(d.buf);

    char longs[1000];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    start(&d, 1);
    tlck_jw_strf(&d.w, NULL, "%s\"", longs);
    const char *t = text(&d);
    UNIT_CHECK("strf past its stack buffer: whole and escaped", strlen(t) == 1 + 999 + 2 + 1 && t[0] == '"' &&
               strncmp(t + 1, longs, 999) == 0 && strcmp(t + 1000, "\\\"\"") == 0);
    free(d.buf);
}

static void depth_limit(void)
{
    struct doc d;

    start(&d, 1);
    tlck_jw_array(&d.w, NULL);
    for (int i = 0; i < TLCK_JW_MAX_DEPTH + 3; i++)
        tlck_jw_array(&d.w, NULL);
    tlck_jw_uint(&d.w, NULL, 5);
    for (int i = 0; i < TLCK_JW_MAX_DEPTH + 3; i++)
        tlck_jw_end(&d.w);
    tlck_jw_uint(&d.w, NULL, 6);
    tlck_jw_end(&d.w);
    const char *t = text(&d);
    size_t opens = 0, closes = 0;
    for (const char *p = t; *p; p++)
        opens += *p == '[', closes += *p == ']';
    UNIT_CHECK("past the depth limit: nothing deeper written, brackets balanced, writing resumes after",
               opens == TLCK_JW_MAX_DEPTH && closes == opens && !strchr(t, '5') && strstr(t, "],6]") != NULL);
    free(d.buf);
}

UNIT_MAIN(UNIT_CASE(separators),
          UNIT_CASE(escapes),
          UNIT_CASE(keys_and_strf),
          UNIT_CASE(depth_limit))
