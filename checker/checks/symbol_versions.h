/* What symbol-versions knows about manylinux tags, for the per-package summary of the reports. */
#ifndef TLCK_SYMBOL_VERSIONS_H
#define TLCK_SYMBOL_VERSIONS_H
#include <stddef.h>
#include "model.h"
#include "policy.h"

/* The oldest manylinux tag in conf/manylinux.tsv (manylinux_X_Y names; by their GLIBC maximum) whose maxima
 * cover every GLIBC_/GLIBCXX_/CXXABI_/GCC_ reference of the readable linked files among files; NULL when no tag
 * does, no table was found, or a file is not x86_64 (the table's maxima are x86_64's). The string is the
 * table's, valid for the process. */
const char *tlck_symbol_versions_oldest_tag(const struct tlck_file *const *files, size_t n, const struct tlck_policy *p);

/* The manylinux tag an x86_64 wheel member's display name claims ("...-manylinux_2_17_x86_64.whl!x.so" ->
 * "manylinux_2_17"), into tag; 0 when it is no such member. */
int tlck_symbol_versions_wheel_tag(const char *display, char *tag, size_t cap);

#endif
