#include "record_binding.h"

#include <elf.h>
#include <libelf.h>
#include <string.h>

#include "trueline/content_digest.h"

size_t tlck_compile_records(const struct tlck_file *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nnotes; i++)
        n += !f->notes[i].is_link;
    return n;
}

/* Only a relocatable object is the object its record was sealed over; a linked file holds records of objects
 * that no longer exist alone. */
const char *tlck_record_binding(const struct tlck_file *f, const struct tlck_provenance *n, size_t ncompile,
                                const struct tlck_input_bytes *b)
{
    if (n->is_link || f->elf_type != ET_REL || ncompile != 1)
        return n->content_hash ? TLCK_BIND_LINKED : TLCK_BIND_ABSENT;
    if (!n->content_hash)
        return TLCK_BIND_ABSENT;
    char hex[TL_HASH_HEX_LEN + 1];
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)b->data, b->size);
    int ok = elf && tl_object_content_digest(elf, hex) == 0;
    if (elf)
        elf_end(elf);
    return ok && strcmp(hex, n->content_hash) == 0 ? TLCK_BIND_MATCHES : TLCK_BIND_DIFFERS;
}
