/* Host ELF reader: scaffold; the host-audit issue fills it. */
#include "read/readers.h"

int tl_read_host(struct tl_file *f, const tl_elf *e, const struct tl_options *o)
{
    (void)o;
    f->elf_type = e->ehdr.e_type;
    f->machine = e->ehdr.e_machine;
    return 0;
}
