#include "understand/invocation.h"

#include <stdlib.h>

void tlcc_invocation_free(tlcc_invocation *inv)
{
    free(inv->compiler_arg);
    free(inv->compiler_path);
    free(inv->cache_path);
    free(inv->version);
    tlcc_strv_free(&inv->user_args);
    tlcc_strv_free(&inv->args);
    tlcc_strv_free(&inv->folds);
    tlcc_strv_free(&inv->forced);
    tlcc_strv_free(&inv->notes);
    tlcc_strv_free(&inv->unset_env);
    tlcc_strv_free(&inv->folded_env);
    free(inv->output);
    free(inv->source);
    tlcc_strv_free(&inv->sources);
    free(inv->odir);
    free(inv->host_compiler);
    free(inv->host_from);
    for (int i = 0; i < inv->ncomps; i++) {
        free(inv->comps[i].role);
        free(inv->comps[i].path);
    }
    free(inv->comps);
    tlcc_strv_free(&inv->env_hashed);
    free(inv->memo_dir);
    free(inv->memo_problem);
}
