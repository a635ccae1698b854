/* The release requirements over the facts (policy.h). Each names the object that breaks it. */
#include "attest/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned bit;
} reqs[] = {
    { "one-toolchain", TLCK_REQ_ONE_TOOLCHAIN }, { "line-info", TLCK_REQ_LINE_INFO },
    { "no-device-debug", TLCK_REQ_NO_DEVICE_DEBUG }, { "keyed", TLCK_REQ_KEYED }, { "recorded", TLCK_REQ_RECORDED },
};
#define NREQ (sizeof reqs / sizeof *reqs)

int tlck_att_policy_parse(const char *list, unsigned *mask, tl_error *err)
{
    *mask = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t k = 0;
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            for (k = 0; k < NREQ; k++)
                *mask |= reqs[k].bit;
        } else {
            while (k < NREQ && !(strlen(reqs[k].name) == n && strncmp(p, reqs[k].name, n) == 0))
                k++;
            if (k == NREQ)
                return tl_fail(err, "--require: '%.*s' is not one-toolchain, line-info, no-device-debug, keyed, "
                               "recorded or all", (int)n, p);
            *mask |= reqs[k].bit;
        }
        p += n + (p[n] == ',');
    }
    if (!*mask)
        return tl_fail(err, "--require: no requirement named");
    return 0;
}

static int say(struct tlck_attestation *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct tlck_attestation *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    char **slot = n < 0 ? NULL : tlck_att_push(&a->violations, &a->nviolations, sizeof *a->violations);
    if (!slot) {
        free(n < 0 ? NULL : s);
        return -1;
    }
    *slot = s;
    return 0;
}

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "(unknown)";
}

/* The first compile record of each driver sets that driver's fingerprint for the whole statement. */
static const struct tlck_att_record *first_of_driver(const struct tlck_attestation *a, const char *driver)
{
    for (size_t i = 0; i < a->nobj; i++)
        for (size_t r = 0; r < a->obj[i].nrec; r++) {
            const struct tlck_att_record *x = &a->obj[i].rec[r];
            if (strcmp(x->kind, "compile") == 0 && x->driver && strcmp(x->driver, driver) == 0)
                return x;
        }
    return NULL;
}

long tlck_att_policy_judge(struct tlck_attestation *a, unsigned mask)
{
    size_t before = a->nviolations;
    for (size_t i = 0; i < a->nobj; i++) {
        const struct tlck_att_object *o = &a->obj[i];
        size_t ncompile = 0;
        for (size_t r = 0; r < o->nrec; r++) {
            const struct tlck_att_record *x = &o->rec[r];
            int compile = strcmp(x->kind, "compile") == 0;
            ncompile += compile;
            const char *src = or_unknown(compile ? x->source : "link");
            int bad = 0;
            if (compile && (mask & TLCK_REQ_LINE_INFO) && !x->lineinfo_forced &&
                !(x->lineinfo_level && *x->lineinfo_level))
                bad |= say(a, "%s: %s was compiled without line info forced (line-info)", o->file, src);
            if (compile && (mask & TLCK_REQ_NO_DEVICE_DEBUG) && x->device_debug)
                bad |= say(a, "%s: %s was compiled with -G (no-device-debug)", o->file, src);
            if ((mask & TLCK_REQ_KEYED) && !x->keyed)
                bad |= say(a, "%s: the record of %s carries no MAC (keyed)", o->file, src);
            if ((mask & TLCK_REQ_KEYED) && x->mac && strcmp(x->mac, TLCK_MAC_WRONG) == 0)
                bad |= say(a, "%s: the MAC of the record of %s does not verify with the record key (keyed)", o->file, src);
            if ((mask & TLCK_REQ_KEYED) && x->binding && strcmp(x->binding, TLCK_BIND_DIFFERS) == 0)
                bad |= say(a, "%s: the object changed after its record of %s was written (keyed)", o->file, src);
            const struct tlck_att_record *first = compile && x->driver ? first_of_driver(a, x->driver) : NULL;
            if ((mask & TLCK_REQ_ONE_TOOLCHAIN) && first && first != x && x->fingerprint && first->fingerprint &&
                strcmp(first->fingerprint, x->fingerprint) != 0)
                bad |= say(a, "%s: %s was compiled by another %s toolchain (fingerprint %.16s, not %.16s) "
                           "(one-toolchain)", o->file, src, x->driver, x->fingerprint, first->fingerprint);
            if (bad)
                return -1;
        }
        if ((mask & TLCK_REQ_RECORDED) && ncompile == 0 && say(a, "%s: no provenance record: not built through "
                                                                  "trueline-cc (recorded)", o->file) != 0)
            return -1;
        if ((mask & TLCK_REQ_RECORDED) && ncompile && o->nunrecorded &&
            say(a, "%s: %zu compile unit(s) without a record, e.g. %s (recorded)", o->file, o->nunrecorded,
                o->unrecorded[0]) != 0)
            return -1;
    }
    return (long)(a->nviolations - before);
}
