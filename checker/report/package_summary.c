#include "report/package_summary.h"

#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "input_list.h"
#include "checks/symbol_versions.h"

int tlck_is_package_member(const struct tlck_file *f)
{
    size_t len = f->path ? strlen(f->path) : 0;
    return len && f->display && strncmp(f->display, f->path, len) == 0 && f->display[len] == '!';
}

struct tlck_package_summary *tlck_package_summaries(const struct tlck_results *r, size_t *n)
{
    struct tlck_package_summary *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < r->nfiles;) {
        const struct tlck_file *f = &r->files[i];
        if (!tlck_is_package_member(f)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < r->nfiles && tlck_is_package_member(&r->files[j]) && strcmp(r->files[j].path, f->path) == 0)
            j++;
        if (tlck_grow((void **)&v, &cap, *n + 1, sizeof *v) != 0)
            break;
        struct tlck_package_summary *s = &v[(*n)++];
        memset(s, 0, sizeof *s);
        s->path = f->path;
        s->first = i;
        s->n = j - i;
        const struct tlck_file **members = malloc(s->n * sizeof *members);
        for (size_t k = i; k < j; k++) {
            s->unreadable += r->files[k].error != NULL;
            if (members)
                members[k - i] = &r->files[k];
        }
        /* a musllinux wheel links musl, whose symbols carry no versions: no manylinux verdict means anything */
        if (members && s->unreadable < s->n && !strstr(f->path, "musllinux_"))
            s->runs_on = tlck_symbol_versions_oldest_tag(members, s->n,
                                                         tlck_check_run_state(r->checks, &tlck_check_symbol_versions));
        free(members);
        if (!tlck_symbol_versions_wheel_tag(f->display, s->claimed, sizeof s->claimed))
            s->claimed[0] = 0;
        i = j;
    }
    return v;
}

const char *tlck_package_link_of(const struct tlck_results *r, const char *path)
{
    for (size_t i = 0; i < r->nlinks; i++)
        if (strcmp(r->links[i].package, path) == 0)
            return r->links[i].link;
    return NULL;
}
