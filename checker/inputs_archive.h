/* Static libraries as inputs (the ar and thin-archive rows of input_formats.c). */
#ifndef TLCK_INPUTS_ARCHIVE_H
#define TLCK_INPUTS_ARCHIVE_H
#include "input_list.h"

/* One input per member of the ar archive c, a window of its bytes shown as "lib.a(member.o)" (c->display's name
 * extended); a damaged header or a member cut short becomes an input carrying an error (the members after it are
 * then named lost). */
void tlck_archive_expand(struct tlck_inputs *out, const struct tlck_container *c);
/* One input per member of the GNU thin archive c, read from the member's own file; one inside a package is an
 * input carrying an error (its members are outside the package). */
void tlck_thin_archive_expand(struct tlck_inputs *out, const struct tlck_container *c);

#endif
