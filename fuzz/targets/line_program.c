/* checker/read/line_program.c: the own DWARF 2-5 line-program decoder with NVIDIA's extended opcodes (0x90
 * inlined_call, 0x91 set_function_name). Input: one control byte (bit 0: 4-byte addresses), then .debug_line,
 * .debug_str and .debug_line_str separated by fuzz_split's marker (fuzz/seeds.sh cuts them from real objects
 * and cubins). Every row's function name is resolved, as the cubin reader does. */
#include "fuzz_util.h"
#include "read/line_program.h"

struct lp_ctx {
    const struct tlck_line_sections *s;
    size_t rows;
};

static int lp_row(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx)
{
    struct lp_ctx *c = ctx;
    if (row->file && row->file <= u->nfiles && u->files && u->files[row->file - 1])
        fuzz_sink ^= (unsigned char)strlen(u->files[row->file - 1]);
    if (row->function_name != UINT64_MAX) {
        const char *n = tlck_line_function_name(c->s, u, row->function_name);
        if (n)
            fuzz_sink ^= (unsigned char)strlen(n);
    }
    return ++c->rows > 200000; /* a bound on the target, not on the decoder: keep one input under a second */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *part[3];
    size_t len[3];
    fuzz_split(data + 1, size - 1, part, len, 3);
    /* Each section in its own heap block, so ASan sees any read past a section's end. */
    unsigned char *line = malloc(len[0] ? len[0] : 1), *str = malloc(len[1] ? len[1] : 1),
                  *lstr = malloc(len[2] ? len[2] : 1);
    memcpy(line, part[0], len[0]);
    memcpy(str, part[1], len[1]);
    memcpy(lstr, part[2], len[2]);
    struct tlck_line_sections s = { .line = line, .line_n = len[0], .str = len[1] ? str : NULL, .str_n = len[1],
                                  .line_str = len[2] ? lstr : NULL, .line_str_n = len[2],
                                  .addr_size = (data[0] & 1) ? 4 : 8 };
    struct lp_ctx c = { .s = &s };
    tl_error err;
    (void)tlck_line_program_decode(&s, lp_row, &c, &err);
    free(line);
    free(str);
    free(lstr);
    return 0;
}
