#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *tlck_severity_name(enum tlck_severity s)
{
    switch (s) {
    case TLCK_SEV_INFO: return "info";
    case TLCK_SEV_WARNING: return "warning";
    case TLCK_SEV_ERROR: return "error";
    default: return "none";
    }
}

int tlck_severity_parse(const char *s, enum tlck_severity *out)
{
    static const struct { const char *name; enum tlck_severity sev; } names[] = {
        { "none", TLCK_SEV_NONE }, { "off", TLCK_SEV_NONE }, { "info", TLCK_SEV_INFO }, { "note", TLCK_SEV_INFO },
        { "warning", TLCK_SEV_WARNING }, { "warn", TLCK_SEV_WARNING }, { "error", TLCK_SEV_ERROR },
    };
    for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].sev;
            return 0;
        }
    return -1;
}

int tlck_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*v, ncap * elem);
    if (!p)
        return -1;
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *v = p;
    *cap = ncap;
    return 0;
}

char *tlck_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *tlck_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

void tlck_file_warn(struct tlck_file *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s)
        return;
    if (f->warning) {
        char *both = tlck_asprintf("%s; %s", f->warning, s);
        free(s);
        if (!both)
            return;
        s = both;
        free(f->warning);
    }
    f->warning = s;
}

struct tlck_finding *tlck_vemit(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
                                const char *symbol, const char *hint, const char *fmt, va_list ap)
{
    if (sev == TLCK_SEV_NONE)
        return NULL;
    if (tlck_grow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v) != 0)
        return NULL;
    struct tlck_finding *f = &out->v[out->n++];
    memset(f, 0, sizeof *f);
    if (vasprintf(&f->message, fmt, ap) < 0)
        f->message = NULL;
    f->check = check;
    f->severity = sev;
    f->file = tlck_strdup(file);
    f->symbol = tlck_strdup(symbol);
    f->hint = tlck_strdup(hint);
    return f;
}

void tlck_emit(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
             const char *symbol, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tlck_vemit(out, check, sev, file, symbol, hint, fmt, ap);
    va_end(ap);
}

void tlck_findings_free(struct tlck_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].file);
        free(f->v[i].symbol);
        free(f->v[i].mangled);
        free(f->v[i].message);
        free(f->v[i].hint);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

void tlck_image_free(struct tlck_image *img)
{
    for (size_t i = 0; i < img->nfuncs; i++) {
        free(img->funcs[i].name);
        free(img->funcs[i].cu);
    }
    for (size_t i = 0; i < img->ncus; i++) {
        free(img->cus[i].name);
        free(img->cus[i].comp_dir);
        free(img->cus[i].producer);
    }
    for (size_t i = 0; i < img->nsubprograms; i++) {
        free(img->subprograms[i].name);
        free(img->subprograms[i].linkage_name);
    }
    free(img->funcs);
    free(img->cus);
    free(img->subprograms);
    free(img->label);
    struct tlck_device_info *d = &img->dev;
    free(d->identifier);
    free(d->line_store);
    free(d->producer);
    free(d->toolkit_version);
    free(d->ptxas_options);
    free(d->error);
    memset(img, 0, sizeof *img);
}

static void provenance_free(struct tlck_provenance *p)
{
    free(p->source);
    free(p->compiler);
    free(p->compiler_version);
    free(p->fingerprint);
    free(p->argv_hash);
    free(p->lineinfo_level);
    free(p->wrapper_version);
    free(p->content_hash);
    free(p->mac);
    free(p->mac_input);
    free(p->cwd);
    free(p->driver);
    free(p->output);
    free(p->argv);
    for (int i = 0; i < p->nargs; i++)
        free(p->args[i]);
    for (int i = 0; i < p->nfolded_env; i++)
        free(p->folded_env[i]);
    free(p->folded_env);
    free(p->args);
}

void tlck_file_free(struct tlck_file *f)
{
    tlck_image_free(&f->host);
    for (size_t i = 0; i < f->ndevices; i++)
        tlck_image_free(&f->devices[i]);
    free(f->devices);
    for (size_t i = 0; i < f->ndynsyms; i++) {
        free(f->dynsyms[i].name);
        free(f->dynsyms[i].version);
        free(f->dynsyms[i].version_file);
    }
    free(f->dynsyms);
    for (size_t i = 0; i < f->ncomments; i++)
        free(f->comments[i]);
    free(f->comments);
    for (size_t i = 0; i < f->nnotes; i++)
        provenance_free(&f->notes[i]);
    free(f->notes);
    free(f->display);
    free(f->path);
    free(f->error);
    free(f->warning);
    free(f->debug_file);
    free(f->soname);
    free(f->sections_hide);
    for (size_t i = 0; i < f->nneeded; i++)
        free(f->needed[i]);
    free(f->needed);
    free(f->line_error);
    free(f->split_build_id);
    memset(f, 0, sizeof *f);
}
