#include "read/device_identity.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trueline/elf_file.h"
#include "trueline/hash.h"

/* SASS instructions are 16 bytes from sm_70 on and 8 bytes before (where they come in 32-byte bundles with
 * a control word; a relocation there patches the 8-byte instruction at r_offset, which lies inside one aligned
 * 16-byte block either way). */
#define BLOCK 16

static int fail(char *err, size_t errlen, const char *msg, const char *detail)
{
    if (err)
        snprintf(err, errlen, "%s%s%s", msg, detail ? ": " : "", detail ? detail : "");
    return -1;
}

/* Zeroes the blocks of code (len bytes, a copy) that the relocation section rel touches. */
static int mask_relocated(const tl_elf *e, Elf_Scn *rel, const GElf_Shdr *rsh, unsigned char *code, size_t len)
{
    Elf_Data *d = elf_getdata(rel, NULL);
    if (!d || !rsh->sh_entsize)
        return d ? 0 : -1;
    size_t count = rsh->sh_size / rsh->sh_entsize;
    for (size_t k = 0; k < count; k++) {
        uint64_t off;
        if (rsh->sh_type == SHT_RELA) {
            GElf_Rela ra;
            if (!gelf_getrela(d, (int)k, &ra))
                return -1;
            off = ra.r_offset;
        } else {
            GElf_Rel r;
            if (!gelf_getrel(d, (int)k, &r))
                return -1;
            off = r.r_offset;
        }
        uint64_t b = off & ~(uint64_t)(BLOCK - 1);
        if (b < len)
            memset(code + b, 0, len - b < BLOCK ? len - b : BLOCK);
    }
    (void)e;
    return 0;
}

int tlck_device_identity(const unsigned char *p, size_t n, unsigned char id[TLCK_DEVICE_ID_LEN], char *err,
                         size_t errlen)
{
    tl_elf e;
    tl_error te = { { 0 } };
    if (tl_elf_open_mem(&e, "cubin", p, n, &te) != 0) {
        tl_elf_close(&e);
        return fail(err, errlen, "not an ELF image", te.msg);
    }
    if (e.ehdr.e_machine != EM_CUDA) {
        tl_elf_close(&e);
        return fail(err, errlen, "not a cubin", NULL);
    }
    tl_hasher *h = tl_hasher_new();
    uint64_t flags = e.ehdr.e_flags;
    tl_hasher_update(h, &flags, sizeof flags);
    int rc = -1;
    size_t ncode = 0;
    for (size_t i = 1; i < e.shnum; i++) {
        Elf_Scn *scn = elf_getscn(e.elf, i);
        GElf_Shdr s;
        if (!scn || !gelf_getshdr(scn, &s)) {
            fail(err, errlen, "bad section header", elf_errmsg(-1));
            goto done;
        }
        if (!(s.sh_flags & SHF_EXECINSTR) || s.sh_type == SHT_NOBITS)
            continue;
        const char *name = tl_elf_section_name(&e, &s);
        tl_bytes b = { 0 };
        if (!name || tl_elf_section_raw(&e, scn, &b, &te) != 0) {
            fail(err, errlen, "unreadable code section", te.msg);
            goto done;
        }
        unsigned char *code = malloc(b.n ? b.n : 1);
        if (!code) {
            tl_bytes_free(&b);
            fail(err, errlen, "out of memory", NULL);
            goto done;
        }
        memcpy(code, b.p, b.n);
        for (size_t j = 1; j < e.shnum; j++) {
            Elf_Scn *rs = elf_getscn(e.elf, j);
            GElf_Shdr rsh;
            if (!rs || !gelf_getshdr(rs, &rsh) || (rsh.sh_type != SHT_REL && rsh.sh_type != SHT_RELA) ||
                rsh.sh_info != i)
                continue;
            if (mask_relocated(&e, rs, &rsh, code, b.n) != 0) {
                free(code);
                tl_bytes_free(&b);
                fail(err, errlen, "unreadable relocation section", elf_errmsg(-1));
                goto done;
            }
        }
        uint64_t len = b.n;
        tl_hasher_update_str(h, name);
        tl_hasher_update(h, &len, sizeof len);
        tl_hasher_update(h, code, b.n);
        free(code);
        tl_bytes_free(&b);
        ncode++;
    }
    rc = ncode ? 0 : 1;
done:;
    tl_hash128 v = tl_hasher_final(h);
    if (rc == 0) {
        memcpy(id, &v.lo, 8);
        memcpy(id + 8, &v.hi, 8);
    }
    tl_elf_close(&e);
    return rc;
}
