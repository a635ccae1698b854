/* checker/read/cubin.c on a whole cubin (EM_CUDA ELF): .nv.info/tkinfo notes, arch, kernels, and the line
 * program via checker/read/cubin_lines.c. */
#include "fuzz_util.h"
#include "read/cubin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tlck_image im;
    memset(&im, 0, sizeof im);
    (void)tlck_cubin_summarize(data, size, "fuzz.cubin", NULL, &im);
    tlck_image_free(&im);
    return 0;
}
