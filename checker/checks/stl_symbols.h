/* Where an exported symbol of the C++ standard library comes from, decided from its name and binding. */
#ifndef TLCK_STL_SYMBOLS_H
#define TLCK_STL_SYMBOLS_H
#include "checks/host_util.h"

enum tlck_stl_origin {
    TLCK_STL_NONE,    /* not a std::/__gnu_cxx:: entity nor a C++ runtime symbol */
    TLCK_STL_ABI,     /* the C++ ABI runtime's own symbols (__gxx_personality_v0, __cxa_throw, __cxxabiv1::...) */
    TLCK_STL_LIBRARY, /* a non-template std:: definition with global binding in a part of the library that only
                       compiled library code defines (std::ios_base, std::thread, the exception classes ...) */
    TLCK_STL_PLAIN,   /* another non-template std:: definition with global binding: compiled library code too,
                       unless the file gives inline functions global binding (then it holds templates so bound) */
    TLCK_STL_OWN,     /* a std:: template instantiated over at least one type that is not the standard library's */
    TLCK_STL_STD,     /* a std:: instantiation or inline function over standard and builtin types only */
};

/* bind is the ELF symbol binding (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE). *cx receives tlck_cxx_classify's answer
 * (zeroed for names that are not C++). */
enum tlck_stl_origin tlck_stl_origin(const char *name, int bind, struct tlck_cxx_name *cx);

#endif
