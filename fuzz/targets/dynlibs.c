/* wrapper/fingerprint/dynlibs.c: an executable's DT_NEEDED / DT_RPATH / DT_RUNPATH (through libelf) and the ld.so.cache
 * parser (glibc's "glibc-ld.so.cache1.1" layout, optional "ld.so-1.7.0" part before it), then the resolution
 * walk over the real file system (read-only: stats and ELF reads of whatever the names lead to).
 * Input: the ELF bytes, the separator, the ld.so.cache bytes (absent: no cache). */
#include "fuzz_util.h"
#include "../../wrapper/fingerprint/dynlibs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    const uint8_t *part[2];
    size_t len[2];
    size_t k = fuzz_split(data, size, part, len, 2);
    unsigned char *cache = NULL;
    if (k == 2) { /* own block: reads past the cache's end are caught */
        cache = malloc(len[1] ? len[1] : 1);
        memcpy(cache, part[1], len[1]);
    }
    tlcc_dynlibs_cache dyn = { 0 };
    tlcc_deps_ctx dc = { 0 };
    tlcc_dynlibs_fuzz_reset(&dyn, cache, len[1]);
    struct fuzz_file elf;
    fuzz_file_open(&elf, part[0], len[0]);
    tlcc_strv objs = { 0 }, out = { 0 };
    tlcc_strv_push(&objs, elf.path);
    tlcc_dynlibs(&dyn, &dc, getenv("LD_LIBRARY_PATH"), &objs, &out);
    for (int i = 0; i < out.n; i++)
        fuzz_touch((const unsigned char *)out.v[i], strlen(out.v[i]));
    tlcc_strv_free(&objs);
    tlcc_strv_free(&out);
    fuzz_file_close(&elf);
    tlcc_dynlibs_fuzz_reset(&dyn, NULL, 0);
    tlcc_stat_cache_drop(&dc);
    free(cache);
    return 0;
}
