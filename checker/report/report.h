/* Emitters: one per output format, all fed the same ordered results. */
#ifndef TLCK_REPORT_H
#define TLCK_REPORT_H
#include <stdio.h>
#include "model.h"
#include "options.h"

struct tlck_package_link;    /* input_list.h */
struct tlck_package_summary; /* packages.h */

/* A check as the reports name it: a row of the registry (checks/registry.c), copied by the audit, so that the
 * emitters (SARIF rules, JUnit test cases) read the results alone. */
struct tlck_rule {
    const char *id;
    enum tlck_severity default_severity;
    const char *summary;
    const char *help_uri;
};

/* The results of an audit, in input order (deterministic whatever -j was). */
struct tlck_results {
    struct tlck_file *files;       size_t nfiles;
    struct tlck_findings *findings;               /* one list per file, same index */
    size_t counts[TLCK_SEV_ERROR + 1];            /* unsuppressed findings per severity */
    size_t suppressed;
    size_t unreadable;                          /* files with f->error */
    size_t skipped_probes;                      /* CMake compiler-probe files a directory scan left out */
    size_t skipped_links;                       /* links to directories a directory scan did not enter */
    size_t skipped_file_links;                  /* links to files a directory scan did not follow */
    size_t skipped_sdists;                      /* source distributions a directory scan left out */
    struct tlck_package_link *links; size_t nlinks; /* packages given through a link of another name (owned) */
    struct tlck_package_summary *packages;      /* the package pass's: one per package, in input order (owned) */
    size_t npackages;
    size_t packages_not_met;                    /* packages whose files do not meet the tag their name claims */
    struct tlck_rule *rules; size_t nrules;     /* every registered check, in the registry's order (owned) */
    const struct tlck_policy *policy;             /* the audit's: configured severities, [report] settings */
};

int tlck_report_text(FILE *out, const struct tlck_results *r, const struct tlck_options *o);
int tlck_report_json(FILE *out, const struct tlck_results *r, const struct tlck_options *o);
int tlck_report_sarif(FILE *out, const struct tlck_results *r, const struct tlck_options *o);
int tlck_report_junit(FILE *out, const struct tlck_results *r, const struct tlck_options *o);

/* Dispatch by o->format; returns -1 for an unknown format. */
int tlck_report_write(FILE *out, const struct tlck_results *r, const struct tlck_options *o);

#endif
