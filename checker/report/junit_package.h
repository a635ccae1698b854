/* JUnit: the package verdict (packages.h) as one <testsuite> per package among the inputs, one
 * <testcase> per verdict item (docs/packages.md, "The verdict in JUnit"). */
#ifndef TLCK_JUNIT_PACKAGE_H
#define TLCK_JUNIT_PACKAGE_H
#include <stdio.h>
#include "report/report.h"

/* The packages' test suites, in input order; nothing when no input is a package. */
void tlck_junit_packages(FILE *out, const struct tlck_results *r);

#endif
