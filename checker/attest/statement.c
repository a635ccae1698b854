/* Writing the statement (statement.h). What the records do not say is written as unknown, never guessed:
 * an object without a record is listed with no records, a fingerprint no toolchain here reproduces is
 * listed without components. */
#include "attest/statement.h"

#include "report/json_write.h"

static void record(struct tlck_jw *w, const struct tlck_att_record *r)
{
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "kind", r->kind);
    tlck_jw_str(w, "source", r->source);
    tlck_jw_str(w, "driver", r->driver);
    tlck_jw_str(w, "compilerVersion", r->compiler_version);
    tlck_jw_str(w, "fingerprint", r->fingerprint);
    tlck_jw_bool(w, "lineInfoForced", r->lineinfo_forced);
    tlck_jw_str(w, "lineInfoFlags", r->lineinfo_level);
    tlck_jw_array(w, "forcedFlags");
    for (size_t i = 0; i < r->nforced; i++)
        tlck_jw_str(w, NULL, r->forced[i]);
    tlck_jw_end(w);
    if (r->folded_known || r->nfolded) { /* a record without its argv does not say what was folded into it */
        tlck_jw_array(w, "foldedFlags");
        for (size_t i = 0; i < r->nfolded; i++) {
            tlck_jw_object(w, NULL);
            tlck_jw_str(w, "variable", r->folded[i].variable);
            tlck_jw_str(w, "value", r->folded[i].value);
            tlck_jw_end(w);
        }
        tlck_jw_end(w);
    }
    tlck_jw_bool(w, "deviceDebug", r->device_debug);
    tlck_jw_str(w, "effectiveArgv", r->argv);
    tlck_jw_bool(w, "keyed", r->keyed);
    tlck_jw_str(w, "mac", r->mac);
    tlck_jw_str(w, "contentBinding", r->binding);
    tlck_jw_end(w);
}

static void object(struct tlck_jw *w, const struct tlck_att_object *o)
{
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "file", o->file);
    tlck_jw_object(w, "digest");
    tlck_jw_str(w, "sha256", o->sha256);
    tlck_jw_end(w);
    tlck_jw_str(w, "recorded", o->nrec == 0 ? "no record" : o->nunrecorded ? "partly" : "yes");
    tlck_jw_array(w, "records");
    for (size_t r = 0; r < o->nrec; r++)
        record(w, &o->rec[r]);
    tlck_jw_end(w);
    tlck_jw_array(w, "unrecordedUnits");
    for (size_t u = 0; u < o->nunrecorded; u++)
        tlck_jw_str(w, NULL, o->unrecorded[u]);
    tlck_jw_end(w);
    tlck_jw_end(w);
}

/* resolvedDependencies: SLSA ResourceDescriptors. A resolved fingerprint gives one descriptor per component
 * (sha256 computed by the attest step, XXH3-128 as fingerprinted), each annotated with the fingerprint it
 * belongs to; an unresolved one gives one descriptor for the fingerprint alone. */
static void toolchain(struct tlck_jw *w, const struct tlck_att_toolchain *t)
{
    if (!t->resolved) {
        tlck_jw_object(w, NULL);
        tlck_jw_strf(w, "uri", "urn:trueline:toolchain:%s", t->fingerprint);
        tlck_jw_object(w, "digest");
        tlck_jw_str(w, "xxh3-128", t->fingerprint);
        tlck_jw_end(w);
        tlck_jw_object(w, "annotations");
        tlck_jw_str(w, "toolchainFingerprint", t->fingerprint);
        tlck_jw_str(w, "driver", t->driver);
        tlck_jw_str(w, "compilerVersion", t->compiler_version);
        tlck_jw_str(w, "components", "unknown: no toolchain on the attesting machine has this fingerprint");
        tlck_jw_end(w);
        tlck_jw_end(w);
        return;
    }
    for (size_t c = 0; c < t->ncomp; c++) {
        const struct tlck_att_component *x = &t->comp[c];
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "name", x->path);
        if (x->sha256) {
            tlck_jw_strf(w, "uri", "file://%s", x->path);
            tlck_jw_object(w, "digest");
            tlck_jw_str(w, "sha256", x->sha256);
            tlck_jw_str(w, "xxh3-128", x->xxh3);
            tlck_jw_end(w);
        }
        tlck_jw_object(w, "annotations");
        tlck_jw_str(w, "toolchainFingerprint", t->fingerprint);
        tlck_jw_str(w, "driver", t->driver);
        tlck_jw_str(w, "compilerVersion", t->compiler_version);
        tlck_jw_str(w, "role", x->role);
        if (!x->sha256)
            tlck_jw_str(w, "state", "absent (fingerprinted as absent)");
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
}

void tlck_statement_write(FILE *out, const struct tlck_attestation *a)
{
    struct tlck_jw w;
    tlck_jw_init(&w, out, 1);
    tlck_jw_object(&w, NULL);
    tlck_jw_str(&w, "_type", TLCK_INTOTO_STATEMENT);
    tlck_jw_array(&w, "subject");
    for (size_t i = 0; i < a->nsubj; i++) {
        tlck_jw_object(&w, NULL);
        tlck_jw_str(&w, "name", a->subj[i].name);
        tlck_jw_object(&w, "digest");
        tlck_jw_str(&w, "sha256", a->subj[i].sha256);
        tlck_jw_end(&w);
        tlck_jw_end(&w);
    }
    tlck_jw_end(&w);
    tlck_jw_str(&w, "predicateType", TLCK_SLSA_PROVENANCE);
    tlck_jw_object(&w, "predicate");
    tlck_jw_object(&w, "buildDefinition");
    tlck_jw_str(&w, "buildType", TLCK_BUILD_TYPE);
    tlck_jw_object(&w, "externalParameters");
    tlck_jw_array(&w, "artifacts");
    for (size_t i = 0; i < a->nsubj; i++)
        tlck_jw_str(&w, NULL, a->subj[i].name);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_object(&w, "internalParameters");
    tlck_jw_array(&w, "objects");
    for (size_t i = 0; i < a->nobj; i++)
        object(&w, &a->obj[i]);
    tlck_jw_end(&w);
    tlck_jw_object(&w, "policy");
    tlck_jw_str(&w, "require", a->policy);
    tlck_jw_str(&w, "verdict", !a->policy ? "none asked" : a->nviolations ? "fail" : "pass");
    tlck_jw_array(&w, "violations");
    for (size_t i = 0; i < a->nviolations; i++)
        tlck_jw_str(&w, NULL, a->violations[i]);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_array(&w, "resolvedDependencies");
    for (size_t i = 0; i < a->ntc; i++)
        toolchain(&w, &a->tc[i]);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_object(&w, "runDetails");
    tlck_jw_object(&w, "builder");
    tlck_jw_str(&w, "id", "urn:trueline:trueline-check:" TRUELINE_VERSION);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
}
