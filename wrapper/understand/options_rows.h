/* Short names for the option flags, for the rows of the option tables (options_gnu.c, options_nvcc.c) only:
 * a row then fits on one line. Private to those files. */
#ifndef TLCC_OPTIONS_ROWS_H
#define TLCC_OPTIONS_ROWS_H
#include "understand/options.h"

#define SEP TLCC_OPT_SEPARATE
#define JOINED TLCC_OPT_JOINED
#define EQ TLCC_OPT_EQ
#define PREFIX TLCC_OPT_PREFIX
#define OUT TLCC_OPT_OUTPUT
#define LANG TLCC_OPT_LANGUAGE
#define HOSTCC TLCC_OPT_HOST_COMPILER
#define ODIR TLCC_OPT_OUTPUT_DIR
#define HOSTOPT TLCC_OPT_HOST_OPTIONS
#define COMPILE TLCC_OPT_COMPILE_ONLY
#define DDBG TLCC_OPT_DEVICE_DEBUG
#define LINE TLCC_OPT_LINE_INFO
#define DON TLCC_OPT_DEBUG_ON
#define DOFF TLCC_OPT_DEBUG_OFF
#define PRE TLCC_OPT_PREPROCESS
#define DEPS TLCC_OPT_DEPS_ONLY
#define DEPSC TLCC_OPT_DEPS_COMPILE
#define QUERY TLCC_OPT_QUERY
#define DRY TLCC_OPT_DRY_RUN
#define KEY TLCC_OPT_KEY_DROP
#define LONE TLCC_OPT_KEY_LONE
#define PATH TLCC_OPT_PATH
#define PP TLCC_OPT_KEY_PP

#endif
