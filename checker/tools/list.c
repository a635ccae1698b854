/* --list: device-image inventory of each input (text, or --format json with `kind` cubin|ptx per image).
 * The per-file ELF/PTX counts are the numbers `cuobjdump -all -lelf -lptx` prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "load.h"
#include "read/device.h"
#include "report/formats.h"
#include "report/json_device.h"
#include "report/json_write.h"
#include "tools/tools.h"

static const char *kind_name(const struct tlck_image *img)
{
    return img->kind == TLCK_IMAGE_PTX ? "ptx" : "cubin";
}

static void count(const struct tlck_file *f, size_t *cubins, size_t *ptx, size_t *errors)
{
    *cubins = *ptx = *errors = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_image *img = &f->devices[i];
        if (img->dev.error && !img->dev.sm)
            (*errors)++;
        else if (img->kind == TLCK_IMAGE_PTX)
            (*ptx)++;
        else
            (*cubins)++;
        if (img->dev.error && img->dev.sm)
            (*errors)++;
    }
}

static void text_image(FILE *out, const struct tlck_image *img)
{
    const struct tlck_device_info *d = &img->dev;
    fprintf(out, "  %-32s %-5s %-4s %9llu -> %9llu  lineinfo=%s kernels=%u%s%s", img->label, kind_name(img),
            d->codec ? d->codec : "none", (unsigned long long)d->stored_size, (unsigned long long)d->size,
            d->has_lineinfo ? "yes" : "no", d->nkernels, d->is_debug ? " debug(-G)" : "",
            d->is_relocatable ? " relocatable" : "");
    if (d->toolkit_version)
        fprintf(out, " cuda=%s", d->toolkit_version);
    if (d->identifier)
        fprintf(out, " ident=%s", d->identifier);
    if (d->producer)
        fprintf(out, " producer=\"%s\"", d->producer);
    if (d->ptxas_options)
        fprintf(out, " %s=\"%s\"", img->kind == TLCK_IMAGE_PTX ? "jit-options" : "ptxas-options", d->ptxas_options);
    if (d->error)
        fprintf(out, " ERROR: %s", d->error);
    fputc('\n', out);
}

static void json_file(struct tlck_jw *w, const struct tlck_file *f, size_t cubins, size_t ptx, size_t errors)
{
    tlck_jw_break(w, "\n  ");
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "file", f->display);
    tlck_jw_uint(w, "cubins", cubins);
    tlck_jw_uint(w, "ptx", ptx);
    tlck_jw_uint(w, "errors", errors);
    tlck_jw_str(w, "error", f->error);
    tlck_jw_array(w, "images");
    for (size_t k = 0; k < f->ndevices; k++) {
        tlck_jw_break(w, "\n    ");
        tlck_json_device_image(w, &f->devices[k]);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
}

int tlck_tool_list(const struct tlck_options *o)
{
    struct tlck_inputs ins = { .o = o };
    tlck_inputs_expand(&ins, o->inputs, o->ninputs);
    struct tlck_options lo = *o;
    lo.device_only = 1;
    int json = tlck_tool_output(o) == TLCK_TOOL_JSON, status = 0;
    FILE *out = stdout;
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    if (json) {
        tlck_jw_object(&w, NULL);
        tlck_jw_array(&w, "files");
    }
    for (size_t i = 0; i < ins.n; i++) {
        struct tlck_file f;
        tlck_load_file(&ins.v[i], &lo, &f);
        size_t cubins, ptx, errors;
        count(&f, &cubins, &ptx, &errors);
        if (f.error || errors)
            status = 2;
        if (f.error)
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
        if (json) {
            json_file(&w, &f, cubins, ptx, errors);
        } else if (!f.error) {
            if (f.ndevices == 0)
                fprintf(out, "%s: no device code\n", f.display);
            else
                fprintf(out, "%s: %zu cubin, %zu ptx%s\n", f.display, cubins, ptx, errors ? " (with errors)" : "");
            for (size_t k = 0; k < f.ndevices; k++)
                text_image(out, &f.devices[k]);
        }
        for (size_t k = 0; k < f.ndevices; k++)
            if (f.devices[k].dev.error)
                fprintf(stderr, "trueline-check: %s: %s: %s\n", f.display, f.devices[k].label,
                        f.devices[k].dev.error);
        tlck_file_free(&f);
    }
    if (json) {
        tlck_jw_break(&w, "\n");
        tlck_jw_end(&w);
        tlck_jw_end(&w);
        fputc('\n', out);
    }
    tlck_inputs_free(&ins);
    return status;
}
