#include "check_run.h"

#include <stdlib.h>
#include <string.h>

int tlck_check_run_prepare(struct tlck_check_run *r, const struct tlck_policy *p, tl_error *err)
{
    memset(r, 0, sizeof *r);
    if (tlck_policy_validate(p, err) != 0)
        return -1;
    r->p = p;
    r->state = calloc(tlck_ncheck ? tlck_ncheck : 1, sizeof *r->state);
    if (!r->state)
        return tl_fail(err, "out of memory preparing the checks");
    for (size_t i = 0; i < tlck_ncheck; i++)
        if (tlck_checks[i]->prepare && tlck_checks[i]->prepare(p, &r->state[i], err) != 0) {
            tlck_check_run_release(r);
            return -1;
        }
    return 0;
}

void tlck_check_run_file(const struct tlck_check_run *r, const struct tlck_file *f, struct tlck_findings *out)
{
    for (size_t c = 0; c < tlck_ncheck; c++) {
        const struct tlck_check *chk = tlck_checks[c];
        enum tlck_severity sev = tlck_policy_severity(r->p, chk->id, chk->default_severity);
        if (sev != TLCK_SEV_NONE)
            chk->run(f, r->p, r->state[c], sev, out);
    }
}

const void *tlck_check_run_state(const struct tlck_check_run *r, const struct tlck_check *c)
{
    for (size_t i = 0; r && r->state && i < tlck_ncheck; i++)
        if (tlck_checks[i] == c)
            return r->state[i];
    return NULL;
}

void tlck_check_run_release(struct tlck_check_run *r)
{
    for (size_t i = 0; r->state && i < tlck_ncheck; i++)
        if (tlck_checks[i]->release)
            tlck_checks[i]->release(r->state[i]);
    free(r->state);
    memset(r, 0, sizeof *r);
}
