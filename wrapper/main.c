/* trueline-cc: the compiler front wrapper. main makes the run's context (context.h: the environment read once,
 * the caches, the recorder) and hands it down. The life of one run, top-down (run, then wrap):
 * parse (classify the invocation; family, effective argv, forced flags, fingerprint) -> plan (command,
 * environment, exec or wait, the after step) -> save the memo -> explain on request -> exec, or wait and
 * run the after step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/after.h"
#include "understand/argv.h"
#include "understand/cache_order.h"
#include "understand/compiler.h"
#include "context.h"
#include "run/depth_guard.h"
#include "run/explain.h"
#include "understand/families.h"
#include "fingerprint/fingerprint.h"
#include "understand/force.h"
#include "fingerprint/memo.h"
#include "run/plan.h"
#include "run/process.h"
#include "provenance/prov_config.h"
#include "provenance/prov_stats.h"
#include "run/run.h"
#include "provenance/stage.h"
#include "trueline/lib_versions.h"
#include "provenance/verify_in_cache.h"
#include "run/warn_once.h"

static void usage(FILE *out)
{
    fputs("usage: trueline-cc [ccache|sccache] COMPILER ARGS...   (launcher / chained)\n"
          "       nvcc|gcc|g++|cc|c++|clang|clang++ ARGS...        (masquerade: a symlink to trueline-cc)\n"
          "       ccache|sccache COMPILER ARGS...                 (a symlink named after the cache: chained)\n"
          "options (anywhere, removed before the compiler runs):\n"
          "  --trueline-explain            print the effective argv, folds, forced flags, fingerprint\n"
          "  --trueline-print-fingerprint  print the toolchain fingerprint and exit without compiling\n"
          "  --trueline-toolchain          print the components fingerprinted (role, XXH3-128, path) and the\n"
          "                                fingerprint, tab-separated, and exit without compiling\n"
          "alone: --trueline-stats, --trueline-zero-stats (verification counts), --trueline-version (or --version),\n"
          "       --help\n"
          "environment: TRUELINE_EXPLAIN=1, TRUELINE_CONFIG=FILE, TRUELINE_<SECTION>_<KEY>=VALUE\n"
          "see trueline-cc(1) and docs/wrapper.md\n",
          out);
}

/* Timings are only for explain: an unexplained hit skips the clock (in a fresh static process the
 * first clock_gettime resolves the vDSO and faults in two of its pages). */
static double now_ms(int wanted)
{
    if (!wanted)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Heap, not a 4 KiB stack buffer: main's frame is the stack's top, and every page it reaches down is
 * one more page fault on each cache hit. NULL with [fingerprint] memo off. */
static char *memo_dir(const tl_config *cfg, int memo_on, const tlcc_env_snapshot *env)
{
    char *dir = NULL;
    if (!memo_on)
        return NULL;
    const char *d = tl_config_get(cfg, "fingerprint", "memo_dir");
    const char *xdg = env->v[TLCC_EV_XDG_CACHE_HOME], *home = env->v[TLCC_EV_HOME];
    if (d && *d)
        dir = strdup(d);
    else if (xdg && *xdg)
        dir = tlcc_concatn(TLCC_S(xdg), TLCC_S("/trueline"), NULL);
    else if (home && *home)
        dir = tlcc_concatn(TLCC_S(home), TLCC_S("/.cache/trueline"), NULL);
    return dir;
}

/* The keys of the sections trueline-cc owns, as conf/trueline.ini documents them. The checker reads the
 * same file with sections of its own ([checks], [suppress], ...): those are left alone. */
static const char *const wrapper_keys[] = { "cache", "device_lineinfo", "host_debug", "on_error", "explain",
                                           "line_info_store", NULL };
static const char *const fingerprint_keys[] = { "memo", "memo_dir", "env", "extra_files", NULL };
static const char *const provenance_keys[] = { "stamp", "links", "verify", "verify_in_cache", "key_file", "on_mismatch",
                                               "record_argv", "argv_max", NULL };
static const struct tl_config_section wrapper_sections[] = {
    { "wrapper", wrapper_keys }, { "fingerprint", fingerprint_keys }, { "provenance", provenance_keys }, { NULL, NULL }
};

/* The security settings the repository's own .trueline.ini may tighten, never loosen (lib/config_guard.c):
 * on_error = passthrough would run the cache unverified whenever the wrapper fails. */
static const char *const mismatch_order[] = { "recompile", "fail", NULL };
static const char *const on_error_order[] = { "passthrough", "fail", NULL };
static const struct tl_config_guard wrapper_guards[] = {
    { "provenance", "key_file", NULL },
    { "provenance", "stamp", tl_config_guard_bool },
    { "provenance", "links", tl_config_guard_bool },
    { "provenance", "verify", tl_config_guard_bool },
    { "provenance", "verify_in_cache", tl_config_guard_bool },
    { "provenance", "on_mismatch", mismatch_order },
    { "wrapper", "on_error", on_error_order },
    { NULL, NULL, NULL },
};

/* The values main reads up front ([provenance] among them), and the keys of our sections, checked before anything
 * runs: a typo fails like a broken file ([wrapper] on_error) instead of silently meaning a default (a bad
 * yes/no used to read as "on", TRUELINE_EXPLAIN=false turned explain on). Nothing here reads a file or
 * makes a system call: this runs on every cache hit. ([wrapper] cache, host_debug and device_lineinfo are
 * checked where they are used: compiler.c, force.c.) */
static int check_config(const tl_config *cfg, const tlcc_env_snapshot *env, int *explain, int *memo_on,
                        tlcc_prov_config *prov, tl_error *err)
{
    static const char *const on_error[] = { "fail", "passthrough", NULL };
    if (!tl_config_enum(cfg, "wrapper", "on_error", "fail", on_error, err))
        return -1; /* first: whatever else is wrong, wrapper_failed can then trust on_error */
    const char *e = env->v[TLCC_EV_TRUELINE_EXPLAIN];
    int env_explain = e && *e ? tl_config_parse_bool(e) : 0; /* empty: off, as documented */
    if (env_explain < 0)
        return tl_fail(err, "TRUELINE_EXPLAIN: explain = %s: expected true or false (also 1/0, yes/no, on/off)", e);
    int cfg_explain = tl_config_bool_checked(cfg, "wrapper", "explain", 0, err);
    if (cfg_explain < 0 || (*memo_on = tl_config_bool_checked(cfg, "fingerprint", "memo", 1, err)) < 0)
        return -1;
    *explain |= env_explain || cfg_explain;
    if (tl_config_check_keys(cfg, wrapper_sections, err) != 0)
        return -1;
    return tlcc_prov_config_read(cfg, prov, err);
}

/* The wrapper could not do its job: by [wrapper] on_error, fail the compile (default) or run the
 * compiler exactly as the user wrote it, with a warning. checked: check_config ran (on_error was checked
 * first, and reported if bad). */
static int wrapper_failed(const tlcc_invocation *inv, const tl_config *cfg, int checked, const char *msg)
{
    const char *policy = tl_config_get_or(cfg, "wrapper", "on_error", "fail");
    if (strcmp(policy, "passthrough") != 0 || !inv->compiler_path) {
        fprintf(stderr, "trueline-cc: error: %s\n", msg);
        /* a file that could not be read was never checked: its on_error (the environment's) is said here */
        if (!checked && strcmp(policy, "fail") != 0 && strcmp(policy, "passthrough") != 0)
            fprintf(stderr, "trueline-cc: error: [wrapper] on_error = %s: expected fail or passthrough\n", policy);
        fprintf(stderr, "trueline-cc: the compile was not run (set [wrapper] on_error = passthrough, or "
                        "TRUELINE_WRAPPER_ON_ERROR=passthrough, to run it unwrapped)\n");
        return TL_EXIT_BAD_INPUT;
    }
    fprintf(stderr, "trueline-cc: warning: %s; running the compiler unwrapped\n", msg);
    tlcc_strv argv = { 0 };
    if (inv->cache_path)
        tlcc_strv_push(&argv, inv->cache_path);
    tlcc_strv_push(&argv, inv->compiler_path);
    tlcc_strv_append(&argv, &inv->user_args);
    int rc = tlcc_process_exec(argv.v); /* the environment untouched */
    tlcc_strv_free(&argv);
    return rc;
}

/* A cache runs trueline-cc as its compiler (cache_order.c): its hits would skip the fingerprint and the forced
 * flags. Nothing is run; the message names the order that works. */
static void reversed_order(const char *cache, const char *how)
{
    fprintf(stderr,
            "trueline-cc: error: %s runs trueline-cc as its compiler (\"%s trueline-cc COMPILER ...\")%s: the cache "
            "would key the compile without the toolchain fingerprint and the flags trueline-cc adds, and hand back "
            "stale objects\n"
            "trueline-cc: put trueline-cc first: \"trueline-cc %s COMPILER ...\"; in CMake "
            "\"-DCMAKE_<LANG>_COMPILER_LAUNCHER=trueline-cc;%s\" (not \"%s;trueline-cc\"); for a build that runs %s "
            "itself, a link named %s to trueline-cc first on PATH (docs/wrapper.md)\n"
            "trueline-cc: the compile was not run\n",
            cache, cache, how, cache, cache, cache, cache, cache);
}

/* argv[i] is the value of the option before it (`-o --trueline-explain` names the object): the compiler's. */
static int is_operand(char **argv, int i)
{
    return i > 1 && argv[i - 1][0] == '-' && tlcc_family_any_takes_value(argv[i - 1]);
}

/* Removes trueline-cc's own options so the compiler never sees them. */
static int take_option(int *argc, char **argv, const char *opt)
{
    int found = 0;
    for (int i = 1; i < *argc;) {
        if (strcmp(argv[i], opt) == 0 && !is_operand(argv, i)) {
            memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
            (*argc)--;
            found = 1;
        } else {
            i++;
        }
    }
    return found;
}

/* Nested under another trueline-cc (nvcc running "gcc" that is a masquerade link): the outer one
 * already fingerprinted and forced; run the real compiler untouched. Also the cache's own commands
 * ("ccache -s", "sccache --show-stats") through a link named after it. */
static int run_nested(tlcc_ctx *ctx, int argc, char **argv)
{
    char *real = tlcc_find_program(ctx, NULL, tlcc_basename(argv[0]), ctx->env.v[TLCC_EV_PATH]);
    if (!real) {
        fprintf(stderr, "trueline-cc: %s: no real compiler of that name on PATH (other than trueline-cc)\n",
                tlcc_basename(argv[0]));
        return 127;
    }
    argv[0] = real;
    (void)argc;
    return tlcc_process_exec(argv);
}

/* What the compile is: family, effective argv, forced flags, fingerprint, argv hash. */
static int understand(tlcc_invocation *inv, const tl_config *cfg, const tlcc_prov_config *prov, tlcc_memo *memo,
                      double *fp_ms, tl_error *err)
{
    double t0 = now_ms(inv->explain);
    /* the version goes into provenance records and explain's report, nowhere else */
    tlcc_detect_family(inv, memo, inv->explain || prov->stamp);
    if (tlcc_effective_argv(inv, err) != 0)
        return -1;
    tlcc_analyze(inv, memo);
    if (tlcc_force(inv, cfg, err) != 0)
        return -1;
    double t1 = now_ms(inv->explain);
    if (tlcc_fingerprint(inv, cfg, memo, err) != 0)
        return -1;
    *fp_ms = now_ms(inv->explain) - t1 + (t1 - t0); /* family probe + fingerprint (PATH lookups: inv->resolve_ms) */
    tlcc_argv_hash(inv);
    return 0;
}

/* Answers found by this run are kept for the next; a memo that cannot be written makes the next run
 * slower, never this compile fail. */
static void save_memo(tlcc_invocation *inv, tlcc_memo *memo)
{
    tl_error merr;
    if (tlcc_memo_save(memo, &merr) == 0)
        return;
    inv->memo_problem = strdup(merr.msg);
    /* every compile of the build now fingerprints cold (1 ms becomes 15-50 ms): say so, once an hour */
    if (!inv->explain && tlcc_warn_once(inv->ctx->env.v[TLCC_EV_TMPDIR], merr.msg, 3600))
        fprintf(stderr, "trueline-cc: warning: %s; every compile hashes the toolchain again until the memo "
                        "cache can be written ([fingerprint] memo_dir chooses another place; said once an hour)\n",
                merr.msg);
}

/* The C library matters to the hit path's cost (Makefile: glibc's start-up traps on virtual machines). */
static int print_version(void)
{
#ifdef __GLIBC__
    const char *libc = "glibc";
#else
    const char *libc = "not glibc"; /* musl and others define no macro of their own */
#endif
    printf("trueline-cc %s (C library: %s)\n", TRUELINE_VERSION, libc);
    tl_print_lib_versions(stdout, NULL, 0);
    return 0;
}

/* trueline-cc's own options: every other --trueline-* argument is a mistake (a misspelt one would otherwise
 * be taken for the compiler's name or passed to the compiler). */
static const struct {
    const char *name;
    int alone; /* only without a compiler: given with one, the compiler would be handed it */
} own_options[] = {
    { "--trueline-explain", 0 }, { "--trueline-print-fingerprint", 0 }, { "--trueline-toolchain", 0 },
    { "--trueline-stats", 1 },
    { "--trueline-zero-stats", 1 }, { "--trueline-version", 1 },
};
#define NOWN (sizeof own_options / sizeof *own_options)

static int check_own_options(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--trueline-", 11) != 0 || is_operand(argv, i))
            continue;
        size_t k = 0;
        while (k < NOWN && strcmp(argv[i], own_options[k].name) != 0)
            k++;
        if (k < NOWN && own_options[k].alone && argc > 2) {
            fprintf(stderr, "trueline-cc: error: %s is given alone, without a compiler or other arguments\n", argv[i]);
            return -1;
        }
        if (k < NOWN)
            continue;
        fprintf(stderr, "trueline-cc: error: unknown option %s; trueline-cc's options are:", argv[i]);
        for (k = 0; k < NOWN; k++)
            fprintf(stderr, " %s", own_options[k].name);
        fputc('\n', stderr);
        return -1;
    }
    return 0;
}

/* One compile: understand it, plan, save the memo, then exec the command, or wait for it and run the after
 * step. Returns an exit status when there is no compile to run or exec failed; after a wait, -1 with
 * *waited set to the wait status to end with (main ends like it once everything is freed). */
static int wrap(tlcc_invocation *inv, const tl_config *cfg, const tlcc_prov_config *prov, tlcc_memo *memo,
                int print_fp, int *waited)
{
    tl_error err = { { 0 } };
    double fp_ms = 0;
    if (understand(inv, cfg, prov, memo, &fp_ms, &err) != 0)
        return wrapper_failed(inv, cfg, 1, err.msg);
    if (print_fp) { /* the fingerprint (and with --trueline-toolchain its components) is all it asks for: no plan */
        save_memo(inv, memo);
        if (inv->explain)
            tlcc_explain(inv, fp_ms, stderr);
        if (print_fp == 2)
            tlcc_explain_toolchain(inv, stdout);
        else
            printf("%s\n", inv->fp_hex);
        return 0;
    }
    tlcc_plan plan;
    tlcc_plan_build(&plan, inv, prov, memo, 1);
    save_memo(inv, memo); /* after the plan, whose answers (the hook's use, this executable's path) it keeps */
    if (inv->explain)
        tlcc_explain(inv, fp_ms, stderr);
    if (inv->explain && plan.line_store)
        fprintf(stderr, "trueline-cc: line info store: %s (device line info split out before the stamp; the "
                        "cache key carries line_info_store=%s)\n", plan.line_store, plan.line_store);
    tlcc_run_prepare(&plan, inv, prov);
    if (!plan.wait) {
        int rc = tlcc_process_exec(plan.argv.v);
        tlcc_plan_free(&plan);
        return rc;
    }
    time_t started = plan.after == TLCC_AFTER_LINK ? time(NULL) : 0; /* a clock read costs two page faults */
    int status = tlcc_process_wait(plan.argv.v);
    *waited = tlcc_after(&plan, inv, prov, status, started);
    tlcc_plan_free(&plan);
    return -1;
}

/* The repair run the hook in ccache starts when a hit's object is wrong. The wrapper that armed the hook
 * accepted this configuration: a value that reads badly now takes its default. */
static int hook_fixup(tlcc_ctx *ctx, int argc, char **argv)
{
    tl_config cfg = { 0 };
    tl_error err;
    if (tl_config_load(&cfg, &err) != 0) {
        tl_config_free(&cfg);
        cfg = (tl_config){ 0 };
    }
    tlcc_prov_config prov;
    tlcc_prov_config_read(&cfg, &prov, NULL);
    int status = tlcc_after_fixup(ctx, &prov, argc, argv);
    tlcc_prov_config_free(&prov);
    tl_config_free(&cfg);
    if (status < 0)
        return TL_EXIT_BAD_INPUT;
    tlcc_process_exit_like(status);
}

/* The run, in its context; main made it and frees it. */
static int run(tlcc_ctx *ctx, int argc, char **argv)
{
    if (tlcc_stage_is_stage(ctx, argv[0])) /* ccache/sccache running the stamping stage (wrapper/provenance/stage.c) */
        return tlcc_stage_main(ctx, argc, argv);
    if (argc >= 2 && strcmp(argv[1], TLCC_HOOK_FIXUP_OPTION) == 0) /* the in-cache hook found a wrong object */
        return hook_fixup(ctx, argc - 2, argv + 2);
    tlcc_stats_home stats = { ctx->env.v[TLCC_EV_XDG_CACHE_HOME], ctx->env.v[TLCC_EV_HOME] };
    if (argc == 2 && strcmp(argv[1], "--trueline-stats") == 0)
        return tlcc_stats_print(&stats);
    if (argc == 2 && strcmp(argv[1], "--trueline-zero-stats") == 0)
        return tlcc_stats_zero(&stats), 0;
    if (check_own_options(argc, argv) != 0)
        return TL_EXIT_BAD_INPUT;
    const char *self = tlcc_basename(argv[0]);
    int as_cache = tlcc_is_cache_name(self);
    /* alone, and not under a compiler's or a cache's name (there "gcc --version" is the compiler's) */
    if (argc == 2 && (strcmp(argv[1], "--trueline-version") == 0 ||
                      (strcmp(argv[1], "--version") == 0 && !tlcc_is_masquerade_name(self) && !as_cache)))
        return print_version();
    int explain = take_option(&argc, argv, "--trueline-explain");
    int print_fp = take_option(&argc, argv, "--trueline-print-fingerprint");
    if (take_option(&argc, argv, "--trueline-toolchain")) /* trueline-check --attest asks what a fingerprint covers */
        print_fp = 2;
    if (as_cache && (argc < 2 || argv[1][0] == '-'))
        return run_nested(ctx, argc, argv);
    if (!tlcc_is_masquerade_name(self) && !as_cache && (argc < 2 || strcmp(argv[1], "--help") == 0)) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? TL_EXIT_BAD_INPUT : 0;
    }
    /* before anything runs a child: every mode counts, the nested one included */
    tl_error depth_err = { { 0 } };
    const char *tool = argc >= 2 && !tlcc_is_masquerade_name(self) ? argv[1] : self;
    if (tlcc_depth_enter(&ctx->env, tlcc_self_id(ctx), tool, &depth_err) != 0) {
        fprintf(stderr, "trueline-cc: error: %s\n", depth_err.msg);
        return TL_EXIT_BAD_INPUT;
    }
    if ((tlcc_is_masquerade_name(self) || as_cache) && tlcc_self_is_active(ctx))
        return run_nested(ctx, argc, argv);

    /* From here on every child (probes included) knows it runs under trueline-cc; the snapshot says it too
     * (PATH lookups and the closure are keyed by it). */
    tlcc_env_snapshot_put(&ctx->env, TLCC_EV_TRUELINE_CC_ACTIVE, tlcc_active_env_value(ctx));
    tl_config cfg = { 0 };
    tl_error cfg_err = { { 0 } }, err = { { 0 } };
    tlcc_prov_config prov = { 0 };
    int memo_on = 1;
    int cfg_loaded = tl_config_load(&cfg, &cfg_err) == 0;
    /* never through on_error = passthrough: that would run the cache the loosened setting was meant to guard */
    int guard_bad = cfg_loaded && tl_config_guard(&cfg, wrapper_guards, &cfg_err) != 0;
    int cfg_bad = guard_bad || !cfg_loaded || check_config(&cfg, &ctx->env, &explain, &memo_on, &prov, &cfg_err) != 0;

    tlcc_invocation inv = { 0 };
    inv.ctx = ctx;
    inv.explain = explain;
    /* Open before classify: where ccache and the compiler are on PATH is memoized too (compiler.c). */
    inv.memo_dir = cfg_bad ? NULL : memo_dir(&cfg, memo_on, &ctx->env);
    tlcc_memo *memo = tlcc_memo_open(inv.memo_dir, &ctx->deps);
    inv.memo_read = tlcc_memo_read_mode(memo);
    int rc, waited = -1;
    double t0 = now_ms(explain);
    int crc = tlcc_classify(&inv, argc, argv, &cfg, memo, &err);
    inv.resolve_ms = now_ms(explain) - t0;
    /* also when classify failed: sccache first probes its "compiler" with `trueline-cc -E FILE` */
    const char *how, *runs_us = tlcc_cache_runs_us(&ctx->env, crc == 0 && inv.cache != TLCC_CACHE_NONE, &how);
    if (runs_us) {
        reversed_order(runs_us, how);
        rc = TL_EXIT_BAD_INPUT;
    } else if (crc != 0) {
        fprintf(stderr, "trueline-cc: error: %s\n", err.msg);
        rc = crc == -2 ? TL_EXIT_BAD_INPUT : crc == -3 ? 126 : 127;
    } else if (guard_bad) {
        fprintf(stderr, "trueline-cc: error: %s\ntrueline-cc: the compile was not run\n", cfg_err.msg);
        rc = TL_EXIT_BAD_INPUT;
    } else if (cfg_bad) {
        rc = wrapper_failed(&inv, &cfg, cfg_loaded, cfg_err.msg);
    } else {
        rc = wrap(&inv, &cfg, &prov, memo, print_fp, &waited);
    }
    tlcc_memo_close(memo);
    /* the compile's own status, or its signal; the rest is freed by the exit (~6 k instructions less) */
    if (waited != -1)
        tlcc_process_exit_like(waited);
    tlcc_invocation_free(&inv);
    tlcc_prov_config_free(&prov);
    tl_config_free(&cfg);
    return rc;
}

int main(int argc, char **argv)
{
    extern char **environ;
    tlcc_ctx ctx; /* the environment is read here, once (env_snapshot.h) */
    tlcc_ctx_init(&ctx, environ);
    int rc = run(&ctx, argc, argv);
    tlcc_ctx_free(&ctx);
    return rc;
}
