/* The text report's lines on a terminal: wrapped at its width, continuation lines indented. */
#ifndef TLCK_TEXT_WRAP_H
#define TLCK_TEXT_WRAP_H
#include <stddef.h>
#include <stdio.h>

/* The width to wrap at: 0 (no wrapping) unless out is a terminal; then COLUMNS when set, else the terminal's
 * (TIOCGWINSZ), else 80. */
size_t tlck_text_width(FILE *out);

/* Writes line and a newline; with width > 0, breaks it at blanks so that no line is wider (colour escapes
 * take no columns). */
void tlck_text_put(FILE *out, const char *line, size_t width);

#endif
