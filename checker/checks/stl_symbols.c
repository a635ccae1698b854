/* Telling a linked-in C++ runtime apart from ordinary template instantiations, by name and binding only (checks
 * never open files, so the system's libstdc++.so.6 cannot serve as the list; its exported set also differs
 * between GCC releases, while these rules do not):
 *   - C-level names that only the C++ ABI runtime (libsupc++ / libc++abi) defines, and its __cxxabiv1 classes;
 *   - a std:: or __gnu_cxx:: definition with STB_GLOBAL binding whose name carries no template arguments
 *     (std::ios_base::Init::Init(), std::__throw_length_error, std::filesystem::path::_M_split_cmpts(),
 *     std::__detail::_Prime_rehash_policy::_M_next_bkt, typeinfo for std::bad_alloc in a static link):
 *     compiled library code. Inline functions of the headers are emitted by user code too, but with
 *     vague linkage (STB_WEAK / STB_GNU_UNIQUE), and templates carry their arguments in the name. Some
 *     builds give vague-linkage definitions global binding; for those files only the parts of the library
 *     in COMPILED_SCOPES count (TLCK_STL_LIBRARY as against TLCK_STL_PLAIN; the check decides per file).
 * Everything else in std:: is an instantiation made by the file's own code: over its own types when any
 * named type outside the standard library (and the C library types the standard library itself uses)
 * appears anywhere in the name, else over standard and builtin types only. */
#include "checks/stl_symbols.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

#include "checks/demangle_tree.h"

#define STB_GLOBAL_ 1

enum rule_kind { EXACT, PREFIX };

/* C-level symbols of the C++ ABI runtime. glibc defines __cxa_atexit, __cxa_finalize, __cxa_at_quick_exit and
 * __cxa_thread_atexit_impl itself, so those are no sign of a C++ runtime. */
static const struct {
    enum rule_kind kind;
    const char *text;
} RUNTIME_C_NAMES[] = {
    { EXACT, "__gxx_personality_v0" },
    { EXACT, "__gxx_personality_sj0" },
    { EXACT, "__dynamic_cast" },
    { PREFIX, "__cxa_" },
};
static const char *const GLIBC_CXA[] = { "__cxa_atexit", "__cxa_finalize", "__cxa_at_quick_exit",
                                         "__cxa_thread_atexit_impl" };

/* Outermost scopes that are the standard library's (St, Sa, Ss ... are SUB_STD components). */
static const char *const STD_SCOPES[] = { "std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug" };

/* C library types that the standard library's own templates are instantiated over (codecvt<wchar_t, char,
 * __mbstate_t>, time_put's tm, basic_filebuf's _IO_FILE ...): not the file's own types. */
static const char *const C_TYPES[] = { "__mbstate_t", "_IO_FILE", "FILE", "fpos_t", "tm", "__locale_struct",
                                       "__va_list_tag", "timespec", "timeval", "stat", "stat64", "pthread_mutex_t",
                                       "pthread_cond_t", "pthread_t", "div_t", "ldiv_t", "lldiv_t", "max_align_t",
                                       /* libiberty's NAME components for placeholder types (Da, Dc) */
                                       "auto", "decltype(auto)" };

/* Parts of the standard library whose non-template code only libstdc++'s own objects define (out-of-line
 * members, key functions of the exception classes, locale and stream machinery): prefixes of the entity's
 * qualified name as the demangler prints it. */
static const char *const COMPILED_SCOPES[] = {
    "std::__throw_", "std::terminate", "std::unexpected", "std::set_terminate", "std::set_unexpected",
    "std::get_terminate", "std::set_new_handler", "std::get_new_handler", "std::uncaught_exception",
    "std::current_exception", "std::rethrow_exception", "std::__exception_ptr::", "std::nothrow",
    "std::ios_base", "std::locale", "std::__basic_file", "std::basic_filebuf", "std::cout", "std::cin",
    "std::cerr", "std::clog", "std::wcout", "std::wcin", "std::wcerr", "std::wclog",
    "std::__detail::_Prime_rehash_policy", "std::__detail::__prime_list", "std::_Hash_bytes", "std::_Fnv_hash_bytes",
    "std::_Rb_tree_increment", "std::_Rb_tree_decrement", "std::_Rb_tree_insert_and_rebalance",
    "std::_Rb_tree_rebalance_for_erase", "std::__detail::_List_node_base", "std::_List_node_base",
    "std::thread", "std::this_thread", "std::condition_variable", "std::_V2::condition_variable_any",
    "std::mutex", "std::recursive_mutex", "std::random_device", "std::chrono::", "std::filesystem::",
    "std::_V2::error_category", "std::_V2::generic_category", "std::_V2::system_category", "std::error_category",
    "std::exception", "std::bad_", "std::logic_error", "std::runtime_error", "std::domain_error",
    "std::invalid_argument", "std::length_error", "std::out_of_range", "std::range_error", "std::overflow_error",
    "std::underflow_error", "std::system_error", "std::future_error", "std::regex_error", "std::__cxx11::",
    "std::type_info", "std::__future_base", "std::_Sp_locker", "std::pmr::", "std::__atomic_futex",
    "__gnu_cxx::__verbose_terminate_handler", "__gnu_cxx::__concurrence", "__gnu_cxx::__freeres",
    "__gnu_cxx::recursive_init_error", "__gnu_cxx::__snprintf_lite",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int compiled_scope(const struct demangle_component *e)
{
    size_t alc = 0;
    /* the printer only reads the tree; its prototype predates const */
    char *t = cplus_demangle_print(DMGL_PARAMS | DMGL_ANSI, (struct demangle_component *)e, 64, &alc);
    int yes = 0;
    for (size_t i = 0; t && !yes && i < N(COMPILED_SCOPES); i++)
        yes = strncmp(t, COMPILED_SCOPES[i], strlen(COMPILED_SCOPES[i])) == 0;
    free(t);
    return yes;
}

static int name_in(const struct demangle_component *c, const char *const *set, size_t n)
{
    if (!c || c->type != DEMANGLE_COMPONENT_NAME)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((size_t)c->u.s_name.len == strlen(set[i]) && memcmp(c->u.s_name.s, set[i], (size_t)c->u.s_name.len) == 0)
            return 1;
    return 0;
}

static int runtime_c_name(const char *name)
{
    for (size_t i = 0; i < N(GLIBC_CXA); i++)
        if (strcmp(name, GLIBC_CXA[i]) == 0)
            return 0;
    for (size_t i = 0; i < N(RUNTIME_C_NAMES); i++) {
        const char *t = RUNTIME_C_NAMES[i].text;
        if (RUNTIME_C_NAMES[i].kind == EXACT ? strcmp(name, t) == 0 : strncmp(name, t, strlen(t)) == 0)
            return 1;
    }
    return 0;
}

/* The leftmost scope of a (qualified, templated, tagged) name. */
static const struct demangle_component *outermost(const struct demangle_component *c)
{
    for (int depth = 0; c && depth < 64; depth++) {
        if (c->type != DEMANGLE_COMPONENT_QUAL_NAME && c->type != DEMANGLE_COMPONENT_TEMPLATE &&
            c->type != DEMANGLE_COMPONENT_TAGGED_NAME)
            return c;
        c = c->u.s_binary.left;
    }
    return c;
}

static int std_scope(const struct demangle_component *c)
{
    return c && (c->type == DEMANGLE_COMPONENT_SUB_STD || name_in(c, STD_SCOPES, N(STD_SCOPES)));
}

static int own_type(const struct demangle_component *c, int depth);

/* Template arguments inside a standard-library qualified name (std::vector<Foo>::push_back: Foo). */
static int own_in_args(const struct demangle_component *c, int depth)
{
    if (!c || depth > 200)
        return 0;
    switch (c->type) {
    case DEMANGLE_COMPONENT_QUAL_NAME:
        return own_in_args(c->u.s_binary.left, depth + 1) || own_in_args(c->u.s_binary.right, depth + 1);
    case DEMANGLE_COMPONENT_TEMPLATE:
        return own_in_args(c->u.s_binary.left, depth + 1) || own_type(c->u.s_binary.right, depth + 1);
    case DEMANGLE_COMPONENT_TAGGED_NAME:
        return own_in_args(c->u.s_binary.left, depth + 1);
    case DEMANGLE_COMPONENT_NAME: case DEMANGLE_COMPONENT_SUB_STD: case DEMANGLE_COMPONENT_CTOR:
    case DEMANGLE_COMPONENT_DTOR: case DEMANGLE_COMPONENT_OPERATOR:
        return 0;
    default:
        return own_type(c, depth + 1);
    }
}

/* Does a type or name outside the standard library appear anywhere in this subtree? */
static int own_type(const struct demangle_component *c, int depth)
{
    if (!c || depth > 200)
        return 0;
    switch (c->type) {
    case DEMANGLE_COMPONENT_NAME: /* an unqualified name: the global namespace */
        return !std_scope(c) && !name_in(c, C_TYPES, N(C_TYPES));
    case DEMANGLE_COMPONENT_QUAL_NAME: case DEMANGLE_COMPONENT_TEMPLATE: {
        /* a name in the file's own namespace or class; else look at the template arguments along the way */
        const struct demangle_component *o = outermost(c);
        if (o && o->type == DEMANGLE_COMPONENT_NAME && !std_scope(o) && !name_in(o, C_TYPES, N(C_TYPES)))
            return 1;
        return own_in_args(c, depth + 1);
    }
    case DEMANGLE_COMPONENT_LAMBDA: case DEMANGLE_COMPONENT_UNNAMED_TYPE:
        return 1; /* only the file's own code has closures and unnamed types outside std */
    case DEMANGLE_COMPONENT_LOCAL_NAME: /* entity local to a function: whose function? */
        return own_type(c->u.s_binary.left, depth + 1);
    case DEMANGLE_COMPONENT_SUB_STD: case DEMANGLE_COMPONENT_BUILTIN_TYPE: case DEMANGLE_COMPONENT_OPERATOR:
    case DEMANGLE_COMPONENT_CHARACTER: case DEMANGLE_COMPONENT_NUMBER: case DEMANGLE_COMPONENT_FUNCTION_PARAM:
    case DEMANGLE_COMPONENT_TEMPLATE_PARAM: case DEMANGLE_COMPONENT_EXTENDED_BUILTIN_TYPE:
    case DEMANGLE_COMPONENT_FIXED_TYPE: case DEMANGLE_COMPONENT_CTOR: case DEMANGLE_COMPONENT_DTOR:
    case DEMANGLE_COMPONENT_DEFAULT_ARG:
        return 0;
    /* the right operand is text, not a type: a literal's value, an ABI tag, a clone suffix */
    case DEMANGLE_COMPONENT_LITERAL: case DEMANGLE_COMPONENT_LITERAL_NEG: case DEMANGLE_COMPONENT_TAGGED_NAME:
    case DEMANGLE_COMPONENT_CLONE: case DEMANGLE_COMPONENT_VENDOR_TYPE_QUAL:
        return own_type(c->u.s_binary.left, depth + 1);
    case DEMANGLE_COMPONENT_EXTENDED_OPERATOR:
        return 0;
    default:
        return own_type(c->u.s_binary.left, depth + 1) || own_type(c->u.s_binary.right, depth + 1);
    }
}

/* The entity a symbol names, without special-name wrappers, its function type and member qualifiers. */
static const struct demangle_component *entity(const struct demangle_component *c)
{
    for (int depth = 0; c && depth < 64; depth++) {
        if (c->type != DEMANGLE_COMPONENT_TYPED_NAME && !tlck_cxx_is_wrapper(c->type))
            return c;
        c = c->u.s_binary.left;
    }
    return c;
}

/* Does the entity's own name (not its parameter or return types) carry template arguments? */
static int templated(const struct demangle_component *c, int depth)
{
    if (!c || depth > 64)
        return 0;
    switch (c->type) {
    case DEMANGLE_COMPONENT_TEMPLATE:
        return 1;
    case DEMANGLE_COMPONENT_QUAL_NAME:
        return templated(c->u.s_binary.left, depth + 1) || templated(c->u.s_binary.right, depth + 1);
    case DEMANGLE_COMPONENT_LOCAL_NAME:
        return templated(entity(c->u.s_binary.left), depth + 1) || templated(c->u.s_binary.right, depth + 1);
    case DEMANGLE_COMPONENT_TAGGED_NAME:
        return templated(c->u.s_binary.left, depth + 1);
    default:
        return 0;
    }
}

enum tlck_stl_origin tlck_stl_origin(const char *name, int bind, struct tlck_cxx_name *cx)
{
    memset(cx, 0, sizeof *cx);
    if (!name)
        return TLCK_STL_NONE;
    if (runtime_c_name(name))
        return TLCK_STL_ABI;
    if (tlck_cxx_classify(name, cx) != 0)
        return TLCK_STL_NONE;
    /* libsupc++'s type_info classes: _ZTVN10__cxxabiv117__class_type_infoE, _ZN10__cxxabiv1... */
    const char *abi = strstr(name, "10__cxxabiv1");
    if (abi && abi - name <= 6)
        return TLCK_STL_ABI;
    if (!cx->is_std)
        return TLCK_STL_NONE;
    void *mem = NULL;
    struct demangle_component *root = tlck_cxx_components(name, DMGL_PARAMS | DMGL_ANSI, &mem);
    enum tlck_stl_origin o = TLCK_STL_STD;
    const struct demangle_component *e = root ? entity(root) : NULL;
    /* the entity's name decides compiled library code; its parameters may name C types (stat*, FILE*) */
    /* a function's local static is the function's (inline ones are emitted by their users) */
    if (root && bind == STB_GLOBAL_ && e->type != DEMANGLE_COMPONENT_LOCAL_NAME && !templated(e, 0) &&
        !own_type(e, 0))
        o = compiled_scope(e) ? TLCK_STL_LIBRARY : TLCK_STL_PLAIN;
    else if (root && own_type(root, 0))
        o = TLCK_STL_OWN;
    free(mem);
    return o;
}
