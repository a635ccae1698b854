/* --coredump with a debug store: a relocated image whose line info was split out before it shipped is found
 * in the store by its identity (read/device_identity.h: the same for the relfimg the driver dumped and for the
 * cubin as built), and the store's cubin, unrelocated like a --binary one, gives the lines by function + offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/store_lookup.h"
#include "tools/coredump/coredump_store.h"

int cd_lines_from_store(const struct tlck_options *o, struct cd_where *w, char *note, size_t notelen)
{
    unsigned char id[TLCK_DEVICE_ID_LEN];
    char path[4096], err[1024], hex[2 * TLCK_DEVICE_ID_LEN + 1];
    int rc = tlck_store_find_device(o->debug_store, w->module->image, w->module->image_n, id, path, sizeof path, err,
                                    sizeof err);
    if (rc < 0) {
        snprintf(note, notelen, "line info split out; %s", err);
        return -1;
    }
    tlck_device_id_hex(id, hex);
    if (rc == 1) {
        if (!o->debug_store && !getenv("DEBUGINFOD_URLS"))
            snprintf(note, notelen, "line info split out (identity %s); store not given: pass --debug-store or set "
                     "DEBUGINFOD_URLS", hex);
        else
            snprintf(note, notelen, "line info split out; the debug store has no part %s", hex);
        return -1;
    }
    const unsigned char *data;
    size_t size, map_len;
    void *map;
    tl_error e;
    if (tl_map_file(path, &data, &size, &map, &map_len, &e) != 0) {
        snprintf(note, notelen, "line info split out; store part %s: %s", path, e.msg);
        return -1;
    }
    uint64_t off = w->offset - (w->offset >= w->line_bias ? w->line_bias : 0);
    rc = cd_chain_lookup(data, size, path, w->mangled, off, 0, w, &e);
    if (rc == 0)
        w->line_origin = tlck_asprintf("debug store %s", path);
    else if (rc == 1)
        snprintf(note, notelen, "line info split out; store part %s has no line row at this offset", path);
    else
        snprintf(note, notelen, "line info split out; store part %s: %s", path, e.msg);
    tl_unmap_file(map, map_len);
    return rc == 0 ? 0 : -1;
}
