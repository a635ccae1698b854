#include "package_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/symbol_versions.h"
#include "package_verdict.h"
#include "packages.h"
#include "profile.h"

static const struct tlck_symbol_versions_table *symbol_versions(const struct tlck_check_run *checks)
{
    return tlck_check_run_state(checks, &tlck_check_symbol_versions);
}

int tlck_package_pass_prepare(struct tlck_package_pass *pp, const struct tlck_check_run *checks, tl_error *err)
{
    memset(pp, 0, sizeof *pp);
    pp->checks = checks;
    int rc = tlck_platforms_load(&pp->platforms, tlck_symbol_versions_floors(symbol_versions(checks)), NULL, 0,
                                 err);
    if (rc < 0)
        return -1;
    pp->have_platforms = rc == 0;
    return 0;
}

void tlck_package_pass_release(struct tlck_package_pass *pp)
{
    tlck_platforms_free(&pp->platforms);
    memset(pp, 0, sizeof *pp);
}

/* Whether f is a member of a package: its display name is "PACKAGE!member". */
static int package_member(const struct tlck_file *f)
{
    size_t len = f->path ? strlen(f->path) : 0;
    return len && f->display && strncmp(f->display, f->path, len) == 0 && f->display[len] == '!';
}

/* Whether kernels without line rows are a defect under the audit's policy: the profile asks for device line
 * info (the release profile not when the team's compiles turn it off) and line-tables is not switched off. */
static int device_lines_wanted(const struct tlck_policy *p)
{
    const struct tlck_check *lt = tlck_check_by_id("line-tables");
    return !p || (tlck_profile_wants_device_lines(p) &&
                  (!lt || tlck_policy_severity(p, lt->id, lt->default_severity) != TLCK_SEV_NONE));
}

/* The package's summary: its members, the oldest manylinux tag their symbol versions allow, its claimed tag. */
static void summarize(const struct tlck_results *r, const struct tlck_symbol_versions_table *sv,
                      struct tlck_package_summary *s)
{
    const struct tlck_file *f = &r->files[s->first];
    const struct tlck_file **members = malloc(s->n * sizeof *members);
    for (size_t k = s->first; k < s->first + s->n; k++) {
        s->unreadable += r->files[k].error != NULL;
        if (members)
            members[k - s->first] = &r->files[k];
    }
    /* a musllinux wheel links musl, whose symbols carry no versions: no manylinux verdict means anything */
    if (members && s->unreadable < s->n && !strstr(f->path, "musllinux_"))
        s->runs_on = tlck_symbol_versions_oldest_tag(members, s->n, sv);
    free(members);
    if (!tlck_symbol_versions_wheel_tag(f->display, s->claimed, sizeof s->claimed))
        s->claimed[0] = 0;
}

void tlck_package_pass_run(const struct tlck_package_pass *pp, struct tlck_results *r)
{
    const struct tlck_symbol_versions_table *sv = symbol_versions(pp->checks);
    const struct tlck_package_tables tables = { pp->have_platforms ? &pp->platforms : NULL,
                                                tlck_symbol_versions_blacklist(sv) };
    int lines_wanted = device_lines_wanted(r->policy);
    size_t cap = 0;
    for (size_t i = 0; i < r->nfiles;) {
        const struct tlck_file *f = &r->files[i];
        if (!package_member(f)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < r->nfiles && package_member(&r->files[j]) && strcmp(r->files[j].path, f->path) == 0)
            j++;
        if (tlck_grow((void **)&r->packages, &cap, r->npackages + 1, sizeof *r->packages) != 0)
            break;
        struct tlck_package_summary *s = &r->packages[r->npackages++];
        memset(s, 0, sizeof *s);
        s->path = f->path;
        s->first = i;
        s->n = j - i;
        summarize(r, sv, s);
        if (tlck_package_verdict(r, &tables, s->first, s->n, &s->verdict) != 0) {
            fprintf(stderr, "trueline-check: %s: no platform verdict: platform_libs.tsv not found (beside the "
                            "binary in ../share/trueline/, in the source tree's conf/, in the data directory)\n",
                    s->path);
            r->unreadable++;
        }
        s->verdict.device_lines_wanted = lines_wanted;
        r->packages_not_met += s->verdict.platform_judged && !s->verdict.claim_met;
        i = j;
    }
}

void tlck_packages_free(struct tlck_package_summary *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tlck_package_verdict_free(&v[i].verdict);
    free(v);
}
