/* Line-program decoder: scaffold; the host-audit issue fills it (see line_program.h for the contract). */
#include "read/line_program.h"

int tl_line_program_decode(const struct tl_line_sections *s, tl_line_row_fn fn, void *ctx, tl_error *err)
{
    (void)s; (void)fn; (void)ctx;
    return tl_fail(err, "line-program decoder not built yet");
}

const char *tl_line_function_name(const struct tl_line_sections *s, const struct tl_line_unit *u, uint64_t off)
{
    (void)s; (void)u; (void)off;
    return 0;
}
