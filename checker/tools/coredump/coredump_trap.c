/* Which instruction stopped a warp that a trap or breakpoint broke (the warp row's isWarpBroken).
 *
 * The lanes' PC is the instruction after the trap (cuda-gdb shows the same PC and its line, which can be the
 * next statement's), so the report names the instruction just before it when that is a BPT: __trap(),
 * asm("trap;") and asm("brkpt;") all compile to BPT.TRAP on sm_90 (nvdisasm of
 * tests/data/coredumps/kinds/traps.1.0.sm_90.cubin). From Volta on an instruction is 16 bytes, the opcode in
 * bits 0-11 of the first little-endian word (read/sass_calls.c); BPT is 0x95c, its mode in bits 20-22 of
 * the second word (3: TRAP in every BPT of that cubin; other modes are named by number). */
#include <string.h>

#include "model.h"
#include "read/sass_calls.h"
#include "tools/coredump/coredump_report.h"

#define SASS_INSN 16u
#define OP_BPT 0x95cu

static uint64_t word(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

char *cd_trap_insn(struct cd_images *im, const struct cd_where *w, uint64_t pc)
{
    const tl_elf *e = w->found ? cd_image_elf(im, w->module) : NULL;
    if (!e || tlck_sass_sm(&e->ehdr) < 70 || pc < SASS_INSN)
        return NULL;
    uint64_t at = pc - SASS_INSN;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS ||
            at < sh.sh_addr || at - sh.sh_addr > sh.sh_size || sh.sh_size - (at - sh.sh_addr) < SASS_INSN)
            continue;
        tl_bytes b;
        tl_error err;
        if (tl_elf_section_raw(e, scn, &b, &err) != 0)
            return NULL;
        uint64_t off = at - sh.sh_addr;
        char *name = NULL;
        if (off + SASS_INSN <= b.n && (word(b.p + off) & 0xfff) == OP_BPT) {
            unsigned mode = (unsigned)(word(b.p + off + 8) >> 20) & 7u;
            name = mode == 3 ? strdup("BPT.TRAP") : tlck_asprintf("BPT (mode %u)", mode);
        }
        tl_bytes_free(&b);
        return name;
    }
    return NULL;
}
