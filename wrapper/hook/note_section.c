/* The hook's own lookup of `.note.trueline` in the object ccache just wrote.
 *
 * Why not libelf, which every other ELF read of the project goes through: this code runs inside ccache
 * (LD_PRELOAD), and there libelf cannot be had cheaply. Debian's libelf.a is not position-independent
 * (its error state is a local-exec TLS variable, R_X86_64_TPOFF32), so it cannot be linked into a shared
 * object, and preloading libelf.so brings libelf and zlib into the scope of each of ccache's ~2400
 * start-up symbol lookups: +0.18 ms per hit measured on the 2-CPU VM, against +0.08 ms for the hook alone
 * (docs/provenance.md). So this reads only what a yes needs, and only for the one layout a host compiler
 * writes here: a little-endian ELF64 relocatable object with plain section numbering and uncompressed
 * notes. Everything else is "not sure" (-1), and the hook then hands the object to trueline-cc, which
 * verifies it with libelf (wrapper/provenance/verify.c) and reports. A wrong "not sure" costs an exec; a wrong yes
 * would pass a poisoned object, so a yes needs every bound checked. The records themselves are decoded by
 * lib/note.c, the one parser of that format. */
#include "note_section.h"

#include "trueline/file_kind.h"

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* xxHash compiled in: the hook links no library (a preloaded dependency joins every lookup of ccache) */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define HEAD_BYTES (64u << 10)
#define MAX_PIECE (16u << 20) /* a section-header table, name table or note larger than this: not sure */

struct image {
    int fd;
    const unsigned char *head; /* the first got bytes of the file */
    size_t got;
    void *spill[3];            /* pieces read beyond head (section headers, names, one note at a time) */
};

/* len bytes at off: inside head when they are there, else read into spill[slot]; NULL when the file
 * does not have them. */
static const void *piece(struct image *im, uint64_t off, uint64_t len, int slot)
{
    if (len > MAX_PIECE || off > UINT64_MAX - len)
        return NULL;
    if (off + len <= im->got)
        return im->head + off;
    free(im->spill[slot]);
    im->spill[slot] = malloc(len ? len : 1);
    if (!im->spill[slot] || pread(im->fd, im->spill[slot], len, (off_t)off) != (ssize_t)len)
        return NULL;
    return im->spill[slot];
}

static int is_plain_rel64(const Elf64_Ehdr *eh)
{
    return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
           eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_ident[EI_VERSION] == EV_CURRENT &&
           eh->e_type == ET_REL && eh->e_machine != TL_EM_CUDA && eh->e_shentsize == sizeof(Elf64_Shdr) &&
           eh->e_shnum > 0 && eh->e_shnum < SHN_LORESERVE && eh->e_shstrndx < eh->e_shnum;
}

static int is_record_section(const Elf64_Shdr *sh, const char *names, uint64_t names_len)
{
    static const char want[] = TL_NOTE_SECTION;
    return sh->sh_type == SHT_NOTE && sh->sh_name < names_len && names_len - sh->sh_name >= sizeof want &&
           memcmp(names + sh->sh_name, want, sizeof want) == 0;
}

/* The content digest (lib/content_digest.c says what it covers) of the file, the bytes in
 * [skip, skip + skip_len) left out: XXH3-128 streamed over head's bytes, then the rest read in pieces;
 * the same value tl_hasher gives for the same bytes, in tl_hash_hex's spelling. -1 when it cannot be read. */
static int digest(struct image *im, uint64_t skip, uint64_t skip_len, char hex[TL_HASH_HEX_LEN + 1])
{
    struct stat st;
    if (fstat(im->fd, &st) != 0 || st.st_size < 0 || skip > (uint64_t)st.st_size ||
        skip_len > (uint64_t)st.st_size - skip)
        return -1;
    uint64_t size = (uint64_t)st.st_size;
    XXH3_state_t *x = XXH3_createState();
    unsigned char *buf = x ? malloc(HEAD_BYTES) : NULL;
    int rc = buf ? 0 : -1;
    if (x)
        XXH3_128bits_reset(x);
    for (uint64_t at = 0; rc == 0 && at < size;) {
        if (at == skip && skip_len) {
            at += skip_len;
            continue;
        }
        uint64_t end = at < skip ? skip : size, n = end - at;
        const unsigned char *p;
        if (at + n <= im->got) {
            p = im->head + at;
        } else {
            if (at < im->got) /* the part of the piece that head holds first */
                n = im->got - at;
            else if (n > HEAD_BYTES)
                n = HEAD_BYTES;
            p = at < im->got ? im->head + at : buf;
            if (p == buf && pread(im->fd, buf, (size_t)n, (off_t)at) != (ssize_t)n)
                rc = -1;
        }
        if (rc == 0)
            XXH3_128bits_update(x, p, (size_t)n);
        at += n;
    }
    if (rc == 0) {
        XXH128_hash_t h = XXH3_128bits_digest(x);
        static const char digits[] = "0123456789abcdef";
        for (int i = 0; i < 16; i++) {
            hex[i] = digits[(h.high64 >> (60 - 4 * i)) & 15];
            hex[16 + i] = digits[(h.low64 >> (60 - 4 * i)) & 15];
        }
        hex[TL_HASH_HEX_LEN] = 0;
    }
    free(buf);
    XXH3_freeState(x);
    return rc;
}

/* Feeds every record section to c; 0, or -1 when not sure or a section is damaged. */
static int feed(struct image *im, tlcc_record_check *c, tlcc_verify_result *r)
{
    Elf64_Ehdr eh;
    if (im->got < sizeof eh)
        return -1;
    memcpy(&eh, im->head, sizeof eh);
    if (!is_plain_rel64(&eh))
        return -1;
    const Elf64_Shdr *shp = piece(im, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), 0);
    if (!shp)
        return -1;
    Elf64_Shdr *sh = malloc(eh.e_shnum * sizeof *sh); /* aligned copies: the table may sit at any offset */
    if (!sh)
        return -1;
    memcpy(sh, shp, eh.e_shnum * sizeof *sh);
    const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
    const char *names = ns->sh_type == SHT_STRTAB && !(ns->sh_flags & SHF_COMPRESSED)
                            ? piece(im, ns->sh_offset, ns->sh_size, 1) : NULL;
    int rc = names ? 0 : -1, nrec = 0;
    unsigned first = 0;
    for (unsigned i = 1; rc == 0 && i < eh.e_shnum; i++) {
        if (!is_record_section(&sh[i], names, ns->sh_size))
            continue;
        if (!nrec++)
            first = i;
        const void *data = sh[i].sh_flags & SHF_COMPRESSED ? NULL : piece(im, sh[i].sh_offset, sh[i].sh_size, 2);
        rc = data && tlcc_record_check_add(c, data, sh[i].sh_size, 0, r) == 0 ? 0 : -1;
    }
    /* a record without a content digest needs none; one that has it is compared with c->content */
    if (rc == 0 && nrec == 1 && c->compile && c->compile->content_hash &&
        digest(im, sh[first].sh_offset, sh[first].sh_size, c->content) != 0)
        rc = -1;
    free(sh);
    return rc;
}

int tlcc_hook_read_record(const char *path, tlcc_record_check *c, tlcc_verify_result *r)
{
    /* From the heap, not .bss: a 64 KiB .bss is one more mapping for the loader to make on every hit,
     * and ccache's heap usually has the room without a system call. */
    unsigned char *head = malloc(HEAD_BYTES);
    struct image im = { .fd = head ? openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC) : -1, .head = head };
    if (im.fd < 0) {
        free(head);
        return -1;
    }
    ssize_t got = read(im.fd, head, HEAD_BYTES);
    im.got = got > 0 ? (size_t)got : 0;
    int fed = feed(&im, c, r);
    for (int i = 0; i < 3; i++)
        free(im.spill[i]);
    close(im.fd);
    free(head);
    return fed;
}

int tlcc_hook_object_matches(const char *path, const char *fingerprint, const char *argv_hash, const char *key_hash,
                             const char *key_hash_pp)
{
    tlcc_verify_expect e = { .fingerprint = fingerprint, .argv_hash = argv_hash, .key_hash = key_hash,
                             .key_hash_pp = key_hash_pp };
    tlcc_verify_result r;
    memset(&r, 0, sizeof r);
    tlcc_record_check c = { 0 };
    int fed = tlcc_hook_read_record(path, &c, &r);
    tlcc_record_check_end(&c, fed != 0, &e, &r);
    return fed == 0 && r.status == TLCC_VERIFY_OK;
}
