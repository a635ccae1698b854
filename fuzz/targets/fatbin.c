/* checker/read/fatbin.c (container walk, zstd/LZ4 entry decompression bounded by max), then the image readers
 * the entries feed: checker/read/cubin.c (tkinfo/cuinfo notes, kernels, line coverage) and ptx.c. */
#include "fuzz_util.h"
#include "read/cubin.h"
#include "read/fatbin.h"
#include "read/ptx.h"

struct fb_ctx {
    struct tlck_fatbin_scratch scratch;
    unsigned n;
};

static int fb_entry(const struct tlck_fatbin_entry *e, void *ctx)
{
    struct fb_ctx *c = ctx;
    if (e->ident)
        fuzz_touch((const unsigned char *)e->ident, e->ident_len);
    if (e->options)
        fuzz_touch((const unsigned char *)e->options, e->options_len);
    const unsigned char *img;
    size_t n;
    tl_error err;
    /* 64 MiB: big enough for every real entry in the seeds, small enough that a bomb is refused fast. */
    if (!e->error && tlck_fatbin_image(e, &c->scratch, (size_t)64 << 20, &img, &n, &err) == 0) {
        fuzz_touch(img, n);
        struct tlck_image im;
        memset(&im, 0, sizeof im);
        if (e->kind == TLCK_FATBIN_KIND_ELF)
            tlck_cubin_summarize(img, n, "fuzz", NULL, &im);
        else if (e->kind == TLCK_FATBIN_KIND_PTX)
            tlck_ptx_summarize((const char *)img, n, NULL, &im);
        tlck_image_free(&im);
    }
    return ++c->n >= 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fb_ctx c = { 0 };
    tl_error err;
    (void)tlck_fatbin_walk(data, size, 0, fb_entry, &c, &err);
    tlck_fatbin_scratch_free(&c.scratch);
    return 0;
}
