/* Fatbin containers (.nv_fatbin, __nv_relfatbin, standalone .fatbin): walking and per-entry decompression.
 *
 * Why our own code: the container is NVIDIA's private format, no Debian library reads it. The layout we rely on
 * is described, with evidence, in docs/cuda-formats.md §2-3. Decompression itself is done by libzstd / liblz4.
 *
 * The walker only points into the caller's bytes; nothing is copied or decompressed until asked, so a reader can
 * collect the (small) entry descriptors first and decompress them one by one, in several threads. */
#ifndef TLCK_FATBIN_H
#define TLCK_FATBIN_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/file_kind.h"

#define TLCK_FATBIN_KIND_PTX 1
#define TLCK_FATBIN_KIND_ELF 2

/* Entry flags (u64 at entry+0x28), docs/cuda-formats.md §2.3. */
#define TLCK_FATBIN_FLAG_DEBUG  0x2ull
#define TLCK_FATBIN_FLAG_LZ4    0x2000ull
#define TLCK_FATBIN_FLAG_ZSTD   0x8000ull
#define TLCK_FATBIN_FLAG_ARCH_A 0x100000ull
#define TLCK_FATBIN_FLAG_ARCH_F 0x200000ull

enum tlck_fatbin_codec { TLCK_CODEC_NONE = 0, TLCK_CODEC_ZSTD, TLCK_CODEC_LZ4 };

struct tlck_fatbin_entry {
    unsigned container, index;     /* container in the walked bytes, entry in the container (from 0) */
    uint64_t offset;               /* of the entry header within the walked bytes */
    unsigned kind;                 /* TLCK_FATBIN_KIND_* (other values are reported, not decoded) */
    unsigned arch;                 /* 90 for sm_90 / compute_90 */
    unsigned code_major, code_minor;
    uint64_t flags;
    enum tlck_fatbin_codec codec;
    const unsigned char *payload;  /* stored bytes (compressed when codec != NONE) */
    size_t payload_size;           /* exact compressed size, or the padded stored size */
    uint64_t size;                 /* declared uncompressed size (== payload_size when stored) */
    const char *ident;  size_t ident_len;   /* identifier (source name), not NUL-terminated; NULL when none */
    const char *options; size_t options_len;/* PTX JIT options, not NUL-terminated; NULL when none */
    const char *error;             /* static text: this entry's header is malformed (payload unusable) */
};

/* Called for each entry in order; return non-zero to stop the walk. */
typedef int (*tlck_fatbin_entry_fn)(const struct tlck_fatbin_entry *e, void *ctx);

/* Walks every container in p[0..n) (a section's bytes or a whole .fatbin), tolerating zero padding between
 * containers. container numbering starts at *next_container and continues there (so several sections can
 * be numbered as one sequence when the caller wants). Returns 0, or -1 with err describing the first
 * container-level damage (entries before it were delivered). */
int tlck_fatbin_walk(const unsigned char *p, size_t n, unsigned first_container, tlck_fatbin_entry_fn fn, void *ctx,
                   tl_error *err);

/* Per-thread decompression state, reused across entries (zero-initialize; release with tlck_fatbin_scratch_free). */
struct tlck_fatbin_scratch {
    unsigned char *buf;
    size_t cap;
    int mapped;                    /* buf is an anonymous mapping (large buffers), not malloc's */
    int reserved;                  /* sized once for the largest image to come: kept until freed */
    size_t used;                   /* bytes the latest image wrote into buf */
    void *zstd;                    /* ZSTD_DCtx */
};
void tlck_fatbin_scratch_free(struct tlck_fatbin_scratch *s);
/* Sizes the buffer once for the largest image a reader will decompress (n bytes of address space; pages are
 * only touched, and counted in RSS, as images fill them), so a run of ever larger images does not map, fault in
 * and unmap a new buffer each time. Returns 0, or -1 when the space cannot be had (images then grow it). */
int tlck_fatbin_scratch_reserve(struct tlck_fatbin_scratch *s, size_t n);
/* Drops a buffer that one unusually large image made big (libnccl.so.2 has 134 MB cubins among 1-2 MB ones),
 * unless it was reserved. */
void tlck_fatbin_scratch_shrink(struct tlck_fatbin_scratch *s);

/* Whether a compressed entry's declared size is one it may decompress to: at most max bytes, and no more than
 * its payload can expand to. 0, or -1 with err. */
int tlck_fatbin_size_ok(const struct tlck_fatbin_entry *e, size_t max, tl_error *err);
/* Makes the entry's image available: for stored entries *out points at the payload (no copy); for compressed
 * ones it is decompressed into the scratch buffer. The output is bounded by max bytes and must match the
 * declared size exactly. Returns 0 or -1 with err. */
int tlck_fatbin_image(const struct tlck_fatbin_entry *e, struct tlck_fatbin_scratch *s, size_t max,
                    const unsigned char **out, size_t *out_n, tl_error *err);

const char *tlck_fatbin_codec_name(enum tlck_fatbin_codec c);

#endif
