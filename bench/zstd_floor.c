/* The decompression floor of a device audit, measured in the same run as the audit (bench/device.sh): every
 * fatbin entry of FILE decompressed with the same library calls the checker uses (tl_fatbin_image), on one
 * thread, with nothing else done. The audit can be no faster than this divided by the threads it uses, so the
 * report states the audit as a multiple of floor / CPUs instead of comparing with another machine's figure.
 *   zstd_floor FILE   → "<entries> <decompressed bytes> <seconds>" */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/fatbin.h"

struct tally {
    struct tl_fatbin_scratch s;
    size_t entries, bytes;
};

static int one(const struct tl_fatbin_entry *e, void *ctx)
{
    struct tally *t = ctx;
    const unsigned char *p;
    size_t n;
    tl_error err;
    if (tl_fatbin_image(e, &t->s, (size_t)1 << 30, &p, &n, &err) == 0) {
        t->entries++;
        t->bytes += n;
    }
    tl_fatbin_scratch_shrink(&t->s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[1]);
        return 2;
    }
    unsigned char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    elf_version(EV_CURRENT);
    Elf *elf = map == MAP_FAILED ? NULL : elf_memory((char *)map, (size_t)st.st_size);
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
        fprintf(stderr, "%s: not an ELF file\n", argv[1]);
        return 2;
    }
    struct tally t = { 0 };
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (!name || sh.sh_type == SHT_NOBITS || sh.sh_offset + sh.sh_size > (uint64_t)st.st_size ||
            (strcmp(name, ".nv_fatbin") != 0 && strcmp(name, "__nv_relfatbin") != 0))
            continue;
        tl_error err;
        tl_fatbin_walk(map + sh.sh_offset, sh.sh_size, 0, one, &t, &err);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%zu %zu %.3f\n", t.entries, t.bytes, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    tl_fatbin_scratch_free(&t.s);
    elf_end(elf);
    return 0;
}
