/* --verify-attestation FILE.intoto.jsonl --public-key KEY ARTIFACT...: the envelope's signature by KEY, each
 * artifact's sha256 against the statement's subject of that name, then --require over the signed statement.
 * Exit 0 verified, 1 not (signature, digest or policy: each named), 2 unusable input (key, envelope, file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tools.h"

#ifndef TL_HAVE_ATTEST
int tlck_tool_verify_attestation(const struct tlck_options *o)
{
    (void)o;
    fprintf(stderr, "trueline-check: attestations are not built in (build with libsodium and jansson: "
                    "pkg-config libsodium jansson)\n");
    return 2;
}
#else
#include "attest/dsse.h"
#include "attest/policy.h"
#include "attest/statement.h"
#include "attest/toolchain.h"

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The first envelope of the file signed by k; 1 or 2 (with the reason on stderr) when none is. */
static int signed_statement(const char *path, const struct tlck_sign_key *k, char **payload, size_t *n)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "trueline-check: %s: cannot open the attestation\n", path);
        return 2;
    }
    char *line = NULL, why[512] = "", first_bad[600] = "";
    size_t cap = 0, lineno = 0, envelopes = 0;
    ssize_t len;
    int rc = 1, malformed = 0;
    while (rc != 0 && (len = getline(&line, &cap, in)) > 0) {
        lineno++;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (!len)
            continue;
        envelopes++;
        enum tlck_dsse_verdict v = tlck_dsse_verify(line, k, payload, n, why, sizeof why);
        if (v == TLCK_DSSE_OK)
            rc = 0;
        else if (!*first_bad || (v == TLCK_DSSE_BAD && malformed)) {
            snprintf(first_bad, sizeof first_bad, "%s:%zu: %s", path, lineno, why);
            malformed = v == TLCK_DSSE_MALFORMED;
        }
    }
    free(line);
    fclose(in);
    if (rc == 0)
        return 0;
    if (!envelopes) {
        fprintf(stderr, "trueline-check: %s: no envelope in the file\n", path);
        return 2;
    }
    fprintf(stderr, "trueline-check: %s\n", first_bad);
    return malformed ? 2 : 1;
}

static int check_subjects(const struct tlck_attestation *a, const struct tlck_options *o)
{
    int rc = 0;
    for (size_t i = 0; i < o->ninputs; i++) {
        char sha[TLCK_SHA256_HEX];
        tl_error err;
        const struct tlck_att_subject *s = NULL;
        for (size_t k = 0; k < a->nsubj && !s; k++)
            if (strcmp(a->subj[k].name, base(o->inputs[i])) == 0)
                s = &a->subj[k];
        if (tlck_sha256_file(o->inputs[i], sha, &err) != 0) {
            fprintf(stderr, "trueline-check: %s\n", err.msg);
            rc = 2;
        } else if (!s) {
            fprintf(stderr, "trueline-check: %s: not a subject of the statement (it names %zu file(s), e.g. %s)\n",
                    o->inputs[i], a->nsubj, a->subj[0].name);
            rc = rc ? rc : 1;
        } else if (strcmp(s->sha256, sha) != 0) {
            fprintf(stderr, "trueline-check: %s: the artifact differs from the attested one (sha256 %.16s..., "
                            "the statement says %.16s...)\n", o->inputs[i], sha, s->sha256);
            rc = rc ? rc : 1;
        } else {
            printf("%s: sha256 matches the statement\n", o->inputs[i]);
        }
    }
    return rc;
}

int tlck_tool_verify_attestation(const struct tlck_options *o)
{
    tl_error err;
    unsigned mask = 0;
    struct tlck_sign_key key;
    if (!o->public_key) {
        fprintf(stderr, "trueline-check: --verify-attestation needs --public-key FILE\n");
        return 2;
    }
    if (o->require && tlck_att_policy_parse(o->require, &mask, &err) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        return 2;
    }
    if (tlck_key_load(o->public_key, 0, &key, &err) != 0) {
        fprintf(stderr, "trueline-check: --public-key: %s\n", err.msg);
        return 2;
    }
    char *payload = NULL;
    size_t n = 0;
    int rc = signed_statement(o->attestation, &key, &payload, &n);
    struct tlck_attestation a = { 0 };
    if (rc == 0 && tlck_statement_read(payload, n, &a, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: signed, but %s\n", o->attestation, err.msg);
        rc = 2;
    }
    if (rc == 0) {
        printf("%s: signature by key %.16s verifies\n", o->attestation, key.keyid);
        rc = check_subjects(&a, o);
    }
    if (rc == 0) {
        size_t none = 0, changed = 0;
        for (size_t i = 0; i < a.nobj; i++) {
            none += a.obj[i].nrec == 0;
            for (size_t r = 0; r < a.obj[i].nrec; r++)
                changed += a.obj[i].rec[r].binding && strcmp(a.obj[i].rec[r].binding, TLCK_BIND_DIFFERS) == 0;
        }
        printf("statement: %zu object(s), %zu without a provenance record, %zu record(s) whose object changed\n",
               a.nobj, none, changed);
    }
    if (rc == 0 && o->require) {
        long bad = tlck_att_policy_judge(&a, mask);
        for (size_t i = 0; i < a.nviolations; i++)
            fprintf(stderr, "trueline-check: policy: %s\n", a.violations[i]);
        rc = bad < 0 ? 2 : bad ? 1 : 0;
        if (rc == 0)
            printf("policy %s: pass\n", o->require);
    }
    free(payload);
    tlck_att_free(&a);
    tlck_key_wipe(&key);
    return rc;
}
#endif
