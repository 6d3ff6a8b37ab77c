/*
 * interp.c - cvm_vm_execute: runs a launch on the calling thread.
 *
 * Everything a launch needs (register files, construct stacks, shared and
 * local memory) is allocated once before the first cube; cubes then run in
 * increasing linear order. Inside a cube the planes run round robin
 * between scheduling points (sync_cube, named barriers, back-edge quanta,
 * exit), so spin-waits between planes complete. The first faulting cube
 * stops the launch; its fault with the lowest unit is reported, with the
 * others counted.
 */
#include "interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Spare slots after each plane's registers: a line operand of an unverified
 * module that overruns its register still reads and writes inside the file. */
#define CVM_VM_PAD_SLOTS 16u

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
    cvm_vm_fault(x, p, p->active ? lane : 0, CVM_TIMEOUT, "timeout after %.3g s", t);
    return true;
}

/* ---- sync_cube ---- */

/* Releases sync_cube when every plane is waiting there or finished. */
static bool release_sync(cvm_vm_exec *x)
{
    uint32_t waiting = 0, count = 0, lanes = 0;
    for (uint32_t i = 0; i < x->nplanes; i++) {
        const cvm_vm_plane *q = &x->planes[i];
        if (q->state == CVM_VM_AT_SYNC)
            waiting++;
        else if (q->state != CVM_VM_DONE)
            return false;
    }
    if (!waiting)
        return false;
    for (uint32_t i = 0; i < x->nplanes; i++) {
        const cvm_vm_plane *q = &x->planes[i];
        if (q->state != CVM_VM_AT_SYNC)
            continue;
        const cvm_vm_dinsn *in = &x->kp->code[q->wait_pc];
        lanes += (uint32_t)__builtin_popcountll(q->active);
        if (in->h != CVM_OP_SYNC_CUBE) {
            const uint8_t *pred = cvm_vm_reg(x, q, in->a);
            for (unsigned l = 0; l < q->nlanes; l++)
                count += (q->active >> l & 1) && (pred[l] & 1);
        }
    }
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        if (q->state != CVM_VM_AT_SYNC)
            continue;
        const cvm_vm_dinsn *in = &x->kp->code[q->wait_pc];
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
    }
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

/* Runs one cube to completion, a fault or a stop. */
static void run_cube(cvm_vm_exec *x)
{
    int passes_after_fault = 0;
    for (;;) {
        bool ran = false, left = false;
        for (uint32_t i = 0; i < x->nplanes; i++) {
            cvm_vm_plane *q = &x->planes[i];
            if (q->state != CVM_VM_RUNNABLE)
                continue;
            ran = true;
            int r = cvm_vm_run_plane(x, q);
            if (r == CVM_VM_R_FAULT || r == CVM_VM_R_STOP) {
                q->state = CVM_VM_FAULTED;
                if (x->fault.status != CVM_FAULT)
                    return; /* timeout or out of memory: stop now */
            }
            release_sync(x);
        }
        for (uint32_t i = 0; i < x->nplanes; i++)
            left |= x->planes[i].state != CVM_VM_DONE && x->planes[i].state != CVM_VM_FAULTED;
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
        if (!ran && !release_sync(x)) {
            deadlock(x);
            return;
        }
    }
}

/* Resets the planes and memory of the cube at linear index c. */
static void start_cube(cvm_vm_exec *x, uint64_t c, size_t regs_bytes, size_t local_total)
{
    const uint32_t *g = x->L->grid;
    x->cube_linear = (uint32_t)c;
    x->cube[0] = (uint32_t)(c % g[0]);
    x->cube[1] = (uint32_t)((c / g[0]) % g[1]);
    x->cube[2] = (uint32_t)(c / ((uint64_t)g[0] * g[1]));
    memset(x->planes[0].regs, 0, regs_bytes);
    memset(x->shared, 0, x->shared_size);
    memset(x->local, 0, local_total);
    memset(x->bar_arrived, 0, sizeof x->bar_arrived);
    memset(x->bar_expected, 0, sizeof x->bar_expected);
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        q->nlanes = i + 1 < x->nplanes ? x->W : x->units - i * x->W;
        q->live = q->nlanes >= 64 ? UINT64_MAX : (UINT64_C(1) << q->nlanes) - 1;
        q->active = q->live;
        q->exited = 0;
        q->pc = 0;
        q->sp = 0;
        q->state = CVM_VM_RUNNABLE;
        q->quantum = CVM_VM_QUANTUM;
        q->steps = 0;
    }
}

/* Source line of pc from the module's line table (sorted by kernel, pc). */
static uint32_t source_line(const cvm_bc_module *mod, uint32_t kernel, uint32_t pc,
                            const char **out_file)
{
    const cvm_bc_debug *dbg = &mod->debug;
    uint32_t line = 0;
    *out_file = "";
    for (uint32_t i = 0; i < dbg->nlines; i++) {
        const cvm_bc_dline *d = &dbg->lines[i];
        if (d->kernel != kernel || d->pc > pc)
            continue;
        line = d->line;
        *out_file = d->file < dbg->nfiles ? cvm_bc_str(mod, dbg->files[d->file]) : "";
    }
    return line;
}

static cvm_status report(cvm_vm_exec *x, cvm_diag *diag)
{
    const cvm_vm_faultrec *f = &x->fault;
    cvm_status st = f->status;
    if (!diag)
        return st;
    const char *name = cvm_vm_kernel_name(x->prog, x->kp->index), *file;
    uint32_t unit[3], line = source_line(x->prog->mod, x->kp->index, f->pc, &file);
    cvm_vm_unit_pos(x, f->unit, unit);
    char where[24] = "";
    if (line)
        snprintf(where, sizeof where, " (line %u)", line);
    cvm_diag_set(diag, st, "%s in kernel '%s' cube (%u,%u,%u) unit (%u,%u,%u) plane %u lane %u pc %u%s",
                 f->what, name, x->cube[0], x->cube[1], x->cube[2], unit[0], unit[1], unit[2],
                 f->plane, f->lane, f->pc, where);
    for (char *c = diag->message; *c; c++) /* one line, whatever an assert message holds */
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    diag->has_fault = 1;
    cvm_fault *out = &diag->fault;
    snprintf(out->kernel, sizeof out->kernel, "%s", name);
    memcpy(out->cube, x->cube, sizeof out->cube);
    memcpy(out->unit, unit, sizeof out->unit);
    out->plane = f->plane;
    out->lane = f->lane;
    out->pc = f->pc;
    snprintf(out->file, sizeof out->file, "%s", file);
    out->line = line;
    out->count = f->count;
    return st;
}

/* Sizes of a launch's allocations. */
typedef struct sizes {
    size_t planes, stacks, regs, shared, local;
} sizes;

static cvm_status plan(cvm_vm_exec *x, const cvm_vm_launch *L, sizes *s, cvm_diag *diag)
{
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
    uint64_t regs = (uint64_t)x->nplanes * (x->kp->nslots + CVM_VM_PAD_SLOTS) * x->rb;
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
    s->planes = sizeof(cvm_vm_plane) * x->nplanes;
    s->stacks = sizeof(cvm_vm_frame) * x->nplanes * x->kp->max_depth;
    s->regs = (size_t)regs;
    s->shared = (size_t)shared;
    s->local = (size_t)local;
    return CVM_OK;
}

static void *get(const cvm_vm_launch *L, size_t size)
{
    cvm_alloc_fn fn = L->alloc ? L->alloc : cvm_default_alloc;
    return fn(L->alloc_user, NULL, 0, size ? size : 1);
}

static void put(const cvm_vm_launch *L, void *p, size_t size)
{
    cvm_alloc_fn fn = L->alloc ? L->alloc : cvm_default_alloc;
    if (p)
        fn(L->alloc_user, p, size ? size : 1, 0);
}

cvm_status cvm_vm_execute(const cvm_vm_program *prog, const cvm_vm_launch *L, cvm_diag *diag)
{
    cvm_vm_exec x;
    sizes s = {0};
    cvm_status st;
    uint8_t *regs = NULL;
    cvm_vm_frame *stacks = NULL;
    memset(&x, 0, sizeof x);
    if (!prog || !L || L->kernel >= prog->nkernels)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_vm_execute: no such kernel");
    if (L->plane_width < 1 || L->plane_width > CVM_BC_MAX_PLANE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "plane width %u is out of range 1..64",
                            L->plane_width);
    for (int i = 0; i < 3; i++)
        if (L->grid[i] < 1 || L->block[i] < 1)
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "grid and block dimensions must be >= 1");
    x.prog = prog;
    x.kp = &prog->kernels[L->kernel];
    x.L = L;
    x.step_limit = L->step_budget ? L->step_budget : UINT64_MAX;
    if ((st = plan(&x, L, &s, diag)))
        return st;
    x.planes = get(L, s.planes);
    stacks = get(L, s.stacks);
    regs = get(L, s.regs);
    x.shared = get(L, s.shared);
    x.local = get(L, s.local);
    if (!x.planes || !stacks || !regs || !x.shared || !x.local) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory setting up a launch of '%s'",
                          cvm_vm_kernel_name(prog, x.kp->index));
        goto fail;
    }
    memset(x.planes, 0, s.planes);
    for (uint32_t i = 0; i < x.nplanes; i++) {
        x.planes[i].index = i;
        x.planes[i].stack = stacks + (size_t)i * x.kp->max_depth;
        x.planes[i].regs = regs + (size_t)i * (x.kp->nslots + CVM_VM_PAD_SLOTS) * x.rb;
    }
    x.t0 = cvm_vm_now();
    uint64_t ncubes = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
    st = CVM_OK;
    for (uint64_t c = 0; c < ncubes; c++) {
        start_cube(&x, c, s.regs, s.local);
        run_cube(&x);
        if (x.fault.has) {
            st = report(&x, diag);
            break;
        }
    }
fail:
    put(L, x.planes, s.planes);
    put(L, stacks, s.stacks);
    put(L, regs, s.regs);
    put(L, x.shared, s.shared);
    put(L, x.local, s.local);
    return st;
}
