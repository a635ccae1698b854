/* CUDA GPU coredump reader: the .cudbg.* tables of an ET_CORE/EM_CUDA ELF turned into a device tree.
 *
 * Layouts: NVIDIA's public cudacoredump.h / cuda-gdb libcudacore and LLDB's nvgpu-core plugin, verified on
 * four driver-580 cores (docs/coredump.md). The tree is walked by sh_link (parent table) and sh_info (row in
 * the parent), never by section name or file order: all relocated images of a context share one name, and
 * the names carry row indexes, not hardware ids. Row sizes come from sh_entsize; fields a driver appended
 * later read as 0 when the row is shorter, rows shorter than the baseline layout are rejected as corrupt. */
#ifndef TLCK_READ_COREDUMP_H
#define TLCK_READ_COREDUMP_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/elf_file.h"

/* sh_type = SHT_LOUSER + n (cudacoredump.h CUDBGCoredumpSectionType). */
enum tlck_cd_sec {
    TLCK_CD_GLOBAL_MANAGED = 1, TLCK_CD_GLOBAL = 2, TLCK_CD_LOCAL = 3, TLCK_CD_SHARED = 4, TLCK_CD_REGS = 5,
    TLCK_CD_ELFIMG = 6, TLCK_CD_RELFIMG = 7, TLCK_CD_BT = 8, TLCK_CD_DEVTBL = 9, TLCK_CD_CTXTBL = 10, TLCK_CD_SMTBL = 11,
    TLCK_CD_GRIDTBL = 12, TLCK_CD_CTATBL = 13, TLCK_CD_WPTBL = 14, TLCK_CD_LNTBL = 15, TLCK_CD_MODTBL = 16,
    TLCK_CD_PRED = 17, TLCK_CD_PARAM = 18, TLCK_CD_UREGS = 19, TLCK_CD_UPRED = 20, TLCK_CD_CBANKS = 21, TLCK_CD_META = 22,
    TLCK_CD_CBU_BAR = 23, TLCK_CD_NTYPES
};

/* A backtrace row (.cudbg.bt, one per call level of a lane inside non-inlined calls). Layout and meaning from
 * cudacoredump.h only: no study core has one (docs/coredump.md). */
struct tlck_cd_bt {
    uint64_t return_offset;   /* return address, from the start of the caller function */
    uint64_t return_va;       /* the return site's virtual address */
    uint32_t level;
};

struct tlck_cd_lane {
    uint64_t virtual_pc, phys_pc;
    uint32_t ln, thread[3];
    uint32_t exception;       /* CUDBGException_t, 0 = none */
    uint32_t call_depth;
    uint32_t cbu_state;       /* r575+: 1 ready, 9+n blocked on barrier Bn, ... (0 when absent) */
    size_t nbt;
    struct tlck_cd_bt *bt;      /* sorted by level, innermost caller first */
};

struct tlck_cd_warp {
    uint64_t error_pc;
    uint32_t warp_id, valid_mask, active_mask, broken, error_pc_valid, num_regs;
    size_t nlanes;
    struct tlck_cd_lane *lanes;  /* lane rows, index = row = lane number in practice */
};

struct tlck_cd_cta {
    uint64_t grid_id;
    uint32_t block[3];
    uint32_t row;              /* the CTA-table row: what section names and cuda-gdb call "cta N" */
    size_t nwarps;
    struct tlck_cd_warp *warps;
};

struct tlck_cd_sm {
    uint32_t sm_id;
    uint32_t exception, error_pc_valid;   /* r555+: survives the faulting warp's exit */
    uint64_t error_pc;
    size_t nctas;
    struct tlck_cd_cta *ctas;
};

struct tlck_cd_grid {
    uint64_t grid_id, context_id, function, function_entry, module_handle;
    uint32_t kernel_type, origin, status, num_regs;
    uint32_t grid_dim[3], block_dim[3];
};

struct tlck_cd_module {
    uint64_t handle;
    size_t shndx;              /* the .cudbg.relfimg (or .elfimg) section, 0 when the core has no image */
    const unsigned char *image; size_t image_n;
    int relocated;             /* 1: relfimg (device VAs applied), 0: elfimg */
};

struct tlck_cd_context {
    uint64_t context_id;
    uint32_t tid;
    size_t nmodules;
    struct tlck_cd_module *modules;
};

struct tlck_cd_device {
    const char *name, *type, *sm_type;    /* from .strtab; "" when absent */
    uint32_t dev_id, num_sms, num_warps, num_lanes, sm_major, sm_minor, insn_size;
    size_t ncontexts, ngrids, nsms;
    struct tlck_cd_context *contexts;
    struct tlck_cd_grid *grids;
    struct tlck_cd_sm *sms;
};

struct tlck_cd_meta {
    int present;
    const char *generator;
    uint32_t driver_major, driver_minor, cuda_major, cuda_minor, flags, timestamp;
};

struct tlck_core {
    tl_elf elf;
    struct tlck_cd_meta meta;
    size_t ndevices;
    struct tlck_cd_device *devices;
    void *arena;               /* private allocations */
};

/* Opens and parses a core. On failure returns -1 with err saying what is wrong (the caller names the file);
 * tlck_core_close is safe after a failed open. */
int tlck_core_open(struct tlck_core *c, const char *path, tl_error *err);
void tlck_core_close(struct tlck_core *c);

/* The module (and its context) whose handle a grid names; NULL when the core lists no such module. */
const struct tlck_cd_module *tlck_core_grid_module(const struct tlck_cd_device *d, const struct tlck_cd_grid *g);
const struct tlck_cd_grid *tlck_core_grid(const struct tlck_cd_device *d, uint64_t grid_id);

/* cuda-gdb's wording for a CUDBGException_t value ("Warp Illegal Address"); never NULL. */
const char *tlck_cd_exception_name(uint32_t code);

#endif
