/* checker/attest: DSSE's PAE against the spec's own example, a signature round trip over it and its failure on one
 * changed byte, the policy list's words, and what the policy says of a small statement. */
#include <stdlib.h>
#include <string.h>

#include "attest/policy.h"
#include "unit.h"
#ifdef TL_HAVE_ATTEST
#include <sodium.h>

#include "attest/dsse.h"
#endif

static void pae(void)
{
#ifndef TL_HAVE_ATTEST
    UNIT_SKIP("attestations not built in");
#else
    /* the example of the DSSE protocol document (protocol.md, "Signature definition") */
    size_t n = 0;
    unsigned char *p = tlck_dsse_pae("http://example.com/HelloWorld", "hello world", 11, &n);
    const char want[] = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
    UNIT_CHECK("PAE length", p && n == sizeof want - 1);
    UNIT_CHECK("PAE bytes", p && memcmp(p, want, sizeof want - 1) == 0);
    free(p);
#endif
}

static void sign_verify(void)
{
#ifndef TL_HAVE_ATTEST
    UNIT_SKIP("attestations not built in");
#else
    UNIT_CHECK("sodium", sodium_init() >= 0);
    struct tlck_sign_key k = { .has_secret = 1 };
    crypto_sign_keypair(k.pub, k.sec);
    snprintf(k.keyid, sizeof k.keyid, "%s", "test");
    char *env = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&env, &len);
    UNIT_CHECK("envelope written", m && tlck_dsse_write(m, "{\"a\":1}", 7, &k) == 0);
    fclose(m);
    char *payload = NULL, why[256];
    size_t n = 0;
    UNIT_CHECK("verifies", tlck_dsse_verify(env, &k, &payload, &n, why, sizeof why) == TLCK_DSSE_OK);
    UNIT_CHECK("payload back", payload && n == 7 && memcmp(payload, "{\"a\":1}", 7) == 0);
    free(payload);
    char *sig = strstr(env, "\"sig\":\"");
    UNIT_CHECK("has a sig", sig != NULL);
    if (sig) {
        sig[10] = sig[10] == 'A' ? 'B' : 'A';
        UNIT_CHECK("a changed signature fails", tlck_dsse_verify(env, &k, &payload, &n, why, sizeof why) == TLCK_DSSE_BAD);
        UNIT_CHECK("and says so", strstr(why, "does not verify") || strstr(why, "altered"));
    }
    UNIT_CHECK("not JSON: malformed", tlck_dsse_verify("{", &k, &payload, &n, why, sizeof why) == TLCK_DSSE_MALFORMED);
    free(env);
#endif
}

static void policy_words(void)
{
    unsigned m = 0;
    tl_error err;
    UNIT_CHECK("all", tlck_att_policy_parse("all", &m, &err) == 0 && m == 31);
    UNIT_CHECK("two", tlck_att_policy_parse("keyed,line-info", &m, &err) == 0 &&
                      m == (TLCK_REQ_KEYED | TLCK_REQ_LINE_INFO));
    UNIT_CHECK("unknown word", tlck_att_policy_parse("keyed,fast", &m, &err) != 0 && strstr(err.msg, "'fast'"));
    UNIT_CHECK("empty", tlck_att_policy_parse("", &m, &err) != 0);
}

static void policy_judge(void)
{
    struct tlck_attestation a = { 0 };
    struct tlck_att_object *o = tlck_att_push(&a.obj, &a.nobj, sizeof *a.obj);
    o->file = strdup("lib.so");
    struct tlck_att_record *r1 = tlck_att_push(&o->rec, &o->nrec, sizeof *o->rec);
    r1->kind = strdup("compile"), r1->source = strdup("a.cu"), r1->driver = strdup("nvcc");
    r1->fingerprint = strdup("11111111111111111111111111111111"), r1->lineinfo_forced = 1, r1->keyed = 1;
    struct tlck_att_record *r2 = tlck_att_push(&o->rec, &o->nrec, sizeof *o->rec);
    r2->kind = strdup("compile"), r2->source = strdup("b.cu"), r2->driver = strdup("nvcc");
    r2->fingerprint = strdup("22222222222222222222222222222222"), r2->device_debug = 1, r2->keyed = 1;
    struct tlck_att_object *none = tlck_att_push(&a.obj, &a.nobj, sizeof *a.obj);
    none->file = strdup("raw.so");
    UNIT_CHECK("four violations", tlck_att_policy_judge(&a, 31) == 4);
    int tc = 0, li = 0, g = 0, rec = 0;
    for (size_t i = 0; i < a.nviolations; i++) {
        tc += strstr(a.violations[i], "lib.so: b.cu was compiled by another nvcc toolchain") != NULL;
        li += strstr(a.violations[i], "lib.so: b.cu was compiled without line info") != NULL;
        g += strstr(a.violations[i], "lib.so: b.cu was compiled with -G") != NULL;
        rec += strstr(a.violations[i], "raw.so: no provenance record") != NULL;
    }
    UNIT_CHECK("each names its object and source", tc == 1 && li == 1 && g == 1 && rec == 1);
    tlck_att_free(&a);
}

UNIT_MAIN(UNIT_CASE(pae), UNIT_CASE(sign_verify), UNIT_CASE(policy_words), UNIT_CASE(policy_judge))
