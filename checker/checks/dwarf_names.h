/* Does a DWARF subprogram name this function symbol? The rules dwarf-symbols matches by, kept apart from its
 * address bookkeeping: mangled names are compared as mangled, then as demangled; a subprogram without a
 * linkage name is compared by its unqualified name with the template arguments left out, because the
 * compiler and the demangler spell those differently (2 and 2ul, <lambda()> and {lambda()#1}). */
#ifndef TLCK_DWARF_NAMES_H
#define TLCK_DWARF_NAMES_H
#include "model.h"

/* A symbol's names, each worked out at most once (ICF puts thousands of symbols on one address). */
struct tlck_sym_names {
    const char *sym;  /* as in the symbol table */
    char *base;       /* without a GCC clone suffix (.isra.0, .constprop.0, .part.0, .cold) or a symbol
                       * version (@GLIBC_2.2.5, @@V2); NULL: as sym */
    char *demangled;  /* of base, with parameters; NULL when not C++ or not needed yet */
    char *stem;       /* unqualified name without template arguments ("bump", "operator()", "~Circle") */
    unsigned have_demangled : 1, have_stem : 1;
};

/* A subprogram's, likewise. fortran: its unit's language is Fortran. */
struct tlck_sub_names {
    const struct tlck_subprogram *s;
    char *demangled, *stem;
    unsigned have_demangled : 1, have_stem : 1, fortran : 1;
};

void tlck_sym_names_init(struct tlck_sym_names *n, const char *sym);
void tlck_sym_names_free(struct tlck_sym_names *n);
void tlck_sub_names_init(struct tlck_sub_names *n, const struct tlck_subprogram *s, int fortran);
void tlck_sub_names_free(struct tlck_sub_names *n);

/* 1 when the subprogram's linkage name or name is the symbol as written (or without its clone suffix): the
 * cheap test, tried on a whole alias group before any name is demangled. */
int tlck_names_equal(const struct tlck_sym_names *sym, const struct tlck_subprogram *s);

/* 1 when the subprogram describes the function the symbol names:
 * - its DW_AT_linkage_name (DW_AT_MIPS_linkage_name) is the symbol, without a clone suffix or symbol version
 *   or with;
 * - both are C++ and demangle alike: GCC names the unified constructor and destructor (C4, D4) in DWARF and
 *   emits the complete, base, allocating and deleting ones (C1, C2, C3, D0, D1, D2) as symbols;
 * - it has no linkage name (C; GCC's entities with local types: lambdas, local classes, templates over
 *   them) and its DW_AT_name is the symbol (C) or the symbol's unqualified name (C++), template arguments
 *   left out;
 * - gfortran's main program: the symbol MAIN__, the subprogram named after the program unit. */
int tlck_names_match(struct tlck_sym_names *sym, struct tlck_sub_names *sub);

/* Entry points the compiler makes without a subprogram of their own, so that no DWARF is missing when they
 * have none: thunks (virtual, non-virtual, covariant return), GNU TM transaction clones, and GCC's
 * split-off unlikely parts (.cold), which DWARF lists in the parent's DW_AT_ranges or not at all. */
int tlck_made_without_subprogram(const char *sym);

/* DW_AT_language of a unit is one of Fortran's. */
int tlck_lang_is_fortran(unsigned lang);

#endif
