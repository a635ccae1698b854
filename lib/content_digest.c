/* The content digest a compile record binds ("ch", docs/provenance-note.md): XXH3-128 over every byte of the
 * object file in order, leaving out the bytes of its one `.note.trueline` section. The section header table
 * is covered, so the note's own place and size are too; what is left out is only the record itself, which
 * carries the digest. The stamper (stamp.c) computes it right after it wrote the record, the waiting
 * verifier (verify.c) on the mapping libelf already made; the hook in ccache has its own reader of the same
 * bytes (hook/note_section.c). */
#include "trueline/content_digest.h"

#include <gelf.h>

#include "trueline/note_section.h"

int tl_content_digest(const unsigned char *file, size_t size, uint64_t skip_off, uint64_t skip_len,
                      char hex[TL_HASH_HEX_LEN + 1])
{
    if (skip_off > size || skip_len > size - skip_off)
        return -1;
    tl_hasher *h = tl_hasher_new();
    if (!h)
        return -1;
    tl_hasher_update(h, file, (size_t)skip_off);
    tl_hasher_update(h, file + skip_off + skip_len, size - (size_t)(skip_off + skip_len));
    tl_hash_hex(tl_hasher_final(h), hex);
    return 0;
}

int tl_record_sections(Elf *elf, uint64_t *off, uint64_t *size)
{
    size_t shstrndx;
    int n = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return -1;
    GElf_Shdr sh;
    for (Elf_Scn *s = tl_note_section_next(elf, shstrndx, NULL, &sh); s; s = tl_note_section_next(elf, shstrndx, s, &sh))
        if (n++ == 0) {
            *off = sh.sh_offset;
            *size = sh.sh_size;
        }
    return n;
}

int tl_object_content_digest(Elf *elf, char hex[TL_HASH_HEX_LEN + 1])
{
    uint64_t off = 0, size = 0;
    size_t len;
    const unsigned char *file = (const unsigned char *)elf_rawfile(elf, &len);
    if (!file || tl_record_sections(elf, &off, &size) != 1)
        return -1;
    return tl_content_digest(file, len, off, size, hex);
}
