#include "dynlibs.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
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

/* What ld.so reads of one file, read once per process (cc1 and cc1plus load the same libraries). */
struct dyninfo {
    char *path;
    int ok; /* a dynamic-capable ELF file (ET_EXEC or ET_DYN) */
    int machine, cls;
    tlcc_strv needed;
    char *rpath, *runpath; /* NULL when absent; rpath is dropped when runpath is present (ld.so ignores it) */
};
static struct dyninfo *g_info;
static int g_ninfo, g_capinfo;

/* DT_NEEDED, DT_RPATH, DT_RUNPATH through libelf (lib/elf_file.c). */
static void read_dynamic(struct dyninfo *o)
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

/* Index of path's information in g_info (read on first use); -1 when out of memory. */
static int dyn_info(const char *path)
{
    for (int i = 0; i < g_ninfo; i++)
        if (strcmp(g_info[i].path, path) == 0)
            return i;
    if (g_ninfo == g_capinfo) {
        int cap = g_capinfo ? g_capinfo * 2 : 32;
        struct dyninfo *n = realloc(g_info, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        g_info = n;
        g_capinfo = cap;
    }
    struct dyninfo *o = &g_info[g_ninfo];
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(path)))
        return -1;
    read_dynamic(o);
    return g_ninfo++;
}

/* ld.so skips a candidate of the wrong class or machine and goes on searching ("wrong ELF class"). */
static int loadable(const char *path, int machine, int cls)
{
    int i = dyn_info(path);
    return i >= 0 && g_info[i].ok && g_info[i].machine == machine && g_info[i].cls == cls;
}

/* One loaded object of an executable's load tree. */
struct obj {
    int info; /* index in g_info */
    char *origin;
    int parent; /* the object that loaded it; -1 for the executable */
};

struct tree {
    struct obj *o;
    int n;
    int machine, cls;
};

/* ---- /etc/ld.so.cache (glibc elf/cache.c, "glibc-ld.so.cache1.1"; read once per process) ----
 * Optional old part: "ld.so-1.7.0", u32 nlibs, 12-byte entries, then the new part aligned to 8. New part:
 * magic+version (20 bytes), u32 nlibs, u32 len_strings, u8 flags, 3 pad, u32 extension_offset, 3 x u32,
 * then 24-byte entries {i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap}; key/value are offsets from
 * the start of the new part. Verified against `ldconfig -p` on Debian 12 (glibc 2.36, new format only). */
static const unsigned char *g_cache;
static size_t g_cache_size;
static int g_cache_state; /* 0 not read, 1 read, -1 unusable */

static const unsigned char *cache_new_part(size_t *len)
{
    if (g_cache_state == 0) {
        void *map;
        size_t map_len;
        tl_error err = { 0 };
        g_cache_state = tl_map_file(LD_SO_CACHE, &g_cache, &g_cache_size, &map, &map_len, &err) == 0 ? 1 : -1;
    }
    if (g_cache_state < 0)
        return NULL;
    size_t off = 0;
    if (g_cache_size >= 16 && memcmp(g_cache, "ld.so-1.7.0", 11) == 0) {
        uint32_t old_n;
        memcpy(&old_n, g_cache + 12, 4);
        off = (16 + (size_t)old_n * 12 + 7) & ~(size_t)7;
    }
    if (off + 48 > g_cache_size || memcmp(g_cache + off, "glibc-ld.so.cache1.1", 20) != 0)
        return NULL;
    *len = g_cache_size - off;
    return g_cache + off;
}

/* The flags word ld.so accepts for an ELF of this machine (sysdeps/.../dl-cache.h _DL_CACHE_DEFAULT_ID);
 * FLAG_ELF_LIBC6 (3) alone is accepted everywhere, a wrong class is then refused when the file is opened. */
static int cache_flags_ok(int32_t flags, int machine)
{
    int32_t want = machine == EM_X86_64 ? 0x0303 : machine == EM_AARCH64 ? 0x0a03 : 0x0003;
    return flags == 0x0003 || flags == want;
}

static char *cache_lookup(const char *name, int machine, int cls)
{
    size_t len;
    const unsigned char *c = cache_new_part(&len);
    tlcc_deps_note(LD_SO_CACHE); /* ldconfig rewriting it re-decides every cached resolution */
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
        if (loadable((const char *)c + value, machine, cls))
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
static char *search_list(const char *list, const char *name, const char *origin, int machine, int cls)
{
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, ":");
        char *dir = expand_dir(p, l, origin);
        p += l + (p[l] == ':');
        if (!dir) {
            if (l == 0)
                tlcc_deps_taint(); /* an empty entry is the working directory, which the key does not hold */
            continue;
        }
        char cand[PATH_MAX];
        tlcc_fmt(cand, sizeof cand, "%s/%s", dir, name);
        if (loadable(cand, machine, cls)) {
            free(dir);
            return strdup(cand);
        }
        tlcc_deps_note(dir);
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
struct plain_res {
    char *name, *path; /* path NULL: not found */
    int machine, cls;
};
static struct plain_res *g_res;
static int g_nres;

static int plain_find(const char *name, int machine, int cls)
{
    for (int i = 0; i < g_nres; i++)
        if (g_res[i].machine == machine && g_res[i].cls == cls && strcmp(g_res[i].name, name) == 0)
            return i;
    return -1;
}

static void plain_add(const char *name, int machine, int cls, const char *path)
{
    struct plain_res *n = realloc(g_res, (size_t)(g_nres + 1) * sizeof *n);
    if (!n)
        return;
    g_res = n;
    g_res[g_nres++] = (struct plain_res){ strdup(name), path ? strdup(path) : NULL, machine, cls };
}

/* ld.so's order (elf/dl-load.c _dl_map_object) for a name needed by t->o[who]. */
static char *resolve(const struct tree *t, int who, const char *name)
{
    if (strchr(name, '/'))
        return name[0] == '/' ? strdup(name) : (tlcc_deps_taint(), NULL);
    char *p = NULL;
    const char *runpath = g_info[t->o[who].info].runpath, *llp = getenv("LD_LIBRARY_PATH");
    int plain = !runpath && !(llp && strchr(llp, '$'));
    if (!runpath)
        for (int l = who; l >= 0 && !p; l = t->o[l].parent) {
            const char *rpath = g_info[t->o[l].info].rpath;
            if (rpath) {
                plain = 0;
                p = search_list(rpath, name, t->o[l].origin, t->machine, t->cls);
            }
        }
    int known = plain ? plain_find(name, t->machine, t->cls) : -1;
    if (known >= 0)
        return g_res[known].path ? strdup(g_res[known].path) : NULL;
    if (!p)
        p = search_list(llp, name, t->o[0].origin, t->machine, t->cls);
    if (!p && runpath)
        p = search_list(runpath, name, t->o[who].origin, t->machine, t->cls);
    if (!p)
        p = cache_lookup(name, t->machine, t->cls);
    if (!p)
        p = search_list(default_dirs(t->machine), name, NULL, t->machine, t->cls);
    if (plain)
        plain_add(name, t->machine, t->cls, p);
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
static void tree_add(struct tree *t, const char *path, char *origin, int parent)
{
    int info = dyn_info(path);
    struct obj *grown = info >= 0 && origin ? realloc(t->o, (size_t)(t->n + 1) * sizeof *t->o) : NULL;
    if (!grown) {
        free(origin);
        return;
    }
    t->o = grown;
    t->o[t->n++] = (struct obj){ info, origin, parent };
}

/* One executable's load tree, breadth-first like ld.so (_dl_map_object_deps). */
static void walk_exe(const char *exe, tlcc_strv *out)
{
    int info = dyn_info(exe);
    if (info < 0 || !g_info[info].ok || !g_info[info].needed.n)
        return; /* not a dynamic ELF executable (nvcc.profile, libdevice, a static tool) */
    struct tree t = { NULL, 0, g_info[info].machine, g_info[info].cls };
    char real[PATH_MAX];
    /* the main program's $ORIGIN comes from /proc/self/exe: links resolved */
    tree_add(&t, exe, dir_of(realpath(exe, real) ? real : exe), -1);
    tlcc_strv loaded = { 0 };
    for (int i = 0; i < t.n; i++) {
        for (int k = 0; k < g_info[t.o[i].info].needed.n; k++) {
            const char *name = g_info[t.o[i].info].needed.v[k];
            if (tlcc_dynlib_excluded(name) || has_name(&loaded, name))
                continue; /* ld.so loads a name once per process, whoever asks again */
            tlcc_strv_push(&loaded, name);
            char *path = resolve(&t, i, name);
            record(out, name, path);
            if (path) /* a library's $ORIGIN is the path it was found at, links unresolved */
                tree_add(&t, path, dir_of(path), i);
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
void tlcc_dynlibs_fuzz_reset(const unsigned char *cache, size_t n)
{
    for (int i = 0; i < g_ninfo; i++) {
        free(g_info[i].path);
        free(g_info[i].rpath);
        free(g_info[i].runpath);
        tlcc_strv_free(&g_info[i].needed);
    }
    g_ninfo = 0;
    g_cache = cache;
    g_cache_size = n;
    g_cache_state = cache ? 1 : -1;
}
#endif

void tlcc_dynlibs(const tlcc_strv *objects, tlcc_strv *out)
{
    /* name-only answers are shared within one call only: their dependencies (ld.so.cache, directories
     * searched) are recorded once, into the recording active during this call */
    for (int i = 0; i < g_nres; i++)
        free(g_res[i].name), free(g_res[i].path);
    g_nres = 0;
    for (int i = 0; i < objects->n; i++)
        walk_exe(objects->v[i], out);
}
