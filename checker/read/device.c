/* Device-code reader: finds fatbin containers / cubins in an input and summarizes every image into the model.
 *
 * Streaming: each image is decompressed into a per-thread buffer, summarized, and the buffer reused, so memory
 * stays at (threads × largest image) however big the library is (libcublasLt.so.13: 5737 entries, 1.43 GB
 * decompressed). Entries are independent, so threads take them from a shared counter; results land in
 * preallocated slots, keeping the model's order deterministic. */
#include "read/device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/cubin.h"
#include "read/image_cache.h"
#include "read/ptx.h"
#include "read/readers.h"
#include "trueline/cpus.h"
#include "trueline/file_kind.h"
#include "trueline/limits.h"

#define MAX_THREADS 16

static const char *const fatbin_sections[] = { ".nv_fatbin", "__nv_relfatbin" };

const char *tlck_device_arch_name(char *buf, size_t n, unsigned sm, char suffix, int is_virtual)
{
    snprintf(buf, n, "%s_%u%s", is_virtual ? "compute" : "sm", sm, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "");
    return buf;
}

char tlck_device_arch_suffix(uint64_t flags)
{
    return flags & TLCK_FATBIN_FLAG_ARCH_A ? 'a' : flags & TLCK_FATBIN_FLAG_ARCH_F ? 'f' : 0;
}

const char *tlck_device_entry_arch(char *buf, size_t n, const struct tlck_fatbin_entry *fe)
{
    return tlck_device_arch_name(buf, n, fe->arch, tlck_device_arch_suffix(fe->flags), fe->kind == TLCK_FATBIN_KIND_PTX);
}

struct collect {
    struct tlck_device_refs *refs;
    const char *section;
};

static int collect_entry(const struct tlck_fatbin_entry *e, void *ctx)
{
    struct collect *c = ctx;
    if (tlck_grow((void **)&c->refs->v, &c->refs->cap, c->refs->n + 1, sizeof *c->refs->v) != 0)
        return 1;
    c->refs->v[c->refs->n++] = (struct tlck_device_ref){ .section = c->section, .fe = *e };
    return 0;
}

struct fatbin_range {
    uint64_t off, end;
    size_t index;
};

static int by_offset(const void *a, const void *b)
{
    const struct fatbin_range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int is_fatbin_section(const tl_elf *e, const GElf_Shdr *sh)
{
    if (sh->sh_type == SHT_NOBITS)
        return 0;
    const char *name = tl_elf_section_name(e, sh);
    for (size_t k = 0; name && k < sizeof fatbin_sections / sizeof *fatbin_sections; k++)
        if (strcmp(name, fatbin_sections[k]) == 0)
            return 1;
    return 0;
}

/* Section headers whose fatbin bytes overlap another's (no linker writes them; a forged file pointed many headers
 * at one fatbin so that it was decompressed once per header: 49 KB took 145 s). Returns a flag per section
 * index (1: overlaps), or NULL when there are none; *n_bad counts them. Sorted, so that many headers cost n log n. */
static unsigned char *overlapping_sections(const tl_elf *e, size_t *n_bad)
{
    size_t shnum = 0, n = 0;
    *n_bad = 0;
    if (elf_getshdrnum(e->elf, &shnum) != 0 || shnum == 0)
        return NULL;
    struct fatbin_range *r = calloc(shnum, sizeof *r);
    unsigned char *bad = calloc(shnum, 1);
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while (r && bad && (scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && is_fatbin_section(e, &sh) && sh.sh_size && n < shnum)
            r[n++] = (struct fatbin_range){ sh.sh_offset, sh.sh_offset + sh.sh_size, elf_ndxscn(scn) };
    if (r && bad && n > 1) {
        qsort(r, n, sizeof *r, by_offset);
        uint64_t end = r[0].end;
        size_t last = 0; /* the range that reaches furthest so far */
        for (size_t i = 1; i < n; i++) {
            if (r[i].off < end) {
                *n_bad += !bad[r[i].index] + !bad[r[last].index];
                bad[r[i].index] = bad[r[last].index] = 1;
            }
            if (r[i].end > end)
                end = r[i].end, last = i;
        }
    }
    free(r);
    if (!*n_bad) {
        free(bad);
        return NULL;
    }
    return bad;
}

static int enumerate_elf(const tl_elf *e, struct tlck_device_refs *refs, tl_error *err)
{
    int rc = 0;
    size_t n_bad = 0;
    unsigned char *bad = overlapping_sections(e, &n_bad);
    if (bad)
        rc = tl_fail(err, "%zu fatbin section headers share bytes with another (a linker never writes that): their "
                     "device code is not read", n_bad);
    for (size_t k = 0; k < sizeof fatbin_sections / sizeof *fatbin_sections; k++) {
        unsigned next_container = 0;
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;
        /* Every section of that name: a relocatable object may carry several (one per COMDAT group). */
        while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
            if (!gelf_getshdr(scn, &sh) || strcmp(tl_elf_section_name(e, &sh), fatbin_sections[k]) != 0 ||
                sh.sh_type == SHT_NOBITS || (bad && bad[elf_ndxscn(scn)]))
                continue;
            tl_bytes b;
            tl_error werr;
            if (tl_elf_section_raw(e, scn, &b, &werr) != 0) {
                rc = tl_fail(err, "%s: %s", fatbin_sections[k], werr.msg);
                continue;
            }
            struct collect c = { refs, fatbin_sections[k] };
            size_t before = refs->n;
            if (tlck_fatbin_walk(b.p, b.n, next_container, collect_entry, &c, &werr) != 0)
                rc = tl_fail(err, "%s: %s", fatbin_sections[k], werr.msg);
            if (refs->n > before)
                next_container = refs->v[refs->n - 1].fe.container + 1;
            tl_bytes_free(&b); /* raw bytes point into the file: entries stay valid */
        }
    }
    free(bad);
    return rc;
}

static int standalone_cubin(const unsigned char *data, size_t size, struct tlck_device_refs *refs)
{
    if (tlck_grow((void **)&refs->v, &refs->cap, refs->n + 1, sizeof *refs->v) != 0)
        return -1;
    struct tlck_fatbin_entry fe = { .kind = TLCK_FATBIN_KIND_ELF, .payload = data, .payload_size = size, .size = size };
    refs->v[refs->n++] = (struct tlck_device_ref){ .section = NULL, .fe = fe, .is_cubin_file = 1 };
    return 0;
}

int tlck_device_enumerate(const char *display, const unsigned char *data, size_t size, struct tlck_device_refs *refs,
                        tl_error *err)
{
    if (size >= 4 && memcmp(data, "\x50\xED\x55\xBA", 4) == 0) {
        struct collect c = { refs, NULL };
        return tlck_fatbin_walk(data, size, 0, collect_entry, &c, err);
    }
    tl_elf e;
    if (tl_elf_open_mem(&e, display, data, size, err) != 0) {
        tl_elf_close(&e);
        return -1;
    }
    int rc = e.ehdr.e_machine == TL_EM_CUDA ? standalone_cubin(data, size, refs) : enumerate_elf(&e, refs, err);
    tl_elf_close(&e);
    return rc;
}

void tlck_device_refs_free(struct tlck_device_refs *refs)
{
    free(refs->v);
    memset(refs, 0, sizeof *refs);
}

/* ---- the audit reader ---- */

struct job {
    const struct tlck_device_refs *refs;
    struct tlck_image *out;
    const char *display;
    struct tlck_read_ctx *ctx; /* the input's: image cap, budget and deadline, shared with the helpers */
    int release_pages;
    size_t largest;            /* the largest compressed image within the cap: each helper's buffer size */
    pthread_mutex_t huge;      /* held while an image over HUGE_IMAGE is decompressed and summarized */
    atomic_size_t next;
};

static void describe(const struct tlck_device_ref *r, struct tlck_image *img)
{
    const struct tlck_fatbin_entry *fe = &r->fe;
    struct tlck_device_info *d = &img->dev;
    img->kind = fe->kind == TLCK_FATBIN_KIND_PTX ? TLCK_IMAGE_PTX : TLCK_IMAGE_CUBIN;
    d->section = r->section;
    d->container = fe->container;
    d->entry = fe->index;
    d->sm = fe->arch;
    d->arch_suffix = tlck_device_arch_suffix(fe->flags);
    d->is_virtual = fe->kind == TLCK_FATBIN_KIND_PTX;
    d->is_debug = (fe->flags & TLCK_FATBIN_FLAG_DEBUG) != 0;
    d->codec = tlck_fatbin_codec_name(fe->codec);
    d->stored_size = fe->payload_size;
    d->size = fe->size;
    d->identifier = fe->ident ? strndup(fe->ident, fe->ident_len) : NULL;
    if (fe->kind == TLCK_FATBIN_KIND_PTX && fe->options)
        d->ptxas_options = strndup(fe->options, fe->options_len);
}

const char *tlck_device_label(char *buf, size_t n, const struct tlck_device_ref *r, unsigned container,
                            unsigned entry, const char *arch)
{
    if (r->is_cubin_file)
        snprintf(buf, n, "cubin %s", arch);
    else
        snprintf(buf, n, "%s[%u].entry[%u] %s",
                 r->section && strcmp(r->section, "__nv_relfatbin") == 0 ? "relfatbin" : "fatbin", container, entry,
                 arch);
    return buf;
}

static void set_label(const struct tlck_device_ref *r, struct tlck_image *img)
{
    char arch[32], label[96];
    const struct tlck_device_info *d = &img->dev;
    tlck_device_arch_name(arch, sizeof arch, d->sm, d->arch_suffix, d->is_virtual);
    img->label = strdup(tlck_device_label(label, sizeof label, r, d->container, d->entry, arch));
}

/* Is p inside a read-only mapping of a file (per /proc/self/maps)? */
static int in_readonly_file_map(const void *p)
{
    FILE *m = fopen("/proc/self/maps", "r");
    if (!m)
        return 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, m)) {
        unsigned long lo, hi, inode;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perms, &inode) == 4 && (uintptr_t)p >= lo &&
            (uintptr_t)p < hi) {
            found = inode != 0 && perms[1] == '-';
            break;
        }
    }
    fclose(m);
    return found;
}

/* An entry's bytes are read once: when they come from a read-only file mapping, let the kernel drop their
 * pages from this process (they stay in the page cache), so peak RSS does not grow with the size of the fatbin
 * sections (139 MB in libcublasLt). Only pages wholly inside this entry's payload, so neighbours being read by
 * another thread are not touched. Never on other memory: MADV_DONTNEED would zero anonymous pages. */
static void release_payload(const struct tlck_fatbin_entry *fe)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || !fe->payload)
        return;
    uintptr_t lo = ((uintptr_t)fe->payload + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t hi = ((uintptr_t)fe->payload + fe->payload_size) & ~((uintptr_t)page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Walking the containers read every entry's header, and the kernel maps a file's pages around each fault in
 * batches (fault-around): with entries a few KB apart that made the whole fatbin span resident (250 MB of
 * libnccl.so.2) before any image was read. Drop it again; each entry's pages come back, one entry at a time,
 * when it is hashed or decompressed, and go again after (release_payload). Same rule: a read-only file mapping. */
static void release_span(const struct tlck_device_refs *refs)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < refs->n; i++) {
        const struct tlck_fatbin_entry *fe = &refs->v[i].fe;
        if (!fe->payload)
            continue;
        if ((uintptr_t)fe->payload < lo)
            lo = (uintptr_t)fe->payload;
        if ((uintptr_t)fe->payload + fe->payload_size > hi)
            hi = (uintptr_t)fe->payload + fe->payload_size;
    }
    if (page <= 0 || hi <= lo)
        return;
    lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    hi &= ~((uintptr_t)page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Decompresses and summarizes one image (an input whose summaries are all in the image cache never gets here). */
static int summarize_image(const struct job *j, const struct tlck_device_ref *r, struct tlck_image *img,
                           struct tlck_fatbin_scratch *s)
{
    const unsigned char *p;
    size_t n;
    tl_error err;
    if (tlck_fatbin_image(&r->fe, s, j->ctx->image_cap, &p, &n, &err) != 0) {
        img->dev.error = strdup(err.msg);
        return -1;
    }
    if (r->fe.kind == TLCK_FATBIN_KIND_ELF)
        return tlck_cubin_summarize(p, n, j->display, &j->ctx->budget, img);
    if (r->fe.kind == TLCK_FATBIN_KIND_PTX)
        return tlck_ptx_summarize((const char *)p, n, &j->ctx->budget, img);
    img->dev.error = tlck_asprintf("entry kind %u is neither PTX (1) nor ELF (2)", r->fe.kind);
    return -1;
}

/* Relates the cubin's own SM (e_flags) to its entry's arch: equal in every file examined; a mismatch means a
 * damaged or hand-made fatbin, and the runtime would pick the image by the header. */
static void check_sm(const struct tlck_device_ref *r, struct tlck_image *img)
{
    if (r->fe.kind == TLCK_FATBIN_KIND_ELF && !r->is_cubin_file && !img->dev.error && img->dev.sm != r->fe.arch)
        img->dev.error = tlck_asprintf("cubin is sm_%u but its fatbin entry says arch %u", img->dev.sm, r->fe.arch);
}

/* Images past this are decompressed one at a time: two helpers each holding one of libnccl.so.2's largest
 * images kept its read over 256 MB resident. Smaller images, nearly all of them, still go in parallel. */
#define HUGE_IMAGE ((unsigned long long)32 << 20)

static void summarize(struct job *j, size_t i, struct tlck_fatbin_scratch *s)
{
    const struct tlck_device_ref *r = &j->refs->v[i];
    struct tlck_image *img = &j->out[i];
    describe(r, img);
    tl_error err;
    if (tl_budget_check(&j->ctx->budget, &err) != 0)
        img->dev.error = strdup(err.msg); /* the rest is skipped quickly; the loader reports the input */
    else {
        int huge = r->fe.codec != TLCK_CODEC_NONE && r->fe.size > HUGE_IMAGE;
        if (huge)
            pthread_mutex_lock(&j->huge);
        if (summarize_image(j, r, img, s) == 0)
            check_sm(r, img);
        tlck_fatbin_scratch_shrink(s); /* before another huge image may start */
        if (huge)
            pthread_mutex_unlock(&j->huge);
    }
    set_label(r, img);
    tlck_fatbin_scratch_shrink(s);
    if (j->release_pages)
        release_payload(&r->fe);
}

size_t tlck_device_largest_image(const struct tlck_device_refs *refs, size_t cap)
{
    size_t m = 0;
    tl_error err;
    for (size_t i = 0; i < refs->n; i++) {
        const struct tlck_fatbin_entry *fe = &refs->v[i].fe;
        if (fe->codec != TLCK_CODEC_NONE && !fe->error && fe->size > m && tlck_fatbin_size_ok(fe, cap, &err) == 0)
            m = (size_t)fe->size;
    }
    return m;
}

static void *worker(void *arg)
{
    struct job *j = arg;
    struct tlck_fatbin_scratch s = { 0 };
    tlck_fatbin_scratch_reserve(&s, j->largest); /* on failure images grow the buffer themselves */
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->refs->n;)
        summarize(j, i, &s);
    tlck_fatbin_scratch_free(&s);
    return NULL;
}

/* A read in progress: entries enumerated, helper threads working on them (or the summaries taken from the image
 * cache, and nothing to do). */
struct tlck_device_read {
    struct tlck_file *f;
    struct tlck_device_refs refs;
    struct job job;
    pthread_t th[MAX_THREADS];
    size_t started;
    int rc;
    tl_error err;
    int cached;           /* every image came from the cache */
    int cache_put;        /* store the summaries when all of them decoded */
    tl_hash128 cache_key;
};

/* Only inputs with compressed images are worth a cache entry: a stored image is summarized in place, with no
 * copy, at about the cost of hashing it. */
static int worth_caching(const struct tlck_device_refs *refs, const struct tlck_read_ctx *ctx)
{
    if (!ctx->image_cache)
        return 0;
    for (size_t i = 0; i < refs->n; i++)
        if (refs->v[i].fe.codec != TLCK_CODEC_NONE)
            return 1;
    return 0;
}

static int from_cache(struct tlck_device_read *r)
{
    const struct job *j = &r->job;
    for (size_t i = 0; i < r->refs.n; i++)
        describe(&r->refs.v[i], &j->out[i]);
    if (!tlck_image_cache_get(j->ctx->image_cache, r->cache_key, j->out, r->refs.n)) {
        for (size_t i = 0; i < r->refs.n; i++)
            tlck_image_free(&j->out[i]); /* the workers describe them again */
        return 0;
    }
    for (size_t i = 0; i < r->refs.n; i++) {
        check_sm(&r->refs.v[i], &j->out[i]);
        set_label(&r->refs.v[i], &j->out[i]);
    }
    r->cached = 1;
    return 1;
}

/* After a full read: the summaries go to the cache unless something could not be decoded (a damaged entry, a
 * bound hit), which must be found again, and said again, on the next run. */
static void to_cache(struct tlck_device_read *r)
{
    if (!r->cache_put || r->rc != 0)
        return;
    for (size_t i = 0; i < r->refs.n; i++)
        if (r->job.out[i].dev.error)
            return;
    tlck_image_cache_put(r->job.ctx->image_cache, r->cache_key, r->job.out, r->refs.n);
}

static void start_jobs(struct tlck_device_read *r)
{
    size_t nt = (size_t)tl_cpu_count();
    if (nt > MAX_THREADS)
        nt = MAX_THREADS;
    if (nt > r->refs.n / 4)
        nt = r->refs.n / 4; /* a handful of entries is not worth a thread */
    /* nt - 1 helpers: the caller's thread joins in tlck_device_read_finish (after reading the host part). */
    for (r->started = 0; r->started + 1 < nt; r->started++)
        if (pthread_create(&r->th[r->started], NULL, worker, &r->job) != 0)
            break;
}

struct tlck_device_read *tlck_device_read_start(struct tlck_file *f, const tl_elf *e, const unsigned char *data,
                                            size_t size, struct tlck_read_ctx *ctx)
{
    struct tlck_device_read *r = calloc(1, sizeof *r);
    if (!r) {
        f->error = strdup("out of memory for device images");
        return NULL;
    }
    r->f = f;
    r->rc = e ? enumerate_elf(e, &r->refs, &r->err) : tlck_device_enumerate(f->display, data, size, &r->refs, &r->err);
    if (r->rc != 0 && r->refs.n == 0 && !e) {
        f->error = strdup(r->err.msg);
        return r;
    }
    /* Damage after some containers: keep what was found and add one image that carries the error, so that
     * --list and the checks report it like any undecodable entry. */
    if (r->rc != 0 && standalone_cubin(NULL, 0, &r->refs) == 0)
        r->refs.v[r->refs.n - 1].fe.error = "damaged";
    if (r->refs.n == 0)
        return r;
    struct tlck_image *imgs = realloc(f->devices, (f->ndevices + r->refs.n) * sizeof *imgs);
    if (!imgs) {
        f->error = strdup("out of memory for device images");
        tlck_device_refs_free(&r->refs);
        return r;
    }
    memset(imgs + f->ndevices, 0, r->refs.n * sizeof *imgs);
    f->devices = imgs;
    r->job = (struct job){ .refs = &r->refs, .out = imgs + f->ndevices, .display = f->display,
                           .ctx = ctx, .release_pages = in_readonly_file_map(r->refs.v[0].fe.payload),
                           .largest = tlck_device_largest_image(&r->refs, ctx->image_cap) };
    atomic_init(&r->job.next, 0);
    pthread_mutex_init(&r->job.huge, NULL);
    if (r->job.release_pages)
        release_span(&r->refs);
    if (r->rc == 0 && worth_caching(&r->refs, ctx)) {
        r->cache_key = tlck_image_cache_key(ctx->image_cache, &r->refs, ctx->image_cap, ctx->budget.cap,
                                            r->job.release_pages ? release_payload : NULL);
        if (from_cache(r))
            return r;
        r->cache_put = 1;
    }
    start_jobs(r);
    return r;
}

int tlck_device_read_finish(struct tlck_device_read *r)
{
    if (!r)
        return -1;
    int rc = r->rc || r->f->error ? -1 : 0;
    if (r->refs.n && r->job.refs) {
        if (!r->cached) {
            worker(&r->job);
            for (size_t t = 0; t < r->started; t++)
                pthread_join(r->th[t], NULL);
            to_cache(r);
        }
        struct tlck_file *f = r->f;
        f->ndevices += r->refs.n;
        if (r->rc != 0) {
            struct tlck_image *bad = &f->devices[f->ndevices - 1];
            free(bad->dev.error);
            free(bad->label);
            bad->dev.error = strdup(r->err.msg);
            bad->label = strdup("fatbin (damaged)");
            bad->dev.codec = "none";
        }
    }
    if (r->job.refs)
        pthread_mutex_destroy(&r->job.huge);
    tlck_device_refs_free(&r->refs);
    free(r);
    return rc;
}

int tlck_read_device_images(struct tlck_file *f, const tl_elf *e, const unsigned char *data, size_t size,
                          struct tlck_read_ctx *ctx)
{
    return tlck_device_read_finish(tlck_device_read_start(f, e, data, size, ctx));
}
