/* The parsed command line of trueline-check, shared by the audit and the non-check modes (tools/). */
#ifndef TLCK_OPTIONS_H
#define TLCK_OPTIONS_H
#include <stddef.h>
#include "model.h"

struct tlck_image_cache;

/* Which mode runs is main.c's business (its table of modes); what a mode reads is here. */
struct tlck_options {
    const char **inputs;   size_t ninputs;      /* files, directories, archives */
    const char *format;                          /* text (default), json, sarif, junit */
    const char *output;                          /* --output FILE, NULL = stdout */
    enum tlck_severity fail_on;                    /* --fail-on (default error) */
    const char *platform;                        /* --policy manylinux_2_28 */
    const char *config;                          /* --config FILE (else the standard lookup) */
    const char *only;                            /* --checks id,id */
    const char *baseline, *write_baseline;       /* --baseline FILE, --write-baseline FILE */
    const char **debug_dirs; size_t ndebug_dirs; /* --debug-dir DIR (repeatable) */
    int jobs;                                    /* -j N (0 = number of CPUs) */
    int progress;                                /* --progress / --no-progress (-1 = auto: TTY only) */
    int color;                                   /* -1 auto, 0 never, 1 always */
    int verbose;                                 /* --verbose: the text report lists every finding of a list */
    int release;                                 /* --release */
    const char *profile;                         /* --profile build|release (profile.h); NULL: build */
    int host_only;                               /* --host-only: do not read device images (fatbins) */
    const char *image_cache_dir;                 /* --image-cache DIR */
    int no_image_cache;                          /* --no-image-cache */
    struct tlck_image_cache *image_cache;        /* the run's, resolved by audit_settings.c; NULL: none */
    int allow_empty;                             /* --allow-empty: no file to check is not an error */
    int follow_symlinks;                         /* --follow-symlinks: a scan enters linked directories */
    int device_only;                             /* --list: read device images only, whatever the input is */
    const char *extract_dir;                     /* --extract DIR */
    const char **locations; size_t nlocations;   /* --symbolize FILE LOCATION...: "kernel+0x90" or a PC; none or
                                                  * "-": one per line on stdin */
    int addr2line;                               /* --addr2line: --symbolize prints as addr2line -f -i -C */
    unsigned sm;                                 /* --sm N: pick the image when a location is ambiguous */
    const char **binaries; size_t nbinaries;     /* --coredump CORE --binary FILE (repeatable) */
    const char *source_dir;                      /* --source-dir DIR */
    const char *debug_store;                     /* --debug-store DIR, else [audit] debug_store: where split-out
                                                  * line info is (read/debug_store.h); NULL: DEBUGINFOD_URLS only */
    unsigned long long max_input_mb;             /* per-input memory bound for decompression (0 = default) */
    unsigned long long max_run_mb;               /* what the inputs read at once (-j) hold together (0: as one input) */
    unsigned timeout_s;                          /* per-input time bound (0 = none) */
    const char *output_dir;                      /* --split --output-dir DIR: the shipped copies */
    int in_place;                                /* --split --in-place: each FILE rewritten itself */
    int split_device_only;                       /* --split --device-only: host DWARF stays */
    const char *keygen;                          /* --keygen NAME: writes NAME and NAME.pub */
    const char *signing_key;                     /* --attest --signing-key FILE */
    const char *public_key;                      /* --verify-attestation --public-key FILE */
    const char *record_key;                      /* --attest --record-key FILE: checks the records' MACs */
    const char *attestation;                     /* --verify-attestation FILE.intoto.jsonl */
    const char *require;                         /* --require one-toolchain,line-info,...: attest/policy.h */
    const char **toolchains; size_t ntoolchains; /* --toolchain DRIVER (repeatable): resolved by trueline-cc */
    const char *self_exe;                        /* this executable: trueline-cc is looked for beside it */
};

#endif
