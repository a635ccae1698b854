/* See tools/symbolize_store.h. The store part of a device image is the cubin as built (its line sections
 * intact, plus a build-id note), so once swapped in, --symbolize answers exactly as on the unstripped build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/debug_store.h"
#include "read/device_identity.h"
#include "read/host_internal.h"
#include "read/store_lookup.h"
#include "tools/symbolize_store.h"

static int read_whole(const char *path, unsigned char **out, size_t *n)
{
    const unsigned char *data;
    size_t size, map_len;
    void *map;
    tl_error err;
    if (tl_map_file(path, &data, &size, &map, &map_len, &err) != 0)
        return -1;
    unsigned char *copy = malloc(size ? size : 1);
    if (copy)
        memcpy(copy, data, size);
    tl_unmap_file(map, map_len);
    if (!copy)
        return -1;
    *out = copy;
    *n = size;
    return 0;
}

void tlck_sym_store_device(const struct tlck_options *o, const char *display, const char *label,
                           unsigned char **bytes, size_t *n)
{
    tl_elf e;
    tl_error er;
    int split = tl_elf_open_mem(&e, display, *bytes, *n, &er) == 0 && tlck_cubin_lines_split(&e);
    tl_elf_close(&e);
    if (!split)
        return;
    unsigned char id[TLCK_DEVICE_ID_LEN], *part;
    char path[4096], err[1024], hex[2 * TLCK_DEVICE_ID_LEN + 1];
    size_t part_n;
    if (tlck_device_identity(*bytes, *n, id, err, sizeof err) != 0)
        return; /* no code (a device-link stub): no location can be in it */
    int rc = tlck_store_find(o->debug_store, id, sizeof id, path, sizeof path, err, sizeof err);
    tlck_device_id_hex(id, hex);
    if (rc == 0 && read_whole(path, &part, &part_n) == 0) {
        free(*bytes);
        *bytes = part;
        *n = part_n;
        return;
    }
    if (rc < 0)
        fprintf(stderr, "trueline-check: %s: %s: line info split out; %s\n", display, label, err);
    else if (rc == 0)
        fprintf(stderr, "trueline-check: %s: %s: line info split out; store part %s cannot be read\n", display, label,
                path);
    else if (!o->debug_store && !getenv("DEBUGINFOD_URLS"))
        fprintf(stderr, "trueline-check: %s: %s: line info split out (identity %s); store not given: pass "
                "--debug-store or set DEBUGINFOD_URLS\n", display, label, hex);
    else
        fprintf(stderr, "trueline-check: %s: %s: line info split out; the debug store has no part %s\n", display, label,
                hex);
}

static int hex_bytes(const char *hex, unsigned char *out, size_t cap, size_t *n)
{
    size_t len = strlen(hex);
    if (len % 2 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    *n = len / 2;
    return 0;
}

struct tlck_host_lines *tlck_sym_store_host(const struct tlck_options *o, const char *path, tl_error *err)
{
    tl_elf e;
    char hex[256];
    int has_id = tl_elf_open_path(&e, path, err) == 0 && tlck_elf_build_id(&e, hex, sizeof hex) == 0;
    tl_elf_close(&e);
    unsigned char id[128];
    size_t idlen;
    if (!has_id || hex_bytes(hex, id, sizeof id, &idlen) != 0) {
        tl_fail(err, "no host DWARF and no GNU build-id to find a debug file by");
        return NULL;
    }
    char found[4096], why[1024];
    int rc = tlck_store_find(o->debug_store, id, idlen, found, sizeof found, why, sizeof why);
    if (rc < 0) {
        tl_fail(err, "no host DWARF; %s", why);
        return NULL;
    }
    if (rc == 1) {
        if (!o->debug_store && !getenv("DEBUGINFOD_URLS"))
            tl_fail(err, "no host DWARF (build-id %s): give the debug store (--debug-store or DEBUGINFOD_URLS)", hex);
        else
            tl_fail(err, "no host DWARF, and the debug store has no debug file for build-id %s", hex);
        return NULL;
    }
    struct tlck_host_lines *h = tlck_host_lines_open(found, err);
    if (!h) {
        char msg[TL_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        tl_fail(err, "debug file %s: %s", found, msg);
    }
    return h;
}
