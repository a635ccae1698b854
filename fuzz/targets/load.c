/* The checker's whole per-input path: inputs.c (file kind, archive members via libelf's ar support), load.c
 * (ELF / fatbin / cubin dispatch), every reader in checker/read/ that the bytes reach, and every check on the model
 * built. This target grows by itself as readers land: whatever tl_load_file calls is fuzzed. */
#include "fuzz_util.h"

#include "checks/checks.h"
#include "inputs.h"
#include "load.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    struct tl_options o = { .format = "text", .fail_on = TL_SEV_ERROR, .max_input_mb = 256, .timeout_s = 0 };
    tl_config cfg = { 0 };
    struct tl_policy pol = { .cfg = &cfg, .fail_on = TL_SEV_ERROR };
    const char *paths[1] = { ff.path };
    struct tl_inputs in = { 0 };
    tl_inputs_expand(&in, paths, 1);
    for (size_t i = 0; i < in.n && i < 64; i++) {
        struct tl_file f;
        struct tl_findings fs = { 0 };
        tl_load_file(&in.v[i], &o, &f);
        if (!f.error)
            for (size_t c = 0; c < tl_ncheck; c++)
                tl_checks[c]->run(&f, &pol, tl_checks[c]->default_severity ? tl_checks[c]->default_severity
                                                                            : TL_SEV_INFO, &fs);
        tl_findings_free(&fs);
        tl_file_free(&f);
    }
    tl_inputs_free(&in);
    fuzz_file_close(&ff);
    return 0;
}
