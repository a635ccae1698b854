/* lib/elf_dynamic.c: the loader's view of a file without section headers, on a shared library built here byte
 * by byte (one PT_LOAD mapping the file at address 0, PT_DYNAMIC, four dynamic symbols, a GNU hash table, one
 * PLT relocation), so that each count and bound can be told a lie on its own. */
#include <stdint.h>
#include <string.h>

#include "trueline/elf_dynamic.h"
#include "unit.h"

enum { SYMTAB = 0x100, STRTAB = 0x180, HASH = 0x1c0, RELA = 0x200, DYN = 0x240, FILE_SIZE = 0x300 };
static const char STRINGS[] = "\0imp\0a\0b\0libc.so.6"; /* imp at 1, a at 5, b at 7, libc.so.6 at 9 */

struct image {
    unsigned char b[FILE_SIZE];
    size_t ndyn;
};

static void put(struct image *im, size_t off, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        im->b[off + i] = (unsigned char)(v >> (8 * i));
}

static void dyn(struct image *im, uint64_t tag, uint64_t val)
{
    put(im, DYN + im->ndyn * 16, tag, 8);
    put(im, DYN + im->ndyn * 16 + 8, val, 8);
    im->ndyn++;
}

static void sym(struct image *im, unsigned i, unsigned name, unsigned shndx)
{
    size_t at = SYMTAB + i * 24;
    put(im, at, name, 4);
    im->b[at + 4] = (unsigned char)(shndx ? GELF_ST_INFO(STB_GLOBAL, STT_FUNC) : GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE));
    put(im, at + 6, shndx, 2);
}

/* The library; `hash_tag` is DT_GNU_HASH, DT_HASH (a SysV table) or 0 (none); symoffset/bucket shape the GNU
 * table; strsz and the relocation's symbol are parameters, since they are the lies told below. */
static void build(struct image *im, uint64_t hash_tag, unsigned symoffset, unsigned bucket, uint64_t strsz,
                  uint64_t reloc_sym)
{
    memset(im, 0, sizeof *im);
    memcpy(im->b, ELFMAG, SELFMAG);
    im->b[EI_CLASS] = ELFCLASS64, im->b[EI_DATA] = ELFDATA2LSB, im->b[EI_VERSION] = EV_CURRENT;
    put(im, 16, ET_DYN, 2), put(im, 18, EM_X86_64, 2), put(im, 20, EV_CURRENT, 4);
    put(im, 32, 0x40, 8);                                  /* e_phoff; e_shoff stays 0 */
    put(im, 52, 64, 2), put(im, 54, 56, 2), put(im, 56, 2, 2), put(im, 58, 64, 2); /* ehsize, phentsize, phnum */
    put(im, 0x40, PT_LOAD, 4), put(im, 0x40 + 32, FILE_SIZE, 8), put(im, 0x40 + 40, FILE_SIZE, 8);
    put(im, 0x78, PT_DYNAMIC, 4), put(im, 0x78 + 8, DYN, 8), put(im, 0x78 + 16, DYN, 8);
    put(im, 0x78 + 32, 10 * 16, 8), put(im, 0x78 + 40, 10 * 16, 8);
    sym(im, 1, 1, 0), sym(im, 2, 5, 7), sym(im, 3, 7, 7);
    memcpy(im->b + STRTAB, STRINGS, sizeof STRINGS);
    if (hash_tag == DT_GNU_HASH) { /* 1 bucket, 1 bloom word; the chain of the bucket: symbols 2 and 3 */
        put(im, HASH, 1, 4), put(im, HASH + 4, symoffset, 4), put(im, HASH + 8, 1, 4), put(im, HASH + 12, 6, 4);
        put(im, HASH + 24, bucket, 4);
        put(im, HASH + 28, 0x1234, 4), put(im, HASH + 32, 0x5679, 4); /* the last one ends with bit 0 set */
    } else if (hash_tag == DT_HASH) { /* nbucket 1, nchain 4 */
        put(im, HASH, 1, 4), put(im, HASH + 4, 4, 4);
    }
    put(im, RELA + 8, reloc_sym << 32 | 7 /* R_X86_64_JUMP_SLOT */, 8);
    dyn(im, DT_NEEDED, 9);
    dyn(im, DT_STRTAB, STRTAB), dyn(im, DT_STRSZ, strsz);
    dyn(im, DT_SYMTAB, SYMTAB), dyn(im, DT_SYMENT, 24);
    if (hash_tag)
        dyn(im, hash_tag, HASH);
    dyn(im, DT_JMPREL, RELA), dyn(im, DT_PLTRELSZ, 24), dyn(im, DT_PLTREL, DT_RELA);
}

static int view(struct image *im, tl_elf *e, tl_elf_dynview *v, tl_error *err)
{
    if (tl_elf_open_mem(e, "built.so", im->b, sizeof im->b, err) != 0)
        return -2;
    return tl_elf_dynview_read(e, v, err);
}

static const char *name_of(const tl_elf *e, const tl_elf_dynview *v, unsigned i)
{
    uint32_t name;
    memcpy(&name, e->data + v->symtab.off + i * v->syment, sizeof name);
    return tl_elf_dynview_str(e, v, name);
}

static void gnu_hash_counts_the_chain(void)
{
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_GNU_HASH, 2, 2, sizeof STRINGS, 1);
    UNIT_CHECK("read", view(&im, &e, &v, &err) == 0);
    UNIT_CHECK("the section headers are missing", tl_elf_sections_missing(&e) == 1);
    UNIT_CHECK("four symbols (the chain of symbol 2 ends at 3)", v.nsyms == 4);
    UNIT_STREQ("counted by", v.nsyms_from, "DT_GNU_HASH");
    UNIT_STREQ("symbol 1", name_of(&e, &v, 1), "imp");
    UNIT_STREQ("symbol 3", name_of(&e, &v, 3), "b");
    UNIT_CHECK("the dynamic entries, DT_NULL excluded", v.ndyn == 9);
    tl_elf_close(&e);
}

/* An executable that defines nothing: its GNU table hashes nothing and covers the null entry alone. */
static void imports_counted_by_relocations(void)
{
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_GNU_HASH, 1, 0, sizeof STRINGS, 3);
    UNIT_CHECK("read", view(&im, &e, &v, &err) == 0);
    UNIT_CHECK("symbols up to the relocation's", v.nsyms == 4);
    UNIT_STREQ("counted by", v.nsyms_from, "a relocation");
    tl_elf_close(&e);
}

static void sysv_hash_and_none(void)
{
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_HASH, 0, 0, sizeof STRINGS, 1);
    UNIT_CHECK("read (DT_HASH)", view(&im, &e, &v, &err) == 0);
    UNIT_CHECK("nchain symbols", v.nsyms == 4);
    UNIT_STREQ("counted by", v.nsyms_from, "DT_HASH");
    tl_elf_close(&e);
    build(&im, 0, 0, 0, sizeof STRINGS, 1);
    UNIT_CHECK("read (no hash table)", view(&im, &e, &v, &err) == 0);
    UNIT_CHECK("the table runs to DT_STRTAB", v.nsyms == (STRTAB - SYMTAB) / 24);
    UNIT_STREQ("counted by", v.nsyms_from, "DT_STRTAB");
    tl_elf_close(&e);
}

static void lies_are_errors(void)
{
    static const struct {
        const char *what, *names;
        uint64_t hash_tag;
        unsigned symoffset, bucket;
        uint64_t strsz, reloc_sym;
    } lies[] = {
        { "DT_STRSZ past the end", "DT_STRTAB", DT_GNU_HASH, 2, 2, FILE_SIZE, 1 },
        { "a chain that never ends", "DT_GNU_HASH", DT_GNU_HASH, 2, 3000, sizeof STRINGS, 1 },
        { "a bucket below the first hashed symbol", "DT_GNU_HASH", DT_GNU_HASH, 3, 2, sizeof STRINGS, 1 },
        { "a relocation naming symbol 2^24", "DT_SYMTAB", DT_GNU_HASH, 2, 2, sizeof STRINGS, 1u << 24 },
    };
    for (size_t i = 0; i < sizeof lies / sizeof *lies; i++) {
        struct image im;
        tl_elf e;
        tl_elf_dynview v;
        tl_error err = { { 0 } };
        build(&im, lies[i].hash_tag, lies[i].symoffset, lies[i].bucket, lies[i].strsz, lies[i].reloc_sym);
        int rc = view(&im, &e, &v, &err);
        UNIT_CHECK(lies[i].what, rc == -1);
        UNIT_CHECK(lies[i].names, strstr(err.msg, lies[i].names) != NULL);
        if (rc != -1 || !strstr(err.msg, lies[i].names))
            printf("    %s: rc %d, '%s'\n", lies[i].what, rc, err.msg);
        tl_elf_close(&e);
    }
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_HASH, 0, 0, sizeof STRINGS, 1);
    put(&im, HASH + 4, 0x40000000, 4);
    UNIT_CHECK("DT_HASH's nchain past the end", view(&im, &e, &v, &err) == -1 && strstr(err.msg, "DT_HASH"));
    tl_elf_close(&e);
}

static void strings_end_inside_the_table(void)
{
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_GNU_HASH, 2, 2, 8, 1); /* DT_STRSZ ends on "b": its terminator is outside */
    UNIT_CHECK("read", view(&im, &e, &v, &err) == 0);
    UNIT_STREQ("a string inside", tl_elf_dynview_str(&e, &v, 5), "a");
    UNIT_CHECK("a string whose terminator lies past DT_STRSZ", tl_elf_dynview_str(&e, &v, 7) == NULL);
    UNIT_CHECK("an offset past DT_STRSZ", tl_elf_dynview_str(&e, &v, 8) == NULL);
    UNIT_CHECK("an offset near 2^64", tl_elf_dynview_str(&e, &v, UINT64_MAX) == NULL);
    tl_elf_close(&e);
}

/* An empty relocation table at the very end of the segment is no lie: nothing in it is looked up. */
static void empty_table_at_segment_end(void)
{
    struct image im;
    tl_elf e;
    tl_elf_dynview v;
    tl_error err;
    build(&im, DT_GNU_HASH, 2, 2, sizeof STRINGS, 1);
    dyn(&im, DT_RELA, FILE_SIZE), dyn(&im, DT_RELASZ, 0);
    put(&im, 0x78 + 32, 12 * 16, 8);
    UNIT_CHECK("read", view(&im, &e, &v, &err) == 0);
    tl_elf_close(&e);
}

UNIT_MAIN(UNIT_CASE(gnu_hash_counts_the_chain), UNIT_CASE(imports_counted_by_relocations),
          UNIT_CASE(sysv_hash_and_none), UNIT_CASE(lies_are_errors), UNIT_CASE(strings_end_inside_the_table),
          UNIT_CASE(empty_table_at_segment_end))
