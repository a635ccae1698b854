/* What symbol-versions knows about manylinux tags, for the per-package summary of the reports. */
#ifndef TLCK_SYMBOL_VERSIONS_H
#define TLCK_SYMBOL_VERSIONS_H
#include <stddef.h>
#include "model.h"
#include "checks/checks.h"

/* The platform policy table (conf/manylinux.tsv) the check's prepare loaded: its state in the audit's
 * tlck_check_run (check_run.h). */
struct tlck_symbol_versions_table;
struct tlck_blacklist;
struct tlck_floors;
extern const struct tlck_check tlck_check_symbol_versions;

/* The symbol blacklist prepare loaded with the table (conf/platform_blacklist.tsv); NULL when t is NULL. */
const struct tlck_blacklist *tlck_symbol_versions_blacklist(const struct tlck_symbol_versions_table *t);
/* The table's rows (the platform tables join their maxima by tag: one reading of manylinux.tsv per audit); NULL
 * when t is NULL. */
const struct tlck_floors *tlck_symbol_versions_floors(const struct tlck_symbol_versions_table *t);

/* The oldest manylinux tag in table t (manylinux_X_Y names; by their GLIBC maximum) whose maxima cover every
 * GLIBC_/GLIBCXX_/CXXABI_/GCC_ reference of the readable linked files among files; NULL when no tag does, t is
 * NULL or empty, or a file is not x86_64 (the table's maxima are x86_64's). The string is the table's. */
const char *tlck_symbol_versions_oldest_tag(const struct tlck_file *const *files, size_t n,
                                           const struct tlck_symbol_versions_table *t);

/* The manylinux tag an x86_64 wheel member's display name claims ("...-manylinux_2_17_x86_64.whl!x.so" ->
 * "manylinux_2_17"), into tag; 0 when it is no such member. */
int tlck_symbol_versions_wheel_tag(const char *display, char *tag, size_t cap);

#endif
