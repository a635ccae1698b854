/* Reading a verified statement back into facts (statement.h), with jansson: the subjects to compare with
 * the files given, the objects a consumer's --require judges. */
#ifdef TL_HAVE_ATTEST
#include "attest/statement.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? strdup(s) : NULL;
}

static int read_object(json_t *jo, struct tlck_att_object *o)
{
    const char *sha = json_string_value(json_object_get(json_object_get(jo, "digest"), "sha256"));
    if (!(o->file = dup_or_null(jo, "file")))
        return -1;
    snprintf(o->sha256, sizeof o->sha256, "%s", sha ? sha : "");
    json_t *recs = json_object_get(jo, "records"), *units = json_object_get(jo, "unrecordedUnits");
    for (size_t i = 0; i < json_array_size(recs); i++) {
        json_t *jr = json_array_get(recs, i);
        struct tlck_att_record *r = tlck_att_push(&o->rec, &o->nrec, sizeof *o->rec);
        if (!r || !(r->kind = dup_or_null(jr, "kind")))
            return -1;
        r->source = dup_or_null(jr, "source");
        r->driver = dup_or_null(jr, "driver");
        r->compiler_version = dup_or_null(jr, "compilerVersion");
        r->fingerprint = dup_or_null(jr, "fingerprint");
        r->lineinfo_level = dup_or_null(jr, "lineInfoFlags");
        r->argv = dup_or_null(jr, "effectiveArgv");
        r->binding = dup_or_null(jr, "contentBinding");
        r->mac = dup_or_null(jr, "mac");
        r->lineinfo_forced = json_is_true(json_object_get(jr, "lineInfoForced"));
        r->device_debug = json_is_true(json_object_get(jr, "deviceDebug"));
        r->keyed = json_is_true(json_object_get(jr, "keyed"));
        json_t *forced = json_object_get(jr, "forcedFlags"), *folded = json_object_get(jr, "foldedFlags");
        for (size_t k = 0; k < json_array_size(forced); k++) {
            const char *f = json_string_value(json_array_get(forced, k));
            if (f && tlck_att_add_forced(r, f) != 0)
                return -1;
        }
        r->folded_known = json_is_array(folded);
        for (size_t k = 0; k < json_array_size(folded); k++) {
            json_t *e = json_array_get(folded, k);
            const char *var = json_string_value(json_object_get(e, "variable"));
            const char *val = json_string_value(json_object_get(e, "value"));
            if (var && val && tlck_att_add_folded(r, var, strlen(var), val) != 0)
                return -1;
        }
    }
    for (size_t i = 0; i < json_array_size(units); i++) {
        const char *u = json_string_value(json_array_get(units, i));
        char **slot = u ? tlck_att_push(&o->unrecorded, &o->nunrecorded, sizeof *o->unrecorded) : NULL;
        if (u && (!slot || !(*slot = strdup(u))))
            return -1;
    }
    return 0;
}

int tlck_statement_read(const char *text, size_t n, struct tlck_attestation *a, tl_error *err)
{
    json_error_t je;
    json_t *st = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    if (!st)
        return tl_fail(err, "the statement is not JSON: %s", je.text);
    int rc = -1;
    const char *type = json_string_value(json_object_get(st, "_type"));
    json_t *subj = json_object_get(st, "subject");
    json_t *objs = json_object_get(json_object_get(json_object_get(json_object_get(st, "predicate"),
                                                                   "buildDefinition"), "internalParameters"), "objects");
    if (!type || strcmp(type, TLCK_INTOTO_STATEMENT) != 0) {
        tl_fail(err, "not an in-toto Statement v1 (_type %s)", type ? type : "missing");
    } else if (!json_is_array(subj) || json_array_size(subj) == 0) {
        tl_fail(err, "the statement has no subject");
    } else {
        rc = 0;
        for (size_t i = 0; rc == 0 && i < json_array_size(subj); i++) {
            json_t *s = json_array_get(subj, i);
            const char *sha = json_string_value(json_object_get(json_object_get(s, "digest"), "sha256"));
            struct tlck_att_subject *x = tlck_att_push(&a->subj, &a->nsubj, sizeof *a->subj);
            if (!x || !(x->name = dup_or_null(s, "name")) || !sha || strlen(sha) != 64)
                rc = tl_fail(err, "subject %zu has no name or no sha256 digest", i + 1);
            else
                memcpy(x->sha256, sha, 65);
        }
        for (size_t i = 0; rc == 0 && i < json_array_size(objs); i++) {
            struct tlck_att_object *o = tlck_att_push(&a->obj, &a->nobj, sizeof *a->obj);
            if (!o || read_object(json_array_get(objs, i), o) != 0)
                rc = tl_fail(err, "object %zu of the statement is incomplete", i + 1);
        }
    }
    json_decref(st);
    return rc;
}
#endif
