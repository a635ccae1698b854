/* The SASS call decoder (checker/read/sass_calls.c) on a committed cubin, against nvdisasm's listing of it.
 *
 * `sass_calls --calls CUBIN...` prints every call it decodes, one per line, for tests/suites/sass_calls.sh to
 * compare with nvdisasm on many cubins: `<section> 0x<address> <REL|ABS> <callee symbol | 0x<address> | indirect |
 * ?>`, addresses as nvdisasm prints them (section address + offset: the offset in a cubin from nvcc, a device
 * address in an image taken out of a GPU core); a callee where no function symbol starts (ptxas calls internal
 * subroutines at labels too) is given by its address, an unresolved one is `?`. */
#include <inttypes.h>
#include <stdlib.h>

#include "read/sass_calls.h"
#include "unit.h"

/* The function symbol starting at (shndx, off), else NULL; a relocation's own symbol when it named one. */
static const char *target_name(const tl_elf *e, size_t symtab, const struct tlck_sass_call *c)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d ? d->d_size / sh.sh_entsize : 0;
        GElf_Shdr tsh;
        Elf_Scn *t = c->resolved ? elf_getscn(e->elf, c->target_shndx) : NULL;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s))
                continue;
            int named = c->target_sym && i == c->target_sym && elf_ndxscn(scn) == symtab;
            int at = t && gelf_getshdr(t, &tsh) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
                     s.st_shndx == c->target_shndx && s.st_value - tsh.sh_addr == c->target_offset;
            if (named || at)
                return elf_strptr(e->elf, sh.sh_link, s.st_name);
        }
    }
    return NULL;
}

static int list_calls(const char *path)
{
    tl_elf e;
    tl_error err;
    struct tlck_sass_calls calls;
    if (tl_elf_open_path(&e, path, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return 2;
    }
    int rc = tlck_sass_calls_read(&e, tlck_sass_sm(&e.ehdr), &calls, &err);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        tl_elf_close(&e);
        return 2;
    }
    for (size_t i = 0; i < calls.n; i++) {
        const struct tlck_sass_call *c = &calls.v[i];
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(e.elf, c->shndx);
        const char *name = c->indirect ? "indirect" : target_name(&e, calls.symtab, c);
        int ok = scn && gelf_getshdr(scn, &sh);
        char at[32] = "?";
        GElf_Shdr tsh;
        Elf_Scn *t = c->resolved ? elf_getscn(e.elf, c->target_shndx) : NULL;
        if (t && gelf_getshdr(t, &tsh))
            snprintf(at, sizeof at, "0x%04" PRIx64, tsh.sh_addr + c->target_offset);
        printf("%s 0x%04" PRIx64 " %s %s\n", ok ? tl_elf_section_name(&e, &sh) : "?", (ok ? sh.sh_addr : 0) + c->offset,
               c->absolute ? "ABS" : "REL", name ? name : at);
    }
    tlck_sass_calls_free(&calls);
    tl_elf_close(&e);
    return 0;
}

static const char *committed(const char *name)
{
    static char path[4096];
    const char *root = getenv("TRUELINE_ROOT");
    snprintf(path, sizeof path, "%s/tests/data/coredumps/calls/%s", root ? root : ".", name);
    return path;
}

/* nvdisasm -c assert_chain.sm_90.cubin: CALL.REL.NOINC at 0x50 to $_Z13assert_kernelPKiPii$_Z6scaledPKiiii
 * (0x240), CALL.ABS.NOINC R2 at 0x1e0 (__assertfail, through a register), CALL.REL.NOINC at 0x280 to
 * $_Z13assert_kernelPKiPii$_Z11check_rangePKiii (0xa0, a backward call). */
static void assert_chain_calls(void)
{
    tl_elf e;
    tl_error err;
    struct tlck_sass_calls c;
    if (tl_elf_open_path(&e, committed("assert_chain.sm_90.cubin"), &err) != 0)
        UNIT_SKIP("tests/data/coredumps/calls/assert_chain.sm_90.cubin not found (TRUELINE_ROOT?)");
    UNIT_CHECK("the cubin is sm_90", tlck_sass_sm(&e.ehdr) == 90);
    int rc = tlck_sass_calls_read(&e, 90, &c, &err);
    UNIT_CHECK("decoded", rc == 0);
    UNIT_CHECK("three calls", rc == 0 && c.n == 3);
    if (rc == 0 && c.n == 3) {
        UNIT_CHECK("0x50 calls 0x240 (forward)", c.v[0].offset == 0x50 && c.v[0].resolved && !c.v[0].absolute &&
                                                     c.v[0].target_offset == 0x240 && c.v[0].target_shndx == c.v[0].shndx);
        UNIT_CHECK("0x1e0 is indirect", c.v[1].offset == 0x1e0 && c.v[1].indirect && !c.v[1].resolved &&
                                            c.v[1].absolute);
        UNIT_CHECK("0x280 calls 0xa0 (backward)", c.v[2].offset == 0x280 && c.v[2].resolved &&
                                                      c.v[2].target_offset == 0xa0);
    }
    tlck_sass_calls_free(&c);
    tl_elf_close(&e);
}

/* An SM missing from the encoding table decodes nothing and says which. */
static void unknown_sm(void)
{
    tl_elf e;
    tl_error err;
    struct tlck_sass_calls c;
    if (tl_elf_open_path(&e, committed("assert_chain.sm_90.cubin"), &err) != 0)
        UNIT_SKIP("tests/data/coredumps/calls/assert_chain.sm_90.cubin not found (TRUELINE_ROOT?)");
    UNIT_CHECK("sm_52 not known", !tlck_sass_calls_known(52) && tlck_sass_calls_known(90));
    UNIT_CHECK("returns 1", tlck_sass_calls_read(&e, 52, &c, &err) == 1);
    UNIT_CHECK("nothing decoded", c.n == 0 && c.v == NULL);
    UNIT_CHECK("the message names the SM", strstr(err.msg, "sm_52") != NULL);
    tl_elf_close(&e);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--calls") == 0) {
        int rc = 0;
        for (int i = 2; i < argc; i++)
            if (list_calls(argv[i]) != 0)
                rc = 2;
        return rc;
    }
    static const struct unit_case cases[] = { UNIT_CASE(assert_chain_calls), UNIT_CASE(unknown_sm) };
    return unit_run(__FILE__, cases, sizeof cases / sizeof *cases, argc, argv);
}
