/* What the readers of one input share, zstd-style: the options that steer them, the decompression budget and the
 * deadline (lib's tl_budget, which also records the first bound that refused something), and the caps derived
 * from the options. The loader makes one per input and hands it to every reader of it, the device reader's
 * helper threads included: no reader keeps limits in process or thread state, nothing is copied by hand. */
#ifndef TLCK_READ_CTX_H
#define TLCK_READ_CTX_H
#include <stddef.h>
#include "options.h"

struct tlck_image_cache;
#include "trueline/limits.h"

/* Most bytes one device image (a fatbin entry) decompresses to when --max-input-mb is not given. */
#define TLCK_IMAGE_CAP_DEFAULT ((size_t)1 << 30)

struct tlck_read_ctx {
    const struct tlck_options *o; /* --debug-dir, --host-only, --list's device_only; NULL: the defaults */
    tl_budget budget;             /* this input's decompressed bytes together, its deadline, the bound hit */
    size_t image_cap;             /* most bytes one device image may decompress to */
    struct tlck_image_cache *image_cache; /* the run's device-image summaries (read/image_cache.h); NULL: none */
};

/* The one place the read limits come from: --max-input-mb bounds what one input's sections hold together and
 * each device image (defaults TL_BUDGET_DEFAULT and TLCK_IMAGE_CAP_DEFAULT), --timeout starts the deadline now. */
void tlck_read_ctx_init(struct tlck_read_ctx *c, const struct tlck_options *o);
/* The image cap alone, for the tools that decompress images without reading an input as a whole. */
size_t tlck_read_image_cap(const struct tlck_options *o);

#endif
