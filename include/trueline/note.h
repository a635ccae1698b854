/* The provenance record `.note.trueline`: one ELF note per compile (or link) that trueline-cc ran.
 * The wrapper encodes it, the checker decodes it; the format is documented in docs/provenance-note.md.
 *
 * Section: SHT_NOTE, flags 0 (never loaded: no run-time cost), sh_addralign 4. Each record is a standard
 * ELF note: namesz, descsz, type (4-byte words in the file's byte order), name "trueline\0", desc padded
 * to 4. The linker concatenates the sections of all inputs, so a linked artifact holds one record per
 * object. The desc is a sequence of NUL-terminated "key=value" strings; the first is "v=<format>".
 * Decoders ignore keys they do not know; an incompatible change bumps the format. */
#ifndef TRUELINE_NOTE_H
#define TRUELINE_NOTE_H
#include <stddef.h>

#include "trueline/diag.h"
#include "trueline/hash.h"

#define TL_NOTE_SECTION ".note.trueline"
#define TL_NOTE_NAME "trueline"
#define TL_NOTE_FORMAT 1
enum { TL_NOTE_COMPILE = 1, TL_NOTE_LINK = 2 };
/* Bytes of argv recorded by default; longer argvs are cut at an element boundary and marked truncated. */
#define TL_NOTE_ARGV_MAX_DEFAULT 4096

typedef struct tl_note {
    unsigned type;            /* TL_NOTE_COMPILE or TL_NOTE_LINK */
    unsigned format;          /* "v" */
    char *wrapper_version;    /* "wv": trueline-cc version */
    char *family;             /* "fam": gcc, clang, nvcc, other */
    char *driver;             /* "drv": basename of the real compiler (g++, gcc-12, nvcc, clang++) */
    char *compiler_version;   /* "cv": first line of `COMPILER --version` */
    char *fingerprint;        /* "fp": toolchain fingerprint, 32 hex digits */
    char *argv_hash;          /* "ah": tl_note_argv_hash of the effective argv, 32 hex digits */
    char *key_hash;           /* "kh": hash of the effective argv as the cache keys it (cached compiles only) */
    char *key_hash_pp;        /* "kp": the same without what the preprocessor reads (-D, -I, -include ...), which a
                               * cache keys by the preprocessed text instead (gcc and clang compiles only) */
    char *lineinfo_level;     /* "li": forced line-info flags ("-lineinfo -g1"), "" when none were forced */
    char *source;             /* "src": the source file as named on the command line; NULL for links */
    char *cwd;                /* "cwd": working directory of the compile (resolves a relative src) */
    char *output;             /* "out": the output as named (links only: compiles are renamed by caches) */
    int lineinfo_forced;      /* "lf": 1 when trueline-cc added line-info flags */
    int device_debug;         /* "G": 1 when -G (device debug) is in the effective argv */
    char **argv;              /* "a" keys in order: the effective argv, possibly cut */
    int argc;                 /* elements recorded in argv */
    int argc_total;           /* "argc": elements in the effective argv (argc < argc_total: cut or left out) */
    int argv_omitted;         /* "ao": argv left out by configuration */
    int at_link;              /* "cl": compile record written into a compile-and-link output (no object was kept) */
    /* "fe" keys in order, one per environment variable trueline-cc folded into the effective argv
     * (NVCC_PREPEND_FLAGS, NVCC_APPEND_FLAGS, CCC_OVERRIDE_OPTIONS): "NAME=VALUE" as the variable was set.
     * Written with the argv (left out with it); older decoders skip the key. */
    char **folded_env;
    int nfolded_env;
    char *content_hash;       /* "ch": digest of the object's bytes outside `.note.trueline`, 32 hex digits */
    char *mac;                /* "mac": MAC of the record (TL_NOTE_MAC_HEX_LEN hex digits), written last */
    /* Decoded records only, when they carry "mac": the bytes the MAC covers (tl_note_mac_input) */
    unsigned char *mac_input;
    size_t mac_input_len;
    /* Encoding only: write "ch" (and "mac" when seal_mac) as placeholders of zeros, filled in by
     * tl_note_seal once the object is stamped (wrapper/provenance/stamp.c) */
    int seal_content, seal_mac;
} tl_note;

/* The MAC's length in hex digits (HMAC-SHA512-256: 32 bytes). */
#define TL_NOTE_MAC_HEX_LEN 64
/* Where one field's value lies in one encoded record (tl_note_encode's output, host byte order): its offset
 * from rec and its length. 0 when found, -1 when the record is malformed or lacks the key. */
int tl_note_field(const unsigned char *rec, size_t len, const char *key, size_t *off, size_t *vlen);
/* What a record's MAC covers: the note type as 4 little-endian bytes, then the desc up to (not including)
 * the "mac=" string. Every field but the MAC itself, the content digest "ch" included. In one encoded
 * record: *prefix = the desc's offset in rec, *n = bytes of desc covered. -1 when it has no "mac". */
int tl_note_mac_span(const unsigned char *rec, size_t len, size_t *desc_off, size_t *n);

/* Hash of an effective argv (without argv[0]) for the record and for cache-hit verification. The output
 * operand (-o X, -oX, -o=X, --output-file[=]X) is left out: caches key without it and hand one object to
 * any output name, and it does not change the object. Length-prefixed elements (XXH3-128). */
tl_hash128 tl_note_argv_hash(char *const *argv, int argc);
/* The output named by one joined argument (-oX, -o=X, --output-file=X), NULL when it is none (nvcc's
 * -odir/-optf start with -o too). */
const char *tl_note_joined_output(const char *arg);

/* Encodes one complete note record (header, name, desc, padding) in host byte order. argv_max bounds the
 * bytes of argv recorded (0: argv left out). *out is malloc'ed. */
int tl_note_encode(const tl_note *n, size_t argv_max, unsigned char **out, size_t *len, tl_error *err);

/* Decodes every trueline record of a note section's bytes (other owners' records are skipped), calling
 * fn with each (fn takes ownership; free it with tl_note_free). big_endian: the file's byte order.
 * Returns the number of records, or -1 with err set for a malformed section (records before the damage
 * were delivered). */
int tl_note_decode_all(const void *data, size_t len, int big_endian, void (*fn)(tl_note *n, void *ctx),
                       void *ctx, tl_error *err);

void tl_note_free(tl_note *n);

#endif
