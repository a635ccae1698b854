/* Provenance-note reader: scaffold; the provenance issue fills it. */
#include "read/readers.h"

int tl_read_notes(struct tl_file *f, const tl_elf *e)
{
    (void)f; (void)e;
    return 0;
}
