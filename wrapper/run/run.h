/* The run step (run.c): the plan's effects before the compile. */
#ifndef TLCC_WRAPPER_RUN_H
#define TLCC_WRAPPER_RUN_H
#include "run/plan.h"

/* Creates the stage entry the plan names (when it cannot be made, says why and plans again without a
 * stage: the objects are then stamped after the compile) and edits this process's environment as the plan
 * says, for the command to inherit. */
void tlcc_run_prepare(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov);

#endif
