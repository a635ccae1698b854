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
#define LLVMFuzzerTestOneInput fuzz_split_elf
#include "../../fuzz/targets/split.c"
#undef LLVMFuzzerTestOneInput

/* describe_load runs the checks itself, to list each finding (the load target goes through the audit) */
#include "check_run.h"
#include "checks/checks.h"
#include "inputs.h"
#include "load.h"

/* --- what each reader made of a regression input (regress_replay.h compares it with tests/data/regress/expected) */

/* The whole per-input path of trueline-check: "error: ..." for an unreadable input, else every finding. */
static void describe_load(const uint8_t *data, size_t size, char *out, size_t outn)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    struct tlck_options o = { .format = "text", .fail_on = TLCK_SEV_ERROR, .max_input_mb = 256, .timeout_s = 0 };
    tl_config cfg = { 0 };
    struct tlck_policy pol = { .cfg = &cfg, .fail_on = TLCK_SEV_ERROR };
    struct tlck_check_run checks;
    tl_error perr;
    if (tlck_check_run_prepare(&checks, &pol, &perr) != 0) {
        appendf(out, outn, "prepare: %s", perr.msg);
        fuzz_file_close(&ff);
        return;
    }
    const char *paths[1] = { ff.path };
    struct tlck_inputs in = { 0 };
    tlck_inputs_expand(&in, paths, 1);
    for (size_t i = 0; i < in.n && i < 64; i++) {
        struct tlck_file f;
        struct tlck_findings fs = { 0 };
        tlck_load_file(&in.v[i], &o, &f);
        if (f.error) {
            appendf(out, outn, "error: %s; ", f.error);
        } else {
            for (size_t c = 0; c < tlck_ncheck; c++)
                tlck_checks[c]->run(&f, &pol, tlck_check_run_state(&checks, tlck_checks[c]),
                                    tlck_checks[c]->default_severity ? tlck_checks[c]->default_severity : TLCK_SEV_INFO,
                                    &fs);
            for (size_t k = 0; k < fs.n; k++)
                appendf(out, outn, "%s [%s] %s; ", tlck_severity_name(fs.v[k].severity), fs.v[k].check,
                        fs.v[k].message);
        }
        tlck_findings_free(&fs);
        tlck_file_free(&f);
    }
    tlck_inputs_free(&in);
    tlck_check_run_release(&checks);
    fuzz_file_close(&ff);
}

/* lib/elf_file.c: the open, then every section's bytes; a refused section is named with the reason. */
static void describe_elf(const uint8_t *data, size_t size, char *out, size_t outn)
{
    tl_elf e;
    tl_error err;
    if (tl_elf_open_mem(&e, "input", data, size, &err) != 0) {
        appendf(out, outn, "open refused: %s", err.msg);
        return;
    }
    Elf_Scn *scn = NULL;
    size_t refused = 0;
    while ((scn = elf_nextscn(e.elf, scn)) != NULL) {
        GElf_Shdr sh;
        tl_bytes b;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (tl_elf_section_bytes(&e, scn, &b, &err) == 0)
            tl_bytes_free(&b);
        else
            appendf(out, outn, "section %s refused: %s; ", tl_elf_section_name(&e, &sh), err.msg), refused++;
    }
    if (!refused)
        appendf(out, outn, "every section read");
    tl_elf_close(&e);
}

static int count_rows(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx)
{
    (void)u, (void)row;
    return ++*(size_t *)ctx > 200000;
}

/* checker/read/line_program.c on the target's input layout: the decoder's status, rows, error record. */
static void describe_line_program(const uint8_t *data, size_t size, char *out, size_t outn)
{
    const uint8_t *part[3];
    size_t len[3];
    if (size < 1)
        return;
    fuzz_split(data + 1, size - 1, part, len, 3);
    struct tlck_line_sections s = { .line = part[0], .line_n = len[0], .str = len[1] ? part[1] : NULL, .str_n = len[1],
                                  .line_str = len[2] ? part[2] : NULL, .line_str_n = len[2],
                                  .addr_size = (data[0] & 1) ? 4 : 8 };
    size_t rows = 0;
    tl_error err = { 0 };
    int rc = tlck_line_program_decode(&s, count_rows, &rows, &err);
    appendf(out, outn, "status %d, %zu rows, error: %s", rc, rows, rc ? err.msg : "none");
}

/* checker/read/ptx.c: the facts read from the text, or why it is not PTX. */
static void describe_ptx(const uint8_t *data, size_t size, char *out, size_t outn)
{
    struct tlck_image im;
    memset(&im, 0, sizeof im);
    int rc = tlck_ptx_summarize((const char *)data, size, NULL, &im);
    appendf(out, outn, "status %d, sm %u, %u kernels, lineinfo %u, error: %s", rc, im.dev.sm, im.dev.nkernels,
            (unsigned)im.dev.has_lineinfo, im.dev.error ? im.dev.error : "none");
    tlck_image_free(&im);
}

static void count_note(tl_note *n, void *ctx)
{
    tl_note_free(n);
    free(n);
    ++*(size_t *)ctx;
}

/* lib/note.c: records decoded in each byte order, and the error record. */
static void describe_note(const uint8_t *data, size_t size, char *out, size_t outn)
{
    for (int be = 0; be < 2; be++) {
        size_t got = 0;
        tl_error err = { 0 };
        int rc = tl_note_decode_all(data, size, be, count_note, &got, &err);
        appendf(out, outn, "%s: status %d, %zu records, error: %s; ", be ? "big-endian" : "little-endian", rc, got,
                rc ? err.msg : "none");
    }
}

/* checker/split/elf_split.c: the split's verdict on the input (a linked file, debug parts into a store the
 * fuzz target made), "split", "nothing to split" or the error. */
static void describe_split(const uint8_t *data, size_t size, char *out, size_t outn)
{
    unsigned char *p = malloc(size ? size : 1);
    memcpy(p, data, size);
    int fd = memfd_create("tl-regress-split", MFD_CLOEXEC);
    struct tlck_split_opts o = { .store = split_store[0] ? split_store : "/tmp" };
    struct tlck_split_stats st;
    char err[1024] = "";
    int rc = fd < 0 ? -2 : tlck_split_elf("regress.so", p, size, &o, fd, &st, err, sizeof err);
    appendf(out, outn, "%s%s", rc == 0 ? "split" : rc == 1 ? "nothing to split" : "error: ", rc < 0 ? err : "");
    if (fd >= 0)
        close(fd);
    free(p);
}

static void describe_none(const uint8_t *data, size_t size, char *out, size_t outn)
{
    (void)data, (void)size;
    appendf(out, outn, "replayed");
}

static const struct regress_target targets[] = {
    { "elf_file", fuzz_elf_file, describe_elf },
    { "config", fuzz_config, describe_none },
    { "load", fuzz_load, describe_load },
    { "line_program", fuzz_line_program, describe_line_program },
    { "fatbin", fuzz_fatbin, describe_load },
    { "cubin", fuzz_cubin, describe_load },
    { "ptx", fuzz_ptx, describe_ptx },
    { "note", fuzz_note, describe_note },
    { "symbols", fuzz_symbols, describe_none },
    { "coredump", fuzz_coredump, describe_none },
    { "split", fuzz_split_elf, describe_split },
};

/* The bounds behind the first fuzz finding (a forged ch_size asked malloc for 4 GiB). */
static void limits_checks(void)
{
    tl_error err;
    tl_budget b;
    tl_budget_init(&b, 0, 0);
    UNIT_CHECK("zlib bound refuses 4 GiB from 100 bytes",
               tl_budget_take(&b, "s", 100, 0xffffffffull, TL_ZLIB_MAX_RATIO, &err) != 0);
    UNIT_CHECK("refusal names the section", strstr(err.msg, "s declares 4294967295") != NULL);
    UNIT_CHECK("corruption is no bound hit", !tl_budget_hit(&b));
    UNIT_CHECK("zstd bound admits a real ratio (1 GB of zeros = 30741 bytes)",
               tl_budget_take(&b, "s", 30741, 1000000000ull, TL_ZSTD_MAX_RATIO, &err) == 0);
    UNIT_CHECK("bound does not overflow", tl_decompress_bound((size_t)-1, TL_ZSTD_MAX_RATIO) == (size_t)-1);
    UNIT_CHECK("default cap", b.cap == TL_BUDGET_DEFAULT);
    tl_budget_init(&b, (size_t)1 << 20, 0);
    b.cap_origin = "--max-input-mb";
    UNIT_CHECK("the cap applies", tl_budget_take(&b, "s", 1 << 16, 2u << 20, TL_ZSTD_MAX_RATIO, &err) != 0 &&
                                      strstr(err.msg, "limit of 1 MiB (--max-input-mb)"));
    UNIT_CHECK("... recorded as hit", tl_budget_hit(&b) && strstr(tl_budget_reason(&b), "limit of 1 MiB"));
    tl_budget_init(&b, (size_t)1 << 20, 0);
    UNIT_CHECK("the cap is on the sum: two halves fit",
               tl_budget_take(&b, "a", 1 << 16, 512u << 10, TL_ZSTD_MAX_RATIO, &err) == 0 &&
                   tl_budget_take(&b, "b", 1 << 16, 512u << 10, TL_ZSTD_MAX_RATIO, &err) == 0);
    UNIT_CHECK("... a third byte does not", tl_budget_take(&b, "c", 1, 1, TL_ZSTD_MAX_RATIO, &err) != 0 &&
                                                strstr(err.msg, "for one input") && !strstr(err.msg, "--"));
    UNIT_CHECK("no budget: one buffer's default cap",
               tl_budget_take(NULL, "s", (size_t)1 << 20, (unsigned long long)TL_BUDGET_DEFAULT + 1, TL_ZSTD_MAX_RATIO,
                              &err) != 0);
    tl_budget_init(&b, 0, 0);
    UNIT_CHECK("no deadline never expires", !tl_budget_expired(&b) && !tl_budget_expired(NULL));
    tl_budget_init(&b, 0, 1);
    b.deadline_origin = "--timeout";
    UNIT_CHECK("fresh deadline not expired", tl_budget_check(&b, &err) == 0);
    b.deadline.tv_sec -= 2;
    UNIT_CHECK("a passed deadline names the limit",
               tl_budget_check(&b, &err) != 0 && strstr(err.msg, "time limit of 1 s exceeded (--timeout)"));
}

/* Every line of tests/data/regress/expected names an input that is there (a removed input leaves no promise). */
static void expected_inputs_exist(void)
{
    const char *root = getenv("TRUELINE_ROOT");
    char path[4096], line[4096], input[8192];
    snprintf(path, sizeof path, "%s/tests/data/regress/expected", root ? root : ".");
    FILE *f = fopen(path, "r");
    UNIT_CHECK("tests/data/regress/expected is readable", f != NULL);
    if (!f)
        return;
    size_t lines = 0, stale = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\t\n")] = 0;
        snprintf(input, sizeof input, "%s/tests/data/regress/%s", root ? root : ".", line);
        lines++;
        if (access(input, R_OK) != 0)
            printf("    no input for the expectation %s\n", line), stale++;
    }
    fclose(f);
    UNIT_CHECK("every expectation names an input", lines > 0 && stale == 0);
}

/* Every input under tests/data/regress/<target>/ of the table above, each through its entry point. */
static void replay(void)
{
    UNIT_CHECK("regression inputs found", regress_replay(targets, sizeof targets / sizeof *targets) > 0);
}

UNIT_MAIN(UNIT_CASE(limits_checks), UNIT_CASE(expected_inputs_exist), UNIT_CASE(replay))
