#include "load_elf.h"

#include <stdlib.h>
#include <string.h>

#include "read/readers.h"
#include "trueline/elf_file.h"
#include "trueline/file_kind.h"

int tlck_load_elf(struct tlck_file *f, const unsigned char *data, size_t size, struct tlck_read_ctx *ctx)
{
    tl_elf e;
    tl_error err;
    if (tl_elf_open_mem(&e, f->display, data, size, &err) != 0) {
        f->error = strdup(err.msg);
        tl_elf_close(&e);
        return -1;
    }
    e.budget = &ctx->budget;
    int rc = 0;
    if (e.ehdr.e_machine == TL_EM_CUDA) {
        /* A standalone cubin: the device reader owns EM_CUDA images (a core file is --coredump's business). */
        f->machine = TL_EM_CUDA;
        f->elf_type = e.ehdr.e_type;
        tl_elf_close(&e);
        return tlck_read_device_images(f, NULL, data, size, ctx);
    }
    /* Device images decompress on helper threads while the host part is read (libcublasLt: 1.4 GB). */
    struct tlck_device_read *dev = ctx->o->host_only ? NULL : tlck_device_read_start(f, &e, data, size, ctx);
    rc |= tlck_read_host(f, &e, ctx);
    if (dev)
        rc |= tlck_device_read_finish(dev);
    if (!f->error)
        rc |= tlck_read_notes(f, &e);
    tl_elf_close(&e);
    return rc;
}
