/* Device images of one input, for the tools that need their bytes (--extract, --symbolize, --coredump).
 * The audit reader (tl_read_device_images) uses the same enumeration but keeps only summaries. */
#ifndef TL_DEVICE_H
#define TL_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include "read/fatbin.h"
#include "trueline/diag.h"

/* One device image, located. */
struct tl_device_ref {
    const char *section;           /* ".nv_fatbin", "__nv_relfatbin", or NULL (standalone .fatbin/.cubin) */
    struct tl_fatbin_entry fe;     /* for a standalone cubin: kind ELF, payload = the whole file */
    int is_cubin_file;             /* the input itself is the cubin */
};

struct tl_device_refs {
    struct tl_device_ref *v;
    size_t n, cap;
};

/* Finds every device image in data (a host ELF, a standalone .fatbin or a .cubin). Container-level damage
 * is returned in err (-1) with the images found before it kept in refs. */
int tl_device_enumerate(const char *display, const unsigned char *data, size_t size, struct tl_device_refs *refs,
                        tl_error *err);
void tl_device_refs_free(struct tl_device_refs *refs);

/* Upper bound for one decompressed image, from --max-input-mb (0 = the default, 1 GiB). */
size_t tl_device_max_image(unsigned long long max_input_mb);

/* "sm_90a", "compute_120" into buf. */
const char *tl_device_arch_name(char *buf, size_t n, unsigned sm, char suffix, int is_virtual);
/* The same for a fatbin entry, from its header alone (arch, a/f flags, PTX = virtual). */
const char *tl_device_entry_arch(char *buf, size_t n, const struct tl_fatbin_entry *fe);
/* The label reports and --symbolize give an image: "fatbin[2].entry[4] sm_90", "relfatbin[..]..", "cubin sm_90". */
const char *tl_device_label(char *buf, size_t n, const struct tl_device_ref *r, unsigned container,
                            unsigned entry, const char *arch);
/* 'a', 'f' or 0 from an entry's flags. */
char tl_device_arch_suffix(uint64_t flags);

#endif
