#include "fingerprint/memo_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_KEY_LEN (sizeof TLCC_MEMO_INDEX_KEY - 1)
#define HEX8 8 /* digits of each number in the index */

/* A record length: up to 8 lowercase hex digits ending at stop. The position after stop, or NULL. */
static const char *get_len(const char *p, const char *end, char stop, size_t *out)
{
    size_t v = 0;
    int digits = 0;
    for (; p < end && *p != stop; p++, digits++) {
        unsigned c = (unsigned char)*p;
        unsigned d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 16;
        if (d == 16 || digits == 8)
            return NULL;
        v = v << 4 | d;
    }
    if (p == end || digits == 0)
        return NULL;
    *out = v;
    return p + 1;
}

int tlcc_memo_rec_at(const char *p, const char *end, tlcc_memo_rec *r)
{
    size_t kl, vl;
    const char *key = get_len(p, end, ':', &kl);
    key = key ? get_len(key, end, ':', &vl) : NULL;
    if (!key || kl == 0 || kl >= (size_t)(end - key) || vl >= (size_t)(end - key) - kl - 1 || key[kl] != '\t' ||
        key[kl + 1 + vl] != '\n')
        return -1;
    /* The writer's keys and values are C strings: a NUL is damage (a block of zeros a crash left), and a
     * value read through it would be cut short, dependencies and all. */
    if (memchr(key, 0, kl + 1 + vl))
        return -1;
    *r = (tlcc_memo_rec){ key, key + kl + 1, kl, vl, key + kl + 1 + vl + 1 };
    return 0;
}

int tlcc_memo_rec_is_index(const tlcc_memo_rec *r)
{
    return r->klen == INDEX_KEY_LEN && memcmp(r->key, TLCC_MEMO_INDEX_KEY, INDEX_KEY_LEN) == 0;
}

/* FNV-1a, 64 bits: part of the file format (a writer and a later reader must agree), so fixed here rather
 * than taken from a library whose output could change between versions. */
static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 0x100000001b3u;
    return h ^ h >> 32;
}

/* Exactly 8 lowercase hex digits; -1 when they are not. */
static long hex8(const char *s)
{
    unsigned long v = 0;
    for (int i = 0; i < HEX8; i++) {
        unsigned c = (unsigned char)s[i];
        unsigned d = c - '0' <= 9 ? c - '0' : c - 'a' <= 5 ? c - 'a' + 10 : 16;
        if (d == 16)
            return -1;
        v = v << 4 | d;
    }
    return (long)v;
}

int tlcc_memo_index_open(const char *map, size_t len, tlcc_memo_index *ix)
{
    size_t h = sizeof TLCC_MEMO_HEADER - 1;
    tlcc_memo_rec r;
    ix->table = NULL;
    if (len <= h || tlcc_memo_rec_at(map + h, map + len, &r) != 0 || !tlcc_memo_rec_is_index(&r) ||
        r.vlen < 2 * HEX8 || (r.vlen - 2 * HEX8) % HEX8 != 0)
        return -1;
    long flen = hex8(r.val), nb = hex8(r.val + HEX8);
    if (flen < 0 || (size_t)flen != len || nb <= 0 || (nb & (nb - 1)) != 0 || (size_t)nb != (r.vlen - 2 * HEX8) / HEX8)
        return -1;
    ix->table = r.val + 2 * HEX8;
    ix->buckets = (size_t)nb;
    return 0;
}

int tlcc_memo_index_find(const tlcc_memo_index *ix, const char *map, size_t len, const char *key, size_t klen,
                       tlcc_memo_rec *r)
{
    if (!ix->table)
        return -1;
    size_t mask = ix->buckets - 1, b = (size_t)key_hash(key, klen) & mask;
    for (size_t i = 0; i < ix->buckets; i++, b = (b + 1) & mask) {
        long off = hex8(ix->table + b * HEX8);
        /* every record follows the header's or the previous record's newline: an offset elsewhere is damage */
        if (off <= 0 || (size_t)off >= len || map[off - 1] != '\n' || tlcc_memo_rec_at(map + off, map + len, r) != 0)
            return -1; /* empty bucket: absent (a damaged one reads the same) */
        if (r->klen == klen && memcmp(r->key, key, klen) == 0)
            return 0;
    }
    return -1;
}

static size_t rec_len(size_t kl, size_t vl)
{
    char lens[40];
    return (size_t)snprintf(lens, sizeof lens, "%zx:%zx:", kl, vl) + kl + 1 + vl + 1;
}

static char *put_rec(char *o, const char *key, size_t kl, const char *val, size_t vl)
{
    o += sprintf(o, "%zx:%zx:", kl, vl);
    memcpy(o, key, kl);
    o[kl] = '\t';
    memcpy(o + kl + 1, val, vl);
    o[kl + 1 + vl] = '\n';
    return o + kl + 1 + vl + 1;
}

/* Puts record i (at offset off) in the table, over an earlier record of the same key: the last one wins, as
 * for a reader of every record. */
static void index_put(char *table, size_t buckets, const tlcc_memo_rec *recs, const size_t *offs, int i)
{
    size_t mask = buckets - 1, b = (size_t)key_hash(recs[i].key, recs[i].klen) & mask;
    for (;; b = (b + 1) & mask) {
        char *slot = table + b * HEX8;
        long at = hex8(slot);
        int j = -1;
        if (at > 0) /* which record is there: offsets are increasing, so a binary search finds it */
            for (int lo = 0, hi = i - 1; lo <= hi && j < 0;) {
                int mid = (lo + hi) / 2;
                if (offs[mid] == (size_t)at)
                    j = mid;
                else if (offs[mid] < (size_t)at)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
        if (at == 0 || (j >= 0 && recs[j].klen == recs[i].klen && memcmp(recs[j].key, recs[i].key, recs[i].klen) == 0)) {
            char digits[HEX8 + 1];
            snprintf(digits, sizeof digits, "%08zx", offs[i]);
            memcpy(slot, digits, HEX8);
            return;
        }
    }
}

char *tlcc_memo_file_build(const tlcc_memo_rec *recs, int n, size_t *len)
{
    size_t buckets = 16;
    while (buckets < 2 * (size_t)n) /* at most half full: probes stay short */
        buckets *= 2;
    size_t hdr = sizeof TLCC_MEMO_HEADER - 1, ivlen = (2 + buckets) * HEX8;
    size_t *offs = malloc(((size_t)n + 1) * sizeof *offs);
    if (!offs)
        return NULL;
    size_t total = hdr + rec_len(INDEX_KEY_LEN, ivlen);
    for (int i = 0; i < n; i++) {
        offs[i] = total;
        total += rec_len(recs[i].klen, recs[i].vlen);
    }
    char *out = malloc(total + 1), *ival = malloc(ivlen + 1);
    if (!out || !ival || total >= 0xffffffffu) {
        free(out), free(ival), free(offs);
        return NULL;
    }
    snprintf(ival, 2 * HEX8 + 1, "%08zx%08zx", total, buckets);
    memset(ival + 2 * HEX8, '0', buckets * HEX8);
    for (int i = 0; i < n; i++)
        index_put(ival + 2 * HEX8, buckets, recs, offs, i);
    char *o = out;
    memcpy(o, TLCC_MEMO_HEADER, hdr);
    o = put_rec(o + hdr, TLCC_MEMO_INDEX_KEY, INDEX_KEY_LEN, ival, ivlen);
    for (int i = 0; i < n; i++)
        o = put_rec(o, recs[i].key, recs[i].klen, recs[i].val, recs[i].vlen);
    free(ival);
    free(offs);
    *len = (size_t)(o - out);
    return out;
}
