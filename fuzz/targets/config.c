/* lib/config.c: INI parsing (inih) into entries, then lookups, booleans and section enumeration. */
#include "fuzz_util.h"
#include "trueline/config.h"

static void each(const char *key, const char *value, int line, void *ctx)
{
    *(size_t *)ctx += strlen(key) + strlen(value) + (size_t)(line > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file ff;
    fuzz_file_open(&ff, data, size);
    tl_config cfg = { 0 };
    tl_error err;
    if (tl_config_load_file(&cfg, ff.path, &err) == 0) {
        size_t n = 0;
        for (int i = 0; i < cfg.n; i++) {
            (void)tl_config_get(&cfg, cfg.entries[i].section, cfg.entries[i].key);
            (void)tl_config_bool(&cfg, cfg.entries[i].section, cfg.entries[i].key, 0);
            tl_config_each(&cfg, cfg.entries[i].section, each, &n);
            if (i > 64)
                break;
        }
        (void)tl_config_get_or(&cfg, "checks", "line-tables", "x");
    }
    tl_config_free(&cfg);
    fuzz_file_close(&ff);
    return 0;
}
