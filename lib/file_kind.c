#include "trueline/file_kind.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static unsigned half(const unsigned char *p, int big_endian)
{
    return big_endian ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]);
}

enum tl_file_kind tl_sniff(const void *data, size_t n, struct tl_elf_ident *id)
{
    const unsigned char *p = data;
    if (id)
        memset(id, 0, sizeof *id);
    if (n >= 4 && memcmp(p, "\177ELF", 4) == 0) {
        if (id && n >= 6) {
            id->elf_class = p[4];
            id->big_endian = p[5] == 2; /* ELFDATA2MSB */
        }
        if (id && n >= TL_SNIFF_BYTES) {
            id->type = half(p + 16, id->big_endian);
            id->machine = half(p + 18, id->big_endian);
        }
        return TL_FILE_ELF;
    }
    if (n >= 4 && (p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24) == TL_FATBIN_MAGIC)
        return TL_FILE_FATBIN;
    if (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0)
        return TL_FILE_AR;
    if (n >= 8 && memcmp(p, "!<thin>\n", 8) == 0)
        return TL_FILE_THIN_AR;
    return TL_FILE_UNKNOWN;
}

long tl_read_head(const char *path, void *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, n);
    close(fd);
    return got;
}

int tl_sniff_path(const char *path, enum tl_file_kind *kind, struct tl_elf_ident *id)
{
    unsigned char m[TL_SNIFF_BYTES];
    long n = tl_read_head(path, m, sizeof m);
    if (n < 0)
        return -1;
    *kind = tl_sniff(m, (size_t)n, id);
    return 0;
}
