/* Cubin summary: identification, notes, kernels and their line coverage (docs/cuda-formats.md §4-5). */
#include "read/cubin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/cubin_lines.h"
#include "read/device_identity.h"
#include "trueline/file_kind.h"
#include "trueline/elf_file.h"

#define STO_CUDA_ENTRY 0x10      /* st_other of kernels; cuobjdump prints this name */
#define NT_NV_CUINFO 1000
#define NT_NV_TKINFO 2000
#define COMPAT_ACCELERATOR 0x09  /* .nv.compat attribute: 1 = sm_XXa target */
/* e_flags' arch-specific ("a") bit: EF_CUDA_ACCELERATORS_V1 in the ABI 7 layout (SM in the low byte),
 * EF_CUDA_ACCELERATORS in the ABI 8 layout (SM in bits 8-15). ptxas 12.x and nvasm_internal set it; ptxas 13.0
 * marks sm_XXa in .nv.compat instead (§4.1). */
#define EF_CUDA_ACCELERATORS_V1 0x800
#define EF_CUDA_ACCELERATORS_V8 0x8

/* The toolkit release, from wherever this cubin's producer wrote it; decided after all notes are read. */
struct toolkit {
    unsigned cuinfo;    /* .note.nv.cuinfo (note version 2): release x10, e.g. 130 */
    unsigned tk_number; /* first tkinfo record's leading u32 when it is a release x10 (ptxas 12.x: 129) */
    char *tk_release;   /* first tkinfo record's tool-version string: "release 12.9" */
};

static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* A NUL-terminated string inside [base, end), or NULL. */
static const char *str_in(const unsigned char *base, const unsigned char *end, uint32_t off)
{
    if (off >= (size_t)(end - base) || !memchr(base + off, 0, (size_t)(end - base) - off))
        return NULL;
    return (const char *)base + off;
}

/* "-arch sm_100f" in ptxas options: the only place an `f` target leaves in the cubin (§4.1). */
static char suffix_from_options(const char *opt)
{
    const char *a = opt ? strstr(opt, "-arch sm_") : NULL;
    if (!a)
        return 0;
    a += 9;
    while (*a >= '0' && *a <= '9')
        a++;
    return *a == 'a' || *a == 'f' ? *a : 0;
}

/* "Cuda compilation tools, release 13.0, V13.0.88" → "13.0". */
static char *release_of(const char *version)
{
    const char *r = version ? strstr(version, "release ") : NULL;
    if (!r)
        return NULL;
    r += 8;
    size_t n = strspn(r, "0123456789.");
    return n ? strndup(r, n) : NULL;
}

static int has_g_option(const char *opt)
{
    for (const char *p = opt; p && (p = strstr(p, "-g")) != NULL; p += 2)
        if ((p == opt || p[-1] == ' ') && (p[2] == ' ' || p[2] == 0))
            return 1;
    return 0;
}

/* tkinfo: {u32 version, u32 object, tool, tool-version, branch, options} offsets into a string table at +0x18.
 * The leading u32 is 2 in ptxas 13 output and the release x10 (127, 129) in ptxas 12.x and nvasm_internal
 * output. nvlink output has one record per input cubin plus its own: the first names the producer, any may
 * say -g. */
static void tkinfo(struct tlck_device_info *d, struct toolkit *tk, const unsigned char *desc, size_t n)
{
    if (n < 0x18)
        return;
    const unsigned char *strs = desc + 0x18, *end = desc + n;
    const char *tool = str_in(strs, end, rd32(desc + 8));
    const char *ver = str_in(strs, end, rd32(desc + 12));
    const char *opt = str_in(strs, end, rd32(desc + 0x14));
    int first = !d->producer;
    if (!d->producer && tool)
        d->producer = tlck_asprintf("%s %s", tool, ver ? ver : "");
    if (first && rd32(desc) >= 100 && rd32(desc) < 1000)
        tk->tk_number = rd32(desc);
    if (first && !tk->tk_release)
        tk->tk_release = release_of(ver);
    if (tool && strcmp(tool, "ptxas") == 0 && !d->ptxas_options && opt)
        d->ptxas_options = strdup(opt);
    if (has_g_option(opt))
        d->is_debug = 1;
    if (!d->arch_suffix)
        d->arch_suffix = suffix_from_options(opt);
}

static void read_notes(Elf_Scn *scn, struct tlck_device_info *d, struct toolkit *tk)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off, next;
    while (data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
        const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;
        if (nh.n_namesz == 12 && memcmp((const char *)data->d_buf + name_off, "NVIDIA Corp", 12) == 0) {
            if (nh.n_type == NT_NV_TKINFO)
                tkinfo(d, tk, desc, nh.n_descsz);
            /* {u16 version, u16 virtual SM, u32 release x10}; version 1 (.note.nv.cuver of CUDA 12.x and
             * nvasm_internal) has no release there: its u32 is 1 */
            else if (nh.n_type == NT_NV_CUINFO && nh.n_descsz >= 8 && (desc[0] | desc[1] << 8) >= 2 && !tk->cuinfo)
                tk->cuinfo = rd32(desc + 4);
        }
        off = next;
    }
}

/* The release as cuobjdump prints it ("toolkit=12.9"): the cuinfo note, else the first tkinfo record, else
 * (ABI 7 cubins, which often carry no notes) the ELF header's e_version, where those producers store the
 * release x10 instead of EV_CURRENT. */
static void set_toolkit(struct tlck_device_info *d, struct toolkit *tk, unsigned abi, unsigned e_version)
{
    unsigned v = tk->cuinfo ? tk->cuinfo : tk->tk_number ? tk->tk_number : 0;
    if (!v && !tk->tk_release && abi < 8 && e_version >= 10 && e_version < 1000)
        v = e_version;
    if (!d->toolkit_version && v)
        d->toolkit_version = tlck_asprintf("%u.%u", v / 10, v % 10);
    else if (!d->toolkit_version) {
        d->toolkit_version = tk->tk_release; /* NULL when no producer said */
        tk->tk_release = NULL;
    }
    free(tk->tk_release);
    tk->tk_release = NULL;
}

/* .nv.compat: TLV records {u8 format, u8 attr, ...}; format 1 no value, 2 u8 (+pad), 3 u16, 4 {u16 size, data}. */
static int compat_accelerator(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i + 2 <= n) {
        unsigned fmt = p[i], attr = p[i + 1];
        size_t len = fmt == 1 ? 0 : fmt == 2 ? 2 : fmt == 3 ? 2 : fmt == 4 && i + 4 <= n ? 2 + (size_t)(p[i + 2] | p[i + 3] << 8) : SIZE_MAX;
        if (len == SIZE_MAX || len > n - i - 2)
            return 0;
        if (attr == COMPAT_ACCELERATOR && fmt == 2)
            return p[i + 2] == 1;
        i += 2 + len;
    }
    return 0;
}

static void read_functions(const tl_elf *e, struct tlck_image *img, const struct tlck_cubin_coverage *cov)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
        size_t cap = 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            GElf_Shdr tsh;
            Elf_Scn *ts;
            if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
                s.st_shndx >= SHN_LORESERVE || !(ts = elf_getscn(e->elf, s.st_shndx)) || !gelf_getshdr(ts, &tsh) ||
                strncmp(tl_elf_section_name(e, &tsh), ".text.", 6) != 0)
                continue;
            if (tlck_grow((void **)&img->funcs, &cap, img->nfuncs + 1, sizeof *img->funcs) != 0)
                return;
            struct tlck_function *f = &img->funcs[img->nfuncs++];
            memset(f, 0, sizeof *f);
            f->name = strdup(elf_strptr(e->elf, sh.sh_link, s.st_name) ? elf_strptr(e->elf, sh.sh_link, s.st_name) : "");
            f->addr = s.st_value;
            f->size = s.st_size;
            f->shndx = s.st_shndx;
            f->bind = GELF_ST_BIND(s.st_info);
            f->visibility = GELF_ST_VISIBILITY(s.st_other);
            f->is_kernel = (s.st_other & STO_CUDA_ENTRY) != 0;
            f->covered = tlck_cubin_covered(cov, s.st_shndx, s.st_value, s.st_value + s.st_size);
            f->has_lines = f->covered > 0;
            if (f->has_lines && cov->first_file)
                f->cu = strdup(cov->first_file);
            img->dev.nkernels += f->is_kernel;
        }
        return;
    }
}

int tlck_cubin_summarize(const unsigned char *p, size_t n, const char *name, tl_budget *budget, struct tlck_image *img)
{
    struct tlck_device_info *d = &img->dev;
    tl_elf e;
    tl_error err;
    if (tl_elf_open_mem(&e, name, p, n, &err) != 0) {
        d->error = tlck_asprintf("cubin: %s", err.msg);
        tl_elf_close(&e);
        return -1;
    }
    e.budget = budget;
    if (e.ehdr.e_machine != TL_EM_CUDA || e.ehdr.e_ident[EI_CLASS] != ELFCLASS64) {
        d->error = tlck_asprintf("not a 64-bit CUDA ELF (e_machine %u)", (unsigned)e.ehdr.e_machine);
        tl_elf_close(&e);
        return -1;
    }
    /* ABI v8 (CUDA 13) moved the SM to bits 8-15; choose by EI_ABIVERSION, never by the value (§4.1). */
    unsigned abi = e.ehdr.e_ident[EI_ABIVERSION];
    d->sm = abi >= 8 ? (e.ehdr.e_flags >> 8) & 0xFF : e.ehdr.e_flags & 0xFF;
    if (!d->arch_suffix && (e.ehdr.e_flags & (abi >= 8 ? EF_CUDA_ACCELERATORS_V8 : EF_CUDA_ACCELERATORS_V1)))
        d->arch_suffix = 'a';
    d->is_relocatable = e.ehdr.e_type == ET_REL;
    struct toolkit tk = { 0 };
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e.elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *sn = tl_elf_section_name(&e, &sh);
        if (sh.sh_type == SHT_NOTE)
            read_notes(scn, d, &tk);
        else if (strcmp(sn, ".debug_info") == 0)
            d->is_debug = 1, img->has_debug_info = 1;
        else if (strcmp(sn, ".debug_line") == 0)
            img->has_debug_line = 1, d->line_bytes += sh.sh_size, d->lines_split = sh.sh_size == 0;
        else if (strcmp(sn, ".nv_debug_line_sass") == 0)
            d->line_bytes += sh.sh_size;
        else if (strcmp(sn, ".nv.compat") == 0 && !d->arch_suffix) {
            tl_bytes b;
            if (tl_elf_section_raw(&e, scn, &b, &err) == 0) {
                if (compat_accelerator(b.p, b.n))
                    d->arch_suffix = 'a';
                tl_bytes_free(&b);
            }
        }
    }
    set_toolkit(d, &tk, abi, e.ehdr.e_version);
    /* shipped without its line info: the identity finds it in a debug store (read/store_lines.c) */
    if (d->lines_split && tlck_device_identity(p, n, d->line_id, NULL, 0) != 0)
        memset(d->line_id, 0, sizeof d->line_id);
    struct tlck_cubin_coverage cov;
    if (tlck_cubin_coverage(&e, &cov, &err) != 0) {
        d->error = tlck_asprintf("line table: %s", err.msg);
        img->dwarf_read_error = 1;
    }
    /* A header-only .debug_line (-Xptxas -lineinfo on PTX without .loc) has no rows: not line info (§4.4). */
    d->has_lineinfo = cov.rows > 0;
    if (cov.units) {
        img->cus = calloc(1, sizeof *img->cus);
        if (img->cus) {
            img->ncus = 1;
            img->cus[0].name = tlck_strdup(cov.first_file);
            img->cus[0].rows = cov.rows;
            img->cus[0].dwarf_version = 2;
        }
    }
    read_functions(&e, img, &cov);
    tlck_cubin_coverage_free(&cov);
    tl_elf_close(&e);
    return d->error ? -1 : 0;
}
