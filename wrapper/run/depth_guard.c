#include "run/depth_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tlcc_depth_enter(tlcc_env_snapshot *env, const char *self_id, const char *tool, tl_error *err)
{
    const char *v = env->v[TLCC_EV_TRUELINE_CC_DEPTH];
    long depth = 1;
    size_t n = self_id ? strlen(self_id) : 0;
    if (v && n && strncmp(v, self_id, n) == 0 && v[n] == ' ') {
        char *end;
        long d = strtol(v + n + 1, &end, 10);
        if (*end == 0 && d >= 1 && d <= TLCC_MAX_DEPTH)
            depth = d + 1;
        else if (*end == 0 && d > TLCC_MAX_DEPTH)
            depth = d; /* already past: keep failing, never wrap around */
    }
    if (depth > TLCC_MAX_DEPTH)
        return tl_fail(err,
                       "trueline-cc is running inside itself %ld times: '%s' leads back to trueline-cc (a compiler "
                       "on PATH or a -ccbin that is a script calling trueline-cc?); point it at the real compiler",
                       depth - 1, tool ? tool : "?");
    char val[64];
    snprintf(val, sizeof val, "%s %ld", self_id ? self_id : "?", depth);
    tlcc_env_snapshot_put(env, TLCC_EV_TRUELINE_CC_DEPTH, val); /* for the children */
    return 0;
}
