/* --symbolize: scaffold; its issue fills this file. */
#include <stdio.h>
#include "tools/tools.h"

int tl_tool_symbolize(const struct tl_options *o)
{
    (void)o;
    fprintf(stderr, "trueline-check: --symbolize is not available in this build yet\n");
    return 2;
}
