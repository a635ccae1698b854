/* Adds a provenance record to an ELF file's `.note.trueline` section, in place.
 *
 * libelf (ELF_C_RDWR) with ELF_F_LAYOUT: we place the new bytes ourselves so that every byte already in
 * the file keeps its offset. That matters for linked outputs (executables, shared objects), whose
 * loadable segments must not move, and keeps objects otherwise byte-identical for caches. The note data
 * and a grown copy of the section-name table are appended at the end of the file, followed by the
 * section header table; both are non-allocated, so moving them is safe. When the file already has a
 * `.note.trueline` (a link of stamped objects), the record is appended to that section (moved to the
 * end the same way). The old name table stays behind as unreferenced bytes (a few hundred bytes). */
#include "provenance/stamp.h"

#include "trueline/content_digest.h"
#include "trueline/note_section.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* Replaces a section's data with one new buffer placed at *end (advanced past it). */
static int relocate(Elf_Scn *scn, void *bytes, size_t len, size_t align, size_t *end)
{
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
        return -1;
    Elf_Data *d = elf_getdata(scn, NULL);
    /* Every data descriptor after the first would be written too; a section we rewrite has one. */
    if (d && elf_getdata(scn, d))
        return -1;
    if (!d && !(d = elf_newdata(scn)))
        return -1;
    d->d_buf = bytes;
    d->d_size = len;
    d->d_off = 0;
    d->d_type = ELF_T_BYTE;
    d->d_align = 1;
    d->d_version = EV_CURRENT;
    sh.sh_offset = align_up(*end, align);
    sh.sh_size = len;
    if (sh.sh_addralign < align)
        sh.sh_addralign = align;
    *end = sh.sh_offset + len;
    elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
    return gelf_update_shdr(scn, &sh) ? 0 : -1;
}

static int copy_section(Elf_Scn *scn, const void *extra, size_t extra_len, unsigned char **out, size_t *len)
{
    Elf_Data *d = elf_rawdata(scn, NULL);
    size_t old = d ? d->d_size : 0;
    *out = malloc(old + extra_len + 1);
    if (!*out)
        return -1;
    if (old)
        memcpy(*out, d->d_buf, old);
    memcpy(*out + old, extra, extra_len);
    *len = old + extra_len;
    return 0;
}

static int stamp_elf(Elf *elf, size_t file_size, const unsigned char *rec, size_t rec_len, tl_error *err,
                     const char *path, int *written)
{
    GElf_Ehdr eh;
    size_t shstrndx;
    if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0 || shstrndx == SHN_UNDEF)
        return tl_fail(err, "%s: no section-name table: %s", path, elf_errmsg(-1));
    if (eh.e_shnum == 0 || eh.e_shnum >= SHN_LORESERVE - 1)
        return tl_fail(err, "%s: section count %u not supported for stamping", path, (unsigned)eh.e_shnum);
    /* ELF_F_DIRTY on the whole file: elfutils 0.188 otherwise writes the section header table from the
     * array it read (one entry short after elf_newscn: the new header came out as garbage). */
    elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT | ELF_F_DIRTY);
    size_t end = file_size;
    unsigned char *names = NULL, *notes = NULL;
    size_t names_len = 0, notes_len = 0;
    int rc = -1;
    GElf_Shdr note_sh;
    Elf_Scn *note = tl_note_section_next(elf, shstrndx, NULL, &note_sh); /* the first, where the record goes */
    if (note) {
        if (copy_section(note, rec, rec_len, &notes, &notes_len) == 0 &&
            relocate(note, notes, notes_len, 4, &end) == 0)
            rc = 0;
    } else {
        Elf_Scn *strscn = elf_getscn(elf, shstrndx);
        GElf_Shdr ssh;
        if (!strscn || !gelf_getshdr(strscn, &ssh) ||
            copy_section(strscn, TL_NOTE_SECTION, sizeof TL_NOTE_SECTION, &names, &names_len) != 0)
            goto out;
        size_t name_off = ssh.sh_size;
        if (relocate(strscn, names, names_len, 1, &end) != 0)
            goto out;
        Elf_Scn *scn = elf_newscn(elf);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh))
            goto out;
        memset(&sh, 0, sizeof sh);
        sh.sh_name = (GElf_Word)name_off;
        sh.sh_type = SHT_NOTE;
        sh.sh_addralign = 4;
        if (!gelf_update_shdr(scn, &sh) || relocate(scn, (void *)rec, rec_len, 4, &end) != 0)
            goto out;
        rc = 0;
    }
    if (rc == 0) {
        if (!gelf_getehdr(elf, &eh))
            rc = -1;
        else {
            size_t sha = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
            eh.e_shoff = align_up(end, sha);
            rc = gelf_update_ehdr(elf, &eh) ? 0 : -1;
            if (rc == 0 && elf_update(elf, ELF_C_WRITE) < 0) {
                *written = 1; /* some of it may be on disk: the file is no longer what the compiler wrote */
                rc = -1;
            }
        }
    }
out:
    if (rc != 0)
        tl_fail(err, "%s: cannot add %s: %s", path, TL_NOTE_SECTION, elf_errmsg(-1));
    free(names);
    free(notes);
    return rc;
}

int tlcc_stamp_file(const char *path, const tl_note *n, size_t argv_max, tl_error *err)
{
    unsigned char *rec;
    size_t rec_len;
    if (tl_note_encode(n, argv_max, &rec, &rec_len, err) != 0)
        return -1;
    int rc = tlcc_stamp_record(path, rec, rec_len, err);
    free(rec);
    return rc;
}

/* A stamp that failed while writing (a full disk, a quota, a file size limit) leaves an object that is neither
 * the compiler's nor stamped, newer than its source: make would call it up to date. The compiler removes an
 * output it could not write; so does the stamp, and the compile fails. */
static int remove_damaged(const char *path, tl_error *err)
{
    char why[TL_ERR_MAX];
    snprintf(why, sizeof why, "%s", err->msg);
    if (unlink(path) == 0 || errno == ENOENT)
        return tl_fail(err, "%s; %s removed (a partly written output is never left behind)", why, path);
    return tl_fail(err, "%s; %s could not be removed either: %s (delete it before the next build)", why, path,
                   strerror(errno));
}

int tlcc_stamp_record(const char *path, const unsigned char *rec, size_t rec_len, tl_error *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return tl_fail(err, "libelf: %s", elf_errmsg(-1));
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return tl_fail(err, "%s: cannot open for stamping: %s", path, strerror(e));
    }
    int rc, written = 0;
    Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF)
        rc = tl_fail(err, "%s: not an ELF file, not stamped", path);
    else
        rc = stamp_elf(elf, (size_t)st.st_size, rec, rec_len, err, path, &written);
    if (elf)
        elf_end(elf);
    if (close(fd) != 0 && rc == 0) { /* NFS reports a failed write at close */
        rc = tl_fail(err, "%s: cannot write %s: %s", path, TL_NOTE_SECTION, strerror(errno));
        written = 1;
    }
    return rc != 0 && written ? remove_damaged(path, err) : rc;
}

/* Fills the record's placeholders once it is in the file: the content digest leaves the record section
 * out, so writing the digest (and the MAC over it) into the record changes nothing it covers. */
static int seal(int fd, const char *path, const unsigned char *rec, size_t rec_len, const tlcc_mac_key *key,
                tl_error *err)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    uint64_t off = 0, size = 0;
    size_t file_len = 0;
    const unsigned char *file = elf ? (const unsigned char *)elf_rawfile(elf, &file_len) : NULL;
    unsigned char *out = malloc(rec_len);
    char hex[TL_NOTE_MAC_HEX_LEN + 1];
    size_t voff, vlen, doff, dlen;
    int rc = -1;
    /* the record is the end of the one record section, as tlcc_stamp_record just placed it */
    if (!file || !out || tl_record_sections(elf, &off, &size) != 1 || size < rec_len || off + size > file_len ||
        memcmp(file + off + size - rec_len, rec, rec_len) != 0) {
        tl_fail(err, "%s: cannot find the record just written to seal it", path);
        goto out;
    }
    memcpy(out, rec, rec_len);
    if (tl_note_field(out, rec_len, "ch", &voff, &vlen) == 0) {
        if (vlen != TL_HASH_HEX_LEN || tl_content_digest(file, file_len, off, size, hex) != 0) {
            tl_fail(err, "%s: cannot compute the content digest", path);
            goto out;
        }
        memcpy(out + voff, hex, TL_HASH_HEX_LEN);
    }
    if (key && tl_note_field(out, rec_len, "mac", &voff, &vlen) == 0) {
        unsigned char type_le[4];
        uint32_t type;
        memcpy(&type, out + 8, sizeof type);
        for (int b = 0; b < 4; b++)
            type_le[b] = (unsigned char)(type >> (8 * b));
        if (vlen != TL_NOTE_MAC_HEX_LEN || tl_note_mac_span(out, rec_len, &doff, &dlen) != 0 ||
            tlcc_mac_hex(key, type_le, sizeof type_le, out + doff, dlen, hex) != 0) {
            tl_fail(err, "%s: cannot compute the record's MAC", path);
            goto out;
        }
        memcpy(out + voff, hex, TL_NOTE_MAC_HEX_LEN);
    }
    rc = 0;
out:
    if (elf)
        elf_end(elf);
    if (rc == 0 && pwrite(fd, out, rec_len, (off_t)(off + size - rec_len)) != (ssize_t)rec_len)
        rc = tl_fail(err, "%s: cannot write the sealed record: %s", path, strerror(errno));
    free(out);
    return rc;
}

int tlcc_stamp_sealed(const char *path, const unsigned char *rec, size_t rec_len, const tlcc_mac_key *key, tl_error *err)
{
    if (tlcc_stamp_record(path, rec, rec_len, err) != 0)
        return -1;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return tl_fail(err, "%s: cannot open to seal the record: %s", path, strerror(errno));
    int rc = seal(fd, path, rec, rec_len, key, err);
    if (close(fd) != 0 && rc == 0)
        rc = tl_fail(err, "%s: cannot write the sealed record: %s", path, strerror(errno));
    /* the record is in the file by now: unsealed or half sealed, it binds nothing */
    return rc != 0 ? remove_damaged(path, err) : 0;
}
