/* wrapper/understand/argv.c + force.c: folding response files (libiberty expandargv), nvcc -optf files and
 * NVCC_PREPEND/APPEND_FLAGS, clang's CCC_OVERRIDE_OPTIONS, then the forced line-info analysis.
 * Input: control byte (family), then NUL-separated argv, marker, a file's text (named by every "@F" / "-optf F"
 * in argv), marker, an environment value (NVCC_APPEND_FLAGS for nvcc, CCC_OVERRIDE_OPTIONS for clang). */
#include "fuzz_util.h"
#include "../../wrapper/understand/argv.h"
#include "../../wrapper/context.h"
#include "../../wrapper/understand/force.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    const uint8_t *part[3];
    size_t len[3];
    fuzz_split(data + 1, size - 1, part, len, 3);
    /* A nested "@DIR" inside the file makes libiberty's expandargv exit() (as gcc itself does); the top-level
     * case is handled by wrapper/understand/argv.c, the nested one is gcc's own behaviour, so such inputs are skipped. */
    for (size_t i = 0; i < len[1]; i++)
        if (part[1][i] == '@')
            return 0;
    /* Bounded work: every "@F"/"F" argument expands to the file's words, and each override edit walks the whole
     * command line (as clang's driver does), so the cost is linear in (references x words) x edits. Inputs past
     * 2^16 argument visits only measure that linear cost (seconds under ASan), not parsing; the one-pass edits on
     * 200000 arguments are covered by tests/unit/wrapper_argv.c instead. */
    size_t refs = 1, words = 1, edits = 1;
    for (size_t i = 0; i + 1 < len[0]; i++)
        refs += part[0][i] == 'F' && (i + 1 == len[0] || part[0][i + 1] == 0);
    for (size_t i = 0; i < len[1]; i++)
        words += part[1][i] == ' ' || part[1][i] == '\n' || part[1][i] == '\t';
    for (size_t i = 0; i < len[2]; i++)
        edits += part[2][i] == ' ';
    if ((refs * words + 256) * edits > ((size_t)1 << 16))
        return 0;
    struct fuzz_file rsp;
    fuzz_file_open(&rsp, part[1], len[1]);
    tlcc_invocation inv;
    memset(&inv, 0, sizeof inv);
    static const enum tlcc_family fam[4] = { TLCC_FAM_GCC, TLCC_FAM_CLANG, TLCC_FAM_NVCC, TLCC_FAM_OTHER };
    inv.family = fam[data[0] & 3];
    inv.compiler_path = strdup(inv.family == TLCC_FAM_NVCC ? "nvcc" : inv.family == TLCC_FAM_CLANG ? "clang" : "gcc");
    char *args = fuzz_strndup(part[0], len[0]);
    for (size_t i = 0, start = 0; i <= len[0] && inv.user_args.n < 256; i++) {
        if (i == len[0] || args[i] == 0) {
            const char *a = args + start;
            if (strcmp(a, "@F") == 0)
                tlcc_strv_pushf(&inv.user_args, "@%s", rsp.path);
            else if (strcmp(a, "F") == 0)
                tlcc_strv_push(&inv.user_args, rsp.path);
            else if (i > start || i < len[0])
                tlcc_strv_push(&inv.user_args, a);
            start = i + 1;
        }
    }
    char *env = fuzz_strndup(part[2], len[2]);
    const char *var = inv.family == TLCC_FAM_NVCC ? "NVCC_APPEND_FLAGS" : "CCC_OVERRIDE_OPTIONS";
    if (len[2])
        setenv(var, env, 1);
    FILE *devnull = fopen("/dev/null", "w");
    FILE *saved = stderr;
    stderr = devnull; /* clang's "### " override log is not interesting here */
    extern char **environ;
    tlcc_ctx ctx; /* the run's environment, taken after the variable is set (main.c takes it at start) */
    tlcc_ctx_init(&ctx, environ);
    inv.ctx = &ctx;
    tl_error err;
    if (tlcc_effective_argv(&inv, &err) == 0) {
        tlcc_analyze(&inv, NULL);
        tl_config cfg = { 0 };
        (void)tlcc_force(&inv, &cfg, &err);
    }
    stderr = saved;
    fclose(devnull);
    unsetenv(var);
    tlcc_invocation_free(&inv);
    tlcc_ctx_free(&ctx);
    free(args);
    free(env);
    fuzz_file_close(&rsp);
    return 0;
}
