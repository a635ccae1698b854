/* One compile as trueline-cc sees it. The pipeline fills it top-down:
 * classify (compiler.c) -> effective argv (argv.c) -> forced flags (force.c) -> fingerprint
 * (fingerprint.c) -> run (run.c); explain.c prints it. The provenance stage records from it. */
#ifndef TL_WRAPPER_INVOCATION_H
#define TL_WRAPPER_INVOCATION_H
#include <sys/types.h>

#include "strv.h"
#include "trueline/config.h"
#include "trueline/hash.h"

enum tl_family { TL_FAM_OTHER, TL_FAM_GCC, TL_FAM_CLANG, TL_FAM_NVCC };
enum tl_mode { TL_MODE_LAUNCHER, TL_MODE_CHAINED, TL_MODE_MASQUERADE };
enum tl_cache { TL_CACHE_NONE, TL_CACHE_CCACHE, TL_CACHE_SCCACHE };

/* One file of the toolchain closure. */
typedef struct tl_component {
    char *role; /* "nvcc", "ptxas", "host cc1plus", "plugin" ... */
    char *path; /* NULL when the tool was not found (then `absent` says so in the hash) */
    tl_hash128 hash;
    int memo_hit; /* the hash came from the memo cache (stat unchanged) */
} tl_component;

typedef struct tl_invocation {
    enum tl_mode mode;
    enum tl_family family;
    enum tl_cache cache;
    char *compiler_arg;  /* the compiler as named by the user (name or path) */
    char *compiler_path; /* the real compiler that runs (never trueline-cc) */
    char *cache_path;    /* ccache/sccache executable when chained */
    int cache_preloads;  /* the cache has a dynamic loader, so LD_PRELOAD reaches it (verify_in_cache.c) */
    char *version;       /* first line of `COMPILER --version` (memoized) */

    tl_strv user_args; /* the arguments as given, without argv[0] and trueline's own options */
    tl_strv args;      /* the effective argv (without argv[0]): folded, then forced */
    tl_strv folds;     /* explain: "SOURCE: what was folded" */
    tl_strv forced;    /* flags trueline-cc added */
    tl_strv notes;     /* explain: decisions worth telling (e.g. -G overrides -lineinfo) */
    tl_strv unset_env; /* variables removed from the compiler's environment */

    /* What the effective argv says (force.c fills these). */
    int has_G, has_lineinfo, host_debug, compile_only, no_force; /* no_force: -E, -M, --version, link-only... */
    const char *no_force_reason;
    char *output, *source; /* last -o value, first source file; NULL when none */
    tl_strv sources;       /* every source file, in order (a -c without -o writes one object per source) */
    char *odir;            /* nvcc -odir/--output-directory: where objects named after sources go */
    char *host_compiler;   /* nvcc: the host compiler nvcc will run (resolved path) */
    char *host_from;       /* where that choice came from ("-ccbin", "NVCC_CCBIN", "PATH") */

    tl_component *comps;
    int ncomps;
    int closure_memo;   /* explain: 1 the closure came from the closure memo, 0 it was walked */
    int closure_ndeps;  /* explain: files and directories the closure depends on (-1: not memoizable) */
    tl_strv env_hashed; /* "NAME=value" or "NAME (unset)", in hash order */
    tl_hash128 fingerprint;
    char fp_hex[TL_HASH_HEX_LEN + 1];
    tl_hash128 argv_hash; /* XXH3-128 over the length-prefixed effective argv (args, without argv[0]) */
    char argv_hex[TL_HASH_HEX_LEN + 1];

    int explain;
    double resolve_ms;  /* explain: time spent finding the cache and the compiler on PATH (classify) */
    char *memo_dir;     /* where the memo cache lives (NULL: disabled) */
    char *memo_problem; /* why the memo cache could not be written, for explain */
    int memo_read;      /* tl_memo_read_mode of the memo as opened, for explain */
} tl_invocation;

void tl_invocation_free(tl_invocation *inv);
const char *tl_family_name(enum tl_family f);

#endif
