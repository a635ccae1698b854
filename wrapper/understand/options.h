/* What trueline-cc knows about one family's compiler options, as data: one sorted table per option syntax
 * (options_gnu.c, options_nvcc.c), each row a spelling with flag bits, found by binary search (like ccache's
 * compopt.cpp). The family row (families.c) names its table; the analysis and forcing (force.c), the name
 * lookup before the family is known (main.c) and the argv as the cache keys it (verify_key.c) read the flags
 * and spell no option themselves. A new family is a new table and one row in families.c; a new kind of
 * option is a new bit here and the code that reads it. This module depends on nothing. */
#ifndef TLCC_WRAPPER_OPTIONS_H
#define TLCC_WRAPPER_OPTIONS_H
#include <stddef.h>

enum tlcc_opt_flag {
    /* how the row is spelt on the command line */
    TLCC_OPT_SEPARATE = 1u << 0, /* its value may be the next argument (-o FILE) */
    TLCC_OPT_JOINED = 1u << 1,   /* its value may be joined to it (-oFILE, -I/dir) */
    TLCC_OPT_EQ = 1u << 2,       /* its value may follow a '=' (--output-file=FILE, -ccbin=DIR) */
    TLCC_OPT_PREFIX = 1u << 3,   /* the row stands for every spelling that starts with it (-print-*, -ggdb*) */
    /* what the analysis reads from it (force.c) */
    TLCC_OPT_OUTPUT = 1u << 4,        /* its value names the output file */
    TLCC_OPT_LANGUAGE = 1u << 5,      /* its value is the language of the inputs after it (-x; "none" ends it) */
    TLCC_OPT_HOST_COMPILER = 1u << 6, /* its value selects the host compiler the driver runs (-ccbin) */
    TLCC_OPT_OUTPUT_DIR = 1u << 7,    /* its value is the directory outputs go to (-odir) */
    TLCC_OPT_HOST_OPTIONS = 1u << 8,  /* its value is a comma-separated list of host compiler options */
    TLCC_OPT_COMPILE_ONLY = 1u << 9,  /* compile, do not link (-c) */
    TLCC_OPT_DEVICE_DEBUG = 1u << 10, /* full device debug info, which overrides -lineinfo (-G) */
    TLCC_OPT_LINE_INFO = 1u << 11,    /* device line info already asked for (-lineinfo) */
    TLCC_OPT_DEBUG_ON = 1u << 12,     /* host debug info on, at some level (-g, -g2, -ggdb3, -gline-tables-only) */
    TLCC_OPT_DEBUG_OFF = 1u << 13,    /* host debug info off (-g0) */
    TLCC_OPT_PREPROCESS = 1u << 14,   /* preprocess only: nothing forced */
    TLCC_OPT_DEPS_ONLY = 1u << 15,    /* dependencies only (-M): nothing forced unless a compile comes with it */
    TLCC_OPT_DEPS_COMPILE = 1u << 16, /* dependencies written beside a compile (-MD) */
    TLCC_OPT_QUERY = 1u << 17,        /* a query that compiles nothing (--version, -print-*): nothing forced */
    TLCC_OPT_DRY_RUN = 1u << 18,      /* prints the commands, runs none (-###): nothing forced */
    /* how the caches key it (verify_key.c) */
    TLCC_OPT_KEY_DROP = 1u << 19,  /* left out of the cache key with its value: it writes a second file, renames
                                      directories in debug info, or links (-MF, -fdebug-prefix-map=, -L) */
    TLCC_OPT_KEY_LONE = 1u << 20,  /* ... only when its joined value holds no further option (-Wp,-MD,FILE) */
    TLCC_OPT_PATH = 1u << 21,      /* its joined or '=' value is a path rewritten under a base directory (-I) */
    TLCC_OPT_KEY_PP = 1u << 22,    /* what the preprocessor reads (-D, -I, -include): a cache that keys a gcc or clang
                                      compile's object by its preprocessed text leaves it out (ccache's AFFECTS_CPP) */
};

typedef struct tlcc_opt {
    const char *name;
    unsigned flags; /* enum tlcc_opt_flag */
} tlcc_opt;

/* One family's options, sorted by strcmp of the names, each name once (tests/unit/wrapper_options.c). */
typedef struct tlcc_opt_table {
    const char *syntax; /* whose options: "gnu", "nvcc" */
    const tlcc_opt *rows;
    size_t n;
} tlcc_opt_table;

extern const tlcc_opt_table tlcc_opts_gnu;  /* gcc, clang and drivers trueline-cc does not know */
extern const tlcc_opt_table tlcc_opts_nvcc;
/* Every table once, NULL-terminated: what the lookups over all families go through. */
extern const tlcc_opt_table *const tlcc_opt_tables[];

/* The row spelt exactly s[0..n) (n: its length), NULL if none. */
const tlcc_opt *tlcc_opt_exact(const tlcc_opt_table *t, const char *s, size_t n);
/* The row one argument is: its exact spelling, else the longest row with a bit of `want` that matches the
 * start of it (TLCC_OPT_JOINED: followed by a value; TLCC_OPT_EQ: followed by '=' and a value;
 * TLCC_OPT_PREFIX: followed by anything). *value: the joined value, NULL for an exact or a PREFIX match (so a
 * row that is not TLCC_OPT_PREFIX found with *value NULL was spelt exactly). */
const tlcc_opt *tlcc_opt_find(const tlcc_opt_table *t, const char *arg, unsigned want, const char **value);
/* Whether some family's table has arg spelt exactly, with all of the bits of `flags`. */
int tlcc_opt_any_exact(const char *arg, size_t n, unsigned flags);

#endif
