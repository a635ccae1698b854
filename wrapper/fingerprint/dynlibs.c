#include "fingerprint/dynlibs.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/deps.h"
#include "trueline/elf_file.h"

#define LD_SO_CACHE "/etc/ld.so.cache"

/* glibc's runtime proper: system calls, threads, the loader. Left out because every glibc security update
 * would otherwise invalidate every cache entry, and compilers keep output-deciding work out of it on
 * purpose (GCC's own gcc_qsort and real.cc/MPFR, LLVM's APFloat). libm, libstdc++ and libgcc_s stay in:
 * LLVM constant-folds sin/cos/exp... with the host libm, and the C++ runtime's algorithms are part of the
 * compiler (docs/wrapper.md, "Shared libraries"). */
int tlcc_dynlib_excluded(const char *name)
{
    static const char *const glibc[] = { "libc.so.", "ld-linux", "libpthread.so.", "libdl.so.", "librt.so.", NULL };
    for (int i = 0; glibc[i]; i++)
        if (strncmp(name, glibc[i], strlen(glibc[i])) == 0)
            return 1;
    return 0;
}

/* What ld.so reads of one file, read once per run (cc1 and cc1plus load the same libraries). */
struct tlcc_dyninfo {
    char *path;
    int ok; /* a dynamic-capable ELF file (ET_EXEC or ET_DYN) */
    int machine, cls;
    tlcc_strv needed;
    char *rpath, *runpath; /* NULL when absent; rpath is dropped when runpath is present (ld.so ignores it) */
};

/* One tlcc_dynlibs call: the run's cache, its recorder and the LD_LIBRARY_PATH it resolves with. */
struct walk {
    tlcc_dynlibs_cache *c;
    tlcc_deps_ctx *dc;
    const char *llp;
};

/* DT_NEEDED, DT_RPATH, DT_RUNPATH through libelf (lib/elf_file.c). */
static void read_dynamic(struct tlcc_dyninfo *o)
{
    tl_elf e;
    tl_error err = { 0 };
    if (tl_elf_open_path(&e, o->path, &err) != 0 || (e.ehdr.e_type != ET_EXEC && e.ehdr.e_type != ET_DYN)) {
        tl_elf_close(&e);
        return;
    }
    o->ok = 1;
    o->machine = e.ehdr.e_machine;
    o->cls = e.ehdr.e_ident[EI_CLASS];
    GElf_Shdr sh;
    Elf_Scn *scn = tl_elf_section(&e, ".dynamic", &sh);
    Elf_Data *d = scn && sh.sh_type == SHT_DYNAMIC ? elf_getdata(scn, NULL) : NULL;
    size_t count = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
            continue;
        const char *s = elf_strptr(e.elf, sh.sh_link, (size_t)dyn.d_un.d_val);
        if (!s)
            continue;
        if (dyn.d_tag == DT_NEEDED)
            tlcc_strv_push(&o->needed, s);
        else if (dyn.d_tag == DT_RPATH && !o->rpath)
            o->rpath = strdup(s);
        else if (dyn.d_tag == DT_RUNPATH && !o->runpath)
            o->runpath = strdup(s);
    }
    if (o->runpath) {
        free(o->rpath);
        o->rpath = NULL;
    }
    tl_elf_close(&e);
}

/* Index of path's information in c->info (read on first use); -1 when out of memory. */
static int dyn_info(tlcc_dynlibs_cache *c, const char *path)
{
    for (int i = 0; i < c->ninfo; i++)
        if (strcmp(c->info[i].path, path) == 0)
            return i;
    if (c->ninfo == c->capinfo) {
        int cap = c->capinfo ? c->capinfo * 2 : 32;
        struct tlcc_dyninfo *n = realloc(c->info, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        c->info = n;
        c->capinfo = cap;
    }
    struct tlcc_dyninfo *o = &c->info[c->ninfo];
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(path)))
        return -1;
    read_dynamic(o);
    return c->ninfo++;
}

/* ld.so skips a candidate of the wrong class or machine and goes on searching ("wrong ELF class"). */
static int loadable(tlcc_dynlibs_cache *c, const char *path, int machine, int cls)
{
    int i = dyn_info(c, path);
    return i >= 0 && c->info[i].ok && c->info[i].machine == machine && c->info[i].cls == cls;
}

/* One loaded object of an executable's load tree. */
struct obj {
    int info; /* index in the cache's info */
    char *origin;
    int parent; /* the object that loaded it; -1 for the executable */
};

struct tree {
    struct obj *o;
    int n;
    int machine, cls;
};

/* ---- /etc/ld.so.cache (glibc elf/cache.c, "glibc-ld.so.cache1.1"; read once per run) ----
 * Optional old part: "ld.so-1.7.0", u32 nlibs, 12-byte entries, then the new part aligned to 8. New part:
 * magic+version (20 bytes), u32 nlibs, u32 len_strings, u8 flags, 3 pad, u32 extension_offset, 3 x u32,
 * then 24-byte entries {i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap}; key/value are offsets from
 * the start of the new part. Verified against `ldconfig -p` on Debian 12 (glibc 2.36, new format only). */
static const unsigned char *cache_new_part(tlcc_dynlibs_cache *c, size_t *len)
{
    if (c->ld_state == 0) {
        tl_error err = { 0 };
        c->ld_state = tl_map_file(LD_SO_CACHE, &c->ld, &c->ld_size, &c->ld_map, &c->ld_map_len, &err) == 0 ? 1 : -1;
    }
    if (c->ld_state < 0)
        return NULL;
    size_t off = 0;
    if (c->ld_size >= 16 && memcmp(c->ld, "ld.so-1.7.0", 11) == 0) {
        uint32_t old_n;
        memcpy(&old_n, c->ld + 12, 4);
        off = (16 + (size_t)old_n * 12 + 7) & ~(size_t)7;
    }
    if (off + 48 > c->ld_size || memcmp(c->ld + off, "glibc-ld.so.cache1.1", 20) != 0)
        return NULL;
    *len = c->ld_size - off;
    return c->ld + off;
}

/* The flags word ld.so accepts for an ELF of this machine (sysdeps/.../dl-cache.h _DL_CACHE_DEFAULT_ID);
 * FLAG_ELF_LIBC6 (3) alone is accepted everywhere, a wrong class is then refused when the file is opened. */
static int cache_flags_ok(int32_t flags, int machine)
{
    int32_t want = machine == EM_X86_64 ? 0x0303 : machine == EM_AARCH64 ? 0x0a03 : 0x0003;
    return flags == 0x0003 || flags == want;
}

static char *cache_lookup(struct walk *w, const char *name, int machine, int cls)
{
    size_t len;
    const unsigned char *c = cache_new_part(w->c, &len);
    tlcc_deps_note(w->dc, LD_SO_CACHE); /* ldconfig rewriting it re-decides every cached resolution */
    if (!c)
        return NULL;
    uint32_t n;
    memcpy(&n, c + 20, 4);
    for (uint32_t i = 0; i < n && 48 + ((size_t)i + 1) * 24 <= len; i++) {
        const unsigned char *ent = c + 48 + (size_t)i * 24;
        int32_t flags;
        uint32_t key, value;
        uint64_t hwcap;
        memcpy(&flags, ent, 4);
        memcpy(&key, ent + 4, 4);
        memcpy(&value, ent + 8, 4);
        memcpy(&hwcap, ent + 16, 8);
        /* hwcap != 0: a glibc-hwcaps subdirectory entry chosen by CPU features; none on Debian 12 */
        if (hwcap || !cache_flags_ok(flags, machine) || key >= len || value >= len ||
            !memchr(c + key, 0, len - key) || !memchr(c + value, 0, len - value))
            continue;
        if (strcmp((const char *)c + key, name) != 0)
            continue;
        if (loadable(w->c, (const char *)c + value, machine, cls))
            return strdup((const char *)c + value);
    }
    return NULL;
}

/* ---- search paths ---- */

/* dir with $ORIGIN / ${ORIGIN} expanded; NULL for a directory we cannot place ($LIB, $PLATFORM, empty). */
static char *expand_dir(const char *dir, size_t len, const char *origin)
{
    char out[PATH_MAX];
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < sizeof out;) {
        if (dir[i] != '$') {
            out[o++] = dir[i++];
            continue;
        }
        size_t tok = strncmp(dir + i, "$ORIGIN", 7) == 0 ? 7 : strncmp(dir + i, "${ORIGIN}", 9) == 0 ? 9 : 0;
        if (!tok || !origin)
            return NULL;
        o += (size_t)tlcc_fmt(out + o, sizeof out - o, "%s", origin);
        i += tok;
    }
    if (o == 0 || o + 1 >= sizeof out)
        return NULL;
    out[o] = 0;
    return strdup(out);
}

/* The first directory of the colon list holding a loadable name; the directories looked in before the
 * hit are dependencies (a library appearing there would be loaded instead). */
static char *search_list(struct walk *w, const char *list, const char *name, const char *origin, int machine,
                         int cls)
{
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, ":");
        char *dir = expand_dir(p, l, origin);
        p += l + (p[l] == ':');
        if (!dir) {
            if (l == 0)
                tlcc_deps_taint(w->dc); /* an empty entry is the working directory, which the key does not hold */
            continue;
        }
        char cand[PATH_MAX];
        tlcc_fmt(cand, sizeof cand, "%s/%s", dir, name);
        if (loadable(w->c, cand, machine, cls)) {
            free(dir);
            return strdup(cand);
        }
        tlcc_deps_note(w->dc, dir);
        free(dir);
    }
    return NULL;
}

static const char *default_dirs(int machine)
{
    /* Debian's multiarch ld.so (`ld.so --help`: "system search path") */
    switch (machine) {
    case EM_X86_64: return "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib:/usr/lib";
    case EM_AARCH64: return "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:/lib:/usr/lib";
    case EM_386: return "/lib/i386-linux-gnu:/usr/lib/i386-linux-gnu:/lib:/usr/lib";
    default: return "/lib:/usr/lib";
    }
}

/* Resolutions that depend on nothing but the name (no DT_RPATH in the loader chain, no DT_RUNPATH): the
 * answer is the same for every executable of the closure, so cc1 and cc1plus search once. */
struct tlcc_plain_res {
    char *name, *path; /* path NULL: not found */
    int machine, cls;
};
static int plain_find(const tlcc_dynlibs_cache *c, const char *name, int machine, int cls)
{
    for (int i = 0; i < c->nres; i++)
        if (c->res[i].machine == machine && c->res[i].cls == cls && strcmp(c->res[i].name, name) == 0)
            return i;
    return -1;
}

static void plain_add(tlcc_dynlibs_cache *c, const char *name, int machine, int cls, const char *path)
{
    struct tlcc_plain_res *n = realloc(c->res, (size_t)(c->nres + 1) * sizeof *n);
    if (!n)
        return;
    c->res = n;
    c->res[c->nres++] = (struct tlcc_plain_res){ strdup(name), path ? strdup(path) : NULL, machine, cls };
}

/* ld.so's order (elf/dl-load.c _dl_map_object) for a name needed by t->o[who]. */
static char *resolve(struct walk *w, const struct tree *t, int who, const char *name)
{
    if (strchr(name, '/'))
        return name[0] == '/' ? strdup(name) : (tlcc_deps_taint(w->dc), NULL);
    char *p = NULL;
    const char *runpath = w->c->info[t->o[who].info].runpath, *llp = w->llp;
    int plain = !runpath && !(llp && strchr(llp, '$'));
    if (!runpath)
        for (int l = who; l >= 0 && !p; l = t->o[l].parent) {
            const char *rpath = w->c->info[t->o[l].info].rpath;
            if (rpath) {
                plain = 0;
                p = search_list(w, rpath, name, t->o[l].origin, t->machine, t->cls);
            }
        }
    int known = plain ? plain_find(w->c, name, t->machine, t->cls) : -1;
    if (known >= 0)
        return w->c->res[known].path ? strdup(w->c->res[known].path) : NULL;
    if (!p)
        p = search_list(w, llp, name, t->o[0].origin, t->machine, t->cls);
    if (!p && runpath)
        p = search_list(w, runpath, name, t->o[who].origin, t->machine, t->cls);
    if (!p)
        p = cache_lookup(w, name, t->machine, t->cls);
    if (!p)
        p = search_list(w, default_dirs(t->machine), name, NULL, t->machine, t->cls);
    if (plain)
        plain_add(w->c, name, t->machine, t->cls, p);
    return p;
}

static char *dir_of(const char *path)
{
    char *d = strdup(path), *s = d ? strrchr(d, '/') : NULL;
    if (s == d && s)
        s[1] = 0; /* "/x": the root */
    else if (s)
        *s = 0;
    return d;
}

static int out_has_path(const tlcc_strv *out, const char *path)
{
    for (int i = 1; i < out->n; i += 2)
        if (strcmp(out->v[i], path) == 0)
            return 1;
    return 0;
}

static int out_has_absent(const tlcc_strv *out, const char *name)
{
    for (int i = 0; i + 1 < out->n; i += 2)
        if (!out->v[i + 1][0] && strcmp(out->v[i], name) == 0)
            return 1;
    return 0;
}

static int has_name(const tlcc_strv *names, const char *name)
{
    for (int i = 0; i < names->n; i++)
        if (strcmp(names->v[i], name) == 0)
            return 1;
    return 0;
}

static void record(tlcc_strv *out, const char *name, const char *path)
{
    if (path ? out_has_path(out, path) : out_has_absent(out, name))
        return; /* a library shared by several executables is one component */
    tlcc_strv_push(out, name);
    tlcc_strv_push(out, path ? path : "");
}

/* Adds the object at path (found for t->o[parent]) to the tree. */
static void tree_add(tlcc_dynlibs_cache *c, struct tree *t, const char *path, char *origin, int parent)
{
    int info = dyn_info(c, path);
    struct obj *grown = info >= 0 && origin ? realloc(t->o, (size_t)(t->n + 1) * sizeof *t->o) : NULL;
    if (!grown) {
        free(origin);
        return;
    }
    t->o = grown;
    t->o[t->n++] = (struct obj){ info, origin, parent };
}

/* One executable's load tree, breadth-first like ld.so (_dl_map_object_deps). */
static void walk_exe(struct walk *w, const char *exe, tlcc_strv *out)
{
    tlcc_dynlibs_cache *c = w->c;
    int info = dyn_info(c, exe);
    if (info < 0 || !c->info[info].ok || !c->info[info].needed.n)
        return; /* not a dynamic ELF executable (nvcc.profile, libdevice, a static tool) */
    struct tree t = { NULL, 0, c->info[info].machine, c->info[info].cls };
    char real[PATH_MAX];
    /* the main program's $ORIGIN comes from /proc/self/exe: links resolved */
    tree_add(c, &t, exe, dir_of(realpath(exe, real) ? real : exe), -1);
    tlcc_strv loaded = { 0 };
    for (int i = 0; i < t.n; i++) {
        for (int k = 0; k < c->info[t.o[i].info].needed.n; k++) {
            const char *name = c->info[t.o[i].info].needed.v[k];
            if (tlcc_dynlib_excluded(name) || has_name(&loaded, name))
                continue; /* ld.so loads a name once per process, whoever asks again */
            tlcc_strv_push(&loaded, name);
            char *path = resolve(w, &t, i, name);
            record(out, name, path);
            if (path) /* a library's $ORIGIN is the path it was found at, links unresolved */
                tree_add(c, &t, path, dir_of(path), i);
            free(path);
        }
    }
    tlcc_strv_free(&loaded);
    for (int i = 0; i < t.n; i++)
        free(t.o[i].origin);
    free(t.o);
}

#ifdef TL_FUZZING
/* fuzz/targets/dynlibs.c: forget what was read (the fuzzer reuses one memfd path for different bytes) and read
 * the ld.so.cache from the given bytes instead of /etc/ld.so.cache (NULL: none). */
void tlcc_dynlibs_fuzz_reset(tlcc_dynlibs_cache *c, const unsigned char *cache, size_t n)
{
    tlcc_dynlibs_cache_free(c);
    c->ld = cache;
    c->ld_size = n;
    c->ld_state = cache ? 1 : -1;
}
#endif

static void forget_plain(tlcc_dynlibs_cache *c)
{
    for (int i = 0; i < c->nres; i++)
        free(c->res[i].name), free(c->res[i].path);
    c->nres = 0;
}

void tlcc_dynlibs_cache_free(tlcc_dynlibs_cache *c)
{
    for (int i = 0; i < c->ninfo; i++) {
        free(c->info[i].path);
        free(c->info[i].rpath);
        free(c->info[i].runpath);
        tlcc_strv_free(&c->info[i].needed);
    }
    free(c->info);
    forget_plain(c);
    free(c->res);
    if (c->ld_map)
        tl_unmap_file(c->ld_map, c->ld_map_len);
    memset(c, 0, sizeof *c);
}

void tlcc_dynlibs(tlcc_dynlibs_cache *c, tlcc_deps_ctx *dc, const char *ld_library_path, const tlcc_strv *objects,
                  tlcc_strv *out)
{
    struct walk w = { c, dc, ld_library_path };
    /* name-only answers are shared within one call only: their dependencies (ld.so.cache, directories
     * searched) are recorded once, into the recording active during this call */
    forget_plain(c);
    for (int i = 0; i < objects->n; i++)
        walk_exe(&w, objects->v[i], out);
}
