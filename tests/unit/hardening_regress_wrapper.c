/* hardening_regress.c's counterpart for the wrapper's fuzz targets (wrapper/argv.c folding). */
#include "regress_replay.h"

#define LLVMFuzzerTestOneInput fuzz_argv
#include "../../fuzz/targets/argv.c"
#undef LLVMFuzzerTestOneInput

static const struct regress_target targets[] = {
    { "argv", fuzz_argv },
};

int main(void)
{
    if (regress_replay(targets, sizeof targets / sizeof *targets) == 0)
        printf("SKIP %s: no wrapper regression inputs yet (fuzz/targets/argv.c has found none)\n", __FILE__);
    UNIT_EXIT();
}
