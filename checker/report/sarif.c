/* SARIF 2.1.0 emitter (OASIS schema sarif-schema-2.1.0.json; a copy validates our output in
 * tests/suites/host_reports.sh). One run; rules are the check registry; results carry the file as artifact
 * location, the symbol as a logical location, our fingerprint as partialFingerprints, and suppressed findings
 * a "suppressions" entry. Unreadable inputs are toolExecutionNotifications. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "report/json_write.h"
#include "report/package_report.h"
#include "report/report.h"

static const char *level(enum tlck_severity s)
{
    return s == TLCK_SEV_ERROR ? "error" : s == TLCK_SEV_WARNING ? "warning" : s == TLCK_SEV_INFO ? "note" : "none";
}

/* A relative or absolute path as a URI reference: unreserved characters and / ( ) : kept, the rest %XX. */
static void uri(struct tlck_jw *w, const char *key, const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 1), *q = u;
    if (!u) {
        tlck_jw_str(w, key, "");
        return;
    }
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/():+", *p))
            *q++ = (char)*p;
        else
            q += sprintf(q, "%%%02X", *p);
    }
    *q = 0;
    tlck_jw_str(w, key, u);
    free(u);
}

/* {"physicalLocation": {"artifactLocation": {"uri": ...}}}, left open for the logical locations. */
static void location_open(struct tlck_jw *w, const char *path)
{
    tlck_jw_object(w, NULL);
    tlck_jw_object(w, "physicalLocation");
    tlck_jw_object(w, "artifactLocation");
    uri(w, "uri", path);
    tlck_jw_end(w);
    tlck_jw_end(w);
}

static void text_object(struct tlck_jw *w, const char *key, const char *text)
{
    tlck_jw_object(w, key);
    tlck_jw_str(w, "text", text);
    tlck_jw_end(w);
}

/* Where the check pages are published: helpUri must be absolute for code-scanning UIs to link it. */
#define DEFAULT_HELP_BASE "https://github.com/trueline/trueline/blob/main/"

/* Each rule's default level is the severity this run gives the check ([checks] id = ...), so that a
 * viewer's filter by level agrees with the results. */
static void rules(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_policy *p)
{
    const char *base = p && p->cfg ? tl_config_get(p->cfg, "report", "help_base_url") : NULL;
    if (!base || !*base)
        base = DEFAULT_HELP_BASE;
    size_t blen = strlen(base);
    tlck_jw_array(w, "rules");
    for (size_t i = 0; i < r->nrules; i++) {
        const struct tlck_rule *c = &r->rules[i];
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "id", c->id);
        text_object(w, "shortDescription", c->summary);
        char *help = malloc(blen + strlen(c->help_uri) + 2);
        if (help) {
            sprintf(help, "%s%s%s", base, base[blen - 1] == '/' ? "" : "/", c->help_uri);
            uri(w, "helpUri", help);
            free(help);
        }
        tlck_jw_object(w, "defaultConfiguration");
        tlck_jw_str(w, "level", level(p ? tlck_policy_severity(p, c->id, c->default_severity) : c->default_severity));
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}

static size_t rule_index(const struct tlck_results *r, const char *id)
{
    for (size_t i = 0; i < r->nrules; i++)
        if (strcmp(r->rules[i].id, id) == 0)
            return i;
    return 0;
}

static void result(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_finding *x)
{
    char fp[33];
    tlck_finding_fingerprint(x, fp);
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "ruleId", x->check);
    tlck_jw_uint(w, "ruleIndex", rule_index(r, x->check));
    tlck_jw_str(w, "level", level(x->severity));
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s%s%s", x->symbol ? x->symbol : "", x->symbol ? ": " : "",
             x->message ? x->message : "", x->hint ? ". Hint: " : "", x->hint ? x->hint : "");
    text_object(w, "message", text);
    tlck_jw_array(w, "locations");
    location_open(w, x->file ? x->file : "");
    if (x->symbol) {
        tlck_jw_array(w, "logicalLocations");
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "name", x->symbol);
        if (x->mangled)
            tlck_jw_str(w, "decoratedName", x->mangled);
        tlck_jw_str(w, "kind", "function");
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
    tlck_jw_object(w, "partialFingerprints");
    tlck_jw_str(w, "trueline/v1", fp);
    tlck_jw_end(w);
    if (x->suppressed) {
        tlck_jw_array(w, "suppressions");
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "kind", "external");
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}

static void tool(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_policy *p)
{
    tlck_jw_object(w, "tool");
    tlck_jw_object(w, "driver");
    tlck_jw_str(w, "name", "trueline-check");
    tlck_jw_str(w, "version", TRUELINE_VERSION);
    rules(w, r, p);
    tlck_jw_end(w);
    tlck_jw_end(w);
}

static void invocations(struct tlck_jw *w, const struct tlck_results *r)
{
    tlck_jw_array(w, "invocations");
    tlck_jw_object(w, NULL);
    tlck_jw_bool(w, "executionSuccessful", !r->unreadable);
    tlck_jw_array(w, "toolExecutionNotifications");
    for (size_t i = 0; i < r->nfiles; i++) {
        if (!r->files[i].error)
            continue;
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "level", "error");
        char text[1024];
        snprintf(text, sizeof text, "%s: cannot read: %s", r->files[i].display, r->files[i].error);
        text_object(w, "message", text);
        tlck_jw_array(w, "locations");
        location_open(w, r->files[i].display);
        tlck_jw_end(w);
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
    tlck_jw_end(w);
}

int tlck_report_sarif(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    (void)o;
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    tlck_jw_object(&w, NULL);
    tlck_jw_str(&w, "$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
    tlck_jw_break(&w, "\n ");
    tlck_jw_str(&w, "version", "2.1.0");
    tlck_jw_break(&w, "\n ");
    tlck_jw_array(&w, "runs");
    tlck_jw_object(&w, NULL);
    tool(&w, r, r->policy);
    tlck_jw_break(&w, "\n  ");
    invocations(&w, r);
    tlck_jw_break(&w, "\n  ");
    tlck_jw_array(&w, "results");
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->findings[i].n; k++) {
            tlck_jw_break(&w, "\n   ");
            result(&w, r, &r->findings[i].v[k]);
        }
    tlck_jw_end(&w);
    tlck_package_sarif_properties(&w, r); /* report/package_report.c */
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}
