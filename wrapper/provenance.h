/* Provenance on the wrapper side: stamping objects with `.note.trueline` (stamp.c), the stamping stage
 * that ccache/sccache run as "the compiler" (stage.c), and cache-hit verification with its statistics
 * (verify.c). Record format: include/trueline/note.h. */
#ifndef TLCC_WRAPPER_PROVENANCE_H
#define TLCC_WRAPPER_PROVENANCE_H
#include <stddef.h>
#include <stdint.h>

#include "trueline/diag.h"
#include "trueline/note.h"

/* Appends the record for n to path's `.note.trueline` (created when absent). Existing bytes keep their
 * offsets, so it is safe for objects, shared objects and executables. */
int tlcc_stamp_file(const char *path, const tl_note *n, size_t argv_max, tl_error *err);
/* The same with an already encoded record (tl_note_encode). */
int tlcc_stamp_record(const char *path, const unsigned char *rec, size_t rec_len, tl_error *err);

/* Stamps a compile record encoded with placeholders (seal_content, seal_mac) and then fills them in place:
 * the content digest of the stamped file, and the MAC with key (NULL: no MAC placeholder expected). */
typedef struct tlcc_mac_key {
    unsigned char *bytes;
    size_t len;
} tlcc_mac_key;
int tlcc_stamp_sealed(const char *path, const unsigned char *rec, size_t rec_len, const tlcc_mac_key *key,
                    tl_error *err);

/* The content digest (content_digest.c): XXH3-128 of file's bytes leaving out [skip_off, skip_off+skip_len),
 * as 32 hex digits; -1 when the range is not inside the file. */
int tlcc_content_digest(const unsigned char *file, size_t size, uint64_t skip_off, uint64_t skip_len,
                      char hex[TL_HASH_HEX_LEN + 1]);
struct Elf;
/* The number of `.note.trueline` sections (-1: no name table); the first one's offset and size. */
int tlcc_record_sections(struct Elf *elf, uint64_t *off, uint64_t *size);
/* The digest of an object opened with libelf whose one record section is left out; -1 when it has not
 * exactly one. */
int tlcc_object_content_digest(struct Elf *elf, char hex[TL_HASH_HEX_LEN + 1]);

/* Record MACs (provenance_mac.c, libsodium). The key is the key file's bytes (16 to 4096). */
int tlcc_mac_key_load(const char *path, tlcc_mac_key *k, tl_error *err);
void tlcc_mac_key_free(tlcc_mac_key *k);
/* HMAC-SHA512-256 of a then b, as TL_NOTE_MAC_HEX_LEN hex digits; -1 without MAC support. */
int tlcc_mac_hex(const tlcc_mac_key *k, const void *a, size_t alen, const void *b, size_t blen,
               char hex[TL_NOTE_MAC_HEX_LEN + 1]);
/* 1 when the decoded record's MAC verifies with key (a tlcc_mac_key): the MAC is present, last, and right. */
int tlcc_mac_note_ok(void *key, const tl_note *n);

/* Cache-hit verification of one object against what this invocation expects. */
/* NOT_HOST: no host relocatable object there (a cubin, or nothing written): nothing to verify. */
enum tlcc_verify_status { TLCC_VERIFY_OK = 0, TLCC_VERIFY_NO_NOTE, TLCC_VERIFY_MISMATCH, TLCC_VERIFY_UNREADABLE,
                        TLCC_VERIFY_NOT_HOST };
typedef struct tlcc_verify_result {
    enum tlcc_verify_status status;
    int unbound; /* OK, but the record has no content digest (written before records had one) */
    char what[1024]; /* for anything but OK: exactly what differs or what is missing */
} tlcc_verify_result;
/* What a cached object's record must match. key_hash: the hash of the effective argv as the cache keys it
 * (verify_key.c), compared with the record's `kh`; a record written before it had one is compared by its
 * `ah` with argv_hash. argv (argc elements) and key: this invocation's effective argv and how the cache
 * normalizes it, to name the differing elements (argv NULL: only decide, as the hook in ccache does). */
struct tlcc_key_ctx;
typedef struct tlcc_verify_expect {
    const char *fingerprint, *argv_hash, *key_hash;
    char *const *argv;
    int argc;
    struct tlcc_key_ctx *key;
    /* tlcc_key_vector (verify_key.h), handed in so that the hook, which never names differences, links
     * none of it */
    char **(*key_vector)(struct tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int *n);
    /* A key is configured: tlcc_mac_note_ok with mac_key, handed in so that the hook links no libsodium
     * (NULL: records are not required to carry a MAC) */
    int (*mac_ok)(void *mac_key, const tl_note *n);
    void *mac_key;
} tlcc_verify_expect;
void tlcc_verify_object(const char *path, const tlcc_verify_expect *e, tlcc_verify_result *r);
/* The decision from raw `.note.trueline` section bytes (record_check.c): add every such section of the
 * object (-1 when one is damaged: r says so), then end, which decides (unless decided already) and frees. */
typedef struct tlcc_record_check {
    tl_note *compile; /* the first compile record */
    int ncompile;
    /* The object's content digest, set by the reader (empty: it could not be computed, e.g. not exactly
     * one record section) */
    char content[TL_HASH_HEX_LEN + 1];
} tlcc_record_check;
int tlcc_record_check_add(tlcc_record_check *c, const void *sec, size_t len, int big_endian, tlcc_verify_result *r);
void tlcc_record_check_end(tlcc_record_check *c, int decided, const tlcc_verify_expect *e, tlcc_verify_result *r);

/* Statistics kept in $XDG_CACHE_HOME/trueline/provenance-stats/ (one append-only file per counter: a
 * lost update is impossible, a failed update is silently skipped: statistics never fail a build). */
enum tlcc_stat { TLCC_STAT_VERIFIED, TLCC_STAT_MISMATCH, TLCC_STAT_NO_NOTE, TLCC_STAT_RECOMPILED, TLCC_STAT_STAMPED,
               TLCC_STAT_UNBOUND, TLCC_STAT_N };
void tlcc_stats_add(enum tlcc_stat which, int delta);
/* Prints the `ccache -s`-like lines; returns 0. */
int tlcc_stats_print(void);
void tlcc_stats_zero(void);

/* The stamping stage. tlcc_stage_is_stage: argv[0] lies in the private stage directory and the stage
 * environment is present. tlcc_stage_main runs the real compiler, then stamps the object it wrote. */
#define TLCC_STAGE_ENV_REAL "TRUELINE_STAGE_REAL"
#define TLCC_STAGE_ENV_NOTE "TRUELINE_STAGE_NOTE"
#define TLCC_STAGE_ENV_ARGV_MAX "TRUELINE_STAGE_ARGV_MAX"
#define TLCC_STAGE_ENV_KEY_FILE "TRUELINE_STAGE_KEY_FILE" /* the key file's path (never the key itself) */
int tlcc_stage_is_stage(const char *argv0);
int tlcc_stage_main(int argc, char **argv);
/* Path of the stage entry named like the real compiler (created on first use: a symlink to this
 * trueline-cc in $XDG_CACHE_HOME/trueline/stage/). NULL with err set when it cannot be made. */
char *tlcc_stage_path(const char *real_compiler, tl_error *err);
/* Hex of an encoded record, for TLCC_STAGE_ENV_NOTE (malloc'ed). */
char *tlcc_stage_note_env(const tl_note *n, size_t argv_max, tl_error *err);

/* Output operand of an argv (without argv[0]): the value of the last -o, NULL when none. */
const char *tlcc_prov_output(char *const *argv, int argc);
/* Whether path is a host relocatable object that should carry a record (ELF ET_REL, not a cubin). */
int tlcc_prov_is_host_object(const char *path);

/* The run step's hooks (provenance.c; run.c calls them). */
struct tlcc_invocation;
struct tl_config;
/* Hands over main's configuration: the [provenance] settings are read from it once. -1 with err naming
 * the key, where it was set and the valid values when one is not valid (it then takes its default). */
int tlcc_prov_set_config(const struct tl_config *cfg, tl_error *err);
/* The compiler the cache should run: the stamping stage for -c compiles, else the real compiler. */
const char *tlcc_prov_compiler_for(const struct tlcc_invocation *inv);
/* Sets the stage's variables (after tlcc_prov_compiler_for chose the stage). */
void tlcc_prov_prepare_env(const struct tlcc_invocation *inv);
/* Whether the configuration stamps provenance at all (the compiler's version is then recorded). */
int tlcc_prov_stamps(void);
/* Whether the compile needs the wrapper after it ends (stamp, verify, link record) instead of exec. */
int tlcc_prov_wanted(const struct tlcc_invocation *inv);
/* For a compile the wrapper would wait for only to verify the cache hit: arms the hook that verifies in
 * ccache's own process (verify_in_cache.c) and returns 0, so the wrapper can exec the cache; -1 to wait. */
int tlcc_prov_verify_in_cache(const struct tlcc_invocation *inv);
/* Whether the configuration lets a hit of this cache be verified in ccache's process at all (the probe that
 * looks at ccache's loader runs only then: a warm run with stamping off has no use for it). */
int tlcc_prov_may_verify_in_cache(const struct tlcc_invocation *inv);
/* trueline-cc --trueline-hook-fixup OUT FP ARGV_HASH CACHE-ARGV...: the hook found the object wrong;
 * report and repair it as the waiting wrapper does, then exit with the result (argv: after the option). */
int tlcc_prov_fixup(int argc, char **argv);
/* Runs argv (the cache command or the compiler), then stamps/verifies; returns a wait status. */
int tlcc_prov_run(const struct tlcc_invocation *inv, char *const argv[]);

#endif
