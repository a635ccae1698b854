#include "force.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache_dir.h"
#include "compiler.h"
#include "context.h"
#include "families.h"

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

int tlcc_is_debug_off(const char *o)
{
    return strcmp(o, "-g0") == 0 || strcmp(o, "-ggdb0") == 0;
}

int tlcc_is_debug_on(const char *o)
{
    if (strncmp(o, "-g", 2) != 0 || tlcc_is_debug_off(o))
        return 0;
    const char *r = o + 2;
    static const char *const prefixes[] = { "gdb", "dwarf", "line-", "stabs", "full", "used", "codeview", "xcoff",
                                            "vms", NULL };
    if (!*r || ((r[0] >= '1' && r[0] <= '3') && !r[1]))
        return 1;
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(r, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
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

static const char *eq_value(const char *a, const char *opt)
{
    size_t n = strlen(opt);
    return strncmp(a, opt, n) == 0 && a[n] == '=' ? a + n + 1 : NULL;
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

void tlcc_analyze(tlcc_invocation *inv, tlcc_memo *memo)
{
    const tlcc_family_desc *fam = tlcc_family_of(inv->family);
    const int nv = fam->nvcc_options;
    const char *const *takes = fam->takes_value;
    const char *ccbin = NULL, *v;
    int lang_forced = 0, sources = 0, dep_only = 0, dep_with_compile = 0, last_dbg = 0;
    tlcc_strv *a = &inv->args;
    for (int i = 0; i < a->n; i++) {
        const char *s = a->v[i], *next = i + 1 < a->n ? a->v[i + 1] : NULL;
        if (s[0] != '-' || !s[1]) {
            if (has_source_ext(s, fam) || (lang_forced && (s[0] != '-' || !s[1]))) {
                if (!sources++)
                    set_str(&inv->source, s);
                tlcc_strv_push(&inv->sources, s);
            }
            continue;
        }
        if (in_list(s, takes) && !next) {
            /* A value-taking option at the very end would take a forced flag appended after it as its value
             * (an object named -g1; -I -g1 compiling without line info under a record saying "forced -g1"):
             * force nothing, so the compiler meets the same dangling option and refuses it as it would bare. */
            no_force(inv, "a dangling option at the end takes no value");
            continue;
        }
        if (in_list(s, takes)) {
            if (strcmp(s, "-o") == 0 || strcmp(s, "--output-file") == 0)
                set_str(&inv->output, next);
            else if (strcmp(s, "-x") == 0 || strcmp(s, "--x") == 0)
                lang_forced = strcmp(next, "none") != 0;
            else if (nv && (strcmp(s, "-ccbin") == 0 || strcmp(s, "--compiler-bindir") == 0))
                ccbin = next;
            else if (nv && (strcmp(s, "-odir") == 0 || strcmp(s, "--output-directory") == 0))
                set_str(&inv->odir, next);
            else if (nv && (strcmp(s, "-Xcompiler") == 0 || strcmp(s, "--compiler-options") == 0))
                scan_host_list(inv, next, &last_dbg);
            i++;
            continue;
        }
        if ((v = eq_value(s, "-o")) || (v = eq_value(s, "--output-file")) || (!nv && strncmp(s, "-o", 2) == 0 && (v = s + 2)))
            set_str(&inv->output, v);
        else if (nv && ((v = eq_value(s, "-ccbin")) || (v = eq_value(s, "--compiler-bindir"))))
            ccbin = v;
        else if (nv && ((v = eq_value(s, "-odir")) || (v = eq_value(s, "--output-directory"))))
            set_str(&inv->odir, v);
        else if (nv && ((v = eq_value(s, "-Xcompiler")) || (v = eq_value(s, "--compiler-options"))))
            scan_host_list(inv, v, &last_dbg);
        else if (!nv && strncmp(s, "-x", 2) == 0 && s[2])
            lang_forced = strcmp(s + 2, "none") != 0;
        else if (nv && ((v = eq_value(s, "-x")) || (v = eq_value(s, "--x"))))
            lang_forced = strcmp(v, "none") != 0;
        if (strcmp(s, "-c") == 0 || (nv && (strcmp(s, "-dc") == 0 || strcmp(s, "--compile") == 0 || strcmp(s, "-dw") == 0)))
            inv->compile_only = 1;
        else if (nv && (strcmp(s, "-G") == 0 || strcmp(s, "--device-debug") == 0))
            inv->has_G = 1;
        else if (nv && (strcmp(s, "-lineinfo") == 0 || strcmp(s, "--generate-line-info") == 0))
            inv->has_lineinfo = 1;
        else if (nv && (strcmp(s, "-g") == 0 || strcmp(s, "--debug") == 0))
            last_dbg = 1;
        else if (!nv && tlcc_is_debug_on(s))
            last_dbg = 1;
        else if (!nv && tlcc_is_debug_off(s))
            last_dbg = 0;
        else if (strcmp(s, "-E") == 0 || strcmp(s, "--preprocess") == 0)
            no_force(inv, "-E (preprocess only)");
        else if (strcmp(s, "-M") == 0 || strcmp(s, "-MM") == 0 || strcmp(s, "--generate-dependencies") == 0 ||
                 strcmp(s, "--generate-nonsystem-dependencies") == 0)
            dep_only = 1;
        else if (strcmp(s, "-MD") == 0 || strcmp(s, "-MMD") == 0)
            dep_with_compile = 1;
        else if (strcmp(s, "--version") == 0 || strcmp(s, "-V") == 0 || strcmp(s, "--help") == 0 ||
                 strcmp(s, "-h") == 0 || strncmp(s, "-dump", 5) == 0 || strncmp(s, "-print-", 7) == 0 ||
                 strncmp(s, "--print-", 8) == 0)
            no_force(inv, "query (--version, --help, -dump*, -print-*)");
        else if (strcmp(s, "-###") == 0 || strcmp(s, "--dryrun") == 0 || strcmp(s, "-dryrun") == 0)
            no_force(inv, "dry run (-###, --dryrun)");
    }
    inv->host_debug = last_dbg;
    if (dep_only && !dep_with_compile)
        no_force(inv, "-M/-MM (dependencies only)");
    if (!sources)
        no_force(inv, "no source file (link-only or a query)");
    if (nv)
        nvcc_host(inv, memo, ccbin);
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
            tlcc_strv_push(&inv->args, "-lineinfo");
            tlcc_strv_push(&inv->forced, "-lineinfo");
        }
    }
    if (strcmp(level, "keep") == 0)
        return 0;
    if (inv->host_debug) {
        tlcc_strv_push(&inv->notes, "host debug info already requested: host flags left alone");
        return 0;
    }
    /* the host compiler's own spelling of the level (nvcc: the host compiler it runs) */
    const tlcc_family_desc *host = fam->nvcc_options ? tlcc_family_host(inv->host_compiler) : fam;
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
