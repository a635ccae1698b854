/* trueline-check --provenance on one input: tlck_tool_provenance, the entry point checker/main.c calls for that
 * mode. The input is loaded as the audit loads it (inputs.c, load.c, the readers), then every .note.trueline
 * record is decoded, its content binding checked, and listed with the compile units that have none, as text or
 * JSON (chosen by the input's length, so a corpus entry always takes the same one), written to /dev/null. */
#include "fuzz_util.h"

#include "options.h"
#include "tools/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    const char *paths[1] = { ff.path };
    struct tlck_options o = { .format = size % 2 ? "json" : "text",
                              .output = "/dev/null", .fail_on = TLCK_SEV_ERROR, .jobs = 1, .progress = 0, .color = 0,
                              .max_input_mb = 256, .inputs = paths, .ninputs = 1 };
    int rc = tlck_tool_provenance(&o);
    if (rc != 0 && rc != 1 && rc != 2)
        __builtin_trap(); /* every input is listed (0; 1 when a record's content binding differs) or named as
                           * unreadable (2) */
    fuzz_file_close(&ff);
    return 0;
}
