/* checks/dwarf_names.c, the rules dwarf-symbols matches a symbol with a DWARF subprogram by. The names are
 * what g++ 12, clang++ 14 and gfortran 12 write (seen with nm and readelf on tests/suites/
 * host_dwarf_symbols_real.sh's fixtures and on jsoncpp); each accepted pair has a rejected neighbour, so that a
 * rule accepting everything fails here. */
#include <stdio.h>
#include <stdlib.h>

#include "checks/dwarf_names.h"
#include "unit.h"

static int match_in(const char *sym, const char *linkage, const char *name, int fortran)
{
    struct tlck_subprogram s = { .linkage_name = (char *)linkage, .name = (char *)name };
    struct tlck_sym_names a;
    struct tlck_sub_names b;
    tlck_sym_names_init(&a, sym);
    tlck_sub_names_init(&b, &s, fortran);
    int yes = tlck_names_match(&a, &b);
    tlck_sym_names_free(&a);
    tlck_sub_names_free(&b);
    return yes;
}

static int match(const char *sym, const char *linkage, const char *name)
{
    return match_in(sym, linkage, name, 0);
}

static void clone_suffixes(void)
{
    /* as written, and without clone suffixes */
    UNIT_CHECK("C name", match("init_math", NULL, "init_math"));
    UNIT_CHECK("C name, another function", !match("init_maths", NULL, "init_math"));
    UNIT_CHECK("linkage name", match("_ZN6shapes8pick_oneEi", "_ZN6shapes8pick_oneEi", "pick_one"));
    UNIT_CHECK(".isra.0 clone", match("_ZN6shapesL4pickENS_3BigE.isra.0", "_ZN6shapesL4pickENS_3BigE", "pick"));
    UNIT_CHECK(".constprop.0 of a C2 constructor against GCC's C4",
               match("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2IS3_EEPKcRKS3_.constprop.0",
                     "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC4IS3_EEPKcRKS3_", "basic_string"));

    {   /* a clone of a template instance whose name is longer than any fixed buffer */
        char linkage[4200], sym[sizeof linkage + 16]; /* room for the suffix whatever the name's length */
        strcpy(linkage, "_ZN6shapes4tpl");
        size_t n = strlen(linkage);
        strcpy(linkage + n, "I");
        for (int i = 0; i < 1000; i++)
            strcat(linkage, "Li1E");
        strcat(linkage, "EEvv");
        snprintf(sym, sizeof sym, "%s.constprop.0", linkage);
        UNIT_CHECK("clone suffix of a 4 KB name", match(sym, linkage, "tpl"));
    }

    UNIT_CHECK("symbol version of a .symver compat symbol", match("tr_break@GLIBC_2.2.5", NULL, "tr_break"));
    UNIT_CHECK("default symbol version", match("_Z3fooi@@V2", "_Z3fooi", "foo"));
    UNIT_CHECK("symbol version of another function", !match("tr_break@GLIBC_2.2.5", NULL, "tr_brake"));
}

static void lto_clones(void)
{
    /* GCC's LTO partitions name a clone's subprogram with its suffix; its .cold part is a symbol of its own */
    UNIT_CHECK("LTO: clone's .cold part against the clone's linkage name",
               match("_ZNSt8_Rb_treeIiiSt9_IdentityIiESt4lessIiESaIiEE7_M_copyILb0ENS5_11_Alloc_nodeEEEPSt13_Rb_tree_nodeIiESA_PSt18_Rb_tree_node_baseRT0_.isra.0.cold",
                     "_ZNSt8_Rb_treeIiiSt9_IdentityIiESt4lessIiESaIiEE7_M_copyILb0ENS5_11_Alloc_nodeEEEPSt13_Rb_tree_nodeIiESA_PSt18_Rb_tree_node_baseRT0_.isra.0",
                     "_M_copy"));
    UNIT_CHECK("LTO: a C2 constructor's clone against the C4 clone",
               match("_ZN6shapes6CircleC2Eid.constprop.0", "_ZN6shapes6CircleC4Eid.constprop.0", "Circle"));
    UNIT_CHECK("LTO: another function's clone", !match("_Z3fooi.isra.0", "_Z3bari.isra.0", "bar"));
}

static void unified_structors(void)
{
    /* GCC's unified constructor and destructor in DWARF, the complete/base/deleting ones as symbols */
    UNIT_CHECK("C1 against C4", match("_ZN6shapes6CircleC1Eid", "_ZN6shapes6CircleC4Eid", "Circle"));
    UNIT_CHECK("C2 against C4", match("_ZN6shapes6CircleC2Eid", "_ZN6shapes6CircleC4Eid", "Circle"));
    UNIT_CHECK("D0 against D4", match("_ZN6shapes6CircleD0Ev", "_ZN6shapes6CircleD4Ev", "~Circle"));
    UNIT_CHECK("C1 against C4 of another signature", !match("_ZN6shapes6CircleC1Eid", "_ZN6shapes6CircleC4Ei", "Circle"));
    UNIT_CHECK("changed signature (const& -> &) is no match",
               !match("_ZN6shapes13circle_colourERNS_6CircleE", "_ZN6shapes13circle_colourERKNS_6CircleE",
                      "circle_colour"));
    UNIT_CHECK("a linkage name that disagrees is not rescued by the plain name",
               !match("_ZN6shapes7scaled4ERKSt6vectorIiSaIiEE", "_ZN6shapes7scaled3ERKSt6vectorIiSaIiEE", "scaled4"));
}

static void no_linkage_name(void)
{
    /* no linkage name: the unqualified name, template arguments left out */
    UNIT_CHECK("_FUN of a lambda", match("_ZZN6shapes13make_callbackEiENUliE_4_FUNEi", NULL, "_FUN"));
    UNIT_CHECK("operator() of a lambda", match("_ZZN6shapes6lookupEiENKUlvE_clEv", NULL, "operator()"));
    UNIT_CHECK("operator() is not _FUN", !match("_ZZN6shapes6lookupEiENKUlvE_clEv", NULL, "_FUN"));
    UNIT_CHECK("member of a local class", match("_ZZN6shapes11local_classEiEN7Counter4bumpEi", NULL, "bump"));
    UNIT_CHECK("destructor of a local class", match("_ZZN6shapes11local_classEiEN7CounterD2Ev", NULL, "~Counter"));
    UNIT_CHECK("destructor is not the constructor", !match("_ZZN6shapes11local_classEiEN7CounterD2Ev", NULL, "Counter"));
    UNIT_CHECK("template over a lambda: {lambda()#1} against <lambda()>",
               match("_ZSt9call_onceIZN6shapes6lookupEiEUlvE_JEEvRSt9once_flagOT_DpOT0_", NULL,
                     "call_once<shapes::lookup(int)::<lambda()> >"));
    UNIT_CHECK("template constructor over a lambda",
               match("_ZNSt8functionIFiiEEC2IZN6shapes10make_adderEiEUliE_vEEOT_", NULL,
                     "function<shapes::make_adder(int)::<lambda(int)> >"));
    UNIT_CHECK("2ul against 2", match("_ZN6shapes9fixed_sumILm2EEEmPKm", NULL, "fixed_sum<2>"));
    UNIT_CHECK("another template", !match("_ZN6shapes9fixed_sumILm2EEEmPKm", NULL, "fixed_add<2>"));
    UNIT_CHECK("destructor of a lambda", match("_ZZN6shapes10make_adderEiENUliE_D2Ev", NULL, "~<lambda>"));
    UNIT_CHECK("conversion to a function pointer",
               match("_ZZN6shapes13make_callbackEiENKUliE_cvPFiiEEv", NULL, "operator int (*)(int)"));
    UNIT_CHECK("operator<< as such", match("_ZlsRSoRKN6shapes6CircleE", NULL, "operator<<"));
    UNIT_CHECK("operator<< is not operator<", !match("_ZlsRSoRKN6shapes6CircleE", NULL, "operator<"));
    UNIT_CHECK("operator< template", match("_ZN6shapesltIiEEbRKNS_4RingIT_Lm4EEES5_", NULL, "operator< <int>"));
    UNIT_CHECK("ABI tag left out", match("_ZN4Json9OurReader12normalizeEOLB5cxx11EPKcS2_", NULL, "normalizeEOL"));
}

static void fortran_main(void)
{
    /* gfortran's main program */
    UNIT_CHECK("MAIN__ in a Fortran unit", match_in("MAIN__", NULL, "shapes_main", 1));
    UNIT_CHECK("MAIN__ elsewhere", !match_in("MAIN__", NULL, "shapes_main", 0));
}

static void entry_points(void)
{
    /* entry points made without a subprogram */
    UNIT_CHECK("virtual thunk", tlck_made_without_subprogram("_ZTv0_n24_N6shapes6CircleD1Ev"));
    UNIT_CHECK("non-virtual thunk", tlck_made_without_subprogram("_ZThn40_NK6shapes6Circle6colourEv"));
    UNIT_CHECK("covariant thunk", tlck_made_without_subprogram("_ZTch0_h16_NV1D1fEv"));
    UNIT_CHECK("transaction clone", tlck_made_without_subprogram("_ZGTt12bump_counteri"));
    UNIT_CHECK(".cold part", tlck_made_without_subprogram("_ZN6shapes11checked_sumERKSt6vectorIiSaIiEEi.cold"));
    UNIT_CHECK(".cold.12 part", tlck_made_without_subprogram("foo.cold.12"));
    UNIT_CHECK("a function named coldest", !tlck_made_without_subprogram("_Z7coldesti"));
    UNIT_CHECK("a .isra clone has a subprogram", !tlck_made_without_subprogram("_ZN6shapesL4pickENS_3BigE.isra.0"));
    UNIT_CHECK("the typeinfo is no function but not a thunk either", !tlck_made_without_subprogram("_ZTIN6shapes6CircleE"));
}

UNIT_MAIN(UNIT_CASE(clone_suffixes),
          UNIT_CASE(lto_clones),
          UNIT_CASE(unified_structors),
          UNIT_CASE(no_linkage_name),
          UNIT_CASE(fortran_main),
          UNIT_CASE(entry_points))
