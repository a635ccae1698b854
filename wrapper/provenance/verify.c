/* Cache-hit verification: after a cached compile, the object's record must say it was built by this
 * toolchain (fingerprint) from this effective argv as the cache keys it (verify_key.c). This file finds the record's section(s)
 * with libelf; record_check.c decides.
 * Reading goes through libelf like every other ELF access of the project, on a mapping of the object
 * (ELF_C_READ_MMAP: fstat, mmap, munmap): the object was just written, so its pages are in the page cache
 * and one fault maps up to sixteen of them, where reading it into a buffer faulted every 4 KiB of the
 * buffer; a large nvcc object (fatbin) costs no more, as only the headers and the note are touched.
 * (A file truncated by someone else while mapped could raise SIGBUS; the object is this compile's output.)
 * The host-object test is made on the header libelf already read (no second open). */
#include "provenance/verify.h"

#include "trueline/content_digest.h"
#include "trueline/file_kind.h"
#include "trueline/note_section.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_record(const char *path, tlcc_record_check *c, tlcc_verify_result *r)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        r->status = TLCC_VERIFY_NOT_HOST;
        return -1;
    }
    if (fd < 0) {
        r->status = TLCC_VERIFY_UNREADABLE;
        snprintf(r->what, sizeof r->what, "cannot open: %s", strerror(errno));
        return -1;
    }
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr eh;
    size_t shstrndx;
    int rc = -1;
    if (!elf || elf_kind(elf) != ELF_K_ELF) { /* not ELF at all: what tlcc_prov_is_host_object skips too */
        r->status = TLCC_VERIFY_NOT_HOST;
        goto out;
    }
    if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
        r->status = TLCC_VERIFY_UNREADABLE;
        snprintf(r->what, sizeof r->what, "not a readable ELF object");
        goto out;
    }
    if (eh.e_type != ET_REL || eh.e_machine == TL_EM_CUDA) {
        r->status = TLCC_VERIFY_NOT_HOST;
        goto out;
    }
    rc = 0;
    if (tl_object_content_digest(elf, c->content) != 0)
        c->content[0] = 0;
    GElf_Shdr sh;
    for (Elf_Scn *s = tl_note_section_next(elf, shstrndx, NULL, &sh); s; s = tl_note_section_next(elf, shstrndx, s, &sh)) {
        Elf_Data *d = elf_rawdata(s, NULL);
        if (d && tlcc_record_check_add(c, d->d_buf, d->d_size, eh.e_ident[EI_DATA] == ELFDATA2MSB, r) < 0)
            rc = -1;
    }
out:
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

void tlcc_verify_object(const char *path, const tlcc_verify_expect *e, tlcc_verify_result *r)
{
    memset(r, 0, sizeof *r);
    tlcc_record_check c = { 0 };
    int decided = read_record(path, &c, r) != 0;
    tlcc_record_check_end(&c, decided, e, r);
}

int tlcc_prov_is_host_object(const char *path)
{
    enum tl_file_kind kind;
    struct tl_elf_ident id;
    return tl_sniff_path(path, &kind, &id) == 0 && kind == TL_FILE_ELF && id.type == ET_REL && id.machine != TL_EM_CUDA;
}
