/* [wrapper] line_info_store = DIR (line_split.c): the device line info of each object nvcc compiles is split
 * out into a debug store before the object is stamped, cached or linked, so that the linked file is as small
 * as a build without -lineinfo while the store keeps the lines. The split is trueline-check's
 * (`--split --in-place --device-only`): the wrapper links no fatbin code, it runs that program. */
#ifndef TLCC_WRAPPER_LINE_SPLIT_H
#define TLCC_WRAPPER_LINE_SPLIT_H
#include "trueline/config.h"
#include "trueline/diag.h"

/* The store, for the stamping stage: neither ccache nor sccache hashes it (the cache key gets the store
 * through CCACHE_COMPILERCHECK / SCCACHE_C_CUSTOM_CACHE_BUSTER instead). */
#define TLCC_STAGE_ENV_LINE_STORE "TRUELINE_STAGE_LINE_INFO_STORE"

/* The configured store as an absolute path (malloc'ed into *store), or *store NULL when none is set (empty
 * value: none) or when device line info is not forced ([wrapper] device_lineinfo = false: nothing to split).
 * -1 with err naming where the value was set when it cannot be made absolute. */
int tlcc_line_store_read(const tl_config *cfg, char **store, tl_error *err);
/* Runs `trueline-check --split --in-place --device-only --debug-store STORE -- OBJ` (trueline-check beside
 * this executable's real path, else on PATH) and waits. 0 when it succeeded; otherwise -1 after a message
 * naming the object (the compile must then fail: a cache never stores a half-done object). who prefixes
 * the message ("trueline-cc" or "trueline-cc (stage)"). */
struct tlcc_ctx;
int tlcc_line_split(struct tlcc_ctx *ctx, const char *store, const char *obj, const char *who);

#endif
