/* lib/elf_file.c: libelf open from memory, section lookup, raw bytes and SHF_COMPRESSED (zlib, zstd) inflation.
 * Every section is asked for by index and by name so that the name lookup (shstrndx, sh_name) is exercised too. */
#include "fuzz_util.h"
#include "trueline/elf_file.h"

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
    }
    tl_elf_close(&e);
    return 0;
}
