#include "report/junit_package.h"

#include <stdlib.h>
#include <string.h>

#include "report/package_report.h"
#include "report/xml_text.h"

enum outcome { PASSED, FAILED, ERRORED, SKIPPED };

/* One test case: its outcome, the message naming the package and the problem (failure, error, skipped), and
 * the item's facts as the text report words them. */
struct item {
    enum outcome outcome;
    char message[4 * TLCK_VERDICT_TEXT_MAX];
    char facts[4 * TLCK_VERDICT_TEXT_MAX];
};

/* What every item is judged from: the audit's results, the package, its verdict (the package pass's). */
struct judged {
    const struct tlck_results *r;
    const struct tlck_package_summary *s;
    const struct tlck_package_verdict *v;
};

static int has_device_code(const struct judged *j)
{
    return j->v->total.cubins || j->v->total.ptx;
}

static void members_read(const struct judged *j, struct item *it)
{
    snprintf(it->facts, sizeof it->facts, "%zu file(s) audited, %zu unreadable", j->s->n, j->s->unreadable);
    if (j->s->unreadable) {
        it->outcome = ERRORED;
        snprintf(it->message, sizeof it->message, "%s: %zu of %zu member(s) could not be read", j->s->path,
                 j->s->unreadable, j->s->n);
    }
}

static void platform(const struct judged *j, struct item *it)
{
    const struct tlck_package_verdict *v = j->v;
    if (!v->platform_judged) {
        it->outcome = SKIPPED;
        snprintf(it->message, sizeof it->message,
                 "%s: no platform verdict (judged for wheels of x86_64 files whose name carries an x86_64 manylinux "
                 "or musllinux tag)", j->s->path);
        return;
    }
    char text[TLCK_VERDICT_TEXT_MAX], bl[TLCK_VERDICT_TEXT_MAX] = "";
    if (v->bl_tag[0])
        tlck_package_blacklist_text(v, bl, sizeof bl);
    tlck_package_platform_text(v, text, sizeof text);
    snprintf(it->facts, sizeof it->facts, "%s%s%s%s%s", text, v->reason[0] ? "\nwhy not more compatible: " : "",
             v->reason, bl[0] ? "\nblacklisted symbols: " : "", bl);
    if (!v->claim_met) {
        it->outcome = FAILED;
        snprintf(it->message, sizeof it->message, "%s: %s%s%s", j->s->path, text,
                 v->reason[0] ? "; why not more compatible: " : "", v->reason);
    }
}

/* Both device items: skipped without device code, else the device line as their facts. 0 when skipped. */
static int device_facts(const struct judged *j, struct item *it)
{
    if (!has_device_code(j)) {
        it->outcome = SKIPPED;
        snprintf(it->message, sizeof it->message, "%s: no device code", j->s->path);
        return 0;
    }
    tlck_package_device_text(j->v, it->facts, sizeof it->facts);
    return 1;
}

static void device_line_info(const struct judged *j, struct item *it)
{
    const struct tlck_member_facts *t = &j->v->total;
    if (device_facts(j, it) && t->kernels_with_lines < t->kernels && j->v->device_lines_wanted) {
        it->outcome = FAILED;
        snprintf(it->message, sizeof it->message,
                 "%s: %zu of %zu kernel(s) have no line rows (%u of %u cubins with line info)", j->s->path,
                 t->kernels - t->kernels_with_lines, t->kernels, t->cubins_with_lines, t->cubins);
    }
}

static void device_archs(const struct judged *j, struct item *it)
{
    const struct tlck_package_verdict *v = j->v;
    if (device_facts(j, it) && v->arch_findings) {
        it->outcome = FAILED;
        snprintf(it->message, sizeof it->message, "%s: %zu cuda-arch finding(s) at warning or above (SASS %s; PTX %s)",
                 j->s->path, v->arch_findings, v->sass[0] ? v->sass : "none", v->ptx[0] ? v->ptx : "none");
    }
}

static void std_exports(const struct judged *j, struct item *it)
{
    snprintf(it->facts, sizeof it->facts, "std:: exports: %zu", j->v->total.std_exports);
}

static void line_info(const struct judged *j, struct item *it)
{
    char text[TLCK_VERDICT_TEXT_MAX], split[TLCK_VERDICT_TEXT_MAX];
    const char *saved = tlck_package_split_text(&j->v->total, split, sizeof split);
    snprintf(it->facts, sizeof it->facts, "line info: %s%s%s",
             tlck_package_line_info_text(&j->v->total, text, sizeof text),
             saved ? "\nline info split out (saved, in the debug store): " : "", saved ? saved : "");
}

/* The test cases of a package's suite, in the text block's order; a new verdict item is a row. */
static const struct {
    const char *name;
    void (*judge)(const struct judged *j, struct item *it);
} items[] = {
    { "members read", members_read },
    { "platform", platform },
    { "device line info", device_line_info },
    { "device archs", device_archs },
    { "std:: exports", std_exports },
    { "line info", line_info },
};
#define NITEMS (sizeof items / sizeof *items)

static void testcase(FILE *out, const char *pkg, const char *name, const struct item *it)
{
    static const char *const element[] = { [FAILED] = "failure", [ERRORED] = "error", [SKIPPED] = "skipped" };
    fputs("    <testcase classname=\"", out);
    tlck_xml_text(out, pkg);
    fputs("\" name=\"", out);
    tlck_xml_text(out, name);
    fputs("\">", out);
    if (it->outcome != PASSED) {
        fprintf(out, "<%s message=\"", element[it->outcome]);
        tlck_xml_text(out, it->message);
        fputs("\">", out);
        tlck_xml_text(out, it->facts);
        fprintf(out, "</%s>", element[it->outcome]);
    } else {
        fputs("<system-out>", out);
        tlck_xml_text(out, it->facts);
        fputs("</system-out>", out);
    }
    fputs("</testcase>\n", out);
}

static void suite(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *s)
{
    struct item *it = calloc(NITEMS, sizeof *it);
    if (!it)
        return;
    const struct judged j = { r, s, &s->verdict };
    size_t count[SKIPPED + 1] = { 0 };
    for (size_t i = 0; i < NITEMS; i++) {
        items[i].judge(&j, &it[i]);
        count[it[i].outcome]++;
    }
    fputs("  <testsuite name=\"package ", out);
    tlck_xml_text(out, s->path);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", NITEMS, count[FAILED],
            count[ERRORED], count[SKIPPED]);
    for (size_t i = 0; i < NITEMS; i++)
        testcase(out, s->path, items[i].name, &it[i]);
    fputs("  </testsuite>\n", out);
    free(it);
}

void tlck_junit_packages(FILE *out, const struct tlck_results *r)
{
    for (size_t i = 0; i < r->npackages; i++)
        suite(out, r, &r->packages[i]);
}
