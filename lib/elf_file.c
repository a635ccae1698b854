#include "trueline/elf_file.h"
#include "trueline/file_kind.h"
#include "map_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

void tl_bytes_free(tl_bytes *b)
{
    free(b->owned);
    memset(b, 0, sizeof *b);
}

int tl_is_elf(const void *data, size_t size)
{
    return size >= EI_NIDENT && tl_sniff(data, size, NULL) == TL_FILE_ELF;
}

int tl_map_file(const char *path, const unsigned char **data, size_t *size, void **map, size_t *map_len,
                tl_error *err)
{
    struct stat st;
    /* O_NONBLOCK: a FIFO named by a path we did not choose (a .gnu_debuglink name) must not block the open; the
     * fstat below then refuses it. It changes nothing for a regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return tl_fail(err, "cannot open: %s", strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return tl_fail(err, "not a regular file");
    }
    *map = NULL;
    *map_len = (size_t)st.st_size;
    if (st.st_size > 0) {
        *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (*map == MAP_FAILED) {
            int e = errno;
            close(fd);
            *map = NULL;
            return tl_fail(err, "cannot map: %s", strerror(e));
        }
    }
    close(fd);
    tl_map_guard_add(*map, *map_len);
    *data = *map ? *map : (const unsigned char *)"";
    *size = (size_t)st.st_size;
    return 0;
}

int tl_map_changed(const void *map)
{
    return tl_map_guard_changed(map);
}

void tl_unmap_file(void *map, size_t map_len)
{
    if (map) {
        tl_map_guard_remove(map);
        munmap(map, map_len);
    }
}

int tl_elf_open_mem(tl_elf *e, const char *name, const void *data, size_t size, tl_error *err)
{
    memset(e, 0, sizeof *e);
    e->name = strdup(name);
    e->data = data;
    e->size = size;
    if (!tl_is_elf(data, size))
        return tl_fail(err, "not an ELF file");
    elf_version(EV_CURRENT);
    /* elf_memory wants a mutable pointer but with ELF_C_READ semantics never writes through it. */
    e->elf = elf_memory((char *)(uintptr_t)data, size);
    if (!e->elf || elf_kind(e->elf) != ELF_K_ELF)
        return tl_fail(err, "not a valid ELF file: %s", elf_errmsg(-1));
    if (!gelf_getehdr(e->elf, &e->ehdr))
        return tl_fail(err, "bad ELF header: %s", elf_errmsg(-1));
    if (elf_getshdrnum(e->elf, &e->shnum) != 0 || elf_getshdrstrndx(e->elf, &e->shstrndx) != 0)
        return tl_fail(err, "bad section header table: %s", elf_errmsg(-1));
    /* libelf reads lazily: a file cut short (e.g. a clipped archive member) opens fine and only fails, or reads
     * zeros, when sections are asked for. The table's extent is known now, so a truncation is reported here.
     * libelf itself then reports no sections at all, so the header's own e_shnum is what is checked (0 means
     * extended numbering, where libelf had to read the table and shnum is trustworthy). */
    size_t entsize = e->ehdr.e_shentsize ? e->ehdr.e_shentsize : 1;
    size_t count = e->ehdr.e_shnum ? e->ehdr.e_shnum : e->shnum;
    if (e->ehdr.e_shoff && (e->ehdr.e_shoff > size || count > (size - e->ehdr.e_shoff) / entsize))
        return tl_fail(err, "truncated %s: its section header table (offset %llu, %zu entries) ends past the end "
                       "of the file (%zu bytes)", e->ehdr.e_type == ET_CORE ? "core" : "file",
                       (unsigned long long)e->ehdr.e_shoff, count, size);
    return 0;
}

int tl_elf_open_path(tl_elf *e, const char *path, tl_error *err)
{
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    memset(e, 0, sizeof *e);
    if (tl_map_file(path, &data, &size, &map, &map_len, err) != 0)
        return -1;
    int rc = tl_elf_open_mem(e, path, data, size, err);
    e->map = map;
    e->map_len = map_len;
    return rc;
}

void tl_elf_close(tl_elf *e)
{
    if (e->elf)
        elf_end(e->elf);
    tl_unmap_file(e->map, e->map_len);
    free(e->name);
    memset(e, 0, sizeof *e);
}

const char *tl_elf_section_name(const tl_elf *e, const GElf_Shdr *shdr)
{
    const char *n = elf_strptr(e->elf, e->shstrndx, shdr->sh_name);
    return n ? n : "";
}

Elf_Scn *tl_elf_section(const tl_elf *e, const char *name, GElf_Shdr *shdr)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (strcmp(tl_elf_section_name(e, &sh), name) == 0) {
            if (shdr)
                *shdr = sh;
            return scn;
        }
    }
    return NULL;
}

int tl_elf_section_raw(const tl_elf *e, Elf_Scn *scn, tl_bytes *out, tl_error *err)
{
    GElf_Shdr sh;
    memset(out, 0, sizeof *out);
    if (!gelf_getshdr(scn, &sh))
        return tl_fail(err, "bad section header: %s", elf_errmsg(-1));
    if (sh.sh_type == SHT_NOBITS)
        return 0;
    if (sh.sh_offset > e->size || sh.sh_size > e->size - sh.sh_offset)
        return tl_fail(err, "section %s [%zu] extends past the end of the file (offset 0x%llx size 0x%llx)",
                       tl_elf_section_name(e, &sh), elf_ndxscn(scn), (unsigned long long)sh.sh_offset,
                       (unsigned long long)sh.sh_size);
    out->p = e->data + sh.sh_offset;
    out->n = sh.sh_size;
    return 0;
}

static int inflate_zlib(const unsigned char *src, size_t n, unsigned char *dst, size_t want)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK)
        return -1;
    int rc = Z_OK;
    size_t done_in = 0, done_out = 0;
    /* zlib counts in uInt; feed in chunks so sections over 4 GiB cannot wrap. */
    while (rc == Z_OK) {
        zs.next_in = (Bytef *)(uintptr_t)(src + done_in);
        zs.avail_in = (uInt)((n - done_in) > 0x40000000u ? 0x40000000u : (n - done_in));
        zs.next_out = dst + done_out;
        zs.avail_out = (uInt)((want - done_out) > 0x40000000u ? 0x40000000u : (want - done_out));
        size_t in0 = zs.avail_in, out0 = zs.avail_out;
        rc = inflate(&zs, Z_NO_FLUSH);
        done_in += in0 - zs.avail_in;
        done_out += out0 - zs.avail_out;
        if (rc == Z_BUF_ERROR && done_out == want)
            break;
        if (rc == Z_OK && in0 == zs.avail_in && out0 == zs.avail_out)
            break;
    }
    inflateEnd(&zs);
    return (rc == Z_STREAM_END || rc == Z_OK || rc == Z_BUF_ERROR) && done_out == want ? 0 : -1;
}

/* GNU's older form (gcc -gz=zlib-gnu, binutils before 2.26 by default): a section named .zdebug_*, holding
 * "ZLIB", the uncompressed size as 8 big-endian bytes, then a zlib stream. libelf's elf_compress_gnu would
 * inflate it in place in libelf's own copy; done here like SHF_COMPRESSED so that the same bounds apply. */
static int gnu_zdebug(tl_budget *budget, const char *name, tl_bytes *out, tl_error *err)
{
    const unsigned char *p = out->p;
    if (out->n < 12 || memcmp(p, "ZLIB", 4) != 0)
        return tl_fail(err, "section %s lacks the ZLIB header of GNU-compressed debug sections", name);
    unsigned long long size = 0;
    for (int i = 4; i < 12; i++)
        size = size << 8 | p[i];
    char what[300];
    snprintf(what, sizeof what, "compressed section %s", name);
    if (size > TL_SECTION_MAX)
        return tl_fail(err, "compressed section %s declares an implausible size %llu", name, size);
    if (tl_budget_take(budget, what, out->n - 12, size, TL_ZLIB_MAX_RATIO, err) != 0)
        return -1;
    unsigned char *dst = malloc(size ? size : 1);
    if (!dst) {
        tl_budget_oom(budget, what, size);
        return tl_fail(err, "out of memory decompressing %s", name);
    }
    if (inflate_zlib(p + 12, out->n - 12, dst, size) != 0) {
        free(dst);
        return tl_fail(err, "section %s: corrupt zlib data", name);
    }
    tl_bytes_free(out);
    *out = (tl_bytes){ .p = dst, .n = size, .owned = dst };
    return 0;
}

int tl_elf_section_bytes(const tl_elf *e, Elf_Scn *scn, tl_bytes *out, tl_error *err)
{
    GElf_Shdr sh;
    if (tl_elf_section_raw(e, scn, out, err) != 0)
        return -1;
    if (gelf_getshdr(scn, &sh) && !(sh.sh_flags & SHF_COMPRESSED) && sh.sh_type != SHT_NOBITS &&
        strncmp(tl_elf_section_name(e, &sh), ".zdebug_", 8) == 0)
        return gnu_zdebug(e->budget, tl_elf_section_name(e, &sh), out, err);
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
        return 0;
    const char *name = tl_elf_section_name(e, &sh);
    GElf_Chdr ch;
    size_t hdr = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
    if (out->n < hdr)
        return tl_fail(err, "compressed section %s is shorter than its header", name);
    if (e->ehdr.e_ident[EI_CLASS] == ELFCLASS64) {
        Elf64_Chdr c;
        memcpy(&c, out->p, sizeof c);
        ch.ch_type = c.ch_type;
        ch.ch_size = c.ch_size;
    } else {
        Elf32_Chdr c;
        memcpy(&c, out->p, sizeof c);
        ch.ch_type = c.ch_type;
        ch.ch_size = c.ch_size;
    }
    if (ch.ch_size > TL_SECTION_MAX)
        return tl_fail(err, "compressed section %s declares an implausible size %llu", name,
                       (unsigned long long)ch.ch_size);
    const unsigned char *src = out->p + hdr;
    size_t n = out->n - hdr;
    char what[300];
    snprintf(what, sizeof what, "compressed section %s", name);
    /* Checked against what the payload could possibly expand to before allocating: a forged ch_size otherwise
     * asks malloc for up to 4 GiB per section (found by fuzz/targets/elf_file.c; tests/data/regress/elf_file). */
    if (tl_budget_take(e->budget, what, n, ch.ch_size,
                       ch.ch_type == ELFCOMPRESS_ZLIB ? TL_ZLIB_MAX_RATIO : TL_ZSTD_MAX_RATIO, err) != 0)
        return -1;
    unsigned char *dst = malloc(ch.ch_size ? ch.ch_size : 1);
    if (!dst) {
        tl_budget_oom(e->budget, what, ch.ch_size);
        return tl_fail(err, "out of memory decompressing %s", name);
    }
    int ok;
    if (ch.ch_type == ELFCOMPRESS_ZLIB) {
        ok = inflate_zlib(src, n, dst, ch.ch_size) == 0;
    } else if (ch.ch_type == ELFCOMPRESS_ZSTD) {
        size_t r = ZSTD_decompress(dst, ch.ch_size, src, n);
        ok = !ZSTD_isError(r) && r == ch.ch_size;
    } else {
        free(dst);
        return tl_fail(err, "section %s uses unknown compression type %u", name, (unsigned)ch.ch_type);
    }
    if (!ok) {
        free(dst);
        return tl_fail(err, "section %s: corrupt %s data", name, ch.ch_type == ELFCOMPRESS_ZLIB ? "zlib" : "zstd");
    }
    out->p = dst;
    out->n = ch.ch_size;
    out->owned = dst;
    return 0;
}
