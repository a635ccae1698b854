#include "checks/dwarf_names.h"

#include <ctype.h>
#include <demangle.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

void tlck_sym_names_init(struct tlck_sym_names *n, const char *sym)
{
    memset(n, 0, sizeof *n);
    n->sym = sym;
    /* tlck_clone_base's rule, without its buffer's limit (template instances' names run to kilobytes), and a
     * symbol version: .symver makes the local symbol "tr_break@GLIBC_2.2.5" of the function tr_break (glibc) */
    size_t len = strcspn(sym, ".@");
    n->base = len && sym[len] ? strndup(sym, len) : NULL;
}

void tlck_sym_names_free(struct tlck_sym_names *n)
{
    free(n->base);
    free(n->demangled);
    free(n->stem);
}

void tlck_sub_names_init(struct tlck_sub_names *n, const struct tlck_subprogram *s, int fortran)
{
    memset(n, 0, sizeof *n);
    n->s = s;
    n->fortran = fortran != 0;
}

void tlck_sub_names_free(struct tlck_sub_names *n)
{
    free(n->demangled);
    free(n->stem);
}

static int is_mangled(const char *s)
{
    return s && s[0] == '_' && s[1] == 'Z';
}

static char *demangled(const char *mangled)
{
    return is_mangled(mangled) ? cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI) : NULL;
}

/* A trailing template argument list is dropped unless its '<' belongs to the operator's own name
 * (operator<<, operator<=>): GCC writes "operator< <int>", the demangler likewise. */
static size_t without_template_args(const char *s, size_t n)
{
    if (n == 0 || s[n - 1] != '>')
        return n;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == '>')
            depth++;
        else if (s[i] == '<' && --depth == 0) {
            if (i == 0 || strchr("<>=!+-*/%^&|~,", s[i - 1]) ||
                (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0))
                return n;
            return i;
        }
    }
    return n;
}

/* Unqualified name, template arguments dropped, white space removed: what both spellings agree on. */
static char *stem_of(const char *name)
{
    size_t n = without_template_args(name, strlen(name));
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)name[i]))
            *o++ = name[i];
    *o = 0;
    return out;
}

/* The component naming the entity itself: the last one of a qualified or local name, without its template
 * arguments, cv-qualifiers of `this`, ABI tags or clone suffix. *scope: the component it is qualified by. */
static const struct demangle_component *entity(const struct demangle_component *c,
                                               const struct demangle_component **scope)
{
    *scope = NULL;
    for (int i = 0; c && i < 64; i++) {
        switch (c->type) {
        case DEMANGLE_COMPONENT_TYPED_NAME: case DEMANGLE_COMPONENT_TEMPLATE:
        case DEMANGLE_COMPONENT_TAGGED_NAME: case DEMANGLE_COMPONENT_CLONE:
        case DEMANGLE_COMPONENT_CONST_THIS: case DEMANGLE_COMPONENT_VOLATILE_THIS:
        case DEMANGLE_COMPONENT_RESTRICT_THIS: case DEMANGLE_COMPONENT_REFERENCE_THIS:
        case DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS:
            c = c->u.s_binary.left;
            break;
        case DEMANGLE_COMPONENT_QUAL_NAME: case DEMANGLE_COMPONENT_LOCAL_NAME:
            *scope = c->u.s_binary.left;
            c = c->u.s_binary.right;
            break;
        default:
            return c;
        }
    }
    return NULL;
}

/* The unqualified name as GCC's DW_AT_name spells it. A lambda's class is "<lambda>" there; the demangler
 * names its constructors and destructors after the enclosing function (the last source name it read). */
static char *symbol_stem(const char *mangled)
{
    void *mem = NULL;
    struct demangle_component *root = cplus_demangle_v3_components(mangled, DMGL_PARAMS | DMGL_ANSI, &mem);
    const struct demangle_component *scope = NULL, *e = root ? entity(root, &scope) : NULL;
    char *out = NULL;
    if (e && (e->type == DEMANGLE_COMPONENT_CTOR || e->type == DEMANGLE_COMPONENT_DTOR) && scope &&
        scope->type == DEMANGLE_COMPONENT_LAMBDA)
        out = tlck_strdup(e->type == DEMANGLE_COMPONENT_CTOR ? "<lambda>" : "~<lambda>");
    if (e && !out) {
        size_t alloc = 0;
        char *printed = cplus_demangle_print(DMGL_PARAMS | DMGL_ANSI, (struct demangle_component *)e, 64, &alloc);
        if (printed) {
            out = stem_of(printed);
            free(printed);
        }
    }
    free(mem);
    return out;
}

static const char *sym_base(const struct tlck_sym_names *n)
{
    return n->base ? n->base : n->sym;
}

static int is_fortran_main(const struct tlck_sym_names *sym, const struct tlck_sub_names *sub)
{
    return sub->fortran && sub->s->name && strcmp(sym->sym, "MAIN__") == 0;
}

/* Length of a name without its clone suffix. GCC's LTO partitions give clones their own linkage name
 * ("..._M_copy...RT0_.isra.0"), whose .cold part is the symbol "..._M_copy...RT0_.isra.0.cold". */
static size_t base_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot && dot != name ? (size_t)(dot - name) : strlen(name);
}

int tlck_names_equal(const struct tlck_sym_names *sym, const struct tlck_subprogram *s)
{
    const char *names[2] = { s->linkage_name, s->name }, *base = sym_base(sym);
    size_t n = strlen(base);
    for (int i = 0; i < 2; i++)
        if (names[i] && (strcmp(sym->sym, names[i]) == 0 || (base_len(names[i]) == n && memcmp(base, names[i], n) == 0)))
            return 1;
    return 0;
}

int tlck_names_match(struct tlck_sym_names *sym, struct tlck_sub_names *sub)
{
    const struct tlck_subprogram *s = sub->s;
    const char *base = sym_base(sym);
    if (tlck_names_equal(sym, s) || is_fortran_main(sym, sub))
        return 1;
    if (!is_mangled(base))
        return 0;
    if (s->linkage_name) {
        if (!is_mangled(s->linkage_name))
            return 0;
        if (!sym->have_demangled) {
            sym->demangled = demangled(base);
            sym->have_demangled = 1;
        }
        if (!sub->have_demangled) {
            char *unsuffixed = strndup(s->linkage_name, base_len(s->linkage_name));
            sub->demangled = unsuffixed ? demangled(unsuffixed) : NULL;
            free(unsuffixed);
            sub->have_demangled = 1;
        }
        return sym->demangled && sub->demangled && strcmp(sym->demangled, sub->demangled) == 0;
    }
    if (!s->name)
        return 0;
    if (!sym->have_stem) {
        sym->stem = symbol_stem(base);
        sym->have_stem = 1;
    }
    if (!sub->have_stem) {
        sub->stem = stem_of(s->name);
        sub->have_stem = 1;
    }
    return sym->stem && sub->stem && sym->stem[0] && strcmp(sym->stem, sub->stem) == 0;
}

int tlck_made_without_subprogram(const char *sym)
{
    static const char *const special[] = {
        "_ZTh", "_ZTv", "_ZTc", /* non-virtual, virtual and covariant-return thunks */
        "_ZGTt",                /* transaction clones (-fgnu-tm) */
        NULL,
    };
    for (size_t i = 0; special[i]; i++)
        if (strncmp(sym, special[i], strlen(special[i])) == 0)
            return 1;
    for (const char *p = strstr(sym, ".cold"); p; p = strstr(p + 1, ".cold"))
        if (p[5] == 0 || p[5] == '.')
            return 1;
    return 0;
}

int tlck_lang_is_fortran(unsigned lang)
{
    return lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 || lang == DW_LANG_Fortran95 ||
           lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
}
