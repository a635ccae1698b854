/* CALL instructions of a cubin, decoded from the SASS words.
 *
 * Hand-written because no library decodes NVIDIA SASS: nvdisasm is a closed tool shipped apart from the
 * driver, with no API. Only what is needed to follow calls is decoded, for the SMs whose encoding was checked
 * against nvdisasm's CALL targets (tests/suites/sass_calls.sh compares every CALL of the committed cubins and
 * of programs compiled at test time for each SM in the table). Any other SM decodes nothing and says so.
 *
 * From Volta on an instruction is 16 bytes (two little-endian 64-bit words, the opcode in bits 0-11 of the
 * first). A direct call is CALL.REL with a signed offset from the next instruction; CALL.ABS with an immediate
 * carries a relocation naming the callee (cross-file calls under -rdc); the register forms are indirect
 * (function pointers, __assertfail), their target is not in the code. */
#include <stdlib.h>
#include <string.h>

#include "read/sass_calls.h"

#define SASS_INSN 16u

/* A field of the 128-bit instruction: bits [lo, lo + width). */
struct field {
    unsigned char lo, width;
};

struct call_encoding {
    const char *family;
    unsigned short sms[8];           /* the SMs checked against nvdisasm; 0 ends the list */
    unsigned short rel, rel_reg, abs, abs_reg; /* opcodes (bits 0-11): immediate and register forms */
    struct field low, high;          /* the CALL.REL offset: low | high << low.width, sign-extended */
    unsigned scale;                  /* bytes per offset unit */
};

static const struct call_encoding encodings[] = {
    { "Turing, Ampere, Ada", { 75, 80, 86, 87, 88, 89 }, 0x944, 0x344, 0x943, 0x343, { 32, 50 }, { 0, 0 }, 1 },
    { "Hopper, Blackwell", { 90, 100, 103, 110, 120, 121 }, 0x944, 0x344, 0x943, 0x343, { 16, 8 }, { 34, 48 }, 4 },
};

unsigned tlck_sass_sm(const GElf_Ehdr *eh)
{
    return eh->e_ident[EI_ABIVERSION] >= 8 ? (eh->e_flags >> 8) & 0xFF : eh->e_flags & 0xFF;
}

static const struct call_encoding *encoding_of(unsigned sm)
{
    for (size_t i = 0; i < sizeof encodings / sizeof *encodings; i++)
        for (size_t k = 0; k < 8 && encodings[i].sms[k]; k++)
            if (encodings[i].sms[k] == sm)
                return &encodings[i];
    return NULL;
}

int tlck_sass_calls_known(unsigned sm)
{
    return encoding_of(sm) != NULL;
}

static uint64_t bits(const uint64_t w[2], unsigned lo, unsigned width)
{
    uint64_t v = lo >= 64 ? w[1] >> (lo - 64) : w[0] >> lo | (lo ? w[1] << (64 - lo) : 0);
    return width >= 64 ? v : v & ((UINT64_C(1) << width) - 1);
}

static int64_t rel_offset(const struct call_encoding *c, const uint64_t w[2])
{
    unsigned n = c->low.width + c->high.width;
    uint64_t v = bits(w, c->low.lo, c->low.width);
    if (c->high.width)
        v |= bits(w, c->high.lo, c->high.width) << c->low.width;
    if (n < 64 && (v >> (n - 1) & 1))
        v |= ~UINT64_C(0) << n; /* sign-extend */
    return (int64_t)v * (int64_t)c->scale;
}

/* Every relocation of the image's sections: (section relocated, offset, symbol, addend), sorted, read once. */
struct reloc {
    size_t shndx;
    uint64_t offset;
    size_t sym;
    int64_t addend;
};

static int by_place(const void *a, const void *b)
{
    const struct reloc *x = a, *y = b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int read_relocs(const tl_elf *e, struct reloc **out, size_t *n, size_t *symtab)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA) || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t k = d ? d->d_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < k; i++) {
            GElf_Rela r = { 0 };
            GElf_Rel rl;
            if (sh.sh_type == SHT_RELA ? !gelf_getrela(d, (int)i, &r) : !gelf_getrel(d, (int)i, &rl))
                continue;
            if (sh.sh_type == SHT_REL)
                r = (GElf_Rela){ .r_offset = rl.r_offset, .r_info = rl.r_info };
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                struct reloc *v = realloc(*out, cap * sizeof *v);
                if (!v)
                    return -1;
                *out = v;
            }
            (*out)[(*n)++] = (struct reloc){ sh.sh_info, r.r_offset, GELF_R_SYM(r.r_info), r.r_addend };
            *symtab = sh.sh_link;
        }
    }
    if (*n)
        qsort(*out, *n, sizeof **out, by_place);
    return 0;
}

/* The callee a relocation at the CALL.ABS names: its section and offset there (symbol values are section
 * offsets in a cubin from nvcc, addresses in a relocated image, where sections carry their address too). */
static void follow_reloc(const tl_elf *e, size_t symtab, const struct reloc *r, struct tlck_sass_call *c)
{
    c->target_sym = r->sym;
    Elf_Scn *scn = elf_getscn(e->elf, symtab);
    GElf_Shdr sh, tsh;
    Elf_Data *d = scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB ? elf_getdata(scn, NULL) : NULL;
    GElf_Sym s;
    if (!d || !gelf_getsym(d, (int)r->sym, &s))
        return;
    c->target_shndx = s.st_shndx;
    Elf_Scn *t = s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE ? elf_getscn(e->elf, s.st_shndx) : NULL;
    if (!t || !gelf_getshdr(t, &tsh))
        return;
    uint64_t at = s.st_value + (uint64_t)r->addend;
    if (at < tsh.sh_addr || at - tsh.sh_addr >= tsh.sh_size)
        return;
    c->target_offset = at - tsh.sh_addr;
    c->resolved = 1;
}

static int push(struct tlck_sass_calls *out, size_t *cap, const struct tlck_sass_call *c)
{
    if (out->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        struct tlck_sass_call *v = realloc(out->v, nc * sizeof *v);
        if (!v)
            return -1;
        out->v = v;
        *cap = nc;
    }
    out->v[out->n++] = *c;
    return 0;
}

static int section_calls(const tl_elf *e, const struct call_encoding *enc, Elf_Scn *scn, const struct reloc *rel,
                         size_t nrel, struct tlck_sass_calls *out, size_t *cap, tl_error *err)
{
    tl_bytes b;
    if (tl_elf_section_bytes(e, scn, &b, err) != 0)
        return -1;
    size_t shndx = elf_ndxscn(scn);
    int rc = 0;
    for (size_t at = 0; rc == 0 && at + SASS_INSN <= b.n; at += SASS_INSN) {
        uint64_t w[2];
        memcpy(w, b.p + at, sizeof w); /* little-endian, as every host this builds on */
        unsigned op = (unsigned)(w[0] & 0xFFF);
        if (op != enc->rel && op != enc->rel_reg && op != enc->abs && op != enc->abs_reg)
            continue;
        struct tlck_sass_call c = { .shndx = shndx, .offset = at, .absolute = op == enc->abs || op == enc->abs_reg,
                                    .indirect = op == enc->rel_reg || op == enc->abs_reg };
        if (op == enc->rel) {
            int64_t t = (int64_t)(at + SASS_INSN) + rel_offset(enc, w);
            if (t >= 0 && (uint64_t)t < b.n) {
                c.resolved = 1;
                c.target_shndx = shndx;
                c.target_offset = (uint64_t)t;
            }
        } else if (op == enc->abs) {
            struct reloc key = { .shndx = shndx, .offset = at };
            const struct reloc *r = nrel ? bsearch(&key, rel, nrel, sizeof *rel, by_place) : NULL;
            if (r)
                follow_reloc(e, out->symtab, r, &c);
        }
        rc = push(out, cap, &c);
    }
    if (rc != 0)
        tl_fail(err, "out of memory");
    tl_bytes_free(&b);
    return rc;
}

int tlck_sass_calls_read(const tl_elf *e, unsigned sm, struct tlck_sass_calls *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    const struct call_encoding *enc = encoding_of(sm);
    if (!enc) {
        tl_fail(err, "calls are not decoded for sm_%u: its instruction encoding is not in trueline's table", sm);
        return 1;
    }
    size_t cap = 0, nrel = 0;
    struct reloc *rel = NULL;
    if (read_relocs(e, &rel, &nrel, &out->symtab) != 0) {
        free(rel);
        return tl_fail(err, "out of memory");
    }
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    int rc = 0;
    while (rc == 0 && (scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS)
            rc = section_calls(e, enc, scn, rel, nrel, out, &cap, err);
    free(rel);
    if (rc != 0)
        tlck_sass_calls_free(out);
    return rc;
}

void tlck_sass_calls_free(struct tlck_sass_calls *c)
{
    free(c->v);
    c->v = NULL;
    c->n = 0;
}
