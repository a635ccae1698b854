/* lib/config.c: INI parsing (inih) into entries, then lookups, booleans and section enumeration; and
 * lib/config_guard.c over two merged files: the input's first part read as the user's file, the part after the
 * fuzz_split separator as the repository's own .trueline.ini (an input without one is a single file). */
#include "fuzz_util.h"
#include "trueline/config.h"

static void each(const char *key, const char *value, int line, void *ctx)
{
    *(size_t *)ctx += strlen(key) + strlen(value) + (size_t)(line > 0);
}

static const char *const mismatch[] = { "recompile", "fail", NULL };
static const struct tl_config_guard guards[] = {
    { "provenance", "key_file", NULL },
    { "provenance", "verify", tl_config_guard_bool },
    { "provenance", "on_mismatch", mismatch },
    { NULL, NULL, NULL },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[2];
    size_t len[2];
    size_t parts = fuzz_split(data, size, part, len, 2);
    struct fuzz_file ff, repo;
    fuzz_file_open(&ff, part[0], len[0]);
    fuzz_file_open(&repo, part[1], len[1]);
    tl_config cfg = { 0 };
    tl_error err;
    if (tl_config_load_file(&cfg, ff.path, &err) == 0 &&
        (parts < 2 || tl_config_load_file(&cfg, repo.path, &err) == 0)) {
        if (parts == 2)
            cfg.file_repo[cfg.nfiles - 1] = 1; /* as tl_config_load marks ./.trueline.ini */
        size_t n = 0;
        for (int i = 0; i < cfg.n; i++) {
            (void)tl_config_get(&cfg, cfg.entries[i].section, cfg.entries[i].key);
            (void)tl_config_bool(&cfg, cfg.entries[i].section, cfg.entries[i].key, 0);
            tl_config_each(&cfg, cfg.entries[i].section, each, &n);
            if (i > 64)
                break;
        }
        (void)tl_config_get_or(&cfg, "checks", "line-tables", "x");
        (void)tl_config_guard(&cfg, guards, &err);
    }
    tl_config_free(&cfg);
    fuzz_file_close(&repo);
    fuzz_file_close(&ff);
    return 0;
}
