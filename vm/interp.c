/*
 * interp.c - runs the cubes of a launch: the per-worker execution state,
 * the shared run record workers take cube batches from, the per-cube plane
 * scheduler, fault records and reports.
 *
 * A worker's state (register files, construct stacks, shared and local
 * memory, print text) is grown between launches by cvm_vm_state_reserve
 * and reused; while cubes run nothing is allocated except print text.
 * Workers take contiguous batches of cubes from an atomic counter in
 * increasing linear order. Inside a cube the planes run round robin between
 * scheduling points (sync_cube, named barriers, back-edge quanta, exit), so
 * spin-waits between planes complete. A faulting cube lowers the run's
 * fault bound: cubes above it are no longer started, cubes below it still
 * run, so the reported fault (lowest cube, then lowest unit) is the one a
 * single worker would report, whatever the number of workers.
 */
#include "interp.h"
#include "isa.h"
#include "init.h"
#include "jit.h"
#include "race.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Spare slots after each plane's registers: a line operand of an unverified
 * module that overruns its register still reads and writes inside the file. */
#define CVM_VM_PAD_SLOTS 16u

/* Slots from one plane's registers to the next's: the plane's slots and
 * the spare ones, made odd. With slots of 256 bytes, an odd count puts one
 * register of 8 planes in 8 different sets of a first-level cache whose
 * way is 4 KiB; a multiple of 8 puts all 8 in one or two (pool5, 40
 * slots + 16: 8.0M first-level read misses against 5.3M made odd, in
 * callgrind's model of this machine's caches). */
static uint32_t plane_slots(const cvm_vm_exec *x)
{
    return (x->nslots + CVM_VM_PAD_SLOTS) | 1u;
}

/* Register bytes one cube may hold before a launch is refused (CVM_LIMIT). */
#define CVM_VM_MAX_CUBE_BYTES ((uint64_t)1 << 31)

double cvm_vm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cvm_vm_unit_pos(const cvm_vm_exec *x, uint32_t unit, uint32_t out[3])
{
    const uint32_t *b = x->L->block;
    out[0] = unit % b[0];
    out[1] = (unit / b[0]) % b[1];
    out[2] = unit / (b[0] * b[1]);
}

void cvm_vm_fault(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t lane, cvm_status st,
                  const char *fmt, ...)
{
    cvm_vm_faultrec *f = &x->fault;
    uint32_t unit = p->index * x->W + lane;
    f->count++;
    x->stopping = true;
    if (f->has && unit >= f->unit && st == CVM_FAULT)
        return;
    f->has = true;
    f->status = st;
    f->unit = unit;
    f->plane = p->index;
    f->lane = lane;
    f->pc = p->pc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    va_end(ap);
}

bool cvm_vm_timed_out(cvm_vm_exec *x, const cvm_vm_plane *p)
{
    double t = cvm_vm_now() - x->t0;
    if (t <= x->L->timeout_s)
        return false;
    uint32_t lane = 0;
    while (lane < 63 && !(p->active >> lane & 1))
        lane++;
    const uint64_t cubes = (uint64_t)x->L->grid[0] * x->L->grid[1] * x->L->grid[2];
    if (cubes > x->workers) /* a cube spinning on one that has not started never ends */
        cvm_vm_fault(x, p, p->active ? lane : 0, CVM_TIMEOUT,
                     "timeout after %.3g s (%llu cubes, run %u at a time here: either the launch is "
                     "longer than the timeout, or a cube waits for one not yet started, which never ends)",
                     t, (unsigned long long)cubes, x->workers);
    else
        cvm_vm_fault(x, p, p->active ? lane : 0, CVM_TIMEOUT, "timeout after %.3g s", t);
    return true;
}

/* ---- sync_cube ---- */

/* Releases sync_cube when every plane is waiting there or finished. */
static bool release_sync(cvm_vm_exec *x)
{
    uint32_t waiting = 0, count = 0, lanes = 0;
    bool plain = true; /* every plane waits at a plain sync_cube: no count, no lanes */
    /* (the bounds and the code in locals: the stores of the second pass
     * might alias them, and a softmax releases 19 barriers a row) */
    cvm_vm_plane *const first = x->planes, *const end = first + x->nplanes;
    const cvm_vm_dinsn *const code = x->code;
    /* from the last plane: the scheduler asks after each plane that stops,
     * and while planes after it have yet to run the first look says no */
    for (const cvm_vm_plane *q = end; q-- > first;) {
        if (q->state == CVM_VM_AT_SYNC) {
            waiting++;
            plain &= code[q->wait_pc].h == CVM_OP_SYNC_CUBE;
        } else if (q->state != CVM_VM_DONE) {
            return false;
        }
    }
    if (!waiting)
        return false;
    if (plain && !x->race) { /* the common case in one more pass */
        for (cvm_vm_plane *q = first; q < end; q++)
            if (q->state == CVM_VM_AT_SYNC) {
                q->state = CVM_VM_RUNNABLE;
                q->pc = q->wait_pc + 1;
            }
        return true;
    }
    for (uint32_t i = 0; i < x->nplanes && !plain; i++) {
        const cvm_vm_plane *q = &x->planes[i];
        if (q->state != CVM_VM_AT_SYNC)
            continue;
        const cvm_vm_dinsn *in = &x->code[q->wait_pc];
        if (in->h != CVM_OP_SYNC_CUBE) {
            const uint8_t *pred = cvm_vm_reg(x, q, in->a);
            for (unsigned l = 0; l < q->nlanes; l++)
                count += (q->active >> l & 1) && (pred[l] & 1);
        }
    }
    for (uint32_t i = 0; i < x->nplanes && !plain; i++)
        if (x->planes[i].state == CVM_VM_AT_SYNC)
            lanes += (uint32_t)__builtin_popcountll(x->planes[i].active);
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        if (q->state != CVM_VM_AT_SYNC)
            continue;
        const cvm_vm_dinsn *in = &x->code[q->wait_pc];
        uint64_t v = in->h == CVM_OP_SYNC_CUBE_COUNT ? count
                   : in->h == CVM_OP_SYNC_CUBE_AND   ? count == lanes
                                                     : count != 0;
        if (in->h != CVM_OP_SYNC_CUBE) {
            uint8_t *d = cvm_vm_reg(x, q, in->d);
            unsigned elem = in->h == CVM_OP_SYNC_CUBE_COUNT ? CVM_T_U32 : CVM_T_BOOL;
            for (unsigned l = 0; l < q->nlanes; l++)
                if (q->active >> l & 1)
                    cvm_vm_set_bits(d, elem, l, v);
        }
        q->state = CVM_VM_RUNNABLE;
        q->pc = q->wait_pc + 1;
        if (x->race)
            cvm_vm_race_leave(x, q, CVM_VM_RACE_SYNC_CUBE);
    }
    if (x->race)
        cvm_vm_race_released(x, CVM_VM_RACE_SYNC_CUBE);
    return true;
}

/* Every unfinished plane is blocked and no barrier can complete. */
static void deadlock(cvm_vm_exec *x)
{
    char msg[300];
    size_t n = (size_t)snprintf(msg, sizeof msg, "deadlock:");
    const cvm_vm_plane *first = NULL;
    for (uint32_t i = 0; i < x->nplanes && n < sizeof msg; i++) {
        const cvm_vm_plane *q = &x->planes[i];
        const char *sep = i ? "," : "";
        if (q->state == CVM_VM_AT_SYNC)
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%s plane %u waits at sync_cube (pc %u)",
                                  sep, i, q->wait_pc);
        else if (q->state == CVM_VM_AT_BAR)
            n += (size_t)snprintf(msg + n, sizeof msg - n,
                                  "%s plane %u waits at named barrier %u (pc %u, %u of %u units arrived)",
                                  sep, i, q->bar, q->wait_pc, x->bar_arrived[q->bar],
                                  x->bar_expected[q->bar]);
        else
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%s plane %u has finished", sep, i);
        if (!first && q->state != CVM_VM_DONE)
            first = q;
    }
    if (!first)
        first = &x->planes[0];
    uint32_t lane = 0;
    while (lane < 63 && !(first->active >> lane & 1))
        lane++;
    cvm_vm_plane tmp = *first;
    tmp.pc = first->wait_pc;
    cvm_vm_fault(x, &tmp, lane, CVM_FAULT, "%s", msg);
}

/* xorshift64*: the random schedule's generator (any fixed sequence per seed will do). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t v = *state;
    v ^= v >> 12;
    v ^= v << 25;
    v ^= v >> 27;
    *state = v;
    return v * UINT64_C(2685821657736338717);
}

/* --schedule=random: a fresh plane order for every pass between scheduling points. */
static void shuffle_planes(cvm_vm_exec *x)
{
    for (uint32_t i = 0; i < x->nplanes; i++)
        x->order[i] = i;
    for (uint32_t i = x->nplanes; i > 1; i--) {
        uint32_t j = (uint32_t)(next_random(&x->rng) % i);
        uint32_t t = x->order[i - 1];
        x->order[i - 1] = x->order[j];
        x->order[j] = t;
    }
}

/* release_sync, and when it released the planes they are at one point
 * again (cvm_vm_exec.synced). */
bool cvm_vm_release(cvm_vm_exec *x)
{
    if (!release_sync(x))
        return false;
    x->synced = true;
    return true;
}

/* The planes that have not finished are all runnable at one pc (and
 * some are): they can run in lockstep. */
static bool in_step(const cvm_vm_exec *x)
{
    uint32_t pc = 0, n = 0;
    for (uint32_t i = 0; i < x->nplanes; i++) {
        const cvm_vm_plane *q = &x->planes[i];
        if (q->state == CVM_VM_DONE)
            continue;
        if (q->state != CVM_VM_RUNNABLE || (n && q->pc != pc))
            return false;
        pc = q->pc;
        n++;
    }
    return n > 0;
}

/* A fault (or timeout) of plane p, told to the debugger's hook with the
 * plane marked faulted; true when the hook ends the launch. */
static bool hooked_fault(cvm_vm_exec *x, cvm_vm_plane *p)
{
    if (!x->L->hook || !x->fault.has || (x->fault.status != CVM_FAULT && x->fault.status != CVM_TIMEOUT))
        return false;
    const uint32_t state = p->state;
    p->state = CVM_VM_FAULTED;
    if (!x->L->hook(x->L->hook_user, x, p, CVM_VM_HOOK_FAULT)) {
        p->state = state;
        return false;
    }
    if (x->fault.status == CVM_FAULT)
        x->fault.status = CVM_CANCELED; /* ends the run like a timeout */
    return true;
}

/*
 * A plane under the debugger's hook or a checker (races, uninitialized
 * reads): one instruction at a time (the exact code: plan() picks it for
 * such a launch), the hook and the checkers called before each, the hook
 * after a fault too. It runs until it waits, finishes or faults, or until
 * its quantum of back-edges is spent (as cvm_vm_run_plane yields then), so
 * a plane spinning on another one's write lets that one run.
 */
static int run_hooked(cvm_vm_exec *x, cvm_vm_plane *p)
{
    const cvm_vm_launch *L = x->L;
    for (;;) {
        if (L->hook && L->hook(L->hook_user, x, p, CVM_VM_HOOK_STEP)) {
            cvm_vm_fault(x, p, p->active ? (uint32_t)__builtin_ctzll(p->active) : 0,
                         CVM_CANCELED, "the debugger ended the launch");
            return CVM_VM_R_STOP;
        }
        if ((x->race && !cvm_vm_race_step(x, p)) || (x->init && !cvm_vm_init_step(x, p)))
            return hooked_fault(x, p) ? CVM_VM_R_STOP : CVM_VM_R_FAULT;
        const uint32_t quantum = p->quantum;
        x->one_step = true;
        int r = cvm_vm_run_plane(x, p);
        x->one_step = false;
        if (r == CVM_VM_R_FAULT && hooked_fault(x, p))
            return CVM_VM_R_STOP;
        if (r != CVM_VM_R_YIELD || (quantum == 1 && p->quantum == CVM_VM_QUANTUM))
            return r;
    }
}

/* Runs one cube to completion, a fault or a stop. */
static void run_cube(cvm_vm_exec *x)
{
    int passes_after_fault = 0;
    /* a plane may be waiting at a barrier: one has stopped for another
     * reason than finishing or yielding since the last release (only then
     * can a release happen, so a cube without barriers never looks) */
    bool pending = false;
    x->synced = true;
    for (;;) {
        bool ran = false, left = false;
        if (x->order)
            shuffle_planes(x);
        const bool lockstep = x->lockstep && !x->stopping && in_step(x);
        if (lockstep) {
            ran = true;
            cvm_vm_run_lockstep(x);
            if (x->fault.has && x->fault.status != CVM_FAULT)
                return; /* timeout or out of memory: stop now */
            cvm_vm_release(x);
        }
        for (uint32_t k = 0; k < x->nplanes && !lockstep; k++) {
            uint32_t i = x->order ? x->order[k] : k;
            cvm_vm_plane *q = &x->planes[i];
            if (q->state != CVM_VM_RUNNABLE)
                continue;
            ran = true;
            x->synced = false; /* this plane runs alone */
            int r = x->native                          ? x->native(x, q)
                    : x->L->hook || x->race || x->init ? run_hooked(x, q)
                                                       : cvm_vm_run_plane(x, q);
            if (x->chained) { /* the call went on with later planes (chain): r is the last one's */
                q = x->chained;
                k = q->index;
                x->chained = NULL;
                pending |= x->chain_waited; /* planes before it wait at a barrier (others finished) */
            }
            x->chain_waited = false;
            if (r == CVM_VM_R_FAULT || r == CVM_VM_R_STOP) {
                q->state = CVM_VM_FAULTED;
                if (x->fault.status != CVM_FAULT)
                    return; /* timeout or out of memory: stop now */
            }
            pending |= r != CVM_VM_R_DONE && r != CVM_VM_R_YIELD;
            if (pending && cvm_vm_release(x))
                pending = false;
        }
        for (uint32_t i = 0; i < x->nplanes && !left; i++)
            left = x->planes[i].state < CVM_VM_DONE; /* (not done, nor faulted) */
        if (!left)
            return;
        if (x->stopping) {
            /* after a fault, the other planes get one more slice to find a lower unit */
            if (passes_after_fault++ >= 1)
                return;
            continue;
        }
        if (x->L->timeout_s > 0 && cvm_vm_timed_out(x, &x->planes[0]))
            return;
        if (!ran && !cvm_vm_release(x)) {
            deadlock(x);
            if (x->L->hook) /* the debugger stops there (its answer changes nothing now) */
                hooked_fault(x, &x->planes[x->fault.plane]);
            return;
        }
    }
}

/* ---- one worker's state ---- */

/* Capacities of a worker's blocks; a launch needs at most these. */
struct cvm_vm_state {
    cvm_alloc_fn alloc;
    void *alloc_user;
    cvm_vm_exec x;
    size_t cap_planes, cap_stacks, cap_regs, cap_shared, cap_local, cap_order;
    cvm_vm_plane *planes;
    cvm_vm_frame *stacks;
    uint8_t *regs, *shared, *local;
    uint32_t *order;
    struct cvm_vm_race *race;  /* the checkers of the launch asking for them (trimmed after) */
    struct cvm_vm_init *init;
    cvm_jit_region jtab[CVM_JIT_TAB]; /* the native tier's buffer table (jit.h) */
    uint64_t gen;              /* the run this state last joined */
    /* results of that run */
    bool faulted;
    uint64_t fault_cube;       /* linear index of this worker's faulting cube */
    uint32_t fault_pos[3];
    uint32_t faults;           /* faults counted in all its cubes */
    cvm_vm_faultrec fault;
    cvm_vm_text text;          /* print text of its cubes, in the order they ran */
    cvm_vm_seg *segs;          /* where each cube's text starts */
    uint32_t nsegs, cap_segs;
    uint32_t merge_at;         /* cvm_vm_run_finish's cursor into segs */
};

/* The shared record of one launch: workers take cube batches from `next`. */
struct cvm_vm_run {
    const cvm_vm_program *prog;
    const cvm_vm_launch *L;
    cvm_vm_exec tmpl;          /* launch facts every worker copies (no memory) */
    size_t planes, stacks, regs, shared, local, order; /* bytes per worker */
    uint64_t checkers;         /* bytes of a worker's race and uninitialized-read checkers (0: none) */
    uint64_t ncubes, batch;
    uint64_t perm_a, perm_b;   /* random schedule: cube i runs as (a * i + b) % ncubes */
    uint64_t gen;
    uint64_t next;             /* atomic: next cube index to hand out */
    uint64_t fault_cube;       /* atomic: lowest faulting cube so far; UINT64_MAX none */
    int abort;                 /* atomic: a timeout or out-of-memory stops every worker */
    int closed;                /* atomic: no more batches (a fault: every lower cube is
                                  already handed out, as indexes are handed out in order) */
};

static void *get(cvm_alloc_fn fn, void *user, size_t size)
{
    return (fn ? fn : cvm_default_alloc)(user, NULL, 0, size ? size : 1);
}

static void put(cvm_alloc_fn fn, void *user, void *p, size_t size)
{
    if (p)
        (fn ? fn : cvm_default_alloc)(user, p, size ? size : 1, 0);
}

cvm_status cvm_vm_state_new(cvm_alloc_fn fn, void *user, cvm_vm_state **out)
{
    cvm_vm_state *s = get(fn, user, sizeof *s);
    *out = s;
    if (!s)
        return CVM_OUT_OF_MEMORY;
    memset(s, 0, sizeof *s);
    s->alloc = fn;
    s->alloc_user = user;
    return CVM_OK;
}

void cvm_vm_state_free(cvm_vm_state *s)
{
    if (!s)
        return;
    put(s->alloc, s->alloc_user, s->planes, s->cap_planes);
    put(s->alloc, s->alloc_user, s->stacks, s->cap_stacks);
    put(s->alloc, s->alloc_user, s->regs, s->cap_regs);
    put(s->alloc, s->alloc_user, s->shared, s->cap_shared);
    put(s->alloc, s->alloc_user, s->local, s->cap_local);
    put(s->alloc, s->alloc_user, s->order, s->cap_order);
    put(s->alloc, s->alloc_user, s->text.data, s->text.cap);
    put(s->alloc, s->alloc_user, s->segs, (size_t)s->cap_segs * sizeof *s->segs);
    cvm_vm_race_free(s->race);
    cvm_vm_init_free(s->init);
    put(s->alloc, s->alloc_user, s, sizeof *s);
}

/* Replaces *p by a block of `need` bytes when it holds fewer. */
static bool grow(cvm_vm_state *s, void *pp, size_t *cap, size_t need)
{
    void **p = pp;
    if (*p && *cap >= need)
        return true;
    void *n = get(s->alloc, s->alloc_user, need);
    if (!n)
        return false;
    /* once per growth, not per cube: lockstep's lane loops compute the
     * inactive lanes of a partial plane too and keep their old values
     * (interp_lockstep.c LANES_ALL), so every lane of the register file
     * holds some value from the start (a memory checker would otherwise
     * see the never-written ones flow through those loops) */
    memset(n, 0, need);
    put(s->alloc, s->alloc_user, *p, *cap);
    *p = n;
    *cap = need ? need : 1;
    return true;
}

void cvm_vm_state_trim(cvm_vm_state *s)
{
    cvm_vm_race_free(s->race);
    cvm_vm_init_free(s->init);
    s->race = NULL;
    s->init = NULL;
}

/* The checkers the run asks for, made for it (a state holds none between
 * launches: cvm_vm_state_trim). */
static bool make_checkers(cvm_vm_state *s, const cvm_vm_run *run)
{
    cvm_vm_state_trim(s);
    if (run->L->racecheck && !(s->race = cvm_vm_race_new(s->alloc, s->alloc_user, run->tmpl.units)))
        return false;
    return !run->L->initcheck ||
           (s->init = cvm_vm_init_new(s->alloc, s->alloc_user, run->shared, run->local)) != NULL;
}

cvm_status cvm_vm_state_reserve(cvm_vm_state *s, const cvm_vm_run *run, cvm_diag *diag)
{
    if (grow(s, &s->planes, &s->cap_planes, run->planes) &&
        grow(s, &s->stacks, &s->cap_stacks, run->stacks) &&
        grow(s, &s->regs, &s->cap_regs, run->regs) &&
        grow(s, &s->shared, &s->cap_shared, run->shared) &&
        grow(s, &s->local, &s->cap_local, run->local) &&
        grow(s, &s->order, &s->cap_order, run->order) && make_checkers(s, run))
        return CVM_OK;
    return cvm_diag_set(diag, CVM_OUT_OF_MEMORY,
                        "out of memory setting up a worker for kernel '%s' (%zu bytes)",
                        cvm_vm_kernel_name(run->prog, run->tmpl.kp->index),
                        cvm_vm_run_bytes(run));
}

/* ---- print text, per worker and cube ---- */

static bool append(cvm_vm_state *s, cvm_vm_text *t, const char *text, size_t n)
{
    if (!t->data || t->cap - t->len < n + 1) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap - t->len < n + 1)
            cap *= 2;
        char *data = (s->alloc ? s->alloc : cvm_default_alloc)(s->alloc_user, t->data, t->cap, cap);
        if (!data)
            return false;
        t->data = data;
        t->cap = cap;
    }
    if (n) /* text may be NULL when there is nothing to append */
        memcpy(t->data + t->len, text, n);
    t->len += n;
    t->data[t->len] = '\0';
    return true;
}

void cvm_vm_printed(const cvm_vm_exec *x, const char **out_text, size_t *out_len)
{
    *out_text = x->state->text.data;
    *out_len = x->state->text.len;
}

cvm_status cvm_vm_print_text(cvm_vm_exec *x, const char *text, size_t n)
{
    cvm_vm_state *s = x->state;
    if (s->text.len + n > CVM_VM_PRINT_CAP)
        return CVM_LIMIT;
    if (!s->nsegs || s->segs[s->nsegs - 1].cube != x->cube_linear) {
        if (s->nsegs == s->cap_segs) {
            uint32_t cap = s->cap_segs ? s->cap_segs * 2 : 16;
            cvm_vm_seg *n2 = (s->alloc ? s->alloc : cvm_default_alloc)(
                s->alloc_user, s->segs, (size_t)s->cap_segs * sizeof *n2, (size_t)cap * sizeof *n2);
            if (!n2)
                return CVM_OUT_OF_MEMORY;
            s->segs = n2;
            s->cap_segs = cap;
        }
        s->segs[s->nsegs++] = (cvm_vm_seg){x->cube_linear, s->text.len};
    }
    return append(s, &s->text, text, n) ? CVM_OK : CVM_OUT_OF_MEMORY;
}

/* ---- planning a launch ---- */

uint64_t cvm_vm_run_bytes(const cvm_vm_run *run)
{
    return (uint64_t)run->planes + run->stacks + run->regs + run->shared + run->local + run->order +
           run->checkers;
}

static cvm_status plan(cvm_vm_run *run, cvm_diag *diag)
{
    cvm_vm_exec *x = &run->tmpl;
    const cvm_vm_launch *L = run->L;
    const cvm_bc_kernel *k = x->kp->k;
    uint64_t units = (uint64_t)L->block[0] * L->block[1] * L->block[2];
    if (units == 0 || units > (1u << 20))
        return cvm_diag_set(diag, CVM_LIMIT, "cube of %llu units is out of range",
                            (unsigned long long)units);
    x->units = (uint32_t)units;
    x->W = L->plane_width;
    x->nplanes = (x->units + x->W - 1) / x->W;
    unsigned lanes = 8;
    while (lanes < x->W)
        lanes *= 2;
    x->rb = (size_t)lanes * 8;
    x->rshift = 0;
    while (((size_t)1 << x->rshift) < x->rb)
        x->rshift++;
    /* fused code counts a chain as one step: exact code under a step budget */
    const bool checks = L->racecheck || L->initcheck;
    /* the native tier (vm/jit.h) runs the exact code's layout; never under
     * the debugger, a checker or a step budget (they count and watch
     * single instructions) */
    x->native = NULL;
    if (!L->step_budget && !L->hook && !checks) {
        uint64_t total = units;
        for (int i = 0; i < 3; i++)
            total = __builtin_mul_overflow(total, (uint64_t)L->grid[i], &total) ? UINT64_MAX : total;
        x->native = cvm_jit_plan(x->prog, x->kp, x->W, cvm_jit_shape(L->block, x->W), total, L->tier);
    }
    x->chain = x->native && L->schedule != CVM_VM_SCHED_RANDOM; /* passes in index order */
    x->chained = NULL;
    x->chain_waited = false;
    const bool fast = !x->native && !L->step_budget && !L->hook && !checks && x->kp->fast,
               laid_out = fast && x->kp->fast_exact;
    x->code = fast ? x->kp->fast : x->kp->code;
    x->exact = laid_out ? x->kp->fast_exact : x->kp->code;
    x->nslots = laid_out ? x->kp->fast_nslots : x->kp->nslots;
    x->zero = laid_out ? x->kp->fast_zero : x->kp->zero;
    uint64_t regs = (uint64_t)x->nplanes * plane_slots(x) * x->rb;
    uint64_t shared = ((uint64_t)k->shared_bytes + 15) / 16 * 16 + L->dyn_shared;
    uint64_t local = units * k->local_bytes;
    if (regs > CVM_VM_MAX_CUBE_BYTES || shared > CVM_VM_MAX_CUBE_BYTES ||
        local > CVM_VM_MAX_CUBE_BYTES)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "kernel '%s' needs too much memory per cube (%llu register, %llu shared, %llu local bytes)",
                            cvm_vm_kernel_name(x->prog, x->kp->index), (unsigned long long)regs,
                            (unsigned long long)shared, (unsigned long long)local);
    x->dyn_base = (k->shared_bytes + 15u) / 16u * 16u;
    x->shared_size = (uint32_t)shared;
    x->local_bytes = k->local_bytes;
    x->step_limit = L->step_budget ? L->step_budget : UINT64_MAX;
    x->lockstep = x->kp->lockstep && x->W == 32 && x->units % 32 == 0 &&
                  x->nplanes <= CVM_VM_LOCKSTEP_MAX_PLANES &&
                  !L->step_budget && !L->hook && !checks && !x->native &&
                  L->schedule == CVM_VM_SCHED_PARALLEL &&
                  cvm_vm_lockstep_allowed();
    run->planes = sizeof(cvm_vm_plane) * x->nplanes;
    run->stacks = sizeof(cvm_vm_frame) * x->nplanes * x->kp->max_depth;
    run->regs = (size_t)regs;
    run->shared = (size_t)shared;
    run->local = (size_t)local;
    run->order = L->schedule == CVM_VM_SCHED_RANDOM ? sizeof(uint32_t) * x->nplanes : 0;
    if (L->racecheck && x->units > CVM_VM_RACE_MAX_UNITS)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "the race check takes cubes of at most %u units; this launch's have %u",
                            CVM_VM_RACE_MAX_UNITS, x->units);
    run->checkers = (L->racecheck ? cvm_vm_race_bytes(x->units) : 0) +
                    (L->initcheck ? cvm_vm_init_bytes(shared, local) : 0);
    return CVM_OK;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

cvm_status cvm_vm_run_new(const cvm_vm_program *prog, const cvm_vm_launch *L, uint32_t workers,
                          cvm_vm_run **out, cvm_diag *diag)
{
    *out = NULL;
    if (!prog || !L || L->kernel >= prog->nkernels)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_vm_run_new: no such kernel");
    if (L->plane_width < 1 || L->plane_width > CVM_BC_MAX_PLANE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "plane width %u is out of range 1..64",
                            L->plane_width);
    for (int i = 0; i < 3; i++)
        if (L->grid[i] < 1 || L->block[i] < 1)
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "grid and block dimensions must be >= 1");
    cvm_vm_run *run = get(L->alloc, L->alloc_user, sizeof *run);
    if (!run)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory setting up a launch");
    memset(run, 0, sizeof *run);
    run->prog = prog;
    run->L = L;
    run->tmpl.prog = prog;
    run->tmpl.kp = &prog->kernels[L->kernel];
    run->tmpl.L = L;
    cvm_status st = plan(run, diag);
    if (st) {
        put(L->alloc, L->alloc_user, run, sizeof *run);
        return st;
    }
    if (__builtin_mul_overflow((uint64_t)L->grid[0] * L->grid[1], (uint64_t)L->grid[2], &run->ncubes)) {
        put(L->alloc, L->alloc_user, run, sizeof *run);
        return cvm_diag_set(diag, CVM_LIMIT, "grid %u x %u x %u: 2^64 cubes or more", L->grid[0],
                            L->grid[1], L->grid[2]);
    }
    run->fault_cube = UINT64_MAX;
    /* Batches small enough that every worker gets several (load balance), large
     * enough that the counter is not contended; one worker takes everything when
     * the schedule is not parallel, so cubes run in one fixed order. */
    if (workers < 1 || L->schedule != CVM_VM_SCHED_PARALLEL)
        workers = 1;
    run->tmpl.workers = workers;
    run->batch = workers == 1 ? run->ncubes : run->ncubes / ((uint64_t)workers * 8);
    if (run->batch < 1)
        run->batch = 1;
    if (L->schedule == CVM_VM_SCHED_RANDOM && run->ncubes > 1) {
        uint64_t r = L->seed ^ UINT64_C(0x9e3779b97f4a7c15);
        if (!r)
            r = 1;
        run->perm_b = next_random(&r) % run->ncubes;
        run->perm_a = next_random(&r) % run->ncubes;
        while (gcd(run->perm_a, run->ncubes) != 1)
            run->perm_a = (run->perm_a + 1) % run->ncubes;
    }
    static uint64_t generation; /* only distinguishes runs; atomic, so shared safely */
    run->gen = __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
    *out = run;
    return CVM_OK;
}

void cvm_vm_run_sizes(const cvm_vm_run *run, uint64_t *out_regs, uint64_t *out_local,
                      uint64_t *out_shared, uint64_t *out_checkers)
{
    *out_regs = (uint64_t)run->planes + run->stacks + run->regs + run->order;
    *out_local = run->local;
    *out_shared = run->shared;
    *out_checkers = run->checkers;
}

void cvm_vm_run_free(cvm_vm_run *run)
{
    if (run)
        put(run->L->alloc, run->L->alloc_user, run, sizeof *run);
}

void cvm_vm_run_begin(cvm_vm_run *run)
{
    /* the clock is read only for a timeout (a system call's worth per launch) */
    if (run->L->timeout_s > 0)
        run->tmpl.t0 = cvm_vm_now();
}

bool cvm_vm_run_open(const cvm_vm_run *run)
{
    return __atomic_load_n(&run->next, __ATOMIC_RELAXED) < run->ncubes &&
           !__atomic_load_n(&run->closed, __ATOMIC_RELAXED);
}

/* ---- running cubes ---- */

/* The launch-wide value of preset instruction `in` (fuse.c presettable);
 * an integer op's sources are presets filled before it (lane 0 of plane
 * 0), its result wraps to its type as the handlers' does (set_bits keeps
 * the low bytes). */
static uint64_t preset_value(const cvm_vm_exec *x, const cvm_vm_dinsn *in)
{
    const cvm_vm_launch *L = x->L;
    uint64_t v = 0;
    switch (in->h) {
    case CVM_OP_CONST: return in->imm;
    case CVM_OP_PARAM:
        memcpy(&v, L->params + L->param_offset[in->aux] + in->imm, in->esz);
        return v;
    case CVM_OP_CVT: case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL: {
        const cvm_vm_plane *q = &x->planes[0];
        const uint64_t a = (uint64_t)cvm_vm_get_int(cvm_vm_reg(x, q, in->a), in->ea, 0);
        if (in->h == CVM_OP_CVT)
            return a; /* sign- or zero-extended by the source's type */
        const uint64_t b = (uint64_t)cvm_vm_get_int(cvm_vm_reg(x, q, in->b), in->eb, 0);
        return in->h == CVM_OP_ADD ? a + b : in->h == CVM_OP_SUB ? a - b : a * b;
    }
    default:
        break;
    }
    switch (in->aux) {
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z:
        return L->block[in->aux - CVM_SREG_CUBE_DIM_X];
    case CVM_SREG_CUBE_COUNT_X: case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z:
        return L->grid[in->aux - CVM_SREG_CUBE_COUNT_X];
    case CVM_SREG_PLANE_DIM: return x->W;
    case CVM_SREG_DYN_SHARED_BASE: return x->dyn_base;
    default: return L->dyn_shared; /* CVM_SREG_DYN_SHARED_SIZE */
    }
}

/* Fills the preset registers of every plane (all lanes of their slots). */
static void preset_regs(cvm_vm_exec *x)
{
    const cvm_vm_kprog *kp = x->kp;
    for (uint32_t j = 0; j < kp->npreset; j++) {
        const cvm_vm_dinsn *in = &x->exact[kp->preset[j]];
        const uint64_t v = preset_value(x, in);
        const unsigned n = (unsigned)(x->rb / in->esz);
        for (uint32_t i = 0; i < x->nplanes; i++) {
            uint8_t *r = cvm_vm_reg(x, &x->planes[i], in->d);
            for (unsigned l = 0; l < n; l++)
                cvm_vm_set_bits(r, in->elem, l, v);
        }
    }
}

/* Every lane's unit position, stepping through the cube in unit order
 * (lanes past the last unit get positions past the cube, never read). */
static void fill_positions(cvm_vm_exec *x)
{
    const uint32_t *b = x->L->block;
    uint32_t pos[3] = {0, 0, 0};
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        for (unsigned l = 0; l < x->W; l++) {
            q->upos[0][l] = pos[0], q->upos[1][l] = pos[1], q->upos[2][l] = pos[2];
            if (++pos[0] == b[0]) {
                pos[0] = 0;
                if (++pos[1] == b[1]) {
                    pos[1] = 0;
                    pos[2]++;
                }
            }
        }
    }
}

/* Points the state's exec at its own memory for this run, and clears its results. */
static void join(cvm_vm_run *run, cvm_vm_state *s)
{
    cvm_vm_exec *x = &s->x;
    *x = run->tmpl;
    x->state = s;
    x->planes = s->planes;
    x->shared = s->shared;
    x->local = s->local;
    x->order = run->order ? s->order : NULL;
    x->race = run->L->racecheck ? s->race : NULL;
    x->init = run->L->initcheck ? s->init : NULL;
    if (x->native && !cvm_jit_stack_room(2 * cvm_jit_frame_bytes(x->kp, x->W) + (64u << 10))) {
        x->native = NULL; /* this thread's stack is too small: the exact code, interpreted */
        cvm_jit_note_narrow_stack();
    }
    if (x->native) {
        cvm_jit_table(run->L, s->jtab);
        x->jtab = s->jtab;
    }
    memset(x->planes, 0, run->planes);
    for (uint32_t i = 0; i < x->nplanes; i++) {
        x->planes[i].index = i;
        x->planes[i].stack = s->stacks + (size_t)i * x->kp->max_depth;
        x->planes[i].regs = s->regs + (size_t)i * plane_slots(x) * x->rb;
        /* a plane's lanes are the same in every cube */
        uint32_t n = i + 1 < x->nplanes ? x->W : x->units - i * x->W;
        x->planes[i].nlanes = n;
        x->planes[i].live = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    }
    fill_positions(x);
    preset_regs(x);
    if (s->gen != run->gen) {
        s->gen = run->gen;
        s->faulted = false;
        s->faults = 0;
        s->text.len = 0;
        s->nsegs = 0;
    }
}

/* Resets the planes and memory of the cube at linear index c. */
static void start_cube(cvm_vm_run *run, cvm_vm_exec *x, uint64_t c)
{
    const uint32_t *g = x->L->grid;
    x->cube_linear = (uint32_t)c;
    /* (a division is tens of cycles, and a small cube costs a few hundred:
     * none for a one-dimensional grid, 32-bit ones where c fits) */
    if (g[1] == 1 && g[2] == 1) {
        x->cube[0] = (uint32_t)c, x->cube[1] = x->cube[2] = 0;
    } else if (c <= UINT32_MAX) {
        const uint32_t r = (uint32_t)c / g[0];
        x->cube[0] = (uint32_t)c - r * g[0];
        x->cube[1] = r % g[1];
        x->cube[2] = r / g[1];
    } else {
        x->cube[0] = (uint32_t)(c % g[0]);
        x->cube[1] = (uint32_t)((c / g[0]) % g[1]);
        x->cube[2] = (uint32_t)(c / ((uint64_t)g[0] * g[1]));
    }
    if (x->kp->zero_all) {
        memset(x->planes[0].regs, 0, run->regs);
    } else {
        /* only registers that may be read before written (decode.c
         * zero_ranges; often none, then no pass over the planes) */
        const uint32_t *z = x->zero;
        for (uint32_t j = 0; j < x->kp->nzero; j++)
            for (uint32_t i = 0; i < x->nplanes; i++)
                memset(x->planes[i].regs + ((size_t)z[2 * j] << x->rshift), 0,
                       (size_t)z[2 * j + 1] << x->rshift);
    }
    memset(x->shared, 0, x->shared_size);
    memset(x->local, 0, run->local);
    memset(x->bar_arrived, 0, sizeof x->bar_arrived);
    memset(x->bar_expected, 0, sizeof x->bar_expected);
    /* the record's text is written with `has` (cvm_vm_fault) */
    x->fault.has = false;
    x->fault.status = CVM_OK;
    x->fault.count = 0;
    x->stopping = false;
    x->rng = (run->L->seed + 1) * UINT64_C(0x9e3779b97f4a7c15) ^ c;
    if (!x->rng)
        x->rng = 1;
    if (x->race)
        cvm_vm_race_cube(x);
    if (x->init)
        cvm_vm_init_cube(x);
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        q->active = q->live;
        q->exited = 0;
        q->pc = 0;
        q->sp = 0;
        q->state = CVM_VM_RUNNABLE;
        q->quantum = CVM_VM_QUANTUM;
        q->steps = 0;
    }
}

/* Lowers the run's fault bound to c. */
static void lower_fault_bound(cvm_vm_run *run, uint64_t c)
{
    uint64_t cur = __atomic_load_n(&run->fault_cube, __ATOMIC_RELAXED);
    while (c < cur &&
           !__atomic_compare_exchange_n(&run->fault_cube, &cur, c, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/* Runs cube `order_index` (in schedule order); false when the worker should stop. */
static bool run_one(cvm_vm_run *run, cvm_vm_state *s, uint64_t i)
{
    cvm_vm_exec *x = &s->x;
    if (__atomic_load_n(&run->abort, __ATOMIC_RELAXED) ||
        i >= __atomic_load_n(&run->fault_cube, __ATOMIC_RELAXED)) {
        __atomic_store_n(&run->closed, 1, __ATOMIC_RELAXED);
        return false;
    }
    /* 128-bit: a * i overflows 64 bits once there are more than 2^32 cubes */
    __extension__ typedef unsigned __int128 u128;
    uint64_t c = run->perm_a ? (uint64_t)(((u128)run->perm_a * i + run->perm_b) % run->ncubes) : i;
    start_cube(run, x, c);
    /* the deadline between cubes too (every 64th: a clock read costs about
     * what a tiny cube does): a launch of many short cubes has no other
     * point where run_cube reads the clock */
    if (!(run->L->timeout_s > 0 && !(i & 63) && cvm_vm_timed_out(x, &x->planes[0])))
        run_cube(x);
    if (!x->fault.has)
        return true;
    s->faulted = true;
    s->fault_cube = i; /* in schedule order: the order a single worker would meet it */
    memcpy(s->fault_pos, x->cube, sizeof s->fault_pos);
    s->fault = x->fault;
    s->faults += x->fault.count;
    if (x->fault.status != CVM_FAULT)
        __atomic_store_n(&run->abort, 1, __ATOMIC_RELAXED);
    lower_fault_bound(run, i);
    __atomic_store_n(&run->closed, 1, __ATOMIC_RELAXED);
    return false; /* its later cubes are all above the bound now */
}

void cvm_vm_run_work(cvm_vm_run *run, cvm_vm_state *s)
{
    join(run, s);
    if (s->faulted)
        return;
    while (cvm_vm_run_open(run)) {
        uint64_t first = __atomic_fetch_add(&run->next, run->batch, __ATOMIC_RELAXED);
        if (first >= run->ncubes)
            return;
        uint64_t end = first + run->batch < run->ncubes ? first + run->batch : run->ncubes;
        for (uint64_t i = first; i < end; i++)
            if (!run_one(run, s, i))
                return;
    }
}

/* ---- results ---- */

static cvm_status report(const cvm_vm_run *run, const cvm_vm_state *s, uint32_t count,
                         cvm_diag *diag)
{
    const cvm_vm_faultrec *f = &s->fault;
    cvm_status st = f->status;
    if (!diag)
        return st;
    const char *name = cvm_vm_kernel_name(run->prog, run->tmpl.kp->index), *file = "";
    uint32_t unit[3], line = 0;
    if (!cvm_bc_debug_line(run->prog->mod, run->tmpl.kp->index, f->pc, &file, &line, NULL)) {
        file = "";
        line = 0;
    }
    cvm_vm_unit_pos(&run->tmpl, f->unit, unit);
    char where[24] = "";
    if (line)
        snprintf(where, sizeof where, " (line %u)", line);
    cvm_diag_set(diag, st, "%s in kernel '%s' cube (%u,%u,%u) unit (%u,%u,%u) plane %u lane %u pc %u%s",
                 f->what, name, s->fault_pos[0], s->fault_pos[1], s->fault_pos[2], unit[0], unit[1],
                 unit[2], f->plane, f->lane, f->pc, where);
    for (char *c = diag->message; *c; c++) /* one line, whatever an assert message holds */
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    diag->has_fault = 1;
    cvm_fault *out = &diag->fault;
    snprintf(out->kernel, sizeof out->kernel, "%s", name);
    memcpy(out->cube, s->fault_pos, sizeof out->cube);
    memcpy(out->unit, unit, sizeof out->unit);
    out->plane = f->plane;
    out->lane = f->lane;
    out->pc = f->pc;
    snprintf(out->file, sizeof out->file, "%s", file);
    out->line = line;
    out->count = count;
    return st;
}

/* The print text of the run's cubes up to `last`, in cube order, appended to L->print_out. */
static bool merge_text(const cvm_vm_run *run, cvm_vm_state *const *states, uint32_t n,
                       uint64_t last)
{
    cvm_vm_text *out = run->L->print_out;
    if (!out)
        return true;
    for (uint32_t w = 0; w < n; w++)
        states[w]->merge_at = 0;
    for (;;) {
        /* Each worker met its cubes in increasing order: a merge of sorted lists. */
        uint32_t best = n;
        for (uint32_t w = 0; w < n; w++) {
            const cvm_vm_state *s = states[w];
            if (s->gen == run->gen && s->merge_at < s->nsegs &&
                (best == n ||
                 s->segs[s->merge_at].cube < states[best]->segs[states[best]->merge_at].cube))
                best = w;
        }
        if (best == n || states[best]->segs[states[best]->merge_at].cube > last)
            return true;
        cvm_vm_state *s = states[best];
        uint32_t i = s->merge_at++;
        size_t from = s->segs[i].off, to = i + 1 < s->nsegs ? s->segs[i + 1].off : s->text.len;
        if (!append(s, out, s->text.data + from, to - from))
            return false;
    }
}

cvm_status cvm_vm_run_finish(cvm_vm_run *run, cvm_vm_state *const *states, uint32_t n,
                             cvm_diag *diag)
{
    const cvm_vm_state *first = NULL;
    uint32_t count = 0;
    for (uint32_t w = 0; w < n; w++) {
        const cvm_vm_state *s = states[w];
        if (s->gen != run->gen || !s->faulted)
            continue;
        count += s->faults;
        if (!first || s->fault_cube < first->fault_cube ||
            (s->fault_cube == first->fault_cube && s->fault.unit < first->fault.unit))
            first = s;
    }
    /* Text of cubes past the reported fault is dropped: it depends on timing. */
    uint64_t last = UINT64_MAX;
    if (first && !run->perm_a)
        last = first->fault_cube;
    if (!merge_text(run, states, n, last) && !first)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory collecting print output");
    if (first)
        return report(run, first, count, diag);
    return CVM_OK;
}

cvm_status cvm_vm_execute(const cvm_vm_program *prog, const cvm_vm_launch *L, cvm_diag *diag)
{
    cvm_vm_run *run = NULL;
    cvm_vm_state *s = NULL;
    cvm_status st = cvm_vm_run_new(prog, L, 1, &run, diag);
    if (st)
        return st;
    if ((st = cvm_vm_state_new(L->alloc, L->alloc_user, &s))) {
        st = cvm_diag_set(diag, st, "out of memory setting up a launch of '%s'",
                          cvm_vm_kernel_name(prog, L->kernel));
        goto fail;
    }
    if ((st = cvm_vm_state_reserve(s, run, diag)))
        goto fail;
    cvm_vm_run_begin(run);
    cvm_vm_run_work(run, s);
    st = cvm_vm_run_finish(run, &s, 1, diag);
    cvm_vm_state_trim(s);
fail:
    cvm_vm_state_free(s);
    cvm_vm_run_free(run);
    return st;
}
