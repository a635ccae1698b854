/* --list: scaffold; its issue fills this file. */
#include <stdio.h>
#include "tools/tools.h"

int tl_tool_list(const struct tl_options *o)
{
    (void)o;
    fprintf(stderr, "trueline-check: --list is not available in this build yet\n");
    return 2;
}
