#include "checks/host_util.h"
#include "checks/demangle_tree.h"

#include <demangle.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *tlck_demangle(const char *name)
{
    char *d = name && name[0] == '_' && name[1] == 'Z' ? cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI) : NULL;
    return d ? d : tlck_strdup(name ? name : "");
}

struct tlck_finding *tlck_emit_symbol(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
                      const char *mangled, const char *hint, const char *fmt, ...)
{
    char *d = tlck_demangle(mangled);
    va_list ap;
    va_start(ap, fmt);
    struct tlck_finding *x = tlck_vemit(out, check, sev, file, d, hint, fmt, ap);
    va_end(ap);
    if (x && mangled && d && strcmp(mangled, d) != 0)
        x->mangled = tlck_strdup(mangled);
    free(d);
    return x;
}

int tlck_is_crt_function(const char *name)
{
    /* atexit, at_quick_exit, pthread_atfork and __stack_chk_fail_local come from glibc's libc_nonshared.a,
     * linked into every executable and .so without the user's flags (seen in examples/demo's libdemo.so). */
    static const char *const crt[] = { "_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
                                       "__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
                                       "_dl_relocate_static_pie", "__do_global_ctors_aux", "call_weak_fn",
                                       "atexit", "at_quick_exit", "pthread_atfork", "__stack_chk_fail_local",
                                       /* emitted by clang into every C++ TU that may terminate, without DWARF */
                                       "__clang_call_terminate", NULL };
    for (size_t i = 0; crt[i]; i++)
        if (strcmp(name, crt[i]) == 0)
            return 1;
    return 0;
}

const char *tlck_clone_base(const char *name, char *buf, size_t n)
{
    const char *dot = strchr(name, '.');
    if (!dot || dot == name)
        return name;
    size_t len = (size_t)(dot - name) < n - 1 ? (size_t)(dot - name) : n - 1;
    memcpy(buf, name, len);
    buf[len] = 0;
    return buf;
}

static int name_is(const struct demangle_component *c, const char *s)
{
    size_t n = strlen(s);
    return c && c->type == DEMANGLE_COMPONENT_NAME && (size_t)c->u.s_name.len == n &&
           memcmp(c->u.s_name.s, s, n) == 0;
}

/* The outermost scope of a (possibly qualified, templated, typed) name. */
static const struct demangle_component *outer_scope(const struct demangle_component *c, int depth)
{
    while (c && depth++ < 64) {
        switch (c->type) {
        case DEMANGLE_COMPONENT_QUAL_NAME:
        case DEMANGLE_COMPONENT_LOCAL_NAME:
        case DEMANGLE_COMPONENT_TYPED_NAME:
        case DEMANGLE_COMPONENT_TEMPLATE:
        case DEMANGLE_COMPONENT_TAGGED_NAME:
            c = c->u.s_binary.left;
            break;
        default:
            /* member qualifiers (`_ZNKSb...8capacityEv` is CONST_THIS(QUAL_NAME(...))) and special names
             * (vtable for X, thunks ...) are about their operand */
            if (!tlck_cxx_is_wrapper(c->type))
                return c;
            c = c->u.s_binary.left;
            break;
        }
    }
    return c;
}

static void scan_abi(const struct demangle_component *c, struct tlck_cxx_name *out, int depth)
{
    if (!c || depth > 200)
        return;
    switch (c->type) {
    case DEMANGLE_COMPONENT_NAME:
        if (name_is(c, "__cxx11"))
            out->new_abi = 1;
        return;
    case DEMANGLE_COMPONENT_SUB_STD:
        /* Ss/Sb/Si/So/Sd abbreviate old-ABI (pre-C++11) std::basic_string and streams over it */
        if (c->u.s_string.len >= 11 && (memcmp(c->u.s_string.string, "std::string", 11) == 0 ||
                                       (c->u.s_string.len >= 17 && memcmp(c->u.s_string.string, "std::basic_string", 17) == 0)))
            out->old_abi = 1;
        return;
    case DEMANGLE_COMPONENT_QUAL_NAME:
        if (name_is(c->u.s_binary.left, "std") &&
            (name_is(c->u.s_binary.right, "basic_string") || name_is(c->u.s_binary.right, "list") ||
             name_is(c->u.s_binary.right, "_List_base") || name_is(c->u.s_binary.right, "_List_node_base")))
            out->old_abi = 1;
        break;
    default:
        break;
    }
    switch (c->type) {
    case DEMANGLE_COMPONENT_NAME: case DEMANGLE_COMPONENT_SUB_STD: case DEMANGLE_COMPONENT_BUILTIN_TYPE:
    case DEMANGLE_COMPONENT_OPERATOR: case DEMANGLE_COMPONENT_CHARACTER: case DEMANGLE_COMPONENT_NUMBER:
    case DEMANGLE_COMPONENT_FUNCTION_PARAM: case DEMANGLE_COMPONENT_TEMPLATE_PARAM:
    case DEMANGLE_COMPONENT_EXTENDED_BUILTIN_TYPE: case DEMANGLE_COMPONENT_FIXED_TYPE:
    case DEMANGLE_COMPONENT_UNNAMED_TYPE: case DEMANGLE_COMPONENT_DEFAULT_ARG: case DEMANGLE_COMPONENT_LAMBDA:
        return;
    case DEMANGLE_COMPONENT_CTOR:
        scan_abi(c->u.s_ctor.name, out, depth + 1);
        return;
    case DEMANGLE_COMPONENT_DTOR:
        scan_abi(c->u.s_dtor.name, out, depth + 1);
        return;
    case DEMANGLE_COMPONENT_EXTENDED_OPERATOR:
        scan_abi(c->u.s_extended_operator.name, out, depth + 1);
        return;
    default:
        scan_abi(c->u.s_binary.left, out, depth + 1);
        scan_abi(c->u.s_binary.right, out, depth + 1);
    }
}

int tlck_cxx_classify(const char *mangled, struct tlck_cxx_name *out)
{
    memset(out, 0, sizeof *out);
    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return -1;
    void *mem = NULL;
    struct demangle_component *root = tlck_cxx_components(mangled, DMGL_PARAMS | DMGL_ANSI, &mem);
    if (!root) {
        free(mem);
        return -1;
    }
    const struct demangle_component *scope = outer_scope(root, 0);
    /* St inside a nested name is SUB_STD "std"; Sa, Sb, Ss ... are "std::allocator" etc. as one component */
    if (scope && scope->type == DEMANGLE_COMPONENT_SUB_STD)
        out->is_std = scope->u.s_string.len >= 3 && memcmp(scope->u.s_string.string, "std", 3) == 0 &&
                      (scope->u.s_string.len == 3 || scope->u.s_string.string[3] == ':');
    out->is_std = out->is_std || name_is(scope, "std") || name_is(scope, "__gnu_cxx");
    scan_abi(root, out, 0);
    free(mem);
    return 0;
}
