/* --symbolize on host code: an address of a linked ELF file (executable or shared object, as addr2line takes
 * it) -> the inline chain, innermost first, from the file's DWARF: DW_TAG_inlined_subroutine scopes (their
 * DW_AT_call_file/call_line) inside the DW_TAG_subprogram holding the address, the line table for the innermost
 * position. Built once per file (tlck_host_lines_open), then asked per address. */
#ifndef TLCK_SYMBOLIZE_HOST_H
#define TLCK_SYMBOLIZE_HOST_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"

struct tlck_host_lines;

/* Reads path's DWARF; NULL with err when it has none or cannot be read. */
struct tlck_host_lines *tlck_host_lines_open(const char *path, tl_error *err);
void tlck_host_lines_close(struct tlck_host_lines *h);

struct tlck_host_frame {
    const char *function; /* as DWARF names it: the linkage name where there is one (mangled), else the name;
                           * the innermost frame without a linkage name: the function symbol holding the
                           * address, as binutils' addr2line names it */
    const char *file;     /* NULL when unknown */
    unsigned line;        /* 0 when unknown */
};

/* The frames at pc, innermost first, into v (at most max); returns how many (0: neither a function's DWARF
 * nor a function symbol at or before pc). Without DWARF for pc, one frame: the function symbol at or before it,
 * its file and line where a line row holds pc (else NULL, 0). The strings live as long as h. *sub_lo gets the
 * start of the outermost function's range (or the symbol) holding pc. */
size_t tlck_host_lines_at(const struct tlck_host_lines *h, uint64_t pc, struct tlck_host_frame *v, size_t max,
                          uint64_t *sub_lo);

#endif
