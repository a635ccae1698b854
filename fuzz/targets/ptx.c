/* checker/read/ptx.c: PTX text (.version/.target/.entry/.loc/.file) to device-image facts. */
#include "fuzz_util.h"
#include "read/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Not NUL-terminated on purpose: the reader takes (text, n) and must not run past n. */
    char *text = malloc(size ? size : 1);
    memcpy(text, data, size);
    struct tlck_image im;
    memset(&im, 0, sizeof im);
    /* a small budget, so that the refusal of .entry functions past it is reached too */
    tl_budget b;
    tl_budget_init(&b, (size_t)1 << 20, 0);
    (void)tlck_ptx_summarize(text, size, &b, &im);
    tlck_image_free(&im);
    free(text);
    return 0;
}
