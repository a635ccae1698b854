/* Finding the `.note.trueline` sections (trueline/note.h) of an ELF file opened with libelf: the one scan the
 * stamper, the waiting verifier, the content digest and the checker's note reader share (lib/note_section.c).
 * The hook in ccache keeps its own bounded reader (wrapper/hook/note_section.c): it links no libelf. */
#ifndef TRUELINE_NOTE_SECTION_H
#define TRUELINE_NOTE_SECTION_H
#include <gelf.h>
#include <stddef.h>

/* The first `.note.trueline` section after `after` (NULL: from the start), its header in *sh; NULL when there
 * is none. A section counts when it is SHT_NOTE and named so in the section name table shstrndx
 * (elf_getshdrstrndx). Walk them all: for (s = tl_note_section_next(e, x, NULL, &sh); s;
 * s = tl_note_section_next(e, x, s, &sh)). */
Elf_Scn *tl_note_section_next(Elf *elf, size_t shstrndx, Elf_Scn *after, GElf_Shdr *sh);

#endif
