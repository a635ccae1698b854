#include "report/json_device.h"

#include "read/device.h"
#include "report/json_write.h"

static const char *yes(int b) { return b ? "true" : "false"; }

void tl_json_device_image(FILE *out, const struct tl_image *img)
{
    const struct tl_device_info *d = &img->dev;
    char arch[32];
    size_t with_lines = 0;
    for (size_t i = 0; i < img->nfuncs; i++)
        with_lines += img->funcs[i].has_lines;
    tl_device_arch_name(arch, sizeof arch, d->sm, d->arch_suffix, d->is_virtual);
    fprintf(out, "{\"kind\": \"%s\", \"label\": ", img->kind == TL_IMAGE_PTX ? "ptx" : "cubin");
    tl_json_str(out, img->label);
    fputs(", \"section\": ", out);
    tl_json_str(out, d->section);
    fprintf(out, ", \"container\": %u, \"entry\": %u, \"arch\": \"%s\", \"sm\": %u, \"virtual\": %s, "
            "\"codec\": \"%s\", \"stored_size\": %llu, \"size\": %llu, \"lineinfo\": %s, \"debug\": %s, "
            "\"relocatable\": %s, \"kernels\": %u, \"functions\": %zu, \"functions_with_lines\": %zu, \"toolkit\": ",
            d->container, d->entry, arch, d->sm, yes(d->is_virtual), d->codec ? d->codec : "none",
            (unsigned long long)d->stored_size, (unsigned long long)d->size, yes(d->has_lineinfo), yes(d->is_debug),
            yes(d->is_relocatable), d->nkernels, img->nfuncs, with_lines);
    tl_json_str(out, d->toolkit_version);
    fputs(", \"producer\": ", out);
    tl_json_str(out, d->producer);
    fputs(", \"options\": ", out);
    tl_json_str(out, d->ptxas_options);
    fputs(", \"identifier\": ", out);
    tl_json_str(out, d->identifier);
    fputs(", \"error\": ", out);
    tl_json_str(out, d->error);
    fputc('}', out);
}
