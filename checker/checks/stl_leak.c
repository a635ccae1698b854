/* stl-leak: what a shared object or executable exports of the C++ standard library (defined .dynsym entries
 * with default or protected visibility), sorted by where it comes from (checks/stl_symbols.c):
 *   - the C++ runtime's own definitions: a statically linked libstdc++ whose symbols are not hidden; other
 *     libraries and the program bind to this copy instead of the system's (an error); in a file that also
 *     uses libstdc++.so, a supplement linked in beside it (devtoolset's libstdc++_nonshared.a: a warning);
 *   - std:: templates instantiated over the file's own types (std::vector<Foo>, typeinfo for
 *     std::enable_shared_from_this<Foo>): normal C++ that only makes the dynamic symbol table bigger and
 *     interposable (info);
 *   - std:: instantiations over standard and builtin types only (std::vector<int>): the same (info).
 * Also: both std::__cxx11 and old-ABI std::string/std::list in one file's exported API (dual-ABI mix).
 * The C++ runtime itself (DT_SONAME libstdc++.so*, libc++.so*, libc++abi.so*) is not reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/host_util.h"
#include "checks/stl_symbols.h"
#include "platform_blacklist.h" /* tlck_python_extension */

#ifndef STB_GNU_UNIQUE
#define STB_GNU_UNIQUE 10
#endif
#define EXAMPLES 3

static const char *const RUNTIME_SONAMES[] = { "libc++.so", "libc++abi.so", NULL };

/* A definition that carries a version needed from another library (vernaux: version_file set) is that library's
 * object copied into an executable at load time (an R_*_COPY relocation, e.g. std::cout in any program that prints):
 * the library's code and data, not the file's. */
static int exported(const struct tlck_symbol *s)
{
    return s->defined && s->shndx != 0 && !s->version_file &&
           (s->visibility == 0 /* STV_DEFAULT */ || s->visibility == 3 /* PROTECTED */) &&
           (s->bind == 1 || s->bind == 2 || s->bind == STB_GNU_UNIQUE);
}

static int is_runtime_itself(const struct tlck_file *f)
{
    if (f->is_libstdcxx)
        return 1;
    for (size_t i = 0; f->soname && RUNTIME_SONAMES[i]; i++)
        if (strncmp(f->soname, RUNTIME_SONAMES[i], strlen(RUNTIME_SONAMES[i])) == 0)
            return 1;
    return 0;
}

/* Does the file reference the C++ runtime's shared library (versioned references to libstdc++.so.6 or libc++)?
 * Then what it exports of the runtime is a supplement linked in beside it, not a whole static copy. */
static int links_runtime_dynamically(const struct tlck_file *f)
{
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const char *lib = f->dynsyms[i].defined ? NULL : f->dynsyms[i].version_file;
        if (lib && (strncmp(lib, "libstdc++.so", 12) == 0 || strncmp(lib, "libc++.so", 9) == 0))
            return 1;
    }
    return 0;
}

/* Per origin: how many, and the first few names (in .dynsym order, so the report is the same every run). */
struct tally {
    size_t n;
    const char *ex[EXAMPLES];
};

static void add(struct tally *t, const char *name)
{
    if (t->n < EXAMPLES)
        t->ex[t->n] = name;
    t->n++;
}

static void merge(struct tally *into, const struct tally *from)
{
    for (size_t i = 0; i < from->n && i < EXAMPLES; i++)
        add(into, from->ex[i]);
    into->n += from->n > EXAMPLES ? from->n - EXAMPLES : 0;
}

/* "a, b, c": the demangled first k examples of a, then of b, malloc'd. */
static char *examples(const struct tally *a, const struct tally *b, size_t k)
{
    const char *pick[EXAMPLES];
    size_t n = 0;
    for (size_t i = 0; i < a->n && i < EXAMPLES && n < k; i++)
        pick[n++] = a->ex[i];
    for (size_t i = 0; b && i < b->n && i < EXAMPLES && n < k; i++)
        pick[n++] = b->ex[i];
    char *d[EXAMPLES];
    size_t cap = 1, len = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = tlck_demangle(pick[i]);
        cap += strlen(d[i]) + 2;
    }
    char *s = malloc(cap);
    if (!s)
        abort();
    s[0] = 0;
    for (size_t i = 0; i < n; i++) {
        len += (size_t)sprintf(s + len, "%s%s", i ? ", " : "", d[i]);
        free(d[i]);
    }
    return s;
}

/* Each exported symbol of the runtime or of std:: as a finding of its own (info, a detail: the summaries carry the
 * severity and the hint), so that a JSON reader or a baseline sees every one, not only the examples. */
static void each_symbol(const struct tlck_file *f, int vague_global, struct tlck_findings *out)
{
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        struct tlck_cxx_name cx;
        if (!exported(s))
            continue;
        const char *what = NULL;
        switch (tlck_stl_origin(s->name, s->bind, &cx)) {
        case TLCK_STL_ABI: what = "an entry point of the C++ ABI runtime"; break;
        case TLCK_STL_LIBRARY: what = "a compiled std:: definition of the C++ runtime"; break;
        case TLCK_STL_PLAIN:
            what = vague_global ? "a std:: definition over standard types (an inline function of the headers?)"
                                : "a compiled std:: definition of the C++ runtime";
            break;
        case TLCK_STL_OWN: what = "a std:: template instantiation over the file's own types"; break;
        case TLCK_STL_STD: what = "a std:: instantiation over standard and builtin types only"; break;
        default: break;
        }
        struct tlck_finding *x =
            what ? tlck_emit_symbol(out, "stl-leak", TLCK_SEV_INFO, f->display, s->name, NULL, "exported: %s", what) : NULL;
        if (x)
            x->detail = 1;
    }
}

static const char *const HIDE_HINT = "consider -fvisibility=hidden -fvisibility-inlines-hidden, or a version script "
                                     "exporting only your API (-Wl,--version-script)";

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    (void)p;
    if (is_runtime_itself(f) || f->elf_type == 1 /* ET_REL: not linked yet, visibility decided at link time */)
        return;
    struct tally abi = { 0 }, lib = { 0 }, plain = { 0 }, own = { 0 }, std_only = { 0 };
    size_t vague_global = 0; /* template instantiations and inline functions with STB_GLOBAL binding */
    int new_abi = 0, old_abi = 0;
    const char *new_ex = NULL, *old_ex = NULL;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        struct tlck_cxx_name cx;
        if (!exported(s))
            continue;
        enum tlck_stl_origin o = tlck_stl_origin(s->name, s->bind, &cx);
        if (o == TLCK_STL_ABI)
            add(&abi, s->name);
        else if (o == TLCK_STL_LIBRARY)
            add(&lib, s->name);
        else if (o == TLCK_STL_PLAIN)
            add(&plain, s->name);
        else if (o == TLCK_STL_OWN)
            add(&own, s->name);
        else if (o == TLCK_STL_STD)
            add(&std_only, s->name);
        vague_global += (o == TLCK_STL_OWN || o == TLCK_STL_STD) && s->bind == 1;
        /* the file's API: its own functions and its instantiations over its own types. A linked-in libstdc++
         * (or devtoolset's supplement of one) instantiates both string ABIs by design */
        if (o != TLCK_STL_NONE && o != TLCK_STL_OWN)
            continue;
        if (cx.new_abi && !new_abi++)
            new_ex = s->name;
        if (cx.old_abi && !old_abi++)
            old_ex = s->name;
    }
    /* where vague-linkage definitions are global, a global non-template std:: definition outside the compiled
     * parts of the library may be an inline function of the headers (typeinfo name for std::_Sp_make_shared_tag) */
    merge(vague_global ? &std_only : &lib, &plain);
    /* the ABI runtime with compiled std:: code, and no libstdc++.so to get them from: libstdc++ linked in whole */
    int dynamic = links_runtime_dynamically(f), whole_copy = abi.n && lib.n && !dynamic;
    enum tlck_severity below = sev == TLCK_SEV_ERROR ? TLCK_SEV_WARNING : sev;
    if (whole_copy) {
        char *ex = examples(&abi, &lib, EXAMPLES), *first = tlck_demangle(abi.ex[0]);
        tlck_emit(out, "stl-leak", sev, f->display, first,
                "link with -Wl,--exclude-libs,ALL (or link libstdc++ dynamically), or export only your API through a "
                "version script (-Wl,--version-script)",
                "exports %zu symbol(s) that the C++ runtime itself defines (%zu of its ABI runtime, %zu compiled "
                "std:: definitions), such as %s: a statically linked libstdc++ whose symbols are not hidden; other "
                "libraries and the program may bind to this copy instead of the system's (the %zu std:: "
                "instantiations over standard types only that it also exports are mostly that copy's)",
                abi.n + lib.n, abi.n, lib.n, ex, std_only.n);
        free(ex);
        free(first);
    } else if (abi.n && !lib.n) {
        /* entry points without any of the library's code: an interposer (sanitizer runtimes intercept
         * __cxa_throw, __cxa_guard_acquire) or a piece of libsupc++ */
        char *ex = examples(&abi, NULL, EXAMPLES);
        tlck_emit(out, "stl-leak", TLCK_SEV_INFO, f->display, NULL, NULL,
                "defines and exports %zu C++ ABI runtime entry point(s), such as %s, without any compiled std:: "
                "code: an interposer (as sanitizer runtimes are) or a piece of libsupc++",
                abi.n, ex);
        free(ex);
    } else if (lib.n && dynamic) {
        /* libstdc++.so.6 is used, yet part of a newer one is linked in: devtoolset/gcc-toolset's
         * libstdc++_nonshared.a, which manylinux2014 toolchains link into every C++ library on purpose */
        char *ex = examples(&abi, &lib, EXAMPLES), *first = tlck_demangle(abi.n ? abi.ex[0] : lib.ex[0]);
        /* CPython dlopens an extension module RTLD_LOCAL: nothing else binds to what it exports, so the
         * supplement the wheel toolchain links into every C++ module is no defect there */
        int module = tlck_python_extension(f);
        tlck_emit(out, "stl-leak", module ? TLCK_SEV_INFO : below, f->display, first,
                "hide them with -Wl,--exclude-libs,libstdc++_nonshared.a (or -Wl,--exclude-libs,ALL)",
                "exports %zu symbol(s) that the C++ runtime defines (%zu of its ABI runtime, %zu compiled std:: "
                "definitions), such as %s, although it links libstdc++.so dynamically: a statically linked "
                "supplement of a newer libstdc++ (devtoolset/gcc-toolset's libstdc++_nonshared.a) whose symbols "
                "are not hidden%s",
                abi.n + lib.n, abi.n, lib.n, ex,
                module ? "; a Python extension module, which CPython loads RTLD_LOCAL: no other module binds to them" : "");
        free(ex);
        free(first);
    } else if (lib.n) {
        /* without the ABI runtime this may also be the file's own non-template code declared in namespace std */
        char *ex = examples(&lib, NULL, EXAMPLES), *first = tlck_demangle(lib.ex[0]);
        tlck_emit(out, "stl-leak", below, f->display, first,
                "link with -Wl,--exclude-libs,ALL if libstdc++ is linked statically; keep your own code out of "
                "namespace std",
                "exports %zu non-template std:: definition(s) with global binding, such as %s: compiled "
                "standard-library code (a statically linked libstdc++?) or definitions of its own in namespace std",
                lib.n, ex);
        free(ex);
        free(first);
    }
    if (own.n) {
        char *ex = examples(&own, NULL, 1);
        tlck_emit(out, "stl-leak", TLCK_SEV_INFO, f->display, NULL, HIDE_HINT,
                "exports %zu std:: template instantiation(s) over its own types, such as %s", own.n, ex);
        free(ex);
    }
    if (std_only.n && !whole_copy) {
        char *ex = examples(&std_only, NULL, 1);
        tlck_emit(out, "stl-leak", TLCK_SEV_INFO, f->display, NULL, HIDE_HINT,
                "exports %zu std:: template instantiation(s) and inline function(s) over standard and builtin types "
                "only, such as %s",
                std_only.n, ex);
        free(ex);
    }
    if (new_abi && old_abi)
        tlck_emit(out, "stl-leak", TLCK_SEV_WARNING, f->display, NULL,
                "build every part with the same _GLIBCXX_USE_CXX11_ABI value",
                "dual-ABI mix in the exported API: %s uses std::__cxx11, %s uses the old-ABI std::string/std::list",
                new_ex, old_ex);
    each_symbol(f, vague_global != 0, out);
}

const struct tlck_check tlck_check_stl_leak = {
    .id = "stl-leak",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "std leakage",
    .help_uri = "docs/checks/stl-leak.md",
    .run = run,
};
