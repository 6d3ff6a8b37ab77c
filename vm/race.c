/*
 * race.c - the race checker: happens-before between the units of one
 * cube, by vector clocks (docs/debugging.md "Race checking").
 *
 * Every unit u of the cube has a clock C[u] of one entry per unit:
 * C[u][v] is the last step of unit v that u has synchronised with, and
 * C[u][u] its own step, which grows at each synchronisation (how the
 * clocks are kept compactly is at struct cvm_vm_race). An access is
 * recorded as (unit, its own step then, pc, kind); an earlier access a
 * happens before unit u's present one when a.unit == u or a.step <=
 * C[u][a.unit]. The edges are the ones docs/isa.md lists:
 *
 *   - a barrier (sync_cube, bar.sync, bar.arrive): arriving units join
 *     their clocks into the barrier's, waiting units take it when it
 *     completes. Units that exited let it complete but order nothing:
 *     their accesses are not ordered before what follows the barrier
 *     (CUDA's __syncthreads orders the accesses of the threads that
 *     reach it);
 *   - a plane op with a member mask: its members join their clocks;
 *   - an atomic access (atom.*, ld/st.atomic; ld/st.volatile are relaxed
 *     ones) with release order, or a relaxed one after a release fence of
 *     the unit, stores the unit's clock at its location; one with acquire
 *     order takes the location's clock, and a relaxed one keeps it until
 *     the unit's next acquire fence.
 *
 * Per byte the checker keeps the last write and up to RC_KEPT other
 * accesses a later one may race with: the reads since that write, and
 * atomic writes it does not happen after (two atomics never race, so an
 * atomic write does not stand for the ones before it); an access that
 * happens before a later one of its kind is dropped for it (covered).
 * A write that leaves the byte as it was is no write (an idempotent flag
 * store is not reported), and two atomic
 * accesses (atomics, ld/st.atomic, volatile) never race, but for two
 * volatile ones by lanes of one plane (volatile orders nothing between
 * lanes, whatever warp-synchronous code assumed). Only shared and
 * global memory are checked (local memory is private, constant memory
 * read-only), and global accesses only between units of one cube: cubes
 * run apart, and what orders them (atomics across the launch) is not
 * tracked. Release fences release the unit's clock at the later store
 * (accesses between the fence and the store count as released too), and
 * scopes are not told apart: both can only hide a race, never invent one.
 */
#include "race.h"

/* As in interp_run.c: let -O2 vectorize the clock loops (joins of whole
 * clocks) although their trip count is only known at run time. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
#endif

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Access kinds (interp.h's CVM_VM_MK_*), in the order of their names; K_LDV and later are atomic. */
enum { K_LD = CVM_VM_MK_LD, K_ST, K_LDV, K_STV, K_LDA, K_STA, K_ATOM };

#define RC_KEPT 4

/* One access: 12 bytes (units < 65536: CVM_VM_RACE_MAX_UNITS is far below). */
typedef struct rc_access {
    uint32_t step, pc; /* the unit's own clock entry then; the instruction */
    uint16_t unit;
    uint8_t kind, pad;
} rc_access;

typedef struct rc_cell {
    uint64_t key;      /* space bit and address of the byte */
    uint32_t gen;      /* the cube it belongs to; a cell of an older one is free */
    uint32_t wstep;    /* the checker's step count at the write (same-instruction stores) */
    uint8_t has_write, wval, nkept, pad;
    rc_access w;       /* the last write */
    rc_access kept[RC_KEPT]; /* reads since it, and atomic writes it did not order */
} rc_cell;

/* The most cells a checker's table holds (at 80 bytes each, 1.25 GiB): a
 * cube touching more bytes than its three quarters is refused (CVM_LIMIT). */
#define RC_MAX_CELLS ((size_t)1 << 24)

/* Barrier-release snapshots kept; a unit lazy on one about to be reused gets its own row. */
#define RC_SNAPS 4

/* A location some atomic released a clock at: its clock is at sync_vc + index * cap_units. */
typedef struct rc_sync {
    uint64_t key;
    uint32_t gen, index;
} rc_sync;

struct cvm_vm_race {
    cvm_alloc_fn alloc;
    void *alloc_user;
    uint32_t cap_units; /* what the fixed blocks are sized for */
    uint32_t n;         /* units of the present cube */
    unsigned W;         /* its plane width */
    uint32_t gen;       /* the present cube's generation (cells and syncs) */
    uint32_t step;      /* cvm_vm_race_step calls (same-instruction stores) */
    /* Clocks. A unit's clock is mostly the one a barrier release gave it
     * (every unit leaving it got the same), so it is kept as that
     * snapshot's id (lazy), with the entries for the lanes of its plane a
     * plane op raised (delta) and its own entry (own); only a clock that
     * took something else (an acquire, a plane op of units with different
     * pasts) gets a row of its own in vc. A barrier then costs a join per
     * distinct snapshot and a few entries per unit, not units x units. */
    uint32_t *vc;       /* n x n: the rows of units with lazy[u] == 0 (entry u unused) */
    uint32_t *own;      /* n: each unit's own entry */
    uint32_t *lazy;     /* n: the snapshot id a unit's clock is, or 0 (its vc row) */
    uint32_t *delta;    /* n x 64: a lazy unit's entries for its plane's lanes (with has_delta) */
    uint8_t *has_delta; /* n */
    uint32_t *snap;     /* RC_SNAPS x n: the clocks of the last releases, by id % RC_SNAPS */
    uint32_t snap_id[RC_SNAPS]; /* the id in each slot (0: none) */
    uint32_t last_snap; /* the last id handed out */
    uint32_t bar_snap[17];   /* the snapshot this completion of a barrier gives its leavers */
    uint32_t bar_joined[17]; /* the snapshot last joined whole into a barrier's clock */
    uint32_t *tmp;      /* n: a plane op's joined clock */
    /* CUBEVM_RACE_SELFCHECK=1 (tests/test_checkers_corpus.sh): every clock
     * kept whole as well (ev, n x n; ebar, 17 x n) and compared with the
     * kept form after each step of a plane and each barrier leave; a
     * difference is an internal fault naming the unit and entry. */
    uint32_t *ev, *ebar;
    char bad[160];      /* the first difference found at a leave, reported at the next step */
    uint32_t *pend;     /* n x n: acquired by relaxed atomics, waiting for an acquire fence */
    uint8_t *fenced;    /* n: the unit executed a release fence */
    uint8_t *pending;   /* n: its pend row is not all zero */
    uint32_t *bar;      /* 17 x n barrier clocks */
    rc_cell *cells;
    size_t cap_cells, ncells;
    rc_sync *syncs;
    size_t cap_syncs, nsyncs;
    uint32_t *sync_vc;
    size_t cap_sync_vc; /* clocks the block holds */
};

static void *get(cvm_vm_race *r, void *p, size_t old, size_t size)
{
    return (r->alloc ? r->alloc : cvm_default_alloc)(r->alloc_user, p, old, size);
}

static size_t sq(uint32_t n) { return (size_t)n * n * sizeof(uint32_t); }

uint64_t cvm_vm_race_bytes(uint32_t units)
{
    return sizeof(cvm_vm_race) + 2 * (uint64_t)sq(units) +
           (uint64_t)units * (3 + (17 + RC_SNAPS + 3 + 64) * 4);
}

cvm_vm_race *cvm_vm_race_new(cvm_alloc_fn fn, void *user, uint32_t units)
{
    cvm_vm_race *r = (fn ? fn : cvm_default_alloc)(user, NULL, 0, sizeof *r);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->alloc = fn;
    r->alloc_user = user;
    r->cap_units = units;
    r->vc = get(r, NULL, 0, sq(units));
    r->pend = get(r, NULL, 0, sq(units));
    r->fenced = get(r, NULL, 0, units);
    r->pending = get(r, NULL, 0, units);
    r->bar = get(r, NULL, 0, (size_t)17 * units * sizeof(uint32_t));
    r->own = get(r, NULL, 0, (size_t)units * sizeof(uint32_t));
    r->lazy = get(r, NULL, 0, (size_t)units * sizeof(uint32_t));
    r->delta = get(r, NULL, 0, (size_t)units * 64 * sizeof(uint32_t));
    r->has_delta = get(r, NULL, 0, units);
    r->snap = get(r, NULL, 0, (size_t)RC_SNAPS * units * sizeof(uint32_t));
    r->tmp = get(r, NULL, 0, (size_t)units * sizeof(uint32_t));
    const char *sc = getenv("CUBEVM_RACE_SELFCHECK");
    if (sc && *sc && strcmp(sc, "0") != 0) {
        r->ev = get(r, NULL, 0, sq(units));
        r->ebar = get(r, NULL, 0, (size_t)17 * units * sizeof(uint32_t));
        if (!r->ev || !r->ebar) {
            cvm_vm_race_free(r);
            return NULL;
        }
    }
    if (!r->vc || !r->pend || !r->fenced || !r->pending || !r->bar || !r->own || !r->lazy ||
        !r->delta || !r->has_delta || !r->snap || !r->tmp) {
        cvm_vm_race_free(r);
        return NULL;
    }
    memset(r->pend, 0, sq(units));
    memset(r->pending, 0, units);
    return r;
}

void cvm_vm_race_free(cvm_vm_race *r)
{
    if (!r)
        return;
    const uint32_t u = r->cap_units;
    if (r->vc)
        get(r, r->vc, sq(u), 0);
    if (r->pend)
        get(r, r->pend, sq(u), 0);
    if (r->fenced)
        get(r, r->fenced, u, 0);
    if (r->pending)
        get(r, r->pending, u, 0);
    if (r->bar)
        get(r, r->bar, (size_t)17 * u * sizeof(uint32_t), 0);
    if (r->own)
        get(r, r->own, (size_t)u * sizeof(uint32_t), 0);
    if (r->lazy)
        get(r, r->lazy, (size_t)u * sizeof(uint32_t), 0);
    if (r->delta)
        get(r, r->delta, (size_t)u * 64 * sizeof(uint32_t), 0);
    if (r->has_delta)
        get(r, r->has_delta, u, 0);
    if (r->snap)
        get(r, r->snap, (size_t)RC_SNAPS * u * sizeof(uint32_t), 0);
    if (r->tmp)
        get(r, r->tmp, (size_t)u * sizeof(uint32_t), 0);
    if (r->ev)
        get(r, r->ev, sq(u), 0);
    if (r->ebar)
        get(r, r->ebar, (size_t)17 * u * sizeof(uint32_t), 0);
    if (r->cells)
        get(r, r->cells, r->cap_cells * sizeof *r->cells, 0);
    if (r->syncs)
        get(r, r->syncs, r->cap_syncs * sizeof *r->syncs, 0);
    if (r->sync_vc)
        get(r, r->sync_vc, r->cap_sync_vc * r->cap_units * sizeof(uint32_t), 0);
    get(r, r, sizeof *r, 0);
}


/* The cells and syncs of older cubes are free: gen 0 never names a cube. */
static void new_generation(cvm_vm_race *r)
{
    if (++r->gen == 0) {
        if (r->cells)
            memset(r->cells, 0, r->cap_cells * sizeof *r->cells);
        if (r->syncs)
            memset(r->syncs, 0, r->cap_syncs * sizeof *r->syncs);
        r->gen = 1;
    }
    r->ncells = r->nsyncs = 0;
}

void cvm_vm_race_cube(cvm_vm_exec *x)
{
    cvm_vm_race *r = x->race;
    for (uint32_t u = 0; u < r->n; u++) /* the rows the last cube used */
        if (r->pending[u]) {
            memset(r->pend + (size_t)u * r->n, 0, (size_t)r->n * sizeof(uint32_t));
            r->pending[u] = 0;
        }
    const uint32_t n = x->units;
    r->n = n;
    r->W = x->W;
    new_generation(r);
    /* every unit starts at snapshot 1, all zero, with its own entry 1 */
    memset(r->snap_id, 0, sizeof r->snap_id);
    r->last_snap = 1;
    r->snap_id[1 % RC_SNAPS] = 1;
    memset(r->snap + (size_t)(1 % RC_SNAPS) * n, 0, (size_t)n * sizeof(uint32_t));
    for (uint32_t u = 0; u < n; u++) {
        r->own[u] = 1;
        r->lazy[u] = 1;
    }
    memset(r->has_delta, 0, n);
    memset(r->fenced, 0, n);
    memset(r->bar, 0, (size_t)17 * n * sizeof(uint32_t));
    memset(r->bar_snap, 0, sizeof r->bar_snap);
    memset(r->bar_joined, 0, sizeof r->bar_joined);
    if (r->ev) {
        memset(r->ev, 0, sq(n));
        for (uint32_t u = 0; u < n; u++)
            r->ev[(size_t)u * n + u] = 1;
        memset(r->ebar, 0, (size_t)17 * n * sizeof(uint32_t));
        r->bad[0] = 0;
    }
}

/* ---- clocks ---- */

static void join(uint32_t *restrict to, const uint32_t *restrict from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        to[i] = to[i] > from[i] ? to[i] : from[i];
}

static inline uint32_t max32(uint32_t a, uint32_t b) { return a > b ? a : b; }

static inline const uint32_t *snap_of(const cvm_vm_race *r, uint32_t id)
{
    return r->snap + (size_t)(id % RC_SNAPS) * r->n;
}

/* The first unit of u's plane, and u's delta entries (one per lane of it). */
static inline uint32_t plane_base(const cvm_vm_race *r, uint32_t u) { return u - u % r->W; }
static inline uint32_t *delta_of(cvm_vm_race *r, uint32_t u) { return r->delta + (size_t)u * 64; }

/* Entry v of unit u's clock. */
static inline uint32_t clock_at(cvm_vm_race *r, uint32_t u, uint32_t v)
{
    if (v == u)
        return r->own[u];
    if (!r->lazy[u])
        return r->vc[(size_t)u * r->n + v];
    uint32_t c = snap_of(r, r->lazy[u])[v];
    if (r->has_delta[u] && plane_base(r, v) == plane_base(r, u))
        c = max32(c, delta_of(r, u)[v % r->W]);
    return c;
}

/* Unit u's clock as a row of its own (entry u aside: own[u] holds it). */
static uint32_t *row_of(cvm_vm_race *r, uint32_t u)
{
    uint32_t *row = r->vc + (size_t)u * r->n;
    if (r->lazy[u]) {
        memcpy(row, snap_of(r, r->lazy[u]), (size_t)r->n * sizeof(uint32_t));
        if (r->has_delta[u]) {
            const uint32_t b = plane_base(r, u), *d = delta_of(r, u);
            for (uint32_t i = 0; i < r->W && b + i < r->n; i++)
                row[b + i] = max32(row[b + i], d[i]);
        }
        r->lazy[u] = 0;
        r->has_delta[u] = 0;
    }
    return row;
}

/* to = to joined with unit u's clock; `whole`: the snapshot id already
 * joined into `to` (its n entries skipped), updated. */
static void join_clock(cvm_vm_race *r, uint32_t *to, uint32_t u, uint32_t *whole)
{
    if (!r->lazy[u]) {
        join(to, r->vc + (size_t)u * r->n, r->n);
    } else {
        if (!whole || *whole != r->lazy[u]) {
            join(to, snap_of(r, r->lazy[u]), r->n);
            if (whole)
                *whole = r->lazy[u];
        }
        if (r->has_delta[u]) {
            const uint32_t b = plane_base(r, u), *d = delta_of(r, u);
            for (uint32_t i = 0; i < r->W && b + i < r->n; i++)
                to[b + i] = max32(to[b + i], d[i]);
        }
    }
    to[u] = max32(to[u], r->own[u]);
}

/* A snapshot of clock c for the units leaving a barrier; the units lazy on
 * the slot it takes get rows of their own first. */
static uint32_t new_snapshot(cvm_vm_race *r, const uint32_t *c)
{
    const uint32_t id = ++r->last_snap, slot = id % RC_SNAPS, old = r->snap_id[slot];
    if (old)
        for (uint32_t u = 0; u < r->n; u++)
            if (r->lazy[u] == old)
                row_of(r, u);
    memcpy(r->snap + (size_t)slot * r->n, c, (size_t)r->n * sizeof(uint32_t));
    r->snap_id[slot] = id;
    return id;
}

static inline bool before(cvm_vm_race *r, const rc_access *a, uint32_t u)
{
    return a->unit == u || a->step <= clock_at(r, u, a->unit);
}

/* ---- the self-check's whole clocks (r->ev, only with CUBEVM_RACE_SELFCHECK) ---- */

static inline uint32_t *ev_of(cvm_vm_race *r, uint32_t u) { return r->ev + (size_t)u * r->n; }

/* Compares the kept clocks of the units in `lanes` of the plane whose first
 * unit is `base` with the whole ones; the first difference goes to r->bad. */
static void self_check(cvm_vm_race *r, uint32_t base, uint64_t lanes)
{
    for (; lanes && !r->bad[0]; lanes &= lanes - 1) {
        const uint32_t u = base + (uint32_t)__builtin_ctzll(lanes);
        for (uint32_t v = 0; v < r->n; v++)
            if (clock_at(r, u, v) != ev_of(r, u)[v]) {
                snprintf(r->bad, sizeof r->bad, "race check self-check: unit %u's clock entry for "
                         "unit %u is %u, the whole clock's %u", u, v, clock_at(r, u, v),
                         ev_of(r, u)[v]);
                return;
            }
    }
}

/* Plain, volatile or atomic (ld/st.atomic, atom.*). */
static inline unsigned kind_class(unsigned kind) { return kind < K_LDV ? 0 : kind < K_LDA ? 1 : 2; }

/* Accesses of kinds k1 and k2 never race: both are atomic, except two
 * volatile ones by lanes of one plane (volatile orders nothing between
 * lanes: warp-synchronous code without __syncwarp is what this finds). */
static inline bool exempt(unsigned k1, unsigned k2, bool same_plane)
{
    const unsigned c1 = kind_class(k1), c2 = kind_class(k2);
    return c1 && c2 && !(same_plane && c1 == 1 && c2 == 1);
}

/* The earlier access a conflicts with unit u's present one of kind `kind`. */
static inline bool conflicts(cvm_vm_race *r, const rc_access *a, uint32_t u, unsigned kind, unsigned W)
{
    return !exempt(a->kind, kind, a->unit / W == u / W) && !before(r, a, u);
}

/* ---- hash tables (open addressing; entries of older cubes are free) ---- */

static inline size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

/* Table entries (rc_cell, rc_sync) start with their key and generation. */
_Static_assert(offsetof(rc_cell, key) == 0 && offsetof(rc_cell, gen) == 8, "rc_cell header");
_Static_assert(offsetof(rc_sync, key) == 0 && offsetof(rc_sync, gen) == 8, "rc_sync header");

static inline uint64_t key_at(const uint8_t *e)
{
    uint64_t k;
    memcpy(&k, e, sizeof k);
    return k;
}

static inline uint32_t gen_at(const uint8_t *e)
{
    uint32_t g;
    memcpy(&g, e + 8, sizeof g);
    return g;
}

/* Doubles the table *tab of *cap entries of `esz` bytes (`first` entries
 * when empty, never past `max`), keeping the present cube's. */
static bool grow_table(cvm_vm_race *r, void **tab, size_t *cap, size_t esz, size_t first, size_t max)
{
    const size_t ncap = *cap ? *cap * 2 : first;
    if (ncap > max)
        return false;
    uint8_t *n = get(r, NULL, 0, ncap * esz);
    if (!n)
        return false;
    memset(n, 0, ncap * esz);
    const uint8_t *old = *tab;
    for (size_t i = 0; i < *cap; i++) {
        const uint8_t *e = old + i * esz;
        if (gen_at(e) != r->gen)
            continue;
        size_t j = slot_of(key_at(e), ncap);
        while (gen_at(n + j * esz) == r->gen)
            j = (j + 1) & (ncap - 1);
        memcpy(n + j * esz, e, esz);
    }
    if (*tab)
        get(r, *tab, *cap * esz, 0);
    *tab = n;
    *cap = ncap;
    return true;
}

static bool grow_cells(cvm_vm_race *r)
{
    void *t = r->cells;
    const bool grown = grow_table(r, &t, &r->cap_cells, sizeof *r->cells, 4096, RC_MAX_CELLS);
    r->cells = t;
    return grown;
}

/* The cell of the byte `key`, made empty if new; NULL when out of memory
 * or past RC_MAX_CELLS (the table is kept at most three quarters full). */
static rc_cell *cell_of(cvm_vm_race *r, uint64_t key)
{
    if (4 * (r->ncells + 1) > 3 * r->cap_cells && !grow_cells(r))
        return NULL;
    for (size_t i = slot_of(key, r->cap_cells);; i = (i + 1) & (r->cap_cells - 1)) {
        rc_cell *c = &r->cells[i];
        if (c->gen != r->gen) {
            memset(c, 0, sizeof *c);
            c->key = key;
            c->gen = r->gen;
            r->ncells++;
            return c;
        }
        if (c->key == key)
            return c;
    }
}

static bool grow_syncs(cvm_vm_race *r)
{
    void *t = r->syncs;
    const bool grown = grow_table(r, &t, &r->cap_syncs, sizeof *r->syncs, 64, SIZE_MAX / 2);
    r->syncs = t;
    return grown;
}

/* The clock released at location `key`: NULL when none was (and !make),
 * or when out of memory (*oom set). A new one is all zero. */
static uint32_t *sync_of(cvm_vm_race *r, uint64_t key, bool make, bool *oom)
{
    if (r->cap_syncs) {
        for (size_t i = slot_of(key, r->cap_syncs);; i = (i + 1) & (r->cap_syncs - 1)) {
            const rc_sync *s = &r->syncs[i];
            if (s->gen != r->gen)
                break;
            if (s->key == key)
                return r->sync_vc + (size_t)s->index * r->cap_units;
        }
    }
    if (!make)
        return NULL;
    if ((2 * (r->nsyncs + 1) > r->cap_syncs && !grow_syncs(r))) {
        *oom = true;
        return NULL;
    }
    if (r->nsyncs == r->cap_sync_vc) {
        size_t cap = r->cap_sync_vc ? r->cap_sync_vc * 2 : 16, row = r->cap_units * sizeof(uint32_t);
        uint32_t *n = get(r, r->sync_vc, r->cap_sync_vc * row, cap * row);
        if (!n) {
            *oom = true;
            return NULL;
        }
        r->sync_vc = n;
        r->cap_sync_vc = cap;
    }
    size_t i = slot_of(key, r->cap_syncs);
    while (r->syncs[i].gen == r->gen)
        i = (i + 1) & (r->cap_syncs - 1);
    r->syncs[i] = (rc_sync){key, r->gen, (uint32_t)r->nsyncs};
    uint32_t *vc = r->sync_vc + r->nsyncs++ * r->cap_units;
    memset(vc, 0, r->n * sizeof(uint32_t));
    return vc;
}

/* ---- reports ---- */

/* "shared offset 8" or "offset 16 of buffer 'out'" for the byte at `key`. */
#define KEY_SHARED (UINT64_C(1) << 63)

static void where_text(const cvm_vm_exec *x, uint64_t key, char *buf, size_t cap)
{
    if (key & KEY_SHARED) {
        snprintf(buf, cap, "shared offset %llu", (unsigned long long)(key & ~KEY_SHARED));
        return;
    }
    const cvm_vm_region *g = cvm_vm_region_below(x->L, key);
    if (g && key - g->base < g->size)
        snprintf(buf, cap, "offset %llu of buffer '%s'", (unsigned long long)(key - g->base),
                 g->name ? g->name : "?");
    else
        snprintf(buf, cap, "global address 0x%llx", (unsigned long long)key);
}

/* Reports a race at byte `b` of this lane's access of `size` bytes at `key`. */
static bool race(cvm_vm_exec *x, cvm_vm_plane *p, uint32_t lane, unsigned kind, unsigned size,
                 uint64_t key, unsigned b, const rc_access *other, bool same)
{
    char at[200], start[200] = "", line[24] = "";
    uint32_t pos[3], ln = 0;
    const char *file = NULL;
    where_text(x, key + b, at, sizeof at);
    if (b) { /* a wide access, racing on a later byte: where it starts too */
        start[0] = ' ';
        start[1] = 'a';
        start[2] = 't';
        start[3] = ' ';
        where_text(x, key, start + 4, sizeof start - 4);
    }
    cvm_vm_unit_pos(x, other->unit, pos);
    if (cvm_bc_debug_line(x->prog->mod, x->kp->index, other->pc, &file, &ln, NULL) && ln)
        snprintf(line, sizeof line, " (line %u)", ln);
    cvm_vm_fault(x, p, lane, CVM_FAULT,
                 "data race on %s: this %s of %u bytes%s and %s %s by unit (%u,%u,%u) %s%u%s are "
                 "not ordered by a barrier, a plane op or an atomic's release and acquire",
                 at, cvm_vm_mem_kind_name((int)kind), size, start,
                 cvm_vm_mem_kind_name(other->kind)[0] == 'a' ? "an" : "a",
                 cvm_vm_mem_kind_name(other->kind),
                 pos[0], pos[1], pos[2],
                 same ? "in the same instruction, pc " : "at pc ", other->pc, line);
    return false;
}

/* ---- accesses ---- */

/* Remembered access e adds nothing once unit u's access of kind `kind` is
 * recorded: e happens before it, and every later access that would race
 * with e races with it too (a later access not ordered after it is not
 * ordered after e). That needs the same class (plain, volatile, atomic),
 * and e a read or the new access a write (a read does not stand for a
 * write: a later read races with the one and not the other); for volatile
 * ones, the same plane (they race only within one). */
static bool covered(cvm_vm_race *r, const rc_access *e, uint32_t u, unsigned kind)
{
    return before(r, e, u) && kind_class(e->kind) == kind_class(kind) &&
           (!cvm_vm_mem_writes(e->kind) || cvm_vm_mem_writes(kind)) &&
           (kind_class(kind) != 1 || e->unit / r->W == u / r->W);
}

/* Drops from c's list the accesses that unit u's present one, of kind
 * `kind`, covers. */
static void drop_covered(cvm_vm_race *r, rc_cell *c, uint32_t u, unsigned kind)
{
    unsigned k = 0;
    for (unsigned i = 0; i < c->nkept; i++)
        if (!covered(r, &c->kept[i], u, kind))
            c->kept[k++] = c->kept[i];
    c->nkept = (uint8_t)k;
}

/* Appends `a` to c's list; a full list drops its oldest (a race only that
 * one would show is missed). */
static void push(rc_cell *c, const rc_access *a)
{
    if (c->nkept == RC_KEPT) {
        memmove(c->kept, c->kept + 1, (RC_KEPT - 1) * sizeof *c->kept);
        c->nkept--;
    }
    c->kept[c->nkept++] = *a;
}

/*
 * Records an access of `size` bytes at `key` by lane l of p (unit u), kind
 * `kind`; `val` (stores) the bytes it writes, `mem` the bytes there now.
 * False after a race fault, out of memory or past the checker's size.
 */
static bool access(cvm_vm_exec *x, cvm_vm_plane *p, uint32_t l, unsigned kind, uint64_t key,
                   unsigned size, const uint8_t *val, const uint8_t *mem)
{
    cvm_vm_race *r = x->race;
    const uint32_t u = p->index * x->W + l;
    const bool write = cvm_vm_mem_writes(kind), global = !(key & KEY_SHARED);
    const rc_access me = {r->own[u], p->pc, (uint16_t)u, (uint8_t)kind, 0};
    for (unsigned b = 0; b < size; b++) {
        rc_cell *c = cell_of(r, key + b);
        if (!c) {
            if (r->cap_cells * 2 > RC_MAX_CELLS)
                cvm_vm_fault(x, p, l, CVM_LIMIT,
                             "the race check records at most %zu bytes of shared and global memory "
                             "per cube, and this cube touches more; check a smaller launch",
                             RC_MAX_CELLS / 4 * 3);
            else
                cvm_vm_fault(x, p, l, CVM_OUT_OF_MEMORY,
                             "out of memory recording accesses for the race check");
            return false;
        }
        if (!write) {
            if (c->has_write && conflicts(r, &c->w, u, kind, x->W))
                return race(x, p, l, kind, size, key, b, &c->w, false);
            for (unsigned i = 0; i < c->nkept; i++)
                if (cvm_vm_mem_writes(c->kept[i].kind) && conflicts(r, &c->kept[i], u, kind, x->W))
                    return race(x, p, l, kind, size, key, b, &c->kept[i], false);
            drop_covered(r, c, u, kind);
            push(c, &me);
            continue;
        }
        if (kind != K_ATOM) {
            /* what the byte holds before this lane writes: an earlier lane of this
             * instruction may have written it (lanes store in lane order); global
             * bytes read as a relaxed atomic (another cube's worker may write them) */
            const uint8_t now = c->has_write && c->wstep == r->step ? c->wval
                                : global ? __atomic_load_n(mem + b, __ATOMIC_RELAXED) : mem[b];
            if (val[b] == now)
                continue; /* leaves the byte as it is: no write */
        }
        if (c->has_write && conflicts(r, &c->w, u, kind, x->W))
            return race(x, p, l, kind, size, key, b, &c->w, c->wstep == r->step);
        for (unsigned i = 0; i < c->nkept; i++)
            if (conflicts(r, &c->kept[i], u, kind, x->W))
                return race(x, p, l, kind, size, key, b, &c->kept[i], false);
        if (kind_class(kind) == 0) {
            c->nkept = 0; /* a plain write that races with nothing is ordered after all of them */
        } else {
            /* an atomic write need not be ordered after the atomic accesses before it:
             * what it does not cover stays, with the write it replaces */
            drop_covered(r, c, u, kind);
            if (c->has_write && !covered(r, &c->w, u, kind))
                push(c, &c->w);
        }
        c->has_write = 1;
        c->w = me;
        c->wstep = r->step;
        c->wval = kind == K_ATOM ? 0 : val[b];
    }
    return true;
}

/* Where lane l's access of `size` bytes through `ptr` (space `space`) is,
 * as a key, and its host bytes; false for an access the checker does not
 * track or that will fault when it runs (the instruction reports that). */
static bool locate(const cvm_vm_exec *x, unsigned space, uint64_t ptr, unsigned size,
                   uint64_t *key, const uint8_t **mem)
{
    if (space == CVM_T_PTR_SHARED) {
        const uint32_t off = (uint32_t)ptr;
        if (off > x->shared_size || x->shared_size - off < size)
            return false;
        *key = KEY_SHARED | off;
        *mem = x->shared + off;
        return true;
    }
    if (space != CVM_T_PTR_GLOBAL)
        return false;
    const uint64_t a = CVM_VM_PTR_ADDR(ptr);
    const cvm_vm_region *g = cvm_vm_region_of(x->L, a, CVM_VM_PTR_TAG(ptr));
    if (!g || a < g->base || a - g->base > g->size || g->size - (a - g->base) < size)
        return false;
    *key = a;
    *mem = (const uint8_t *)(uintptr_t)a;
    return true;
}

static bool is_acquire(unsigned order)
{
    return order == CVM_ORDER_ACQUIRE || order == CVM_ORDER_ACQ_REL || order == CVM_ORDER_SEQ_CST;
}

static bool is_release(unsigned order)
{
    return order == CVM_ORDER_RELEASE || order == CVM_ORDER_ACQ_REL || order == CVM_ORDER_SEQ_CST;
}

/* The synchronisation of unit u's atomic at `key`: reading, it acquires
 * the location's clock (or keeps it for an acquire fence), then writing,
 * it releases its own. False when out of memory. */
static bool atomic_sync(cvm_vm_race *r, uint32_t u, uint64_t key, unsigned order, bool reads,
                        bool writes)
{
    bool oom = false;
    if (reads) {
        const uint32_t *s = sync_of(r, key, false, &oom);
        if (s && is_acquire(order)) {
            join(row_of(r, u), s, r->n);
            if (r->ev)
                join(ev_of(r, u), s, r->n);
        } else if (s) {
            join(r->pend + (size_t)u * r->n, s, r->n);
            r->pending[u] = 1;
        }
    }
    if (writes && (is_release(order) || r->fenced[u])) {
        uint32_t *s = sync_of(r, key, true, &oom);
        if (!s)
            return false;
        join_clock(r, s, u, NULL);
        r->own[u]++;
        if (r->ev)
            ev_of(r, u)[u]++;
    }
    return !oom;
}

static bool memory_op(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in, unsigned kind)
{
    cvm_vm_race *r = x->race;
    const unsigned order = kind >= K_LDA ? in->order : CVM_ORDER_RELAXED;
    const bool load = !cvm_vm_mem_writes((int)kind);
    const unsigned esz = cvm_vm_esz(in->elem), ne = kind == K_ATOM ? 1 : in->line;
    const unsigned size = cvm_vm_mem_size(in, (int)kind);
    if (!size || size > 16 * 8) /* a line: at most 16 elements of 8 bytes */
        return true;
    const uint8_t *ptr = cvm_vm_reg(x, p, in->a);
    const uint8_t *vreg = load || kind == K_ATOM ? NULL : cvm_vm_reg(x, p, in->b);
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        uint64_t key;
        const uint8_t *mem;
        if (!locate(x, in->ea, cvm_vm_get_bits(ptr, in->ea, l), size, &key, &mem))
            continue;
        uint8_t val[16 * 8];
        if (vreg)
            for (unsigned e = 0; e < ne; e++)
                memcpy(val + e * esz, vreg + ((size_t)e << x->rshift) + (size_t)l * esz, esz);
        if (!access(x, p, l, kind, key, size, vreg ? val : NULL, mem))
            return false;
        if (kind >= K_LDV && !atomic_sync(r, p->index * x->W + l, key, order,
                                          cvm_vm_mem_reads((int)kind), !load)) {
            cvm_vm_fault(x, p, l, CVM_OUT_OF_MEMORY, "out of memory recording atomics for the race check");
            return false;
        }
    }
    return true;
}

/* ---- synchronisation ---- */

static void fence(cvm_vm_exec *x, cvm_vm_plane *p, unsigned order)
{
    cvm_vm_race *r = x->race;
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        const uint32_t u = p->index * x->W + l;
        if (is_acquire(order) && r->pending[u]) {
            uint32_t *pend = r->pend + (size_t)u * r->n;
            join(row_of(r, u), pend, r->n);
            if (r->ev)
                join(ev_of(r, u), pend, r->n);
            memset(pend, 0, (size_t)r->n * sizeof(uint32_t));
            r->pending[u] = 0;
        }
        if (is_release(order))
            r->fenced[u] = 1;
    }
}

/* The plane's units that take part in a barrier: its lanes that have not exited. */
static uint64_t barrier_lanes(const cvm_vm_plane *p) { return p->live & ~p->exited; }

static void arrive(cvm_vm_exec *x, cvm_vm_plane *p, unsigned bar)
{
    cvm_vm_race *r = x->race;
    uint32_t *acc = r->bar + (size_t)bar * r->n;
    const uint64_t lanes = barrier_lanes(p);
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(lanes >> l & 1))
            continue;
        const uint32_t u = p->index * x->W + l;
        join_clock(r, acc, u, &r->bar_joined[bar]);
        r->own[u]++;
        if (r->ev) {
            join(r->ebar + (size_t)bar * r->n, ev_of(r, u), r->n);
            ev_of(r, u)[u]++;
        }
    }
}

void cvm_vm_race_leave(cvm_vm_exec *x, const cvm_vm_plane *q, unsigned bar)
{
    cvm_vm_race *r = x->race;
    /* the unit's clock is below the barrier's but for its own entry,
     * raised when it arrived (nothing runs for a unit between its arrival
     * and its leaving): the join is the barrier's clock, one snapshot for
     * every unit leaving this completion, with that entry */
    if (!r->bar_snap[bar])
        r->bar_snap[bar] = new_snapshot(r, r->bar + (size_t)bar * r->n);
    const uint64_t lanes = barrier_lanes(q);
    for (unsigned l = 0; l < q->nlanes; l++) {
        if (!(lanes >> l & 1))
            continue;
        const uint32_t u = q->index * x->W + l;
        r->lazy[u] = r->bar_snap[bar];
        r->has_delta[u] = 0;
        if (r->ev)
            join(ev_of(r, u), r->ebar + (size_t)bar * r->n, r->n);
    }
    if (r->ev)
        self_check(r, q->index * x->W, lanes);
}

void cvm_vm_race_released(cvm_vm_exec *x, unsigned bar)
{
    cvm_vm_race *r = x->race;
    memset(r->bar + (size_t)bar * r->n, 0, (size_t)r->n * sizeof(uint32_t));
    r->bar_snap[bar] = 0;
    r->bar_joined[bar] = 0;
    if (r->ev)
        memset(r->ebar + (size_t)bar * r->n, 0, (size_t)r->n * sizeof(uint32_t));
}

/* The members (a mask of lanes) of the plane whose first unit is `base`
 * join their clocks, then each steps its own entry. Members lazy on one
 * snapshot stay so, their plane entries joined in their deltas; else each
 * gets a row of its own. */
static void join_members(cvm_vm_race *r, uint32_t base, uint64_t members)
{
    if (r->ev) { /* the whole clocks: join, then each steps its own entry */
        uint32_t *j = ev_of(r, base + (uint32_t)__builtin_ctzll(members));
        for (uint64_t m = members; m; m &= m - 1)
            join(j, ev_of(r, base + (uint32_t)__builtin_ctzll(m)), r->n);
        for (uint64_t m = members; m; m &= m - 1) {
            const uint32_t u = base + (uint32_t)__builtin_ctzll(m);
            if (ev_of(r, u) != j)
                memcpy(ev_of(r, u), j, (size_t)r->n * sizeof(uint32_t));
        }
        for (uint64_t m = members; m; m &= m - 1) {
            const uint32_t u = base + (uint32_t)__builtin_ctzll(m);
            ev_of(r, u)[u]++;
        }
    }
    uint32_t id = 0;
    bool same = true;
    for (uint64_t m = members; m && same; m &= m - 1) {
        const uint32_t u = base + (uint32_t)__builtin_ctzll(m);
        same = r->lazy[u] && (!id || r->lazy[u] == id);
        id = r->lazy[u];
    }
    if (same) {
        uint32_t d[64] = {0};
        for (uint64_t m = members; m; m &= m - 1) {
            const uint32_t l = (uint32_t)__builtin_ctzll(m), u = base + l;
            if (r->has_delta[u])
                for (uint32_t i = 0; i < r->W; i++)
                    d[i] = max32(d[i], delta_of(r, u)[i]);
            d[l] = max32(d[l], r->own[u]);
        }
        for (uint64_t m = members; m; m &= m - 1) {
            const uint32_t u = base + (uint32_t)__builtin_ctzll(m);
            memcpy(delta_of(r, u), d, r->W * sizeof(uint32_t));
            r->has_delta[u] = 1;
            r->own[u]++;
        }
        return;
    }
    memset(r->tmp, 0, (size_t)r->n * sizeof(uint32_t));
    for (uint64_t m = members; m; m &= m - 1)
        join_clock(r, r->tmp, base + (uint32_t)__builtin_ctzll(m), NULL);
    for (uint64_t m = members; m; m &= m - 1) {
        const uint32_t u = base + (uint32_t)__builtin_ctzll(m);
        uint32_t *row = r->vc + (size_t)u * r->n;
        memcpy(row, r->tmp, (size_t)r->n * sizeof(uint32_t));
        r->lazy[u] = 0;
        r->has_delta[u] = 0;
        r->own[u]++;
    }
}

/* Each group of active lanes naming one member mask joins the clocks of its members. */
static void plane_op(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    cvm_vm_race *r = x->race;
    unsigned elem;
    const uint8_t *mreg = cvm_vm_member_reg(x, p, in, &elem);
    uint64_t left = p->active;
    while (left) {
        const unsigned l0 = (unsigned)__builtin_ctzll(left);
        const uint64_t mask = cvm_vm_get_bits(mreg, elem, l0);
        uint64_t group = 0;
        for (unsigned l = l0; l < p->nlanes; l++)
            if ((left >> l & 1) && cvm_vm_get_bits(mreg, elem, l) == mask)
                group |= UINT64_C(1) << l;
        left &= ~group;
        const uint64_t members = (mask | group) & p->active;
        join_members(r, p->index * x->W, members);
    }
}

static bool step(cvm_vm_exec *x, cvm_vm_plane *p);

bool cvm_vm_race_step(cvm_vm_exec *x, cvm_vm_plane *p)
{
    cvm_vm_race *r = x->race;
    if (r->ev) {
        const bool fine = step(x, p);
        self_check(r, p->index * x->W, p->live);
        if (r->bad[0] && fine) {
            cvm_vm_fault(x, p, 0, CVM_INTERNAL, "%s", r->bad);
            return false;
        }
        return fine;
    }
    return step(x, p);
}

/* cvm_vm_race_step without the self-check. */
static bool step(cvm_vm_exec *x, cvm_vm_plane *p)
{
    cvm_vm_race *r = x->race;
    const cvm_vm_dinsn *in = &x->code[p->pc];
    r->step++;
    const int kind = cvm_vm_mem_kind(in->h);
    if (kind != CVM_VM_MK_NONE)
        return memory_op(x, p, in, (unsigned)kind);
    switch (in->h) {
    case CVM_OP_FENCE:
        fence(x, p, in->order);
        return true;
    case CVM_OP_SYNC_CUBE: case CVM_OP_SYNC_CUBE_COUNT: case CVM_OP_SYNC_CUBE_AND:
    case CVM_OP_SYNC_CUBE_OR:
        arrive(x, p, CVM_VM_RACE_SYNC_CUBE);
        return true;
    case CVM_OP_BAR_SYNC: case CVM_OP_BAR_ARRIVE: {
        if (!p->active)
            return true;
        const uint64_t id = cvm_vm_get_bits(cvm_vm_reg(x, p, in->a), in->ea,
                                            (unsigned)__builtin_ctzll(p->active));
        if (id < 16) /* else the instruction faults */
            arrive(x, p, (unsigned)id);
        return true;
    }
    default: {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        if (oi && (oi->flags & CVM_OPF_PLANE))
            plane_op(x, p, in);
        return true;
    }
    }
}
