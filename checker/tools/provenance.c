/* --provenance: scaffold; its issue fills this file. */
#include <stdio.h>
#include "tools/tools.h"

int tl_tool_provenance(const struct tl_options *o)
{
    (void)o;
    fprintf(stderr, "trueline-check: --provenance is not available in this build yet\n");
    return 2;
}
