/* Replays every input under tests/data/regress/<target>/ through the same code as fuzz/targets/<target>.c (the
 * target sources are included here, their entry points renamed), so each crash the fuzzers ever found stays
 * fixed in every build — under `make asan` with the sanitizers that found it. Runs from any directory:
 * TRUELINE_ROOT (set by tests/run.sh) locates the data. */
#include <dirent.h>
#include <stdlib.h>

#include "unit.h"

#define LLVMFuzzerTestOneInput fuzz_elf_file
#include "../../fuzz/targets/elf_file.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_config
#include "../../fuzz/targets/config.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_load
#include "../../fuzz/targets/load.c"
#undef LLVMFuzzerTestOneInput

static const struct {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} targets[] = {
    { "elf_file", fuzz_elf_file },
    { "config", fuzz_config },
    { "load", fuzz_load },
};

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

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
    const char *root = getenv("TRUELINE_ROOT");
    char dir[4096], path[8192];
    size_t total = 0;
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        snprintf(dir, sizeof dir, "%s/tests/data/regress/%s", root ? root : ".", targets[t].name);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            size_t n = 0;
            unsigned char *data = slurp(path, &n);
            UNIT_CHECK(path, data != NULL);
            if (!data)
                continue;
            /* A crash here kills the binary and the runner reports it; returning is the pass condition. */
            UNIT_CHECK(de->d_name, targets[t].fn(data, n) == 0);
            free(data);
            total++;
        }
        closedir(d);
    }
    UNIT_CHECK("regression inputs found", total > 0);
    UNIT_EXIT();
}
