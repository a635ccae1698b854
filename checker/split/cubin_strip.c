#include "split/fatbin_split.h"
#include "split/cubin_layout.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What `nvcc -lineinfo` adds to a cubin (nvcc 13.0, diffed against the same build without it): the line
 * programs (.debug_line, .nv_debug_line_sass), the PTX text they point into (.nv_debug_ptx_txt, with a numeric
 * suffix in -rdc images), the inlined-function names (.debug_str), and the relocations of the first two
 * (.rel and/or .rela: -rdc images carry both). .debug_frame is there without -lineinfo too and stays: unwinding
 * needs it. */
static int is_line_section(const char *n)
{
    /* sm_100 and newer cubins carry a second copy for the Mercury finalizer: `.nv.merc.debug_line` and so on,
     * some of them aliases of the first copy's bytes (same offset and size) */
    if (strncmp(n, ".nv.merc.", 9) == 0)
        n += 8;
    return strcmp(n, ".debug_line") == 0 || strcmp(n, ".debug_str") == 0 || strcmp(n, ".nv_debug_line_sass") == 0 ||
           strncmp(n, ".nv_debug_ptx_txt", 17) == 0;
}

static int open_cubin(tl_elf *e, const unsigned char *p, size_t n, char *err, size_t errlen)
{
    tl_error te = { { 0 } };
    if (tl_elf_open_mem(e, "cubin", p, n, &te) != 0) {
        snprintf(err, errlen, "%s", te.msg);
        tl_elf_close(e);
        return -1;
    }
    if (e->ehdr.e_machine != EM_CUDA) {
        snprintf(err, errlen, "not a cubin (e_machine %u)", e->ehdr.e_machine);
        tl_elf_close(e);
        return -1;
    }
    return 0;
}

int tlck_cubin_strip_lines(const unsigned char *p, size_t n, unsigned char **out, size_t *out_n, char *err,
                           size_t errlen)
{
    *out = NULL;
    *out_n = 0;
    tl_elf e;
    if (open_cubin(&e, p, n, err, errlen) != 0)
        return -1;
    struct tlck_section_edit *ed = calloc(e.shnum ? e.shnum : 1, sizeof *ed);
    unsigned char *strip = calloc(e.shnum ? e.shnum : 1, 1);
    int rc = -1, any = 0, debug_image = 0;
    if (!ed || !strip) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 1; i < e.shnum; i++) {
        GElf_Shdr s;
        if (!gelf_getshdr(elf_getscn(e.elf, i), &s)) {
            snprintf(err, errlen, "section %zu: %s", i, elf_errmsg(-1));
            goto done;
        }
        const char *name = tl_elf_section_name(&e, &s);
        if (!name)
            continue;
        if (strcmp(name, ".debug_info") == 0)
            debug_image = 1; /* -G: full debug info, whose .debug_str this is too; not ours to take apart */
        if (is_line_section(name) && s.sh_type == SHT_PROGBITS)
            strip[i] = 1;
    }
    /* Their relocations: REL/RELA, and the Mercury copy's own type for them (`.nv.merc.rela.debug_line`,
     * 0x70000082), which also names its target in sh_info. Then any section that aliases stripped bytes. */
    for (size_t i = 1; i < e.shnum && !debug_image; i++) {
        GElf_Shdr s;
        gelf_getshdr(elf_getscn(e.elf, i), &s);
        const char *name = tl_elf_section_name(&e, &s);
        int is_rel = s.sh_type == SHT_REL || s.sh_type == SHT_RELA ||
                     (name && strncmp(name, ".nv.merc.rel", 12) == 0);
        if (is_rel && s.sh_info < e.shnum && strip[s.sh_info])
            strip[i] = 1;
    }
    for (size_t i = 1; i < e.shnum && !debug_image; i++) {
        GElf_Shdr s;
        gelf_getshdr(elf_getscn(e.elf, i), &s);
        for (size_t j = 1; j < e.shnum && !strip[i] && s.sh_size && s.sh_type != SHT_NOBITS; j++) {
            GElf_Shdr t;
            if (j != i && strip[j] && gelf_getshdr(elf_getscn(e.elf, j), &t) && t.sh_offset == s.sh_offset &&
                t.sh_size == s.sh_size)
                strip[i] = 1;
        }
    }
    for (size_t i = 1; i < e.shnum && !debug_image; i++) {
        if (!strip[i])
            continue;
        GElf_Shdr s;
        gelf_getshdr(elf_getscn(e.elf, i), &s);
        if (s.sh_size)
            any = 1;
        ed[i].replaced = 1;
    }
    if (debug_image || !any) {
        rc = 1;
        goto done;
    }
    tl_error te = { { 0 } };
    if (tlck_cubin_relayout(&e, ed, NULL, out, out_n, &te) != 0) {
        snprintf(err, errlen, "%s", te.msg);
        goto done;
    }
    rc = 0;
done:
    free(ed);
    free(strip);
    tl_elf_close(&e);
    return rc;
}

int tlck_cubin_add_build_id(const unsigned char *p, size_t n, const unsigned char *id, size_t idlen,
                            unsigned char **out, size_t *out_n, char *err, size_t errlen)
{
    *out = NULL;
    *out_n = 0;
    tl_elf e;
    if (open_cubin(&e, p, n, err, errlen) != 0)
        return -1;
    /* An ELF note: namesz, descsz, type, "GNU\0", the id padded to 4 (what ld --build-id writes). */
    size_t desc = (idlen + 3) & ~(size_t)3, len = 16 + desc;
    unsigned char *note = calloc(1, len);
    if (!note) {
        tl_elf_close(&e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint32_t h[3] = { 4, (uint32_t)idlen, NT_GNU_BUILD_ID };
    memcpy(note, h, sizeof h);
    memcpy(note + 12, "GNU", 4);
    memcpy(note + 16, id, idlen);
    struct tlck_section_new add = { ".note.gnu.build-id", SHT_NOTE, 4, 0, note, len };
    tl_error te = { { 0 } };
    int rc = tlck_cubin_relayout(&e, NULL, &add, out, out_n, &te);
    if (rc != 0)
        snprintf(err, errlen, "%s", te.msg);
    free(note);
    tl_elf_close(&e);
    return rc;
}
