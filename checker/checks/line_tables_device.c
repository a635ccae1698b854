/* line-tables, device part: does every kernel (each function in a cubin's .text.<name>) have line rows?
 *
 * A fatbin carries the same kernel once per target arch; a kernel without rows is reported once, naming the
 * images it lacks rows in, so that "one TU built without -lineinfo" reads as exactly that TU's kernels. A file
 * whose device code has no line information at all gets one finding instead of one per kernel (libcublasLt
 * has 5449 cubins). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/code_origin.h"
#include "checks/device_checks.h"
#include "checks/host_util.h"

static const char *const HINT = "compile the device code with nvcc -lineinfo (or -G for debug builds); "
                                "-Xptxas -lineinfo alone gives no source lines when the PTX has no .loc";

struct missing { const char *name; const struct tlck_image *img; int is_kernel; };

static int cmp_missing(const void *a, const void *b)
{
    const struct missing *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->img < y->img ? -1 : x->img > y->img);
}

/* Joins the labels of the images in m[0..n) into one owned string. */
static char *labels(const struct missing *m, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(m[i].img->label) + 2;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? ", " : "", m[i].img->label);
    *p = 0;
    return s;
}

static void report_missing(const struct tlck_file *f, struct missing *m, size_t n, enum tlck_severity sev,
                           struct tlck_findings *out)
{
    qsort(m, n, sizeof *m, cmp_missing);
    for (size_t i = 0; i < n;) { /* all of them: the text report shortens long lists */
        size_t j = i + 1;
        while (j < n && strcmp(m[j].name, m[i].name) == 0)
            j++;
        char *l = labels(m + i, j - i);
        int cubin_has_lines = 0;
        for (size_t k = i; k < j; k++)
            cubin_has_lines |= m[k].img->dev.has_lineinfo;
        tlck_emit_symbol(out, "line-tables", sev, f->display, m[i].name, HINT, "%s has no line rows in %s%s",
                         m[i].is_kernel ? "kernel" : "device function", l ? l : "?",
                         cubin_has_lines ? "" : " (cubin built without line information)");
        free(l);
        i = j;
    }
}

/* Whose a device function without rows is when not the user's: nvcc's helpers, a vendor library's code, a
 * compiler-made deleting destructor; NULL for the user's own (and for any function with rows). */
static const struct tlck_origin *fn_origin(const struct tlck_image *img, const struct tlck_function *fn)
{
    if (fn->has_lines)
        return NULL;
    const struct tlck_origin *o = tlck_device_origin(fn->name, fn->is_kernel);
    return o ? o : tlck_deleting_dtor_origin(img->funcs, img->nfuncs, fn);
}

/* An image all of whose functions are a vendor library's (libcudadevrt's own cubins and PTX, which nvcc -rdc
 * links in as a relocatable fatbin of their own): its lack of line info is the vendor's, not the build's. */
static int vendor_image(const struct tlck_image *img)
{
    for (size_t k = 0; k < img->nfuncs; k++) {
        const struct tlck_origin *o = fn_origin(img, &img->funcs[k]);
        if (!o || o->kind != TLCK_ORIGIN_VENDOR)
            return 0;
    }
    return img->nfuncs > 0;
}

static void cubin_coverage(const struct tlck_file *f, const struct tlck_image *img, struct tlck_findings *out)
{
    size_t total = 0, covered = 0;
    for (size_t k = 0; k < img->nfuncs; k++) {
        if (fn_origin(img, &img->funcs[k]))
            continue;
        total++;
        covered += img->funcs[k].has_lines;
    }
    if (img->dev.has_lineinfo && total && covered < total)
        tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                "%s: %zu of %zu device functions have line rows (%.1f%%)", img->label, covered, total,
                100.0 * (double)covered / (double)total);
}

/* Helper names already counted in this file: a fatbin repeats a helper in every image that divides 64-bit
 * integers (thousands of cubins in NVIDIA's libraries), while the distinct helpers are a handful. */
struct seen_names {
    const char **v;
    size_t n, cap;
};

static int first_sight(struct seen_names *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return 0;
    if (tlck_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) == 0)
        s->v[s->n++] = name;
    return 1;
}

static void report_helpers(const struct tlck_file *f, const struct tlck_origin_tally *t, struct tlck_findings *out)
{
    for (size_t i = 0; i < t->n; i++)
        tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                "%zu device function%s of %s %s no line rows; %s (e.g. %s)", t->count[i], t->count[i] == 1 ? "" : "s",
                t->origin[i]->name, t->count[i] == 1 ? "has" : "have", t->origin[i]->why, t->example[i]);
}

/* Images shipped without their line info whose debug-store part was not read: one finding for the file, as
 * their functions' missing rows say nothing about the build (the split took them out). */
static void report_split(const struct tlck_file *f, size_t nsplit, size_t cubins, const struct tlck_image *asked,
                         enum tlck_severity sev, struct tlck_findings *out)
{
    if (!asked) { /* not the build's fault: what the audit was given cannot show it; a warning at most */
        char host[160] = "";
        if (f->split_build_id && !f->split_store_asked) /* the host part's, said here so that the file gets one */
            snprintf(host, sizeof host, ", nor does the host code (its DWARF is in debug file %.80s)",
                     f->split_build_id);
        tlck_emit(out, "line-tables", sev < TLCK_SEV_WARNING ? sev : TLCK_SEV_WARNING, f->display, NULL,
                  "pass --debug-store STORE (or [audit] debug_store, or DEBUGINFOD_URLS) to check the line info "
                  "the split wrote there",
                  "line info split out; store not given: %zu of %zu cubins carry no line rows to check%s", nsplit,
                  cubins, host);
        return;
    }
    char hex[2 * sizeof asked->dev.line_id + 1];
    for (size_t i = 0; i < sizeof asked->dev.line_id; i++)
        snprintf(hex + 2 * i, 3, "%02x", asked->dev.line_id[i]);
    tlck_emit(out, "line-tables", sev, f->display, NULL,
              "give the store the split wrote these images' line info to (the same build's --split --debug-store)",
              "line info split out; the debug store has no part for %zu of %zu cubins (e.g. %s, identity %s)", nsplit,
              cubins, asked->label, hex);
}

/* A PTX image beside a cubin whose line info was split out (same fatbin container: one compile) lost its .loc
 * lines in the same split, and the store keeps only the cubin's: its missing .loc says nothing about the build.
 * 0: not split; 1: split, its cubin's lines read from the store (counted as the build had it: with .loc);
 * 2: split, the store not given or without the part (said once for the file). */
static int ptx_split(const struct tlck_file *f, const struct tlck_image *ptx)
{
    if (ptx->dev.has_lineinfo)
        return 0;
    int found = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_device_info *d = &f->devices[i].dev;
        if (f->devices[i].kind == TLCK_IMAGE_CUBIN && d->lines_split && d->container == ptx->dev.container &&
            (d->section == ptx->dev.section || (d->section && ptx->dev.section && strcmp(d->section, ptx->dev.section) == 0)))
            found = d->line_store ? 1 : found ? found : 2;
    }
    return found;
}

void tlck_line_tables_device(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out)
{
    if (sev == TLCK_SEV_NONE || f->ndevices == 0)
        return;
    size_t nsplit = 0, all_cubins = 0;
    const struct tlck_image *asked = NULL;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_image *img = &f->devices[i];
        if (img->kind != TLCK_IMAGE_CUBIN || img->dev.error || img->nfuncs == 0)
            continue;
        all_cubins++;
        if (img->dev.lines_split && !img->dev.line_store) {
            nsplit++;
            if (img->dev.store_asked && !asked)
                asked = img;
        }
    }
    if (nsplit)
        report_split(f, nsplit, all_cubins, asked, sev, out);
    size_t cubins = 0, cubins_lines = 0, ptx = 0, ptx_lines = 0, funcs = 0, funcs_lines = 0, nmiss = 0;
    struct missing *miss = NULL;
    size_t cap = 0;
    struct tlck_origin_tally helpers = { 0 };
    struct seen_names seen = { 0 };
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_image *img = &f->devices[i];
        if (img->dev.error) {
            tlck_emit(out, "line-tables", TLCK_SEV_ERROR, f->display, NULL, NULL, "device image %s cannot be decoded: %s",
                    img->label, img->dev.error);
            continue;
        }
        /* An image without a device function (a .cu of host code only, nvlink's device-link container) has
         * no code for line rows to describe: nvcc -lineinfo gives it none, and it is no finding. */
        if (img->nfuncs == 0)
            continue;
        int split_ptx = img->kind == TLCK_IMAGE_PTX ? ptx_split(f, img) : 0;
        if (split_ptx == 2)
            continue; /* the split took its .loc out with its cubin's line sections */
        if (img->dev.lines_split && !img->dev.line_store)
            continue; /* said once for the file above */
        if (vendor_image(img)) { /* its functions said once per origin below, its image never the build's fault */
            for (size_t k = 0; k < img->nfuncs; k++)
                if (first_sight(&seen, img->funcs[k].name))
                    tlck_origin_add(&helpers, fn_origin(img, &img->funcs[k]), img->funcs[k].name);
            continue;
        }
        if (img->kind == TLCK_IMAGE_PTX) {
            ptx++;
            ptx_lines += img->dev.has_lineinfo || split_ptx == 1;
            continue;
        }
        cubins++;
        cubins_lines += img->dev.has_lineinfo;
        for (size_t k = 0; k < img->nfuncs; k++) {
            const struct tlck_function *fn = &img->funcs[k];
            const struct tlck_origin *o = fn_origin(img, fn);
            if (o) { /* not the user's code: counted once per file and name below, never the user's finding */
                if (first_sight(&seen, fn->name))
                    tlck_origin_add(&helpers, o, fn->name);
                continue;
            }
            funcs++;
            funcs_lines += fn->has_lines;
            if (!fn->has_lines && tlck_grow((void **)&miss, &cap, nmiss + 1, sizeof *miss) == 0)
                miss[nmiss++] = (struct missing){ fn->name, img, fn->is_kernel };
        }
        cubin_coverage(f, img, out);
    }
    if (!nsplit && cubins && cubins_lines == 0 && (ptx == 0 || ptx_lines == 0)) {
        /* (with split images, what is left is judged kernel by kernel: "no line info at all" is not known) */
        tlck_emit(out, "line-tables", sev, f->display, NULL, HINT,
                "device code has no line information: none of its %zu cubins (%zu device functions) and %zu PTX "
                "images has line rows", cubins, funcs, ptx);
    } else {
        if (nmiss)
            report_missing(f, miss, nmiss, sev, out);
        for (size_t i = 0; i < f->ndevices; i++) {
            const struct tlck_image *img = &f->devices[i];
            if (img->kind == TLCK_IMAGE_PTX && !img->dev.error && !img->dev.has_lineinfo && img->nfuncs &&
                !ptx_split(f, img) && !vendor_image(img))
                tlck_emit(out, "line-tables", sev, f->display, NULL, HINT,
                        "PTX image %s has no .loc/.file line directives", img->label);
        }
    }
    report_helpers(f, &helpers, out);
    free(seen.v);
    if (funcs && funcs_lines < funcs)
        tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                "device line coverage: %zu of %zu device functions (%.1f%%) in %zu of %zu cubins with line "
                "information; %zu of %zu PTX images with .loc", funcs_lines, funcs,
                100.0 * (double)funcs_lines / (double)funcs, cubins_lines, cubins, ptx_lines, ptx);
    free(miss);
}
