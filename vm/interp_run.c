/*
 * interp_run.c - the dispatch loop: runs one plane of a cube from its pc
 * until a scheduling point (barrier, back-edge quantum, exit) or a fault.
 *
 * Every handler is written once between CASE(op) and NEXT(); with GCC or
 * Clang dispatch is a computed goto through a label table expanded from
 * CVM_VM_HANDLED, otherwise (CVM_DISPATCH_SWITCH, or another compiler) a
 * switch. Arithmetic handlers are short loops over the plane's lanes on
 * typed slot arrays (interp.h); when every lane is active they compute
 * without a mask test so the compiler can vectorize, otherwise they write
 * active lanes only. Semantics come from numerics.h and mathlib.h; nothing
 * here can trap on any lane. Memory, atomics, plane ops, conversions and
 * print live in interp_mem.c and interp_plane.c.
 *
 * Control flow follows docs/design.md item 4 with the frames of interp.h: when
 * a plane's active mask becomes empty it jumps to the next marker of the
 * innermost construct (frame->next), which recomputes the mask.
 */
#include "interp.h"

/* GCC's -O2 uses the "very cheap" vectorizer cost model, which gives up on
 * loops whose trip count (the plane width) is not known; the handler loops
 * are the reason this file exists, so let it pay for an epilogue. Without
 * trapping math, lane loops with float compares in selects vectorize too
 * (GCC will not if-convert a compare that may raise an FP exception);
 * nothing in cubevm reads the exception flags, and no result changes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap", "no-trapping-math")
#endif

#include <math.h>
#include <string.h>

#include "ctl.h"
#include "race.h"
#include "lanes.h"
#include "mathlib.h"
#include "numerics.h"

#if defined(__GNUC__) && !defined(CVM_DISPATCH_SWITCH)
#define CVM_VM_GOTO 1
#endif

/* ---- lane loops over the slots of the destination register ---- */

#define SLOT(base, o) ((base) + (o))
/* BODY for every lane to write: all lanes when the plane is fully active. */
#define LANES(...)                                                                         \
    do {                                                                                   \
        if (uni) {                                                                         \
            const unsigned l = l0;                                                         \
            __VA_ARGS__                                                                    \
        } else if (full && nl == FIXED_W) {                                                \
            IVDEP for (unsigned l = 0; l < FIXED_W; l++) { __VA_ARGS__ }                   \
        } else if (full) {                                                                 \
            IVDEP for (unsigned l = 0; l < nl; l++) { __VA_ARGS__ }                        \
        } else {                                                                           \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1) { __VA_ARGS__ }                                          \
        }                                                                                  \
    } while (0)
/* BODY for every element slot of the line (o_ is the slot's byte offset). */
#define EACH(...)                                                                          \
    for (unsigned e_ = 0; e_ < ne; e_++) {                                                 \
        const size_t o_ = (size_t)e_ << rs;                                                \
        LANES(__VA_ARGS__);                                                                \
    }
#define AT(T, base) ((T *)(void *)(base + o_))
#define CAT(T, base) ((const T *)(const void *)(base + o_))

#define UN(T, EXPR) EACH(const T x = CAT(T, A)[l]; AT(T, D)[l] = (T)(EXPR);)
#define BIN(T, EXPR) EACH(const T x = CAT(T, A)[l]; const T y = CAT(T, B)[l]; AT(T, D)[l] = (T)(EXPR);)
#define TERN(T, EXPR)                                                                      \
    EACH(const T x = CAT(T, A)[l]; const T y = CAT(T, B)[l]; const T z = CAT(T, C)[l];     \
         AT(T, D)[l] = (T)(EXPR);)
#define CMP(T, EXPR) EACH(const T x = CAT(T, A)[l]; const T y = CAT(T, B)[l]; AT(uint8_t, D)[l] = (uint8_t)(EXPR);)
#define TEST(T, EXPR) EACH(const T x = CAT(T, A)[l]; AT(uint8_t, D)[l] = (uint8_t)(EXPR);)

#define F16(v) cvm_n_f16_to_f32(v)
#define R16(v) cvm_n_f32_to_f16(v)
#define FB(v) cvm_n_bf16_to_f32(v)
#define RB(v) cvm_n_f32_to_bf16(v)

/* Integer types by width, computed in the unsigned type (wrapping ops). */
#define WRAP_CASES(M, EXPR)                                                                \
    case CVM_T_I8: case CVM_T_U8: M(uint8_t, EXPR); break;                                 \
    case CVM_T_I16: case CVM_T_U16: M(uint16_t, EXPR); break;                              \
    case CVM_T_I32: case CVM_T_U32: M(uint32_t, EXPR); break;                              \
    case CVM_T_I64: case CVM_T_U64: M(uint64_t, EXPR); break;
/* Integer types by signedness; EXPR may use `bits`. */
#define SU_CASES(M, SEXPR, UEXPR)                                                          \
    case CVM_T_I8: { const unsigned bits = 8; (void)bits; M(int8_t, SEXPR); } break;       \
    case CVM_T_I16: { const unsigned bits = 16; (void)bits; M(int16_t, SEXPR); } break;    \
    case CVM_T_I32: { const unsigned bits = 32; (void)bits; M(int32_t, SEXPR); } break;    \
    case CVM_T_I64: { const unsigned bits = 64; (void)bits; M(int64_t, SEXPR); } break;    \
    case CVM_T_U8: { const unsigned bits = 8; (void)bits; M(uint8_t, UEXPR); } break;      \
    case CVM_T_U16: { const unsigned bits = 16; (void)bits; M(uint16_t, UEXPR); } break;   \
    case CVM_T_U32: { const unsigned bits = 32; (void)bits; M(uint32_t, UEXPR); } break;   \
    case CVM_T_U64: { const unsigned bits = 64; (void)bits; M(uint64_t, UEXPR); } break;
/* Float types; the f16/bf16 expressions see the uint16_t bit patterns x, y, z. */
#define FLT_CASES(M, E32, E64, E16, EBF)                                                   \
    case CVM_T_F32: M(float, E32); break;                                                  \
    case CVM_T_F64: M(double, E64); break;                                                 \
    case CVM_T_F16: M(uint16_t, E16); break;                                               \
    case CVM_T_BF16: M(uint16_t, EBF); break;
/* FLT_CASES of an arithmetic op: a NaN result is the canonical NaN
 * (numerics.h cvm_n_qf). */
#define FLT_QCASES(M, E32, E64, E16, EBF)                                                  \
    FLT_CASES(M, cvm_n_qf(E32), cvm_n_q(E64), cvm_n_q16(E16), cvm_n_qbf16(EBF))
/* A float math function of one argument, f16/bf16 through f32. */
#define MATH1(f32fn, f64fn)                                                                \
    switch (in->elem) {                                                                    \
        FLT_QCASES(UN, f32fn(x), f64fn(x), R16(f32fn(F16(x))), RB(f32fn(FB(x))))           \
    default: break;                                                                        \
    }
#define MATH2(f32fn, f64fn)                                                                \
    switch (in->elem) {                                                                    \
        FLT_QCASES(BIN, f32fn(x, y), f64fn(x, y), R16(f32fn(F16(x), F16(y))),              \
                   RB(f32fn(FB(x), FB(y))))                                                \
    default: break;                                                                        \
    }
/* f32 min (OP <) and max (OP >) of lane l (lanes.h FMINMAX_F32_BITS). */
#define FMINMAX_F32(OP, NEG_PICK, POS_PICK)                                                \
    const float x = CAT(float, A)[l], y = CAT(float, B)[l];                                \
    const uint32_t xi = CAT(uint32_t, A)[l], yi = CAT(uint32_t, B)[l];                     \
    uint32_t r_;                                                                           \
    FMINMAX_F32_BITS(r_, OP, NEG_PICK, POS_PICK, x, y, xi, yi);                            \
    AT(uint32_t, D)[l] = r_;
/* Copies slots by element size (mov and friends); SRC(o) names the source slot base. */
#define COPY_CASES(size, SRC)                                                              \
    switch (size) {                                                                        \
    case 1: EACH(AT(uint8_t, D)[l] = ((const uint8_t *)(const void *)(SRC))[l];) break;    \
    case 2: EACH(AT(uint16_t, D)[l] = ((const uint16_t *)(const void *)(SRC))[l];) break;  \
    case 4: EACH(AT(uint32_t, D)[l] = ((const uint32_t *)(const void *)(SRC))[l];) break;  \
    default: EACH(AT(uint64_t, D)[l] = ((const uint64_t *)(const void *)(SRC))[l];) break; \
    }

static inline unsigned lowest(uint64_t m)
{
    unsigned l = 0;
    while (!(m >> l & 1))
        l++;
    return l;
}

/* Whether selector bits v match one of a case's converted values. */
static inline bool case_match(const cvm_vm_dinsn *c, uint64_t v)
{
    const uint64_t *vals = c->ptr;
    for (uint32_t i = 0; i < c->n; i++)
        if (vals[i] == v)
            return true;
    return false;
}

/* The special register `id` for lane l of plane p. */
static uint64_t sreg_value(const cvm_vm_exec *x, const cvm_vm_plane *p, unsigned id, unsigned l)
{
    const cvm_vm_launch *L = x->L;
    const uint32_t unit = p->index * x->W + l;
    const uint32_t pos[3] = {p->upos[0][l], p->upos[1][l], p->upos[2][l]};
    uint64_t wmask = x->W >= 64 ? UINT64_MAX : (UINT64_C(1) << x->W) - 1;
    uint64_t lt = l ? UINT64_MAX >> (64 - l) : 0, le = lt | UINT64_C(1) << l;
    switch (id) {
    case CVM_SREG_UNIT_POS_X: case CVM_SREG_UNIT_POS_Y: case CVM_SREG_UNIT_POS_Z:
        return pos[id - CVM_SREG_UNIT_POS_X];
    case CVM_SREG_CUBE_POS_X: case CVM_SREG_CUBE_POS_Y: case CVM_SREG_CUBE_POS_Z:
        return x->cube[id - CVM_SREG_CUBE_POS_X];
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z:
        return L->block[id - CVM_SREG_CUBE_DIM_X];
    case CVM_SREG_CUBE_COUNT_X: case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z:
        return L->grid[id - CVM_SREG_CUBE_COUNT_X];
    case CVM_SREG_PLANE_DIM: return x->W;
    case CVM_SREG_UNIT_POS_PLANE: return l;
    case CVM_SREG_PLANE_POS: return p->index;
    case CVM_SREG_UNIT_POS: return unit;
    case CVM_SREG_CUBE_POS: return x->cube_linear;
    case CVM_SREG_ABS_POS_X: case CVM_SREG_ABS_POS_Y: case CVM_SREG_ABS_POS_Z: {
        unsigned i = id - CVM_SREG_ABS_POS_X;
        return (uint32_t)(x->cube[i] * L->block[i] + pos[i]);
    }
    case CVM_SREG_LANEMASK_LT: return lt;
    case CVM_SREG_LANEMASK_LE: return le;
    case CVM_SREG_LANEMASK_GT: return wmask & ~le;
    case CVM_SREG_LANEMASK_GE: return wmask & ~lt;
    case CVM_SREG_PLANE_FULLMASK: return p->live;
    case CVM_SREG_DYN_SHARED_BASE: return x->dyn_base;
    case CVM_SREG_DYN_SHARED_SIZE: return L->dyn_shared;
    default: return 0;
    }
}

/* The first active lane whose divisor element is zero, or -1. */
/* Mask of the lanes (< nl) whose element is zero, typed so it vectorizes. */
#define ZERO_LANES(T)                                                                      \
    do {                                                                                   \
        const T *v_ = (const T *)(const void *)r;                                          \
        for (unsigned l = 0; l < nl; l++)                                                  \
            zero |= (uint64_t)(v_[l] == 0) << l;                                           \
    } while (0)
static int zero_divisor(const cvm_vm_exec *x, const cvm_vm_plane *p, const cvm_vm_dinsn *in,
                        const uint8_t *B)
{
    const unsigned nl = p->nlanes;
    uint64_t zero = 0;
    for (unsigned e = 0; e < in->line; e++) {
        const uint8_t *r = B + ((size_t)e << x->rshift);
        switch (in->esz) {
        case 1: ZERO_LANES(uint8_t); break;
        case 2: ZERO_LANES(uint16_t); break;
        case 4: ZERO_LANES(uint32_t); break;
        default: ZERO_LANES(uint64_t); break;
        }
    }
    zero &= p->active;
    return zero ? (int)lowest(zero) : -1;
}

/* Named barrier arrival (bar.sync / bar.arrive). Returns true when the
 * plane must wait. */
static bool bar_arrive(cvm_vm_exec *x, cvm_vm_plane *p, uint32_t id, uint32_t count, bool wait)
{
    if (x->bar_expected[id] == 0)
        x->bar_expected[id] = count ? count : x->units;
    x->bar_arrived[id] += p->nlanes;
    if (x->bar_arrived[id] < x->bar_expected[id]) {
        if (wait) {
            p->state = CVM_VM_AT_BAR;
            p->bar = id;
        }
        return wait;
    }
    x->bar_arrived[id] = 0;
    x->bar_expected[id] = 0;
    for (uint32_t i = 0; i < x->nplanes; i++) {
        cvm_vm_plane *q = &x->planes[i];
        if (q->state == CVM_VM_AT_BAR && q->bar == id) {
            q->state = CVM_VM_RUNNABLE;
            q->pc = q->wait_pc + 1;
            if (x->race)
                cvm_vm_race_leave(x, q, id);
        }
    }
    if (x->race) { /* the plane completing it leaves it too when it waits (bar.sync) */
        if (wait)
            cvm_vm_race_leave(x, p, id);
        cvm_vm_race_released(x, id);
    }
    return false;
}

/* After a uniform instruction computed lane l0 only: copy it to the other
 * active lanes (a plain fill when the whole plane is active). */
#define FILL(T)                                                                            \
    do {                                                                                   \
        T *t = (T *)(void *)r, v = t[l0];                                                  \
        if (full)                                                                          \
            for (unsigned l = 0; l < nl; l++)                                              \
                t[l] = v;                                                                  \
        else                                                                               \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    t[l] = v;                                                              \
    } while (0)
/* Writes value `val` to every active lane of slot `dst`. */
#define SPLATV(T, dst, val)                                                                \
    do {                                                                                   \
        T *t_ = (T *)(void *)(dst);                                                          \
        const T v_ = (T)(val);                                                             \
        if (full)                                                                          \
            for (unsigned l = 0; l < nl; l++)                                              \
                t_[l] = v_;                                                                \
        else                                                                               \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    t_[l] = v_;                                                            \
    } while (0)
static void broadcast(const cvm_vm_exec *x, const cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    const uint64_t act = p->active;
    const bool full = act == p->live;
    const unsigned l0 = lowest(act), nl = p->nlanes;
    for (unsigned e = 0; e < in->line; e++) {
        uint8_t *r = cvm_vm_reg(x, p, in->d + e);
        switch (cvm_vm_esz(in->ed)) {
        case 1: FILL(uint8_t); break;
        case 2: FILL(uint16_t); break;
        case 4: FILL(uint32_t); break;
        case 8: FILL(uint64_t); break;
        default: break;
        }
    }
}

/* CVM_VM_H_INDEX, d = a + ext(b) * s, on the active lanes of a plane of nl
 * lanes (registers at R): at the chain, or at the access of a late one. */
static void index_lanes(const cvm_vm_dinsn *in, uint8_t *R, unsigned rs, unsigned nl, uint64_t act,
                        bool full)
{
    const bool uni = false; /* decode gives INDEX no uniform bits */
    const unsigned l0 = 0;
    const size_t o_ = 0;
    uint8_t *const D = R + ((size_t)in->d << rs);
    const uint8_t *const A = R + ((size_t)in->a << rs), *const B = R + ((size_t)in->b << rs);
    const uint64_t s = in->imm;
    const unsigned sh = in->n;
    if (in->elem == CVM_T_PTR_GLOBAL) {
        switch (in->k) {
        case CVM_VM_IX_I64: LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + CAT(uint64_t, B)[l] * s;); break;
        case CVM_VM_IX_I64 | CVM_VM_IX_SHIFT:
            LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + (CAT(uint64_t, B)[l] << sh);); break;
        case CVM_VM_IX_SEXT32:
            LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + (uint64_t)(int64_t)CAT(int32_t, B)[l] * s;); break;
        case CVM_VM_IX_SEXT32 | CVM_VM_IX_SHIFT:
            LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + ((uint64_t)(int64_t)CAT(int32_t, B)[l] << sh);); break;
        case CVM_VM_IX_ZEXT32:
            LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + (uint64_t)CAT(uint32_t, B)[l] * s;); break;
        default:
            LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + ((uint64_t)CAT(uint32_t, B)[l] << sh);); break;
        }
    } else {
        /* 32-bit spaces keep the low 32 bits, which the extension does not change */
        const uint32_t s32 = (uint32_t)s;
        if (in->k & (CVM_VM_IX_SEXT32 | CVM_VM_IX_ZEXT32))
            LANES(AT(uint32_t, D)[l] = CAT(uint32_t, A)[l] + CAT(uint32_t, B)[l] * s32;);
        else
            LANES(AT(uint32_t, D)[l] = CAT(uint32_t, A)[l] + (uint32_t)CAT(uint64_t, B)[l] * s32;);
    }
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif

int cvm_vm_run_plane(cvm_vm_exec *ex, cvm_vm_plane *p)
{
    const cvm_vm_dinsn *const orig = ex->exact, *const code = ex->code;
    const unsigned rs = ex->rshift, nl = p->nlanes;
    const bool checked = ex->L->checked;
    uint8_t *const R = p->regs;
    cvm_vm_frame *const stack = p->stack;
    uint64_t steps = p->steps;
    /* one step (interp_lockstep.c, the debugger's hook): the step check stops
     * after this instruction, or faults when the budget is spent */
    const uint64_t limit = ex->one_step && steps + 1 < ex->step_limit ? steps + 1 : ex->step_limit;
    uint32_t pc = p->pc;
    const cvm_vm_dinsn *in;
    int r;

#define REG(slot) (R + ((size_t)(slot) << rs))
#define PRO                                                                                \
    const uint64_t act = p->active;                                                        \
    const bool full = act == p->live;                                                      \
    uint8_t *const D = REG(in->d);                                                         \
    const uint8_t *const A = REG(in->a), *const B = REG(in->b), *const C = REG(in->c);     \
    const unsigned ne = in->line;                                                          \
    const bool uni = in->uni & CVM_VM_UNI_PLANE;                                           \
    const unsigned l0 = uni ? lowest(act) : 0;                                             \
    (void)full; (void)D; (void)A; (void)B; (void)C; (void)ne; (void)l0
#define LEAVE(res)                                                                         \
    do {                                                                                   \
        p->pc = pc;                                                                        \
        p->steps = steps;                                                                  \
        return (res);                                                                      \
    } while (0)
#define FAULT_AT(lane, ...)                                                                \
    do {                                                                                   \
        p->pc = pc;                                                                        \
        cvm_vm_fault(ex, p, (lane), CVM_FAULT, __VA_ARGS__);                                \
        LEAVE(CVM_VM_R_FAULT);                                                             \
    } while (0)

#ifdef CVM_VM_GOTO
    static const void *const labels[CVM_VM_NHANDLERS] = {
#define X(name) [CVM_OP_##name] = &&L_##name,
        CVM_VM_HANDLED(X)
#undef X
        [CVM_VM_H_FINISH] = &&L_FINISH,
        [CVM_VM_H_INDEX] = &&LH_INDEX,
        [CVM_VM_H_ARITH64] = &&LH_ARITH64,
        [CVM_VM_H_CMPBR] = &&LH_CMPBR,
        [CVM_VM_H_DIVREM] = &&LH_DIVREM,
        [CVM_VM_H_MULADD] = &&LH_MULADD,
    };
#define CASE(op) L_##op:
#define CASE_H(name) LH_##name:
#define CASE_FINISH L_FINISH:
#define DISPATCH()                                                                         \
    do {                                                                                   \
        if (steps++ >= limit)                                                              \
            goto step_fault;                                                               \
        in = &code[pc];                                                                    \
        goto *labels[in->h];                                                               \
    } while (0)
    DISPATCH();
#else
#define CASE(op) case CVM_OP_##op:
#define CASE_FINISH case CVM_VM_H_FINISH:
#define CASE_H(name) case CVM_VM_H_##name:
#define DISPATCH() goto dispatch
dispatch:
    if (steps++ >= limit)
        goto step_fault;
    in = &code[pc];
    switch (in->h) {
#endif
#define NEXT()                                                                             \
    do {                                                                                   \
        pc++;                                                                              \
        DISPATCH();                                                                        \
    } while (0)
/* NEXT for handlers that may run uniformly (decode.h cvm_vm_uniform_candidate). */
#define UNEXT()                                                                            \
    do {                                                                                   \
        if (in->uni & CVM_VM_UNI_PLANE)                                                    \
            broadcast(ex, p, in);                                                          \
        NEXT();                                                                            \
    } while (0)
#define JUMP(t)                                                                            \
    do {                                                                                   \
        pc = (t);                                                                          \
        DISPATCH();                                                                        \
    } while (0)
/* The active mask became empty: go to the innermost construct's next marker. */
#define SKIP() goto skip

    /* ---------------- control flow ---------------- */
    CASE(NOP) NEXT();
    CASE(IF) {
        uint64_t c = bool_mask(REG(in->a), nl, p->active);
        cvm_vm_frame *f = &stack[in->aux];
        *f = (cvm_vm_frame){.kind = CVM_VM_F_IF, .open = pc, .next = in->target};
        f->m[0] = p->active & ~c;
        p->sp = in->aux + 1;
        p->active = c;
        if (!c)
            JUMP(in->target);
        NEXT();
    }
    CASE(ELSE) {
        cvm_vm_frame *f = &stack[in->aux];
        f->m[1] = p->active;
        f->m[2] = 1;
        f->next = in->end;
        p->active = f->m[0];
        if (!p->active)
            JUMP(in->end);
        NEXT();
    }
    CASE(LOOP) {
        cvm_vm_frame *f = &stack[in->aux];
        *f = (cvm_vm_frame){.kind = CVM_VM_F_LOOP, .open = pc, .next = in->target};
        p->sp = in->aux + 1;
        NEXT();
    }
    CASE(CONTINUING) {
        cvm_vm_frame *f = &stack[in->aux];
        p->active |= f->m[1];
        f->m[1] = 0;
        f->next = in->end;
        if (!p->active)
            JUMP(in->end);
        NEXT();
    }
    CASE(BREAK_IF) {
        uint64_t c = bool_mask(REG(in->a), nl, p->active);
        stack[in->aux].m[0] |= c;
        p->active &= ~c;
        if (!p->active)
            SKIP();
        NEXT();
    }
    CASE(BREAK) {
        cvm_vm_frame *f = &stack[in->aux];
        f->m[f->kind == CVM_VM_F_SWITCH ? 1 : 0] |= p->active;
        p->active = 0;
        SKIP();
    }
    CASE(CONTINUE) {
        stack[in->aux].m[1] |= p->active;
        p->active = 0;
        SKIP();
    }
    CASE(SWITCH) {
        cvm_vm_frame *f = &stack[in->aux];
        const uint8_t *sel = REG(in->a);
        uint64_t nomatch = 0;
        *f = (cvm_vm_frame){.kind = CVM_VM_F_SWITCH, .open = pc, .next = in->target};
        for (unsigned l = 0; l < nl; l++) {
            if (!(p->active >> l & 1))
                continue;
            uint64_t v = cvm_vm_get_bits(sel, in->ea, l);
            bool any = false;
            for (uint32_t m = in->target; code[m].h != CVM_OP_END && !any; m = code[m].target)
                any = code[m].h == CVM_OP_CASE && case_match(&code[m], v);
            nomatch |= (uint64_t)!any << l;
        }
        f->m[0] = p->active;
        f->m[3] = nomatch;
        p->sp = in->aux + 1;
        p->active = 0;
        JUMP(in->target);
    }
    CASE(CASE) CASE(DEFAULT) {
        cvm_vm_frame *f = &stack[in->aux];
        uint64_t m = 0;
        if (in->h == CVM_OP_DEFAULT) {
            m = f->m[3];
            f->m[3] = 0; /* taken: end must not add them again */
        } else {
            const uint8_t *sel = REG(code[f->open].a);
            for (unsigned l = 0; l < nl; l++)
                if ((f->m[0] >> l & 1) && case_match(in, cvm_vm_get_bits(sel, code[f->open].ea, l)))
                    m |= UINT64_C(1) << l;
        }
        f->m[1] |= p->active;
        p->active = m | f->m[2];
        f->m[2] = 0;
        f->next = in->target;
        if (!p->active)
            JUMP(in->target);
        NEXT();
    }
    CASE(FALLTHROUGH) {
        stack[in->aux].m[2] = p->active;
        p->active = 0;
        SKIP();
    }
    CASE(BLOCK) {
        cvm_vm_frame *f = &stack[in->aux];
        *f = (cvm_vm_frame){.kind = CVM_VM_F_BLOCK, .open = pc, .next = in->target};
        p->sp = in->aux + 1;
        NEXT();
    }
    CASE(EXIT) {
        stack[in->aux].m[0] |= p->active;
        p->active = 0;
        SKIP();
    }
    CASE(RETURN) {
        p->exited |= p->active;
        p->active = 0;
        SKIP();
    }
    CASE(END) {
        bool back;
        const uint32_t t = cvm_vm_end(p, code, in, pc, &back);
        if (back) {
            pc = t;
            if (--p->quantum == 0) {
                p->quantum = CVM_VM_QUANTUM;
                p->pc = pc;
                if (ex->L->timeout_s > 0 && cvm_vm_timed_out(ex, p))
                    LEAVE(CVM_VM_R_FAULT);
                if (ex->nplanes > 1)
                    LEAVE(CVM_VM_R_YIELD);
            }
            DISPATCH();
        }
        if (t == CVM_VM_PC_DONE)
            goto done;
        JUMP(t);
    }
    CASE_FINISH {
        p->exited |= p->active;
        p->active = 0;
        p->sp = 0;
        p->state = CVM_VM_DONE;
        LEAVE(CVM_VM_R_DONE);
    }

    /* ---------------- data movement ---------------- */
    CASE(MOV) {
        PRO;
        COPY_CASES(cvm_vm_esz(in->elem), A + o_);
        UNEXT();
    }
    CASE(CONST) {
        PRO;
        const uint64_t v = in->imm;
        switch (cvm_vm_esz(in->elem)) {
        case 1: EACH(AT(uint8_t, D)[l] = (uint8_t)v;) break;
        case 2: EACH(AT(uint16_t, D)[l] = (uint16_t)v;) break;
        case 4: EACH(AT(uint32_t, D)[l] = (uint32_t)v;) break;
        default: EACH(AT(uint64_t, D)[l] = v;) break;
        }
        UNEXT();
    }
    CASE(PARAM) {
        PRO;
        const unsigned size = in->esz;
        const uint8_t *src = ex->L->params + ex->L->param_offset[in->aux] + in->imm;
        for (unsigned e = 0; e < ne; e++) {
            uint64_t pv = 0;
            memcpy(&pv, src + (size_t)e * size, size);
            uint8_t *dst = D + ((size_t)e << rs);
            switch (size) {
            case 1: SPLATV(uint8_t, dst, pv); break;
            case 2: SPLATV(uint16_t, dst, pv); break;
            case 4: SPLATV(uint32_t, dst, pv); break;
            default: SPLATV(uint64_t, dst, pv); break;
            }
        }
        UNEXT();
    }
    CASE(SYM) {
        PRO;
        const uint64_t v = ex->L->sym_value[in->aux];
        if (in->elem == CVM_T_PTR_GLOBAL)
            EACH(AT(uint64_t, D)[l] = v;)
        else
            EACH(AT(uint32_t, D)[l] = (uint32_t)v;)
        UNEXT();
    }
    CASE(SREG) {
        PRO;
        uint32_t buf[64];
        const uint32_t *pos = in->esz == 4 ? sreg_lanes(ex, p, in->aux, buf) : NULL;
        if (pos)
            LANES(((uint32_t *)(void *)D)[l] = pos[l];);
        else
            LANES(cvm_vm_set_bits(D, in->elem, l, sreg_value(ex, p, in->aux, l)););
        UNEXT();
    }
    CASE(SELECT) {
        PRO;
        const unsigned size = cvm_vm_esz(in->elem);
        for (unsigned e = 0; e < ne; e++) {
            const size_t o = (size_t)e << rs;
            const uint8_t *c = C + (in->lc > 1 ? o : 0);
            for (unsigned l = 0; l < nl; l++)
                if (act >> l & 1)
                    cvm_vm_set_bits(D + o, in->elem, l,
                                    cvm_vm_get_bits((c[l] & 1) ? A + o : B + o, in->elem, l));
        }
        (void)size;
        UNEXT();
    }
    CASE(EXTRACT) {
        PRO;
        const uint8_t *src = A + ((size_t)in->aux << rs);
        COPY_CASES(cvm_vm_esz(in->elem), src);
        UNEXT();
    }
    CASE(INSERT) {
        PRO;
        COPY_CASES(cvm_vm_esz(in->elem), e_ == in->aux ? B : A + o_);
        UNEXT();
    }
    CASE(BUILD) {
        PRO;
        const cvm_vm_arg *args = in->ptr;
        const uint8_t *src[16]; /* each element's source, looked up once, not per lane */
        for (unsigned e = 0; e < ne && e < 16; e++)
            src[e] = REG(args[e < in->n ? e : 0].slot);
        COPY_CASES(cvm_vm_esz(in->elem), src[e_]);
        UNEXT();
    }
    CASE(SPLAT) {
        PRO;
        COPY_CASES(cvm_vm_esz(in->elem), A);
        UNEXT();
    }

    /* ---------------- arithmetic ---------------- */
    CASE(ADD) {
        PRO;
        switch (in->elem) {
            WRAP_CASES(BIN, x + y)
            FLT_QCASES(BIN, x + y, x + y, cvm_n_f16_add(x, y), cvm_n_bf16_add(x, y))
        default: break;
        }
        UNEXT();
    }
    CASE(SUB) {
        PRO;
        switch (in->elem) {
            WRAP_CASES(BIN, x - y)
            FLT_QCASES(BIN, x - y, x - y, cvm_n_f16_sub(x, y), cvm_n_bf16_sub(x, y))
        default: break;
        }
        UNEXT();
    }
    CASE(MUL) {
        PRO;
        switch (in->elem) {
            WRAP_CASES(BIN, (x + 0u) * y)
            FLT_QCASES(BIN, x * y, x * y, cvm_n_f16_mul(x, y), cvm_n_bf16_mul(x, y))
        default: break;
        }
        UNEXT();
    }
    CASE(DIV) {
        PRO;
        if (checked && cvm_bc_elem_is_int(in->elem)) {
            int lane = zero_divisor(ex, p, in, B);
            if (lane >= 0)
                FAULT_AT((unsigned)lane, "integer division by zero");
        }
        switch (in->elem) {
            SU_CASES(BIN, cvm_n_sdiv(x, y, bits), cvm_n_udiv(x, y, bits))
            FLT_QCASES(BIN, x / y, x / y, cvm_n_f16_div(x, y), cvm_n_bf16_div(x, y))
        default: break;
        }
        UNEXT();
    }
    CASE(REM) {
        PRO;
        if (checked && cvm_bc_elem_is_int(in->elem)) {
            int lane = zero_divisor(ex, p, in, B);
            if (lane >= 0)
                FAULT_AT((unsigned)lane, "integer remainder by zero");
        }
        switch (in->elem) {
            SU_CASES(BIN, cvm_n_srem(x, y, bits), cvm_n_urem(x, y, bits))
            FLT_QCASES(BIN, cvm_m_fmodf(x, y), cvm_m_fmod(x, y), R16(cvm_m_fmodf(F16(x), F16(y))),
                       RB(cvm_m_fmodf(FB(x), FB(y))))
        default: break;
        }
        UNEXT();
    }
    CASE(MIN) {
        PRO;
        if (in->elem == CVM_T_F32 && ne == 1) { /* cvm_n_fminf without branches */
            const size_t o_ = 0;
            LANES(FMINMAX_F32(<, xi, yi););
            UNEXT();
        }
        switch (in->elem) {
            SU_CASES(BIN, x < y ? x : y, x < y ? x : y)
            FLT_CASES(BIN, cvm_n_fminf(x, y), cvm_n_fmin(x, y), R16(cvm_n_fminf(F16(x), F16(y))),
                      RB(cvm_n_fminf(FB(x), FB(y))))
        default: break;
        }
        UNEXT();
    }
    CASE(MAX) {
        PRO;
        if (in->elem == CVM_T_F32 && ne == 1) { /* cvm_n_fmaxf without branches */
            const size_t o_ = 0;
            LANES(FMINMAX_F32(>, yi, xi););
            UNEXT();
        }
        switch (in->elem) {
            SU_CASES(BIN, x > y ? x : y, x > y ? x : y)
            FLT_CASES(BIN, cvm_n_fmaxf(x, y), cvm_n_fmax(x, y), R16(cvm_n_fmaxf(F16(x), F16(y))),
                      RB(cvm_n_fmaxf(FB(x), FB(y))))
        default: break;
        }
        UNEXT();
    }
    CASE(NEG) {
        PRO;
        switch (in->elem) {
            WRAP_CASES(UN, 0u - x)
            FLT_CASES(UN, cvm_n_fnegf(x), cvm_n_fneg(x), x ^ 0x8000u, x ^ 0x8000u)
        default: break;
        }
        UNEXT();
    }
    CASE(ABS) {
        PRO;
        switch (in->elem) {
            SU_CASES(UN, cvm_n_sabs(x, bits), x)
            FLT_CASES(UN, cvm_n_fabsf(x), cvm_n_fabs(x), x & 0x7fffu, x & 0x7fffu)
        default: break;
        }
        UNEXT();
    }
    CASE(FMA) {
        PRO;
        switch (in->elem) {
            FLT_QCASES(TERN, fmaf(x, y, z), fma(x, y, z), cvm_n_fma_f16(x, y, z),
                       cvm_n_fma_bf16(x, y, z))
        default: break;
        }
        UNEXT();
    }
    CASE(MAD) {
        PRO;
        switch (in->elem) {
            WRAP_CASES(TERN, (x + 0u) * y + z)
        default: break;
        }
        UNEXT();
    }
    CASE(MULHI) {
        PRO;
        switch (in->elem) {
            SU_CASES(BIN, cvm_n_smulhi(x, y, bits), cvm_n_umulhi(x, y, bits))
        default: break;
        }
        UNEXT();
    }
    CASE(CLAMP) {
        PRO;
        switch (in->elem) {
            SU_CASES(TERN, (x > y ? x : y) < z ? (x > y ? x : y) : z,
                     (x > y ? x : y) < z ? (x > y ? x : y) : z)
            FLT_CASES(TERN, cvm_n_clampf(x, y, z), cvm_n_clamp(x, y, z),
                      R16(cvm_n_clampf(F16(x), F16(y), F16(z))),
                      RB(cvm_n_clampf(FB(x), FB(y), FB(z))))
        default: break;
        }
        UNEXT();
    }

    /* ---------------- float math ---------------- */
    CASE(SQRT) {
        PRO;
        switch (in->elem) {
            FLT_QCASES(UN, sqrtf(x), sqrt(x), cvm_n_f16_sqrt(x), cvm_n_bf16_sqrt(x))
        default: break;
        }
        UNEXT();
    }
    CASE(RCP) {
        PRO;
        switch (in->elem) {
            FLT_QCASES(UN, 1.0f / x, 1.0 / x, cvm_n_f16_div(0x3c00u, x), cvm_n_bf16_div(0x3f80u, x))
        default: break;
        }
        UNEXT();
    }
    CASE(RSQRT) { PRO; MATH1(cvm_m_rsqrtf_inline, cvm_m_rsqrt); UNEXT(); }
    CASE(EXP) { PRO; MATH1(cvm_m_expf_inline, cvm_m_exp); UNEXT(); }
    CASE(EXP2) { PRO; MATH1(cvm_m_exp2f_inline, cvm_m_exp2); UNEXT(); }
    CASE(EXPM1) { PRO; MATH1(cvm_m_expm1f_inline, cvm_m_expm1); UNEXT(); }
    CASE(LOG) { PRO; MATH1(cvm_m_logf_inline, cvm_m_log); UNEXT(); }
    CASE(LOG2) { PRO; MATH1(cvm_m_log2f_inline, cvm_m_log2); UNEXT(); }
    CASE(LOG10) { PRO; MATH1(cvm_m_log10f_inline, cvm_m_log10); UNEXT(); }
    CASE(LOG1P) { PRO; MATH1(cvm_m_log1pf_inline, cvm_m_log1p); UNEXT(); }
    CASE(SIN) { PRO; MATH1(cvm_m_sinf, cvm_m_sin); UNEXT(); }
    CASE(COS) { PRO; MATH1(cvm_m_cosf, cvm_m_cos); UNEXT(); }
    CASE(TAN) { PRO; MATH1(cvm_m_tanf, cvm_m_tan); UNEXT(); }
    CASE(ASIN) { PRO; MATH1(cvm_m_asinf, cvm_m_asin); UNEXT(); }
    CASE(ACOS) { PRO; MATH1(cvm_m_acosf, cvm_m_acos); UNEXT(); }
    CASE(ATAN) { PRO; MATH1(cvm_m_atanf, cvm_m_atan); UNEXT(); }
    CASE(ATAN2) { PRO; MATH2(cvm_m_atan2f, cvm_m_atan2); UNEXT(); }
    CASE(SINH) { PRO; MATH1(cvm_m_sinhf, cvm_m_sinh); UNEXT(); }
    CASE(COSH) { PRO; MATH1(cvm_m_coshf, cvm_m_cosh); UNEXT(); }
    CASE(TANH) { PRO; MATH1(cvm_m_tanhf_inline, cvm_m_tanh); UNEXT(); }
    CASE(POW) { PRO; MATH2(cvm_m_powf, cvm_m_pow); UNEXT(); }
    CASE(ERF) { PRO; MATH1(cvm_m_erff_inline, cvm_m_erf); UNEXT(); }
    CASE(ERFC) { PRO; MATH1(cvm_m_erfcf, cvm_m_erfc); UNEXT(); }
    CASE(CBRT) { PRO; MATH1(cvm_m_cbrtf, cvm_m_cbrt); UNEXT(); }
    CASE(HYPOT) { PRO; MATH2(cvm_m_hypotf, cvm_m_hypot); UNEXT(); }
    /* floor, ceil, trunc and rint are exact IEEE operations everywhere */
    CASE(FLOOR) { PRO; MATH1(floorf, floor); UNEXT(); }
    CASE(CEIL) { PRO; MATH1(ceilf, ceil); UNEXT(); }
    CASE(TRUNC) { PRO; MATH1(truncf, trunc); UNEXT(); }
    CASE(RINT) { PRO; MATH1(rintf, rint); UNEXT(); }
    CASE(ROUND) { PRO; MATH1(cvm_m_roundf, cvm_m_round); UNEXT(); }
    CASE(COPYSIGN) {
        PRO;
        switch (in->elem) {
            FLT_CASES(BIN, cvm_n_copysignf(x, y), cvm_n_copysign(x, y),
                      (x & 0x7fffu) | (y & 0x8000u), (x & 0x7fffu) | (y & 0x8000u))
        default: break;
        }
        UNEXT();
    }

    /* ---------------- comparison ---------------- */
#define CMP_SWITCH(OP) CMP_TYPES(CMP, OP)
    CASE(EQ) { PRO; CMP_SWITCH(==); UNEXT(); }
    CASE(NE) { PRO; CMP_SWITCH(!=); UNEXT(); }
    CASE(LT) { PRO; CMP_SWITCH(<); UNEXT(); }
    CASE(LE) { PRO; CMP_SWITCH(<=); UNEXT(); }
    CASE(GT) { PRO; CMP_SWITCH(>); UNEXT(); }
    CASE(GE) { PRO; CMP_SWITCH(>=); UNEXT(); }
    CASE(ISNAN) {
        PRO;
        switch (in->ea) {
        case CVM_T_F32: TEST(float, x != x); break;
        case CVM_T_F64: TEST(double, x != x); break;
        case CVM_T_F16: TEST(uint16_t, (x & 0x7fffu) > 0x7c00u); break;
        case CVM_T_BF16: TEST(uint16_t, (x & 0x7fffu) > 0x7f80u); break;
        default: break;
        }
        UNEXT();
    }
    CASE(ISINF) {
        PRO;
        switch (in->ea) {
        case CVM_T_F32: TEST(float, (cvm_n_f32_bits(x) & 0x7fffffffu) == 0x7f800000u); break;
        case CVM_T_F64: TEST(double, (cvm_n_f64_bits(x) << 1) == UINT64_C(0xffe0000000000000)); break;
        case CVM_T_F16: TEST(uint16_t, (x & 0x7fffu) == 0x7c00u); break;
        case CVM_T_BF16: TEST(uint16_t, (x & 0x7fffu) == 0x7f80u); break;
        default: break;
        }
        UNEXT();
    }
    CASE(ISFINITE) {
        PRO;
        switch (in->ea) {
        case CVM_T_F32: TEST(float, (cvm_n_f32_bits(x) & 0x7f800000u) != 0x7f800000u); break;
        case CVM_T_F64: TEST(double, (cvm_n_f64_bits(x) << 1) < UINT64_C(0xffe0000000000000)); break;
        case CVM_T_F16: TEST(uint16_t, (x & 0x7c00u) != 0x7c00u); break;
        case CVM_T_BF16: TEST(uint16_t, (x & 0x7f80u) != 0x7f80u); break;
        default: break;
        }
        UNEXT();
    }

    /* ---------------- bitwise ---------------- */
    CASE(AND) { PRO; switch (in->elem) { case CVM_T_BOOL: BIN(uint8_t, x & y); break; WRAP_CASES(BIN, x & y) default: break; } UNEXT(); }
    CASE(OR) { PRO; switch (in->elem) { case CVM_T_BOOL: BIN(uint8_t, x | y); break; WRAP_CASES(BIN, x | y) default: break; } UNEXT(); }
    CASE(XOR) { PRO; switch (in->elem) { case CVM_T_BOOL: BIN(uint8_t, x ^ y); break; WRAP_CASES(BIN, x ^ y) default: break; } UNEXT(); }
    CASE(NOT) { PRO; switch (in->elem) { case CVM_T_BOOL: UN(uint8_t, x ^ 1u); break; WRAP_CASES(UN, ~x) default: break; } UNEXT(); }
#define SHIFT(T, EXPR)                                                                     \
    EACH(const T x = CAT(T, A)[l]; const uint64_t y = cvm_vm_get_bits(B + o_, in->eb, l);  \
         AT(T, D)[l] = (T)(EXPR);)
    CASE(SHL) {
        PRO;
        switch (in->elem) {
            SU_CASES(SHIFT, cvm_n_shl((uint64_t)x, y, bits), cvm_n_shl(x, y, bits))
        default: break;
        }
        UNEXT();
    }
    CASE(SHR) {
        PRO;
        switch (in->elem) {
            SU_CASES(SHIFT, cvm_n_ashr(x, y, bits), cvm_n_lshr(x, y, bits))
        default: break;
        }
        UNEXT();
    }
#define COUNT(FN)                                                                          \
    do {                                                                                   \
        const unsigned bits = cvm_vm_esz(in->ea) * 8;                                \
        EACH(AT(uint32_t, D)[l] = FN(cvm_vm_get_bits(A + o_, in->ea, l), bits);)           \
    } while (0)
    CASE(POPC) { PRO; COUNT(cvm_n_popc); UNEXT(); }
    CASE(CLZ) { PRO; COUNT(cvm_n_clz); UNEXT(); }
    CASE(CTZ) { PRO; COUNT(cvm_n_ctz); UNEXT(); }
    CASE(BREV) {
        PRO;
        const unsigned bits = cvm_vm_esz(in->elem) * 8;
        EACH(cvm_vm_set_bits(D + o_, in->elem, l,
                             cvm_n_brev(cvm_vm_get_bits(A + o_, in->elem, l), bits));)
        UNEXT();
    }

    /* ---------------- conversion and pointers ---------------- */
    CASE(CVT) {
        PRO;
        switch (in->k) {
#define CVT_CASE(K, TO, FROM, TD, TA, LOOP, EXPR)                                          \
        case CVM_VM_CVT_##K: EACH(const TA v = CAT(TA, A)[l]; AT(TD, D)[l] = (TD)(EXPR);) break;
        CVM_VM_CVTS(CVT_CASE)
#undef CVT_CASE
        default: cvm_vm_cvt(ex, p, in); break;
        }
        UNEXT();
    }
    CASE(BITCAST) { cvm_vm_bitcast(ex, p, in); UNEXT(); }
    CASE(PTR_ADD) {
        PRO;
        const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
        if (in->elem == CVM_T_PTR_GLOBAL) {
            if (wide)
                EACH(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + CAT(uint64_t, B)[l];)
            else
                EACH(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + (uint64_t)(int64_t)CAT(int32_t, B)[l];)
        } else {
            if (wide)
                EACH(AT(uint32_t, D)[l] = (uint32_t)(CAT(uint32_t, A)[l] + CAT(uint64_t, B)[l]);)
            else
                EACH(AT(uint32_t, D)[l] = CAT(uint32_t, A)[l] + CAT(uint32_t, B)[l];)
        }
        UNEXT();
    }
    CASE(PTR_DIFF) {
        PRO;
        if (in->ea == CVM_T_PTR_GLOBAL)
            EACH(cvm_vm_set_bits(D + o_, in->elem, l, CAT(uint64_t, A)[l] - CAT(uint64_t, B)[l]);)
        else
            EACH(cvm_vm_set_bits(D + o_, in->elem, l,
                                 (uint64_t)((int64_t)CAT(uint32_t, A)[l] - (int64_t)CAT(uint32_t, B)[l]));)
        UNEXT();
    }

    /* ---------------- memory and atomics ---------------- */
    CASE(LD) CASE(ST) CASE(LD_VOLATILE) CASE(ST_VOLATILE) CASE(LD_ATOMIC) CASE(ST_ATOMIC) {
        p->pc = pc;
        if (in->late) /* the address of the INDEX at in->end (kp->fast) */
            index_lanes(&code[in->end], R, rs, nl, p->active, p->active == p->live);
        if ((r = cvm_vm_mem(ex, p, in)))
            LEAVE(r);
        NEXT();
    }
    CASE(ATOM_ADD) CASE(ATOM_SUB) CASE(ATOM_MIN) CASE(ATOM_MAX) CASE(ATOM_AND) CASE(ATOM_OR)
    CASE(ATOM_XOR) CASE(ATOM_EXCH) CASE(ATOM_INC) CASE(ATOM_DEC) CASE(ATOM_CAS) {
        p->pc = pc;
        if ((r = cvm_vm_atomic(ex, p, in)))
            LEAVE(r);
        NEXT();
    }
    CASE(FENCE) {
        switch (in->order) {
        case CVM_ORDER_ACQUIRE: __atomic_thread_fence(__ATOMIC_ACQUIRE); break;
        case CVM_ORDER_RELEASE: __atomic_thread_fence(__ATOMIC_RELEASE); break;
        case CVM_ORDER_ACQ_REL: __atomic_thread_fence(__ATOMIC_ACQ_REL); break;
        case CVM_ORDER_RELAXED: break;
        default: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
        }
        NEXT();
    }

    /* ---------------- barriers (scheduling points) ---------------- */
    CASE(SYNC_CUBE) CASE(SYNC_CUBE_COUNT) CASE(SYNC_CUBE_AND) CASE(SYNC_CUBE_OR) {
        uint64_t want = p->live & ~p->exited;
        if (checked && p->active != want)
            FAULT_AT(lowest((p->active ^ want)),
                     "barrier divergence: sync_cube reached by lanes 0x%llx of 0x%llx",
                     (unsigned long long)p->active, (unsigned long long)want);
        p->state = CVM_VM_AT_SYNC;
        p->wait_pc = pc;
        LEAVE(CVM_VM_R_WAIT);
    }
    CASE(BAR_SYNC) CASE(BAR_ARRIVE) {
        unsigned l = lowest(p->active);
        uint32_t id = (uint32_t)cvm_vm_get_bits(REG(in->a), in->ea, l);
        uint32_t count = (uint32_t)cvm_vm_get_bits(REG(in->b), in->eb, l);
        if (id >= 16)
            FAULT_AT(l, "named barrier %u out of range (0..15)", id);
        if (count > ex->units)
            FAULT_AT(l, "named barrier %u waits for %u units but the cube has %u", id, count,
                     ex->units);
        p->wait_pc = pc;
        if (bar_arrive(ex, p, id, count, in->h == CVM_OP_BAR_SYNC))
            LEAVE(CVM_VM_R_WAIT);
        NEXT();
    }

    /* ---------------- plane ops ---------------- */
    CASE(SYNC_PLANE) CASE(SHFL_IDX) CASE(SHFL_UP) CASE(SHFL_DOWN) CASE(SHFL_XOR) CASE(VOTE_ALL)
    CASE(VOTE_ANY) CASE(VOTE_BALLOT) CASE(REDUCE_ADD) CASE(REDUCE_MIN) CASE(REDUCE_MAX)
    CASE(REDUCE_AND) CASE(REDUCE_OR) CASE(REDUCE_XOR) CASE(SCAN_ADD) CASE(EXSCAN_ADD)
    CASE(MATCH_ANY) CASE(MATCH_ALL) {
        p->pc = pc;
        if ((r = cvm_vm_plane_op(ex, p, in)))
            LEAVE(r);
        NEXT();
    }
    CASE(ACTIVEMASK) {
        PRO;
        LANES(cvm_vm_set_bits(D, in->elem, l, act););
        NEXT();
    }

    /* ---------------- debugging ---------------- */
    CASE(ASSERT) {
        uint64_t bad = p->active & ~bool_mask(REG(in->a), nl, p->active);
        if (bad)
            FAULT_AT(lowest(bad), "assertion failed: %s", (const char *)in->ptr);
        NEXT();
    }
    CASE(TRAP) {
        FAULT_AT(lowest(p->active), "trap: %s", (const char *)in->ptr);
    }
    CASE(PRINT) {
        p->pc = pc;
        if ((r = cvm_vm_print(ex, p, in)))
            LEAVE(r);
        NEXT();
    }

    /* ---------------- fused chains (kp->fast only; fuse.c) ---------------- */
    CASE_H(INDEX) {
        if (!in->late) /* else computed at its access, code[in->end] */
            index_lanes(in, R, rs, nl, p->active, p->active == p->live);
        JUMP(in->target);
    }
    CASE_H(ARITH64) {
        PRO;
        const size_t o_ = 0;
        const bool add = in->c == CVM_OP_ADD;
#define SX(base) ((uint64_t)(int64_t)CAT(int32_t, base)[l])
        switch (in->k) {
        case 1:
            if (add) LANES(AT(uint64_t, D)[l] = SX(A) + CAT(uint64_t, B)[l];);
            else LANES(AT(uint64_t, D)[l] = SX(A) * CAT(uint64_t, B)[l];);
            break;
        case 2:
            if (add) LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] + SX(B););
            else LANES(AT(uint64_t, D)[l] = CAT(uint64_t, A)[l] * SX(B););
            break;
        default: /* both 32-bit: the 64-bit result cannot overflow */
            if (add)
                LANES(AT(int64_t, D)[l] = (int64_t)CAT(int32_t, A)[l] + CAT(int32_t, B)[l];);
            else
                LANES(AT(int64_t, D)[l] = (int64_t)CAT(int32_t, A)[l] * CAT(int32_t, B)[l];);
            break;
        }
#undef SX
        JUMP(in->target);
    }
    CASE_H(MULADD) { /* a + b * c, rounded twice (fuse.c fuse_muladd) */
        PRO;
        if (in->elem == CVM_T_F32) {
            TERN(float, cvm_n_qf(x + y * z));
        } else {
            TERN(double, cvm_n_q(x + y * z));
        }
        JUMP(in->target);
    }
    CASE_H(DIVREM) { /* the first op's checks and fault; both results at once */
        PRO;
        const size_t o_ = 0;
        uint8_t *const Q = REG(in->c);
        if (checked) {
            int lane = zero_divisor(ex, p, in, B);
            if (lane >= 0)
                FAULT_AT((unsigned)lane, in->k ? "integer division by zero"
                                                : "integer remainder by zero");
        }
#define QR(T, QE, RE)                                                                      \
    LANES(const T x = CAT(T, A)[l]; const T y = CAT(T, B)[l]; AT(T, Q)[l] = (T)(QE);       \
          AT(T, D)[l] = (T)(RE);)
        switch (in->elem) {
        case CVM_T_I32: QR(int32_t, cvm_n_sdiv(x, y, 32), cvm_n_srem(x, y, 32)); break;
        case CVM_T_U32: QR(uint32_t, cvm_n_udiv(x, y, 32), cvm_n_urem(x, y, 32)); break;
        case CVM_T_I64: QR(int64_t, cvm_n_sdiv(x, y, 64), cvm_n_srem(x, y, 64)); break;
        default: QR(uint64_t, cvm_n_udiv(x, y, 64), cvm_n_urem(x, y, 64)); break;
        }
#undef QR
        JUMP(in->target);
    }
    CASE_H(CMPBR) {
        const uint64_t act = p->active;
        uint64_t m = cmp_mask(ex, p, &orig[in->a], act);
        if (in->b != UINT32_MAX) {
            const uint64_t m2 = cmp_mask(ex, p, &orig[in->b], act);
            m = in->c == CVM_OP_AND ? m & m2 : m | m2;
        }
        m = (in->k ? ~m : m) & act;
        const uint32_t t = cvm_vm_cmpbr(p, in, orig, act, m);
        if (t == CVM_VM_PC_DONE)
            goto done;
        JUMP(t);
    }

#ifndef CVM_VM_GOTO
    default:
        FAULT_AT(0, "internal error: no handler for op %u", in->h);
    }
#endif

skip:
    /* the active mask is empty: the innermost construct's next marker
     * recomputes it; at the outermost level every lane has finished */
    if (p->sp) {
        JUMP(cvm_vm_skip(p));
    }
done:
    p->state = CVM_VM_DONE;
    LEAVE(CVM_VM_R_DONE);

step_fault:
    steps--;
    if (ex->one_step && steps < ex->step_limit)
        LEAVE(CVM_VM_R_YIELD);
    FAULT_AT(p->active ? lowest(p->active) : 0, "step budget of %llu instructions exceeded",
             (unsigned long long)limit);
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
