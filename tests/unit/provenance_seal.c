/* The sealed record: "ch" (content digest) and "mac" placeholders in the encoding, locating fields in an
 * encoded record with bad lengths, what the MAC covers on the decoding side (and that a field after "mac"
 * leaves it unverifiable), the MAC itself against RFC 4231's HMAC-SHA512 test vector, the digest's range
 * checks, key files, and tlcc_stamp_sealed on a gcc object: the digest it writes is the XXH3-128 of the file's
 * bytes with the note section (its place taken from readelf) cut out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trueline/note.h"
#include "unit.h"
#include "trueline/content_digest.h"
#include "../../wrapper/provenance/stamp.h"

static char *argv_fixture[] = { "-c", "-O2", "k.c", "-o", "k.o", NULL };

static tl_note sample(void)
{
    tl_note n = { 0 };
    n.type = TL_NOTE_COMPILE;
    n.wrapper_version = "0.1.0";
    n.family = "gcc";
    n.fingerprint = "00112233445566778899aabbccddeeff";
    n.argv_hash = "ffeeddccbbaa99887766554433221100";
    n.source = "k.c";
    n.cwd = "/tmp/x";
    n.argv = argv_fixture;
    n.argc = 5;
    return n;
}

struct got { tl_note *v[2]; int n; };
static void keep(tl_note *n, void *ctx)
{
    struct got *g = ctx;
    if (g->n < 2)
        g->v[g->n++] = n;
    else {
        tl_note_free(n);
        free(n);
    }
}

static void drop(struct got *g)
{
    for (int i = 0; i < g->n; i++) {
        tl_note_free(g->v[i]);
        free(g->v[i]);
    }
    g->n = 0;
}

static void placeholders(void)
{
    tl_note n = sample();
    n.seal_content = n.seal_mac = 1;
    unsigned char *rec;
    size_t len, off, vlen, doff, dn;
    tl_error err;
    UNIT_CHECK("encode with placeholders", tl_note_encode(&n, 4096, &rec, &len, &err) == 0);
    UNIT_CHECK("ch placeholder: 32 zeros", tl_note_field(rec, len, "ch", &off, &vlen) == 0 && vlen == 32 &&
                                               strspn((char *)rec + off, "0") == 32);
    UNIT_CHECK("mac placeholder: 64 zeros, the last field",
               tl_note_field(rec, len, "mac", &off, &vlen) == 0 && vlen == TL_NOTE_MAC_HEX_LEN &&
                   strspn((char *)rec + off, "0") == 64 && off + vlen + 1 + 3 >= len);
    UNIT_CHECK("mac span ends where \"mac=\" starts", tl_note_mac_span(rec, len, &doff, &dn) == 0 &&
                                                         doff + dn + 4 == off && memcmp(rec + doff + dn, "mac=", 4) == 0);
    UNIT_CHECK("a key the record lacks", tl_note_field(rec, len, "nope", &off, &vlen) == -1);
    UNIT_CHECK("a key prefix is no match", tl_note_field(rec, len, "m", &off, &vlen) == -1);
    /* bad lengths: too short for the header, a descsz past the end, another owner */
    UNIT_CHECK("field: record shorter than its header", tl_note_field(rec, 20, "ch", &off, &vlen) == -1);
    UNIT_CHECK("field: zero bytes", tl_note_field(rec, 0, "ch", &off, &vlen) == -1);
    UNIT_CHECK("field: desc cut short", tl_note_field(rec, len - 8, "mac", &off, &vlen) == -1);
    unsigned char *bad = malloc(len);
    memcpy(bad, rec, len);
    uint32_t huge = 0xfffffff0u;
    memcpy(bad + 4, &huge, 4);
    UNIT_CHECK("field: descsz past the record", tl_note_field(bad, len, "ch", &off, &vlen) == -1 &&
                                                     tl_note_mac_span(bad, len, &doff, &dn) == -1);
    memcpy(bad, rec, len);
    bad[12] = 'X'; /* owner "Xrueline" */
    UNIT_CHECK("field: another owner's note", tl_note_field(bad, len, "ch", &off, &vlen) == -1);
    /* a desc without a terminating NUL in its last string */
    memcpy(bad, rec, len);
    memset(bad + len - 4, 'z', 4);
    struct got g = { { 0 }, 0 };
    UNIT_CHECK("decode: unterminated desc refused", tl_note_decode_all(bad, len, 0, keep, &g, &err) == -1);
    drop(&g);
    free(bad);

    /* decoding: what the MAC covers is the type (little-endian) and the desc before "mac=" */
    UNIT_CHECK("decode sealed record", tl_note_decode_all(rec, len, 0, keep, &g, &err) == 1);
    tl_note *d = g.n ? g.v[0] : NULL;
    UNIT_CHECK("decoded ch and mac", d && d->content_hash && strlen(d->content_hash) == 32 && d->mac &&
                                         strlen(d->mac) == 64);
    UNIT_CHECK("decoded MAC input = type + desc before mac=",
               d && d->mac_input && d->mac_input_len == dn + 4 && d->mac_input[0] == TL_NOTE_COMPILE &&
                   d->mac_input[1] == 0 && memcmp(d->mac_input + 4, rec + doff, dn) == 0);
    drop(&g);

    /* a field after "mac": covered by nothing, so no MAC input (never verifies) */
    size_t tail_len = len + 8;
    unsigned char *tail = calloc(1, tail_len);
    memcpy(tail, rec, len);
    uint32_t descsz;
    memcpy(&descsz, tail + 4, 4);
    memcpy(tail + 24 + descsz, "cl=1\0\0\0", 8);
    descsz += 8;
    memcpy(tail + 4, &descsz, 4);
    UNIT_CHECK("decode record with a field after mac", tl_note_decode_all(tail, tail_len, 0, keep, &g, &err) == 1);
    UNIT_CHECK("a field after mac: no MAC input", g.n == 1 && g.v[0]->mac && !g.v[0]->mac_input);
    unsigned char k16[16] = "0123456789abcdef";
    tlcc_mac_key key = { k16, sizeof k16 };
    UNIT_CHECK("a field after mac: the MAC never verifies", g.n == 1 && !tlcc_mac_note_ok(&key, g.v[0]));
    drop(&g);
    free(tail);
    free(rec);
}

static void mac(void)
{
    /* RFC 4231 test case 2: HMAC-SHA512("Jefe", "what do ya want for nothing?"), its first 32 bytes */
    tlcc_mac_key k = { (unsigned char *)"Jefe", 4 };
    char hex[TL_NOTE_MAC_HEX_LEN + 1];
    const char *msg = "what do ya want for nothing?";
#ifdef TL_HAVE_SODIUM
    UNIT_CHECK("MAC computed", tlcc_mac_hex(&k, msg, 10, msg + 10, strlen(msg) - 10, hex) == 0);
    UNIT_STREQ("MAC = HMAC-SHA512-256 (RFC 4231 case 2, two parts)", hex,
               "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554");
    /* a record with a right MAC verifies; one hex digit off does not; a short MAC does not */
    tl_note n = sample();
    n.seal_content = 1;
    n.mac = hex;
    unsigned char *rec;
    size_t len, doff, dn;
    tl_error err;
    tl_note_encode(&n, 4096, &rec, &len, &err);
    tl_note_mac_span(rec, len, &doff, &dn);
    unsigned char type_le[4] = { TL_NOTE_COMPILE, 0, 0, 0 };
    tlcc_mac_hex(&k, type_le, 4, rec + doff, dn, hex); /* the right MAC for this record */
    free(rec);
    tl_note_encode(&n, 4096, &rec, &len, &err);
    struct got g = { { 0 }, 0 };
    tl_note_decode_all(rec, len, 0, keep, &g, &err);
    UNIT_CHECK("right MAC verifies", g.n == 1 && tlcc_mac_note_ok(&k, g.v[0]));
    tlcc_mac_key other = { (unsigned char *)"Jeff", 4 };
    UNIT_CHECK("another key does not", g.n == 1 && !tlcc_mac_note_ok(&other, g.v[0]));
    g.v[0]->mac[10] ^= 1;
    UNIT_CHECK("a changed digit does not", g.n == 1 && !tlcc_mac_note_ok(&k, g.v[0]));
    g.v[0]->mac[10] = 0;
    UNIT_CHECK("a short MAC does not", g.n == 1 && !tlcc_mac_note_ok(&k, g.v[0]));
    drop(&g);
    free(rec);
#else
    UNIT_CHECK("without libsodium: no MAC", tlcc_mac_hex(&k, msg, strlen(msg), NULL, 0, hex) == -1);
#endif
}

static void digest(void)
{
    char hex[TL_HASH_HEX_LEN + 1], want[TL_HASH_HEX_LEN + 1];
    const unsigned char f[] = "abcXYZdef";
    tl_hash_hex(tl_hash_bytes("abcdef", 6), want);
    UNIT_CHECK("digest leaves the range out", tl_content_digest(f, 9, 3, 3, hex) == 0 && strcmp(hex, want) == 0);
    UNIT_CHECK("digest: range past the end", tl_content_digest(f, 9, 7, 3, hex) == -1);
    UNIT_CHECK("digest: offset past the end", tl_content_digest(f, 9, 10, 0, hex) == -1);
    UNIT_CHECK("digest: length that wraps", tl_content_digest(f, 9, 3, UINT64_MAX - 1, hex) == -1);
    tl_hash_hex(tl_hash_bytes("abcXYZdef", 9), want);
    UNIT_CHECK("digest: empty range = whole file", tl_content_digest(f, 9, 9, 0, hex) == 0 && strcmp(hex, want) == 0);
}

static void keys_in(const char *dir)
{
    char path[512];
    tlcc_mac_key k;
    tl_error err;
    snprintf(path, sizeof path, "%s/none", dir);
    UNIT_CHECK("missing key file refused, named", tlcc_mac_key_load(path, &k, &err) == -1 && strstr(err.msg, path));
    snprintf(path, sizeof path, "%s/short", dir);
    FILE *f = fopen(path, "w");
    fputs("0123456789", f);
    fclose(f);
    UNIT_CHECK("10-byte key refused", tlcc_mac_key_load(path, &k, &err) == -1 && strstr(err.msg, "16 to 4096"));
#ifdef TL_HAVE_SODIUM
    snprintf(path, sizeof path, "%s/good", dir);
    f = fopen(path, "w");
    fputs("0123456789abcdef0123456789abcdef\n", f);
    fclose(f);
    UNIT_CHECK("33-byte key loaded as is", tlcc_mac_key_load(path, &k, &err) == 0 && k.len == 33);
    tlcc_mac_key_free(&k);
    UNIT_CHECK("key freed", k.bytes == NULL && k.len == 0);
#endif
}

/* tlcc_stamp_sealed on a real object: ch = XXH3-128 of the file with the section readelf names cut out */
static void sealed_object_in(const char *dir)
{
    char cmd[2048], obj[512];
    snprintf(obj, sizeof obj, "%s/k.o", dir);
    snprintf(cmd, sizeof cmd, "cd %s && printf 'int k(int x) { return x * 7; }\\n' > k.c && gcc -O2 -c k.c -o k.o", dir);
    if (system(cmd) != 0) {
        UNIT_SKIP("gcc not usable");
    }
    tl_note n = sample();
    n.seal_content = 1;
    unsigned char *rec;
    size_t len;
    tl_error err;
    tl_note_encode(&n, 4096, &rec, &len, &err);
    UNIT_CHECK("stamp sealed", tlcc_stamp_sealed(obj, rec, len, NULL, &err) == 0);
    free(rec);
    snprintf(cmd, sizeof cmd, "readelf -SW %s | awk '$2==\".note.trueline\" {print $5, $6}'", obj);
    FILE *p = popen(cmd, "r");
    unsigned long off = 0, size = 0;
    int got = p && fscanf(p, "%lx %lx", &off, &size) == 2;
    if (p)
        pclose(p);
    UNIT_CHECK("readelf names the section", got && size > 0);
    FILE *f = fopen(obj, "rb");
    unsigned char *file = malloc(1 << 20);
    size_t flen = f ? fread(file, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    char want[TL_HASH_HEX_LEN + 1] = "";
    if (got && off + size <= flen) {
        unsigned char *cut = malloc(flen);
        memcpy(cut, file, off);
        memcpy(cut + off, file + off + size, flen - off - size);
        tl_hash_hex(tl_hash_bytes(cut, flen - size), want);
        free(cut);
    }
    struct got g = { { 0 }, 0 };
    if (got && off + size <= flen)
        tl_note_decode_all(file + off, size, 0, keep, &g, &err);
    UNIT_STREQ("ch = digest of the file without the note", g.n ? g.v[0]->content_hash : NULL, want);
    drop(&g);
    free(file);
}

/* Runs fn in a fresh directory, removed after. */
static void in_tmpdir(void (*fn)(const char *dir))
{
    char dir[] = "/tmp/tl-seal-XXXXXX";
    UNIT_CHECK("a temporary directory", mkdtemp(dir) != NULL);
    if (unit_now.failed)
        return;
    fn(dir);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    UNIT_CHECK("the temporary directory removed", system(cmd) == 0);
}

static void keys(void)
{
    in_tmpdir(keys_in);
}

static void sealed_object(void)
{
    in_tmpdir(sealed_object_in);
}

UNIT_MAIN(UNIT_CASE(placeholders), UNIT_CASE(mac), UNIT_CASE(digest), UNIT_CASE(keys), UNIT_CASE(sealed_object))
