/* The scan for `.note.trueline` sections (include/trueline/note_section.h). Apart from lib/note.c so that the
 * hook, which links note.c, still links no libelf. */
#include "trueline/note_section.h"

#include <string.h>

#include "trueline/note.h"

Elf_Scn *tl_note_section_next(Elf *elf, size_t shstrndx, Elf_Scn *after, GElf_Shdr *sh)
{
    for (Elf_Scn *s = elf_nextscn(elf, after); s; s = elf_nextscn(elf, s)) {
        const char *name;
        if (gelf_getshdr(s, sh) && sh->sh_type == SHT_NOTE && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
            strcmp(name, TL_NOTE_SECTION) == 0)
            return s;
    }
    return NULL;
}
