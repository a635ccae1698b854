/* --list: device-image inventory of each input (text, or --format json with `kind` cubin|ptx per image).
 * The per-file ELF/PTX counts are the numbers `cuobjdump -all -lelf -lptx` prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "read/device.h"
#include "read/readers.h"
#include "report/json_device.h"
#include "report/json_write.h"
#include "tools/tools.h"

static const char *kind_name(const struct tl_image *img)
{
    return img->kind == TL_IMAGE_PTX ? "ptx" : "cubin";
}

static void count(const struct tl_file *f, size_t *cubins, size_t *ptx, size_t *errors)
{
    *cubins = *ptx = *errors = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tl_image *img = &f->devices[i];
        if (img->dev.error && !img->dev.sm)
            (*errors)++;
        else if (img->kind == TL_IMAGE_PTX)
            (*ptx)++;
        else
            (*cubins)++;
        if (img->dev.error && img->dev.sm)
            (*errors)++;
    }
}

static void text_image(FILE *out, const struct tl_image *img)
{
    const struct tl_device_info *d = &img->dev;
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
        fprintf(out, " %s=\"%s\"", img->kind == TL_IMAGE_PTX ? "jit-options" : "ptxas-options", d->ptxas_options);
    if (d->error)
        fprintf(out, " ERROR: %s", d->error);
    fputc('\n', out);
}

static int load_devices(const struct tl_input *in, const struct tl_options *o, struct tl_file *f)
{
    memset(f, 0, sizeof *f);
    f->display = strdup(in->display);
    f->path = strdup(in->path);
    struct tl_input_bytes b;
    tl_error err;
    if (tl_input_map(in, &b, &err) != 0) {
        f->error = strdup(err.msg);
        return -1;
    }
    int rc = tl_read_device_images(f, NULL, b.data, b.size, o);
    tl_input_unmap(&b);
    return rc;
}

int tl_tool_list(const struct tl_options *o)
{
    struct tl_inputs ins = { 0 };
    tl_inputs_expand(&ins, o->inputs, o->ninputs);
    int json = o->format && strcmp(o->format, "json") == 0, status = 0;
    FILE *out = stdout;
    if (json)
        fputs("{\"files\": [", out);
    for (size_t i = 0; i < ins.n; i++) {
        struct tl_file f;
        load_devices(&ins.v[i], o, &f);
        size_t cubins, ptx, errors;
        count(&f, &cubins, &ptx, &errors);
        if (f.error || errors)
            status = 2;
        if (f.error)
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
        if (json) {
            fprintf(out, "%s\n  {\"file\": ", i ? "," : "");
            tl_json_str(out, f.display);
            fprintf(out, ", \"cubins\": %zu, \"ptx\": %zu, \"errors\": %zu, \"error\": ", cubins, ptx, errors);
            tl_json_str(out, f.error);
            fputs(", \"images\": [", out);
            for (size_t k = 0; k < f.ndevices; k++) {
                fputs(k ? ",\n    " : "\n    ", out);
                tl_json_device_image(out, &f.devices[k]);
            }
            fputs("]}", out);
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
        tl_file_free(&f);
    }
    if (json)
        fputs("\n]}\n", out);
    tl_inputs_free(&ins);
    return status;
}
