/* See read/store_lines.h. The store part is the cubin as built plus a build-id note: summarized like any
 * cubin, its functions are matched to the shipped image's by symbol name (the split keeps every section and
 * symbol, so names and sizes agree), and only line facts are taken from it. */
#include "read/store_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/cubin.h"
#include "read/debug_store.h"
#include "read/device_identity.h"
#include "trueline/elf_file.h"

static const struct tlck_function *find_function(const struct tlck_image *img, const char *name)
{
    for (size_t i = 0; i < img->nfuncs; i++)
        if (strcmp(img->funcs[i].name, name) == 0)
            return &img->funcs[i];
    return NULL;
}

/* 0 when the part's line facts were taken into img. */
static int take_lines(struct tlck_image *img, const char *path)
{
    const unsigned char *data;
    size_t size, map_len;
    void *map;
    tl_error err;
    if (tl_map_file(path, &data, &size, &map, &map_len, &err) != 0)
        return -1;
    struct tlck_image part;
    memset(&part, 0, sizeof part);
    int rc = tlck_cubin_summarize(data, size, path, NULL, &part);
    tl_unmap_file(map, map_len);
    if (rc != 0 || part.dev.sm != img->dev.sm) {
        tlck_image_free(&part);
        return -1;
    }
    for (size_t i = 0; i < img->nfuncs; i++) {
        struct tlck_function *f = &img->funcs[i];
        const struct tlck_function *g = find_function(&part, f->name);
        if (!g)
            continue;
        f->has_lines = g->has_lines;
        f->covered = g->covered;
        free(f->cu);
        f->cu = tlck_strdup(g->cu);
    }
    img->dev.has_lineinfo = part.dev.has_lineinfo;
    img->dev.split_line_bytes = part.dev.line_bytes;
    if (!img->ncus && part.ncus) { /* the unit the rows belong to: moved over */
        img->cus = part.cus, img->ncus = part.ncus;
        part.cus = NULL, part.ncus = 0;
    }
    img->dev.line_store = strdup(path);
    tlck_image_free(&part);
    return 0;
}

void tlck_store_lines_apply(struct tlck_file *f, const struct tlck_options *o)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (!o || (!o->debug_store && (!urls || !*urls)))
        return;
    int warned = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        struct tlck_image *img = &f->devices[i];
        if (img->kind != TLCK_IMAGE_CUBIN || !img->dev.lines_split || img->dev.error || !img->nfuncs)
            continue;
        char path[4096], err[1024];
        img->dev.store_asked = 1;
        int rc = tlck_store_find(o->debug_store, img->dev.line_id, TLCK_DEVICE_ID_LEN, path, sizeof path, err,
                                 sizeof err);
        if (rc == 0 && take_lines(img, path) != 0 && !warned++)
            tlck_file_warn(f, "debug store part %s is not a cubin of %s's code", path, img->label);
        else if (rc < 0 && !warned++) /* a server that cannot be asked: said once, the images stay split */
            tlck_file_warn(f, "%s", err);
    }
}
