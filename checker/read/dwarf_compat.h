/* One source over the libdwarf releases distributions ship: Debian 12's 20210528 (the old object-access
 * interface) and 0.x / 2.x (Ubuntu 24.04's 0.9.1, Debian 13's 0.11.1, Fedora's and Arch's 2.x), which renamed
 * the object-access types to their `_a` forms, dropped Dwarf_Endianness, replaced dwarf_get_ranges_a and
 * dwarf_ranges_dealloc, and made dwarf_object_finish take the Dwarf_Debug alone. 0.x and 2.x define
 * DW_LIBDWARF_VERSION_MAJOR; 20210528 does not. Only what the readers use is mapped here. */
#ifndef TLCK_READ_DWARF_COMPAT_H
#define TLCK_READ_DWARF_COMPAT_H
#include <stddef.h> /* NULL in tlck_dw_get_ranges */
#include <dwarf.h>
#include <libdwarf.h>

#ifdef DW_LIBDWARF_VERSION_MAJOR
#define TLCK_DW_OBJ_A 1
typedef Dwarf_Obj_Access_Section_a tlck_dw_section;
typedef Dwarf_Obj_Access_Methods_a tlck_dw_methods;
typedef Dwarf_Obj_Access_Interface_a tlck_dw_iface;
typedef Dwarf_Unsigned tlck_dw_index;   /* a section's number as the methods receive it */
typedef Dwarf_Small tlck_dw_byte_order;
#define TLCK_DW_LITTLE DW_END_little
#define TLCK_DW_SEC_NAME(s) (s)->as_name
#define TLCK_DW_SEC_SIZE(s) (s)->as_size
#define TLCK_DW_SEC_TYPE(s) (s)->as_type
#define TLCK_DW_IFACE_SET(i, o, m) ((i)->ai_object = (o), (i)->ai_methods = (m))
#define tlck_dw_object_finish(dbg) dwarf_object_finish(dbg)
/* .debug_ranges (DWARF 2-4) of a DIE, and their release */
#define tlck_dw_get_ranges(dbg, off, die, r, n, bytes, err) dwarf_get_ranges_b(dbg, off, die, NULL, r, n, bytes, err)
#define tlck_dw_ranges_free(dbg, r, n) dwarf_dealloc_ranges(dbg, r, n)
#else
typedef Dwarf_Obj_Access_Section tlck_dw_section;
typedef Dwarf_Obj_Access_Methods tlck_dw_methods;
typedef Dwarf_Obj_Access_Interface tlck_dw_iface;
typedef Dwarf_Half tlck_dw_index;
typedef Dwarf_Endianness tlck_dw_byte_order;
#define TLCK_DW_LITTLE DW_OBJECT_LSB
#define TLCK_DW_SEC_NAME(s) (s)->name
#define TLCK_DW_SEC_SIZE(s) (s)->size
#define TLCK_DW_SEC_TYPE(s) (s)->type
#define TLCK_DW_IFACE_SET(i, o, m) ((i)->object = (o), (i)->methods = (m))
#define tlck_dw_object_finish(dbg) do { Dwarf_Error tlck_dw_e_ = 0; dwarf_object_finish(dbg, &tlck_dw_e_); } while (0)
#define tlck_dw_get_ranges(dbg, off, die, r, n, bytes, err) dwarf_get_ranges_a(dbg, off, die, r, n, bytes, err)
#define tlck_dw_ranges_free(dbg, r, n) dwarf_ranges_dealloc(dbg, r, n)
#endif

#endif
