#include "report/junit_package.h"

#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "profile.h"
#include "report/package_report.h"
#include "report/package_verdict.h"
#include "report/xml_text.h"

enum outcome { PASSED, FAILED, ERRORED, SKIPPED };

/* One verdict item: its outcome, the message naming the package and the problem (failure, error, skipped),
 * and the item's facts as the text report words them. */
struct item {
    const char *name;
    enum outcome outcome;
    char message[4 * TLCK_VERDICT_TEXT_MAX];
    char facts[4 * TLCK_VERDICT_TEXT_MAX];
};

enum { ITEM_MEMBERS, ITEM_PLATFORM, ITEM_DEVICE_LINES, ITEM_ARCHS, ITEM_STD, ITEM_LINE_INFO, NITEMS };

/* Whether kernels without line rows are a defect under the audit's policy: the profile asks for device line
 * info (the release profile not when the team's compiles turn it off) and line-tables is not switched off. */
static int device_lines_wanted(const struct tlck_policy *p)
{
    const struct tlck_check *lt = tlck_check_by_id("line-tables");
    return !p || (tlck_profile_wants_device_lines(p) &&
                  (!lt || tlck_policy_severity(p, lt->id, lt->default_severity) != TLCK_SEV_NONE));
}

static void judge(const struct tlck_results *r, const struct tlck_package_summary *s,
                  const struct tlck_package_verdict *v, struct item it[NITEMS])
{
    const char *pkg = s->path;
    const struct tlck_member_facts *t = &v->total;
    char text[TLCK_VERDICT_TEXT_MAX];
    int device = t->cubins || t->ptx;

    it[ITEM_MEMBERS].name = "members read";
    snprintf(it[ITEM_MEMBERS].facts, sizeof it->facts, "%zu file(s) audited, %zu unreadable", s->n, s->unreadable);
    if (s->unreadable) {
        it[ITEM_MEMBERS].outcome = ERRORED;
        snprintf(it[ITEM_MEMBERS].message, sizeof it->message, "%s: %zu of %zu member(s) could not be read", pkg,
                 s->unreadable, s->n);
    }

    it[ITEM_PLATFORM].name = "platform";
    if (!v->platform_judged) {
        it[ITEM_PLATFORM].outcome = SKIPPED;
        snprintf(it[ITEM_PLATFORM].message, sizeof it->message,
                 "%s: no platform verdict (judged for wheels of x86_64 files whose name carries an x86_64 manylinux "
                 "or musllinux tag)", pkg);
    } else {
        char bl[TLCK_VERDICT_TEXT_MAX] = "";
        if (v->bl_tag[0])
            tlck_package_blacklist_text(v, bl, sizeof bl);
        tlck_package_platform_text(v, text, sizeof text);
        snprintf(it[ITEM_PLATFORM].facts, sizeof it->facts, "%s%s%s%s%s", text,
                 v->reason[0] ? "\nwhy not more compatible: " : "", v->reason, bl[0] ? "\nblacklisted symbols: " : "",
                 bl);
        if (!v->claim_met) {
            it[ITEM_PLATFORM].outcome = FAILED;
            snprintf(it[ITEM_PLATFORM].message, sizeof it->message, "%s: %s%s%s", pkg, text,
                     v->reason[0] ? "; why not more compatible: " : "", v->reason);
        }
    }

    tlck_package_device_text(v, text, sizeof text);
    it[ITEM_DEVICE_LINES].name = "device line info";
    it[ITEM_ARCHS].name = "device archs";
    if (!device) {
        it[ITEM_DEVICE_LINES].outcome = it[ITEM_ARCHS].outcome = SKIPPED;
        snprintf(it[ITEM_DEVICE_LINES].message, sizeof it->message, "%s: no device code", pkg);
        snprintf(it[ITEM_ARCHS].message, sizeof it->message, "%s: no device code", pkg);
    } else {
        snprintf(it[ITEM_DEVICE_LINES].facts, sizeof it->facts, "%s", text);
        snprintf(it[ITEM_ARCHS].facts, sizeof it->facts, "%s", text);
        if (t->kernels_with_lines < t->kernels && device_lines_wanted(r->policy)) {
            it[ITEM_DEVICE_LINES].outcome = FAILED;
            snprintf(it[ITEM_DEVICE_LINES].message, sizeof it->message,
                     "%s: %zu of %zu kernel(s) have no line rows (%u of %u cubins with line info)", pkg,
                     t->kernels - t->kernels_with_lines, t->kernels, t->cubins_with_lines, t->cubins);
        }
        if (v->arch_findings) {
            it[ITEM_ARCHS].outcome = FAILED;
            snprintf(it[ITEM_ARCHS].message, sizeof it->message,
                     "%s: %zu cuda-arch finding(s) at warning or above (SASS %s; PTX %s)", pkg, v->arch_findings,
                     v->sass[0] ? v->sass : "none", v->ptx[0] ? v->ptx : "none");
        }
    }

    it[ITEM_STD].name = "std:: exports";
    snprintf(it[ITEM_STD].facts, sizeof it->facts, "std:: exports: %zu", t->std_exports);

    it[ITEM_LINE_INFO].name = "line info";
    snprintf(it[ITEM_LINE_INFO].facts, sizeof it->facts, "line info: %s",
             tlck_package_line_info_text(t, text, sizeof text));
}

static void testcase(FILE *out, const char *pkg, const struct item *it)
{
    static const char *const element[] = { [FAILED] = "failure", [ERRORED] = "error", [SKIPPED] = "skipped" };
    fputs("    <testcase classname=\"", out);
    tlck_xml_text(out, pkg);
    fputs("\" name=\"", out);
    tlck_xml_text(out, it->name);
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
    struct tlck_package_verdict v;
    tlck_package_verdict(r, s->first, s->n, &v);
    struct item *it = calloc(NITEMS, sizeof *it);
    if (!it) {
        tlck_package_verdict_free(&v);
        return;
    }
    judge(r, s, &v, it);
    size_t count[SKIPPED + 1] = { 0 };
    for (int i = 0; i < NITEMS; i++)
        count[it[i].outcome]++;
    fputs("  <testsuite name=\"package ", out);
    tlck_xml_text(out, s->path);
    fprintf(out, "\" tests=\"%d\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", NITEMS, count[FAILED],
            count[ERRORED], count[SKIPPED]);
    for (int i = 0; i < NITEMS; i++)
        testcase(out, s->path, &it[i]);
    fputs("  </testsuite>\n", out);
    free(it);
    tlck_package_verdict_free(&v);
}

void tlck_junit_packages(FILE *out, const struct tlck_results *r)
{
    size_t n;
    struct tlck_package_summary *pkg = tlck_package_summaries(r, &n);
    for (size_t i = 0; i < n; i++)
        suite(out, r, &pkg[i]);
    free(pkg);
}
