#include "report/json_device.h"

#include "read/device.h"

void tlck_json_device_image(struct tlck_jw *w, const struct tlck_image *img)
{
    const struct tlck_device_info *d = &img->dev;
    char arch[32];
    size_t with_lines = 0;
    for (size_t i = 0; i < img->nfuncs; i++)
        with_lines += img->funcs[i].has_lines;
    tlck_device_arch_name(arch, sizeof arch, d->sm, d->arch_suffix, d->is_virtual);
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "kind", img->kind == TLCK_IMAGE_PTX ? "ptx" : "cubin");
    tlck_jw_str(w, "label", img->label);
    tlck_jw_str(w, "section", d->section);
    tlck_jw_uint(w, "container", d->container);
    tlck_jw_uint(w, "entry", d->entry);
    tlck_jw_str(w, "arch", arch);
    tlck_jw_uint(w, "sm", d->sm);
    tlck_jw_bool(w, "virtual", d->is_virtual);
    tlck_jw_str(w, "codec", d->codec ? d->codec : "none");
    tlck_jw_uint(w, "stored_size", d->stored_size);
    tlck_jw_uint(w, "size", d->size);
    tlck_jw_bool(w, "lineinfo", d->has_lineinfo);
    tlck_jw_bool(w, "debug", d->is_debug);
    tlck_jw_bool(w, "relocatable", d->is_relocatable);
    tlck_jw_uint(w, "kernels", d->nkernels);
    tlck_jw_uint(w, "functions", img->nfuncs);
    tlck_jw_uint(w, "functions_with_lines", with_lines);
    tlck_jw_str(w, "toolkit", d->toolkit_version);
    tlck_jw_str(w, "producer", d->producer);
    tlck_jw_str(w, "options", d->ptxas_options);
    tlck_jw_str(w, "identifier", d->identifier);
    tlck_jw_str(w, "error", d->error);
    tlck_jw_end(w);
}
