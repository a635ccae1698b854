/* The checker's whole per-input path: inputs.c (file kind, archive members via libelf's ar support), load.c
 * (ELF / fatbin / cubin dispatch), every reader in checker/read/ that the bytes reach, and every check on the model
 * built. This target grows by itself as readers land: whatever tlck_load_file calls is fuzzed. */
#include "fuzz_util.h"

#include "check_run.h"
#include "inputs.h"
#include "load.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    struct tlck_options o = { .format = "text", .fail_on = TLCK_SEV_ERROR, .max_input_mb = 256, .timeout_s = 0 };
    tl_config cfg = { 0 };
    struct tlck_policy pol = { .cfg = &cfg, .fail_on = TLCK_SEV_ERROR };
    struct tlck_check_run checks;
    tl_error perr;
    if (tlck_check_run_prepare(&checks, &pol, &perr) != 0) {
        fuzz_file_close(&ff);
        return 0;
    }
    const char *paths[1] = { ff.path };
    struct tlck_inputs in = { 0 };
    tlck_inputs_expand(&in, paths, 1);
    for (size_t i = 0; i < in.n && i < 64; i++) {
        struct tlck_file f;
        struct tlck_findings fs = { 0 };
        tlck_load_file(&in.v[i], &o, &f);
        if (!f.error)
            for (size_t c = 0; c < tlck_ncheck; c++)
                tlck_checks[c]->run(&f, &pol, tlck_check_run_state(&checks, tlck_checks[c]),
                                    tlck_checks[c]->default_severity ? tlck_checks[c]->default_severity : TLCK_SEV_INFO,
                                    &fs);
        tlck_findings_free(&fs);
        tlck_file_free(&f);
    }
    tlck_inputs_free(&in);
    tlck_check_run_release(&checks);
    fuzz_file_close(&ff);
    return 0;
}
