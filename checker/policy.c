#include "policy.h"

#include <string.h>

static int listed(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, id, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

enum tl_severity tl_policy_severity(const struct tl_policy *p, const char *id, enum tl_severity dflt)
{
    if (p->only && !listed(p->only, id))
        return TL_SEV_NONE;
    const char *v = tl_config_get(p->cfg, "checks", id);
    enum tl_severity s;
    if (v && tl_severity_parse(v, &s) == 0)
        return s;
    return dflt;
}
