/* Seam to the shared cubin line lookup: scaffold until read/cubin_lines.h lands from the device-code work
 * (one line-program decoder in the tree: read/line_program.c). */
#include "tools/coredump_report.h"

int cd_chain_lookup(const unsigned char *cubin, size_t n, const char *name, const char *function,
                    uint64_t offset, uint64_t pc, struct cd_where *w, tl_error *err)
{
    (void)cubin; (void)n; (void)name; (void)function; (void)offset; (void)pc; (void)w;
    return tl_fail(err, "the cubin line lookup (read/cubin_lines.h) is not in this build yet");
}
