/* The package verdict in the reports (packages.h, judged by the package pass): a block under each package's line in the text
 * report, a closing table of all packages, a "verdict" object per package in JSON and in SARIF run properties. */
#ifndef TLCK_PACKAGE_REPORT_H
#define TLCK_PACKAGE_REPORT_H
#include <stdio.h>
#include "report/json_write.h"
#include "report/package_summary.h"

struct tlck_package_verdict;
struct tlck_member_facts;

/* The verdict's sentences, worded once for every report that prints them (the text block, JUnit messages):
 * "the files satisfy linux_x86_64; the file name claims manylinux_2_17_x86_64: NOT met" (a judged platform),
 * "x/_m.so imports gzflags from libz.so.1; auditwheel's blacklist rules out ..." (when v->bl_tag is set),
 * "kernels with line rows: 4 of 6 (...); SASS sm_80; PTX none; cuda-arch: 0 finding(s) at warning or above",
 * "61.2 KiB (host .debug_* ...)". Each fills buf (TLCK_VERDICT_TEXT_MAX is enough) and returns it. */
#define TLCK_VERDICT_TEXT_MAX 1024
const char *tlck_package_platform_text(const struct tlck_package_verdict *v, char *buf, size_t n);
const char *tlck_package_blacklist_text(const struct tlck_package_verdict *v, char *buf, size_t n);
const char *tlck_package_device_text(const struct tlck_package_verdict *v, char *buf, size_t n);
const char *tlck_package_line_info_text(const struct tlck_member_facts *t, char *buf, size_t n);
/* What a split took out of the members and the debug store holds ("10.2 KiB (host .debug_* ...)"); NULL when
 * no member had its line info split out. */
const char *tlck_package_split_text(const struct tlck_member_facts *t, char *buf, size_t n);

void tlck_package_text_block(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *s);
/* One row per package; nothing when there is none. */
void tlck_package_text_table(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *pkg, size_t n);
/* "verdict": {...} inside the package's object. */
void tlck_package_json_verdict(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_package_summary *s);
/* SARIF: the run's property bag, "properties": {"trueline-packages": [{path, verdict}]}; nothing without packages. */
void tlck_package_sarif_properties(struct tlck_jw *w, const struct tlck_results *r);

#endif
