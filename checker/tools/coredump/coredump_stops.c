/* Which warps a coredump report shows, grouped by PC.
 *
 * An exception dump shows the faulting warps first: the warp's errorPC (the faulting instruction, what
 * cuda-gdb's $errorpc is) and where its lanes stand now (they may have run on a few instructions). A warp
 * stopped by a trap or breakpoint instruction (__trap(), asm("trap;"), asm("brkpt;")) has no exception code
 * and no errorPC, only its row's isWarpBroken: cuda-gdb reports SIGTRAP, and so does this, at the lanes' PC.
 * Then, in such a dump, every other resident warp, grouped by kernel and PC: another stream's kernel spinning
 * while this one faulted is often the story. A dump with no exception anywhere is user-triggered (a hang):
 * every resident warp is shown, grouped by PC, since the spinning warps are the point. A diverged warp contributes one group per distinct lane PC (cuda-gdb
 * shows lane 0 only, which can be an inactive lane parked at a barrier: see docs/coredump.md). */
#include <stdlib.h>
#include <string.h>

#include "tools/coredump/coredump_report.h"

static int lane_valid(const struct tlck_cd_warp *w, const struct tlck_cd_lane *l)
{
    if (l->ln >= 32)
        return 0;
    return w->valid_mask == 0 || (w->valid_mask >> l->ln & 1u);
}

static int warp_faulted(const struct tlck_cd_warp *w)
{
    if (w->error_pc_valid)
        return 1;
    for (size_t i = 0; i < w->nlanes; i++)
        if (lane_valid(w, &w->lanes[i]) && w->lanes[i].exception)
            return 1;
    return 0;
}

/* Same callers: the return sites of two lanes' backtrace rows agree level by level. */
static int same_calls(const struct tlck_cd_bt *a, size_t na, const struct tlck_cd_bt *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a[i].return_va != b[i].return_va)
            return 0;
    return 1;
}

/* Table slots, not content hashes (lib/hash.c's XXH3-128 is for those): a multiply-xorshift mix of the few key
 * fields spreads PCs that differ only in low bits. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t stop_hash(enum cd_stop_kind kind, uint32_t dev, uint64_t pc, uint64_t grid_id, uint32_t exception,
                          const struct tlck_cd_bt *bt, size_t nbt)
{
    uint64_t h = mix(mix(mix(mix((uint64_t)kind, dev), pc), grid_id), exception);
    for (size_t i = 0; i < nbt; i++)
        h = mix(h, bt[i].return_va);
    return h;
}

static int index_insert(struct cd_report *r, size_t stop)
{
    if (2 * (r->nstops + 1) > r->index_n) {
        size_t n = r->index_n ? 2 * r->index_n : 64;
        size_t *t = calloc(n, sizeof *t);
        if (!t)
            return -1;
        free(r->index);
        r->index = t;
        r->index_n = n;
        for (size_t i = 0; i < r->nstops; i++)
            if (i != stop && index_insert(r, i) != 0)
                return -1;
    }
    const struct cd_stop *s = &r->stops[stop];
    size_t k = stop_hash(s->kind, s->dev, s->pc, s->grid_id, s->exception, s->callers, s->ncallers) & (r->index_n - 1);
    while (r->index[k])
        k = (k + 1) & (r->index_n - 1);
    r->index[k] = stop + 1;
    return 0;
}

static struct cd_stop *stop_for_calls(struct cd_report *r, enum cd_stop_kind kind, uint32_t dev, uint64_t pc,
                                      uint64_t grid_id, uint32_t exception, const struct tlck_cd_bt *bt, size_t nbt);

static struct cd_stop *new_stop(struct cd_report *r, enum cd_stop_kind kind, uint32_t dev, uint64_t pc,
                                uint64_t grid_id, uint32_t exception, const struct tlck_cd_bt *bt, size_t nbt)
{
    if (r->nstops == r->cap_stops) {
        size_t cap = r->cap_stops ? 2 * r->cap_stops : 16;
        struct cd_stop *p = realloc(r->stops, cap * sizeof *p);
        if (!p)
            return NULL;
        r->stops = p;
        r->cap_stops = cap;
    }
    struct cd_where *cw = nbt ? calloc(nbt, sizeof *cw) : NULL;
    if (nbt && !cw)
        return NULL;
    struct cd_stop *s = &r->stops[r->nstops];
    *s = (struct cd_stop){ .kind = kind, .dev = dev, .pc = pc, .grid_id = grid_id, .exception = exception,
                           .grid = tlck_core_grid(&r->core->devices[dev], grid_id), .callers = bt, .ncallers = nbt,
                           .caller_where = cw };
    if (index_insert(r, r->nstops) != 0) {
        free(cw);
        return NULL;
    }
    r->nstops++;
    return s;
}

static struct cd_stop *stop_for(struct cd_report *r, enum cd_stop_kind kind, uint32_t dev, uint64_t pc,
                                uint64_t grid_id, uint32_t exception, const struct tlck_cd_lane *calls)
{
    const struct tlck_cd_bt *bt = calls ? calls->bt : NULL;
    size_t nbt = calls ? calls->nbt : 0, ndump = nbt;
    if (nbt > CD_MAX_CALLERS)
        nbt = CD_MAX_CALLERS;
    struct cd_stop *s = stop_for_calls(r, kind, dev, pc, grid_id, exception, bt, nbt);
    if (s && ndump > s->ncallers_dump)
        s->ncallers_dump = ndump;
    return s;
}

static struct cd_stop *stop_for_calls(struct cd_report *r, enum cd_stop_kind kind, uint32_t dev, uint64_t pc,
                                      uint64_t grid_id, uint32_t exception, const struct tlck_cd_bt *bt, size_t nbt)
{
    if (r->index_n) {
        size_t k = stop_hash(kind, dev, pc, grid_id, exception, bt, nbt) & (r->index_n - 1);
        for (; r->index[k]; k = (k + 1) & (r->index_n - 1)) {
            struct cd_stop *s = &r->stops[r->index[k] - 1];
            if (s->kind == kind && s->dev == dev && s->pc == pc && s->grid_id == grid_id &&
                s->exception == exception && same_calls(s->callers, s->ncallers, bt, nbt))
                return s;
        }
    }
    return new_stop(r, kind, dev, pc, grid_id, exception, bt, nbt);
}

static int add_member(struct cd_stop *s, const struct cd_member *m)
{
    if (!s)
        return -1;
    if (s->nmembers == s->cap_members) {
        size_t cap = s->cap_members ? 2 * s->cap_members : 4;
        struct cd_member *p = realloc(s->members, cap * sizeof *p);
        if (!p)
            return -1;
        s->members = p;
        s->cap_members = cap;
    }
    s->members[s->nmembers++] = *m;
    return 0;
}

static struct cd_member member_of(uint32_t dev, const struct tlck_cd_sm *sm, const struct tlck_cd_cta *cta,
                                  const struct tlck_cd_warp *w, uint32_t warp_row)
{
    struct cd_member m = { .dev = dev, .sm_id = sm->sm_id, .cta = cta->row, .warp_id = w->warp_id,
                           .warp_row = warp_row };
    memcpy(m.block, cta->block, sizeof m.block);
    return m;
}

static void add_lane(struct cd_member *m, const struct tlck_cd_warp *w, const struct tlck_cd_lane *l)
{
    if (!m->lanes) {
        memcpy(m->first_thread, l->thread, sizeof m->first_thread);
        m->cbu_state = l->cbu_state;
        m->call_depth = l->call_depth;
    }
    memcpy(m->last_thread, l->thread, sizeof m->last_thread);
    m->lanes |= 1u << l->ln;
    m->active = m->lanes & w->active_mask;
}

/* One stop of the given kind per distinct (lane PC, lane exception) of the warp. */
static int add_lane_groups(struct cd_report *r, enum cd_stop_kind kind, uint32_t dev, const struct tlck_cd_sm *sm,
                           const struct tlck_cd_cta *cta, const struct tlck_cd_warp *w, uint32_t warp_row)
{
    uint32_t done = 0;
    for (size_t i = 0; i < w->nlanes; i++) {
        const struct tlck_cd_lane *l = &w->lanes[i];
        if (!lane_valid(w, l) || (done >> l->ln & 1u))
            continue;
        struct cd_member m = member_of(dev, sm, cta, w, warp_row);
        for (size_t j = i; j < w->nlanes; j++) {
            const struct tlck_cd_lane *k = &w->lanes[j];
            if (lane_valid(w, k) && !(done >> k->ln & 1u) && k->virtual_pc == l->virtual_pc &&
                k->exception == l->exception && same_calls(k->bt, k->nbt, l->bt, l->nbt)) {
                add_lane(&m, w, k);
                done |= 1u << k->ln;
            }
        }
        if (add_member(stop_for(r, kind, dev, l->virtual_pc, cta->grid_id, l->exception, l), &m) != 0)
            return -1;
    }
    return 0;
}

/* The exception of a faulting warp: the first valid lane's, else the SM's (cuda-gdb's order). */
static uint32_t warp_exception(const struct tlck_cd_sm *sm, const struct tlck_cd_warp *w)
{
    for (size_t i = 0; i < w->nlanes; i++)
        if (lane_valid(w, &w->lanes[i]) && w->lanes[i].exception)
            return w->lanes[i].exception;
    return sm->exception;
}

static int add_error_pc(struct cd_report *r, uint32_t dev, const struct tlck_cd_sm *sm, const struct tlck_cd_cta *cta,
                        const struct tlck_cd_warp *w, uint32_t warp_row)
{
    uint32_t exc = warp_exception(sm, w);
    struct cd_member m = member_of(dev, sm, cta, w, warp_row);
    const struct tlck_cd_lane *first = NULL;
    for (size_t i = 0; i < w->nlanes; i++)
        if (lane_valid(w, &w->lanes[i]) && (w->lanes[i].exception == exc || !w->lanes[i].exception)) {
            add_lane(&m, w, &w->lanes[i]);
            first = first ? first : &w->lanes[i];
        }
    return add_member(stop_for(r, CD_STOP_ERROR_PC, dev, w->error_pc, cta->grid_id, exc, first), &m);
}

/* Pass 0: the warps that stopped the GPU (faulted or trapped; every warp of a user-triggered dump). Pass 1 (an
 * exception or trap dump only): the other resident warps, after them. */
static int walk_sm(struct cd_report *r, uint32_t dev, const struct tlck_cd_sm *sm, int pass)
{
    int faulted = 0;
    for (size_t c = 0; c < sm->nctas; c++) {
        const struct tlck_cd_cta *cta = &sm->ctas[c];
        for (size_t k = 0; k < cta->nwarps; k++) {
            const struct tlck_cd_warp *w = &cta->warps[k];
            int f = warp_faulted(w);
            faulted |= f;
            if (pass == 1) {
                if (!f && !w->broken && add_lane_groups(r, CD_STOP_RESIDENT, dev, sm, cta, w, (uint32_t)k) != 0)
                    return -1;
                continue;
            }
            r->nwarps_total++;
            r->ntrapped += !f && w->broken;
            if (r->on_exception && !f && !w->broken)
                continue;
            if (f && w->error_pc_valid && add_error_pc(r, dev, sm, cta, w, (uint32_t)k) != 0)
                return -1;
            enum cd_stop_kind kind = !f && w->broken ? CD_STOP_TRAP : CD_STOP_LANE_PC;
            if (add_lane_groups(r, kind, dev, sm, cta, w, (uint32_t)k) != 0)
                return -1;
        }
    }
    /* The SM keeps an exception whose warps have all exited (cudacoredump.h, r555+). */
    if (pass == 0 && r->on_exception && !faulted && sm->exception && sm->error_pc_valid) {
        struct cd_member m = { .dev = dev, .sm_id = sm->sm_id, .warp_id = UINT32_MAX };
        uint64_t grid = sm->nctas ? sm->ctas[0].grid_id : 0;
        if (add_member(stop_for(r, CD_STOP_SM_ERROR_PC, dev, sm->error_pc, grid, sm->exception, NULL), &m) != 0)
            return -1;
    }
    return 0;
}

static int any_exception(const struct tlck_core *c)
{
    for (size_t d = 0; d < c->ndevices; d++)
        for (size_t s = 0; s < c->devices[d].nsms; s++) {
            const struct tlck_cd_sm *sm = &c->devices[d].sms[s];
            if (sm->exception)
                return 1;
            for (size_t k = 0; k < sm->nctas; k++)
                for (size_t w = 0; w < sm->ctas[k].nwarps; w++)
                    if (warp_faulted(&sm->ctas[k].warps[w]) || sm->ctas[k].warps[w].broken)
                        return 1;
        }
    return 0;
}

/* The other resident warps by kernel: grid, then the first warp's place (the walk's order within a kernel). */
static int by_kernel(const void *a, const void *b)
{
    const struct cd_stop *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->grid_id != y->grid_id)
        return x->grid_id < y->grid_id ? -1 : 1;
    const struct cd_member *m = &x->members[0], *n = &y->members[0];
    uint32_t u[4] = { m->sm_id, m->cta, m->warp_row, m->lanes & -m->lanes };
    uint32_t v[4] = { n->sm_id, n->cta, n->warp_row, n->lanes & -n->lanes };
    for (int i = 0; i < 4; i++)
        if (u[i] != v[i])
            return u[i] < v[i] ? -1 : 1;
    return 0;
}

int cd_collect_stops(struct cd_report *r, tl_error *err)
{
    r->on_exception = any_exception(r->core);
    for (int pass = 0; pass < 1 + r->on_exception; pass++)
        for (size_t d = 0; d < r->core->ndevices; d++)
            for (size_t s = 0; s < r->core->devices[d].nsms; s++)
                if (walk_sm(r, (uint32_t)d, &r->core->devices[d].sms[s], pass) != 0)
                    return tl_fail(err, "out of memory grouping warps");
    size_t first = 0;
    while (first < r->nstops && r->stops[first].kind != CD_STOP_RESIDENT)
        first++;
    if (r->nstops - first > 1) /* r->stops is NULL when no warp stopped: no arithmetic on it */
        qsort(r->stops + first, r->nstops - first, sizeof *r->stops, by_kernel);
    free(r->index); /* stop numbers moved; the index was only for grouping */
    r->index = NULL;
    r->index_n = 0;
    return 0;
}

void cd_where_free(struct cd_where *w)
{
    cd_frames_free(w);
    free(w->mangled);
    free(w->name);
    free(w->section);
    free(w->line_origin);
    free(w->line_note);
}

void cd_report_free(struct cd_report *r)
{
    for (size_t i = 0; i < r->nstops; i++) {
        cd_where_free(&r->stops[i].where);
        for (size_t k = 0; k < r->stops[i].ncallers; k++)
            cd_where_free(&r->stops[i].caller_where[k]);
        free(r->stops[i].caller_where);
        for (size_t k = 0; k < r->stops[i].ninferred; k++)
            cd_where_free(&r->stops[i].inferred[k].where);
        free(r->stops[i].inferred);
        free(r->stops[i].inferred_note);
        free(r->stops[i].stack_end);
        free(r->stops[i].trap_insn);
        free(r->stops[i].members);
    }
    free(r->stops);
    free(r->index);
    r->stops = NULL;
    r->index = NULL;
    r->nstops = r->cap_stops = r->index_n = 0;
}
