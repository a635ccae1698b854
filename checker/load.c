#include "load.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/read_ctx.h"
#include "read/readers.h"
#include "trueline/elf_file.h"
#include "trueline/file_kind.h"
#include "trueline/limits.h"

static int is_fatbin(const unsigned char *p, size_t n)
{
    return n >= 16 && tl_sniff(p, n, NULL) == TL_FILE_FATBIN; /* at least a container header */
}

static int load_elf(struct tlck_file *f, const unsigned char *data, size_t size, struct tlck_read_ctx *ctx)
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

/* Fault injection for tests/suites/hardening_limits.sh, which needs an input that takes forever without having
 * one: TRUELINE_TEST_STALL=poll:SUBSTR makes the load of inputs whose name contains SUBSTR spin while polling the
 * deadline (a reader that cooperates), hang:SUBSTR sleeps without polling (a reader stuck inside a library),
 * wait:SUBSTR pauses 3 s between mapping the input and reading it (tests/suites/hardening_shrink.sh). */
static void test_stall(const char *display, const tl_budget *budget)
{
    const char *v = getenv("TRUELINE_TEST_STALL");
    if (!v || (strncmp(v, "poll:", 5) != 0 && strncmp(v, "hang:", 5) != 0 && strncmp(v, "wait:", 5) != 0) ||
        !strstr(display, v + 5))
        return;
    if (v[0] == 'w') { /* wait:SUBSTR: 3 s after the input is mapped, then read it (a file that changes meanwhile) */
        struct timespec ts = { 3, 0 };
        nanosleep(&ts, NULL);
        return;
    }
    for (int i = 0; i < 600 * 100; i++) {
        if (v[0] == 'p' && tl_budget_expired(budget))
            return;
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int tlck_load_file(const struct tlck_input *in, const struct tlck_options *o, struct tlck_file *f)
{
    memset(f, 0, sizeof *f);
    f->display = strdup(in->display);
    f->path = strdup(in->path);
    struct tlck_read_ctx *ctx = malloc(sizeof *ctx); /* shared with the device reader's helper threads */
    if (!ctx) {
        f->error = strdup("out of memory");
        return -1;
    }
    tlck_read_ctx_init(ctx, o);
    struct tlck_input_bytes b;
    tl_error err;
    if (tlck_input_map(in, &b, &ctx->budget, &err) != 0) {
        f->error = strdup(err.msg);
        free(ctx);
        return -1;
    }
    const unsigned char *data = b.data;
    size_t size = b.size;
    int rc;
    test_stall(in->display, &ctx->budget);
    if (o->device_only)
        rc = tlck_read_device_images(f, NULL, data, size, ctx); /* finds the containers in any input, or none */
    else if (tl_is_elf(data, size))
        rc = load_elf(f, data, size, ctx);
    else if (is_fatbin(data, size))
        rc = tlck_read_device_images(f, NULL, data, size, ctx);
    else {
        f->error = strdup(size == 0 ? "empty file" : "not an ELF file, archive, cubin or fatbin");
        rc = -1;
    }
    int changed = tl_map_changed(b.map);
    tlck_input_unmap(&b);
    if (changed) {
        /* what the readers saw past the new end was zeros: no finding from it can be trusted */
        free(f->error);
        f->error = strdup("the file changed (shrank) while it was being read; not audited");
    }
    if (!f->error && tl_budget_hit(&ctx->budget)) {
        /* a section was left out (over a bound, or no memory for it): the audit of this input is incomplete */
        f->error = tlck_asprintf("%s; not audited", tl_budget_reason(&ctx->budget));
    }
    if (!f->error && tl_budget_check(&ctx->budget, &err) != 0) {
        /* Readers stop early at the deadline; whatever they built is incomplete, so the input is unreadable. */
        f->error = strdup(err.msg);
    }
    free(ctx);
    return f->error ? -1 : rc;
}
