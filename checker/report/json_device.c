#include "report/json_device.h"

#include "read/device.h"

void tl_json_device_image(struct tl_jw *w, const struct tl_image *img)
{
    const struct tl_device_info *d = &img->dev;
    char arch[32];
    size_t with_lines = 0;
    for (size_t i = 0; i < img->nfuncs; i++)
        with_lines += img->funcs[i].has_lines;
    tl_device_arch_name(arch, sizeof arch, d->sm, d->arch_suffix, d->is_virtual);
    tl_jw_object(w, NULL);
    tl_jw_str(w, "kind", img->kind == TL_IMAGE_PTX ? "ptx" : "cubin");
    tl_jw_str(w, "label", img->label);
    tl_jw_str(w, "section", d->section);
    tl_jw_uint(w, "container", d->container);
    tl_jw_uint(w, "entry", d->entry);
    tl_jw_str(w, "arch", arch);
    tl_jw_uint(w, "sm", d->sm);
    tl_jw_bool(w, "virtual", d->is_virtual);
    tl_jw_str(w, "codec", d->codec ? d->codec : "none");
    tl_jw_uint(w, "stored_size", d->stored_size);
    tl_jw_uint(w, "size", d->size);
    tl_jw_bool(w, "lineinfo", d->has_lineinfo);
    tl_jw_bool(w, "debug", d->is_debug);
    tl_jw_bool(w, "relocatable", d->is_relocatable);
    tl_jw_uint(w, "kernels", d->nkernels);
    tl_jw_uint(w, "functions", img->nfuncs);
    tl_jw_uint(w, "functions_with_lines", with_lines);
    tl_jw_str(w, "toolkit", d->toolkit_version);
    tl_jw_str(w, "producer", d->producer);
    tl_jw_str(w, "options", d->ptxas_options);
    tl_jw_str(w, "identifier", d->identifier);
    tl_jw_str(w, "error", d->error);
    tl_jw_end(w);
}
