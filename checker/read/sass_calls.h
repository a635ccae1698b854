/* The call instructions of a cubin's code, decoded from the SASS words: who calls whom, and from which
 * instruction. The cubin's .nv.callgraph does not list the callees of the per-kernel clones ptxas makes of
 * __noinline__ functions (`$kernel$function` symbols), so the call sites can only come from the code itself. */
#ifndef TLCK_SASS_CALLS_H
#define TLCK_SASS_CALLS_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/elf_file.h"

struct tlck_sass_call {
    size_t shndx;            /* the code section holding the CALL */
    uint64_t offset;         /* the CALL's byte offset in that section */
    int absolute;            /* CALL.ABS (else CALL.REL) */
    int indirect;            /* the target is in a register: not known from the code */
    int resolved;            /* the target is known: */
    size_t target_shndx;     /*   its section (SHN_UNDEF for a symbol defined elsewhere, -rdc before linking) */
    uint64_t target_offset;  /*   and byte offset in it */
    size_t target_sym;       /* symbol-table index when a relocation named the target, else 0 */
};

struct tlck_sass_calls {
    struct tlck_sass_call *v;
    size_t n;
    size_t symtab;           /* section index of the symbol table relocations refer to (0: none) */
};

/* SM of a cubin from its ELF header: e_flags bits 0-7 in ABI version 7, bits 8-15 from ABI version 8 on. */
unsigned tlck_sass_sm(const GElf_Ehdr *eh);
/* 1 when the encoding of calls is known for this SM. */
int tlck_sass_calls_known(unsigned sm);
/* Every CALL in the executable sections of e, in section then offset order. sm chooses the encoding: 0 when
 * decoded; 1 when the SM is not in the table (nothing decoded; err says so); -1 with err otherwise. */
int tlck_sass_calls_read(const tl_elf *e, unsigned sm, struct tlck_sass_calls *out, tl_error *err);
void tlck_sass_calls_free(struct tlck_sass_calls *c);

#endif
