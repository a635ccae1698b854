#include "load.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input_formats.h"
#include "inputs_package.h"
#include "read/read_ctx.h"
#include "read/readers.h"
#include "read/store_lines.h"
#include "trueline/elf_file.h"
#include "trueline/limits.h"

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

/* What the input held of the run's budget goes back to it (its buffers are freed by now). */
static int finish(struct tlck_read_ctx *ctx, int rc)
{
    tl_budget_release(&ctx->budget);
    free(ctx);
    return rc;
}

int tlck_load_file(const struct tlck_input *in, const struct tlck_options *o, struct tlck_file *f)
{
    return tlck_load_file_in(in, o, NULL, f);
}

int tlck_load_file_in(const struct tlck_input *in, const struct tlck_options *o, tl_pool *pool, struct tlck_file *f)
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
    if (pool) {
        ctx->budget.pool = pool;
        if (ctx->budget.cap > pool->cap) { /* one input never holds more than the run may */
            ctx->budget.cap = pool->cap;
            ctx->budget.cap_origin = pool->cap_origin;
        }
    }
    if (in->pkg_depth)
        tlck_package_deadline(in, &ctx->budget); /* a package's members share its time */
    struct tlck_input_bytes b;
    tl_error err;
    if (tlck_input_map(in, &b, &ctx->budget, &err) != 0) {
        f->error = strdup(err.msg);
        return finish(ctx, -1);
    }
    const unsigned char *data = b.data;
    size_t size = b.size;
    int rc;
    test_stall(in->display, &ctx->budget);
    const struct tlck_input_format *fmt = tlck_input_format_of(data, size);
    if (o->device_only)
        rc = tlck_read_device_images(f, NULL, data, size, ctx); /* finds the containers in any input, or none */
    else if (fmt && fmt->load && size >= fmt->min_size)
        rc = fmt->load(f, data, size, ctx);
    else {
        f->error = strdup(size == 0 ? "empty file" : "not an ELF file, archive, cubin or fatbin");
        rc = -1;
    }
    if (!f->error && f->ndevices)
        tlck_store_lines_apply(f, o); /* images shipped without line info: their debug-store parts */
    int changed = tl_map_changed(b.map);
    tlck_input_unmap(&b);
    if (changed) {
        /* what the readers saw past the new end was zeros: no finding from it can be trusted */
        free(f->error);
        f->error = strdup("the file changed (shrank) while it was being read; not audited");
    }
    if (tl_budget_deferred(&ctx->budget)) {
        /* it gave way to inputs read at the same time: the caller reads it again once they are done */
        free(f->error);
        f->error = strdup(tl_budget_reason(&ctx->budget));
        return finish(ctx, TLCK_LOAD_DEFERRED);
    }
    if (!f->error && tl_budget_hit(&ctx->budget)) {
        /* a section was left out (over a bound, or no memory for it): the audit of this input is incomplete */
        f->error = tlck_asprintf("%s; not audited", tl_budget_reason(&ctx->budget));
    }
    if (!f->error && tl_budget_check(&ctx->budget, &err) != 0) {
        /* Readers stop early at the deadline; whatever they built is incomplete, so the input is unreadable. */
        f->error = strdup(err.msg);
    }
    return finish(ctx, f->error ? -1 : rc);
}
