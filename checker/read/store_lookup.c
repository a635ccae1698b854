/* See read/store_lookup.h. */
#include "read/store_lookup.h"

#include <stdio.h>

#include "read/debug_store.h"

int tlck_cubin_lines_split(const tl_elf *e)
{
    GElf_Shdr sh;
    return tl_elf_section(e, ".debug_line", &sh) && sh.sh_size == 0;
}

int tlck_store_find_device(const char *store, const unsigned char *img, size_t n,
                           unsigned char id[TLCK_DEVICE_ID_LEN], char *path, size_t cap, char *err, size_t errlen)
{
    if (tlck_device_identity(img, n, id, err, errlen) != 0)
        return -1;
    return tlck_store_find(store, id, TLCK_DEVICE_ID_LEN, path, cap, err, errlen);
}

void tlck_device_id_hex(const unsigned char id[TLCK_DEVICE_ID_LEN], char hex[2 * TLCK_DEVICE_ID_LEN + 1])
{
    for (size_t i = 0; i < TLCK_DEVICE_ID_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
}
