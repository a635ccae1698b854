#include "read/read_ctx.h"

#include <stdint.h>
#include <string.h>

/* --max-input-mb in bytes, 0 when not given. */
static size_t max_input(const struct tlck_options *o)
{
    unsigned long long mb = o ? o->max_input_mb : 0;
    return mb > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)mb << 20;
}

size_t tlck_read_image_cap(const struct tlck_options *o)
{
    size_t cap = max_input(o);
    return cap ? cap : TLCK_IMAGE_CAP_DEFAULT;
}

void tlck_read_ctx_init(struct tlck_read_ctx *c, const struct tlck_options *o)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    tl_budget_init(&c->budget, max_input(o), o ? o->timeout_s : 0);
    /* lib's messages name the bound; which option set it is the checker's to say */
    c->budget.cap_origin = "--max-input-mb";
    c->budget.deadline_origin = "--timeout";
    c->image_cap = tlck_read_image_cap(o);
    c->image_cache = o ? o->image_cache : NULL;
}
