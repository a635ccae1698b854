#include "context.h"

#include <stdlib.h>
#include <string.h>

void tlcc_ctx_init(tlcc_ctx *ctx, char *const *envp)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->self.known = -1;
    tlcc_env_snapshot_take(&ctx->env, envp);
}

void tlcc_ctx_free(tlcc_ctx *ctx)
{
    tlcc_stat_cache_drop(&ctx->deps);
    tlcc_dynlibs_cache_free(&ctx->dynlibs);
    free(ctx->self.active);
    free(ctx->self.path);
    tlcc_env_snapshot_free(&ctx->env);
}
