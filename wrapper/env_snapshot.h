/* The environment trueline-cc reads, taken once at start in one pass over environ (env_snapshot.c) and kept in
 * the run's context (context.h): code asks the snapshot, never getenv. A variable the wrapper sets for its
 * children and reads back itself (TRUELINE_CC_ACTIVE) is set through tlcc_env_snapshot_put, which keeps the
 * snapshot saying what the children see. The environment children are given is built elsewhere
 * (env_edits.h, plan.c). */
#ifndef TLCC_WRAPPER_ENV_SNAPSHOT_H
#define TLCC_WRAPPER_ENV_SNAPSHOT_H

/* The named variables. The fingerprinted ones come first, in the order the fingerprint hashes them
 * (fingerprint.c: their order is part of every fingerprint). */
enum tlcc_env_var {
    /* gcc: where the driver finds cc1/as/specs, and search paths it adds (gcc's "Environment Variables") */
    TLCC_EV_COMPILER_PATH, TLCC_EV_GCC_EXEC_PREFIX, TLCC_EV_CPATH, TLCC_EV_C_INCLUDE_PATH, TLCC_EV_CPLUS_INCLUDE_PATH,
    TLCC_EV_OBJC_INCLUDE_PATH, TLCC_EV_OBJCPLUS_INCLUDE_PATH, TLCC_EV_GCC_COMPARE_DEBUG, TLCC_EV_DEPENDENCIES_OUTPUT,
    TLCC_EV_SUNPRO_DEPENDENCIES,
    /* __DATE__/__TIME__ and reproducible-build timestamps */
    TLCC_EV_SOURCE_DATE_EPOCH,
    /* diagnostics language (ccache hashes these too) */
    TLCC_EV_LANG, TLCC_EV_LC_ALL, TLCC_EV_LC_CTYPE, TLCC_EV_LC_MESSAGES,
    /* clang configuration files */
    TLCC_EV_CLANG_CONFIG_FILE_SYSTEM_DIR, TLCC_EV_CLANG_CONFIG_FILE_USER_DIR,
    /* nvcc: host compiler choice when -ccbin is absent */
    TLCC_EV_NVCC_CCBIN,
    TLCC_EV_NFINGERPRINTED, /* the count of the above */
    /* where things are */
    TLCC_EV_HOME = TLCC_EV_NFINGERPRINTED, TLCC_EV_PATH, TLCC_EV_PWD, TLCC_EV_TMPDIR, TLCC_EV_XDG_CACHE_HOME,
    TLCC_EV_XDG_CONFIG_HOME, TLCC_EV_LD_LIBRARY_PATH, TLCC_EV_LD_PRELOAD,
    /* the caches' own settings, as they read them (cache_order.c, plan.c, verify_key.c) */
    TLCC_EV_CCACHE_DISABLE, TLCC_EV_CCACHE_COMPILERTYPE, TLCC_EV_CCACHE_BASEDIR, TLCC_EV_CCACHE_IGNOREOPTIONS,
    TLCC_EV_CCACHE_CONFIGPATH, TLCC_EV_CCACHE_DIR, TLCC_EV_UNCACHED_ERR_FD, TLCC_EV_SCCACHE_CONF,
    TLCC_EV_SCCACHE_BASEDIRS,
    /* folded into the argv (argv.c) or hashed when left in the environment (fingerprint.c) */
    TLCC_EV_CCC_OVERRIDE_OPTIONS,
    /* trueline-cc's own */
    TLCC_EV_TRUELINE_EXPLAIN, TLCC_EV_TRUELINE_CC_ACTIVE, TLCC_EV_TRUELINE_CC_DEPTH, TLCC_EV_TRUELINE_STAGE_REAL,
    TLCC_EV_TRUELINE_STAGE_NOTE, TLCC_EV_TRUELINE_STAGE_KEY_FILE, TLCC_EV_TRUELINE_STAGE_LINE_INFO_STORE,
    TLCC_EV_N
};

typedef struct tlcc_env_snapshot {
    const char *v[TLCC_EV_N]; /* the values (NULL: unset); the first definition wins, as in getenv */
    char **all;               /* a copy of the environ array as it was: any other name (tlcc_env_snapshot_get) */
    struct {
        int which;
        char *value;
    } put[4]; /* what tlcc_env_snapshot_put set (TRUELINE_CC_ACTIVE, TRUELINE_CC_DEPTH), copies */
    int nput;
} tlcc_env_snapshot;

/* Fills s from envp (environ) in one pass. Nothing else reads the environment afterwards. */
void tlcc_env_snapshot_take(tlcc_env_snapshot *s, char *const *envp);
void tlcc_env_snapshot_free(tlcc_env_snapshot *s);
/* The variable's name. */
const char *tlcc_env_snapshot_name(enum tlcc_env_var which);
/* Any variable by name, as it was at the snapshot (a family's own variables, [fingerprint] env's names). */
const char *tlcc_env_snapshot_get(const tlcc_env_snapshot *s, const char *name);
/* setenv for the children, and the snapshot says the new value from now on; value is copied. 0, or -1 when
 * out of memory (nothing changed). */
int tlcc_env_snapshot_put(tlcc_env_snapshot *s, enum tlcc_env_var which, const char *value);

#endif
