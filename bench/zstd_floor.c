/* The decompression floor of a device audit, measured in the same run as the audit (bench/device.sh): every
 * fatbin entry of FILE decompressed with the same library calls the checker uses (tlck_fatbin_image), on one
 * thread, with nothing else done. The audit can be no faster than this divided by the threads it uses, so the
 * report states the audit as a multiple of floor / CPUs instead of comparing with another machine's figure.
 *   zstd_floor FILE   → "<entries> <decompressed bytes> <seconds>" */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/device.h"

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
    struct tlck_device_refs refs = { 0 };
    tl_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0); /* the audit enumerates too: timed alike */
    /* the checker's own enumeration (host ELF sections, standalone fatbin or cubin): the same entries */
    if (map == MAP_FAILED || tlck_device_enumerate(argv[1], map, (size_t)st.st_size, &refs, &err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], map == MAP_FAILED ? "cannot map" : err.msg);
        return 2;
    }
    struct tlck_fatbin_scratch s = { 0 };
    tlck_fatbin_scratch_reserve(&s, tlck_device_largest_image(&refs, (size_t)1 << 30)); /* as each audit thread */
    size_t entries = 0, bytes = 0;
    for (size_t i = 0; i < refs.n; i++) {
        const unsigned char *p;
        size_t n;
        if (tlck_fatbin_image(&refs.v[i].fe, &s, (size_t)1 << 30, &p, &n, &err) == 0) {
            entries++;
            bytes += n;
        }
        tlck_fatbin_scratch_shrink(&s);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%zu %zu %.3f\n", entries, bytes, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    tlck_fatbin_scratch_free(&s);
    tlck_device_refs_free(&refs);
    munmap(map, (size_t)st.st_size);
    close(fd);
    return 0;
}
