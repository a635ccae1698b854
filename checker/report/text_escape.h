/* The text report's bytes on their way out: names taken from inputs (archive and package members, paths,
 * symbols) may hold control characters that would move the cursor, rewrite or hide lines on a terminal, or
 * forge a report line in a log. */
#ifndef TLCK_TEXT_ESCAPE_H
#define TLCK_TEXT_ESCAPE_H
#include <stddef.h>
#include <stdio.h>

/* Writes s[0..n) to out with every control byte but newline and tab (C0, DEL) as \xNN;
 * colours: the SGR sequences the report itself writes (red, yellow, reset) are kept, only when colour is on. */
void tlck_text_write_escaped(FILE *out, const char *s, size_t n, const char *const *colours, size_t ncolours);

#endif
