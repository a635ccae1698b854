#include "report/package_summary.h"

#include <string.h>

#include "input_list.h"

const char *tlck_package_link_of(const struct tlck_results *r, const char *path)
{
    for (size_t i = 0; i < r->nlinks; i++)
        if (strcmp(r->links[i].package, path) == 0)
            return r->links[i].link;
    return NULL;
}
