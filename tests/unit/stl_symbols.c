/* checks/demangle_tree.c and checks/stl_symbols.c: the parse tree of a mangled name prints as c++filt's text
 * (libiberty's own text demangler) whatever earlier calls left on the stack, and each exported symbol's origin
 * for stl-leak. Names are real: libLLVM-14.so.1 (clang's unresolved-name mangling), a g++ 12 library with
 * -static-libstdc++ (tests/suites/host_stl_leak_real.sh's fixture), pyarrow's typeinfo; each rule has a
 * neighbour that must fall elsewhere. */
#include <demangle.h>
#include <stdlib.h>
#include <string.h>

#include "checks/demangle_tree.h"
#include "checks/stl_symbols.h"
#include "unit.h"

#define STB_GLOBAL 1
#define STB_WEAK 2

static const char *const LLVM_SWAP =
    "_ZSt4swapIN4llvm3vfs12YAMLVFSEntryEENSt9enable_ifIXsr6__and_ISt6__not_ISt15__is_tuple_likeIT_EESt21is_move_"
    "constructibleIS6_ESt18is_move_assignableIS6_EEE5valueEvE4typeERS6_SF_";
static const char *const GCC_SWAP =
    "_ZSt4swapIN4proj6MyTypeEENSt9enable_ifIXsrSt6__and_IJSt6__not_ISt15__is_tuple_likeIT_EESt21is_move_"
    "constructibleIS6_ESt18is_move_assignableIS6_EEE5valueEvE4typeERS6_SG_";

/* Leaves these bytes where the demangler's parser state will live next (cplus_demangle_v3_components, which
 * leaves one field uninitialised, fails on the clang name after fills of 0 and 1 and parses it after 0xff). */
__attribute__((noinline)) static void dirty_stack(int byte)
{
    volatile unsigned char junk[8192];
    memset((void *)junk, byte, sizeof junk);
}

/* The tree, printed by libiberty, equals libiberty's text demangling (what c++filt prints). */
__attribute__((noinline)) static int tree_prints_as_text(const char *mangled)
{
    void *mem = NULL;
    struct demangle_component *t = tlck_cxx_components(mangled, DMGL_PARAMS | DMGL_ANSI, &mem);
    size_t alc = 0;
    char *a = t ? cplus_demangle_print(DMGL_PARAMS | DMGL_ANSI, t, 256, &alc) : NULL;
    char *b = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI);
    int same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    free(mem);
    return same;
}

static enum tlck_stl_origin origin(const char *name, int bind)
{
    struct tlck_cxx_name cx;
    return tlck_stl_origin(name, bind, &cx);
}

static void parse_any_stack(void)
{
    const char *names[] = { LLVM_SWAP, GCC_SWAP, "_ZNSt6vectorIN4llvm7PatternESaIS1_EE12emplace_backIJS1_EEEvDpOT_",
                            "_ZNSt10filesystem7__cxx114path10_S_convertIwEEDaPKT_S5_" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int ok = 1;
        static const int fills[] = { 0, 1, 0xff, 0x7f };
        for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
            dirty_stack(fills[f]);
            ok &= tree_prints_as_text(names[i]);
        }
        UNIT_CHECK(i == 0 ? "clang's std::swap<...enable_if<sr ...>> parses as c++filt prints it, any stack"
                   : i == 1 ? "g++'s std::swap<...enable_if<sr St ...>> parses as c++filt prints it, any stack"
                            : "a name without an unresolved name still parses as c++filt prints it",
                   ok);
    }
}

static void not_mangled(void)
{
    void *mem = (void *)1;
    UNIT_CHECK("not a mangled name: no tree, nothing to free", !tlck_cxx_components("main", DMGL_PARAMS, &mem) && !mem);
    UNIT_CHECK("a truncated name: no tree", !tlck_cxx_components("_ZNSt6vectorIiSaIiEE", DMGL_PARAMS, &mem) && !mem);
}

static void abi_runtime(void)
{
    /* the C++ ABI runtime; glibc's __cxa_* are not it */
    UNIT_CHECK("__gxx_personality_v0 is the ABI runtime", origin("__gxx_personality_v0", STB_GLOBAL) == TLCK_STL_ABI);
    UNIT_CHECK("__cxa_throw is the ABI runtime", origin("__cxa_throw", STB_GLOBAL) == TLCK_STL_ABI);
    UNIT_CHECK("__cxa_atexit (glibc) is not", origin("__cxa_atexit", STB_GLOBAL) == TLCK_STL_NONE);
    UNIT_CHECK("vtable for __cxxabiv1::__class_type_info is the ABI runtime",
               origin("_ZTVN10__cxxabiv117__class_type_infoE", STB_GLOBAL) == TLCK_STL_ABI);
}

static void compiled_library(void)
{
    /* compiled library code: global, no template arguments in the entity's name */
    UNIT_CHECK("std::ios_base::Init::Init() global: library code",
               origin("_ZNSt8ios_base4InitC1Ev", STB_GLOBAL) == TLCK_STL_LIBRARY);
    UNIT_CHECK("... weak (an inline function a user object emitted): not",
               origin("_ZNSt8ios_base4InitC1Ev", STB_WEAK) == TLCK_STL_STD);
    UNIT_CHECK("std::filesystem::do_copy_file(..., stat*, ...) global: library code (stat is the C library's)",
               origin("_ZNSt10filesystem12do_copy_fileEPKcS1_NS_26copy_options_existing_fileEP4statS4_RSt10error_code",
                      STB_GLOBAL) == TLCK_STL_LIBRARY);
    UNIT_CHECK("typeinfo name for std::_Sp_make_shared_tag global: outside the compiled parts (plain)",
               origin("_ZTSSt19_Sp_make_shared_tag", STB_GLOBAL) == TLCK_STL_PLAIN);
    UNIT_CHECK("std::_Sp_make_shared_tag::_S_ti()::__tag global: a local static, not library code",
               origin("_ZZNSt19_Sp_make_shared_tag5_S_tiEvE5__tag", STB_GLOBAL) == TLCK_STL_STD);
    UNIT_CHECK("std::vector<int>::_M_default_append global: a template, not library code",
               origin("_ZNSt6vectorIiSaIiEE17_M_default_appendEm", STB_GLOBAL) == TLCK_STL_STD);
}

static void own_types(void)
{
    /* instantiations over the file's own types */
    UNIT_CHECK("typeinfo for std::enable_shared_from_this<arrow::DataType> global: own types",
               origin("_ZTISt23enable_shared_from_thisIN5arrow8DataTypeEE", STB_GLOBAL) == TLCK_STL_OWN);
    UNIT_CHECK("std::vector<Foo>::_M_default_append: own types",
               origin("_ZNSt6vectorI3FooSaIS0_EE17_M_default_appendEm", STB_WEAK) == TLCK_STL_OWN);
    UNIT_CHECK("clang's std::swap<llvm::vfs::YAMLVFSEntry>: own types", origin(LLVM_SWAP, STB_WEAK) == TLCK_STL_OWN);
    UNIT_CHECK("std::function's invoker over a lambda in f(): own types",
               origin("_ZNSt17_Function_handlerIFivEZ1fvEUlvE_E9_M_invokeERKSt9_Any_data", STB_WEAK) == TLCK_STL_OWN);
}

static void standard_types(void)
{
    /* over standard and builtin types only */
    UNIT_CHECK("path::_S_convert<wchar_t> returning auto: standard types only (auto is no type of the file's)",
               origin("_ZNSt10filesystem7__cxx114path10_S_convertIwEEDaPKT_S5_", STB_WEAK) == TLCK_STL_STD);
    UNIT_CHECK("codecvt<wchar_t, char, __mbstate_t>::do_length: standard types only",
               origin("_ZNKSt7codecvtIwc11__mbstate_tE9do_lengthERS0_PKcS4_m", STB_WEAK) == TLCK_STL_STD);
    UNIT_CHECK("a local class of a std:: function template: standard",
               origin("_ZTIZNSt10filesystem7__cxx114path10_S_convertIwEEDaPKT_S5_E5_UCvt", STB_WEAK) == TLCK_STL_STD);
    UNIT_CHECK("llvm::foo(): not std", origin("_ZN4llvm3fooEv", STB_GLOBAL) == TLCK_STL_NONE);
    UNIT_CHECK("greet(std::string): not std", origin("_Z5greetRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                                                     STB_GLOBAL) == TLCK_STL_NONE);
}

UNIT_MAIN(UNIT_CASE(parse_any_stack),
          UNIT_CASE(not_mangled),
          UNIT_CASE(abi_runtime),
          UNIT_CASE(compiled_library),
          UNIT_CASE(own_types),
          UNIT_CASE(standard_types))
