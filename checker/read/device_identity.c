/* The identity of a device image's code (read/device_identity.h): XXH3-128 over e_flags and, for each
 * executable section in header order, its name, its size and its bytes with the 16-byte instruction blocks
 * that relocations name zeroed. Those are the bytes the driver patches when it loads the image, so the cubin
 * as built, as shipped and as relocated into a GPU coredump hash alike; line sections, addresses and symbol
 * values are never read. */
#include "read/device_identity.h"

#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trueline/elf_file.h"
#include "trueline/file_kind.h"
#include "trueline/hash.h"

/* Zeroes the 16-byte block of every relocation of section `target` (SHT_REL and SHT_RELA sections whose
 * sh_info names it). SASS instructions are 16 bytes wide on every SM trueline reads (sm_70 and later). */
static void mask_relocated(const tl_elf *e, size_t target, unsigned char *code, size_t size)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA) || sh.sh_info != target)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d && sh.sh_entsize ? d->d_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t off;
            if (sh.sh_type == SHT_RELA) {
                GElf_Rela r;
                if (!gelf_getrela(d, (int)i, &r))
                    break;
                off = r.r_offset;
            } else {
                GElf_Rel r;
                if (!gelf_getrel(d, (int)i, &r))
                    break;
                off = r.r_offset;
            }
            uint64_t block = off & ~(uint64_t)15;
            if (block < size)
                memset(code + block, 0, size - block < 16 ? (size_t)(size - block) : 16);
        }
    }
}

int tlck_device_identity(const unsigned char *p, size_t n, unsigned char id[TLCK_DEVICE_ID_LEN], char *err,
                         size_t errlen)
{
    tl_elf e;
    tl_error er;
    char dummy[1];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (tl_elf_open_mem(&e, "device image", p, n, &er) != 0) {
        snprintf(err, errlen, "%s", er.msg);
        tl_elf_close(&e);
        return -1;
    }
    if (e.ehdr.e_machine != TL_EM_CUDA) {
        snprintf(err, errlen, "not a CUDA ELF (e_machine %u)", (unsigned)e.ehdr.e_machine);
        tl_elf_close(&e);
        return -1;
    }
    tl_hasher *h = tl_hasher_new();
    if (!h) {
        snprintf(err, errlen, "out of memory");
        tl_elf_close(&e);
        return -1;
    }
    uint32_t flags = (uint32_t)e.ehdr.e_flags;
    unsigned char fl[4] = { (unsigned char)flags, (unsigned char)(flags >> 8), (unsigned char)(flags >> 16),
                            (unsigned char)(flags >> 24) };
    tl_hasher_update(h, fl, sizeof fl);
    size_t code_sections = 0;
    int failed = 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while (!failed && (scn = elf_nextscn(e.elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
            continue;
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) {
            snprintf(err, errlen, "code section %s lies outside the image", tl_elf_section_name(&e, &sh));
            failed = 1;
            break;
        }
        unsigned char *code = malloc(sh.sh_size ? sh.sh_size : 1);
        if (!code) {
            snprintf(err, errlen, "out of memory");
            failed = 1;
            break;
        }
        memcpy(code, p + sh.sh_offset, sh.sh_size);
        mask_relocated(&e, elf_ndxscn(scn), code, sh.sh_size);
        uint64_t size = sh.sh_size;
        unsigned char sz[8];
        for (int i = 0; i < 8; i++)
            sz[i] = (unsigned char)(size >> (8 * i));
        tl_hasher_update_str(h, tl_elf_section_name(&e, &sh));
        tl_hasher_update(h, sz, sizeof sz);
        tl_hasher_update(h, code, sh.sh_size);
        free(code);
        code_sections++;
    }
    tl_hash128 v = tl_hasher_final(h);
    tl_elf_close(&e);
    if (failed)
        return -1;
    if (code_sections == 0) {
        snprintf(err, errlen, "the image has no code section");
        return -1;
    }
    for (int i = 0; i < 8; i++) {
        id[i] = (unsigned char)(v.hi >> (56 - 8 * i));
        id[8 + i] = (unsigned char)(v.lo >> (56 - 8 * i));
    }
    return 0;
}
