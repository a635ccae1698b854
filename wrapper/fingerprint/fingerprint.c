#include "fingerprint/fingerprint.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fingerprint/bytes.h"
#include "understand/compiler.h"
#include "context.h"
#include "fingerprint/deps.h"
#include "fingerprint/dynlibs.h"
#include "understand/families.h"
#include "understand/argv.h"

/* role and path as (pointer, length): the closure memo's value is read in place; path NULL: absent */
static void add_compn(tlcc_invocation *inv, const char *role, size_t rlen, const char *path, size_t plen,
                      tl_hash128 h, int hit)
{
    int n = inv->ncomps;
    /* room for a warm nvcc closure's ~25 at once, then powers of two: the allocator never reuses */
    if (n == 0 || (n >= 32 && (n & (n - 1)) == 0)) {
        tlcc_component *c = realloc(inv->comps, (size_t)(n == 0 ? 32 : 2 * n) * sizeof *c);
        if (!c)
            return;
        inv->comps = c;
    }
    tlcc_component *c = inv->comps;
    c[inv->ncomps++] = (tlcc_component){ strndup(role, rlen), path ? strndup(path, plen) : NULL, h, hit };
}

static void add_comp(tlcc_invocation *inv, const char *role, const char *path, tl_hash128 h, int hit)
{
    add_compn(inv, role, strlen(role), path, path ? strlen(path) : 0, h, hit);
}

/* Records a component; its content is hashed later, all at once (hash_components). */
static int hash_comp(tlcc_invocation *inv, tlcc_memo *memo, const char *role, const char *path, tl_error *err)
{
    tl_hash128 none = { 0, 0 };
    (void)memo;
    (void)err;
    add_comp(inv, role, path, none, 0); /* stat'ed once, in hash_components */
    return 0;
}

struct hash_job {
    tlcc_component *c;
    struct stat st;
    int failed;
    tl_error err;
};

struct hash_pool {
    struct hash_job *jobs;
    int n;
    int next; /* taken under lock */
    pthread_mutex_t lock;
};

static void *hash_worker(void *arg)
{
    struct hash_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        struct hash_job *j = &p->jobs[i];
        j->failed = tl_hash_file(j->c->path, &j->c->hash, &j->err) != 0;
    }
}

/* A cold fingerprint reads a few hundred MB (cicc, ptxas, nvlink, cc1plus ...): the misses are hashed
 * on up to 4 threads, which halves the cold time on two cores. Memo reads and writes stay serial. */
static int hash_components(tlcc_invocation *inv, tlcc_memo *memo, tl_error *err)
{
    struct hash_pool pool = { calloc((size_t)inv->ncomps + 1, sizeof(struct hash_job)), 0, 0,
                              PTHREAD_MUTEX_INITIALIZER };
    if (!pool.jobs)
        return tl_fail(err, "out of memory");
    int rc = 0;
    for (int i = 0; i < inv->ncomps && rc == 0; i++) {
        tlcc_component *c = &inv->comps[i];
        struct hash_job *j = &pool.jobs[pool.n];
        if (!c->path)
            continue;
        int r = tlcc_memo_file_lookup(memo, c->path, &j->st, &c->hash, &j->err);
        if (r < 0)
            tlcc_deps_note(&inv->ctx->deps, c->path);
        else
            tlcc_deps_note_stat(&inv->ctx->deps, c->path, &j->st); /* the stat the hash belongs to (deps.h) */
        if (r < 0) { /* a tool that is not there is a fact worth hashing, not an error */
            free(c->path);
            c->path = NULL;
        } else if (r == 1)
            c->memo_hit = 1;
        else
            j->c = c, pool.n++;
    }
    pthread_t th[4];
    int nth = 0;
    /* the stack is sized here, not left to the C library's default (8 MiB with glibc, 128 KiB elsewhere, close
     * to what hashing uses: a 64 KiB read buffer in lib/hash.c) */
    pthread_attr_t attr;
    int attr_made = pthread_attr_init(&attr) == 0;
    int attr_ok = attr_made && pthread_attr_setstacksize(&attr, 512 * 1024) == 0;
    for (; rc == 0 && nth < 4 && nth < pool.n - 1; nth++)
        if (pthread_create(&th[nth], attr_ok ? &attr : NULL, hash_worker, &pool) != 0)
            break;
    if (attr_made)
        pthread_attr_destroy(&attr);
    if (rc == 0)
        hash_worker(&pool);
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < pool.n && rc == 0; i++) {
        if (pool.jobs[i].failed)
            rc = tl_fail(err, "cannot fingerprint the toolchain: %s: %s", pool.jobs[i].c->role, pool.jobs[i].err.msg);
        else
            tlcc_memo_file_store(memo, pool.jobs[i].c->path, &pool.jobs[i].st, pool.jobs[i].c->hash);
    }
    free(pool.jobs);
    return rc;
}

/* gcc prints a path for tools it finds in its own directories and the bare name otherwise, which it
 * then runs from PATH. */
static char *prog_name(tlcc_ctx *ctx, tlcc_memo *memo, const char *driver, const char *prog, const tlcc_strv *extra)
{
    char opt[64];
    tlcc_fmt(opt, sizeof opt, "-print-prog-name=%s", prog);
    tlcc_strv argv = { 0 };
    tlcc_strv_push(&argv, driver);
    tlcc_strv_append(&argv, extra);
    tlcc_strv_push(&argv, opt);
    const char *out = tlcc_memo_probe(memo, argv.v);
    tlcc_strv_free(&argv);
    if (!out || !*out)
        return NULL;
    if (strchr(out, '/'))
        return strdup(out);
    return tlcc_find_program(ctx, memo, out, ctx->env.v[TLCC_EV_PATH]);
}

/* The options that change which sub-tools the driver picks, passed on to the -print-prog-name probes. */
static void driver_selectors(const tlcc_strv *args, tlcc_strv *out)
{
    for (int i = 0; i < args->n; i++) {
        const char *a = args->v[i];
        if (strcmp(a, "-B") == 0 && i + 1 < args->n) {
            tlcc_strv_push(out, a);
            tlcc_strv_push(out, args->v[++i]);
        } else if (strncmp(a, "-B", 2) == 0 || strncmp(a, "--gcc-toolchain=", 16) == 0 ||
                   strncmp(a, "--target=", 9) == 0 || strncmp(a, "--sysroot=", 10) == 0) {
            tlcc_strv_push(out, a);
        }
    }
}

static int gnu_closure(tlcc_invocation *inv, tlcc_memo *memo, const char *driver, const char *prefix,
                       const tlcc_family_desc *fam, const tlcc_strv *args, tl_error *err)
{
    char role[128];
    tlcc_fmt(role, sizeof role, "%sdriver", prefix);
    if (hash_comp(inv, memo, role, driver, err) != 0)
        return -1;
    tlcc_strv sel = { 0 };
    if (args)
        driver_selectors(args, &sel);
    const char *const *tools = fam->sub_tools;
    int rc = 0;
    for (int i = 0; tools[i] && rc == 0; i++) {
        char *p = prog_name(inv->ctx, memo, driver, tools[i], &sel);
        tlcc_fmt(role, sizeof role, "%s%s", prefix, tools[i]);
        rc = hash_comp(inv, memo, role, p, err);
        free(p);
    }
    tlcc_strv_free(&sel);
    return rc;
}

/* A probe of the driver with the call's sub-tool selectors (-B, --sysroot ...), memoized like the
 * -print-prog-name probes; NULL when it gave nothing. */
static char *driver_print(const tlcc_invocation *inv, tlcc_memo *memo, const char *opt)
{
    tlcc_strv argv = { 0 };
    tlcc_strv_push(&argv, inv->compiler_path);
    driver_selectors(&inv->args, &argv);
    tlcc_strv_push(&argv, opt);
    const char *out = tlcc_memo_probe(memo, argv.v);
    tlcc_strv_free(&argv);
    return out && *out ? strdup(out) : NULL;
}

/* Where gcc takes a file named by -fplugin=/-specs= from (NULL: as written).
 * -fplugin=NAME with neither '/' nor '.' is a short name (gcc/plugin.cc, add_new_plugin): cc1 loads
 * <plugindir>/NAME.so, plugindir being the last -iplugindir=DIR or, without one, what the driver's
 * %:find-plugindir() passes, the same lookup as -print-file-name=plugin. -specs=FILE: the driver looks in
 * its startfile prefixes (-B dirs and its own) first and falls back to the name as written (gcc.cc,
 * find_a_file), which is exactly what -print-file-name=FILE prints. Both probes run only on a closure memo
 * miss, and only when such an option is present. */
static char *gcc_arg_file(const tlcc_invocation *inv, tlcc_memo *memo, const char *opt, const char *file)
{
    if (strncmp(opt, "-fplugin=", 9) == 0) {
        if (!*file || strpbrk(file, "./"))
            return NULL;
        const char *dir = NULL;
        for (int i = 0; i < inv->args.n; i++)
            if (strncmp(inv->args.v[i], "-iplugindir=", 12) == 0)
                dir = inv->args.v[i] + 12;
        char *probed = dir ? NULL : driver_print(inv, memo, "-print-file-name=plugin");
        if (!dir && !(dir = probed))
            return NULL;
        char *path = tlcc_concatn(TLCC_S(dir), TLCC_S("/"), TLCC_S(file), TLCC_S(".so"), NULL);
        free(probed);
        return path;
    }
    if (file[0] == '/' || !*file)
        return NULL;
    char *opt_name = tlcc_concatn(TLCC_S("-print-file-name="), TLCC_S(file), NULL);
    char *found = opt_name ? driver_print(inv, memo, opt_name) : NULL;
    free(opt_name);
    if (found && found[0] != '/') { /* not in a prefix: the name as written, relative to the current directory */
        free(found);
        found = NULL;
    }
    return found;
}

/* Plugin, specs and config files named in the arguments change the compile as much as cc1 does:
 * pairs of (role, file) into out. resolve: find them as gcc does (gcc_arg_file); without it (the closure
 * memo's key) the names as written and the -iplugindir= options that choose where short plugin names
 * point are listed instead. */
static void arg_file_list(const tlcc_invocation *inv, tlcc_memo *memo, int resolve, tlcc_strv *out)
{
    static const char *const eq_opts[] = { "-fplugin=", "-specs=", "--specs=", "--config=", NULL };
    for (int i = 0; i < inv->args.n; i++) {
        const char *a = inv->args.v[i], *file = NULL;
        for (int k = 0; eq_opts[k] && !file; k++)
            if (strncmp(a, eq_opts[k], strlen(eq_opts[k])) == 0)
                file = a + strlen(eq_opts[k]);
        if (!file && (strcmp(a, "--config") == 0 || strcmp(a, "--specs") == 0) && i + 1 < inv->args.n)
            file = inv->args.v[++i];
        if (!file && !resolve && strncmp(a, "-iplugindir=", 12) == 0) {
            tlcc_strv_push(out, a);
            tlcc_strv_push(out, "");
        }
        if (!file)
            continue;
        tlcc_strv_pushf(out, "file named by %.*s", (int)(strcspn(a, "=")), a);
        int gcc_opt = tlcc_family_of(inv->family)->plugin_files && strncmp(a, "--config", 8) != 0; /* plugins, specs */
        char *where = resolve && gcc_opt ? gcc_arg_file(inv, memo, a, file) : NULL;
        tlcc_strv_push(out, where ? where : file);
        free(where);
    }
}

static int arg_files(tlcc_invocation *inv, tlcc_memo *memo, tl_error *err)
{
    tlcc_strv files = { 0 };
    arg_file_list(inv, memo, 1, &files);
    int rc = 0;
    for (int i = 0; i + 1 < files.n && rc == 0; i += 2)
        rc = hash_comp(inv, memo, files.v[i], files.v[i + 1], err);
    tlcc_strv_free(&files);
    return rc;
}

/* nvcc.profile assigns variables with =, += (append) and =+ (prepend), expanding $(NAME); we need
 * only CICC_PATH and NVVMIR_LIBRARY_DIR, the directories nvcc takes cicc and libdevice from. */
struct profile_var {
    char name[64];
    char val[4096];
};

static const char *pv_get(struct profile_var *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return v[i].val;
    return "";
}

static void pv_expand(struct profile_var *v, int n, const char *in, char *out, size_t cap)
{
    size_t o = 0;
    while (*in && o + 1 < cap) {
        const char *close;
        if (in[0] == '$' && in[1] == '(' && (close = strchr(in, ')'))) {
            char name[64];
            tlcc_fmt(name, sizeof name, "%.*s", (int)(close - in - 2), in + 2);
            o += (size_t)tlcc_fmt(out + o, cap - o, "%s", pv_get(v, n, name));
            in = close + 1;
        } else {
            out[o++] = *in++;
        }
    }
    out[o < cap ? o : cap - 1] = 0;
}

static void read_profile(const char *profile, const char *bindir, char *cicc_dir, char *libdevice_dir, size_t cap)
{
    struct profile_var v[32];
    int n = 0;
    tlcc_fmt(v[n].name, sizeof v[n].name, "_HERE_");
    tlcc_fmt(v[n++].val, sizeof v[0].val, "%s", bindir);
    tlcc_fmt(cicc_dir, cap, "%s/../nvvm/bin", bindir);
    tlcc_fmt(libdevice_dir, cap, "%s/../nvvm/libdevice", bindir);
    FILE *f = fopen(profile, "r");
    char line[4096], val[4096];
    while (f && fgets(line, sizeof line, f) && n < 32) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        int append = eq > line && eq[-1] == '+', prepend = eq[1] == '+';
        char *name_end = append ? eq - 1 : eq;
        char *name = line;
        while (*name == ' ' || *name == '\t')
            name++;
        while (name_end > name && (name_end[-1] == ' ' || name_end[-1] == '\t'))
            name_end--;
        *name_end = 0;
        char *rhs = eq + 1 + prepend;
        rhs += strspn(rhs, " \t");
        rhs[strcspn(rhs, "\r\n")] = 0;
        pv_expand(v, n, rhs, val, sizeof val);
        int k = 0;
        while (k < n && strcmp(v[k].name, name) != 0)
            k++;
        if (k == n) {
            tlcc_fmt(v[n].name, sizeof v[n].name, "%s", name);
            v[n++].val[0] = 0;
        }
        char old[4096];
        tlcc_fmt(old, sizeof old, "%s", v[k].val);
        if (append)
            tlcc_fmt(v[k].val, sizeof v[k].val, "%s%s", old, val);
        else if (prepend)
            tlcc_fmt(v[k].val, sizeof v[k].val, "%s%s", val, old);
        else
            tlcc_fmt(v[k].val, sizeof v[k].val, "%s", val);
    }
    if (f)
        fclose(f);
    const char *c = pv_get(v, n, "CICC_PATH"), *l = pv_get(v, n, "NVVMIR_LIBRARY_DIR");
    if (*c)
        tlcc_fmt(cicc_dir, cap, "%s", c);
    if (*l)
        tlcc_fmt(libdevice_dir, cap, "%s", l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int libdevice(tlcc_invocation *inv, tlcc_memo *memo, const char *dir, tl_error *err)
{
    DIR *d = opendir(dir);
    tlcc_strv files = { 0 };
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 3 && strcmp(e->d_name + n - 3, ".bc") == 0)
            tlcc_strv_pushf(&files, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    if (files.n)
        qsort(files.v, (size_t)files.n, sizeof *files.v, cmp_str);
    int rc = files.n ? 0 : hash_comp(inv, memo, "libdevice", NULL, err);
    for (int i = 0; i < files.n && rc == 0; i++)
        rc = hash_comp(inv, memo, "libdevice", files.v[i], err);
    tlcc_strv_free(&files);
    return rc;
}

/* A script in nvcc's place (a /usr/local/bin/nvcc that execs the toolkit's): nvcc -dryrun says, as TOP, the
 * installation that really runs; its bin is where nvcc.profile, the real nvcc and the sub-tools are. 0 when
 * the driver is no script or did not say. */
static int behind_shim(const tlcc_invocation *inv, tlcc_memo *memo, char *bindir, size_t cap)
{
    char magic[2] = { 0 };
    FILE *f = fopen(inv->compiler_path, "rb");
    size_t got = f ? fread(magic, 1, 2, f) : 0;
    if (f)
        fclose(f);
    if (got != 2 || magic[0] != '#' || magic[1] != '!')
        return 0;
    char *argv[] = { (char *)inv->compiler_path, "-dryrun", "-c", "trueline-probe.cu", NULL };
    const char *out = tlcc_memo_probe_stderr(memo, argv);
    const char *top = out ? strstr(out, "#$ TOP=") : NULL;
    if (!top)
        return 0;
    top += 7;
    size_t n = strcspn(top, "\r\n");
    if (n >= 7 && strncmp(top + n - 7, "/bin/..", 7) == 0) /* TOP=<bin>/..: the bin itself */
        tlcc_fmt(bindir, cap, "%.*s", (int)(n - 3), top);
    else
        tlcc_fmt(bindir, cap, "%.*s/bin", (int)n, top);
    return bindir[0] == '/';
}

static int nvcc_closure(tlcc_invocation *inv, tlcc_memo *memo, tl_error *err)
{
    char bindir[4096], profile[4200], cicc_dir[4096], libdev[4096], path[12288], cicc[4200], real[4200];
    int shim = behind_shim(inv, memo, bindir, sizeof bindir);
    if (!shim) {
        tlcc_fmt(bindir, sizeof bindir, "%s", inv->compiler_path);
        char *slash = strrchr(bindir, '/');
        if (slash)
            *slash = 0;
    }
    tlcc_fmt(real, sizeof real, "%s/nvcc", bindir);
    tlcc_fmt(profile, sizeof profile, "%s/nvcc.profile", bindir);
    read_profile(profile, bindir, cicc_dir, libdev, sizeof cicc_dir);
    tlcc_fmt(cicc, sizeof cicc, "%s/cicc", cicc_dir);
    /* nvcc runs its sub-tools by name on the PATH its profile builds: CICC_PATH, its own bin, then PATH. */
    const char *env_path = inv->ctx->env.v[TLCC_EV_PATH];
    tlcc_fmt(path, sizeof path, "%s:%s:%s", cicc_dir, bindir, env_path ? env_path : "");
    if ((shim && hash_comp(inv, memo, "nvcc shim", inv->compiler_path, err)) ||
        hash_comp(inv, memo, "nvcc", shim ? real : inv->compiler_path, err) ||
        hash_comp(inv, memo, "nvcc.profile", profile, err) || hash_comp(inv, memo, "cicc", cicc, err))
        return -1;
    static const char *const tools[] = { "ptxas", "nvlink", "fatbinary", "cudafe++", NULL };
    for (int i = 0; tools[i]; i++) {
        char *p = tlcc_find_program(inv->ctx, memo, tools[i], path);
        int rc = hash_comp(inv, memo, tools[i], p, err);
        free(p);
        if (rc)
            return -1;
    }
    tlcc_deps_note(&inv->ctx->deps, libdev); /* the listing: a .bc added or removed changes the directory */
    if (libdevice(inv, memo, libdev, err))
        return -1;
    if (!inv->host_compiler)
        return hash_comp(inv, memo, "host driver", NULL, err);
    return gnu_closure(inv, memo, inv->host_compiler, "host ", tlcc_family_host(inv->host_compiler), NULL, err);
}

#define NFP_ENV TLCC_EV_NFINGERPRINTED /* the snapshot's first variables (env_snapshot.h), in hash order */

static void hash_env_value(tlcc_invocation *inv, tl_hasher *h, const char *name, const char *v)
{
    tl_hasher_update_str(h, name);
    tl_hasher_update_str(h, v); /* NULL hashes differently from "" */
    if (v)
        tlcc_strv_push_owned(&inv->env_hashed, tlcc_concatn(TLCC_S(name), TLCC_S("="), TLCC_S(v), NULL));
}

static void hash_env(tlcc_invocation *inv, tl_hasher *h, const char *name)
{
    hash_env_value(inv, h, name, tlcc_env_snapshot_get(&inv->ctx->env, name));
}

/* Folded variables reach the cache through the argv (argv.c). One that stays in the compiler's environment
 * changes the compile from there, so it is hashed: CCC_OVERRIDE_OPTIONS for every family but clang (nvcc's
 * host clang applies it), NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS that nvcc refuses (a backslash), and every
 * folded one when the compiler gets its arguments as given (argv.h, tlcc_argv_keeps_files). Only when set: an
 * unset one leaves the fingerprint as it was before these were hashed. */
static void hash_unfolded_env(tlcc_invocation *inv, tl_hasher *h)
{
    const char *const *own = tlcc_family_of(inv->family)->env_read; /* the NVCC_ ones: nvcc alone reads them */
    int kept = tlcc_argv_keeps_files(inv);
    for (int k = -1; k < 0 || own[k]; k++) {
        const char *name = k < 0 ? "CCC_OVERRIDE_OPTIONS" : own[k];
        const char *v = k < 0 ? inv->ctx->env.v[TLCC_EV_CCC_OVERRIDE_OPTIONS]
                              : tlcc_env_snapshot_get(&inv->ctx->env, name);
        int folded = 0;
        for (int i = 0; v && !kept && i < inv->unset_env.n && !folded; i++)
            folded = strcmp(inv->unset_env.v[i], name) == 0;
        if (v && !folded)
            hash_env_value(inv, h, name, v);
    }
}

/* The shared libraries every executable of the closure loads (dynlibs.h), as components "library NAME":
 * role and content, so the same libraries found elsewhere share cache entries. */
static int closure_libraries(tlcc_invocation *inv, tlcc_memo *memo, tl_error *err)
{
    tlcc_strv objs = { 0 }, libs = { 0 };
    for (int i = 0; i < inv->ncomps; i++)
        if (inv->comps[i].path)
            tlcc_strv_push(&objs, inv->comps[i].path);
    tlcc_dynlibs(&inv->ctx->dynlibs, &inv->ctx->deps, inv->ctx->env.v[TLCC_EV_LD_LIBRARY_PATH], &objs, &libs);
    int rc = 0;
    for (int i = 0; i + 1 < libs.n && rc == 0; i += 2) {
        char role[300];
        tlcc_fmt(role, sizeof role, "library %s", libs.v[i]);
        rc = hash_comp(inv, memo, role, libs.v[i + 1][0] ? libs.v[i + 1] : NULL, err);
    }
    tlcc_strv_free(&objs);
    tlcc_strv_free(&libs);
    return rc;
}

/* The closure: every component with its content hash (cold: walk, probe and hash; see hash_components). */
static int closure(tlcc_invocation *inv, const tl_config *cfg, tlcc_memo *memo, tl_error *err)
{
    const tlcc_family_desc *fam = tlcc_family_of(inv->family);
    int rc = 0;
    switch (fam->closure) {
    case TLCC_CLOSURE_NVCC:
        rc = nvcc_closure(inv, memo, err);
        break;
    case TLCC_CLOSURE_GNU:
        rc = gnu_closure(inv, memo, inv->compiler_path, "", fam, &inv->args, err);
        break;
    case TLCC_CLOSURE_DRIVER:
        rc = hash_comp(inv, memo, "driver", inv->compiler_path, err);
        break;
    }
    if (rc == 0)
        rc = arg_files(inv, memo, err);
    const char *extra = tl_config_get(cfg, "fingerprint", "extra_files");
    if (rc == 0 && extra) {
        char *copy = strdup(extra);
        for (char *save = NULL, *f = strtok_r(copy, " \t,", &save); f && rc == 0; f = strtok_r(NULL, " \t,", &save))
            rc = hash_comp(inv, memo, "extra file", f, err);
        free(copy);
    }
    if (rc == 0)
        rc = closure_libraries(inv, memo, err);
    if (rc == 0)
        rc = hash_components(inv, memo, err);
    return rc;
}

/* ---- the closure memo: the whole closure in one lookup ----
 * Keyed by everything that chooses the closure apart from the file system: the family, the driver and host
 * compiler paths, PATH and the environment variables the drivers read, the arguments that select sub-tools
 * or name files, [fingerprint] extra_files. The file system part is the value's dependency list (deps.h):
 * every component's stat identity (so a replaced ptxas, an edited nvcc.profile or a new cc1plus at the same
 * path invalidates the entry exactly as the per-file memo would) plus the directories whose listing chose
 * a component (PATH entries searched before a hit, libdevice). A warm lookup is then one stat per distinct
 * file or directory, shared with the PATH lookups of the driver and the cache (deps.c's stat cache). */
static char *closure_key(const tlcc_invocation *inv, const tl_config *cfg)
{
    const char *const *env = inv->ctx->env.v;
    tl_hasher *h = tl_hasher_new();
    if (!h)
        return NULL;
    tlcc_strv sel = { 0 };
    tl_hasher_update_str(h, "trueline-closure-3");
    tl_hasher_update_str(h, tlcc_family_name(inv->family));
    tl_hasher_update_str(h, inv->compiler_path);
    tl_hasher_update_str(h, tlcc_family_of(inv->family)->runs_host_compiler ? inv->host_compiler : "");
    tl_hasher_update_str(h, env[TLCC_EV_PATH]);
    tl_hasher_update_str(h, env[TLCC_EV_TRUELINE_CC_ACTIVE]); /* as main set it for the children */
    tl_hasher_update_str(h, env[TLCC_EV_LD_LIBRARY_PATH]); /* where the closure's shared libraries are found */
    for (size_t i = 0; i < NFP_ENV; i++)
        tl_hasher_update_str(h, env[i]);
    tl_hasher_update_str(h, tl_config_get(cfg, "fingerprint", "extra_files"));
    if (tlcc_family_of(inv->family)->closure == TLCC_CLOSURE_GNU)
        driver_selectors(&inv->args, &sel);
    arg_file_list(inv, NULL, 0, &sel);
    for (int i = 0; i < sel.n; i++)
        tl_hasher_update_str(h, sel.v[i]);
    tlcc_strv_free(&sel);
    char hex[TL_HASH_HEX_LEN + 1];
    tl_hash_hex(tl_hasher_final(h), hex);
    return tlcc_concatn(TLCC_S("t\x1f"), hex, (size_t)TL_HASH_HEX_LEN, NULL);
}

/* An answer-with-dependencies memo entry (memo.h): the answer is "role\x1fpath\x1fhash\x1e..." (empty
 * path: absent). */
static int closure_from_memo(tlcc_invocation *inv, tlcc_memo *memo, const char *key)
{
    const char *v;
    size_t len;
    int held = tlcc_memo_get_held(memo, key, &v, &len);
    if (!held)
        return 0;
    inv->closure_ndeps = held;
    for (const char *p = v, *stop = v + len; p < stop;) {
        const char *end = memchr(p, '\x1e', (size_t)(stop - p)), *f1 = memchr(p, '\x1f', (size_t)(stop - p));
        const char *f2 = f1 ? memchr(f1 + 1, '\x1f', (size_t)(stop - f1 - 1)) : NULL;
        tl_hash128 hash;
        if (!end || !f2 || f2 > end || end - f2 - 1 != TL_HASH_HEX_LEN ||
            tl_hash_from_hexn(f2 + 1, TL_HASH_HEX_LEN, &hash) != 0)
            goto bad;
        add_compn(inv, p, (size_t)(f1 - p), f2 > f1 + 1 ? f1 + 1 : NULL, (size_t)(f2 - f1 - 1), hash, 1);
        p = end + 1;
    }
    return 1;
bad: /* a damaged value is never trusted: start over cold */
    for (int i = 0; i < inv->ncomps; i++) {
        free(inv->comps[i].role);
        free(inv->comps[i].path);
    }
    free(inv->comps);
    inv->comps = NULL;
    inv->ncomps = 0;
    return 0;
}

static void closure_to_memo(const tlcc_invocation *inv, tlcc_memo *memo, const char *key, const tlcc_deps *d)
{
    size_t n = 1;
    for (int i = 0; i < inv->ncomps; i++) {
        const char *path = inv->comps[i].path ? inv->comps[i].path : "";
        if (strpbrk(inv->comps[i].role, "\t\n\x1d\x1e\x1f") || strpbrk(path, "\t\n\x1d\x1e\x1f"))
            return; /* would not read back */
        n += strlen(inv->comps[i].role) + strlen(path) + TL_HASH_HEX_LEN + 3;
    }
    char *answer = malloc(n), *o = answer;
    for (int i = 0; answer && i < inv->ncomps; i++) {
        o = stpcpy(o, inv->comps[i].role);
        *o++ = '\x1f';
        o = stpcpy(o, inv->comps[i].path ? inv->comps[i].path : "");
        *o++ = '\x1f';
        tl_hash_hex(inv->comps[i].hash, o);
        o += TL_HASH_HEX_LEN;
        *o++ = '\x1e';
    }
    if (answer) {
        *o = 0;
        tlcc_memo_put_held(memo, key, answer, d);
    }
    free(answer);
}

int tlcc_fingerprint(tlcc_invocation *inv, const tl_config *cfg, tlcc_memo *memo, tl_error *err)
{
    const char *const *env = inv->ctx->env.v; /* the fingerprinted variables first (env_snapshot.h) */
    char *key = memo ? closure_key(inv, cfg) : NULL;
    inv->closure_memo = key && closure_from_memo(inv, memo, key);
    if (!inv->closure_memo) {
        tlcc_deps d = { { 0 }, 0 };
        tlcc_deps_begin(&inv->ctx->deps, &d);
        int rc = closure(inv, cfg, memo, err);
        tlcc_deps_end(&inv->ctx->deps, &d);
        inv->closure_ndeps = d.unmemoizable || !inv->memo_dir ? -1 : d.items.n;
        if (rc == 0 && key && inv->closure_ndeps >= 0)
            closure_to_memo(inv, memo, key, &d);
        tlcc_deps_free(&inv->ctx->deps, &d);
        if (rc != 0) {
            free(key);
            return -1;
        }
    }
    free(key);
    tl_hasher *h = tl_hasher_new();
    if (!h)
        return tl_fail(err, "out of memory");
    tl_hasher_update_str(h, "trueline-fingerprint-1");
    tl_hasher_update_str(h, tlcc_family_name(inv->family));
    for (int i = 0; i < inv->ncomps; i++) {
        /* role and content, not path: the same toolchain installed elsewhere shares cache entries */
        tl_hasher_update_str(h, inv->comps[i].role);
        tl_hasher_update_str(h, inv->comps[i].path ? "present" : "absent");
        tl_hasher_update(h, &inv->comps[i].hash, sizeof inv->comps[i].hash);
    }
    for (size_t i = 0; i < NFP_ENV; i++)
        hash_env_value(inv, h, tlcc_env_snapshot_name((enum tlcc_env_var)i), env[i]);
    hash_unfolded_env(inv, h);
    const char *extra_env = tl_config_get(cfg, "fingerprint", "env");
    if (extra_env) {
        char *copy = strdup(extra_env);
        for (char *save = NULL, *n = strtok_r(copy, " \t,", &save); n; n = strtok_r(NULL, " \t,", &save))
            hash_env(inv, h, n);
        free(copy);
    }
    inv->fingerprint = tl_hasher_final(h);
    tl_hash_hex(inv->fingerprint, inv->fp_hex);
    return 0;
}
