/* One ELF file split (elf_split.h): host debug sections into a debug file under the file's build-id, device
 * line info out of every fatbin section through tlck_fatbin_split, the shipped copy written by elf_rewrite.c. */
#include "split/elf_split.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "split/elf_rewrite.h"
#include "split/fatbin_split.h"
#include "split/store_write.h"
#include "trueline/files.h"

#define BUILD_ID_MAX 64

/* What a host debug section is: DWARF (also the old .zdebug_ compression), and the relocations of one. */
static int is_debug_name(const char *nm)
{
    return nm && (strncmp(nm, ".debug_", 7) == 0 || strncmp(nm, ".zdebug_", 8) == 0);
}

static int is_fatbin_name(const char *nm)
{
    return nm && (strcmp(nm, ".nv_fatbin") == 0 || strcmp(nm, "__nv_relfatbin") == 0);
}

static size_t build_id(Elf *e, unsigned char *id, size_t max)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t off = 0, noff, doff;
        GElf_Nhdr nh;
        while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
                nh.n_descsz >= 2 && nh.n_descsz <= max) {
                memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
                return nh.n_descsz;
            }
    }
    return 0;
}

struct part_ctx {
    const struct tlck_split_opts *o;
    struct tlck_split_stats *st;
};

/* tlck_fatbin_split's callback: one device image as built, with its identity as build-id, into the store. */
static int put_device_part(void *arg, const unsigned char id[TLCK_DEVICE_ID_LEN], const unsigned char *cubin,
                           size_t n, char *err, size_t errlen)
{
    struct part_ctx *c = arg;
    unsigned char *noted = NULL;
    size_t nn = 0;
    if (tlck_cubin_add_build_id(cubin, n, id, TLCK_DEVICE_ID_LEN, &noted, &nn, err, errlen) != 0)
        return -1;
    int rc = tlck_store_put(c->o->store, id, TLCK_DEVICE_ID_LEN, noted, nn, NULL, 0, err, errlen);
    free(noted);
    if (rc == 0)
        c->st->device_parts++;
    return rc;
}

/* An ELF file written by libelf into an anonymous file, read back: the debug file's bytes. */
static int rewrite_to_memory(const struct tlck_elf_rewrite *r, unsigned char **out, size_t *out_n, char *err,
                             size_t errlen)
{
    int fd = memfd_create("trueline-split", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "memfd_create: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = tlck_elf_rewrite(r, fd, err, errlen);
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = -1, snprintf(err, errlen, "fstat: %s", strerror(errno));
    if (rc == 0) {
        *out_n = (size_t)st.st_size;
        *out = malloc(*out_n ? *out_n : 1);
        if (!*out || pread(fd, *out, *out_n, 0) != (ssize_t)*out_n) {
            free(*out);
            *out = NULL;
            rc = -1;
            snprintf(err, errlen, "cannot read the debug file back");
        }
    }
    close(fd);
    return rc;
}

/* .gnu_debuglink: the debug file's name, NUL, padding to 4, its CRC-32 in the file's byte order (as objcopy
 * --add-gnu-debuglink writes it; gdb checks the CRC when it finds the file by this name). */
static unsigned char *debuglink(const char *name, const unsigned char *dbg, size_t dbg_n, int big_endian, size_t *n)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t len = strlen(base) + sizeof ".debug"; /* with its NUL */
    size_t pad = (len + 3) & ~(size_t)3;
    unsigned char *p = calloc(pad + 4, 1);
    if (!p)
        return NULL;
    snprintf((char *)p, len, "%s.debug", base);
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < dbg_n;) { /* crc32 takes a uInt length */
        uInt chunk = (uInt)(dbg_n - off > (1u << 30) ? (1u << 30) : dbg_n - off);
        crc = crc32(crc, dbg + off, chunk);
        off += chunk;
    }
    for (int i = 0; i < 4; i++)
        p[pad + (size_t)i] = (unsigned char)(crc >> (big_endian ? 8 * (3 - i) : 8 * i));
    *n = pad + 4;
    return p;
}

int tlck_split_elf(const char *name, unsigned char *p, size_t n, const struct tlck_split_opts *o, int out_fd,
                   struct tlck_split_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)p, n);
    GElf_Ehdr eh;
    size_t shnum, shstrndx;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) != 0 ||
        elf_getshdrstrndx(e, &shstrndx) != 0) {
        snprintf(err, errlen, "not a readable ELF file: %s", elf_errmsg(-1));
        if (e)
            elf_end(e);
        return -1;
    }
    int rc = -1;
    struct tlck_scn_plan *plan = calloc(shnum + 1, sizeof *plan);
    unsigned char **fat_out = calloc(shnum + 1, sizeof *fat_out);
    unsigned char *dbg = NULL, *link = NULL;
    size_t ndebug = 0;
    if (!plan || !fat_out) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (eh.e_type != ET_REL && eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        snprintf(err, errlen, "ELF type %u: not a relocatable object, an executable or a shared library",
                 (unsigned)eh.e_type);
        goto done;
    }
    int host = !o->device_only && eh.e_type != ET_REL;
    struct part_ctx pc = { o, st };
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(e, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) {
            snprintf(err, errlen, "section %zu cannot be read: %s", i, elf_errmsg(-1));
            goto done;
        }
        const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
        if (host && is_debug_name(nm)) {
            plan[i].act = TLCK_SCN_DROP;
            ndebug++;
        }
        if (!is_fatbin_name(nm) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
            continue;
        if (sh.sh_flags & SHF_COMPRESSED) {
            snprintf(err, errlen, "%s: an ELF-compressed fatbin section is not supported", nm);
            goto done;
        }
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) {
            snprintf(err, errlen, "%s: section beyond the end of the file", nm);
            goto done;
        }
        struct tlck_fatbin_split_stats fst;
        size_t out_n = 0;
        enum tlck_fatbin_layout lay = eh.e_type == ET_REL ? TLCK_FATBIN_SHRINK : TLCK_FATBIN_IN_PLACE;
        char ferr[512] = "";
        int frc = tlck_fatbin_split(p + sh.sh_offset, sh.sh_size, lay, put_device_part, &pc, &fat_out[i], &out_n,
                                    &fst, ferr, sizeof ferr);
        if (frc < 0) {
            snprintf(err, errlen, "%s: %s", nm, ferr);
            goto done;
        }
        if (frc == 1 || !fat_out[i])
            continue;
        if (lay == TLCK_FATBIN_IN_PLACE && out_n != sh.sh_size) {
            snprintf(err, errlen, "%s: the in-place split changed the section's size", nm);
            goto done;
        }
        plan[i].act = TLCK_SCN_REPLACE, plan[i].data = fat_out[i], plan[i].n = out_n;
        st->fatbins++;
    }
    /* relocations of a removed section go with it */
    for (size_t i = 1; i < shnum; i++) {
        GElf_Shdr sh;
        if (gelf_getshdr(elf_getscn(e, i), &sh) && (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA) &&
            sh.sh_info && sh.sh_info < shnum && plan[sh.sh_info].act == TLCK_SCN_DROP)
            plan[i].act = TLCK_SCN_DROP;
    }
    if (ndebug == 0 && st->fatbins == 0) {
        rc = 1;
        goto done;
    }
    if (ndebug == 0) {
        if (eh.e_type == ET_REL) { /* the fatbin shrank: libelf lays the object out again */
            struct tlck_elf_rewrite r = { .in = e, .scn = plan, .shnum = shnum };
            rc = tlck_elf_rewrite(&r, out_fd, err, errlen);
        } else { /* in place: the file's bytes, each fatbin's overwritten */
            unsigned char *copy = malloc(n ? n : 1);
            if (!copy) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            memcpy(copy, p, n);
            for (size_t i = 1; i < shnum; i++) {
                GElf_Shdr sh;
                if (plan[i].act == TLCK_SCN_REPLACE && gelf_getshdr(elf_getscn(e, i), &sh))
                    memcpy(copy + sh.sh_offset, plan[i].data, plan[i].n);
            }
            rc = tl_write_all(out_fd, copy, n) == 0 ? 0 : -1;
            if (rc)
                snprintf(err, errlen, "cannot write: %s", strerror(errno));
            free(copy);
        }
        goto done;
    }

    unsigned char id[BUILD_ID_MAX];
    size_t idlen = build_id(e, id, sizeof id);
    if (idlen == 0) {
        snprintf(err, errlen, "no GNU build-id note, so the debug store cannot key its debug file (link with "
                              "-Wl,--build-id)");
        goto done;
    }
    /* the debug file, as eu-strip -f writes it: every section header kept (same indices, so .symtab needs no
     * change), allocated sections NOBITS but the notes (the build-id), debug sections and .symtab with bytes */
    struct tlck_scn_plan *dplan = calloc(shnum + 1, sizeof *dplan);
    if (!dplan) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 1; i < shnum; i++) {
        GElf_Shdr sh;
        gelf_getshdr(elf_getscn(e, i), &sh);
        const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
        if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOTE)
            dplan[i].act = TLCK_SCN_NOBITS;
        else if (nm && strcmp(nm, ".gnu_debuglink") == 0)
            dplan[i].act = TLCK_SCN_NOBITS;
    }
    struct tlck_elf_rewrite dr = { .in = e, .scn = dplan, .shnum = shnum };
    size_t dbg_n = 0;
    int drc = rewrite_to_memory(&dr, &dbg, &dbg_n, err, errlen);
    free(dplan);
    if (drc != 0)
        goto done;
    if (tlck_store_put(o->store, id, idlen, dbg, dbg_n, st->host_debug, sizeof st->host_debug, err, errlen) != 0)
        goto done;
    st->host_part = 1;
    /* the shipped file: debug sections and an older .gnu_debuglink out, the new link in */
    for (size_t i = 1; i < shnum; i++) {
        GElf_Shdr sh;
        gelf_getshdr(elf_getscn(e, i), &sh);
        const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
        if (nm && strcmp(nm, ".gnu_debuglink") == 0 && !(sh.sh_flags & SHF_ALLOC))
            plan[i].act = TLCK_SCN_DROP;
    }
    size_t link_n = 0;
    link = debuglink(name, dbg, dbg_n, eh.e_ident[EI_DATA] == ELFDATA2MSB, &link_n);
    if (!link) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    struct tlck_elf_rewrite sr = { .in = e, .scn = plan, .shnum = shnum, .keep_alloc_offsets = 1,
                                   .add_name = ".gnu_debuglink", .add_data = link, .add_n = link_n };
    rc = tlck_elf_rewrite(&sr, out_fd, err, errlen);
done:
    if (fat_out)
        for (size_t i = 0; i <= shnum; i++)
            free(fat_out[i]);
    free(fat_out);
    free(plan);
    free(dbg);
    free(link);
    elf_end(e);
    return rc;
}
