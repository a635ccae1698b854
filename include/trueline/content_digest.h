/* The content digest a compile record binds (lib/content_digest.c): the wrapper stamps and verifies it,
 * trueline-check --attest states whether an object still matches it. */
#ifndef TRUELINE_CONTENT_DIGEST_H
#define TRUELINE_CONTENT_DIGEST_H
#include <stddef.h>
#include <stdint.h>

#include "trueline/hash.h"
#include "trueline/note.h"

/* XXH3-128 of file's bytes leaving out [skip_off, skip_off+skip_len), as 32 hex digits; -1 when the range is
 * not inside the file. */
int tl_content_digest(const unsigned char *file, size_t size, uint64_t skip_off, uint64_t skip_len,
                        char hex[TL_HASH_HEX_LEN + 1]);
struct Elf;
/* The number of `.note.trueline` sections (-1: no name table); the first one's offset and size. */
int tl_record_sections(struct Elf *elf, uint64_t *off, uint64_t *size);
/* The digest of an object opened with libelf whose one record section is left out; -1 when it has not
 * exactly one. */
int tl_object_content_digest(struct Elf *elf, char hex[TL_HASH_HEX_LEN + 1]);

#endif
