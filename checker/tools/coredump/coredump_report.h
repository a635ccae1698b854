/* --coredump internals: the warps worth reporting, grouped by PC, each PC resolved to kernel + offset and an
 * inline chain. Flow: read/coredump (tables) → coredump_stops (which warps, grouped) → coredump_where (image,
 * symbol) → coredump_lines (line chain, --binary, source text) → coredump_text / coredump_json. */
#ifndef TLCK_COREDUMP_REPORT_H
#define TLCK_COREDUMP_REPORT_H
#include <stdint.h>
#include <stdio.h>
#include "options.h"
#include "read/coredump.h"
#include "report/json_write.h"

struct cd_frame {
    char *file;               /* as the line table names it (directory joined) */
    uint32_t line, column;
    char *function;           /* demangled where possible; NULL when the line table names none */
    char *source;             /* the source line's text when --source-dir (or the recorded path) reaches it */
};

/* One PC, resolved. */
struct cd_where {
    uint64_t pc;
    int found;                               /* the PC lies in a code section of a device image in the core */
    size_t ctx_row, module_row, image_shndx;
    const struct tlck_cd_module *module;
    char *mangled, *name;                    /* function symbol (name demangled), or the .text.X suffix */
    char *section;                           /* ".text.<mangled>" */
    uint64_t offset;                         /* pc - function start */
    uint64_t code_size;                      /* the size of that .text section: --binary matches by it */
    uint64_t line_bias;                      /* 1 for a return address: its line is the call's, just before */
    unsigned sm;                             /* from the device row, e.g. 90 */
    struct cd_frame *frames; size_t nframes; /* innermost first */
    char *line_origin;                       /* "core" or the --binary artifact the lines came from; NULL: none */
    char *line_note;                         /* why there are no lines, when nframes == 0 */
};

/* One warp (or the lanes of one warp) at a PC. */
struct cd_member {
    uint32_t dev, sm_id, cta, warp_id, warp_row;
    uint32_t block[3];
    uint32_t lanes, active;                  /* masks: lanes at this PC; which of those the warp has active */
    uint32_t first_thread[3], last_thread[3];
    uint32_t cbu_state;                      /* of the first lane (all lanes of a group normally agree) */
    uint32_t call_depth;                     /* of the first lane: > 0 inside non-inlined device calls */
};

/* ERROR_PC, LANE_PC, SM_ERROR_PC: the faulting warps of an exception dump (or every warp of a user-triggered one);
 * TRAP: the lanes of a warp stopped by a trap or breakpoint instruction (the warp row's isWarpBroken, no
 * exception code: cuda-gdb's SIGTRAP); RESIDENT: the other warps resident when an exception or trap stopped the
 * GPU, such as another stream's kernel (JSON names: coredump_json.c). */
enum cd_stop_kind { CD_STOP_ERROR_PC, CD_STOP_LANE_PC, CD_STOP_SM_ERROR_PC, CD_STOP_TRAP, CD_STOP_RESIDENT };

/* A caller the dump does not hold, implied by the image's call instructions (coredump_infer.c). */
struct cd_inferred {
    struct cd_where where;                   /* the caller at its CALL instruction; lines: the call site's */
    unsigned depth;                          /* 1 for the first frame past the shown stack; candidates share one */
    unsigned candidate, ncandidates;         /* one of several call sites that can have made the call */
    int indirect;                            /* a call through a register (function pointer, virtual call):
                                                its target is not in the code, so it is a candidate only */
    int recursion;                           /* the caller is already on the chain: repeats an unknown number
                                                of times */
};

struct cd_stop {
    enum cd_stop_kind kind;
    uint32_t dev;
    uint64_t pc, grid_id;
    uint32_t exception;
    const struct tlck_cd_grid *grid;
    struct cd_member *members; size_t nmembers, cap_members;
    struct cd_where where;
    /* Callers when the lanes are inside non-inlined calls (.cudbg.bt of the group's first lane). */
    const struct tlck_cd_bt *callers; size_t ncallers;
    size_t ncallers_dump;                    /* the rows the dump holds: more than ncallers past CD_MAX_CALLERS */
    struct cd_where *caller_where;           /* ncallers entries, resolved like `where` */
    size_t ntrusted;                         /* callers shown: those before the first the dump cannot support */
    char *stack_end;                         /* why the shown stack ends before ncallers, or NULL */
    char *trap_insn;                         /* TRAP: the instruction just before the PC when it is a BPT (the
                                                PC is the one after the trap, as cuda-gdb shows), or NULL */
    uint64_t trap_pc;
    /* Where the shown stack ends outside a kernel: the callers implied by the image's call graph. */
    struct cd_inferred *inferred; size_t ninferred;
    char *inferred_note;                     /* why that chain stops short of a kernel (or is empty), or NULL */
};

struct cd_report {
    const char *path;
    struct tlck_core *core;
    int on_exception;          /* 1: exception (or trap) dump: the faulting warps first, then the other resident
                                  warps; 0: user-triggered (every warp, grouped by PC) */
    size_t ntrapped;           /* warps stopped at a trap or breakpoint (isWarpBroken) */
    size_t nwarps_total;       /* resident warps in the dump */
    struct cd_stop *stops; size_t nstops, cap_stops;
    size_t *index; size_t index_n;  /* open-addressing table of stop numbers + 1 (a full GPU has ~10^4 warps) */
};

/* Line lookups decode the image's line program once per distinct PC; past this many PCs the rest get kernel +
 * offset only (a hostile core can list millions of distinct PCs). */
#define CD_MAX_LINE_LOOKUPS 512
/* Callers shown per stop: a device stack is bounded by its size (cudaLimitStackSize), a corrupt row count is
 * not. 4096 frames of 16 bytes fill a 64 KiB stack; past the bound the stack end says how many were left. */
#define CD_MAX_CALLERS 4096
/* Inferred frames per stop: each is a guess from the code, a long list of guesses helps nobody. */
#define CD_MAX_INFERRED 64

/* coredump_stops.c */
int cd_collect_stops(struct cd_report *r, tl_error *err);
void cd_report_free(struct cd_report *r);
void cd_where_free(struct cd_where *w);

/* coredump_where.c: image + symbol + offset for every stop (images opened once, cached in the context). */
struct cd_images;
struct cd_images *cd_images_new(const struct tlck_core *c);
void cd_images_free(struct cd_images *im);
const tl_elf *cd_image_elf(struct cd_images *im, const struct tlck_cd_module *m);
void cd_resolve_where(struct cd_images *im, const struct tlck_core *c, const struct cd_stop *s, uint64_t pc,
                      struct cd_where *w);
char *cd_demangle(const char *mangled);      /* malloc'ed; a copy of the input when it is not a C++ name */

/* coredump_infer.c: the call graph of each image (functions, and calls decoded from the SASS, read/sass_calls.h),
 * decoded once per image and kept in `graphs` (free it before the images: it points into them), and the callers
 * it implies for a stop whose shown stack ends outside a kernel. */
struct cd_graphs;
struct cd_graphs *cd_graphs_new(void);
void cd_graphs_free(struct cd_graphs *gs);
void cd_infer_callers(struct cd_images *im, struct cd_graphs *gs, const struct tlck_core *c, struct cd_stop *s);

/* coredump_trap.c: the trap or breakpoint instruction just before pc in the image of w (w resolved), as
 * "BPT.TRAP"; NULL when the instruction there is not one (or the image is unreadable). */
char *cd_trap_insn(struct cd_images *im, const struct cd_where *w, uint64_t pc);

/* coredump_lines.c: the inline chain from the image in the core, else from --binary artifacts. */
void cd_resolve_lines(struct cd_images *im, const struct tlck_options *o, struct cd_where *w);
void cd_frames_free(struct cd_where *w);
/* The lines of from (frames, origin, note) copied into to: a recursion's callers share one return address. */
void cd_lines_copy(struct cd_where *to, const struct cd_where *from);

/* coredump_chain.c: the seam to the shared cubin line lookup (read/cubin_lines.h on read/line_program.h).
 * By pc for a core's relocated image (pc != 0), else by mangled function + offset (an on-disk cubin). Fills
 * w->frames (innermost first); returns 0, 1 when the line table has no row there, -1 with err otherwise. */
int cd_chain_lookup(const unsigned char *cubin, size_t n, const char *name, const char *function,
                    uint64_t offset, uint64_t pc, struct cd_where *w, tl_error *err);

/* Emitters. JSON: one element of the "cores" array the writer has open. */
int cd_emit_text(FILE *out, const struct cd_report *r, const struct tlck_options *o);
int cd_emit_json(struct tlck_jw *w, const struct cd_report *r, const struct tlck_options *o);


/* Several cores: the inputs (files, and directories holding CUDA cores, in name order) and one line of
 * state per core, grouped (coredump_many.c). */
struct cd_cores {
    char **v;
    size_t n, cap;
};
int cd_cores_expand(struct cd_cores *c, const char *const *paths, size_t n); /* -1: something named was bad */
void cd_cores_free(struct cd_cores *c);
struct cd_summary {
    int ok;                       /* read: the rest is set */
    char *path, *device, *state;  /* state: the exception, or running for a user-triggered dump */
    char *kernel, *line;          /* where the first stop's warps stand: function, innermost file:line */
    size_t warps;
    size_t group;                 /* cores in the same state share a group */
    int odd;                      /* shown in detail: outside the largest group (or the only group's first) */
};
void cd_summarize(const struct cd_report *r, struct cd_summary *s);
void cd_summary_free(struct cd_summary *s);
void cd_emit_summary_text(FILE *out, struct cd_summary *s, size_t n);
void cd_emit_summary_json(struct tlck_jw *w, struct cd_summary *s, size_t n);

#endif
