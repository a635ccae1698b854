#include "understand/families.h"

#include <string.h>

static const char *const gnu_sources[] = { "c", "i", "ii", "cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "m", "mi",
                                           "mm", "M", "mii", "s", "S", "sx", "cu", "hip", "cl", NULL };
static const char *const nvcc_sources[] = { "cu", "c", "cc", "cpp", "cxx", "c++", "C", "i", "ii", "ptx", NULL };
static const char *const none[] = { NULL };

/* Rows in the order names and `--version` output are matched: gcc's marks ("gcc") are the loosest. */
static const tlcc_family_desc families[] = {
    {
        .id = TLCC_FAM_NVCC, .name = "nvcc", .answers_to = (const char *const[]){ "nvcc", NULL },
        .names_exact = (const char *const[]){ "nvcc", NULL }, .names_within = none,
        .version_marks = (const char *const[]){ "NVIDIA (R) Cuda compiler driver", "Cuda compilation tools", NULL },
        .version_line = "Cuda compilation tools", /* the first line is a banner, the version is last */
        .ccache_type = "nvcc",
        /* mozilla/sccache#2300: it runs `nvcc --dryrun` and caches the sub-steps itself */
        .sccache_steps = 1,
        .folds = TLCC_FOLD_NVCC_ENV | TLCC_FOLD_OPTF, /* nvcc knows no @file */
        .options = &tlcc_opts_nvcc, .source_exts = nvcc_sources, .runs_host_compiler = 1,
        .device_lineinfo = "-lineinfo",
        /* the '=' form: ccache treats a separate "-Xcompiler -g1" pair as uncacheable (ccache #1325) */
        .host_flag = "-Xcompiler=-",
        .closure = TLCC_CLOSURE_NVCC, .sub_tools = none,
        .env_read = (const char *const[]){ "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", NULL },
    },
    {
        .id = TLCC_FAM_CLANG, .name = "clang", .answers_to = (const char *const[]){ "clang", "clang++", NULL },
        .names_exact = none, .names_within = (const char *const[]){ "clang", NULL },
        .version_marks = (const char *const[]){ "clang version", NULL },
        .ccache_type = "clang", .cache_keys_preprocessed = 1,
        .folds = TLCC_FOLD_RESPONSE_FILES | TLCC_FOLD_CCC_OVERRIDE,
        .options = &tlcc_opts_gnu, .source_exts = gnu_sources,
        .host_flag = "-",
        .g1 = "gline-tables-only", /* clang's -g1 is this level: said explicitly so the intent survives edits */
        .closure = TLCC_CLOSURE_GNU,
        .sub_tools = (const char *const[]){ "as", NULL }, /* clang runs cc1 inside its own binary */
        .env_read = none,
    },
    {
        .id = TLCC_FAM_GCC, .name = "gcc", .answers_to = (const char *const[]){ "gcc", "g++", NULL },
        .names_exact = none, .names_within = (const char *const[]){ "gcc", "g++", NULL },
        .version_marks = (const char *const[]){ "(GCC)", "Free Software Foundation", "gcc", NULL },
        .ccache_type = "gcc", .cache_keys_preprocessed = 1,
        .folds = TLCC_FOLD_RESPONSE_FILES,
        .options = &tlcc_opts_gnu, .source_exts = gnu_sources,
        .host_flag = "-",
        .closure = TLCC_CLOSURE_GNU,
        .sub_tools = (const char *const[]){ "cc1", "cc1plus", "as", NULL },
        .plugin_files = 1,
        .env_read = none,
    },
    {
        /* anything else: run as it is, fingerprinted by its driver alone, nothing folded or forced */
        .id = TLCC_FAM_OTHER, .name = "other",
        .answers_to = (const char *const[]){ "cc", "c++", NULL }, /* alternatives: --version says which family */
        .names_exact = none, .names_within = none, .version_marks = none, .ccache_type = "other",
        .options = &tlcc_opts_gnu, .source_exts = gnu_sources,
        .closure = TLCC_CLOSURE_DRIVER, .sub_tools = none, .env_read = none,
    },
};
#define NFAM (sizeof families / sizeof *families)

const tlcc_family_desc *tlcc_family_of(enum tlcc_family f)
{
    for (size_t i = 0; i + 1 < NFAM; i++)
        if (families[i].id == f)
            return &families[i];
    return &families[NFAM - 1];
}

const char *tlcc_family_name(enum tlcc_family f)
{
    return tlcc_family_of(f)->name;
}

static int listed(const char *const *list, const char *s, int within)
{
    for (; *list; list++)
        if (within ? strstr(s, *list) != NULL : strcmp(s, *list) == 0)
            return 1;
    return 0;
}

int tlcc_family_answers_to(const char *base)
{
    for (size_t i = 0; i < NFAM; i++)
        if (listed(families[i].answers_to, base, 0))
            return 1;
    return 0;
}

int tlcc_family_any_takes_value(const char *opt)
{
    return tlcc_opt_any_exact(opt, strlen(opt), TLCC_OPT_SEPARATE);
}

enum tlcc_family tlcc_family_by_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
    for (size_t i = 0; i + 1 < NFAM; i++)
        if (listed(families[i].names_exact, b, 0) || listed(families[i].names_within, b, 1))
            return families[i].id;
    return TLCC_FAM_OTHER;
}

enum tlcc_family tlcc_family_by_version(const char *out)
{
    for (size_t i = 0; out && i + 1 < NFAM; i++)
        if (listed(families[i].version_marks, out, 1))
            return families[i].id;
    return TLCC_FAM_OTHER;
}

const tlcc_family_desc *tlcc_family_host(const char *host_path)
{
    const tlcc_family_desc *f = tlcc_family_of(host_path ? tlcc_family_by_name(host_path) : TLCC_FAM_OTHER);
    return f->closure == TLCC_CLOSURE_GNU ? f : tlcc_family_of(TLCC_FAM_GCC);
}
