/* Seam to the shared cubin line lookup (read/cubin_lines.h on the one decoder, read/line_program.c): the
 * inline chain comes back mangled and is demangled here for display. */
#include <stdlib.h>
#include <string.h>

#include "read/cubin_lines.h"
#include "tools/coredump/coredump_report.h"

int cd_chain_lookup(const unsigned char *cubin, size_t n, const char *name, const char *function,
                    uint64_t offset, uint64_t pc, struct cd_where *w, tl_error *err)
{
    /* By function + offset for a core's relocated image too (pc is not used): the function symbol was already
     * found by address in coredump_where.c, and the same lookup then serves --binary's on-disk cubins, where a
     * core's PC means nothing. */
    (void)pc;
    struct tlck_cubin_chain ch;
    int rc = tlck_cubin_symbolize(cubin, n, name, function, offset, &ch, err);
    if (rc == 0 && ch.n) {
        w->frames = calloc(ch.n, sizeof *w->frames);
        if (!w->frames) {
            tlck_cubin_chain_free(&ch);
            return tl_fail(err, "out of memory");
        }
        for (size_t i = 0; i < ch.n; i++)
            w->frames[i] = (struct cd_frame){
                .file = strdup(ch.v[i].file ? ch.v[i].file : "?"), .line = ch.v[i].line,
                .column = ch.v[i].column, .function = ch.v[i].function ? cd_demangle(ch.v[i].function) : NULL,
            };
        w->nframes = ch.n;
    } else if (rc == 0) {
        rc = 1;
    }
    tlck_cubin_chain_free(&ch);
    return rc;
}
