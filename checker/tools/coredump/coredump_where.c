/* PC → (module, device image, function, offset).
 *
 * The images in a core are relocated: each kernel's .text.<name> carries its device VA in sh_addr and the
 * STT_FUNC symbols carry VA + size (docs/coredump.md §4), so a PC is looked up by address, no slide. The grid's
 * module (libcudacore's getElfImage route: grid → moduleHandle → module row → image) is tried first, then every
 * other image of the device, which catches PCs in other modules (non-inlined library callees). */
#include <stdlib.h>
#include <string.h>
#include <demangle.h>

#include "tools/coredump/coredump_report.h"

struct cd_image {
    const struct tlck_cd_module *m;
    size_t dev, ctx_row, module_row;
    int tried, ok;
    tl_elf elf;
};

struct cd_images {
    size_t n;
    struct cd_image *v;
};

struct cd_images *cd_images_new(const struct tlck_core *c)
{
    struct cd_images *im = calloc(1, sizeof *im);
    if (!im)
        return NULL;
    for (size_t d = 0; d < c->ndevices; d++)
        for (size_t x = 0; x < c->devices[d].ncontexts; x++)
            im->n += c->devices[d].contexts[x].nmodules;
    im->v = calloc(im->n ? im->n : 1, sizeof *im->v);
    if (!im->v) {
        free(im);
        return NULL;
    }
    size_t k = 0;
    for (size_t d = 0; d < c->ndevices; d++)
        for (size_t x = 0; x < c->devices[d].ncontexts; x++)
            for (size_t m = 0; m < c->devices[d].contexts[x].nmodules; m++)
                im->v[k++] = (struct cd_image){ .m = &c->devices[d].contexts[x].modules[m], .dev = d,
                                                .ctx_row = x, .module_row = m };
    return im;
}

void cd_images_free(struct cd_images *im)
{
    if (!im)
        return;
    for (size_t i = 0; i < im->n; i++)
        if (im->v[i].tried)
            tl_elf_close(&im->v[i].elf);
    free(im->v);
    free(im);
}

const tl_elf *cd_image_elf(struct cd_images *im, const struct tlck_cd_module *m)
{
    for (size_t i = 0; i < im->n; i++) {
        struct cd_image *g = &im->v[i];
        if (g->m != m)
            continue;
        if (!g->tried) {
            g->tried = 1;
            tl_error err;
            g->ok = m->image && tl_elf_open_mem(&g->elf, "device image", m->image, m->image_n, &err) == 0;
        }
        return g->ok ? &g->elf : NULL;
    }
    return NULL;
}

static char *demangle_one(const char *mangled)
{
    char *d = strncmp(mangled, "_Z", 2) == 0 ? cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI) : NULL;
    return d ? d : strdup(mangled);
}

/* A __noinline__ device function is compiled once per kernel that calls it, and its symbol joins the two
 * mangled names: `$<kernel>$<function>`. It reads as cuda-gdb prints it, `function [clone kernel]`. */
char *cd_demangle(const char *mangled)
{
    const char *second = mangled[0] == '$' ? strchr(mangled + 1, '$') : NULL;
    if (!second || second == mangled + 1 || !second[1])
        return demangle_one(mangled);
    char *kernel_m = strndup(mangled + 1, (size_t)(second - mangled - 1));
    char *kernel = kernel_m ? demangle_one(kernel_m) : NULL, *fn = demangle_one(second + 1);
    char *out = kernel && fn ? tlck_asprintf("%s [clone %s]", fn, kernel) : NULL;
    free(kernel_m);
    free(kernel);
    free(fn);
    return out ? out : strdup(mangled);
}

/* The executable section holding pc, or NULL. */
static Elf_Scn *code_section(const tl_elf *e, uint64_t pc, GElf_Shdr *out)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, out) || !(out->sh_flags & SHF_EXECINSTR) || out->sh_type == SHT_NOBITS)
            continue;
        if (pc >= out->sh_addr && pc - out->sh_addr < out->sh_size)
            return scn;
    }
    return NULL;
}

/* The STT_FUNC symbol whose [value, value+size) holds pc; its name malloc'ed in *name. A kernel's symbol can
 * span the per-kernel clones of __noinline__ functions placed after its own code (ptxas sizes it to the whole
 * section), so the latest-starting symbol holding pc is the function pc is in. */
static int function_symbol(const tl_elf *e, uint64_t pc, char **name, uint64_t *start)
{
    GElf_Shdr sh;
    Elf_Scn *scn = NULL;
    const char *best = NULL;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data ? data->d_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
                continue;
            if (pc < sym.st_value || pc - sym.st_value >= sym.st_size || (best && sym.st_value <= *start))
                continue;
            const char *s = elf_strptr(e->elf, sh.sh_link, sym.st_name);
            if (!s || !*s)
                continue;
            best = s;
            *start = sym.st_value;
        }
    }
    if (!best)
        return -1;
    *name = strdup(best);
    return *name ? 0 : -1;
}

static int try_image(struct cd_images *im, struct cd_image *g, uint64_t pc, struct cd_where *w)
{
    const tl_elf *e = cd_image_elf(im, g->m);
    GElf_Shdr sh;
    Elf_Scn *scn = e ? code_section(e, pc, &sh) : NULL;
    if (!scn)
        return 0;
    const char *sec = tl_elf_section_name(e, &sh);
    uint64_t start = sh.sh_addr;
    if (function_symbol(e, pc, &w->mangled, &start) != 0)
        w->mangled = strdup(strncmp(sec, ".text.", 6) == 0 ? sec + 6 : sec);
    w->found = 1;
    w->section = strdup(sec);
    w->name = w->mangled ? cd_demangle(w->mangled) : NULL;
    w->offset = pc - start;
    w->code_size = sh.sh_size;
    w->module = g->m;
    w->ctx_row = g->ctx_row;
    w->module_row = g->module_row;
    w->image_shndx = g->m->shndx;
    return 1;
}

void cd_resolve_where(struct cd_images *im, const struct tlck_core *c, const struct cd_stop *s, uint64_t pc,
                      struct cd_where *w)
{
    const struct tlck_cd_device *d = &c->devices[s->dev];
    const struct tlck_cd_module *first = s->grid ? tlck_core_grid_module(d, s->grid) : NULL;
    w->pc = pc;
    w->sm = d->sm_major * 10 + d->sm_minor;
    for (size_t i = 0; first && i < im->n; i++)
        if (im->v[i].m == first && try_image(im, &im->v[i], pc, w))
            return;
    for (size_t i = 0; i < im->n; i++)
        if (im->v[i].dev == s->dev && im->v[i].m != first && try_image(im, &im->v[i], pc, w))
            return;
    if (!first || !first->image)
        w->line_note = strdup("the core holds no device image for this kernel's module (dumped with "
                              "skip_nonrelocated_elf_images and no relocated image?)");
    else
        w->line_note = strdup("the PC lies in no code section of the device images in this core");
}
