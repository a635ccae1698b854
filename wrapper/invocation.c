#include "invocation.h"

#include <stdlib.h>

const char *tl_family_name(enum tl_family f)
{
    switch (f) {
    case TL_FAM_GCC: return "gcc";
    case TL_FAM_CLANG: return "clang";
    case TL_FAM_NVCC: return "nvcc";
    default: return "other";
    }
}

void tl_invocation_free(tl_invocation *inv)
{
    free(inv->compiler_arg);
    free(inv->compiler_path);
    free(inv->cache_path);
    free(inv->version);
    tl_strv_free(&inv->user_args);
    tl_strv_free(&inv->args);
    tl_strv_free(&inv->folds);
    tl_strv_free(&inv->forced);
    tl_strv_free(&inv->notes);
    tl_strv_free(&inv->unset_env);
    free(inv->output);
    free(inv->source);
    tl_strv_free(&inv->sources);
    free(inv->odir);
    free(inv->host_compiler);
    free(inv->host_from);
    for (int i = 0; i < inv->ncomps; i++) {
        free(inv->comps[i].role);
        free(inv->comps[i].path);
    }
    free(inv->comps);
    tl_strv_free(&inv->env_hashed);
    free(inv->memo_dir);
    free(inv->memo_problem);
}
