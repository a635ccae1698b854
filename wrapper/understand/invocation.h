/* One compile as trueline-cc sees it. The pipeline fills it top-down:
 * classify (compiler.c) -> effective argv (argv.c) -> forced flags (force.c) -> fingerprint
 * (fingerprint.c); the plan (plan.c) is made from it, explain.c prints it, records (record.c) say it. */
#ifndef TLCC_WRAPPER_INVOCATION_H
#define TLCC_WRAPPER_INVOCATION_H
#include <sys/types.h>

#include "strv.h"
#include "trueline/config.h"
#include "trueline/hash.h"

/* What each family means is its row in families.c. */
enum tlcc_family { TLCC_FAM_OTHER, TLCC_FAM_GCC, TLCC_FAM_CLANG, TLCC_FAM_NVCC };
enum tlcc_mode { TLCC_MODE_LAUNCHER, TLCC_MODE_CHAINED, TLCC_MODE_MASQUERADE };
enum tlcc_cache { TLCC_CACHE_NONE, TLCC_CACHE_CCACHE, TLCC_CACHE_SCCACHE };

/* One file of the toolchain closure. */
typedef struct tlcc_component {
    char *role; /* "nvcc", "ptxas", "host cc1plus", "plugin" ... */
    char *path; /* NULL when the tool was not found (then `absent` says so in the hash) */
    tl_hash128 hash;
    int memo_hit; /* the hash came from the memo cache (stat unchanged) */
} tlcc_component;

struct tlcc_ctx;

typedef struct tlcc_invocation {
    struct tlcc_ctx *ctx; /* the run it belongs to (context.h): its environment, caches and recorder */
    enum tlcc_mode mode;
    enum tlcc_family family;
    enum tlcc_cache cache;
    char *compiler_arg;  /* the compiler as named by the user (name or path) */
    char *compiler_path; /* the real compiler that runs (never trueline-cc) */
    char *cache_path;    /* ccache/sccache executable when chained */
    char *version;       /* first line of `COMPILER --version` (memoized) */

    tlcc_strv user_args; /* the arguments as given, without argv[0] and trueline's own options */
    tlcc_strv args;      /* the effective argv (without argv[0]): folded, then forced */
    tlcc_strv folds;     /* explain: "SOURCE: what was folded" */
    tlcc_strv forced;    /* flags trueline-cc added */
    tlcc_strv notes;     /* explain: decisions worth telling (e.g. -G overrides -lineinfo) */
    tlcc_strv unset_env; /* variables removed from the compiler's environment */
    tlcc_strv folded_env; /* "NAME=value" of each of them, as it was set: the records' "fe" */

    /* What the effective argv says (force.c fills these). */
    int has_G, has_lineinfo, host_debug, compile_only, no_force; /* no_force: -E, -M, --version, link-only... */
    const char *no_force_reason;
    char *output, *source; /* last -o value, first source file; NULL when none */
    tlcc_strv sources;       /* every source file, in order (a -c without -o writes one object per source) */
    char *odir;            /* nvcc -odir/--output-directory: where objects named after sources go */
    char *host_compiler;   /* nvcc: the host compiler nvcc will run (resolved path) */
    char *host_from;       /* where that choice came from ("-ccbin", "NVCC_CCBIN", "PATH") */

    tlcc_component *comps;
    int ncomps;
    int closure_memo;   /* explain: 1 the closure came from the closure memo, 0 it was walked */
    int closure_ndeps;  /* explain: files and directories the closure depends on (-1: not memoizable) */
    tlcc_strv env_hashed; /* "NAME=value" or "NAME (unset)", in hash order */
    tl_hash128 fingerprint;
    char fp_hex[TL_HASH_HEX_LEN + 1];
    /* The effective argv's hash as records carry it (`ah`): tl_note_argv_hash, output operand left out */
    char argv_hex[TL_HASH_HEX_LEN + 1];

    int explain;
    double resolve_ms;  /* explain: time spent finding the cache and the compiler on PATH (classify) */
    char *memo_dir;     /* where the memo cache lives (NULL: disabled) */
    char *memo_problem; /* why the memo cache could not be written, for explain */
    int memo_read;      /* tlcc_memo_read_mode of the memo as opened, for explain */
} tlcc_invocation;

void tlcc_invocation_free(tlcc_invocation *inv);

#endif
