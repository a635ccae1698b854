#include "checks/demangle_tree.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* libiberty's parser state (cp-demangle.h, not installed), as of the unresolved-name retry (GCC 11, 2021):
 * the fields up to recursion_level, then room for fields a later libiberty may append, so that
 * cplus_demangle_init_info never writes past this object. The layout is checked after every init against
 * the values init must have stored; on any difference the library's own entry point is used instead. */
struct tlck_d_info {
    const char *s;
    const char *send;
    int options;
    const char *n;
    struct demangle_component *comps;
    int next_comp;
    int num_comps;
    struct demangle_component **subs;
    int next_sub;
    int num_subs;
    struct demangle_component *last_name;
    int expansion;
    int is_expression;
    int is_conversion;
    int unresolved_name_state; /* 1: new grammar first; -1: new grammar saw an unresolved name; 0: old grammar */
    unsigned int recursion_level;
    char spare[128];
};

/* Exported by libiberty (cp-demangle.c) for its cp-demint.c; declared in its private cp-demangle.h. */
extern void cplus_demangle_init_info(const char *mangled, int options, size_t len, struct tlck_d_info *di);
extern struct demangle_component *cplus_demangle_mangled_name(struct tlck_d_info *di, int top_level);

static int init(struct tlck_d_info *di, const char *mangled, int options, size_t len)
{
    memset(di, 0, sizeof *di);
    di->next_comp = di->next_sub = -1;
    cplus_demangle_init_info(mangled, options, len, di);
    /* what init stores: the string bounds, the options, the cursor, 2*len components and len substitutions */
    return di->s == mangled && di->send == mangled + len && di->options == options && di->n == mangled &&
           di->next_comp == 0 && di->next_sub == 0 && (size_t)di->num_comps == 2 * len &&
           (size_t)di->num_subs == len;
}

struct demangle_component *tlck_cxx_components(const char *mangled, int options, void **mem)
{
    *mem = NULL;
    if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
        return NULL;
    size_t len = strlen(mangled);
    if (len > 1u << 20)
        return NULL;
    struct tlck_d_info di;
    if (!init(&di, mangled, options, len))
        return cplus_demangle_v3_components(mangled, options, mem);
    struct demangle_component *comps = malloc((size_t)di.num_comps * sizeof *comps + 1);
    struct demangle_component **subs = malloc((size_t)di.num_subs * sizeof *subs + 1);
    struct demangle_component *dc = NULL;
    if (comps && subs) {
        for (int state = 1; state >= 0; state--) {
            if (state == 0 && !init(&di, mangled, options, len))
                break;
            di.comps = comps;
            di.subs = subs;
            di.unresolved_name_state = state;
            dc = cplus_demangle_mangled_name(&di, 1);
            /* with DMGL_PARAMS the whole string must be consumed (as cplus_demangle_v3_components requires) */
            if (dc && (options & DMGL_PARAMS) && *di.n != '\0')
                dc = NULL;
            /* only a name that met an unresolved name under the new grammar is worth the old one */
            if (dc || di.unresolved_name_state != -1)
                break;
        }
    }
    free(subs);
    if (dc)
        *mem = comps;
    else
        free(comps);
    return dc;
}

int tlck_cxx_is_wrapper(enum demangle_component_type t)
{
    switch (t) {
    case DEMANGLE_COMPONENT_CONST_THIS: case DEMANGLE_COMPONENT_VOLATILE_THIS:
    case DEMANGLE_COMPONENT_RESTRICT_THIS: case DEMANGLE_COMPONENT_REFERENCE_THIS:
    case DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS:
    case DEMANGLE_COMPONENT_VTABLE: case DEMANGLE_COMPONENT_VTT: case DEMANGLE_COMPONENT_TYPEINFO:
    case DEMANGLE_COMPONENT_TYPEINFO_NAME: case DEMANGLE_COMPONENT_TYPEINFO_FN: case DEMANGLE_COMPONENT_GUARD:
    case DEMANGLE_COMPONENT_THUNK: case DEMANGLE_COMPONENT_VIRTUAL_THUNK:
    case DEMANGLE_COMPONENT_COVARIANT_THUNK: case DEMANGLE_COMPONENT_CONSTRUCTION_VTABLE:
    case DEMANGLE_COMPONENT_REFTEMP: case DEMANGLE_COMPONENT_HIDDEN_ALIAS:
    case DEMANGLE_COMPONENT_TLS_INIT: case DEMANGLE_COMPONENT_TLS_WRAPPER:
    case DEMANGLE_COMPONENT_TRANSACTION_CLONE: case DEMANGLE_COMPONENT_NONTRANSACTION_CLONE:
    case DEMANGLE_COMPONENT_CLONE:
        return 1;
    default:
        return 0;
    }
}
