/* Device images of one input, for the tools that need their bytes (--extract, --symbolize, --coredump).
 * The audit reader (tlck_read_device_images) uses the same enumeration but keeps only summaries. */
#ifndef TLCK_DEVICE_H
#define TLCK_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include "read/fatbin.h"
#include "trueline/diag.h"

/* One device image, located. */
struct tlck_device_ref {
    const char *section;           /* ".nv_fatbin", "__nv_relfatbin", or NULL (standalone .fatbin/.cubin) */
    struct tlck_fatbin_entry fe;     /* for a standalone cubin: kind ELF, payload = the whole file */
    int is_cubin_file;             /* the input itself is the cubin */
};

struct tlck_device_refs {
    struct tlck_device_ref *v;
    size_t n, cap;
};

/* Finds every device image in data (a host ELF, a standalone .fatbin or a .cubin). Container-level damage
 * is returned in err (-1) with the images found before it kept in refs. */
int tlck_device_enumerate(const char *display, const unsigned char *data, size_t size, struct tlck_device_refs *refs,
                        tl_error *err);
void tlck_device_refs_free(struct tlck_device_refs *refs);
/* The size of the largest image among refs that would be decompressed: stored ones are read in place, and those
 * over cap or claiming more than their payload can expand to are refused unread (tlck_fatbin_image). Each
 * reader thread sizes its buffer to it once (tlck_fatbin_scratch_reserve). */
size_t tlck_device_largest_image(const struct tlck_device_refs *refs, size_t cap);

/* "sm_90a", "compute_120" into buf. */
const char *tlck_device_arch_name(char *buf, size_t n, unsigned sm, char suffix, int is_virtual);
/* The same for a fatbin entry, from its header alone (arch, a/f flags, PTX = virtual). */
const char *tlck_device_entry_arch(char *buf, size_t n, const struct tlck_fatbin_entry *fe);
/* The label reports and --symbolize give an image: "fatbin[2].entry[4] sm_90", "relfatbin[..]..", "cubin sm_90". */
const char *tlck_device_label(char *buf, size_t n, const struct tlck_device_ref *r, unsigned container,
                            unsigned entry, const char *arch);
/* 'a', 'f' or 0 from an entry's flags. */
char tlck_device_arch_suffix(uint64_t flags);

#endif
