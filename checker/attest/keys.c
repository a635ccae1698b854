/* Ed25519 key files (keys.h says their shape). libsodium makes and uses the keys; jansson reads the files;
 * the files are written through the project's JSON writer. */
#ifdef TL_HAVE_ATTEST
#include "attest/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/json_write.h"

void tlck_sha256_hex(const void *p, size_t n, char out[TLCK_SHA256_HEX])
{
    unsigned char d[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(d, p, n);
    sodium_bin2hex(out, TLCK_SHA256_HEX, d, sizeof d);
}

/* securesystemslib's default keyid: the canonical JSON (sorted keys, no blanks) of the public parts. */
static void keyid_of(const unsigned char pub[32], char out[TLCK_SHA256_HEX])
{
    char hex[65], canon[160];
    sodium_bin2hex(hex, sizeof hex, pub, 32);
    int n = snprintf(canon, sizeof canon, "{\"keytype\":\"ed25519\",\"keyval\":{\"public\":\"%s\"},\"scheme\":\"ed25519\"}",
                     hex);
    tlck_sha256_hex(canon, (size_t)n, out);
}

static void write_key(FILE *out, const struct tlck_sign_key *k, int with_secret)
{
    char pub[65], seed[65];
    sodium_bin2hex(pub, sizeof pub, k->pub, 32);
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    tlck_jw_object(&w, NULL);
    tlck_jw_str(&w, "keyid", k->keyid);
    tlck_jw_str(&w, "keytype", "ed25519");
    tlck_jw_str(&w, "scheme", "ed25519");
    tlck_jw_object(&w, "keyval");
    tlck_jw_str(&w, "public", pub);
    if (with_secret) {
        sodium_bin2hex(seed, sizeof seed, k->sec, 32);
        tlck_jw_str(&w, "private", seed);
        sodium_memzero(seed, sizeof seed);
    }
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    fputc('\n', out);
}

int tlck_key_generate(const char *name, tl_error *err)
{
    if (sodium_init() < 0)
        return tl_fail(err, "libsodium could not be initialised");
    struct tlck_sign_key k = { .has_secret = 1 };
    crypto_sign_keypair(k.pub, k.sec);
    keyid_of(k.pub, k.keyid);
    char pubname[4096];
    if (snprintf(pubname, sizeof pubname, "%s.pub", name) >= (int)sizeof pubname)
        return tl_fail(err, "%s: name too long", name);
    /* O_EXCL: an existing key is never replaced (a signing key lost to a typo cannot be made again) */
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        tlck_key_wipe(&k);
        return tl_fail(err, "%s: cannot create the secret key file: %s", name, strerror(errno));
    }
    FILE *sec = fdopen(fd, "w");
    FILE *pub = sec ? fopen(pubname, "w") : NULL;
    int ok = sec && pub;
    if (ok) {
        write_key(sec, &k, 1);
        write_key(pub, &k, 0);
    }
    ok = (sec ? fclose(sec) == 0 : (close(fd), 0)) && ok;
    ok = (pub ? fclose(pub) == 0 : 0) && ok;
    tlck_key_wipe(&k);
    if (!ok) {
        unlink(name);
        return tl_fail(err, "%s: cannot write the key files", pub ? name : pubname);
    }
    return 0;
}

static int hex_field(json_t *o, const char *key, unsigned char *out, size_t n)
{
    const char *s = json_string_value(json_object_get(o, key));
    size_t got = 0;
    return s && strlen(s) == 2 * n && sodium_hex2bin(out, n, s, 2 * n, NULL, &got, NULL) == 0 && got == n ? 0 : -1;
}

int tlck_key_load(const char *path, int want_secret, struct tlck_sign_key *k, tl_error *err)
{
    memset(k, 0, sizeof *k);
    if (sodium_init() < 0)
        return tl_fail(err, "libsodium could not be initialised");
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return je.line > 0 ? tl_fail(err, "%s: not a key file: %s (line %d)", path, je.text, je.line)
                           : tl_fail(err, "%s: not a key file: %s", path, je.text);
    int rc = -1;
    json_t *keyval = json_object_get(root, "keyval");
    const char *type = json_string_value(json_object_get(root, "keytype"));
    const char *scheme = json_string_value(json_object_get(root, "scheme"));
    unsigned char seed[32];
    if (!type || strcmp(type, "ed25519") != 0 || !scheme || strcmp(scheme, "ed25519") != 0)
        tl_fail(err, "%s: not an ed25519 key (keytype %s, scheme %s)", path, type ? type : "missing",
                scheme ? scheme : "missing");
    else if (!json_is_object(keyval) || hex_field(keyval, "public", k->pub, 32) != 0)
        tl_fail(err, "%s: keyval.public is not 64 hex digits", path);
    else if (want_secret && !json_object_get(keyval, "private"))
        tl_fail(err, "%s: a public key; signing needs the secret key file (the one without .pub)", path);
    else if (want_secret && hex_field(keyval, "private", seed, 32) != 0)
        tl_fail(err, "%s: keyval.private is not 64 hex digits (the Ed25519 seed)", path);
    else
        rc = 0;
    if (rc == 0 && want_secret) {
        unsigned char pub[32];
        crypto_sign_seed_keypair(pub, k->sec, seed);
        k->has_secret = 1;
        if (memcmp(pub, k->pub, 32) != 0)
            rc = tl_fail(err, "%s: keyval.public is not the public half of keyval.private", path);
    }
    sodium_memzero(seed, sizeof seed);
    if (rc == 0)
        keyid_of(k->pub, k->keyid);
    json_decref(root);
    if (rc != 0)
        tlck_key_wipe(k);
    return rc;
}

void tlck_key_wipe(struct tlck_sign_key *k)
{
    sodium_memzero(k, sizeof *k);
}
#endif
