/* checker/split/elf_split.c + elf_rewrite.c (and the device split it calls): one ELF file split, the shipped copy
 * written to a memfd and the debug parts into a store under /dev/shm (or TMPDIR), made once per process. Input:
 * the ELF file's bytes. Any verdict is fine; a crash, a leak or an out-of-bounds read is not. */
#include "fuzz_util.h"
#include "split/elf_split.h"

#include <sys/stat.h>

static char split_store[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 64 || size > (1u << 20))
        return 0;
    if (!split_store[0]) {
        snprintf(split_store, sizeof split_store, "%s/tl-fuzz-split.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(split_store))
            abort();
    }
    unsigned char *p = malloc(size);
    memcpy(p, data, size);
    int fd = memfd_create("tl-fuzz-split", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    struct tlck_split_opts o = { .store = split_store, .device_only = size & 1 };
    struct tlck_split_stats st;
    char err[1024];
    tlck_split_elf("fuzz.so", p, size, &o, fd, &st, err, sizeof err);
    close(fd);
    free(p);
    return 0;
}
