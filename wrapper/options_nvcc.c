/* nvcc's options, as trueline-cc reads them (options.h). Sorted by strcmp, each name once
 * (tests/unit/wrapper_options.c). Every option with a value takes it separate or after '=' (-arch sm_90,
 * -arch=sm_90), short and long names alike. nvcc's -g is host debug info (its -G is the device's). Rows marked
 * "read for every family" are gcc's spellings the analysis has always read for nvcc too; only the short -MD and
 * -MMD count as a compile beside -M (TLCC_OPT_DEPS_COMPILE), as they always did. */
#include "options.h"

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

static const tlcc_opt rows[] = {
    { "-###", DRY }, /* gcc's spelling, read for every family */
    { "--archive-options", SEP | EQ },
    { "--compile", COMPILE },
    { "--compiler-bindir", SEP | EQ | HOSTCC },
    { "--compiler-options", SEP | EQ | HOSTOPT },
    { "--cudadevrt", SEP | EQ },
    { "--cudart", SEP | EQ },
    { "--debug", DON },
    { "--default-stream", SEP | EQ },
    { "--define-macro", SEP | EQ },
    { "--dependency-output", SEP | EQ | JOINED | KEY }, /* any continuation is left out of the key (JOINED), as always */
    { "--dependency-target-name", SEP | EQ | JOINED | KEY }, /* any continuation is left out of the key (JOINED), as always */
    { "--device-debug", DDBG },
    { "--diag-error", SEP | EQ },
    { "--diag-suppress", SEP | EQ },
    { "--diag-warn", SEP | EQ },
    { "--dopt", SEP | EQ },
    { "--dryrun", DRY },
    { "--fatbin-options", SEP | EQ },
    { "--generate-code", SEP | EQ },
    { "--generate-dependencies", DEPS },
    { "--generate-dependencies-with-compile", KEY },
    { "--generate-dependency-targets", KEY },
    { "--generate-line-info", LINE },
    { "--generate-nonsystem-dependencies", DEPS },
    { "--generate-nonsystem-dependencies-with-compile", KEY },
    { "--gpu-architecture", SEP | EQ },
    { "--gpu-code", SEP | EQ },
    { "--help", QUERY },
    { "--include-path", SEP | EQ | PATH },
    { "--keep-dir", SEP | EQ },
    { "--libdevice-directory", SEP | EQ },
    { "--library", SEP | EQ },
    { "--library-path", SEP | EQ | JOINED | KEY }, /* any continuation is left out of the key (JOINED), as always */
    { "--linker-options", SEP | EQ },
    { "--machine", SEP | EQ },
    { "--maxrregcount", SEP | EQ },
    { "--nvlink-options", SEP | EQ },
    { "--options-file", SEP | EQ },
    { "--output-directory", SEP | EQ | ODIR },
    { "--output-file", SEP | EQ | OUT },
    { "--pre-include", SEP | EQ | PATH },
    { "--preprocess", PRE },
    { "--print-", PREFIX | QUERY }, /* gcc's spelling, read for every family */
    { "--ptxas-options", SEP | EQ },
    { "--relocatable-device-code", SEP | EQ },
    { "--run-args", SEP | EQ },
    { "--split-compile", SEP | EQ },
    { "--std", SEP | EQ },
    { "--system-include", SEP | EQ | PATH },
    { "--target-directory", SEP | EQ },
    { "--threads", SEP | EQ },
    { "--time", SEP | EQ },
    { "--undefine-macro", SEP | EQ },
    { "--version", QUERY },
    { "--x", SEP | EQ | LANG },
    { "-D", SEP | EQ },
    { "-E", PRE },
    { "-G", DDBG },
    { "-I", SEP | EQ | PATH },
    { "-L", SEP | EQ | KEY },
    { "-M", DEPS },
    { "-MD", DEPSC | KEY },
    { "-MF", SEP | EQ | KEY },
    { "-MM", DEPS },
    { "-MMD", DEPSC | KEY },
    { "-MP", KEY },
    { "-MT", SEP | EQ | KEY },
    { "-U", SEP | EQ },
    { "-V", QUERY },
    { "-Werror", SEP | EQ },
    { "-Xarchive", SEP | EQ },
    { "-Xcompiler", SEP | EQ | HOSTOPT },
    { "-Xfatbin", SEP | EQ },
    { "-Xlinker", SEP | EQ },
    { "-Xnvlink", SEP | EQ },
    { "-Xptxas", SEP | EQ },
    { "-arch", SEP | EQ },
    { "-c", COMPILE },
    { "-ccbin", SEP | EQ | HOSTCC },
    { "-code", SEP | EQ },
    { "-cudadevrt", SEP | EQ },
    { "-cudart", SEP | EQ },
    { "-dc", COMPILE },
    { "-default-stream", SEP | EQ },
    { "-diag-error", SEP | EQ },
    { "-diag-suppress", SEP | EQ },
    { "-diag-warn", SEP | EQ },
    { "-dopt", SEP | EQ },
    { "-dryrun", DRY },
    { "-dump", PREFIX | QUERY }, /* gcc's spelling, read for every family */
    { "-dw", COMPILE },
    { "-fmad", SEP | EQ },
    { "-ftz", SEP | EQ },
    { "-g", DON },
    { "-gencode", SEP | EQ },
    { "-h", QUERY },
    { "-include", SEP | EQ | PATH },
    { "-isystem", SEP | EQ | PATH },
    { "-keep-dir", SEP | EQ },
    { "-l", SEP | EQ },
    { "-ldir", SEP | EQ },
    { "-lineinfo", LINE },
    { "-m", SEP | EQ },
    { "-maxrregcount", SEP | EQ },
    { "-o", SEP | EQ | OUT },
    { "-odir", SEP | EQ | ODIR },
    { "-optf", SEP | EQ },
    { "-prec-div", SEP | EQ },
    { "-prec-sqrt", SEP | EQ },
    { "-print-", PREFIX | QUERY }, /* gcc's spelling, read for every family */
    { "-rdc", SEP | EQ },
    { "-run-args", SEP | EQ },
    { "-split-compile", SEP | EQ },
    { "-std", SEP | EQ },
    { "-t", SEP | EQ },
    { "-target-dir", SEP | EQ },
    { "-time", SEP | EQ },
    { "-x", SEP | EQ | LANG },
};

const tlcc_opt_table tlcc_opts_nvcc = { "nvcc", rows, sizeof rows / sizeof *rows };
