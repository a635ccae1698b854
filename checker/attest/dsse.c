/* DSSE signing and verification with Ed25519 (libsodium's crypto_sign_detached); the envelope is written
 * through the JSON writer and read with jansson. */
#ifdef TL_HAVE_ATTEST
#include "attest/dsse.h"

#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_write.h"

unsigned char *tlck_dsse_pae(const char *type, const void *payload, size_t n, size_t *len)
{
    char head[256];
    int h = snprintf(head, sizeof head, "DSSEv1 %zu %s %zu ", strlen(type), type, n);
    if (h < 0 || (size_t)h >= sizeof head)
        return NULL;
    unsigned char *p = malloc((size_t)h + n + 1);
    if (!p)
        return NULL;
    memcpy(p, head, (size_t)h);
    memcpy(p + h, payload, n);
    *len = (size_t)h + n;
    return p;
}

static char *base64(const void *p, size_t n)
{
    size_t len = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL);
    char *s = malloc(len);
    if (s)
        sodium_bin2base64(s, len, p, n, sodium_base64_VARIANT_ORIGINAL);
    return s;
}

/* Standard or URL-safe alphabet, padded or not: the DSSE spec lets a producer use either. */
static unsigned char *unbase64(const char *s, size_t *n)
{
    size_t len = strlen(s), cap = len / 4 * 3 + 3;
    unsigned char *p = malloc(cap + 1);
    if (!p)
        return NULL;
    int url = strpbrk(s, "-_") != NULL;
    int variant = url ? sodium_base64_VARIANT_URLSAFE_NO_PADDING : sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
    while (len && s[len - 1] == '=')
        len--;
    if (sodium_base642bin(p, cap, s, len, NULL, n, NULL, variant) != 0) {
        free(p);
        return NULL;
    }
    p[*n] = 0;
    return p;
}

int tlck_dsse_write(FILE *out, const void *payload, size_t n, const struct tlck_sign_key *k)
{
    size_t plen;
    unsigned char sig[crypto_sign_BYTES], *pae = tlck_dsse_pae(TLCK_INTOTO_PAYLOAD_TYPE, payload, n, &plen);
    if (!pae)
        return -1;
    crypto_sign_detached(sig, NULL, pae, plen, k->sec);
    free(pae);
    char *b64p = base64(payload, n), *b64s = base64(sig, sizeof sig);
    int rc = -1;
    if (b64p && b64s) {
        struct tlck_jw w;
        tlck_jw_init(&w, out, 1);
        tlck_jw_object(&w, NULL);
        tlck_jw_str(&w, "payload", b64p);
        tlck_jw_str(&w, "payloadType", TLCK_INTOTO_PAYLOAD_TYPE);
        tlck_jw_array(&w, "signatures");
        tlck_jw_object(&w, NULL);
        tlck_jw_str(&w, "keyid", k->keyid);
        tlck_jw_str(&w, "sig", b64s);
        tlck_jw_end(&w);
        tlck_jw_end(&w);
        tlck_jw_end(&w);
        rc = fputc('\n', out) == EOF ? -1 : 0;
    }
    free(b64p);
    free(b64s);
    return rc;
}

enum tlck_dsse_verdict tlck_dsse_verify(const char *line, const struct tlck_sign_key *k, char **payload,
                                        size_t *n, char *why, size_t whylen)
{
    *payload = NULL;
    json_error_t je;
    json_t *env = json_loads(line, JSON_REJECT_DUPLICATES, &je);
    enum tlck_dsse_verdict v = TLCK_DSSE_MALFORMED;
    json_t *sigs = env ? json_object_get(env, "signatures") : NULL;
    const char *b64p = env ? json_string_value(json_object_get(env, "payload")) : NULL;
    const char *type = env ? json_string_value(json_object_get(env, "payloadType")) : NULL;
    unsigned char *body = NULL;
    size_t blen = 0;
    if (!env) {
        snprintf(why, whylen, "not a JSON envelope: %s (column %d)", je.text, je.column);
        return v;
    }
    if (!b64p || !type || !json_is_array(sigs)) {
        snprintf(why, whylen, "not a DSSE envelope: it needs \"payload\", \"payloadType\" and \"signatures\"");
    } else if (strcmp(type, TLCK_INTOTO_PAYLOAD_TYPE) != 0) {
        snprintf(why, whylen, "payloadType is \"%s\", not \"%s\"", type, TLCK_INTOTO_PAYLOAD_TYPE);
    } else if (!(body = unbase64(b64p, &blen))) {
        snprintf(why, whylen, "the payload is not base64");
    } else {
        size_t plen;
        unsigned char *pae = tlck_dsse_pae(type, body, blen, &plen);
        int by_key = 0;
        v = TLCK_DSSE_BAD;
        snprintf(why, whylen, "no signature by key %.16s (the envelope has %zu)", k->keyid, json_array_size(sigs));
        for (size_t i = 0; pae && i < json_array_size(sigs); i++) {
            json_t *s = json_array_get(sigs, i);
            const char *keyid = json_string_value(json_object_get(s, "keyid"));
            const char *b64s = json_string_value(json_object_get(s, "sig"));
            size_t slen = 0;
            unsigned char *sig = b64s ? unbase64(b64s, &slen) : NULL;
            /* a signature without keyid is tried too: DSSE makes keyid optional */
            if (keyid && *keyid && strcmp(keyid, k->keyid) != 0) {
                if (!by_key)
                    snprintf(why, whylen, "signed by key %.16s, not by the public key given (%.16s)", keyid, k->keyid);
            } else if (!sig || slen != crypto_sign_BYTES) {
                by_key = 1;
                snprintf(why, whylen, "the signature of key %.16s is not a base64 Ed25519 signature "
                         "(the signature was altered)", k->keyid);
            } else if (crypto_sign_verify_detached(sig, pae, plen, k->pub) != 0) {
                by_key = 1;
                snprintf(why, whylen, "the signature of key %.16s does not verify over the statement: the "
                         "statement or the signature was altered after signing", k->keyid);
            } else {
                v = TLCK_DSSE_OK;
            }
            free(sig);
            if (v == TLCK_DSSE_OK)
                break;
        }
        free(pae);
    }
    if (v == TLCK_DSSE_OK) {
        *payload = (char *)body;
        *n = blen;
    } else {
        free(body);
    }
    json_decref(env);
    return v;
}
#endif
