#include "run/plan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "understand/argv.h"
#include "understand/compiler.h"
#include "context.h"
#include "understand/families.h"
#include "provenance/line_split.h"
#include "provenance/stage.h"
#include "provenance/verify_in_cache.h"

/* A compile that writes an object the record is for (family known, a source, -c). */
static int is_stamped_compile(const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    return inv->family != TLCC_FAM_OTHER && inv->compile_only && inv->source && !inv->no_force && prov->stamp;
}

static int is_link(const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    /* link-only calls have no source (force.c's no_force says so); queries and -E/-M are left alone */
    return inv->family != TLCC_FAM_OTHER && !inv->compile_only && prov->stamp && prov->links &&
           (!inv->no_force || (!inv->source && inv->output && inv->no_force_reason &&
                               strncmp(inv->no_force_reason, "no source", 9) == 0));
}

/* Several sources in one -c (`gcc -c a.c b.c`): ccache ("multiple source files") and sccache ("multiple
 * input files") do not cache such a compile, they run the compiler they were given themselves. It gets
 * the real compiler and the wrapper stamps every object afterwards; there is no cache hit to verify.
 *
 * A family whose sub-steps sccache caches (families.c, sccache_steps): sccache since 0.9
 * (mozilla/sccache#2300) never caches the outer nvcc call: it runs `nvcc --dryrun`
 * and then runs and caches the sub-steps itself, so a stage in nvcc's place never sees the final object
 * (measured with sccache 0.16: every object came back without a record). Such compiles are stamped after
 * sccache returns and cannot be verified; sccache 0.4 (Debian) would work through the stage, but one
 * rule for every version keeps the behaviour predictable. */
static int stage_applies(const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    return inv->cache != TLCC_CACHE_NONE && is_stamped_compile(inv, prov) && inv->sources.n == 1 &&
           !(inv->cache == TLCC_CACHE_SCCACHE && tlcc_family_of(inv->family)->sccache_steps);
}

/* [wrapper] line_info_store applies to stamped compiles of a family that gets forced device line info (nvcc):
 * the split runs just before the stamp, so the record binds the split object. -G compiles keep their full
 * device debug info (the user asked for a debug build). */
static const char *line_store_of(const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    return prov->line_store && is_stamped_compile(inv, prov) && tlcc_family_of(inv->family)->device_lineinfo &&
                   !inv->has_G
               ? prov->line_store
               : NULL;
}

/* The cache key tells split objects from unsplit ones, and one store from another: a hit hands back the
 * object as the miss left it and writes nothing into this compile's store. Only then is the value joined on
 * the heap; the usual key stays the fixed buffer (no allocation on a hit). */
static void cache_key_env(tlcc_plan *p, const tlcc_invocation *inv)
{
    if (inv->cache == TLCC_CACHE_CCACHE && !p->line_store) {
        memcpy(p->compilercheck, "string:", 7); /* joined by hand: no printf code on a cache hit */
        memcpy(p->compilercheck + 7, inv->fp_hex, sizeof inv->fp_hex);
        tlcc_env_set(&p->env_set, "CCACHE_COMPILERCHECK", p->compilercheck);
    } else if (inv->cache == TLCC_CACHE_CCACHE) {
        tlcc_env_set_owned(&p->env_set, "CCACHE_COMPILERCHECK",
                           tlcc_concatn(TLCC_S("string:"), TLCC_S(inv->fp_hex), TLCC_S(" line_info_store="),
                                        TLCC_S(p->line_store), NULL));
    } else if (inv->cache == TLCC_CACHE_SCCACHE && !p->line_store) {
        tlcc_env_set(&p->env_set, "SCCACHE_C_CUSTOM_CACHE_BUSTER", inv->fp_hex);
    } else if (inv->cache == TLCC_CACHE_SCCACHE) {
        tlcc_env_set_owned(&p->env_set, "SCCACHE_C_CUSTOM_CACHE_BUSTER",
                           tlcc_concatn(TLCC_S(inv->fp_hex), TLCC_S(" line_info_store="), TLCC_S(p->line_store),
                                        NULL));
    }
}

/* The working directory and the key hash, which the records and the verification share. */
static void record_context(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, int cached)
{
    p->cwd = malloc(4096); /* not on the stack: a page more of it would be one more fault on every hit */
    if (p->cwd && !getcwd(p->cwd, 4096)) {
        free(p->cwd);
        p->cwd = NULL;
    }
    p->record.cwd = p->cwd;
    p->record.mac = prov->mac.bytes != NULL;
    if (!cached)
        return;
    tlcc_key_init(&p->key, inv->cache == TLCC_CACHE_SCCACHE ? TLCC_KEY_SCCACHE : TLCC_KEY_CCACHE, p->cwd,
                  &inv->ctx->env);
    p->key_ready = 1;
    tl_hash128 kh, kp;
    int pp = tlcc_family_of(inv->family)->cache_keys_preprocessed;
    tlcc_key_hashes(&p->key, inv->args.v, inv->args.n, &kh, pp ? &kp : NULL);
    tl_hash_hex(kh, p->key_hash);
    p->record.key_hash = p->key_hash;
    if (pp) {
        tl_hash_hex(kp, p->key_hash_pp);
        p->record.key_hash_pp = p->key_hash_pp;
    }
}

/* The cache runs the stage in the compiler's place; it learns the real compiler and the record from
 * variables that neither ccache nor sccache hashes. */
static void stage_env(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov)
{
    char li[256];
    tl_note n = tlcc_record_note(inv, &p->record, TL_NOTE_COMPILE, inv->source, li, sizeof li);
    tl_error err;
    char *hex = tlcc_stage_note_env(&n, prov->argv_max, &err);
    tlcc_env_set(&p->env_set, TLCC_STAGE_ENV_REAL, inv->compiler_path);
    tlcc_env_set_owned(&p->env_set, TLCC_STAGE_ENV_NOTE, hex);
    if (prov->mac.bytes)
        tlcc_env_set(&p->env_set, TLCC_STAGE_ENV_KEY_FILE, prov->key_path);
    tlcc_env_set(&p->env_set, TLCC_STAGE_ENV_LINE_STORE, p->line_store); /* NULL: not set */
    /* ccache 4.7 may follow the stage symlink when it guesses the compiler type by name. */
    if (inv->cache == TLCC_CACHE_CCACHE && !inv->ctx->env.v[TLCC_EV_CCACHE_COMPILERTYPE])
        tlcc_env_set(&p->env_set, "CCACHE_COMPILERTYPE", tlcc_family_of(inv->family)->ccache_type);
}

/* A ccache hit verified in ccache's own process (verify_in_cache.c) lets the wrapper exec the cache. With
 * a key the hook, which links no libsodium, leaves the hit to the waiting wrapper. */
static int verify_in_cache(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, tlcc_memo *memo)
{
    if (!p->stage || !prov->verify || !prov->in_cache || inv->cache != TLCC_CACHE_CCACHE || prov->mac.bytes)
        return 0;
    tlcc_strv outs = { 0 };
    tlcc_compile_outputs(inv, &outs);
    int yes = outs.n == 1 && tlcc_incache_env(inv, memo, outs.v[0], inv->argv_hex, p->key_hash, p->key_hash_pp,
                                                    &p->env_set) == 0;
    tlcc_strv_free(&outs);
    return yes;
}

void tlcc_plan_build(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, tlcc_memo *memo,
                     int use_stage)
{
    *p = (tlcc_plan){ 0 };
    int stamped = is_stamped_compile(inv, prov), link = !stamped && is_link(inv, prov);
    if (stamped && stage_applies(inv, prov) && use_stage) {
        tl_error err;
        p->self = tlcc_self_path(inv->ctx, memo);
        p->stage = tlcc_stage_link_path(&inv->ctx->env, p->self, inv->compiler_path, &err);
        if (!p->stage) /* unstamped objects would fail every later verification: say why */
            p->warning = tlcc_concatn(TLCC_S(err.msg), TLCC_S("; objects are stamped after the compile instead"), NULL);
    }

    /* The cache gets the real compiler's path: looked up by name it could find a masquerade link. */
    if (inv->cache != TLCC_CACHE_NONE && inv->cache_path)
        tlcc_strv_push(&p->argv, inv->cache_path);
    tlcc_strv_push(&p->argv, p->stage ? p->stage : inv->compiler_path);
    tlcc_argv_for_exec(inv, &p->argv);

    /* with the arguments as given, the folded variables must still apply: the compiler folds them itself */
    if (!tlcc_argv_keeps_files(inv))
        tlcc_strv_append(&p->env_unset, &inv->unset_env);
    /* The cache then identifies the compiler by our fingerprint instead of the driver's size+mtime. */
    p->line_store = line_store_of(inv, prov);
    cache_key_env(p, inv);
    if (!stamped && !link)
        return; /* exec, nothing after */

    record_context(p, inv, prov, stamped && inv->cache != TLCC_CACHE_NONE);
    if (p->stage)
        stage_env(p, inv, prov);
    p->in_cache = verify_in_cache(p, inv, prov, memo);
    /* The stage stamps on a miss; without verification nothing is left to do after the compile. */
    p->after = link ? TLCC_AFTER_LINK : !p->stage ? TLCC_AFTER_STAMP : prov->verify ? TLCC_AFTER_VERIFY : TLCC_AFTER_NOTHING;
    p->wait = p->after != TLCC_AFTER_NOTHING && !p->in_cache;
}

void tlcc_plan_free(tlcc_plan *p)
{
    tlcc_strv_free(&p->argv);
    tlcc_strv_free(&p->env_unset);
    tlcc_env_edits_free(&p->env_set);
    free(p->stage);
    free(p->warning);
    free(p->cwd);
    if (p->key_ready)
        tlcc_key_free(&p->key);
    *p = (tlcc_plan){ 0 };
}
