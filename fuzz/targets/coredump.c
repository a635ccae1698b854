/* trueline-check --coredump on one core: tlck_tool_coredump, the entry point checker/main.c calls for that mode.
 * checker/read/coredump.c reads the .cudbg.* tables of a CUDA GPU core (ET_CORE, EM_CUDA), tree walked by
 * sh_link/sh_info; the tool then finds every stopped lane's grid, module and function, resolves its PC through
 * the module's line table, and writes the text or the JSON report (chosen by the input's length, so a corpus
 * entry always takes the same one) to /dev/null. */
#include "fuzz_util.h"

#include "options.h"
#include "tools/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    const char *paths[1] = { ff.path };
    struct tlck_options o = { .format = size % 2 ? "json" : "text", .output = "/dev/null",
                              .fail_on = TLCK_SEV_ERROR, .jobs = 1, .progress = 0, .color = 0, .max_input_mb = 256,
                              .inputs = paths, .ninputs = 1 };
    int rc = tlck_tool_coredump(&o);
    if (rc != 0 && rc != 2)
        __builtin_trap(); /* a core is reported (0) or named as unreadable (2) */
    fuzz_file_close(&ff);
    return 0;
}
