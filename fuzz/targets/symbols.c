/* Symbol classification in checker/checks/host_util.c: demangling (libiberty), the demangler's parse tree
 * classification (std::, dual ABI) behind stl-leak, GCC clone suffixes and crt names. */
#include "fuzz_util.h"
#include "checks/host_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0; /* real symbol names are far shorter; the demangler's cost grows with nesting */
    char *name = fuzz_strndup(data, size);
    char *d = tlck_demangle(name);
    if (d)
        fuzz_sink ^= (unsigned char)strlen(d);
    free(d);
    struct tlck_cxx_name cx;
    (void)tlck_cxx_classify(name, &cx);
    char buf[256];
    const char *base = tlck_clone_base(name, buf, sizeof buf);
    if (base)
        fuzz_sink ^= (unsigned char)strlen(base);
    (void)tlck_is_crt_function(name);
    free(name);
    return 0;
}
