#include "read/dwarf_ranges.h"

#include "read/dwarf_compat.h"

void tlck_dw_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, unsigned version, Dwarf_Addr cu_base,
                        void (*each)(void *ctx, Dwarf_Addr lo, Dwarf_Addr hi), void *ctx)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    Dwarf_Half form = 0;
    Dwarf_Unsigned off = 0;
    if (dwarf_attr(die, DW_AT_ranges, &a, &err) != DW_DLV_OK)
        return;
    dwarf_whatform(a, &form, &err);
    if (version >= 5) {
        Dwarf_Rnglists_Head head;
        Dwarf_Unsigned count = 0, global = 0;
        if (form != DW_FORM_rnglistx)
            dwarf_global_formref(a, &off, &err);
        else
            dwarf_formudata(a, &off, &err);
        if (dwarf_rnglists_get_rle_head(a, form, off, &head, &count, &global, &err) == DW_DLV_OK) {
            for (Dwarf_Unsigned i = 0; i < count; i++) {
                unsigned len = 0, code = 0;
                Dwarf_Unsigned r1, r2, c1, c2;
                Dwarf_Bool noaddr = 0;
                if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2, &noaddr, &c1, &c2, &err) ==
                        DW_DLV_OK && code != DW_RLE_end_of_list && code != DW_RLE_base_address &&
                        code != DW_RLE_base_addressx && !noaddr && c2 > c1)
                    each(ctx, c1, c2);
            }
            dwarf_dealloc_rnglists_head(head);
        }
    } else if (dwarf_global_formref(a, &off, &err) == DW_DLV_OK) {
        Dwarf_Ranges *r;
        Dwarf_Signed n = 0;
        Dwarf_Unsigned bytes;
        if (tlck_dw_get_ranges(dbg, off, die, &r, &n, &bytes, &err) == DW_DLV_OK) {
            Dwarf_Addr base = cu_base;
            for (Dwarf_Signed i = 0; i < n; i++) {
                if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
                    base = r[i].dwr_addr2;
                else if (r[i].dwr_type == DW_RANGES_ENTRY && r[i].dwr_addr2 > r[i].dwr_addr1)
                    each(ctx, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
            }
            tlck_dw_ranges_free(dbg, r, n);
        }
    }
    dwarf_dealloc_attribute(a);
}
