/* Provenance in the wrapper's run step: which compiles get a record, routing the cache through the
 * stamping stage, and what happens after the compile (stamp when uncached, verify when cached, record
 * links). run.c calls in at three points; everything else stays here.
 *
 * Configuration ([provenance] in conf/trueline.ini, TRUELINE_PROVENANCE_<KEY> overrides):
 *   stamp = true        record .note.trueline in every -c object (and link outputs, see `links`)
 *   verify = true       check the record after every cached compile
 *   on_mismatch = recompile | fail
 *   record_argv = true  put the effective argv in the record (false: only its hash)
 *   argv_max = 4096     bytes of argv recorded (cut at an element boundary)
 *   links = true        record links (executables, shared objects, ld -r) as link records
 *   verify_in_cache = true  verify a ccache hit inside ccache's process (verify_in_cache.c)
 *   key_file = PATH     authenticate records with a MAC keyed by the file's bytes (provenance_mac.c) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "provenance.h"
#include "run.h"
#include "verify_in_cache.h"
#include "verify_key.h"

/* The [provenance] settings, read once from main's configuration (the hit path used to load the file a
 * second time and look each key up again at every use: 3 access() calls and ~40 k instructions). */
struct prov_settings {
    int loaded, stamp, links, verify, fail, in_cache;
    size_t argv_max;
    tlcc_mac_key mac;         /* loaded from key_file; mac.bytes NULL when no key is configured */
    char key_path[PATH_MAX]; /* its absolute path, for the stamping stage */
};
static struct prov_settings g_set;

/* A yes/no key; a bad value takes the default, and the first bad value of the section is the error. */
static int prov_bool(const tl_config *cfg, const char *key, int *bad, tl_error *e)
{
    int b = tl_config_bool_checked(cfg, "provenance", key, 1, *bad ? NULL : e);
    *bad |= b < 0;
    return b != 0;
}

/* Bytes of argv recorded: digits only (strtoull alone would take "-1" as ULLONG_MAX, and "abc" as 0). */
static size_t prov_argv_max(const tl_config *cfg, int *bad, tl_error *e)
{
    const char *v = tl_config_get(cfg, "provenance", "argv_max");
    if (!v)
        return TL_NOTE_ARGV_MAX_DEFAULT;
    unsigned long long n = strtoull(v, NULL, 10);
    if (*v && !v[strspn(v, "0123456789")] && strlen(v) <= 18)
        return (size_t)n;
    char where[300];
    tl_config_origin(cfg, "provenance", "argv_max", where, sizeof where);
    if (!*bad)
        tl_fail(e, "%s: [provenance] argv_max = %s: expected a number of bytes (0 or more)", where, v);
    *bad = 1;
    return TL_NOTE_ARGV_MAX_DEFAULT;
}

/* The key named by key_file, loaded now: a key that cannot be read fails the compile (or passes it
 * through, by [wrapper] on_error) instead of leaving records unauthenticated. */
static void prov_key(const tl_config *cfg, int *bad, tl_error *e)
{
    const char *v = tl_config_get(cfg, "provenance", "key_file");
    tlcc_mac_key_free(&g_set.mac);
    g_set.key_path[0] = 0;
    if (!v || !*v)
        return;
    tl_error ke;
    /* the stage may run elsewhere than here: it gets an absolute path (realpath's lstat per component only
     * when the configured one is relative) */
    int abs_ok = v[0] == '/' && strlen(v) < sizeof g_set.key_path;
    if (abs_ok)
        memcpy(g_set.key_path, v, strlen(v) + 1);
    if (tlcc_mac_key_load(v, &g_set.mac, &ke) != 0 || (!abs_ok && !realpath(v, g_set.key_path))) {
        char where[300];
        tl_config_origin(cfg, "provenance", "key_file", where, sizeof where);
        if (!*bad)
            tl_fail(e, "%s: %s", where, g_set.mac.bytes ? "[provenance] key_file: cannot resolve its path" : ke.msg);
        tlcc_mac_key_free(&g_set.mac);
        *bad = 1;
    }
}

/* Every value is checked as it is read: a bad one used to mean "on" (tl_config_bool's -1 is not 0), and
 * on_mismatch = FAIL meant recompile. */
int tlcc_prov_set_config(const tl_config *cfg, tl_error *err)
{
    static const char *const mismatch[] = { "recompile", "fail", NULL };
    tl_error e = { { 0 } };
    int bad = 0;
    g_set.stamp = prov_bool(cfg, "stamp", &bad, &e);
    g_set.links = prov_bool(cfg, "links", &bad, &e);
    g_set.verify = prov_bool(cfg, "verify", &bad, &e);
    g_set.in_cache = prov_bool(cfg, "verify_in_cache", &bad, &e);
    int record_argv = prov_bool(cfg, "record_argv", &bad, &e);
    const char *m = tl_config_enum(cfg, "provenance", "on_mismatch", "recompile", mismatch, bad ? NULL : &e);
    bad |= !m;
    g_set.fail = m && strcmp(m, "fail") == 0;
    size_t max = prov_argv_max(cfg, &bad, &e);
    g_set.argv_max = record_argv ? max : 0;
    prov_key(cfg, &bad, &e);
    g_set.loaded = 1;
    if (bad && err)
        *err = e;
    return bad ? -1 : 0;
}

static void settings(void)
{
    if (!g_set.loaded) { /* a caller that did not hand over its configuration (unit tests) */
        tl_config cfg = { 0 };
        tl_error err;
        if (tl_config_load(&cfg, &err) != 0) /* main already reported a broken file */
            memset(&cfg, 0, sizeof cfg);
        tlcc_prov_set_config(&cfg, NULL); /* a bad value takes its default here: main refused it already */
        tl_config_free(&cfg);
    }
}

/* The settings, loaded on first use. */
static const struct prov_settings *set(void)
{
    settings();
    return &g_set;
}

static size_t argv_max(void)
{
    settings();
    return g_set.argv_max;
}

/* A compile that writes an object the record is for (family known, a source, -c). */
static int is_stamped_compile(const tlcc_invocation *inv)
{
    return inv->family != TLCC_FAM_OTHER && inv->compile_only && inv->source && !inv->no_force && set()->stamp;
}

static int is_link(const tlcc_invocation *inv)
{
    /* link-only calls have no source (force.c's no_force says so); queries and -E/-M are left alone */
    return inv->family != TLCC_FAM_OTHER && !inv->compile_only && set()->stamp && set()->links &&
           (!inv->no_force || (!inv->source && inv->output && inv->no_force_reason &&
                               strncmp(inv->no_force_reason, "no source", 9) == 0));
}

static int stage_applies(const tlcc_invocation *inv);
static char *g_stage;

int tlcc_prov_stamps(void)
{
    return set()->stamp;
}

int tlcc_prov_wanted(const tlcc_invocation *inv)
{
    /* The cache runs the stage, which stamps on a miss; without verification nothing is left to do after
     * the compile, so the wrapper execs the cache instead of waiting for it. */
    if (is_stamped_compile(inv) && stage_applies(inv) && g_stage && !set()->verify)
        return 0;
    return is_stamped_compile(inv) || is_link(inv);
}

/* The objects a -c compile writes, one per inv->sources element: `-o` names the object of a one-source
 * compile (gcc and nvcc refuse -o with several sources); otherwise each is named after its source, suffix
 * replaced by .o, in the working directory or under nvcc's -odir (measured: gcc 12, clang 14, nvcc 13). */
static void compile_outputs(const tlcc_invocation *inv, tlcc_strv *outs)
{
    if (inv->output && inv->sources.n == 1) {
        tlcc_strv_push(outs, inv->output);
        return;
    }
    for (int i = 0; i < inv->sources.n; i++) {
        const char *b = tlcc_basename(inv->sources.v[i]);
        const char *dot = strrchr(b, '.');
        int n = dot ? (int)(dot - b) : (int)strlen(b);
        if (inv->odir && *inv->odir)
            tlcc_strv_pushf(outs, "%s/%.*s.o", inv->odir, n, b);
        else
            tlcc_strv_pushf(outs, "%.*s.o", n, b);
    }
}

/* The line-info flags in effect: the forced ones, else those the user gave. */
static void lineinfo_level(const tlcc_invocation *inv, char *buf, size_t len)
{
    buf[0] = 0;
    if (inv->forced.n) {
        char *j = tlcc_strv_join(&inv->forced, 0);
        snprintf(buf, len, "%s", j ? j : "");
        free(j);
        return;
    }
    snprintf(buf, len, "%s%s%s", inv->has_G ? "-G" : inv->has_lineinfo ? "-lineinfo" : "",
             (inv->has_G || inv->has_lineinfo) && inv->host_debug ? " " : "", inv->host_debug ? "-g" : "");
}

static char g_ah[TL_HASH_HEX_LEN + 1];

static const char *argv_hash(const tlcc_invocation *inv)
{
    if (!g_ah[0])
        tl_hash_hex(tl_note_argv_hash(inv->args.v, inv->args.n), g_ah);
    return g_ah;
}

/* The working directory, read once (the record and the cache key both need it). */
static char g_cwd[4096];
static int g_cwd_state; /* 0 unread, 1 read, -1 unreadable */

static char *work_dir(void)
{
    if (!g_cwd_state)
        g_cwd_state = getcwd(g_cwd, sizeof g_cwd) ? 1 : -1;
    return g_cwd_state > 0 ? g_cwd : NULL;
}

/* The argv as the cache keys it (verify_key.c), hashed: what verification compares. */
static char g_kh[TL_HASH_HEX_LEN + 1];
static tlcc_key_ctx g_key;
static int g_key_ready;

static tlcc_key_ctx *key_ctx(enum tlcc_cache cache)
{
    if (!g_key_ready++)
        tlcc_key_init(&g_key, cache == TLCC_CACHE_SCCACHE ? TLCC_KEY_SCCACHE : TLCC_KEY_CCACHE, work_dir());
    return &g_key;
}

static const char *key_hash(const tlcc_invocation *inv)
{
    if (!g_kh[0])
        tl_hash_hex(tlcc_key_hash(key_ctx(inv->cache), inv->args.v, inv->args.n), g_kh);
    return g_kh;
}

/* The record for this invocation; strings point into inv or static buffers. */
static tl_note note_for(const tlcc_invocation *inv, unsigned type, const char *src, char *li, size_t lilen)
{
    tl_note n = { 0 };
    lineinfo_level(inv, li, lilen);
    n.type = type;
    n.wrapper_version = (char *)TRUELINE_VERSION;
    n.family = (char *)tlcc_family_name(inv->family);
    n.driver = (char *)tlcc_basename(inv->compiler_path);
    n.compiler_version = inv->version;
    n.fingerprint = (char *)inv->fp_hex;
    n.argv_hash = (char *)argv_hash(inv);
    /* a cached compile's record is handed to every compile the cache keys the same: what they must share */
    n.key_hash = type == TL_NOTE_COMPILE && inv->compile_only && inv->cache != TLCC_CACHE_NONE ? (char *)key_hash(inv)
                                                                                           : NULL;
    n.lineinfo_level = li;
    n.lineinfo_forced = inv->forced.n > 0;
    n.device_debug = inv->has_G;
    n.source = (char *)src;
    n.cwd = work_dir();
    n.output = type == TL_NOTE_LINK ? inv->output : NULL;
    n.argv = inv->args.v;
    n.argc = inv->args.n;
    /* an object's record binds its bytes (and is MACed with a key); filled in by tlcc_stamp_sealed */
    n.seal_content = type == TL_NOTE_COMPILE && inv->compile_only;
    n.seal_mac = n.seal_content && g_set.mac.bytes;
    return n;
}

/* ---- routing the cache through the stage ---- */

/* Several sources in one -c (`gcc -c a.c b.c`): ccache ("multiple source files") and sccache ("multiple
 * input files") do not cache such a compile, they run the compiler they were given themselves. It gets
 * the real compiler and the wrapper stamps every object afterwards; there is no cache hit to verify.
 *
 * sccache since 0.9 (mozilla/sccache#2300) never caches the outer nvcc call: it runs `nvcc --dryrun`
 * and then runs and caches the sub-steps itself, so a stage in nvcc's place never sees the final object
 * (measured with sccache 0.16: every object came back without a record). Such compiles are stamped after
 * sccache returns and cannot be verified; sccache 0.4 (Debian) would work through the stage, but one
 * rule for every version keeps the behaviour predictable. */
static int stage_applies(const tlcc_invocation *inv)
{
    return inv->cache != TLCC_CACHE_NONE && is_stamped_compile(inv) && inv->sources.n == 1 &&
           !(inv->cache == TLCC_CACHE_SCCACHE && inv->family == TLCC_FAM_NVCC);
}

const char *tlcc_prov_compiler_for(const tlcc_invocation *inv)
{
    if (!stage_applies(inv))
        return inv->compiler_path;
    if (!g_stage) {
        tl_error err;
        g_stage = tlcc_stage_path(inv->compiler_path, &err);
        if (!g_stage) {
            /* Unstamped objects would fail every later verification; say why once. */
            fprintf(stderr, "trueline-cc: warning: %s; objects are stamped after the compile instead\n", err.msg);
            return inv->compiler_path;
        }
    }
    return g_stage;
}

void tlcc_prov_prepare_env(const tlcc_invocation *inv)
{
    if (!stage_applies(inv) || !g_stage)
        return;
    char li[256];
    tl_note n = note_for(inv, TL_NOTE_COMPILE, inv->source, li, sizeof li);
    tl_error err;
    char *hex = tlcc_stage_note_env(&n, argv_max(), &err);
    setenv(TLCC_STAGE_ENV_REAL, inv->compiler_path, 1);
    if (hex)
        setenv(TLCC_STAGE_ENV_NOTE, hex, 1);
    free(hex);
    if (g_set.mac.bytes)
        setenv(TLCC_STAGE_ENV_KEY_FILE, g_set.key_path, 1);
    /* ccache 4.7 may follow the stage symlink when it guesses the compiler type by name. */
    if (inv->cache == TLCC_CACHE_CCACHE && !getenv("CCACHE_COMPILERTYPE"))
        setenv("CCACHE_COMPILERTYPE", inv->family == TLCC_FAM_NVCC ? "nvcc" : inv->family == TLCC_FAM_CLANG ? "clang" : "gcc", 1);
}

/* ---- after the compile ---- */

static int stamp(const tlcc_invocation *inv, const char *out, const char *src)
{
    char li[256];
    tl_note n = note_for(inv, TL_NOTE_COMPILE, src, li, sizeof li);
    tl_error err;
    unsigned char *rec;
    size_t len;
    int rc = tl_note_encode(&n, argv_max(), &rec, &len, &err);
    if (rc == 0) {
        rc = tlcc_stamp_sealed(out, rec, len, g_set.mac.bytes ? &g_set.mac : NULL, &err);
        free(rec);
    }
    if (rc != 0) {
        fprintf(stderr, "trueline-cc: error: %s\n", err.msg);
        return -1;
    }
    tlcc_stats_add(TLCC_STAT_STAMPED, 1);
    return 0;
}

/* What verifying one cached object needs. The waiting wrapper fills it from its invocation; the repair run
 * that the in-cache hook starts (tlcc_prov_fixup) from its command line, with inv NULL. */
struct verify_job {
    enum tlcc_cache cache;
    char *const *cache_argv; /* the cache command: cache, stage or compiler, then args */
    char *const *args;       /* the effective argv, to name what differs */
    int nargs;
    const char *out, *fp, *ah, *kh;
    tlcc_key_ctx *key;
    const tlcc_invocation *inv;
};

static tlcc_verify_expect expect_of(const struct verify_job *j)
{
    return (tlcc_verify_expect){ .fingerprint = j->fp, .argv_hash = j->ah, .key_hash = j->kh, .argv = j->args,
                               .argc = j->nargs, .key = j->key, .key_vector = tlcc_key_vector,
                               .mac_ok = g_set.mac.bytes ? tlcc_mac_note_ok : NULL, .mac_key = &g_set.mac };
}

/* The last resort: the compile without the cache, stamped. The wrapper runs the real compiler and stamps
 * from its invocation; the repair run has no invocation and runs the stage itself, which does both (its
 * environment, set by the wrapper for the cache, is still in place). */
static int compile_direct(const struct verify_job *j)
{
    if (!j->inv)
        return tlcc_run_wait(j->cache_argv + 1);
    const tlcc_invocation *inv = j->inv;
    tlcc_strv argv = { 0 };
    tlcc_strv_push(&argv, inv->compiler_path);
    tlcc_run_compiler_args(inv, &argv); /* as exec takes them: response files too big are kept as files */
    unsetenv(TLCC_STAGE_ENV_REAL);
    unsetenv(TLCC_STAGE_ENV_NOTE);
    unsetenv(TLCC_STAGE_ENV_KEY_FILE);
    int st = tlcc_run_wait(argv.v);
    tlcc_strv_free(&argv);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && stamp(inv, j->out, inv->source) != 0)
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
    int st = tlcc_run_wait(j->cache_argv);
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
    if (!set()->verify)
        return status;
    tlcc_verify_result r;
    tlcc_verify_expect e = expect_of(j);
    tlcc_verify_object(j->out, &e, &r);
    if (r.status == TLCC_VERIFY_NOT_HOST) /* a cubin from -cubin, or nothing written: no record expected */
        return status;
    tlcc_stats_add(TLCC_STAT_VERIFIED, 1);
    if (r.status == TLCC_VERIFY_OK) {
        if (r.unbound)
            tlcc_stats_add(TLCC_STAT_UNBOUND, 1);
        return status;
    }
    tlcc_stats_add(r.status == TLCC_VERIFY_NO_NOTE ? TLCC_STAT_NO_NOTE : TLCC_STAT_MISMATCH, 1);
    fprintf(stderr, "trueline-cc: %s: cached object does not match this compile: %s\n", j->out, r.what);
    if (g_set.fail) {
        fprintf(stderr, "trueline-cc: error: [provenance] on_mismatch = fail\n");
        return 1 << 8;
    }
    fprintf(stderr, "trueline-cc: recompiling %s (cache lookup bypassed; the fresh object replaces the entry)\n", j->out);
    tlcc_stats_add(TLCC_STAT_RECOMPILED, 1);
    return recompile(j);
}

static struct verify_job job_for(const tlcc_invocation *inv, char *const argv[], const char *out)
{
    return (struct verify_job){ .cache = inv->cache, .cache_argv = argv, .args = inv->args.v, .nargs = inv->args.n,
                                .out = out, .fp = inv->fp_hex, .ah = argv_hash(inv), .kh = key_hash(inv),
                                .key = key_ctx(inv->cache), .inv = inv };
}

static int is_elf_link_output(const char *path, time_t started)
{
    struct stat st;
    unsigned char h[20];
    FILE *f;
    if (stat(path, &st) != 0 || st.st_mtime < started - 1 || !(f = fopen(path, "rb")))
        return 0;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    /* ET_REL (ld -r), ET_EXEC, ET_DYN of the host; a cubin (EM_CUDA 190) from nvcc -cubin is no link */
    return n == sizeof h && memcmp(h, "\177ELF", 4) == 0 && h[5] == 1 && h[16] >= 1 && h[16] <= 3 &&
           h[17] == 0 && !(h[18] == 190 && h[19] == 0);
}

/* Every object of the compile: verified when the cache ran the stage (one source), else stamped. */
static int after_compile(const tlcc_invocation *inv, char *const argv[], int status)
{
    tlcc_strv outs = { 0 };
    compile_outputs(inv, &outs);
    for (int i = 0; i < outs.n && i < inv->sources.n; i++) {
        if (inv->cache != TLCC_CACHE_NONE && g_stage) { /* the verifier checks the ELF type itself: one open */
            struct verify_job j = job_for(inv, argv, outs.v[i]);
            status = verify(&j, status);
        }
        else if (tlcc_prov_is_host_object(outs.v[i]) && stamp(inv, outs.v[i], inv->sources.v[i]) != 0)
            status = 1 << 8;
    }
    tlcc_strv_free(&outs);
    return status;
}

/* A link, or a compile-and-link (`gcc a.c b.o -o app`): the output gets one compile record per source this
 * command compiled (`cl=1`, argv left out: the link record after them carries it), then the link record.
 * The intermediate objects are the compiler driver's temporary files, never seen by the wrapper; their
 * records would say exactly what these say (same toolchain, same effective argv, same source), so they
 * are written straight into the output instead of into temporaries. */
static int after_link(const tlcc_invocation *inv, const char *out)
{
    char li[256];
    unsigned char *all = NULL, *rec;
    size_t all_len = 0, len;
    tl_error err = { { 0 } };
    int rc = 0;
    for (int i = 0; i <= inv->sources.n && rc == 0; i++) {
        int is_compile = i < inv->sources.n;
        tl_note n = note_for(inv, is_compile ? TL_NOTE_COMPILE : TL_NOTE_LINK, is_compile ? inv->sources.v[i] : NULL,
                             li, sizeof li);
        n.at_link = is_compile;
        if (tl_note_encode(&n, is_compile ? 0 : argv_max(), &rec, &len, &err) != 0) {
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
    tlcc_stats_add(TLCC_STAT_STAMPED, 1);
    return 0;
}

int tlcc_prov_run(const tlcc_invocation *inv, char *const argv[])
{
    /* only a link needs it (is_elf_link_output): the first clock read resolves the vDSO, two page faults */
    time_t started = is_stamped_compile(inv) ? 0 : time(NULL);
    int status = tlcc_run_wait(argv);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return status;
    if (is_stamped_compile(inv))
        return after_compile(inv, argv, status);
    const char *out = inv->output ? inv->output : "a.out";
    if (is_link(inv) && is_elf_link_output(out, started) && after_link(inv, out) != 0)
        status = 1 << 8;
    return status;
}

int tlcc_prov_may_verify_in_cache(const tlcc_invocation *inv)
{
    /* with a key the hook, which links no libsodium, leaves the hit to the waiting wrapper */
    return inv->cache == TLCC_CACHE_CCACHE && set()->stamp && set()->verify && g_set.in_cache && !g_set.mac.bytes;
}

int tlcc_prov_verify_in_cache(const tlcc_invocation *inv)
{
    if (!is_stamped_compile(inv) || !stage_applies(inv) || !g_stage || !set()->verify || !g_set.in_cache ||
        inv->cache != TLCC_CACHE_CCACHE || g_set.mac.bytes)
        return -1;
    tlcc_strv outs = { 0 };
    compile_outputs(inv, &outs);
    int rc = outs.n == 1 ? tlcc_incache_arm(inv, outs.v[0], argv_hash(inv), key_hash(inv)) : -1;
    tlcc_strv_free(&outs);
    return rc;
}

int tlcc_prov_fixup(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "trueline-cc: " TLCC_HOOK_FIXUP_OPTION ": expected OUT FINGERPRINT ARGV_HASH KEY_HASH CACHE-ARGV...\n");
        return TL_EXIT_BAD_INPUT;
    }
    /* ccache's working directory is the compile's, so the key is normalized as the wrapper did */
    struct verify_job j = { .cache = TLCC_CACHE_CCACHE, .out = argv[0], .fp = argv[1], .ah = argv[2], .kh = argv[3],
                            .key = key_ctx(TLCC_CACHE_CCACHE), .cache_argv = argv + 4, .args = argv + 6,
                            .nargs = argc - 6 };
    tlcc_exit_like(verify(&j, 0));
    return 1; /* not reached */
}
