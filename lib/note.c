/* .note.trueline encode/decode (format: include/trueline/note.h, docs/provenance-note.md).
 * Our own code because the format is ours; the ELF note framing is the standard one that readelf -n
 * and the linker understand (the linker concatenates same-named note sections record by record). */
#include "trueline/note.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tl_note_joined_output(const char *a)
{
    /* nvcc has options that merely start with -o: -odir, -optf (and clang -objcmt-*, -object) */
    static const char *const not_output[] = { "-odir", "-optf", "-obj", NULL };
    if (strncmp(a, "--output-file=", 14) == 0)
        return a + 14;
    if (strncmp(a, "-o", 2) != 0 || !a[2])
        return NULL;
    for (int i = 0; not_output[i]; i++)
        if (strncmp(a, not_output[i], strlen(not_output[i])) == 0)
            return NULL;
    return a[2] == '=' ? a + 3 : a + 2;
}

static const char *output_operand(char *const *argv, int argc, int i, int *skip)
{
    const char *a = argv[i];
    *skip = 0;
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output-file") == 0) {
        *skip = i + 1 < argc ? 2 : 1;
        return a;
    }
    if (tl_note_joined_output(a)) {
        *skip = 1;
        return a;
    }
    return NULL;
}

tl_hash128 tl_note_argv_hash(char *const *argv, int argc)
{
    tl_hasher *h = tl_hasher_new();
    for (int i = 0; i < argc; i++) {
        int skip;
        if (output_operand(argv, argc, i, &skip)) {
            i += skip - 1;
            continue;
        }
        tl_hasher_update_str(h, argv[i]);
    }
    return tl_hasher_final(h);
}

/* A growable byte buffer for the desc. */
struct buf {
    unsigned char *p;
    size_t n, cap;
    int oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 512;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void kv(struct buf *b, const char *key, const char *value)
{
    if (!value)
        return;
    put(b, key, strlen(key));
    put(b, "=", 1);
    put(b, value, strlen(value) + 1);
}

static void kv_int(struct buf *b, const char *key, long v)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", v);
    kv(b, key, s);
}

static void put_argv(struct buf *b, const tl_note *n, size_t argv_max)
{
    kv_int(b, "argc", n->argc);
    if (argv_max == 0) {
        kv(b, "ao", "1");
        return;
    }
    size_t used = 0;
    for (int i = 0; i < n->argc; i++) {
        size_t len = strlen(n->argv[i]) + 3; /* "a=" + NUL */
        if (used + len > argv_max)
            break; /* cut at an element boundary; argc says how many there were */
        kv(b, "a", n->argv[i]);
        used += len;
    }
}

int tl_note_encode(const tl_note *n, size_t argv_max, unsigned char **out, size_t *len, tl_error *err)
{
    struct buf d = { 0 };
    kv_int(&d, "v", TL_NOTE_FORMAT);
    kv(&d, "wv", n->wrapper_version);
    kv(&d, "fam", n->family);
    kv(&d, "drv", n->driver);
    kv(&d, "cv", n->compiler_version);
    kv(&d, "fp", n->fingerprint);
    kv(&d, "ah", n->argv_hash);
    kv(&d, "kh", n->key_hash); /* only when set: older decoders skip it */
    kv(&d, "kp", n->key_hash_pp);
    kv_int(&d, "lf", n->lineinfo_forced);
    kv(&d, "li", n->lineinfo_level ? n->lineinfo_level : "");
    kv_int(&d, "G", n->device_debug);
    kv(&d, "src", n->source);
    kv(&d, "cwd", n->cwd);
    kv(&d, "out", n->output);
    if (n->at_link) /* only when set: records of -c objects stay byte-identical to format 1 as first shipped */
        kv_int(&d, "cl", 1);
    put_argv(&d, n, argv_max);
    /* what the argv holds from the environment, with the argv: a configuration that leaves the argv out
     * leaves these values out too */
    for (int i = 0; argv_max && i < n->nfolded_env; i++)
        kv(&d, "fe", n->folded_env[i]);
    /* Last, so that the MAC covers every other field and its own placeholder is the end of the desc. */
    static const char zero_hex[TL_NOTE_MAC_HEX_LEN + 1] =
        "0000000000000000000000000000000000000000000000000000000000000000";
    if (n->seal_content || n->content_hash)
        kv(&d, "ch", n->content_hash ? n->content_hash : zero_hex + TL_NOTE_MAC_HEX_LEN - TL_HASH_HEX_LEN);
    if (n->seal_mac || n->mac)
        kv(&d, "mac", n->mac ? n->mac : zero_hex);
    static const char zeros[4];
    put(&d, zeros, (4 - d.n % 4) % 4);
    if (d.oom || d.n > UINT32_MAX) {
        free(d.p);
        return tl_fail(err, "provenance note: out of memory");
    }
    struct buf r = { 0 };
    uint32_t hdr[3] = { sizeof TL_NOTE_NAME, (uint32_t)d.n, n->type };
    put(&r, hdr, sizeof hdr);
    put(&r, TL_NOTE_NAME, sizeof TL_NOTE_NAME);
    put(&r, zeros, (4 - sizeof TL_NOTE_NAME % 4) % 4);
    put(&r, d.p, d.n);
    free(d.p);
    if (r.oom) {
        free(r.p);
        return tl_fail(err, "provenance note: out of memory");
    }
    *out = r.p;
    *len = r.n;
    return 0;
}

static uint32_t word(const unsigned char *p, int big_endian)
{
    if (big_endian)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static char *dup_s(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Appends a copy of value to a NULL-terminated vector of *n strings (a failed allocation drops it). */
static void push_value(char ***vec, int *n, const char *value)
{
    char *copy = dup_s(value);
    char **v = copy ? realloc(*vec, (size_t)(*n + 2) * sizeof *v) : NULL;
    if (!v) {
        free(copy);
        return;
    }
    *vec = v;
    v[(*n)++] = copy;
    v[*n] = NULL;
}

static void set_field(tl_note *n, const char *key, const char *value)
{
    static const struct { const char *key; size_t off; } strs[] = {
        { "wv", offsetof(tl_note, wrapper_version) }, { "fam", offsetof(tl_note, family) }, { "drv", offsetof(tl_note, driver) },
        { "cv", offsetof(tl_note, compiler_version) }, { "fp", offsetof(tl_note, fingerprint) },
        { "ah", offsetof(tl_note, argv_hash) },        { "kh", offsetof(tl_note, key_hash) },
        { "kp", offsetof(tl_note, key_hash_pp) },
        { "li", offsetof(tl_note, lineinfo_level) },
        { "src", offsetof(tl_note, source) },          { "cwd", offsetof(tl_note, cwd) },
        { "out", offsetof(tl_note, output) },          { "ch", offsetof(tl_note, content_hash) },
        { "mac", offsetof(tl_note, mac) },
    };
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (strcmp(key, strs[i].key) == 0) {
            char **slot = (char **)((char *)n + strs[i].off);
            free(*slot);
            *slot = dup_s(value);
            return;
        }
    if (strcmp(key, "v") == 0)
        n->format = (unsigned)atoi(value);
    else if (strcmp(key, "lf") == 0)
        n->lineinfo_forced = atoi(value) != 0;
    else if (strcmp(key, "G") == 0)
        n->device_debug = atoi(value) != 0;
    else if (strcmp(key, "argc") == 0)
        n->argc_total = atoi(value);
    else if (strcmp(key, "cl") == 0)
        n->at_link = atoi(value) != 0;
    else if (strcmp(key, "ao") == 0)
        n->argv_omitted = atoi(value) != 0;
    else if (strcmp(key, "a") == 0)
        push_value(&n->argv, &n->argc, value);
    else if (strcmp(key, "fe") == 0 && strchr(value, '=') && value[0] != '=')
        push_value(&n->folded_env, &n->nfolded_env, value); /* "NAME=VALUE"; anything else is not one */
    /* other keys: a newer writer's additions, ignored by design */
}

static int decode_desc(tl_note *n, const unsigned char *d, size_t len, tl_error *err)
{
    size_t i = 0;
    while (i < len) {
        const unsigned char *end = memchr(d + i, 0, len - i);
        if (!end)
            return tl_fail(err, "provenance note: desc string not terminated");
        const char *s = (const char *)d + i;
        i = (size_t)(end - d) + 1;
        if (!*s)
            continue; /* padding */
        const char *eq = strchr(s, '=');
        if (!eq)
            return tl_fail(err, "provenance note: field without '=': \"%.40s\"", s);
        /* What the MAC covers: the type, then the desc before the last "mac="; a field after it is covered by
         * nothing, so the record then has no verifiable MAC. */
        free(n->mac_input);
        n->mac_input = NULL;
        n->mac_input_len = 0;
        char key[16];
        size_t kl = (size_t)(eq - s);
        if (kl >= sizeof key)
            continue;
        memcpy(key, s, kl);
        key[kl] = 0;
        if (strcmp(key, "mac") == 0) {
            size_t covered = (size_t)(s - (const char *)d);
            if (!(n->mac_input = malloc(covered + 4)))
                return tl_fail(err, "provenance note: out of memory");
            for (int b = 0; b < 4; b++)
                n->mac_input[b] = (unsigned char)(n->type >> (8 * b));
            memcpy(n->mac_input + 4, d, covered);
            n->mac_input_len = covered + 4;
        }
        set_field(n, key, eq + 1);
    }
    if (n->format == 0)
        return tl_fail(err, "provenance note: no format version (v=)");
    return 0;
}

int tl_note_decode_all(const void *data, size_t len, int big_endian, void (*fn)(tl_note *n, void *ctx),
                       void *ctx, tl_error *err)
{
    const unsigned char *p = data;
    size_t off = 0;
    int count = 0;
    while (off < len) {
        if (len - off < 12)
            return tl_fail(err, "provenance note: truncated note header at offset %zu", off);
        uint32_t namesz = word(p + off, big_endian), descsz = word(p + off + 4, big_endian);
        uint32_t type = word(p + off + 8, big_endian);
        size_t name_pad = ((size_t)namesz + 3) & ~(size_t)3, desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
        if (name_pad > len - off - 12 || desc_pad > len - off - 12 - name_pad)
            return tl_fail(err, "provenance note: record at offset %zu extends past the section", off);
        const char *name = (const char *)p + off + 12;
        const unsigned char *desc = p + off + 12 + name_pad;
        off += 12 + name_pad + desc_pad;
        if (namesz != sizeof TL_NOTE_NAME || memcmp(name, TL_NOTE_NAME, sizeof TL_NOTE_NAME) != 0)
            continue;
        tl_note *n = calloc(1, sizeof *n);
        if (!n)
            return tl_fail(err, "provenance note: out of memory");
        n->type = type;
        if (decode_desc(n, desc, descsz, err) != 0) {
            tl_note_free(n);
            free(n);
            return -1;
        }
        count++;
        fn(n, ctx);
    }
    return count;
}

void tl_note_free(tl_note *n)
{
    if (!n)
        return;
    free(n->wrapper_version);
    free(n->family);
    free(n->driver);
    free(n->compiler_version);
    free(n->fingerprint);
    free(n->argv_hash);
    free(n->key_hash);
    free(n->key_hash_pp);
    free(n->lineinfo_level);
    free(n->source);
    free(n->cwd);
    free(n->output);
    free(n->content_hash);
    free(n->mac);
    free(n->mac_input);
    for (int i = 0; i < n->argc; i++)
        free(n->argv[i]);
    free(n->argv);
    for (int i = 0; i < n->nfolded_env; i++)
        free(n->folded_env[i]);
    free(n->folded_env);
    memset(n, 0, sizeof *n);
}

/* The desc of one encoded record: host byte order, owner "trueline". */
static int one_desc(const unsigned char *rec, size_t len, size_t *desc_off, size_t *desc_len)
{
    uint32_t hdr[3];
    size_t name_pad = (sizeof TL_NOTE_NAME + 3) & ~(size_t)3;
    if (len < sizeof hdr + name_pad)
        return -1;
    memcpy(hdr, rec, sizeof hdr);
    if (hdr[0] != sizeof TL_NOTE_NAME || memcmp(rec + sizeof hdr, TL_NOTE_NAME, sizeof TL_NOTE_NAME) != 0 ||
        hdr[1] > len - sizeof hdr - name_pad)
        return -1;
    *desc_off = sizeof hdr + name_pad;
    *desc_len = hdr[1];
    return 0;
}

/* The offset of the "key=" string in the desc, -1 when absent or the desc is malformed. */
static int find_key(const unsigned char *d, size_t len, const char *key, size_t *at)
{
    size_t kl = strlen(key), i = 0;
    while (i < len) {
        const unsigned char *end = memchr(d + i, 0, len - i);
        if (!end)
            return -1;
        if ((size_t)(end - d) - i > kl && memcmp(d + i, key, kl) == 0 && d[i + kl] == '=') {
            *at = i;
            return 0;
        }
        i = (size_t)(end - d) + 1;
    }
    return -1;
}

int tl_note_field(const unsigned char *rec, size_t len, const char *key, size_t *off, size_t *vlen)
{
    size_t doff, dlen, at;
    if (one_desc(rec, len, &doff, &dlen) != 0 || find_key(rec + doff, dlen, key, &at) != 0)
        return -1;
    *off = doff + at + strlen(key) + 1;
    *vlen = strlen((const char *)rec + *off);
    return 0;
}

int tl_note_mac_span(const unsigned char *rec, size_t len, size_t *desc_off, size_t *n)
{
    size_t dlen, at;
    if (one_desc(rec, len, desc_off, &dlen) != 0 || find_key(rec + *desc_off, dlen, "mac", &at) != 0)
        return -1;
    *n = at;
    return 0;
}
