/* gcc's and clang's options, as trueline-cc reads them (options.h); also the table of a driver it does not
 * know. Sorted by strcmp, each name once (tests/unit/wrapper_options.c checks both). Only what some step reads
 * is listed: the options that take a separate value (so the argument after them is never taken for a source),
 * those with a meaning for the analysis, and those the caches leave out of their key or rewrite.
 * -o=FILE is read as FILE (EQ), as lib/note.c's output operand reads it. Rows marked "read for every family" are
 * another driver's spellings the analysis has always read whatever the family (a driver that rejects them fails
 * the compile either way); they are kept so that the tables change nothing trueline-cc decides. */
#include "understand/options.h"

#include "understand/options_rows.h"

static const tlcc_opt rows[] = {
    { "-###", DRY },
    { "--config", SEP },
    { "--dryrun", DRY }, /* nvcc's spelling, read for every family */
    { "--generate-dependencies", DEPS }, /* nvcc's spelling, read for every family */
    { "--generate-nonsystem-dependencies", DEPS }, /* nvcc's spelling, read for every family */
    { "--help", QUERY },
    { "--output-file", EQ | OUT }, /* nvcc's spelling, read for every family */
    { "--param", SEP },
    { "--preprocess", PRE },
    { "--print-", PREFIX | QUERY },
    { "--sysroot", EQ | PATH },
    { "--version", QUERY },
    { "-A", SEP | JOINED },
    { "-B", SEP | JOINED | PATH },
    { "-D", SEP | JOINED | PP },
    { "-E", PRE },
    { "-I", SEP | JOINED | PATH | PP },
    { "-L", SEP | JOINED | KEY },
    { "-M", DEPS },
    { "-MD", DEPSC | KEY },
    { "-MF", SEP | JOINED | KEY },
    { "-MM", DEPS },
    { "-MMD", DEPSC | KEY },
    { "-MP", KEY },
    { "-MQ", SEP | JOINED | KEY },
    { "-MT", SEP | JOINED | KEY },
    { "-T", SEP | JOINED },
    { "-U", SEP | JOINED | PP },
    { "-V", QUERY }, /* nvcc's spelling, read for every family */
    { "-Wl,", JOINED | KEY },
    { "-Wp,-MD,", JOINED | KEY | LONE },
    { "-Wp,-MMD,", JOINED | KEY | LONE },
    { "-Xassembler", SEP },
    { "-Xclang", SEP },
    { "-Xlinker", SEP },
    { "-Xopenmp-target", SEP },
    { "-Xpreprocessor", SEP | PP },
    { "-arch", SEP },
    { "-aux-info", SEP },
    { "-c", COMPILE },
    { "-dryrun", DRY }, /* nvcc's spelling, read for every family */
    { "-dump", PREFIX | QUERY },
    { "-dumpbase", SEP },
    { "-dumpdir", SEP },
    { "-fdebug-prefix-map=", JOINED | KEY },
    { "-ffile-prefix-map=", JOINED | KEY },
    { "-fmacro-prefix-map=", JOINED | KEY },
    { "-g", DON },
    { "-g0", DOFF },
    { "-g1", DON },
    { "-g2", DON },
    { "-g3", DON },
    { "-gcodeview", PREFIX | DON },
    { "-gdwarf", PREFIX | DON },
    { "-gfull", PREFIX | DON },
    { "-ggdb", PREFIX | DON },
    { "-ggdb0", DOFF },
    { "-gline-", PREFIX | DON },
    { "-gstabs", PREFIX | DON },
    { "-gused", PREFIX | DON },
    { "-gvms", PREFIX | DON },
    { "-gxcoff", PREFIX | DON },
    { "-h", QUERY }, /* nvcc's spelling, read for every family */
    { "-idirafter", SEP | JOINED | PATH | PP },
    { "-iframework", JOINED | PATH | PP },
    { "-imacros", SEP | JOINED | PATH | PP },
    { "-imultilib", SEP | JOINED | PATH | PP },
    { "-include", SEP | JOINED | PATH | PP },
    { "-iprefix", SEP | JOINED | PATH | PP },
    { "-iquote", SEP | JOINED | PATH | PP },
    { "-isysroot", SEP | JOINED | PATH | PP },
    { "-isystem", SEP | JOINED | PATH | PP },
    { "-ivfsoverlay", SEP },
    { "-iwithprefix", SEP | JOINED | PATH | PP },
    { "-iwithprefixbefore", SEP | JOINED | PATH | PP },
    { "-l", SEP | JOINED },
    { "-main-file-name", SEP },
    { "-mllvm", SEP },
    { "-nostdinc", PP },
    { "-nostdinc++", PP },
    { "-o", SEP | JOINED | EQ | OUT },
    { "-print-", PREFIX | QUERY },
    { "-target", SEP },
    { "-trigraphs", PP },
    { "-u", SEP },
    { "-working-directory", SEP },
    { "-x", SEP | JOINED | LANG },
    { "-z", SEP },
};

const tlcc_opt_table tlcc_opts_gnu = { "gnu", rows, sizeof rows / sizeof *rows };
