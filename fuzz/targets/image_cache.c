/* checker/read/image_cache.c: a cache file is input like any other (another user's, a damaged disk, another
 * build's): decoding arbitrary bytes into one, two or three images must refuse or fill them consistently, and a
 * summary it accepted must encode again. */
#include "fuzz_util.h"
#include "read/image_cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1); /* own block: reads past the end are caught */
    memcpy(copy, data, size);
    for (size_t n = 1; n <= 3; n++) {
        struct tlck_image imgs[3];
        memset(imgs, 0, sizeof imgs);
        if (tlck_image_summary_decode(copy, size, imgs, n) == 0) {
            size_t len = 0;
            unsigned char *again = tlck_image_summary_encode(imgs, n, &len);
            if (!again || len != size || memcmp(again, copy, size) != 0)
                __builtin_trap(); /* what decodes is exactly what encodes */
            free(again);
        }
        for (size_t i = 0; i < n; i++)
            tlck_image_free(&imgs[i]);
    }
    free(copy);
    return 0;
}
