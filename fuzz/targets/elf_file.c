/* lib/elf_file.c: libelf open from memory, section lookup, raw bytes and SHF_COMPRESSED (zlib, zstd) inflation.
 * Every section is asked for by index and by name so that the name lookup (shstrndx, sh_name) is exercised too.
 * lib/elf_dynamic.c: the loader's view (program headers, the dynamic segment), every range it hands out read. */
#include "fuzz_util.h"
#include "trueline/elf_dynamic.h"
#include "trueline/elf_file.h"

static void loader_view(const tl_elf *e)
{
    tl_elf_dynview v;
    tl_error err;
    char hide[160];
    (void)tl_elf_sections_missing(e);
    (void)tl_elf_sections_hide(e, hide, sizeof hide);
    if (tl_elf_dynview_read(e, &v, &err) != 0)
        return;
    const tl_elf_range r[] = { v.dynamic, v.symtab, v.strtab, v.versym, v.verneed, v.verdef };
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        fuzz_touch(e->data + r[i].off, (size_t)r[i].size);
    for (size_t i = 0; i < v.nsyms && i < 4096; i++) { /* every symbol's name, as the reader asks for it */
        uint32_t name;
        memcpy(&name, e->data + v.symtab.off + i * v.syment, sizeof name);
        const char *s = tl_elf_dynview_str(e, &v, name);
        if (s)
            fuzz_touch((const unsigned char *)s, strlen(s));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tl_elf e;
    tl_error err;
    if (tl_elf_open_mem(&e, "fuzz.o", data, size, &err) == 0) {
        Elf_Scn *scn = NULL;
        size_t seen = 0;
        while ((scn = elf_nextscn(e.elf, scn)) != NULL && seen++ < 4096) {
            GElf_Shdr sh;
            tl_bytes b;
            if (!gelf_getshdr(scn, &sh))
                continue;
            const char *name = tl_elf_section_name(&e, &sh);
            if (tl_elf_section_raw(&e, scn, &b, &err) == 0)
                tl_bytes_free(&b);
            if (tl_elf_section_bytes(&e, scn, &b, &err) == 0) {
                fuzz_touch(b.p, b.n);
                tl_bytes_free(&b);
            }
            (void)tl_elf_section(&e, name, NULL);
        }
        (void)tl_elf_section(&e, ".debug_line", NULL);
        loader_view(&e);
    }
    tl_elf_close(&e);
    return 0;
}
