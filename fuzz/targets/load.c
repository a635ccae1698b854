/* The checker's audit as trueline-check runs it: tlck_audit_main, the entry point checker/main.c calls for an
 * audit, on one input file: inputs.c (file kind, archive members via libelf's ar support), load.c (ELF / fatbin /
 * cubin dispatch), every reader in checker/read/ that the bytes reach, every check on the model built,
 * suppressions and an emitter (one of the four, chosen by the input's length so that a corpus entry always takes
 * the same one), written to /dev/null. This target grows by itself as readers, checks and emitters land. */
#include "fuzz_util.h"

#include "audit.h"
#include "options.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = { "text", "json", "sarif", "junit" };
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    const char *paths[1] = { ff.path };
    /* one worker: libFuzzer runs inputs one after another; the audit's own threads add nothing but start-up */
    struct tlck_options o = { .format = formats[size % 4], .output = "/dev/null", .fail_on = TLCK_SEV_ERROR,
                              .jobs = 1, .progress = 0, .color = 0, .max_input_mb = 256, .timeout_s = 0,
                              .inputs = paths, .ninputs = 1 };
    tl_config cfg = { 0 };
    struct tlck_policy pol = { .cfg = &cfg, .fail_on = TLCK_SEV_ERROR };
    int rc = tlck_audit_main(&o, &pol);
    if (rc < 0 || rc > 2)
        __builtin_trap(); /* the documented exit statuses are 0, 1 and 2 */
    fuzz_file_close(&ff);
    return 0;
}
