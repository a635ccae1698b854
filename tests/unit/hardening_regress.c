/* Replays every input under tests/data/regress/<target>/ through the same code as fuzz/targets/<target>.c (the
 * target sources are included here, their entry points renamed), so each crash the fuzzers ever found stays
 * fixed in every build — under `make asan` with the sanitizers that found it. The wrapper's targets replay in
 * hardening_regress_wrapper.c. */
#include "regress_replay.h"

#define LLVMFuzzerTestOneInput fuzz_elf_file
#include "../../fuzz/targets/elf_file.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_config
#include "../../fuzz/targets/config.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_load
#include "../../fuzz/targets/load.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_line_program
#include "../../fuzz/targets/line_program.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_fatbin
#include "../../fuzz/targets/fatbin.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cubin
#include "../../fuzz/targets/cubin.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ptx
#include "../../fuzz/targets/ptx.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_note
#include "../../fuzz/targets/note.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_symbols
#include "../../fuzz/targets/symbols.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_coredump
#include "../../fuzz/targets/coredump.c"
#undef LLVMFuzzerTestOneInput

static const struct regress_target targets[] = {
    { "elf_file", fuzz_elf_file },
    { "config", fuzz_config },
    { "load", fuzz_load },
    { "line_program", fuzz_line_program },
    { "fatbin", fuzz_fatbin },
    { "cubin", fuzz_cubin },
    { "ptx", fuzz_ptx },
    { "note", fuzz_note },
    { "symbols", fuzz_symbols },
    { "coredump", fuzz_coredump },
};

/* The bounds behind the first fuzz finding (a forged ch_size asked malloc for 4 GiB). */
static void limits_checks(void)
{
    tl_error err;
    UNIT_CHECK("zlib bound refuses 4 GiB from 100 bytes",
               tl_decompress_check("s", 100, 0xffffffffull, TL_ZLIB_MAX_RATIO, &err) != 0);
    UNIT_CHECK("refusal names the section", strstr(err.msg, "s declares 4294967295") != NULL);
    UNIT_CHECK("zstd bound admits a real ratio (1 GB of zeros = 30741 bytes)",
               tl_decompress_check("s", 30741, 1000000000ull, TL_ZSTD_MAX_RATIO, &err) == 0);
    UNIT_CHECK("bound does not overflow", tl_decompress_bound((size_t)-1, TL_ZSTD_MAX_RATIO) == (size_t)-1);
    tl_set_decompress_limit((size_t)1 << 20);
    UNIT_CHECK("--max-input-mb limit applies",
               tl_decompress_check("s", 1 << 16, 2u << 20, TL_ZSTD_MAX_RATIO, &err) != 0 && strstr(err.msg, "limit"));
    tl_set_decompress_limit(0);
    UNIT_CHECK("limit reset to default", tl_decompress_limit() == TL_DECOMPRESS_DEFAULT);
    tl_deadline_start(0);
    UNIT_CHECK("no deadline never expires", !tl_deadline_expired());
    tl_deadline_start(1);
    UNIT_CHECK("fresh deadline not expired", tl_deadline_check(&err) == 0);
    tl_deadline_stop();
}

int main(void)
{
    limits_checks();
    UNIT_CHECK("regression inputs found", regress_replay(targets, sizeof targets / sizeof *targets) > 0);
    UNIT_EXIT();
}
