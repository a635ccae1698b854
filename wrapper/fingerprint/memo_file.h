/* The memo file's format (one parser and one writer for it; wrapper/fingerprint/memo.c keeps the entries).
 *
 * "trueline-memo 2\n", then records "KLEN:VLEN:key\tvalue\n" with the lengths in hex (at most 8 digits), so a
 * reader steps from record to record without scanning the bytes between. A record whose lengths do not land
 * on its tab and newline, or that holds a NUL byte, ends the reading (a torn or foreign file): nothing after
 * it is trusted. Through the index, such a record, or an offset not at a record's start, reads as absent.
 *
 * The first record is an index (key "#index"), so a warm compile finds its few records without reading every
 * record of a file that grows with each toolchain, PATH and trueline-cc build it has seen (up to 4096
 * records): its value is the file's length and the number of buckets (8 hex digits each), then one 8-digit
 * offset per bucket (0: empty) of an open-addressing table over FNV-1a of the key, probed linearly. It is
 * used only when its length matches the file's; a reader that finds none, or a damaged one, reads every
 * record as before. Writers of the format before the index simply have none. */
#ifndef TLCC_WRAPPER_MEMO_FILE_H
#define TLCC_WRAPPER_MEMO_FILE_H
#include <stddef.h>

#define TLCC_MEMO_HEADER "trueline-memo 2\n"
#define TLCC_MEMO_INDEX_KEY "#index" /* reserved: never an entry's key */

typedef struct tlcc_memo_rec {
    const char *key, *val; /* in the file, not NUL-ended */
    size_t klen, vlen;
    const char *next; /* the byte after the record */
} tlcc_memo_rec;

/* The record at p (the file ends at end): 0 with *r, or -1 when it is malformed. */
int tlcc_memo_rec_at(const char *p, const char *end, tlcc_memo_rec *r);
/* Whether r is the index record. */
int tlcc_memo_rec_is_index(const tlcc_memo_rec *r);

typedef struct tlcc_memo_index {
    const char *table; /* NULL: none */
    size_t buckets;
} tlcc_memo_index;

/* The index of the len bytes at map (the whole file): 0 with *ix, or -1 when there is none or it does not
 * fit this file. */
int tlcc_memo_index_open(const char *map, size_t len, tlcc_memo_index *ix);
/* key's record through the index: 0 with *r, -1 when absent (or the index is damaged there). */
int tlcc_memo_index_find(const tlcc_memo_index *ix, const char *map, size_t len, const char *key, size_t klen,
                       tlcc_memo_rec *r);

/* The whole file for the n records in recs (their key, val, klen and vlen; keys unique, or the last one of a
 * key is the one the index finds): a malloc'd buffer of *len bytes, NULL when out of memory. */
char *tlcc_memo_file_build(const tlcc_memo_rec *recs, int n, size_t *len);

#endif
