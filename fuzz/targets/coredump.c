/* checker/read/coredump.c: the .cudbg.* tables of a CUDA GPU core (ET_CORE, EM_CUDA), tree walked by
 * sh_link/sh_info, then every grid's module looked up the way the --coredump report does. */
#include "fuzz_util.h"
#include "read/coredump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    struct tlck_core c;
    memset(&c, 0, sizeof c);
    tl_error err;
    if (tlck_core_open(&c, ff.path, &err) == 0) {
        for (size_t d = 0; d < c.ndevices; d++) {
            const struct tlck_cd_device *dev = &c.devices[d];
            fuzz_sink ^= (unsigned char)(strlen(dev->name) + strlen(dev->type) + strlen(dev->sm_type));
            for (size_t g = 0; g < dev->ngrids; g++) {
                const struct tlck_cd_module *m = tlck_core_grid_module(dev, &dev->grids[g]);
                if (m && m->image)
                    fuzz_touch(m->image, m->image_n);
                (void)tlck_core_grid(dev, dev->grids[g].grid_id);
            }
            for (size_t s = 0; s < dev->nsms; s++)
                for (size_t k = 0; k < dev->sms[s].nctas; k++)
                    for (size_t w = 0; w < dev->sms[s].ctas[k].nwarps; w++) {
                        const struct tlck_cd_warp *wp = &dev->sms[s].ctas[k].warps[w];
                        for (size_t l = 0; l < wp->nlanes; l++)
                            fuzz_sink ^= (unsigned char)strlen(tlck_cd_exception_name(wp->lanes[l].exception));
                    }
        }
        if (c.meta.present && c.meta.generator)
            fuzz_sink ^= (unsigned char)strlen(c.meta.generator);
    }
    tlck_core_close(&c);
    fuzz_file_close(&ff);
    return 0;
}
