/* stl-leak: exported (default/protected visibility) definitions in namespace std or __gnu_cxx, decided from the
 * demangler's parse tree (libiberty cplus_demangle_v3_components), classified by binding:
 *   strong (STB_GLOBAL, nm T/D): libstdc++'s own compiled code, i.e. a statically linked libstdc++;
 *   weak (STB_WEAK): vague-linkage template instantiations (normal C++, but they interpose across DSOs);
 *   unique (STB_GNU_UNIQUE): static data members / locals of inline functions and templates.
 * Also: both std::__cxx11 and old-ABI std::string/std::list in one file's exported API (dual-ABI mix).
 * libstdc++ itself (DT_SONAME libstdc++.so*) is recognized and skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/host_util.h"

#define MAX_LISTED 30
#ifndef STB_GNU_UNIQUE
#define STB_GNU_UNIQUE 10
#endif

static const char *const HINT = "hide std:: symbols: link with -Wl,--exclude-libs,ALL (static libstdc++), compile "
                                "with -fvisibility=hidden -fvisibility-inlines-hidden, or export only your API "
                                "through a version script (-Wl,--version-script)";

static int exported(const struct tl_symbol *s)
{
    return s->defined && s->shndx != 0 && (s->visibility == 0 /* STV_DEFAULT */ || s->visibility == 3 /* PROTECTED */) &&
           (s->bind == 1 || s->bind == 2 || s->bind == STB_GNU_UNIQUE);
}

/* Symbols that only a copy of libstdc++/libsupc++ defines. */
static int runtime_marker(const char *name)
{
    return strcmp(name, "__gxx_personality_v0") == 0 || strcmp(name, "__cxa_throw") == 0 ||
           strncmp(name, "_ZSt9terminatev", 15) == 0 || strncmp(name, "_ZSt20__throw_length_errorPKc", 29) == 0 ||
           strncmp(name, "_ZSt17__throw_bad_allocv", 24) == 0;
}

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    (void)p;
    if (f->is_libstdcxx || f->elf_type == 1 /* ET_REL: not linked yet, visibility decided at link time */)
        return;
    size_t strong = 0, weak = 0, unique = 0, listed = 0, markers = 0;
    int new_abi = 0, old_abi = 0;
    const char *new_ex = NULL, *old_ex = NULL, *marker = NULL;
    enum tl_severity weak_sev = sev == TL_SEV_ERROR ? TL_SEV_WARNING : sev;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tl_symbol *s = &f->dynsyms[i];
        struct tl_cxx_name cx;
        if (!exported(s))
            continue;
        if (runtime_marker(s->name) && markers++ == 0)
            marker = s->name;
        if (tl_cxx_classify(s->name, &cx) != 0)
            continue;
        if (cx.new_abi && !new_abi++)
            new_ex = s->name;
        if (cx.old_abi && !old_abi++)
            old_ex = s->name;
        if (!cx.is_std)
            continue;
        const char *kind = s->bind == STB_GNU_UNIQUE ? "unique" : s->bind == 2 ? "weak" : "strong";
        if (s->bind == STB_GNU_UNIQUE)
            unique++;
        else if (s->bind == 2)
            weak++;
        else
            strong++;
        if (listed++ < MAX_LISTED) {
            char *d = tl_demangle(s->name);
            tl_emit(out, "stl-leak", s->bind == 1 ? sev : weak_sev, f->display, d, HINT,
                    "exports %s std:: symbol %s%s", kind, s->name,
                    s->bind == 1 ? " (a strong definition: libstdc++ code linked into this file)" :
                    s->bind == 2 ? " (vague-linkage instantiation: interposes with other DSOs' copies)" : "");
            free(d);
        }
    }
    if (strong + weak + unique)
        tl_emit(out, "stl-leak", listed > MAX_LISTED ? (strong ? sev : weak_sev) : TL_SEV_INFO, f->display, NULL, HINT,
                "exports %zu std:: symbols: %zu strong, %zu weak, %zu unique%s%s%s", strong + weak + unique, strong,
                weak, unique, listed > MAX_LISTED ? " (first " : "", listed > MAX_LISTED ? "30 listed)" : "",
                markers ? "; a statically linked libstdc++ is likely (it defines the C++ runtime's own symbols)" : "");
    if (markers) {
        char *d = tl_demangle(marker);
        tl_emit(out, "stl-leak", sev, f->display, d, "link libstdc++ dynamically, or add -Wl,--exclude-libs,ALL",
                "defines and exports %zu C++ runtime symbol(s) such as %s: signs of a statically linked libstdc++",
                markers, marker);
        free(d);
    }
    if (new_abi && old_abi)
        tl_emit(out, "stl-leak", TL_SEV_WARNING, f->display, NULL,
                "build every part with the same _GLIBCXX_USE_CXX11_ABI value",
                "dual-ABI mix in the exported API: %s uses std::__cxx11, %s uses the old-ABI std::string/std::list",
                new_ex, old_ex);
}

const struct tl_check tl_check_stl_leak = {
    .id = "stl-leak",
    .default_severity = TL_SEV_ERROR,
    .summary = "std leakage",
    .help_uri = "docs/checks/stl-leak.md",
    .run = run,
};
