/* Freeing the statement's data (facts.h). */
#include "attest/facts.h"

#include <stdlib.h>
#include <string.h>

void *tlck_att_push(void *v, size_t *n, size_t elem)
{
    void **pv = v;
    char *p = realloc(*pv, (*n + 1) * elem);
    if (!p)
        return NULL;
    memset(p + *n * elem, 0, elem);
    *pv = p;
    return p + (*n)++ * elem;
}

static void free_record(struct tlck_att_record *r)
{
    free(r->kind);
    free(r->source);
    free(r->driver);
    free(r->compiler_version);
    free(r->fingerprint);
    free(r->lineinfo_level);
    free(r->argv);
    free(r->binding);
    free(r->mac);
    for (size_t i = 0; i < r->nargs; i++)
        free(r->args[i]);
    free(r->args);
    free(r->cwd);
    for (size_t i = 0; i < r->nforced; i++)
        free(r->forced[i]);
    free(r->forced);
    for (size_t i = 0; i < r->nfolded; i++) {
        free(r->folded[i].variable);
        free(r->folded[i].value);
    }
    free(r->folded);
}

int tlck_att_add_forced(struct tlck_att_record *r, const char *flag)
{
    char **slot = tlck_att_push(&r->forced, &r->nforced, sizeof *r->forced);
    return slot && (*slot = strdup(flag)) ? 0 : -1;
}

int tlck_att_add_folded(struct tlck_att_record *r, const char *variable, size_t nvariable, const char *value)
{
    struct tlck_att_folded *f = tlck_att_push(&r->folded, &r->nfolded, sizeof *r->folded);
    if (!f || !(f->variable = strndup(variable, nvariable)) || !(f->value = strdup(value)))
        return -1;
    return 0;
}

void tlck_att_free(struct tlck_attestation *a)
{
    for (size_t i = 0; i < a->nsubj; i++)
        free(a->subj[i].name);
    for (size_t i = 0; i < a->nobj; i++) {
        struct tlck_att_object *o = &a->obj[i];
        for (size_t r = 0; r < o->nrec; r++)
            free_record(&o->rec[r]);
        for (size_t u = 0; u < o->nunrecorded; u++)
            free(o->unrecorded[u]);
        free(o->rec);
        free(o->unrecorded);
        free(o->file);
    }
    for (size_t i = 0; i < a->ntc; i++) {
        struct tlck_att_toolchain *t = &a->tc[i];
        for (size_t c = 0; c < t->ncomp; c++) {
            free(t->comp[c].role);
            free(t->comp[c].path);
            free(t->comp[c].xxh3);
            free(t->comp[c].sha256);
        }
        free(t->comp);
        free(t->fingerprint);
        free(t->replayed);
        free(t->driver);
        free(t->compiler_version);
    }
    for (size_t i = 0; i < a->nviolations; i++)
        free(a->violations[i]);
    free(a->subj);
    free(a->obj);
    free(a->tc);
    free(a->policy);
    free(a->violations);
    memset(a, 0, sizeof *a);
}
