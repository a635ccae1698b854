/* JUnit XML: one <testsuite> per input file, one <testcase> per check; a check fails when it has an
 * unsuppressed finding at or above --fail-on; all of its findings are listed in the failure text or in
 * <system-out>. Unreadable inputs are <error> test cases. */
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "report/json_write.h"
#include "report/report.h"

/* Is the well-formed UTF-8 sequence p[0..n) a character XML 1.0 allows (§2.2 Char)? Of the valid sequences
 * only controls other than TAB/LF/CR and U+FFFE/U+FFFF (EF BF BE/BF) are not; no character reference can
 * carry them either. */
static int xml_char(const unsigned char *p, size_t n)
{
    if (n == 1)
        return *p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r';
    return !(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
}

/* Text and attribute values alike. TAB, LF and CR go as character references, which survive attribute-value
 * normalization; every byte XML cannot carry (a forbidden character, or one outside well-formed UTF-8) becomes
 * the text \ooo, three octal digits, as the JSON writer writes bytes that are not UTF-8 (docs/internals/json-writer.md). */
static void xml(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        size_t n = tlck_utf8_seq(p);
        if (n == 0 || !xml_char(p, n)) {
            for (size_t i = 0; i < (n ? n : 1); i++)
                fprintf(out, "\\%03o", p[i]);
            p += n ? n - 1 : 0;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, n, out);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\t': case '\n': case '\r': fprintf(out, "&#%d;", *p); break;
        default: fputc(*p, out);
        }
    }
}

static void finding_lines(FILE *out, const struct tlck_findings *fs, const char *check)
{
    for (size_t k = 0; k < fs->n; k++) {
        const struct tlck_finding *x = &fs->v[k];
        if (strcmp(x->check, check) != 0)
            continue;
        fprintf(out, "%s%s: ", tlck_severity_name(x->severity), x->suppressed ? " (suppressed)" : "");
        if (x->symbol) {
            xml(out, x->symbol);
            fputs(": ", out);
        }
        xml(out, x->message);
        fputs("\n", out);
    }
}

static void suite(FILE *out, const struct tlck_file *f, const struct tlck_findings *fs, const struct tlck_options *o)
{
    size_t failures = 0;
    int failed[64] = { 0 };
    for (size_t c = 0; c < tlck_ncheck && c < 64; c++)
        for (size_t k = 0; k < fs->n && !failed[c]; k++)
            if (strcmp(fs->v[k].check, tlck_checks[c]->id) == 0 && !fs->v[k].suppressed &&
                fs->v[k].severity >= o->fail_on)
                failed[c] = 1;
    for (size_t c = 0; c < tlck_ncheck && c < 64; c++)
        failures += (size_t)failed[c];
    fputs("  <testsuite name=\"", out);
    xml(out, f->display);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\">\n", f->error ? 1 : tlck_ncheck, failures,
            f->error ? 1 : 0);
    if (f->error) {
        fputs("    <testcase classname=\"", out);
        xml(out, f->display);
        fputs("\" name=\"read\"><error message=\"", out);
        xml(out, f->error);
        fputs("\"/></testcase>\n  </testsuite>\n", out);
        return;
    }
    for (size_t c = 0; c < tlck_ncheck && c < 64; c++) {
        fputs("    <testcase classname=\"", out);
        xml(out, f->display);
        fprintf(out, "\" name=\"%s\">", tlck_checks[c]->id);
        if (failed[c]) {
            fprintf(out, "<failure message=\"%s findings\">", tlck_checks[c]->id);
            finding_lines(out, fs, tlck_checks[c]->id);
            fputs("</failure>", out);
        } else {
            fputs("<system-out>", out);
            finding_lines(out, fs, tlck_checks[c]->id);
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
        suite(out, &r->files[i], &r->findings[i], o);
    fputs("</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
