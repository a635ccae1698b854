#include "understand/force.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "understand/cache_dir.h"
#include "understand/compiler.h"
#include "context.h"
#include "understand/families.h"

static int in_list(const char *a, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(a, *list) == 0)
            return 1;
    return 0;
}

static int has_source_ext(const char *a, const tlcc_family_desc *fam)
{
    const char *dot = strrchr(a, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    return in_list(dot + 1, fam->source_exts);
}

/* -g spellings are gcc's and clang's (the host compilers nvcc runs too): rows of their table. */
static unsigned debug_flags(const char *o)
{
    const char *v;
    const tlcc_opt *r = tlcc_opt_find(&tlcc_opts_gnu, o, TLCC_OPT_PREFIX, &v);
    return r ? r->flags : 0;
}

int tlcc_is_debug_off(const char *o)
{
    return (debug_flags(o) & TLCC_OPT_DEBUG_OFF) != 0;
}

int tlcc_is_debug_on(const char *o)
{
    return (debug_flags(o) & TLCC_OPT_DEBUG_ON) != 0;
}

/* Host options nvcc forwards: -Xcompiler/--compiler-options values are comma-separated lists. */
static void scan_host_list(tlcc_invocation *inv, const char *list, int *last_dbg)
{
    char *copy = strdup(list);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (tlcc_is_debug_on(t))
            *last_dbg = 1;
        else if (tlcc_is_debug_off(t))
            *last_dbg = 0;
    }
    free(copy);
}

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = strdup(v);
}

static void no_force(tlcc_invocation *inv, const char *why)
{
    if (!inv->no_force) {
        inv->no_force = 1;
        inv->no_force_reason = why;
    }
}

/* nvcc's host compiler: -ccbin (a directory means its gcc), else NVCC_CCBIN, else gcc on the PATH
 * nvcc runs with (its profile puts nvvm/bin and its own bin first). Measured with nvcc 13 --dryrun. */
static void nvcc_host(tlcc_invocation *inv, tlcc_memo *memo, const char *ccbin)
{
    const char *from = "-ccbin";
    if (!ccbin && (ccbin = inv->ctx->env.v[TLCC_EV_NVCC_CCBIN]) && *ccbin)
        from = "NVCC_CCBIN";
    else if (!ccbin || !*ccbin)
        ccbin = NULL;
    /* On the heap, not in fixed buffers: 16 KiB of frame cost a warm run page faults (~1.5 us each here). */
    const char *slash = strrchr(inv->compiler_path, '/'), *env_path = inv->ctx->env.v[TLCC_EV_PATH];
    int dl = slash ? (int)(slash - inv->compiler_path) : 1;
    const char *dir = slash ? inv->compiler_path : ".";
    struct stat st;
    char *path = tlcc_concatn(dir, (size_t)dl, TLCC_S("/../nvvm/bin:"), dir, (size_t)dl, TLCC_S(":"),
                            TLCC_S(env_path ? env_path : ""), NULL);
    int is_dir = ccbin && stat(ccbin, &st) == 0 && S_ISDIR(st.st_mode);
    char *name = tlcc_concatn(TLCC_S(ccbin ? ccbin : "gcc"), TLCC_S(is_dir ? "/gcc" : ""), NULL);
    if (!ccbin)
        from = "PATH (gcc)";
    free(inv->host_compiler);
    /* NULL: hashed as an absent host compiler. A -ccbin naming a masquerade link (CMake setups put one first
     * on PATH) is what that link runs: the next of its name on nvcc's PATH, which is `path`. */
    int via_link = 0;
    inv->host_compiler = path && name ? tlcc_find_program_past_link(inv->ctx, memo, name, path, &via_link) : NULL;
    free(path);
    free(name);
    char *how = via_link ? tlcc_concatn(TLCC_S(from), TLCC_S(", a trueline-cc link: the next of its name on PATH"), NULL) : NULL;
    set_str(&inv->host_from, how ? how : from);
    free(how);
}

/* What an option's value tells (the row's value bits; -o FILE, -oFILE, -o=FILE alike). */
struct seen {
    const char *ccbin;
    int lang_forced, sources, dep_only, dep_with_compile, last_dbg;
};

static void read_value(tlcc_invocation *inv, struct seen *st, unsigned flags, const char *v)
{
    if (flags & TLCC_OPT_OUTPUT)
        set_str(&inv->output, v);
    else if (flags & TLCC_OPT_LANGUAGE)
        st->lang_forced = strcmp(v, "none") != 0;
    else if (flags & TLCC_OPT_HOST_COMPILER)
        st->ccbin = v;
    else if (flags & TLCC_OPT_OUTPUT_DIR)
        set_str(&inv->odir, v);
    else if (flags & TLCC_OPT_HOST_OPTIONS)
        scan_host_list(inv, v, &st->last_dbg);
}

/* What an option itself tells (the row's meaning bits). */
static void read_flags(tlcc_invocation *inv, struct seen *st, unsigned flags)
{
    if (flags & TLCC_OPT_COMPILE_ONLY)
        inv->compile_only = 1;
    else if (flags & TLCC_OPT_DEVICE_DEBUG)
        inv->has_G = 1;
    else if (flags & TLCC_OPT_LINE_INFO)
        inv->has_lineinfo = 1;
    else if (flags & TLCC_OPT_DEBUG_ON)
        st->last_dbg = 1;
    else if (flags & TLCC_OPT_DEBUG_OFF)
        st->last_dbg = 0;
    else if (flags & TLCC_OPT_PREPROCESS)
        no_force(inv, "-E (preprocess only)");
    else if (flags & TLCC_OPT_DEPS_ONLY)
        st->dep_only = 1;
    else if (flags & TLCC_OPT_DEPS_COMPILE)
        st->dep_with_compile = 1;
    else if (flags & TLCC_OPT_QUERY)
        no_force(inv, "query (--version, --help, -dump*, -print-*)");
    else if (flags & TLCC_OPT_DRY_RUN)
        no_force(inv, "dry run (-###, --dryrun)");
}

void tlcc_analyze(tlcc_invocation *inv, tlcc_memo *memo)
{
    const tlcc_family_desc *fam = tlcc_family_of(inv->family);
    struct seen st = { 0 };
    tlcc_strv *a = &inv->args;
    for (int i = 0; i < a->n; i++) {
        const char *s = a->v[i], *next = i + 1 < a->n ? a->v[i + 1] : NULL, *v;
        if (s[0] != '-' || !s[1]) {
            if (has_source_ext(s, fam) || st.lang_forced) {
                if (!st.sources++)
                    set_str(&inv->source, s);
                tlcc_strv_push(&inv->sources, s);
            }
            continue;
        }
        const tlcc_opt *o = tlcc_opt_find(fam->options, s, TLCC_OPT_JOINED | TLCC_OPT_EQ | TLCC_OPT_PREFIX, &v);
        if (!o)
            continue;
        if (!v && (o->flags & TLCC_OPT_SEPARATE)) { /* spelt alone (no SEPARATE row is a PREFIX one) */
            if (!next) {
                /* A value-taking option at the very end would take a forced flag appended after it as its
                 * value (an object named -g1; -I -g1 compiling without line info under a record saying "forced
                 * -g1"): force nothing, so the compiler meets the same dangling option and refuses it as it
                 * would bare. */
                no_force(inv, "a dangling option at the end takes no value");
                continue;
            }
            read_value(inv, &st, o->flags, next);
            i++;
            continue;
        }
        if (v)
            read_value(inv, &st, o->flags, v);
        read_flags(inv, &st, o->flags);
    }
    inv->host_debug = st.last_dbg;
    if (st.dep_only && !st.dep_with_compile)
        no_force(inv, "-M/-MM (dependencies only)");
    if (!st.sources)
        no_force(inv, "no source file (link-only or a query)");
    if (fam->runs_host_compiler)
        nvcc_host(inv, memo, st.ccbin);
}

int tlcc_force(tlcc_invocation *inv, const tl_config *cfg, tl_error *err)
{
    static const char *const levels[] = { "keep", "g", "g1", "g2", "g3", NULL };
    int device = tl_config_bool_checked(cfg, "wrapper", "device_lineinfo", 1, err);
    const char *level = device < 0 ? NULL : tl_config_enum(cfg, "wrapper", "host_debug", "g1", levels, err);
    if (!level)
        return -1; /* err names where the value was set and what is valid */
    const tlcc_family_desc *fam = tlcc_family_of(inv->family);
    if (!fam->host_flag)
        return 0; /* a family trueline-cc does not know: nothing forced */
    if (inv->no_force) {
        tlcc_strv_pushf(&inv->notes, "nothing forced: %s", inv->no_force_reason);
        return 0;
    }
    if (fam->device_lineinfo && device) {
        if (inv->has_G)
            tlcc_strv_push(&inv->notes, "-G present: device code gets full debug info, which overrides -lineinfo; "
                                      "-lineinfo not added");
        else if (inv->has_lineinfo)
            tlcc_strv_push(&inv->notes, "-lineinfo already present");
        else {
            tlcc_strv_push(&inv->args, fam->device_lineinfo);
            tlcc_strv_push(&inv->forced, fam->device_lineinfo);
        }
    }
    if (strcmp(level, "keep") == 0)
        return 0;
    if (inv->host_debug) {
        tlcc_strv_push(&inv->notes, "host debug info already requested: host flags left alone");
        return 0;
    }
    /* the host compiler's own spelling of the level (nvcc: the host compiler it runs) */
    const tlcc_family_desc *host = fam->runs_host_compiler ? tlcc_family_host(inv->host_compiler) : fam;
    const char *lv = host->g1 && strcmp(level, "g1") == 0 ? host->g1 : level;
    /* Joined by tlcc_concatn, not formatted: a cache hit runs no printf code at all (its ~50 instruction-cache
     * lines were a tenth of what a warm hit touches). */
    char *flag = tlcc_concatn(TLCC_S(fam->host_flag), TLCC_S(lv), NULL);
    if (!flag)
        return tl_fail(err, "out of memory");
    tlcc_strv_push(&inv->args, flag);
    tlcc_strv_push_owned(&inv->forced, flag);
    /* the -g just forced must not key the working directory where the user's build did not (cache_dir.c) */
    if (tlcc_cache_dir_neutral(inv) != 0)
        return tl_fail(err, "out of memory");
    return 0;
}
