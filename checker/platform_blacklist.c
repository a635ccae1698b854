#include "platform_blacklist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_file.h"

#define STB_WEAK_ 2
#define STT_FUNC_ 2

/* One line "tag\tlibrary\tsymbols" into b; a message into why when it is not that. */
static int parse_row(struct tlck_blacklist *b, size_t *cap, char *line, char *why, size_t n)
{
    size_t columns = 1;
    for (const char *t = strchr(line, '\t'); t; t = strchr(t + 1, '\t'))
        columns++;
    if (columns != 3) {
        snprintf(why, n, "expected 3 tab-separated columns (tag, library, symbols), found %zu", columns);
        return -1;
    }
    char *field[3] = { line, strchr(line, '\t') + 1, NULL };
    field[2] = strchr(field[1], '\t') + 1;
    field[1][-1] = field[2][-1] = 0;
    static const char *const names[3] = { "tag", "library", "symbols" };
    for (int i = 0; i < 3; i++)
        if (!field[i][0] || strchr(field[i], ' ')) {
            snprintf(why, n, "the %s column is %s", names[i], field[i][0] ? "not one word" : "empty");
            return -1;
        }
    if (strlen(field[0]) >= sizeof b->v->tag) {
        snprintf(why, n, "the tag '%.40s...' is longer than %zu characters", field[0], sizeof b->v->tag - 1);
        return -1;
    }
    if (field[2][0] == ',' || field[2][strlen(field[2]) - 1] == ',' || strstr(field[2], ",,")) {
        snprintf(why, n, "the symbols column has an empty name (write them as a,b,c)");
        return -1;
    }
    if (tlck_grow((void **)&b->v, cap, b->n + 1, sizeof *b->v) != 0) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    struct tlck_blacklist_row *r = &b->v[b->n];
    snprintf(r->tag, sizeof r->tag, "%s", field[0]);
    r->lib = strdup(field[1]);
    r->symbols = tlck_asprintf(",%s,", field[2]);
    b->n++;
    if (!r->lib || !r->symbols) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    return 0;
}

int tlck_blacklist_load(struct tlck_blacklist *b, const char *path, tl_error *err)
{
    memset(b, 0, sizeof *b);
    FILE *fp = path ? fopen(path, "r") : tlck_conf_open("platform_blacklist.tsv", b->path, sizeof b->path);
    if (!fp)
        return path ? tl_fail(err, "%s: cannot be read: %s", path, strerror(errno)) : 0;
    if (path)
        snprintf(b->path, sizeof b->path, "%s", path);
    char line[16384], why[256];
    size_t cap = 0;
    for (unsigned no = 1; fgets(line, sizeof line, fp); no++) {
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fclose(fp);
            tl_fail(err, "%s:%u: line longer than %zu bytes", b->path, no, sizeof line - 2);
            tlck_blacklist_free(b);
            return -1;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (!len || line[0] == '#' || strncmp(line, "tag\t", 4) == 0)
            continue;
        if (parse_row(b, &cap, line, why, sizeof why) != 0) {
            fclose(fp);
            tl_fail(err, "%s:%u: %s", b->path, no, why);
            tlck_blacklist_free(b);
            return -1;
        }
    }
    int bad = ferror(fp) ? errno : 0;
    fclose(fp);
    if (bad) { /* an empty blacklist would pass every wheel it is there to stop */
        tl_fail(err, "%s: cannot be read: %s", b->path, strerror(bad));
        tlck_blacklist_free(b);
        return -1;
    }
    return 0;
}

void tlck_blacklist_free(struct tlck_blacklist *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->v[i].lib);
        free(b->v[i].symbols);
    }
    free(b->v);
    memset(b, 0, sizeof *b);
}

static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = strstr(list, name); n && s; s = strstr(s + 1, name))
        if (s[-1] == ',' && s[n] == ',')
            return 1;
    return 0;
}

int tlck_python_extension(const struct tlck_file *f)
{
    size_t pl = strlen(f->path);
    const char *name = strncmp(f->display, f->path, pl) == 0 && f->display[pl] == '!' ? f->display + pl + 1 : f->display;
    const char *slash = strrchr(name, '/');
    name = slash ? slash + 1 : name;
    size_t ml = strcspn(name, ".");
    static const char *const prefixes[] = { "PyInit_", "init", "_cffi_pypyinit_" };
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        if (!s->name || s->shndx == 0 || s->type != STT_FUNC_)
            continue;
        for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++) {
            size_t l = strlen(prefixes[p]);
            if (strncmp(s->name, prefixes[p], l) == 0 && strlen(s->name + l) == ml && strncmp(s->name + l, name, ml) == 0)
                return 1;
        }
    }
    return 0;
}

/* Appends name to the hit's list while it fits whole (leaving room for " and N more"). */
static void note_name(struct tlck_blacklist_hit *hit, const char *name)
{
    size_t used = strlen(hit->names), need = strlen(name) + (used ? 2 : 0);
    if (used + need + 32 >= sizeof hit->names)
        return;
    snprintf(hit->names + used, sizeof hit->names - used, "%s%s", used ? ", " : "", name);
    hit->shown++;
}

static const struct tlck_blacklist_row *row_of(const struct tlck_blacklist *b, const char *tag, const char *lib)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcasecmp(b->v[i].tag, tag) == 0 && strcmp(b->v[i].lib, lib) == 0)
            return &b->v[i];
    return NULL;
}

const char **tlck_blacklist_names(const struct tlck_blacklist *b, const char *tag, const struct tlck_file *f,
                                  const char *lib, size_t *n)
{
    *n = 0;
    const struct tlck_blacklist_row *r = b && tag && lib ? row_of(b, tag, lib) : NULL;
    if (!r)
        return NULL;
    const char **v = malloc((f->ndynsyms ? f->ndynsyms : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        /* the same test as tlck_blacklist_hit's */
        if (!s->name || !s->name[0] || s->shndx != 0 || s->bind == STB_WEAK_ || !listed(r->symbols, s->name))
            continue;
        v[(*n)++] = s->name;
    }
    return v;
}

int tlck_blacklist_hit(const struct tlck_blacklist *b, const char *tag, const struct tlck_file *f,
                       struct tlck_blacklist_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    if (!b || !b->n || !tag || f->error || f->elf_type == 1 /* ET_REL: no .dynsym */)
        return 0;
    for (size_t k = 0; k < f->nneeded; k++) {
        const struct tlck_blacklist_row *r = row_of(b, tag, f->needed[k]);
        if (!r)
            continue;
        int all = listed(r->symbols, "*");
        for (size_t i = 0; i < f->ndynsyms; i++) {
            const struct tlck_symbol *s = &f->dynsyms[i];
            /* a weak reference is optional: auditwheel does not count it */
            if (!s->name || !s->name[0] || s->shndx != 0 || s->bind == STB_WEAK_ || !listed(r->symbols, s->name))
                continue;
            if (!hit->count++)
                hit->symbol = s->name;
            note_name(hit, s->name);
        }
        if (hit->count > hit->shown && strlen(hit->names) + 32 < sizeof hit->names)
            snprintf(hit->names + strlen(hit->names), sizeof hit->names - strlen(hit->names), " and %zu more",
                     hit->count - hit->shown);
        if (hit->count || all) {
            hit->lib = r->lib;
            if (!hit->count)
                snprintf(hit->names, sizeof hit->names, "%s", hit->symbol = "*");
            return 1;
        }
    }
    return 0;
}
