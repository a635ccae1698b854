/* wrapper/fingerprint/memo_file.c: the memo file as the writer builds it (header, index record, records) and lookups
 * through its index: every key found with its last record's value, absent keys not found, and an index that
 * does not fit the file (edited, truncated, damaged) refused so that the reader falls back to every record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../wrapper/fingerprint/memo_file.h"
#include "unit.h"

#define N 3000

static char keys[N][64], vals[N][48];

static char *build(int n, size_t *len)
{
    static tlcc_memo_rec recs[N + 1];
    for (int i = 0; i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "f:/opt/tc%d/lib/lib%d.so:fe00:%x", i % 7, i, 0x1000 + i);
        snprintf(vals[i], sizeof vals[i], "%032x", i * 7919);
        recs[i] = (tlcc_memo_rec){ keys[i], vals[i], strlen(keys[i]), strlen(vals[i]), NULL };
    }
    recs[n] = (tlcc_memo_rec){ keys[1], "again", strlen(keys[1]), 5, NULL }; /* a later record of a key wins */
    return tlcc_memo_file_build(recs, n + 1, len);
}

static int find(const tlcc_memo_index *ix, const char *map, size_t len, const char *key, const char *want)
{
    tlcc_memo_rec r;
    if (tlcc_memo_index_find(ix, map, len, key, strlen(key), &r) != 0)
        return want == NULL;
    return want && r.vlen == strlen(want) && memcmp(r.val, want, r.vlen) == 0;
}

/* The file the cases read: N records and a later one of keys[1]; first is its index record. NULL: the writer
 * failed (said as a failed check). */
static char *built(size_t *len, tlcc_memo_rec *first)
{
    char *f = build(N, len);
    UNIT_CHECK("the writer builds a file", f != NULL);
    if (f && first)
        UNIT_CHECK("its first record is the index", tlcc_memo_rec_at(f + strlen(TLCC_MEMO_HEADER), f + *len, first) == 0 &&
                                                        tlcc_memo_rec_is_index(first));
    return f;
}

static void writer_layout(void)
{
    size_t len;
    tlcc_memo_rec first;
    char *f = built(&len, &first);
    if (!f)
        return;
    UNIT_CHECK("it starts with the header", strncmp(f, TLCC_MEMO_HEADER, strlen(TLCC_MEMO_HEADER)) == 0);
    int records = 0;
    tlcc_memo_rec r;
    for (const char *p = first.next; p < f + len && tlcc_memo_rec_at(p, f + len, &r) == 0; p = r.next)
        records++;
    UNIT_CHECK("every record follows it, in order", records == N + 1);
    free(f);
}

static void index_lookups(void)
{
    size_t len;
    char *f = built(&len, NULL);
    if (!f)
        return;
    tlcc_memo_index ix;
    UNIT_CHECK("the index opens", tlcc_memo_index_open(f, len, &ix) == 0 && ix.buckets >= 2 * (N + 1));
    int all = 1;
    for (int i = 0; i < N; i++)
        all &= find(&ix, f, len, keys[i], i == 1 ? "again" : vals[i]);
    UNIT_CHECK("every key is found through it, with its last record's value", all);
    UNIT_CHECK("an absent key is not found", find(&ix, f, len, "f:/nowhere", NULL));
    UNIT_CHECK("a prefix of a key is not found", find(&ix, f, len, "f:/opt/tc0", NULL));
    free(f);
}

static void index_refused(void)
{
    size_t len;
    tlcc_memo_rec first;
    char *f = built(&len, &first);
    if (!f)
        return;
    tlcc_memo_index ix;
    UNIT_CHECK("a shorter file (truncated, edited) does not use it", tlcc_memo_index_open(f, len - 1, &ix) != 0);
    char *g = malloc(len + 16);
    memcpy(g, f, len);
    memcpy(g + len, "3:1:abc\tx\n", 10);
    UNIT_CHECK("nor does a longer one (a record appended)", tlcc_memo_index_open(g, len + 10, &ix) != 0);
    memcpy(g, f, len);
    char *digits = g + (first.val - f) + 8;
    digits[7] = digits[7] == '0' ? '1' : '0';
    UNIT_CHECK("a bucket count that is not the table's is refused", tlcc_memo_index_open(g, len, &ix) != 0);
    memcpy(g, f, len);
    g[(first.val - f) + 3] = 'G';
    UNIT_CHECK("a length that is not hex is refused", tlcc_memo_index_open(g, len, &ix) != 0);
    free(g);
    free(f);
}

/* a bucket pointing into the middle of a record: the lookup is a miss, never a wrong record */
static void mid_record_buckets(void)
{
    size_t len;
    char *g = built(&len, NULL);
    if (!g)
        return;
    tlcc_memo_index ix;
    UNIT_CHECK("the index opens", tlcc_memo_index_open(g, len, &ix) == 0);
    for (size_t b = 0; b < ix.buckets; b++)
        if (memcmp(ix.table + 8 * b, "00000000", 8) != 0)
            memcpy((char *)ix.table + 8 * b, "00000021", 8);
    int none = 1;
    for (int i = 0; i < 50; i++)
        none &= find(&ix, g, len, keys[i], NULL);
    UNIT_CHECK("buckets pointing mid-record find nothing", none);
    free(g);
}

static void empty_memo(void)
{
    size_t elen;
    tlcc_memo_index ix;
    char *empty = tlcc_memo_file_build(NULL, 0, &elen);
    UNIT_CHECK("an empty memo has an index with no records",
               empty && tlcc_memo_index_open(empty, elen, &ix) == 0 && find(&ix, empty, elen, "f:/opt/tc0/lib/lib0.so:fe00:1000", NULL));
    free(empty);
}

UNIT_MAIN(UNIT_CASE(writer_layout), UNIT_CASE(index_lookups), UNIT_CASE(index_refused), UNIT_CASE(mid_record_buckets),
          UNIT_CASE(empty_memo))
