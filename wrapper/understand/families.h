/* Compiler families: everything trueline-cc does differently for one family, one row each (families.c).
 * A new family is a new row (and, for a new option syntax, a new table of options.h); behaviour no row has yet
 * is a new field (or TLCC_FOLD_ / TLCC_CLOSURE_ value, or option flag) and the code that reads it, in the step
 * it belongs to: folding in argv.c, the analysis and forcing in force.c, the closure in fingerprint.c. The rows
 * are data: this module depends on nothing but the option tables, so every step can read them. */
#ifndef TLCC_WRAPPER_FAMILIES_H
#define TLCC_WRAPPER_FAMILIES_H
#include "understand/invocation.h"
#include "understand/options.h"

/* What the effective argv folds in (argv.c, docs/wrapper.md "The effective argv"). */
enum tlcc_fold {
    TLCC_FOLD_RESPONSE_FILES = 1, /* @file, GNU quoting (libiberty's expandargv) */
    TLCC_FOLD_NVCC_ENV = 2,       /* NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS, nvcc's split */
    TLCC_FOLD_OPTF = 4,           /* -optf / --options-file files, nvcc's split */
    TLCC_FOLD_CCC_OVERRIDE = 8,   /* CCC_OVERRIDE_OPTIONS, applied as clang's driver does */
};

/* How the toolchain closure is found (fingerprint.c). */
enum tlcc_closure {
    TLCC_CLOSURE_DRIVER, /* the driver alone */
    TLCC_CLOSURE_GNU,    /* the driver and the sub-tools it names with -print-prog-name */
    TLCC_CLOSURE_NVCC,   /* nvcc, its profile, its sub-tools, libdevice, and its host compiler's GNU closure */
};

typedef struct tlcc_family_desc {
    enum tlcc_family id;
    const char *name; /* in records and explain */
    const char *const *answers_to;   /* names trueline-cc answers to as a link (masquerade mode) */
    /* recognised (compiler.c): by the driver's file name, else by its `--version` output */
    const char *const *names_exact;  /* file names that are this family */
    const char *const *names_within; /* substrings of a file name that say it (x86_64-linux-gnu-gcc-12) */
    const char *const *version_marks;
    const char *version_line; /* the `--version` line with the version starts here (NULL: the first line) */
    const char *ccache_type;  /* CCACHE_COMPILERTYPE when ccache runs the stage in its place */
    int sccache_steps;        /* sccache (0.9+) caches this driver's sub-steps, never its whole call */
    int cache_keys_preprocessed; /* ccache and sccache key its object by the preprocessed text, leaving out the
                                    options the preprocessor reads (-D, -I ...): verification compares a record's
                                    `kp` (verify_key.c) */
    /* the effective argv (argv.c) */
    unsigned folds;           /* enum tlcc_fold */
    /* analysis and forcing (force.c) */
    const tlcc_opt_table *options;  /* its options and what each means (options_<syntax>.c) */
    const char *const *source_exts; /* what a source file's name ends with */
    int runs_host_compiler;   /* it compiles host code with another compiler, found as nvcc finds it (-ccbin,
                                 NVCC_CCBIN, gcc on its PATH): host flags are forced in that compiler's spelling */
    const char *device_lineinfo; /* the flag that gives device code line info, added unless an option the table
                                    marks TLCC_OPT_DEVICE_DEBUG or TLCC_OPT_LINE_INFO is given; NULL: none */
    const char *host_flag;    /* prefix of a forced host debug flag ("-", "-Xcompiler=-"); NULL: nothing forced */
    const char *g1;           /* how it spells host_debug = g1 (clang: gline-tables-only) */
    /* fingerprint (fingerprint.c) */
    enum tlcc_closure closure;
    const char *const *sub_tools; /* TLCC_CLOSURE_GNU: the sub-tools asked with -print-prog-name */
    int plugin_files;         /* -fplugin=/-specs= files are found as gcc finds them */
    const char *const *env_read; /* variables its driver reads: hashed when set and not folded */
} tlcc_family_desc;

/* Whether trueline-cc answers to this name as a link (a row's answers_to). */
int tlcc_family_answers_to(const char *base);
/* Whether some family's driver takes the next argument as this option's value (-o, -I, -Xcompiler ...;
 * TLCC_OPT_SEPARATE in its table):
 * before the family is known, the argument after it is an operand, never trueline-cc's own option. */
int tlcc_family_any_takes_value(const char *opt);
/* The row of f (TLCC_FAM_OTHER's for an unknown value). */
const tlcc_family_desc *tlcc_family_of(enum tlcc_family f);
const char *tlcc_family_name(enum tlcc_family f);
/* The family a driver's path or name says (TLCC_FAM_OTHER: none; plain cc/c++ are alternatives). */
enum tlcc_family tlcc_family_by_name(const char *path);
/* The family `--version` output says (TLCC_FAM_OTHER: none or NULL). */
enum tlcc_family tlcc_family_by_version(const char *out);
/* The row of the host compiler nvcc runs: by its name, gcc's when the name says no GNU-like family. */
const tlcc_family_desc *tlcc_family_host(const char *host_path);

#endif
