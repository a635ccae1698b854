/* What trueline-cc does with one compile once the invocation is understood (plan.c): the command, the
 * child's environment, whether it execs or waits, and what follows the compile. Built once from the
 * invocation and the configuration; building it creates nothing on disk (the run step, run.c, makes the
 * stage entry and edits the environment). */
#ifndef TLCC_WRAPPER_PLAN_H
#define TLCC_WRAPPER_PLAN_H
#include "run/env_edits.h"
#include "understand/invocation.h"
#include "fingerprint/memo.h"
#include "provenance/prov_config.h"
#include "provenance/record.h"
#include "provenance/verify_key.h"

enum tlcc_after {
    TLCC_AFTER_NOTHING,
    TLCC_AFTER_VERIFY, /* the cache ran the stamping stage: verify each object it handed back */
    TLCC_AFTER_STAMP,  /* no stage (no cache, several sources, sccache with nvcc): stamp each object */
    TLCC_AFTER_LINK,   /* a link (or compile-and-link): its output gets compile and link records */
};

typedef struct tlcc_plan {
    tlcc_strv argv;      /* the command: [cache] program arguments..., NULL-terminated */
    char *stage;         /* the stage entry the cache runs in the compiler's place (NULL: none) */
    const char *self;    /* this trueline-cc's real path, the stage entry's target */
    char *warning;       /* said before the compile (why there is no stage) */
    tlcc_strv env_unset; /* variables removed from the child's environment */
    tlcc_env_edits env_set; /* variables set for it */
    int wait;            /* 1: run the command and wait, then the after step; 0: exec it */
    int in_cache;        /* the hook in ccache's process verifies the hit (the command is exec'd) */
    enum tlcc_after after;
    /* for the records and the after step */
    tlcc_record_ctx record;
    char *cwd;
    char key_hash[TL_HASH_HEX_LEN + 1];
    char key_hash_pp[TL_HASH_HEX_LEN + 1]; /* empty: the family's cache key holds what the preprocessor reads */
    char compilercheck[TL_HASH_HEX_LEN + 8]; /* CCACHE_COMPILERCHECK's value: string:FINGERPRINT */
    const char *line_store; /* the device line info goes there before the stamp (line_split.h); NULL: kept */
    tlcc_key_ctx key; /* how the cache normalizes argv (key_hash's), to name differences */
    int key_ready;
} tlcc_plan;

/* Fills p for inv (effective argv, fingerprint and argv hash known). use_stage 0: as if no stage entry
 * could be had (the run step's fallback when it cannot be created). The memo keeps the answer to whether
 * ccache can carry the hook (verify_in_cache.c): build the plan before the memo is saved. */
void tlcc_plan_build(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, tlcc_memo *memo,
                     int use_stage);
void tlcc_plan_free(tlcc_plan *p);

#endif
