/* Helpers shared by the host checks (and callable by the device part of line-tables). */
#ifndef TLCK_HOST_UTIL_H
#define TLCK_HOST_UTIL_H
#include "checks/checks.h"

/* Demangled name (malloc'd), or a copy of name when it is not a C++ mangled name. */
char *tlck_demangle(const char *name);
/* Functions that the C runtime's start files bring into every executable/.so (crt1.o, crti.o, crtbegin.o),
 * and helpers the compiler emits without DWARF (__clang_call_terminate): no user flag gives them debug info,
 * so no check should blame the user for them. */
int tlck_is_crt_function(const char *name);
/* tlck_emit for a finding about one symbol: the finding's symbol is the demangled name, and the mangled one is
 * kept beside it (reports tell apart functions that demangle alike; fingerprints stay one per symbol).
 * Returns the finding, or NULL when dropped. */
struct tlck_finding *tlck_emit_symbol(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
                      const char *mangled, const char *hint, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Name without GCC clone suffixes (foo.cold, foo.part.0, foo.isra.0, foo.constprop.0): copies into buf. */
const char *tlck_clone_base(const char *name, char *buf, size_t n);

/* line-tables, host part: functions without line rows, coverage per file and CU, files without .debug_line.
 * release (the release profile): functions no compile unit covers are one info line, not one error each. */
void tlck_line_tables_host(const struct tlck_file *f, enum tlck_severity sev, int release, struct tlck_findings *out);

/* mixed-toolchain, host part: DW_AT_producer per CU and .comment. */
void tlck_mixed_toolchain_host(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out);

/* The demangler's parse tree says: namespace of the entity (1 = std or __gnu_cxx), ABI flavour seen. */
struct tlck_cxx_name {
    unsigned is_std : 1;
    unsigned new_abi : 1;  /* std::__cxx11 appears */
    unsigned old_abi : 1;  /* old-ABI std::string / std::list appears (Ss, std::basic_string, std::list) */
};
int tlck_cxx_classify(const char *mangled, struct tlck_cxx_name *out); /* -1 when not a C++ name */

#endif
