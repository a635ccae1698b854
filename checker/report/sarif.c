/* SARIF 2.1.0 emitter (OASIS schema sarif-schema-2.1.0.json; a copy validates our output in
 * tests/suites/host_reports.sh). One run; rules are the check registry; results carry the file as artifact
 * location, the symbol as a logical location, our fingerprint as partialFingerprints, and suppressed findings
 * a "suppressions" entry. Unreadable inputs are toolExecutionNotifications. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "policy.h"
#include "report/json_write.h"
#include "report/report.h"

static const char *level(enum tl_severity s)
{
    return s == TL_SEV_ERROR ? "error" : s == TL_SEV_WARNING ? "warning" : s == TL_SEV_INFO ? "note" : "none";
}

/* A relative or absolute path as a URI reference: unreserved characters and / ( ) : kept, the rest %XX. */
static void uri(struct tl_jw *w, const char *key, const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 1), *q = u;
    if (!u) {
        tl_jw_str(w, key, "");
        return;
    }
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/():+", *p))
            *q++ = (char)*p;
        else
            q += sprintf(q, "%%%02X", *p);
    }
    *q = 0;
    tl_jw_str(w, key, u);
    free(u);
}

/* {"physicalLocation": {"artifactLocation": {"uri": ...}}}, left open for the logical locations. */
static void location_open(struct tl_jw *w, const char *path)
{
    tl_jw_object(w, NULL);
    tl_jw_object(w, "physicalLocation");
    tl_jw_object(w, "artifactLocation");
    uri(w, "uri", path);
    tl_jw_end(w);
    tl_jw_end(w);
}

static void text_object(struct tl_jw *w, const char *key, const char *text)
{
    tl_jw_object(w, key);
    tl_jw_str(w, "text", text);
    tl_jw_end(w);
}

/* Where the check pages are published: helpUri must be absolute for code-scanning UIs to link it. */
#define DEFAULT_HELP_BASE "https://github.com/trueline/trueline/blob/main/"

/* Each rule's default level is the severity this run gives the check ([checks] id = ...), so that a
 * viewer's filter by level agrees with the results. */
static void rules(struct tl_jw *w, const struct tl_policy *p)
{
    const char *base = p && p->cfg ? tl_config_get(p->cfg, "report", "help_base_url") : NULL;
    if (!base || !*base)
        base = DEFAULT_HELP_BASE;
    size_t blen = strlen(base);
    tl_jw_array(w, "rules");
    for (size_t i = 0; i < tl_ncheck; i++) {
        const struct tl_check *c = tl_checks[i];
        tl_jw_object(w, NULL);
        tl_jw_str(w, "id", c->id);
        text_object(w, "shortDescription", c->summary);
        char *help = malloc(blen + strlen(c->help_uri) + 2);
        if (help) {
            sprintf(help, "%s%s%s", base, base[blen - 1] == '/' ? "" : "/", c->help_uri);
            uri(w, "helpUri", help);
            free(help);
        }
        tl_jw_object(w, "defaultConfiguration");
        tl_jw_str(w, "level", level(p ? tl_policy_severity(p, c->id, c->default_severity) : c->default_severity));
        tl_jw_end(w);
        tl_jw_end(w);
    }
    tl_jw_end(w);
}

static size_t rule_index(const char *id)
{
    for (size_t i = 0; i < tl_ncheck; i++)
        if (strcmp(tl_checks[i]->id, id) == 0)
            return i;
    return 0;
}

static void result(struct tl_jw *w, const struct tl_finding *x)
{
    char fp[33];
    tl_finding_fingerprint(x, fp);
    tl_jw_object(w, NULL);
    tl_jw_str(w, "ruleId", x->check);
    tl_jw_uint(w, "ruleIndex", rule_index(x->check));
    tl_jw_str(w, "level", level(x->severity));
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s%s%s", x->symbol ? x->symbol : "", x->symbol ? ": " : "",
             x->message ? x->message : "", x->hint ? ". Hint: " : "", x->hint ? x->hint : "");
    text_object(w, "message", text);
    tl_jw_array(w, "locations");
    location_open(w, x->file ? x->file : "");
    if (x->symbol) {
        tl_jw_array(w, "logicalLocations");
        tl_jw_object(w, NULL);
        tl_jw_str(w, "name", x->symbol);
        tl_jw_str(w, "kind", "function");
        tl_jw_end(w);
        tl_jw_end(w);
    }
    tl_jw_end(w);
    tl_jw_end(w);
    tl_jw_object(w, "partialFingerprints");
    tl_jw_str(w, "trueline/v1", fp);
    tl_jw_end(w);
    if (x->suppressed) {
        tl_jw_array(w, "suppressions");
        tl_jw_object(w, NULL);
        tl_jw_str(w, "kind", "external");
        tl_jw_end(w);
        tl_jw_end(w);
    }
    tl_jw_end(w);
}

static void tool(struct tl_jw *w, const struct tl_policy *p)
{
    tl_jw_object(w, "tool");
    tl_jw_object(w, "driver");
    tl_jw_str(w, "name", "trueline-check");
    tl_jw_str(w, "version", TRUELINE_VERSION);
    rules(w, p);
    tl_jw_end(w);
    tl_jw_end(w);
}

static void invocations(struct tl_jw *w, const struct tl_results *r)
{
    tl_jw_array(w, "invocations");
    tl_jw_object(w, NULL);
    tl_jw_bool(w, "executionSuccessful", !r->unreadable);
    tl_jw_array(w, "toolExecutionNotifications");
    for (size_t i = 0; i < r->nfiles; i++) {
        if (!r->files[i].error)
            continue;
        tl_jw_object(w, NULL);
        tl_jw_str(w, "level", "error");
        char text[1024];
        snprintf(text, sizeof text, "%s: cannot read: %s", r->files[i].display, r->files[i].error);
        text_object(w, "message", text);
        tl_jw_array(w, "locations");
        location_open(w, r->files[i].display);
        tl_jw_end(w);
        tl_jw_end(w);
        tl_jw_end(w);
    }
    tl_jw_end(w);
    tl_jw_end(w);
    tl_jw_end(w);
}

int tl_report_sarif(FILE *out, const struct tl_results *r, const struct tl_options *o)
{
    (void)o;
    struct tl_jw w;
    tl_jw_init(&w, out, 0);
    tl_jw_object(&w, NULL);
    tl_jw_str(&w, "$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
    tl_jw_break(&w, "\n ");
    tl_jw_str(&w, "version", "2.1.0");
    tl_jw_break(&w, "\n ");
    tl_jw_array(&w, "runs");
    tl_jw_object(&w, NULL);
    tool(&w, r->policy);
    tl_jw_break(&w, "\n  ");
    invocations(&w, r);
    tl_jw_break(&w, "\n  ");
    tl_jw_array(&w, "results");
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->findings[i].n; k++) {
            tl_jw_break(&w, "\n   ");
            result(&w, &r->findings[i].v[k]);
        }
    tl_jw_end(&w);
    tl_jw_end(&w);
    tl_jw_end(&w);
    tl_jw_end(&w);
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}
