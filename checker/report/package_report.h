/* The package verdict in the reports (report/package_verdict.h): a block under each package's line in the text
 * report, a closing table of all packages, a "verdict" object per package in JSON and in SARIF run properties. */
#ifndef TLCK_PACKAGE_REPORT_H
#define TLCK_PACKAGE_REPORT_H
#include <stdio.h>
#include "report/json_write.h"
#include "report/package_summary.h"

void tlck_package_text_block(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *s);
/* One row per package; nothing when there is none. */
void tlck_package_text_table(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *pkg, size_t n);
/* "verdict": {...} inside the package's object. */
void tlck_package_json_verdict(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_package_summary *s);
/* SARIF: the run's property bag, "properties": {"trueline-packages": [{path, verdict}]}; nothing without packages. */
void tlck_package_sarif_properties(struct tlck_jw *w, const struct tlck_results *r);

#endif
