/* XML 1.0 character data for the JUnit reports: one escaping for text and attribute values alike. */
#ifndef TLCK_XML_TEXT_H
#define TLCK_XML_TEXT_H
#include <stdio.h>

/* Writes s (NULL: nothing) escaped: markup characters as entities, TAB/LF/CR as character references (they
 * survive attribute-value normalization), every byte XML cannot carry as the text \ooo (three octal digits). */
void tlck_xml_text(FILE *out, const char *s);

#endif
