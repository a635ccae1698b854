#include "profile.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Rows are profiles; a new profile is a row (and a section of docs/packages.md or docs/host-audit.md). */
static const struct tlck_profile profiles[] = {
    { "build", "what a build produced: host DWARF expected, provenance absence reported",
      .release = 0, .stripped_is_finding = 1, .provenance_absent = 1, .device_lines_by_config = 0 },
    { "release", "what ships: stripped files judged by device line info, symbol hygiene and version floors",
      .release = 1, .stripped_is_finding = 0, .provenance_absent = 0, .device_lines_by_config = 1 },
};
#define NPROFILES (sizeof profiles / sizeof *profiles)

const struct tlck_profile *tlck_profile_find(const char *name)
{
    for (size_t i = 0; name && i < NPROFILES; i++)
        if (strcasecmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const char *tlck_profile_names(void)
{
    return "build, release";
}

const struct tlck_profile *tlck_profile_select(const tl_config *cfg, const char *cli, int packages, tl_error *err)
{
    if (cli)
        return tlck_profile_find(cli);
    const char *v = tl_config_get(cfg, "audit", "profile");
    if (!v) /* a package is what ships: judged as shipped unless the user says otherwise */
        return packages ? &profiles[1] : &profiles[0];
    const struct tlck_profile *pr = tlck_profile_find(v);
    if (!pr) {
        char where[1200];
        tl_config_value_origin(cfg, "audit", "profile", v, where, sizeof where);
        tl_fail(err, "%s: [audit] profile = '%s' is not a profile; valid: %s", where, v, tlck_profile_names());
    }
    return pr;
}

const struct tlck_profile *tlck_profile_of(const struct tlck_policy *p)
{
    return p && p->profile ? p->profile : &profiles[0];
}

/* --checks "a, b": blanks around an id are not part of it (as policy.c reads the list). */
static int in_list(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *s = list; s && *s;) {
        while (*s == ',' || isspace((unsigned char)*s))
            s++;
        const char *e = s + strcspn(s, ",");
        const char *t = e;
        while (t > s && isspace((unsigned char)t[-1]))
            t--;
        if ((size_t)(t - s) == n && strncmp(s, id, n) == 0)
            return 1;
        s = e;
    }
    return 0;
}

int tlck_profile_asked(const struct tlck_policy *p, const char *id)
{
    return (p->only && in_list(p->only, id)) || tl_config_get(p->cfg, "checks", id) != NULL;
}

int tlck_profile_wants_device_lines(const struct tlck_policy *p)
{
    const struct tlck_profile *pr = tlck_profile_of(p);
    return !pr->device_lines_by_config || tl_config_bool(p->cfg, "wrapper", "device_lineinfo", 1) != 0;
}
