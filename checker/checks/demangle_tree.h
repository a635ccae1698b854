/* The demangler's parse tree of a C++ mangled name, parsed the way libiberty's own text demangler parses it. */
#ifndef TLCK_DEMANGLE_TREE_H
#define TLCK_DEMANGLE_TREE_H
#include <demangle.h>

/* Like cplus_demangle_v3_components (same options, *mem to free() after use), but deterministic: libiberty's
 * cplus_demangle_v3_components leaves d_info.unresolved_name_state uninitialised (cplus_demangle_init_info
 * does not set it; only the text demangler's d_demangle_callback does), so a name with an unresolved name in
 * a template argument expression (`sr`, e.g. std::swap<...enable_if<__is_swappable<T>::value>...>) parses
 * or fails depending on what an earlier call left on the stack. This one sets the state as
 * d_demangle_callback does: the new unresolved-name grammar first, the old one when that fails. */
struct demangle_component *tlck_cxx_components(const char *mangled, int options, void **mem);

/* 1 for the nodes that wrap an entity's name without being it: a member function's qualifiers (CONST_THIS ...)
 * and the special names (vtable for X, typeinfo for X, guard variable for X, thunks, clones ...), whose left
 * operand is what they are about. */
int tlck_cxx_is_wrapper(enum demangle_component_type t);

#endif
