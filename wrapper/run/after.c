#include "run/after.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "understand/argv.h"
#include "provenance/line_split.h"
#include "run/process.h"
#include "provenance/prov_stats.h"
#include "context.h"
#include "provenance/stage.h"
#include "provenance/stamp.h"
#include "trueline/file_kind.h"
#include "provenance/verify.h"
#include "provenance/verify_in_cache.h"

/* One more in a provenance counter, kept under the run's $XDG_CACHE_HOME (else $HOME). */
static void count(const tlcc_env_snapshot *env, enum tlcc_stat which)
{
    tlcc_stats_home where = { env->v[TLCC_EV_XDG_CACHE_HOME], env->v[TLCC_EV_HOME] };
    tlcc_stats_add(&where, which, 1);
}

static int stamp(const tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, const char *out,
                 const char *src)
{
    /* The split before the stamp: the record binds the split object. */
    if (p->line_store && tlcc_line_split(inv->ctx, p->line_store, out, "trueline-cc") != 0)
        return -1;
    char li[256];
    tl_note n = tlcc_record_note(inv, &p->record, TL_NOTE_COMPILE, src, li, sizeof li);
    tl_error err;
    unsigned char *rec;
    size_t len;
    int rc = tl_note_encode(&n, prov->argv_max, &rec, &len, &err);
    if (rc == 0) {
        rc = tlcc_stamp_sealed(out, rec, len, prov->mac.bytes ? &prov->mac : NULL, &err);
        free(rec);
    }
    if (rc != 0) {
        fprintf(stderr, "trueline-cc: error: %s\n", err.msg);
        return -1;
    }
    count(&inv->ctx->env, TLCC_STAT_STAMPED);
    return 0;
}

/* What verifying one cached object needs. The waiting wrapper fills it from its plan; the repair run that
 * the in-cache hook starts (tlcc_after_fixup) from its command line, with inv NULL. */
struct verify_job {
    enum tlcc_cache cache;
    char *const *cache_argv; /* the cache command: cache, stage or compiler, then args */
    char *const *args;       /* the effective argv, to name what differs */
    int nargs;
    const char *out, *fp, *ah, *kh, *kp; /* kp NULL: none */
    tlcc_key_ctx *key;
    const tlcc_prov_config *prov;
    const tlcc_plan *plan; /* NULL in the repair run */
    const tlcc_invocation *inv;
    const tlcc_env_snapshot *env; /* the run's */
};

static tlcc_verify_expect expect_of(const struct verify_job *j)
{
    return (tlcc_verify_expect){ .fingerprint = j->fp, .argv_hash = j->ah, .key_hash = j->kh,
                                 .key_hash_pp = j->kp, .argv = j->args,
                                 .argc = j->nargs, .key = j->key, .key_vector = tlcc_key_vector,
                                 .mac_ok = j->prov->mac.bytes ? tlcc_mac_note_ok : NULL,
                                 .mac_key = (void *)&j->prov->mac };
}

/* The last resort: the compile without the cache, stamped. The wrapper runs the real compiler and stamps
 * from its invocation; the repair run has no invocation and runs the stage itself, which does both (its
 * environment, set by the wrapper for the cache, is still in place). */
static int compile_direct(const struct verify_job *j)
{
    if (!j->inv)
        return tlcc_process_wait(j->cache_argv + 1);
    const tlcc_invocation *inv = j->inv;
    tlcc_strv argv = { 0 };
    tlcc_strv_push(&argv, inv->compiler_path);
    tlcc_argv_for_exec(inv, &argv); /* as exec takes them: response files too big are kept as files */
    unsetenv(TLCC_STAGE_ENV_REAL);
    unsetenv(TLCC_STAGE_ENV_NOTE);
    unsetenv(TLCC_STAGE_ENV_KEY_FILE);
    unsetenv(TLCC_STAGE_ENV_LINE_STORE); /* stamp() splits */
    int st = tlcc_process_wait(argv.v);
    tlcc_strv_free(&argv);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && stamp(j->plan, inv, j->prov, j->out, inv->source) != 0)
        return 1 << 8;
    return st;
}

/* Recompiles with the cache lookup bypassed but its store kept (CCACHE_RECACHE / SCCACHE_RECACHE): the
 * stage stamps the fresh object and it replaces the bad entry, so the next hit is right. When that does
 * not give a verified object (a cache without recache support), compiles without the cache at all. */
static int recompile(const struct verify_job *j)
{
    const char *var = j->cache == TLCC_CACHE_SCCACHE ? "SCCACHE_RECACHE" : "CCACHE_RECACHE";
    setenv(var, "1", 1);
    int st = tlcc_process_wait(j->cache_argv);
    unsetenv(var);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return st;
    tlcc_verify_result r;
    tlcc_verify_expect e = expect_of(j);
    tlcc_verify_object(j->out, &e, &r);
    return r.status == TLCC_VERIFY_OK ? st : compile_direct(j);
}

static int verify(const struct verify_job *j, int status)
{
    if (!j->prov->verify)
        return status;
    tlcc_verify_result r;
    tlcc_verify_expect e = expect_of(j);
    tlcc_verify_object(j->out, &e, &r);
    if (r.status == TLCC_VERIFY_NOT_HOST) /* a cubin from -cubin, or nothing written: no record expected */
        return status;
    count(j->env, TLCC_STAT_VERIFIED);
    if (r.status == TLCC_VERIFY_OK) {
        if (r.unbound)
            count(j->env, TLCC_STAT_UNBOUND);
        return status;
    }
    count(j->env, r.status == TLCC_VERIFY_NO_NOTE ? TLCC_STAT_NO_NOTE : TLCC_STAT_MISMATCH);
    fprintf(stderr, "trueline-cc: %s: cached object does not match this compile: %s\n", j->out, r.what);
    if (j->prov->fail) {
        fprintf(stderr, "trueline-cc: error: [provenance] on_mismatch = fail\n");
        return 1 << 8;
    }
    fprintf(stderr, "trueline-cc: recompiling %s (cache lookup bypassed; the fresh object replaces the entry)\n", j->out);
    count(j->env, TLCC_STAT_RECOMPILED);
    return recompile(j);
}

/* Every object of the compile: verified when the cache ran the stage (one source), else stamped. */
static int after_compile(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, int status)
{
    tlcc_strv outs = { 0 };
    tlcc_compile_outputs(inv, &outs);
    for (int i = 0; i < outs.n && i < inv->sources.n; i++) {
        if (p->after == TLCC_AFTER_VERIFY) { /* the verifier checks the ELF type itself: one open */
            struct verify_job j = { .cache = inv->cache, .cache_argv = p->argv.v, .args = inv->args.v,
                                    .nargs = inv->args.n, .out = outs.v[i], .fp = inv->fp_hex, .ah = inv->argv_hex,
                                    .kh = p->key_hash, .kp = *p->key_hash_pp ? p->key_hash_pp : NULL, .key = &p->key, .prov = prov, .plan = p, .inv = inv,
                                    .env = &inv->ctx->env };
            status = verify(&j, status);
        } else if (tlcc_prov_is_host_object(outs.v[i]) && stamp(p, inv, prov, outs.v[i], inv->sources.v[i]) != 0) {
            status = 1 << 8;
        }
    }
    tlcc_strv_free(&outs);
    return status;
}

static int is_elf_link_output(const char *path, time_t started)
{
    struct stat st;
    enum tl_file_kind kind;
    struct tl_elf_ident id;
    if (stat(path, &st) != 0 || st.st_mtime < started - 1 || tl_sniff_path(path, &kind, &id) != 0)
        return 0;
    /* ET_REL (ld -r), ET_EXEC, ET_DYN of the host; a cubin from nvcc -cubin is no link */
    return kind == TL_FILE_ELF && id.type >= ET_REL && id.type <= ET_DYN && id.machine != TL_EM_CUDA;
}

/* A link, or a compile-and-link (`gcc a.c b.o -o app`): the output gets one compile record per source this
 * command compiled (`cl=1`, argv left out: the link record after them carries it), then the link record.
 * The intermediate objects are the compiler driver's temporary files, never seen by the wrapper; their
 * records would say exactly what these say (same toolchain, same effective argv, same source), so they
 * are written straight into the output instead of into temporaries. */
static int after_link(const tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, const char *out)
{
    char li[256];
    unsigned char *all = NULL, *rec;
    size_t all_len = 0, len;
    tl_error err = { { 0 } };
    int rc = 0;
    for (int i = 0; i <= inv->sources.n && rc == 0; i++) {
        int is_compile = i < inv->sources.n;
        tl_note n = tlcc_record_note(inv, &p->record, is_compile ? TL_NOTE_COMPILE : TL_NOTE_LINK,
                                     is_compile ? inv->sources.v[i] : NULL, li, sizeof li);
        n.at_link = is_compile;
        if (tl_note_encode(&n, is_compile ? 0 : prov->argv_max, &rec, &len, &err) != 0) {
            rc = -1;
            break;
        }
        unsigned char *grown = realloc(all, all_len + len);
        if (grown) {
            memcpy(grown + all_len, rec, len);
            all = grown;
            all_len += len;
        } else {
            rc = tl_fail(&err, "provenance note: out of memory");
        }
        free(rec);
    }
    if (rc == 0)
        rc = tlcc_stamp_record(out, all, all_len, &err);
    free(all);
    if (rc != 0) {
        fprintf(stderr, "trueline-cc: error: %s\n", err.msg);
        return -1;
    }
    count(&inv->ctx->env, TLCC_STAT_STAMPED);
    return 0;
}

int tlcc_after(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, int status, time_t started)
{
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return status;
    switch (p->after) {
    case TLCC_AFTER_VERIFY:
    case TLCC_AFTER_STAMP:
        return after_compile(p, inv, prov, status);
    case TLCC_AFTER_LINK: {
        const char *out = inv->output ? inv->output : "a.out";
        return is_elf_link_output(out, started) && after_link(p, inv, prov, out) != 0 ? 1 << 8 : status;
    }
    case TLCC_AFTER_NOTHING:
        break;
    }
    return status;
}

int tlcc_after_fixup(tlcc_ctx *ctx, const tlcc_prov_config *prov, int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "trueline-cc: " TLCC_HOOK_FIXUP_OPTION
                        ": expected OUT FINGERPRINT ARGV_HASH KEY_HASH KEY_HASH_PP CACHE-ARGV...\n");
        return -1;
    }
    /* ccache's working directory is the compile's, so the key is normalized as the wrapper did */
    char *cwd = getcwd(NULL, 0);
    tlcc_key_ctx key;
    tlcc_key_init(&key, TLCC_KEY_CCACHE, cwd, &ctx->env);
    struct verify_job j = { .cache = TLCC_CACHE_CCACHE, .out = argv[0], .fp = argv[1], .ah = argv[2], .kh = argv[3],
                            .kp = *argv[4] ? argv[4] : NULL, .key = &key, .cache_argv = argv + 5, .args = argv + 7,
                            .nargs = argc - 7, .prov = prov,
                            .env = &ctx->env };
    int status = verify(&j, 0);
    tlcc_key_free(&key);
    free(cwd);
    return status;
}
