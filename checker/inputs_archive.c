/* Static libraries as inputs: each member of an ar archive is an input (a window of the archive's bytes, found
 * by libelf's ar support), and each member of a GNU thin archive an input read from its own file. */
#include "inputs_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "thin_archive.h"
#include "trueline/elf_file.h"

/* The input for a member of c shown as display, on c's file; a package member's members copy how to find its
 * bytes again (the package, its entries, its reader). NULL without memory. */
static struct tlck_input *member_input(struct tlck_inputs *out, const struct tlck_container *c, const char *display)
{
    struct tlck_input *in = tlck_inputs_add(out, display, c->path);
    if (in && c->origin) {
        in->pkg_depth = c->origin->pkg_depth;
        in->pkg_index[0] = c->origin->pkg_index[0];
        in->pkg_index[1] = c->origin->pkg_index[1];
        in->cursor = c->origin->cursor;
    }
    return in;
}

/* A member of c (display; NULL: c itself) that cannot be read, msg saying why (owned; NULL: no memory). */
static void member_error(struct tlck_inputs *out, const struct tlck_container *c, const char *display, char *msg)
{
    struct tlck_input *in = member_input(out, c, display ? display : c->display);
    if (in)
        in->error = msg ? msg : strdup("out of memory");
    else
        free(msg);
}

/* Each member of a thin archive is an input of its own, read from its file and shown as ARCHIVE(MEMBER). Inside a
 * package its members are files outside it, which the package does not ship: named, not followed. */
void tlck_thin_archive_expand(struct tlck_inputs *out, const struct tlck_container *c)
{
    const unsigned char *data = c->data;
    size_t size = c->size, map_len = 0;
    void *map = NULL;
    struct tlck_thin_members mem = { 0 };
    tl_error err;
    int rc = data ? 0 : tl_map_file(c->path, &data, &size, &map, &map_len, &err);
    if (rc == 0)
        rc = tlck_thin_archive_read(c->path, data, size, &mem, &err);
    if (c->origin) {
        member_error(out, c, NULL,
                     tlck_asprintf("a thin archive: its %zu member%s (%s%s) %s files outside the package, which it "
                                   "does not ship; not checked", mem.n, mem.n == 1 ? "" : "s",
                                   mem.n ? mem.v[0].name : "none listed", mem.n > 1 ? ", ..." : "",
                                   mem.n == 1 ? "is a file" : "are"));
        rc = 0;
    }
    for (size_t i = 0; i < mem.n && !c->origin; i++) {
        char *disp = tlck_asprintf("%s(%s)", c->display, mem.v[i].name);
        tlck_inputs_add(out, disp ? disp : c->path, mem.v[i].path);
        free(disp);
    }
    if (rc != 0)
        tlck_inputs_add_error(out, c->path, "%s", err.msg);
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

/* The members of the archive ar (fd: its file, -1 for one in memory), each an input shown as DISPLAY(member). */
static void walk(struct tlck_inputs *out, const struct tlck_container *c, Elf *ar, int fd)
{
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
        int named = h && h->ar_name[0] != '/' && mbase && ar_base;
        if (named && c->max_members && members >= c->max_members) {
            member_error(out, c, NULL, tlck_asprintf("more than %zu members in the package; the rest of this "
                                                     "archive is not checked", c->max_members));
            elf_end(m);
            return;
        }
        char *disp = named ? tlck_asprintf("%s(%s)", c->display, h->ar_name) : NULL;
        if (h && h->ar_name[0] == '/' && mbase && ar_base && member_truncated(ar_base, mbase, msize)) {
            /* the symbol or long-name table: clipped, every member after it is gone (libelf reads none) */
            member_error(out, c, NULL,
                         tlck_asprintf("the archive's %s table is cut short: its header declares more bytes than "
                                       "the archive holds; the members after it are not checked",
                                       strcmp(h->ar_name, "//") == 0 ? "long-name" : "symbol"));
            members++;
        } else if (named && member_truncated(ar_base, mbase, msize)) {
            member_error(out, c, disp, strdup("archive member is cut short: its header declares more bytes than "
                                              "the archive holds"));
            members++;
        } else if (named) {
            struct tlck_input *in = member_input(out, c, disp ? disp : c->display);
            if (in) {
                in->is_member = 1;
                in->offset = (size_t)(mbase - ar_base);
                in->size = msize;
            }
            members++;
        }
        free(disp);
        cmd = elf_next(m);
        elf_end(m);
    }
    /* libelf stops at the first member header it cannot parse and the members after it silently vanish: say so.
     * (Reaching the end also leaves an error set, "offset out of range", so only a stop short of the end counts;
     * elf_errno() clears the error, so it is read once.) Trailing newline padding is fine. */
    int e = elf_errno();
    while (ar_base && end < ar_size && ar_base[end] == '\n')
        end++;
    if (ar_base && end < ar_size)
        member_error(out, c, NULL,
                     tlck_asprintf("bad archive member header at offset %zu: %s%s", end,
                                   e ? elf_errmsg(e) : "not a valid member",
                                   members ? "; the members after it are not checked" : ""));
}

/* Archive members via libelf's ar support: each member's bytes are a window of the archive, the file on disk or
 * the package member's decompressed bytes. */
void tlck_archive_expand(struct tlck_inputs *out, const struct tlck_container *c)
{
    int fd = -1;
    elf_version(EV_CURRENT);
    Elf *ar;
    if (c->data) {
        /* libelf takes a writable image but reads an archive's headers in place; the bytes are the package
         * reader's own buffer */
        ar = elf_memory((char *)(uintptr_t)c->data, c->size);
    } else {
        fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            member_error(out, c, NULL, tlck_asprintf("cannot open: %s", strerror(errno)));
            return;
        }
        ar = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    }
    if (!ar || elf_kind(ar) != ELF_K_AR)
        member_error(out, c, NULL, tlck_asprintf("not a valid archive: %s", elf_errmsg(-1)));
    else
        walk(out, c, ar, fd);
    if (ar)
        elf_end(ar);
    if (fd >= 0)
        close(fd);
}
