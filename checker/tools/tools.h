/* The non-check modes of trueline-check. Each returns the process exit status (0, 1 or 2). */
#ifndef TL_TOOLS_H
#define TL_TOOLS_H
#include "options.h"

int tl_tool_list(const struct tl_options *o);        /* --list: device-image inventory */
int tl_tool_extract(const struct tl_options *o);     /* --extract DIR */
int tl_tool_symbolize(const struct tl_options *o);   /* --symbolize FILE LOCATION [--sm N] */
int tl_tool_coredump(const struct tl_options *o);    /* --coredump CORE [--binary F ...] */
int tl_tool_provenance(const struct tl_options *o);  /* --provenance FILE */

#endif
