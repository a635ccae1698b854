#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>

#include "understand/compiler.h"
#include "provenance/stage.h"

void tlcc_run_prepare(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    tl_error err;
    if (p->stage && tlcc_stage_ensure(p->stage, p->self, &err) != 0) {
        tlcc_plan_free(p);
        tlcc_plan_build(p, inv, prov, NULL, 0);
        /* unstamped objects would fail every later verification: say why */
        fprintf(stderr, "trueline-cc: warning: %s; objects are stamped after the compile instead\n", err.msg);
    }
    if (p->warning)
        fprintf(stderr, "trueline-cc: warning: %s\n", p->warning);
    for (int i = 0; i < p->env_unset.n; i++)
        unsetenv(p->env_unset.v[i]);
    for (int i = 0; i < p->env_set.n; i++)
        setenv(p->env_set.set[i].name, p->env_set.set[i].value, 1);
}
