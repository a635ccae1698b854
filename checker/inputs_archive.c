/* Static libraries as inputs: each member of an ar archive is an input (a window of the archive's bytes, found
 * by libelf's ar support), and each member of a GNU thin archive an input read from its own file. */
#include "inputs_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "thin_archive.h"
#include "trueline/elf_file.h"

/* Each member of a thin archive is an input of its own, read from its file and shown as ARCHIVE(MEMBER). */
void tlck_thin_archive_expand(struct tlck_inputs *out, const char *path, int top)
{
    const unsigned char *data = NULL;
    size_t size = 0, map_len = 0;
    void *map = NULL;
    struct tlck_thin_members mem = { 0 };
    tl_error err;
    int rc = tl_map_file(path, &data, &size, &map, &map_len, &err);
    if (rc == 0)
        rc = tlck_thin_archive_read(path, data, size, &mem, &err);
    for (size_t i = 0; i < mem.n; i++) {
        char *disp = tlck_asprintf("%s(%s)", path, mem.v[i].name);
        tlck_inputs_add(out, disp ? disp : path, mem.v[i].path);
        free(disp);
    }
    if (rc != 0)
        tlck_inputs_add_error(out, path, "%s", err.msg);
    tlck_thin_members_free(&mem);
    tl_unmap_file(map, map_len);
}

/* libelf clips a member whose header size runs past the end of the archive to what is there, silently; the size
 * field (decimal, bytes 48..57 of the 60-byte header before the member) still says how much was promised. */
static int member_truncated(const char *ar_base, const char *mbase, size_t msize)
{
    if (mbase - ar_base < 68)
        return 0;
    char field[11];
    memcpy(field, mbase - 60 + 48, 10);
    field[10] = 0;
    char *end;
    unsigned long long declared = strtoull(field, &end, 10);
    return end != field && declared > msize;
}

/* Archive members via libelf's ar support: each member's bytes are a window of the archive file. */
void tlck_archive_expand(struct tlck_inputs *out, const char *path, int top)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        tlck_inputs_add_error(out, path, "cannot open: %s", strerror(errno));
        return;
    }
    elf_version(EV_CURRENT);
    Elf *ar = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!ar || elf_kind(ar) != ELF_K_AR) {
        tlck_inputs_add_error(out, path, "not a valid archive: %s", elf_errmsg(-1));
        if (ar)
            elf_end(ar);
        close(fd);
        return;
    }
    size_t ar_size = 0;
    const char *ar_base = elf_rawfile(ar, &ar_size);
    Elf *m;
    Elf_Cmd cmd = ELF_C_READ_MMAP;
    size_t members = 0, end = 8; /* end: just past the last member libelf could read */
    while ((m = elf_begin(fd, cmd, ar)) != NULL) {
        Elf_Arhdr *h = elf_getarhdr(m);
        size_t msize = 0;
        const char *mbase = elf_rawfile(m, &msize);
        if (mbase && ar_base)
            end = (size_t)(mbase - ar_base) + msize + (msize & 1);
        if (h && h->ar_name[0] == '/' && mbase && ar_base && member_truncated(ar_base, mbase, msize)) {
            /* the symbol or long-name table: clipped, every member after it is gone (libelf reads none) */
            tlck_inputs_add_error(out, path, "the archive's %s table is cut short: its header declares more bytes than the "
                      "archive holds; the members after it are not checked",
                      strcmp(h->ar_name, "//") == 0 ? "long-name" : "symbol");
            members++;
        } else if (h && h->ar_name[0] != '/' && mbase && ar_base && member_truncated(ar_base, mbase, msize)) {
            char *disp = tlck_asprintf("%s(%s)", path, h->ar_name);
            tlck_inputs_add_error(out, disp ? disp : path, "%s", "archive member is cut short: its header declares more bytes than the archive holds");
            free(disp);
            members++;
        } else if (h && h->ar_name[0] != '/' && mbase && ar_base) {
            char *disp = tlck_asprintf("%s(%s)", path, h->ar_name);
            struct tlck_input *in = tlck_inputs_add(out, disp ? disp : path, path);
            free(disp);
            if (in) {
                in->is_member = 1;
                in->offset = (size_t)(mbase - ar_base);
                in->size = msize;
            }
            members++;
        }
        cmd = elf_next(m);
        elf_end(m);
    }
    /* libelf stops at the first member header it cannot parse and the members after it silently vanish: say so.
     * (Reaching the end also leaves an error set, "offset out of range", so only a stop short of the end counts;
     * elf_errno() clears the error, so it is read once.) Trailing newline padding is fine. */
    int e = elf_errno();
    while (ar_base && end < ar_size && ar_base[end] == '\n')
        end++;
    if (ar_base && end < ar_size) {
        char *why = tlck_asprintf("bad archive member header at offset %zu: %s%s", end,
                                e ? elf_errmsg(e) : "not a valid member", members ? "; the members after it are not checked" : "");
        tlck_inputs_add_error(out, path, "%s", why ? why : "bad archive member header");
        free(why);
    }
    elf_end(ar);
    close(fd);
}
