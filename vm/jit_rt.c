/*
 * jit_rt.c - the native tier's policy and the helpers its code calls
 * (vm/jit.h); the compiler itself is jit/native.c (or jit/none.c).
 */
#define _GNU_SOURCE 1 /* pthread_getattr_np */
#include "jit.h"
#include "cubevm.h"
#include "isa.h"
#include "../jit/backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cvm_jit_counts counts;
static char last_refusal[1024];

enum { POLICY_BAD = -1, POLICY_AUTO, POLICY_OFF, POLICY_ON };

/* The policy of a launch of this tier: CUBEVM_JIT's for CVM_TIER_DEFAULT
 * (POLICY_BAD for a value it does not take, which cvm_jit_check refuses). */
static int policy(int tier)
{
    if (tier == CVM_TIER_INTERP)
        return POLICY_OFF;
    if (tier == CVM_TIER_NATIVE)
        return POLICY_ON;
    /* unset: auto, native code for hot kernels (faster than the
     * interpreter for all 9 of the bench's kernels in session 33:
     * docs/performance.md "The native tier") */
    const char *e = getenv("CUBEVM_JIT");
    if (!e || !*e || !strcmp(e, "auto"))
        return POLICY_AUTO;
    if (!strcmp(e, "off") || !strcmp(e, "0"))
        return POLICY_OFF;
    return !strcmp(e, "on") || !strcmp(e, "1") ? POLICY_ON : POLICY_BAD;
}

cvm_status cvm_tier_available(cvm_tier tier, cvm_diag *diag)
{
    cvm_diag scratch;
    cvm_diag *d = diag ? diag : &scratch;
    memset(d, 0, sizeof *d);
    if (tier == CVM_TIER_INTERP) {
        snprintf(d->message, sizeof d->message, "the interpreter");
        return CVM_OK;
    }
    if (tier == CVM_TIER_DEFAULT)
        return cvm_diag_set(d, CVM_INVALID_ARGUMENT,
                            "cvm_tier_available: CVM_TIER_DEFAULT is a policy, not an engine");
    if (tier != CVM_TIER_NATIVE)
        return cvm_diag_set(d, CVM_INVALID_ARGUMENT, "cvm_tier_available: %d is not a cvm_tier", (int)tier);
    char why[400];
    pthread_mutex_lock(&lock);
    const bool ok = cvm_jit_backend_ready(why, sizeof why);
    pthread_mutex_unlock(&lock);
    if (!ok)
        return cvm_diag_set(d, CVM_UNAVAILABLE, "%s", why);
    snprintf(d->message, sizeof d->message, "native code through %s", why);
    return CVM_OK;
}

cvm_status cvm_jit_check(int tier, cvm_diag *diag)
{
    if (policy(tier) != POLICY_BAD)
        return CVM_OK;
    return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "CUBEVM_JIT=%.64s is not a tier policy (off, on or auto)",
                        getenv("CUBEVM_JIT"));
}

bool cvm_jit_built(void)
{
    return cvm_jit_backend_built();
}

cvm_jit_fn cvm_jit_plan(const cvm_vm_program *prog, const cvm_vm_kprog *kp_const, unsigned W, unsigned shape,
                        uint64_t units, int tier)
{
    const int pol = policy(tier);
    if (pol == POLICY_OFF || pol == POLICY_BAD || !cvm_jit_backend_built() || !prog->ver)
        return NULL;
    if (W & (W - 1))
        return NULL; /* plane widths other than powers of two: interpreted */
    _Static_assert(CVM_VM_JIT_SLOTS == CVM_JIT_SHAPES * CVM_VM_JIT_WIDTHS, "one native slot per width and shape");
    const unsigned w = CVM_JIT_SHAPES * (unsigned)__builtin_ctz(W) + shape;
    cvm_vm_kprog *kp = (cvm_vm_kprog *)(uintptr_t)kp_const; /* its jit_* fields (interp.h) */
    cvm_jit_fn fn = NULL;
    pthread_mutex_lock(&lock);
    /* auto: hot once its earlier launches have run CVM_JIT_AUTO_UNITS (a
     * single launch, however large, is interpreted: the compile would
     * cost it more than native code gains) */
    const uint64_t before = kp->jit_units;
    kp->jit_units = __builtin_add_overflow(kp->jit_units, units, &kp->jit_units) ? UINT64_MAX
                                                                                 : kp->jit_units;
    if (kp->jit_state[w] == 0 && (pol == POLICY_ON || before >= CVM_JIT_AUTO_UNITS)) {
        char why[sizeof last_refusal] = "";
        void *handle = NULL;
        bool again = false;
        fn = cvm_jit_backend_compile(prog, kp, W, shape, &handle, why, sizeof why, &again);
        if (fn) {
            kp->jit_state[w] = 1;
            kp->jit_fn[w] = (void *)(uintptr_t)fn;
            kp->jit_handle[w] = handle;
            counts.compiled++;
        } else {
            /* out of memory or threads: the next launch tries again; any
             * other reason is the kernel's, for good */
            kp->jit_state[w] = again ? 0 : 2;
            counts.refused++;
            memcpy(last_refusal, why, sizeof why);
        }
    }
    fn = kp->jit_state[w] == 1 ? (cvm_jit_fn)(uintptr_t)kp->jit_fn[w] : NULL;
    if (fn)
        counts.launches++;
    pthread_mutex_unlock(&lock);
    return fn;
}

uint64_t cvm_jit_frame_bytes(const cvm_vm_kprog *kp, unsigned W)
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < kp->k->nregs; r++)
        n += (uint64_t)W * cvm_vm_esz(kp->k->regs[r].elem) * (kp->k->regs[r].line ? kp->k->regs[r].line : 1);
    return n;
}

bool cvm_jit_stack_room(uint64_t need)
{
    /* the thread's stack, looked up once per thread (glibc reads
     * /proc/self/maps for the main thread's) */
    static __thread uintptr_t low;
    static __thread bool known;
    static __thread uintptr_t high;
    if (!known) {
        pthread_attr_t a;
        void *addr = NULL;
        size_t size = 0;
        if (!pthread_getattr_np(pthread_self(), &a)) {
            if (!pthread_attr_getstack(&a, &addr, &size)) {
                low = (uintptr_t)addr;
                high = low + size;
            }
            pthread_attr_destroy(&a);
        }
        known = true;
    }
    /* a host running cubes on a stack of its own (a coroutine's) is not
     * between the bounds: interpreted */
    const uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    return low && sp > low && sp <= high && sp - low >= need;
}

void cvm_jit_release(cvm_vm_kprog *kp)
{
    pthread_mutex_lock(&lock); /* the backend's calls are serialized */
    for (unsigned w = 0; w < CVM_VM_JIT_SLOTS; w++) {
        if (kp->jit_handle[w])
            cvm_jit_backend_free(kp->jit_handle[w]);
        kp->jit_handle[w] = kp->jit_fn[w] = NULL;
        kp->jit_state[w] = 0;
    }
    pthread_mutex_unlock(&lock);
}

void cvm_jit_note_narrow_stack(void)
{
    pthread_mutex_lock(&lock);
    counts.narrow_stacks++;
    pthread_mutex_unlock(&lock);
}

void cvm_jit_counts_get(cvm_jit_counts *out)
{
    pthread_mutex_lock(&lock);
    *out = counts;
    pthread_mutex_unlock(&lock);
}

void cvm_jit_last_refusal(char *buf, size_t n)
{
    if (!n)
        return;
    pthread_mutex_lock(&lock);
    strncpy(buf, last_refusal, n - 1);
    buf[n - 1] = 0;
    pthread_mutex_unlock(&lock);
}

void cvm_jit_table(const cvm_vm_launch *L, cvm_jit_region *tab)
{
    memset(tab, 0, sizeof *tab * CVM_JIT_TAB);
    uint8_t uses[CVM_JIT_TAB] = {0};
    for (uint32_t i = 0; i < L->nregions; i++)
        if (L->regions[i].tag)
            uses[L->regions[i].tag % CVM_JIT_TAB]++;
    for (uint32_t i = 0; i < L->nregions; i++) {
        const cvm_vm_region *r = &L->regions[i];
        if (!r->tag || uses[r->tag % CVM_JIT_TAB] != 1)
            continue; /* shared entries: the interpreter's checks decide */
        cvm_jit_region *e = &tab[r->tag % CVM_JIT_TAB];
        e->tag = r->tag;
        e->lo = r->base;
        e->end = r->base + r->size;
        e->wend = r->writable ? e->end : 0;
    }
}

int cvm_jit_step(cvm_vm_exec *x, cvm_vm_plane *p, uint32_t pc)
{
    p->pc = pc;
    x->one_step = true;
    int r = cvm_vm_run_plane(x, p);
    x->one_step = false;
    return r;
}

/* The set lanes of mask in lane order, each element copied by a fixed-size
 * memcpy (one move) where esz is one of the scalar sizes. */
#define EACH_LANE(mask, esz, COPY)                                                                      \
    do {                                                                                               \
        switch (esz) {                                                                                 \
        case 1: for (; mask; mask &= mask - 1) { const unsigned i = (unsigned)__builtin_ctzll(mask); COPY(1); } break; \
        case 2: for (; mask; mask &= mask - 1) { const unsigned i = (unsigned)__builtin_ctzll(mask); COPY(2); } break; \
        case 4: for (; mask; mask &= mask - 1) { const unsigned i = (unsigned)__builtin_ctzll(mask); COPY(4); } break; \
        case 8: for (; mask; mask &= mask - 1) { const unsigned i = (unsigned)__builtin_ctzll(mask); COPY(8); } break; \
        default: for (; mask; mask &= mask - 1) { const unsigned i = (unsigned)__builtin_ctzll(mask); COPY(esz); } break; \
        }                                                                                              \
    } while (0)

void cvm_jit_gather(void *vals, const uint64_t *addr, uint64_t mask, uint32_t esz)
{
    uint8_t *v = vals;
#define GATHER(n) memcpy(v + (size_t)i * (n), (const void *)(uintptr_t)addr[i], (n))
    EACH_LANE(mask, esz, GATHER);
#undef GATHER
}

void cvm_jit_scatter(const void *vals, const uint64_t *addr, uint64_t mask, uint32_t esz)
{
    const uint8_t *v = vals;
    /* lane order: of lanes that overlap, the last one's bytes stay, as interpreted */
#define SCATTER(n) memcpy((void *)(uintptr_t)addr[i], v + (size_t)i * (n), (n))
    EACH_LANE(mask, esz, SCATTER);
#undef SCATTER
}

void cvm_jit_load_run(void *vals, const void *base, uint64_t mask, uint32_t esz)
{
    uint8_t *v = vals;
    const uint8_t *b = base;
#define LOAD(n) memcpy(v + (size_t)i * (n), b + (size_t)i * (n), (n))
    EACH_LANE(mask, esz, LOAD);
#undef LOAD
}

void cvm_jit_store_run(const void *vals, void *base, uint64_t mask, uint32_t esz)
{
    const uint8_t *v = vals;
    uint8_t *b = base;
#define STORE(n) memcpy(b + (size_t)i * (n), v + (size_t)i * (n), (n))
    EACH_LANE(mask, esz, STORE);
#undef STORE
}
#undef EACH_LANE

int cvm_jit_backedge(cvm_vm_exec *x, cvm_vm_plane *p)
{
    if (x->L->timeout_s > 0 && cvm_vm_timed_out(x, p))
        return CVM_VM_R_FAULT;
    return x->nplanes > 1 ? CVM_VM_R_YIELD : -1;
}

/* The runnable plane of index from or more that comes first, chained to; NULL if none. */
static cvm_vm_plane *runnable_from(cvm_vm_exec *x, uint32_t from)
{
    for (uint32_t i = from; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        if (q->state == CVM_VM_RUNNABLE) {
            x->chained = q;
            x->synced = false;
            return q;
        }
    }
    return NULL;
}

/* What run_cube's loop (interp.c) does after a plane that waits, without
 * the return, the scheduler, and the next call's entry: a barrier's
 * release needs every plane stopped, so while a later plane in the pass
 * can run nothing is released and that plane runs next. Else run_cube
 * tries the release, and goes on in the same pass with the planes after
 * this one it released (planes that arrived before a lower one, which
 * had yielded); then, at the pass's end, it looks for a fault in the
 * cube (one more pass at most) and a timeout, and begins the next pass
 * from plane 0: so does this, leaving those looks to run_cube.
 * (jit/native.c chain() takes the first look inline: the next plane in
 * index order, when runnable, recorded as runnable_from does; a change to
 * either must be made to both.) */
cvm_vm_plane *cvm_jit_chain(cvm_vm_exec *x, cvm_vm_plane *p)
{
    if (!x->chain)
        return NULL;
    cvm_vm_plane *q = runnable_from(x, p->index + 1);
    if (q || !cvm_vm_release(x))
        return q;
    if ((q = runnable_from(x, p->index + 1)) || x->stopping || x->L->timeout_s > 0)
        return q;
    return runnable_from(x, 0);
}
