/* Packages (wheels and other zips, .conda, conda .tar.bz2): checker/inputs_package.c lists the members through
 * libarchive (one level of nesting, static archives expanded by libelf), and decompresses each ELF/fatbin member as tlck_input_map would for a worker. */
#include "fuzz_util.h"

#include "input_formats.h"
#include "inputs.h"
#include "inputs_package.h"
#include "trueline/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    struct tlck_inputs in = { 0 };
    struct tlck_container c = { .path = ff.path, .display = ff.path, .top = 1,
                                 .format_of = tlck_input_format_of };
    tlck_package_expand(&in, &c);
    for (size_t i = 0; i < in.n && i < 64; i++) {
        struct tlck_input_bytes b;
        tl_error err;
        tl_budget budget; /* one per member, as the loader makes one per input */
        tl_budget_init(&budget, (size_t)64 << 20, 0);
        if (tlck_input_map(&in.v[i], &b, &budget, &err) == 0) {
            fuzz_touch(b.data, b.size);
            tlck_input_unmap(&b);
        }
    }
    tlck_inputs_free(&in);
    fuzz_file_close(&ff);
    return 0;
}
