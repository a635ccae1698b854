/* The stamping stage (stage.c): what ccache/sccache run as "the compiler", so that the object they store
 * already carries its record. */
#ifndef TLCC_WRAPPER_STAGE_H
#define TLCC_WRAPPER_STAGE_H
#include <stddef.h>

#include "env_snapshot.h"
#include "trueline/diag.h"
#include "trueline/note.h"

struct tlcc_ctx;

#define TLCC_STAGE_ENV_REAL "TRUELINE_STAGE_REAL"
#define TLCC_STAGE_ENV_NOTE "TRUELINE_STAGE_NOTE"
#define TLCC_STAGE_ENV_ARGV_MAX "TRUELINE_STAGE_ARGV_MAX"
#define TLCC_STAGE_ENV_KEY_FILE "TRUELINE_STAGE_KEY_FILE" /* the key file's path (never the key itself) */

/* argv[0] lies in a stage directory and the stage environment is present. */
int tlcc_stage_is_stage(const struct tlcc_ctx *ctx, const char *argv0);
/* Runs the real compiler, then stamps the object it wrote; returns the exit status. */
int tlcc_stage_main(struct tlcc_ctx *ctx, int argc, char **argv);
/* The path of the stage entry for (this trueline-cc at self, the real compiler):
 * $XDG_CACHE_HOME/trueline/stage/<id>/<the compiler's name>. Computed only: nothing is created. NULL with
 * err when it cannot be had (no XDG_CACHE_HOME or HOME, no self). */
char *tlcc_stage_link_path(const tlcc_env_snapshot *env, const char *self, const char *real_compiler, tl_error *err);
/* Makes link a symbolic link to self unless it is one already; -1 with err when it cannot be made. */
int tlcc_stage_ensure(const char *link, const char *self, tl_error *err);
/* Hex of an encoded record, for TLCC_STAGE_ENV_NOTE (malloc'ed). */
char *tlcc_stage_note_env(const tl_note *n, size_t argv_max, tl_error *err);

#endif
