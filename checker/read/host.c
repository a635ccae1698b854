/* Host ELF reader: symbols -> separate debug file -> DWARF units/subprograms (libdwarf) -> line coverage (own
 * decoder). Supported: ELF64 little-endian; relocatable objects of x86-64 and aarch64 only (their .rela.debug_*
 * are applied in debug_sections.c); other 64-bit LE machines only when linked. ELF32, big-endian files and
 * relocatable objects of other machines with relocated debug sections are rejected with a message (exit 2). */
#include "read/host_internal.h"
#include "read/readers.h"
#include "trueline/elf_dynamic.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sub_key {
    uint64_t key;
    int cu;
};

static int by_key(const void *a, const void *b)
{
    const struct sub_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Functions not covered by rows are attributed to a CU through the subprogram at their address, so per-CU
 * percentages count them too (binary search: libnccl.so.2 has 3,348 uncovered functions, 5,311 subprograms). */
static void count_per_cu(struct tlck_image *img, const int *func_cu, int is_rel)
{
    struct sub_key *k = calloc(img->nsubprograms ? img->nsubprograms : 1, sizeof *k);
    for (size_t i = 0; k && i < img->nsubprograms; i++) {
        const struct tlck_subprogram *s = &img->subprograms[i];
        k[i] = (struct sub_key){ is_rel ? TLCK_ADDR_KEY(s->shndx, s->low_pc) : s->low_pc, s->cu };
    }
    if (k)
        qsort(k, img->nsubprograms, sizeof *k, by_key);
    for (size_t i = 0; i < img->nfuncs; i++) {
        struct tlck_function *fn = &img->funcs[i];
        int cu = func_cu[i];
        if (cu < 0 && k) {
            struct sub_key want = { is_rel ? TLCK_ADDR_KEY(fn->shndx, fn->addr) : fn->addr, -1 };
            const struct sub_key *hit = bsearch(&want, k, img->nsubprograms, sizeof *k, by_key);
            cu = hit ? hit->cu : -1;
        }
        if (cu < 0 || (size_t)cu >= img->ncus)
            continue;
        if (!fn->cu)
            fn->cu = tlck_strdup(img->cus[cu].name);
        if (!fn->cu_unit)
            fn->cu_unit = (unsigned)cu + 1;
        img->cus[cu].funcs++;
        img->cus[cu].funcs_covered += fn->has_lines;
    }
    free(k);
}

struct dwarf_job {
    struct tlck_image *img;
    const struct tlck_debug_sections *ds;
    const struct tlck_dwarf_alt *alt;
    const tl_elf *e;
    tl_error err;
    int rc, malformed;
};

static void *dwarf_thread(void *arg)
{
    struct dwarf_job *j = arg;
    j->rc = tlck_read_dwarf_info(j->img, j->ds, j->alt, j->e, &j->err, &j->malformed);
    return NULL;
}

/* path: dbg's file (for a supplementary file named relative to it). */
static void read_debug(struct tlck_file *f, const tl_elf *dbg, const char *path, const struct tlck_options *o, int is_rel)
{
    struct tlck_debug_sections ds, alt_ds = { 0 };
    tl_error err;
    struct tlck_image *img = &f->host;
    if (tlck_debug_sections_load(&ds, dbg, &err) != 0) {
        img->dwarf_read_error = 1;
        f->line_error = tlck_asprintf("%s", err.msg);
        tlck_debug_sections_free(&ds);
        return;
    }
    /* dwz -m: names shared with other files live in a supplementary file */
    tl_elf alt_elf; /* open while its sections are read: they point into it */
    char *alt_name = NULL, *alt_path = NULL;
    struct tlck_dwarf_alt alt = { 0 };
    int have_alt = tlck_find_dwarf_alt(f, dbg, path, o, &alt_elf, &alt_name, &alt_path) == 1;
    if (have_alt)
        alt_elf.budget = dbg->budget; /* its sections count in the same input's budget */
    if (have_alt && tlck_debug_sections_load(&alt_ds, &alt_elf, &err) == 0)
        alt.ds = &alt_ds;
    else if (have_alt)
        tlck_file_warn(f, "supplementary DWARF file %s: %s", alt_path, err.msg);
    alt.name = alt_name;
    alt.path = alt_path;
    /* .debug_info (libdwarf) and .debug_line (ours) are independent until CUs and rows meet: read them side by
     * side (on libnccl.so.2 the two take about the same time). */
    struct dwarf_job job = { .img = img, .ds = &ds, .alt = &alt, .e = dbg };
    pthread_t t;
    const struct tlck_debug_section *dl = tlck_debug_section(&ds, ".debug_line");
    /* small files: a thread costs more than it saves, and -j already keeps the CPUs busy */
    int threaded = dl && dl->bytes.n > ((size_t)1 << 20) && pthread_create(&t, NULL, dwarf_thread, &job) == 0;
    if (!threaded)
        dwarf_thread(&job);
    struct tlck_line_cover *lc = tlck_line_cover_decode(&ds, is_rel);
    if (threaded)
        pthread_join(t, NULL);
    if (job.rc != 0 && job.malformed && !f->error) {
        /* a damaged .debug_info is a damaged input (exit 2, as readelf calls it corrupt): a warning would let a
         * file whose subprograms were never read pass with exit 0 */
        img->dwarf_read_error = 1;
        f->error = tlck_asprintf("%s", job.err.msg);
    } else if (job.rc != 0) {
        img->dwarf_read_error = 1;
        tlck_file_warn(f, "%s", job.err.msg);
    }
    int *func_cu = calloc(img->nfuncs ? img->nfuncs : 1, sizeof *func_cu);
    if (func_cu && tlck_line_cover_apply(f, img, lc, func_cu, &err) == 0)
        count_per_cu(img, func_cu, is_rel);
    else if (!func_cu)
        tlck_line_cover_apply(f, img, lc, NULL, &err);
    free(func_cu);
    tlck_debug_sections_free(&ds);
    tlck_debug_sections_free(&alt_ds);
    if (have_alt)
        tl_elf_close(&alt_elf);
    free(alt_name);
    free(alt_path);
}

static int has_section(const tl_elf *e, const char *name)
{
    GElf_Shdr sh;
    return tl_elf_section(e, name, &sh) && sh.sh_type != SHT_NOBITS;
}

/* What the debug sections of e take, as stored: the file's own are what the shipped file pays for carrying
 * them; a separate debug file's are what the split (or eu-strip -f) took out of it. */
static void count_debug_bytes(const tl_elf *e, uint64_t *bytes, uint64_t *line_bytes)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        const char *name = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS ? tl_elf_section_name(e, &sh) : NULL;
        if (!name || (strncmp(name, ".debug_", 7) != 0 && strncmp(name, ".zdebug_", 8) != 0))
            continue;
        *bytes += sh.sh_size;
        if (strcmp(name + (name[1] == 'z' ? 8 : 7), "line") == 0)
            *line_bytes += sh.sh_size;
    }
}

int tlck_read_host(struct tlck_file *f, const tl_elf *e, const struct tlck_read_ctx *ctx)
{
    const struct tlck_options *o = ctx->o;
    tl_error err;
    f->elf_type = e->ehdr.e_type;
    f->machine = e->ehdr.e_machine;
    if (e->ehdr.e_ident[EI_CLASS] != ELFCLASS64 || e->ehdr.e_ident[EI_DATA] != ELFDATA2LSB) {
        f->error = tlck_asprintf("unsupported ELF: %s %s %s (e_machine %u); only 64-bit little-endian files are "
                               "audited (x86-64 and aarch64; see docs/host-audit.md)",
                               e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "32-bit",
                               e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB ? "big-endian" : "little-endian",
                               tlck_machine_name(e->ehdr.e_machine), e->ehdr.e_machine);
        return -1;
    }
    /* Linked files of any 64-bit LE machine need no relocation; a relocatable object's DWARF does, and we only
     * know x86-64's and aarch64's relocation types. Rather than report wrong names and addresses: refuse. */
    if (tlck_debug_relocs_unsupported(e)) {
        f->error = tlck_asprintf("unsupported ELF: relocatable %s object (e_machine %u) with relocated debug "
                               "sections; only x86-64 and aarch64 relocations are applied (see docs/host-audit.md)",
                               tlck_machine_name(e->ehdr.e_machine), e->ehdr.e_machine);
        return -1;
    }
    f->no_section_headers = tl_elf_sections_missing(e) != 0;
    char hide[160];
    if (tl_elf_sections_hide(e, hide, sizeof hide))
        f->sections_hide = tlck_strdup(hide);
    tlck_read_comments(f, e);
    count_debug_bytes(e, &f->debug_bytes, &f->debug_line_bytes);
    if (tlck_read_dynamic(f, e, &err) != 0) {
        f->error = strdup(err.msg);
        return -1;
    }
    f->is_libstdcxx = f->soname && strncmp(f->soname, "libstdc++.so", 12) == 0;
    tl_elf dbg;
    int separate = 0;
    if (!has_section(e, ".debug_info") && !has_section(e, ".debug_line") && e->ehdr.e_type != ET_REL)
        separate = tlck_find_debug_file(f, e, o, &dbg);
    if (separate) {
        dbg.budget = e->budget;
        count_debug_bytes(&dbg, &f->split_debug_bytes, &f->split_debug_line_bytes);
    }
    const tl_elf *src = separate ? &dbg : e;
    /* A stripped file keeps .dynsym only; its debug file keeps .symtab (objcopy --only-keep-debug). */
    if (tlck_read_functions(&f->host, separate ? &dbg : e, &err) != 0 || (separate && f->host.nfuncs == 0 &&
                                                                    tlck_read_functions(&f->host, e, &err) != 0)) {
        f->error = strdup(err.msg);
        if (separate)
            tl_elf_close(&dbg);
        return -1;
    }
    read_debug(f, src, separate ? f->debug_file : f->path, o, e->ehdr.e_type == ET_REL);
    if (separate)
        tl_elf_close(&dbg);
    return 0;
}
