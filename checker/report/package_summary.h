/* The packages (wheel, conda) among the inputs, as the reports find them in the results: r->packages, filled by
 * the package pass (packages.h), one per package in input order. */
#ifndef TLCK_PACKAGE_SUMMARY_H
#define TLCK_PACKAGE_SUMMARY_H
#include <stddef.h>
#include "packages.h"
#include "report/report.h"

/* The path the user gave for the package at path when it was a link of another name (judged as the file it points
 * to, by that file's name); NULL when it was given as itself. */
const char *tlck_package_link_of(const struct tlck_results *r, const char *path);

#endif
