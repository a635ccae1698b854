/* JUnit XML: one <testsuite> per input file, one <testcase> per check; a check fails when it has an
 * unsuppressed finding at or above --fail-on; all of its findings are listed in the failure text or in
 * <system-out>. Unreadable inputs are <error> test cases. Then one <testsuite> per package: its verdict
 * (report/junit_package.c). */
#include <stdio.h>
#include <string.h>

#include "report/junit_package.h"
#include "report/report.h"
#include "report/xml_text.h"

static void finding_lines(FILE *out, const struct tlck_findings *fs, const char *check)
{
    for (size_t k = 0; k < fs->n; k++) {
        const struct tlck_finding *x = &fs->v[k];
        if (strcmp(x->check, check) != 0)
            continue;
        fprintf(out, "%s%s: ", tlck_severity_name(x->severity), x->suppressed ? " (suppressed)" : "");
        if (x->symbol) {
            tlck_xml_text(out, x->symbol);
            fputs(": ", out);
        }
        tlck_xml_text(out, x->message);
        fputs("\n", out);
    }
}

static void suite(FILE *out, const struct tlck_results *r, const struct tlck_file *f, const struct tlck_findings *fs,
                  const struct tlck_options *o)
{
    size_t failures = 0;
    int failed[64] = { 0 };
    for (size_t c = 0; c < r->nrules && c < 64; c++)
        for (size_t k = 0; k < fs->n && !failed[c]; k++)
            if (strcmp(fs->v[k].check, r->rules[c].id) == 0 && !fs->v[k].suppressed &&
                fs->v[k].severity >= o->fail_on)
                failed[c] = 1;
    for (size_t c = 0; c < r->nrules && c < 64; c++)
        failures += (size_t)failed[c];
    fputs("  <testsuite name=\"", out);
    tlck_xml_text(out, f->display);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\" skipped=\"0\">\n", f->error ? 1 : r->nrules,
            failures, f->error ? 1 : 0);
    if (f->error) {
        fputs("    <testcase classname=\"", out);
        tlck_xml_text(out, f->display);
        fputs("\" name=\"read\"><error message=\"", out);
        tlck_xml_text(out, f->error);
        fputs("\"/></testcase>\n  </testsuite>\n", out);
        return;
    }
    for (size_t c = 0; c < r->nrules && c < 64; c++) {
        fputs("    <testcase classname=\"", out);
        tlck_xml_text(out, f->display);
        fprintf(out, "\" name=\"%s\">", r->rules[c].id);
        if (failed[c]) {
            fprintf(out, "<failure message=\"%s findings\">", r->rules[c].id);
            finding_lines(out, fs, r->rules[c].id);
            fputs("</failure>", out);
        } else {
            fputs("<system-out>", out);
            finding_lines(out, fs, r->rules[c].id);
            fputs("</system-out>", out);
        }
        fputs("</testcase>\n", out);
    }
    fputs("  </testsuite>\n", out);
}

int tlck_report_junit(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"trueline-check\">\n", out);
    for (size_t i = 0; i < r->nfiles; i++)
        suite(out, r, &r->files[i], &r->findings[i], o);
    tlck_junit_packages(out, r);
    fputs("</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
