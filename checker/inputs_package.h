/* Packages as inputs: Python wheels and other zips, conda packages (.conda: a zip of tar.zst; .tar.bz2).
 * Their members are read in memory through libarchive, never unpacked to disk. A member is an input of its own,
 * shown as "pkg.whl!path/lib.so" ("pkg.conda!pkg-x.tar.zst!lib/libfoo.so" one level down), found by its ordinal
 * in the package so that its bytes can be decompressed again, on the worker thread, when it is loaded; a member
 * that is a static archive is expanded by the archive row of input_formats.c, its members windows of its bytes
 * ("pkg.conda!pkg-x.tar.zst!lib/libfoo.a(foo.o)"). */
#ifndef TLCK_INPUTS_PACKAGE_H
#define TLCK_INPUTS_PACKAGE_H
#include <stddef.h>
#include "inputs.h"

/* Most members one package (or one nested package) may list before the rest is refused. */
#define TLCK_PACKAGE_MAX_MEMBERS 100000u

/* 1 when the first bytes start a package (zip local header or empty zip, bzip2 stream), else 0. */
int tlck_package_magic(const unsigned char *m, size_t n);

/* Adds one input per member of the package c->path that a row of input_formats.c reads (ELF files, fatbins),
 * and hands each member that is a container of another format (a static archive) to its row's expander, its
 * bytes decompressed: "pkg.conda!pkg-x.tar.zst!lib/libfoo.a(foo.o)". Packages inside it are read one level
 * deep; one deeper, a member or a stretch of the package that cannot be read, or one past a bound (members,
 * bytes, time) becomes an input carrying an error. c->top: the path was given on the command line (a file found
 * by a directory scan that libarchive does not take for a package, such as a plain .bz2, is left out silently). */
void tlck_package_expand(struct tlck_inputs *out, const struct tlck_container *c);

/* Decompresses the member `in` names into b (b->owned holds it); fails, err naming why, on a member over the
 * budget's cap (--max-input-mb) or past the codec's ratio, a corrupt stream, or the budget's deadline. */
int tlck_package_member_read(const struct tlck_input *in, struct tlck_input_bytes *b, tl_budget *budget,
                             tl_error *err);
/* A package member's budget takes the package's deadline: the one its first member loaded started (--timeout
 * bounds a package with all its members, not each of them). Nothing for other inputs or without a deadline. */
void tlck_package_deadline(const struct tlck_input *in, tl_budget *budget);

/* Closes the reader members of one package share (tlck_inputs_free). */
void tlck_package_cursor_free(struct tlck_package_cursor *c);

#endif
