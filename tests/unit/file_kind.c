/* lib/file_kind.c: ELF headers of either byte order and width, fatbins and archives told by their first bytes;
 * the truth is <elf.h>'s structures filled field by field, and the test binary's own header as the kernel
 * loaded it. */
#include "unit.h"

#include <ar.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "trueline/file_kind.h"

static void put16(unsigned char *p, unsigned v, int be)
{
    p[be ? 0 : 1] = (unsigned char)(v >> 8);
    p[be ? 1 : 0] = (unsigned char)v;
}

/* An ELF64 header as a big- or little-endian machine writes it. */
static void header64(unsigned char *h, int be, unsigned type, unsigned machine)
{
    memset(h, 0, sizeof(Elf64_Ehdr));
    memcpy(h, ELFMAG, SELFMAG);
    h[EI_CLASS] = ELFCLASS64;
    h[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
    h[EI_VERSION] = EV_CURRENT;
    put16(h + offsetof(Elf64_Ehdr, e_type), type, be);
    put16(h + offsetof(Elf64_Ehdr, e_machine), machine, be);
}

static void elf_both_endians(void)
{
    unsigned char h[sizeof(Elf64_Ehdr)];
    struct tl_elf_ident id;
    header64(h, 0, ET_REL, EM_X86_64);
    UNIT_CHECK("little-endian ELF", tl_sniff(h, sizeof h, &id) == TL_FILE_ELF);
    UNIT_CHECK("little-endian type and machine", id.type == ET_REL && id.machine == EM_X86_64 && !id.big_endian &&
                                                    id.elf_class == ELFCLASS64);
    header64(h, 1, ET_DYN, EM_PPC64);
    UNIT_CHECK("big-endian ELF", tl_sniff(h, sizeof h, &id) == TL_FILE_ELF);
    UNIT_CHECK("big-endian type and machine", id.type == ET_DYN && id.machine == EM_PPC64 && id.big_endian);
    header64(h, 0, ET_EXEC, TL_EM_CUDA);
    UNIT_CHECK("a cubin's machine is EM_CUDA", tl_sniff(h, sizeof h, &id) == TL_FILE_ELF && id.machine == 190);
#ifdef EM_CUDA
    UNIT_CHECK("TL_EM_CUDA is elf.h's EM_CUDA", TL_EM_CUDA == EM_CUDA);
#endif
    /* ELF32 keeps e_type and e_machine where ELF64 has them */
    UNIT_CHECK("ELF32 and ELF64 share the offsets", offsetof(Elf32_Ehdr, e_machine) == offsetof(Elf64_Ehdr, e_machine) &&
                                                        offsetof(Elf64_Ehdr, e_machine) + 2 == TL_SNIFF_BYTES);
    UNIT_CHECK("a prefix of the magic is no ELF", tl_sniff(h, 3, &id) == TL_FILE_UNKNOWN);
    UNIT_CHECK("a short ELF leaves the fields 0", tl_sniff(h, 8, &id) == TL_FILE_ELF && id.machine == 0 && id.type == 0);
}

static void other_kinds(void)
{
    const unsigned char fatbin[] = { 0x50, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0 };
    UNIT_CHECK("fatbin", tl_sniff(fatbin, sizeof fatbin, NULL) == TL_FILE_FATBIN);
    UNIT_CHECK("fatbin magic is the little-endian word",
               (uint32_t)(fatbin[0] | fatbin[1] << 8 | fatbin[2] << 16 | (uint32_t)fatbin[3] << 24) == TL_FATBIN_MAGIC);
    UNIT_CHECK("ar", tl_sniff(ARMAG, SARMAG, NULL) == TL_FILE_AR);
    UNIT_CHECK("thin ar", tl_sniff("!<thin>\n", 8, NULL) == TL_FILE_THIN_AR);
    UNIT_CHECK("text is unknown", tl_sniff("#!/bin/sh\n", 10, NULL) == TL_FILE_UNKNOWN);
    UNIT_CHECK("nothing is unknown", tl_sniff("", 0, NULL) == TL_FILE_UNKNOWN);
}

/* The running binary: its header read as <elf.h>'s struct says what the sniffer must find. */
static void own_binary(void)
{
    Elf64_Ehdr eh;
    enum tl_file_kind k;
    struct tl_elf_ident id;
    long n = tl_read_head("/proc/self/exe", &eh, sizeof eh);
    if (n != (long)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64)
        UNIT_SKIP("no 64-bit /proc/self/exe");
    UNIT_CHECK("own binary sniffed", tl_sniff_path("/proc/self/exe", &k, &id) == 0 && k == TL_FILE_ELF);
    UNIT_CHECK("own binary's machine and type", id.machine == eh.e_machine && id.type == eh.e_type);
    UNIT_CHECK("a missing file is an error", tl_sniff_path("/nonexistent/x", &k, &id) == -1);
}

UNIT_MAIN(UNIT_CASE(elf_both_endians), UNIT_CASE(other_kinds), UNIT_CASE(own_binary))
