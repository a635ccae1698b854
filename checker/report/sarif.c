/* SARIF 2.1.0 emitter (OASIS schema sarif-schema-2.1.0.json; a copy validates our output in
 * tests/suites/host_reports.sh). One run; rules are the check registry; results carry the file as artifact
 * location, the symbol as a logical location, our fingerprint as partialFingerprints, and suppressed findings
 * a "suppressions" entry. Unreadable inputs are toolExecutionNotifications. */
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "report/json_write.h"
#include "report/report.h"

static const char *level(enum tl_severity s)
{
    return s == TL_SEV_ERROR ? "error" : s == TL_SEV_WARNING ? "warning" : s == TL_SEV_INFO ? "note" : "none";
}

/* A relative or absolute path as a URI reference: unreserved characters and / ( ) : kept, the rest %XX. */
static void uri(FILE *out, const char *path)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/():+", *p))
            fputc(*p, out);
        else
            fprintf(out, "%%%02X", *p);
    }
    fputc('"', out);
}

static void rules(FILE *out)
{
    fputs("\"rules\": [", out);
    for (size_t i = 0; i < tl_ncheck; i++) {
        const struct tl_check *c = tl_checks[i];
        fputs(i ? ", {\"id\": " : "{\"id\": ", out);
        tl_json_str(out, c->id);
        fputs(", \"shortDescription\": {\"text\": ", out);
        tl_json_str(out, c->summary);
        fputs("}, \"helpUri\": ", out);
        uri(out, c->help_uri);
        fprintf(out, ", \"defaultConfiguration\": {\"level\": \"%s\"}}", level(c->default_severity));
    }
    fputs("]", out);
}

static size_t rule_index(const char *id)
{
    for (size_t i = 0; i < tl_ncheck; i++)
        if (strcmp(tl_checks[i]->id, id) == 0)
            return i;
    return 0;
}

static void result(FILE *out, const struct tl_finding *x)
{
    char fp[33];
    tl_finding_fingerprint(x, fp);
    fputs("{\"ruleId\": ", out);
    tl_json_str(out, x->check);
    fprintf(out, ", \"ruleIndex\": %zu, \"level\": \"%s\", \"message\": {\"text\": ", rule_index(x->check),
            level(x->severity));
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s%s%s", x->symbol ? x->symbol : "", x->symbol ? ": " : "",
             x->message ? x->message : "", x->hint ? ". Hint: " : "", x->hint ? x->hint : "");
    tl_json_str(out, text);
    fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
    uri(out, x->file ? x->file : "");
    fputs("}}", out);
    if (x->symbol) {
        fputs(", \"logicalLocations\": [{\"name\": ", out);
        tl_json_str(out, x->symbol);
        fputs(", \"kind\": \"function\"}]", out);
    }
    fprintf(out, "}], \"partialFingerprints\": {\"trueline/v1\": \"%s\"}", fp);
    if (x->suppressed)
        fputs(", \"suppressions\": [{\"kind\": \"external\"}]", out);
    fputs("}", out);
}

int tl_report_sarif(FILE *out, const struct tl_results *r, const struct tl_options *o)
{
    (void)o;
    fputs("{\"$schema\": \"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json\",\n"
          " \"version\": \"2.1.0\",\n \"runs\": [{\"tool\": {\"driver\": {\"name\": \"trueline-check\", \"version\": \""
          TRUELINE_VERSION "\", ", out);
    rules(out);
    fputs("}},\n  \"invocations\": [{\"executionSuccessful\": ", out);
    fputs(r->unreadable ? "false" : "true", out);
    fputs(", \"toolExecutionNotifications\": [", out);
    int first = 1;
    for (size_t i = 0; i < r->nfiles; i++) {
        if (!r->files[i].error)
            continue;
        fputs(first ? "" : ", ", out);
        first = 0;
        fputs("{\"level\": \"error\", \"message\": {\"text\": ", out);
        char text[1024];
        snprintf(text, sizeof text, "%s: cannot read: %s", r->files[i].display, r->files[i].error);
        tl_json_str(out, text);
        fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
        uri(out, r->files[i].display);
        fputs("}}}]}", out);
    }
    fputs("]}],\n  \"results\": [", out);
    first = 1;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->findings[i].n; k++) {
            fputs(first ? "\n   " : ",\n   ", out);
            first = 0;
            result(out, &r->findings[i].v[k]);
        }
    fputs("]}]}\n", out);
    return ferror(out) ? -1 : 0;
}
