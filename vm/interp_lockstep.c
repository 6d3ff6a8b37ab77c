/*
 * interp_lockstep.c - runs the planes of a cube in lockstep: one dispatch
 * per instruction for the whole cube instead of one per plane.
 *
 * The plane interpreter (interp_run.c) pays its dispatch, operand decoding
 * and type switch once per plane and instruction; for a cube of 256 units
 * that is eight times per instruction, and for the memory-bound kernels it
 * costs more than the lane loops themselves. While every plane of a cube is
 * runnable at the same pc, this loop decodes an instruction once and runs
 * its typed lane loop over every plane's registers (the planes' register
 * files lie at a constant stride). Planes keep their own active masks, so
 * divergence inside a plane changes nothing here.
 *
 * Which instructions: the common arithmetic, compares, conversions, moves
 * and the fused chains of fuse.c on 4- and 8-byte types, conversions
 * between any of the types interp.h CVM_VM_CVTS lists (line 1), and
 * plain loads and stores (interp_mem.c, plane by plane). Every other
 * instruction, control flow included, runs through cvm_vm_run_plane in
 * one-step mode for each plane in turn, so its semantics are the plane
 * interpreter's by construction. After such a step the planes either still
 * agree (all runnable at one pc) and lockstep goes on, or they part (a
 * branch some planes took and others did not, a barrier, the end, a
 * fault) and the cube's scheduler (interp.c run_cube) runs them one by one
 * as before, until a barrier brings them together again.
 *
 * Ordering: planes of a cube run concurrently on a GPU and the interpreter
 * has always been free to interleave them between scheduling points; here
 * they interleave per instruction. Kernels with `print` (whose output order
 * between planes would change) do not run in lockstep (decode.c), nor do
 * launches with a step budget or a sequential or random schedule (interp.c
 * plan), so the debugger and the schedule modes see the plane interpreter
 * alone.
 */
#include "interp.h"

/* The lane loops are this file's work (see interp_run.c). Without
 * trapping math: the selects of f32 exp's range checks (mathlib.h) are
 * compares GCC will not if-convert while a compare may raise a floating
 * point exception, and that kept exp's lane loop scalar. Nothing in
 * cubevm reads the exception flags or enables traps, and the option
 * changes no result: only whether a flag may be raised speculatively. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap", "no-trapping-math")
#endif

#include <math.h>
#include <string.h>

#include "ctl.h"
#include "lanes.h"
#include "mathlib.h"
#include "numerics.h"

#define FULL UINT64_C(0xffffffff)
#if defined(__GNUC__) && !defined(__clang__)
#define UNROLL _Pragma("GCC unroll 8")
#else
#define UNROLL
#endif

/* BODY once per plane: Rg is its register file, act its active mask. */
#define PLANES(...)                                                                        \
    do {                                                                                   \
        const size_t od_ = (size_t)in->d << rs, oa_ = (size_t)in->a << rs;                 \
        const size_t ob_ = (size_t)in->b << rs, oc_ = (size_t)in->c << rs;                 \
        (void)od_, (void)oa_, (void)ob_, (void)oc_;                                        \
        for (unsigned g_ = 0; g_ < G; g_++) {                                              \
            uint8_t *const Rg = R0 + g_ * stride;                                          \
            const uint64_t act = P[g_].active;                                             \
            __VA_ARGS__;                                                                   \
        }                                                                                  \
    } while (0)
/* BODY for every active lane l of the current plane (straight vector code
 * when all 32 are). */
#define LANES(...)                                                                         \
    do {                                                                                   \
        if (act == FULL) {                                                                 \
            IVDEP UNROLL for (unsigned l = 0; l < FIXED_W; l++) { __VA_ARGS__ }            \
        } else if (act) {                                                                  \
            for (unsigned l = 0; l < FIXED_W; l++)                                         \
                if (act >> l & 1) { __VA_ARGS__ }                                          \
        }                                                                                  \
    } while (0)
/* LANES as the vectorizable conversions (LANES_V) and those that call a
 * routine per lane (LANES_S: not unrolled; interp.h CVM_VM_CVTS). */
#define LANES_V LANES
#define LANES_S(...)                                                                       \
    do {                                                                                   \
        for (unsigned l = 0; l < FIXED_W; l++)                                             \
            if (act >> l & 1) { __VA_ARGS__ }                                              \
    } while (0)
/* LANES for a body that writes d[l] (type T) alone, from lane l's
 * operands, and can neither trap nor branch on them (BIN, MIX, CMP and
 * SHIFT: arithmetic, compares, shifts, the fused chains): a partial plane
 * computes every lane as vector code too, then puts the inactive lanes'
 * old d back with a blend (instead of a scalar loop testing each lane;
 * conv's edge planes). */
#define LANES_ALL(T, ...)                                                                  \
    do {                                                                                   \
        if (act == FULL) {                                                                 \
            IVDEP UNROLL for (unsigned l = 0; l < FIXED_W; l++) { __VA_ARGS__ }            \
        } else if (act) {                                                                  \
            uint8_t keep_[FIXED_W * sizeof(T)];                                            \
            memcpy(keep_, d, sizeof keep_);                                                \
            IVDEP UNROLL for (unsigned l = 0; l < FIXED_W; l++) { __VA_ARGS__ }            \
            if (sizeof(T) == 1)                                                            \
                KEEP_INACTIVE(uint8_t);                                                    \
            else if (sizeof(T) == 4)                                                       \
                KEEP_INACTIVE(uint32_t);                                                   \
            else                                                                           \
                KEEP_INACTIVE(uint64_t);                                                   \
        }                                                                                  \
    } while (0)
#define KEEP_INACTIVE(U)                                                                   \
    do {                                                                                   \
        U *const dd_ = (U *)(void *)d;                                                     \
        const U *const kk_ = (const U *)(const void *)keep_;                               \
        const uint32_t am_ = (uint32_t)act;                                                \
        for (unsigned l = 0; l < FIXED_W; l++) {                                           \
            const U on_ = (U)((U)0 - (U)((am_ >> l) & 1u));                                \
            dd_[l] = (U)((dd_[l] & on_) | (kk_[l] & (U)~on_));                             \
        }                                                                                  \
    } while (0)
/* Lane arrays of the instruction's registers d, a, b, c in the current
 * plane. PLANES takes their offsets once, before the plane loop: with
 * -fno-strict-aliasing every lane store could otherwise change `in`, and
 * GCC read its fields again for each plane. */
#define SD(T) ((T *)(void *)(Rg + od_))
#define SA(T) ((T *)(void *)(Rg + oa_))
#define SB(T) ((T *)(void *)(Rg + ob_))
#define SC(T) ((T *)(void *)(Rg + oc_))

#define UN(T, EXPR)                                                                        \
    PLANES(T *d = SD(T); const T *a = SA(T);                                               \
           LANES(const T x = a[l]; d[l] = (T)(EXPR);))
#define BIN(T, EXPR)                                                                       \
    PLANES(T *d = SD(T); const T *a = SA(T); const T *b = SB(T);                           \
           LANES_ALL(T, const T x = a[l]; const T y = b[l]; d[l] = (T)(EXPR);))
/* d (type TD) from a (type TA) and b (type TB). */
#define MIX(TD, TA, TB, EXPR)                                                              \
    PLANES(TD *d = SD(TD); const TA *a = SA(TA);                                           \
           const TB *b = SB(TB); LANES_ALL(TD, d[l] = (TD)(EXPR);))
#define CMP(T, EXPR)                                                                       \
    PLANES(uint8_t *d = SD(uint8_t); const T *a = SA(T);                                   \
           const T *b = SB(T);                                                             \
           LANES_ALL(uint8_t, const T x = a[l]; const T y = b[l]; d[l] = (uint8_t)(EXPR);))
#define FILLV(T, v)                                                                        \
    PLANES(T *d = SD(T); const T v_ = (T)(v); LANES(d[l] = v_;))

/* The fields of a lockstep the lane-loop macros above use, as locals. */
#define LOCALS(s)                                                                          \
    cvm_vm_plane *const P = (s)->P;                                                        \
    const unsigned G = (s)->G, rs = (s)->rs;                                               \
    uint8_t *const R0 = (s)->R0;                                                           \
    const size_t stride = (s)->stride;                                                     \
    (void)P, (void)G, (void)rs, (void)R0, (void)stride

typedef struct lockstep {
    cvm_vm_exec *x;
    cvm_vm_plane *P;
    unsigned G, rs;
    uint8_t *R0;
    size_t stride;
} lockstep;

/* Integer types by width (wrapping ops), f32 and f64 (a NaN result the
 * canonical one: numerics.h cvm_n_qf): false for others. */
#define ARITH(EXPR_I, EXPR_F)                                                              \
    switch (in->elem) {                                                                    \
    case CVM_T_I32: case CVM_T_U32: BIN(uint32_t, EXPR_I); return true;                    \
    case CVM_T_I64: case CVM_T_U64: BIN(uint64_t, EXPR_I); return true;                    \
    case CVM_T_F32: BIN(float, cvm_n_qf(EXPR_F)); return true;                             \
    case CVM_T_F64: BIN(double, cvm_n_q(EXPR_F)); return true;                             \
    default: return false;                                                                 \
    }
/* Every source type (lanes.h CMP_TYPES); none for a typeless operand. */
#define COMPARE(OP)                                                                        \
    if (!cvm_vm_esz(in->ea))                                                               \
        return false;                                                                      \
    CMP_TYPES(CMP, OP)                                                                     \
    return true;
#define BITWISE(OP)                                                                        \
    switch (in->elem) {                                                                    \
    case CVM_T_BOOL: BIN(uint8_t, x OP y); return true;                                    \
    case CVM_T_I32: case CVM_T_U32: BIN(uint32_t, x OP y); return true;                    \
    case CVM_T_I64: case CVM_T_U64: BIN(uint64_t, x OP y); return true;                    \
    default: return false;                                                                 \
    }

/* f32 min (OP <, NEG_PICK xi) and max (OP >, yi, IS_MAX) by lanes.h's selects, a full
 * plane in AVX where built for it (fminmax_full below). */
#define FMINMAX(OP, NEG_PICK, POS_PICK, IS_MAX)                                            \
    PLANES(uint32_t *d = SD(uint32_t); const float *a = SA(float);                         \
           const float *b = SB(float);                                                     \
           const uint32_t *ai = SA(uint32_t), *bi = SB(uint32_t);                          \
           if (FMINMAX_FULL(act, d, a, b, IS_MAX)) continue;                               \
           LANES(uint32_t r_; const float x = a[l], y = b[l];                              \
                 const uint32_t xi = ai[l], yi = bi[l];                                    \
                 FMINMAX_F32_BITS(r_, OP, NEG_PICK, POS_PICK, x, y, xi, yi); d[l] = r_;))

#if defined(__AVX512F__)
/* fminmax_full below with AVX-512's mask registers: sixteen lanes per
 * vector, and the fix-ups are masked moves instead of blends. */
static inline void fminmax_full(uint32_t *d, const float *a, const float *b, bool max)
{
    const __m512 nan = _mm512_castsi512_ps(_mm512_set1_epi32((int)CVM_N_NAN32));
    for (unsigned l = 0; l < FIXED_W; l += 16) {
        const __m512 x = _mm512_loadu_ps(a + l), y = _mm512_loadu_ps(b + l);
        const __m512i xi = _mm512_castps_si512(x), yi = _mm512_castps_si512(y);
        const __mmask16 nx = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        const __mmask16 ny = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
        const __mmask16 eq = _mm512_cmp_ps_mask(x, y, _CMP_EQ_OQ);
        __m512 r = max ? _mm512_max_ps(x, y) : _mm512_min_ps(x, y);
        r = _mm512_mask_mov_ps(
            r, eq, _mm512_castsi512_ps(max ? _mm512_and_si512(xi, yi) : _mm512_or_si512(xi, yi)));
        r = _mm512_mask_mov_ps(r, ny, x);
        r = _mm512_mask_mov_ps(r, nx, _mm512_mask_mov_ps(y, ny, nan));
        _mm512_storeu_ps((void *)(d + l), r);
    }
}
#define FMINMAX_FULL(act, d, a, b, max) ((act) == FULL && (fminmax_full(d, a, b, max), true))
#elif defined(__AVX2__)
/*
 * f32 min or max of a full plane with numerics.h's rules in AVX: vminps /
 * vmaxps, then the lanes they get wrong: equal operands (only -0 and +0
 * differ; the OR of the bits picks -0 for min, the AND +0 for max), a NaN
 * operand (the other one), two NaNs (the canonical NaN). The selects of
 * FMINMAX_F32_BITS compile to about twice the instructions.
 */
static inline void fminmax_full(uint32_t *d, const float *a, const float *b, bool max)
{
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32((int)CVM_N_NAN32));
    for (unsigned l = 0; l < FIXED_W; l += 8) {
        const __m256 x = _mm256_loadu_ps(a + l), y = _mm256_loadu_ps(b + l);
        const __m256 nx = _mm256_cmp_ps(x, x, _CMP_UNORD_Q), ny = _mm256_cmp_ps(y, y, _CMP_UNORD_Q);
        __m256 r = max ? _mm256_max_ps(x, y) : _mm256_min_ps(x, y);
        r = _mm256_blendv_ps(r, max ? _mm256_and_ps(x, y) : _mm256_or_ps(x, y),
                             _mm256_cmp_ps(x, y, _CMP_EQ_OQ));
        r = _mm256_blendv_ps(r, x, ny);
        r = _mm256_blendv_ps(r, _mm256_blendv_ps(y, nan, ny), nx);
        _mm256_storeu_ps((float *)(void *)(d + l), r);
    }
}
#define FMINMAX_FULL(act, d, a, b, max) ((act) == FULL && (fminmax_full(d, a, b, max), true))
#else
#define FMINMAX_FULL(act, d, a, b, max) false
#endif

/* Shifts: the count is a 32-bit register (y), numerics.h's clamping. */
#define SHIFT(T, EXPR)                                                                     \
    PLANES(T *d = SD(T); const T *a = SA(T);                                               \
           const uint32_t *b = SB(uint32_t);                                               \
           LANES_ALL(T, const T x = a[l]; const uint64_t y = b[l]; d[l] = (T)(EXPR);))

/* Whether, in checked mode, an active lane of some plane divides integer
 * `in` by zero (then the plane interpreter runs the instruction and
 * faults): a full plane tests all its lanes at once; a partial one its
 * active lanes alone (the others hold whatever an earlier cube left, or
 * zero: not this kernel's divisors). */
#define ZERO_DIVISOR(T)                                                                    \
    do {                                                                                   \
        for (unsigned g_ = 0; g_ < G && !zero; g_++) {                                     \
            const T *b_ = (const T *)(const void *)(R0 + g_ * stride + ((size_t)in->b << rs)); \
            const uint64_t act_ = P[g_].active;                                            \
            unsigned any_ = 0;                                                             \
            if ((in->uni & CVM_VM_UNI_B) && act_) { /* one value in the active lanes */    \
                any_ = b_[__builtin_ctzll(act_)] == 0;                                     \
            } else if (act_ == FULL) {                                                     \
                IVDEP for (unsigned l = 0; l < FIXED_W; l++)                               \
                    any_ |= b_[l] == 0;                                                    \
            } else {                                                                       \
                for (unsigned l = 0; l < FIXED_W; l++)                                     \
                    any_ |= (act_ >> l & 1) && b_[l] == 0;                                 \
            }                                                                              \
            zero = any_ != 0;                                                              \
        }                                                                                  \
    } while (0)
static bool zero_divisor(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    bool zero = false;
    if (!s->x->L->checked || !cvm_bc_elem_is_int(in->elem))
        return false;
    if (in->esz == 4)
        ZERO_DIVISOR(uint32_t);
    else
        ZERO_DIVISOR(uint64_t);
    return zero;
}
#undef ZERO_DIVISOR

/*
 * A divisor that is one value in every active lane (decode.c CVM_VM_UNI_B)
 * and a positive power of two 2^k: shifts instead (pooling's channel and
 * row counts split a linear index). k_ is k, or -1 when the divisor is not
 * one; UT is T's unsigned type, S 1 for a signed T. A signed quotient
 * truncates toward zero: the magnitude shifted, then the sign put back, in
 * UT (INT_MIN by 1 is INT_MIN again); the remainder is x - q 2^k, also in
 * UT.
 */
#define POW2_DIVISOR(T, UT, k_)                                                            \
    int k_ = -1;                                                                           \
    if ((in->uni & CVM_VM_UNI_B) && act) {                                                 \
        const T y_ = b[__builtin_ctzll(act)];                                              \
        if (y_ > 0 && !((UT)y_ & ((UT)y_ - 1)))                                            \
            k_ = __builtin_ctzll((uint64_t)(UT)y_);                                        \
    }
#define POW2_Q(T, UT, S, x, k)                                                             \
    ((S) && (UT)(x) >> (sizeof(T) * 8 - 1) ? (T)((UT)0 - (((UT)0 - (UT)(x)) >> (k)))       \
                                           : (T)((UT)(x) >> (k)))
#define POW2_R(T, UT, x, q, k) ((T)((UT)(x) - ((UT)(q) << (k))))

/*
 * Integer division or remainder (EXACT, numerics.h's results) of every
 * plane (by shifts where the divisor is POW2_DIVISOR's); where all 32
 * lanes of a plane hold 0 <= x < 2^31 and 0 < y < 2^31 (indexes,
 * positions, sizes: the common case), through f64 instead: the
 * f64 quotient of such integers truncates to the exact one (when x/y is
 * not an integer it lies at least 1/y below the next one, and half an f64
 * step there is under 2^-21/y), and the remainder is x - q*y in 32 bits.
 * Four or eight lanes per vector divide, where the exact form is one
 * idiv per lane. Only full planes take it (the test reads every lane; a
 * partial plane's inactive lanes hold whatever an earlier cube left,
 * which must not decide anything; Valgrind said so when they were still
 * uninitialized memory).
 */
/* big_: bit 31 clear when the plane is full and its a and b are small
 * (not looked at when POW2_DIVISOR's shifts, k_ >= 0, do the plane). */
#define SMALL_OPERANDS(big_)                                                               \
    uint64_t big_ = UINT64_C(1) << 31;                                                     \
    if (act == FULL && k_ < 0) {                                                           \
        big_ = 0;                                                                          \
        IVDEP for (unsigned l = 0; l < FIXED_W; l++)                                       \
            big_ |= (uint64_t)a[l] | ((uint64_t)b[l] - 1);                                 \
    }
#define SMALL_DIVIDE(T, UT, S, EXACT)                                                      \
    PLANES(T *d = SD(T); const T *a = SA(T); const T *b = SB(T);                           \
           POW2_DIVISOR(T, UT, k_)                                                         \
           SMALL_OPERANDS(big_)                                                            \
           if (k_ >= 0 && div) {                                                           \
               LANES(const T x = a[l]; d[l] = POW2_Q(T, UT, S, x, k_););                   \
           } else if (k_ >= 0) {                                                           \
               LANES(const T x = a[l]; d[l] = POW2_R(T, UT, x, POW2_Q(T, UT, S, x, k_), k_);); \
           } else if (big_ >> 31) {                                                        \
               LANES(const T x = a[l]; const T y = b[l]; d[l] = (T)(EXACT););              \
           } else if (div) {                                                               \
               LANES(d[l] = (T)(int32_t)((double)(int32_t)a[l] / (double)(int32_t)b[l]);); \
           } else {                                                                        \
               LANES(const int32_t x_ = (int32_t)a[l], y_ = (int32_t)b[l];                 \
                     const int32_t q_ = (int32_t)((double)x_ / (double)y_);                \
                     d[l] = (T)(x_ - q_ * y_););                                           \
           })

/* Integer division and remainder with numerics.h's results (a zero divisor
 * in checked mode: false, the plane interpreter faults), f32/f64 division. */
static bool divide(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    const bool div = in->h == CVM_OP_DIV;
    switch (in->elem) {
    case CVM_T_I32: case CVM_T_U32: case CVM_T_I64: case CVM_T_U64:
    case CVM_T_F32: case CVM_T_F64: break;
    default: return false;
    }
    if (zero_divisor(s, in))
        return false;
    switch (in->elem) {
    case CVM_T_I32:
        if (div) SMALL_DIVIDE(int32_t, uint32_t, 1, cvm_n_sdiv(x, y, 32)); else SMALL_DIVIDE(int32_t, uint32_t, 1, cvm_n_srem(x, y, 32));
        return true;
    case CVM_T_U32:
        if (div) SMALL_DIVIDE(uint32_t, uint32_t, 0, cvm_n_udiv(x, y, 32)); else SMALL_DIVIDE(uint32_t, uint32_t, 0, cvm_n_urem(x, y, 32));
        return true;
    case CVM_T_I64:
        if (div) SMALL_DIVIDE(int64_t, uint64_t, 1, cvm_n_sdiv(x, y, 64)); else SMALL_DIVIDE(int64_t, uint64_t, 1, cvm_n_srem(x, y, 64));
        return true;
    case CVM_T_U64:
        if (div) SMALL_DIVIDE(uint64_t, uint64_t, 0, cvm_n_udiv(x, y, 64)); else SMALL_DIVIDE(uint64_t, uint64_t, 0, cvm_n_urem(x, y, 64));
        return true;
    case CVM_T_F32:
        if (!div)
            return false;
        BIN(float, cvm_n_qf(x / y));
        return true;
    default: /* f64 */
        if (!div)
            return false;
        BIN(double, cvm_n_q(x / y));
        return true;
    }
}

/* SMALL_DIVIDE for both results of a fused rem and div (fuse.c
 * fuse_divrem): q to slot c, the remainder to d, one division. */
#define SMALL_DIVREM(T, UT, S, QEXACT, REXACT)                                             \
    PLANES(T *d = SD(T); T *q = SC(T); const T *a = SA(T);                                 \
           const T *b = SB(T);                                                             \
           POW2_DIVISOR(T, UT, k_)                                                         \
           SMALL_OPERANDS(big_)                                                            \
           if (k_ >= 0) {                                                                  \
               LANES(const T x = a[l]; const T q_ = POW2_Q(T, UT, S, x, k_); q[l] = q_;    \
                     d[l] = POW2_R(T, UT, x, q_, k_););                                    \
           } else if (big_ >> 31) {                                                        \
               LANES(const T x = a[l]; const T y = b[l]; q[l] = (T)(QEXACT);               \
                     d[l] = (T)(REXACT););                                                 \
           } else {                                                                        \
               LANES(const int32_t x_ = (int32_t)a[l], y_ = (int32_t)b[l];                 \
                     const int32_t q_ = (int32_t)((double)x_ / (double)y_);                \
                     q[l] = (T)q_; d[l] = (T)(x_ - q_ * y_););                             \
           })

/* A fused rem and div (CVM_VM_H_DIVREM); false for a zero divisor in
 * checked mode (the plane interpreter faults as the first of them would). */
static bool divrem(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    if (zero_divisor(s, in))
        return false;
    switch (in->elem) {
    case CVM_T_I32: SMALL_DIVREM(int32_t, uint32_t, 1, cvm_n_sdiv(x, y, 32), cvm_n_srem(x, y, 32)); break;
    case CVM_T_U32: SMALL_DIVREM(uint32_t, uint32_t, 0, cvm_n_udiv(x, y, 32), cvm_n_urem(x, y, 32)); break;
    case CVM_T_I64: SMALL_DIVREM(int64_t, uint64_t, 1, cvm_n_sdiv(x, y, 64), cvm_n_srem(x, y, 64)); break;
    default: SMALL_DIVREM(uint64_t, uint64_t, 0, cvm_n_udiv(x, y, 64), cvm_n_urem(x, y, 64)); break;
    }
    return true;
}

/* f32 sin or cos: the branch-free routine over the whole plane when every
 * active lane is within its range (mathlib.h), else the full routine per
 * lane. */
#define TRIG(INLINE, FULL_FN)                                                              \
    PLANES(float *d = SD(float); const float *a = SA(float);                               \
           unsigned big_ = 0; /* active lanes only: the others may hold anything */        \
           for (unsigned l = 0; l < FIXED_W; l++)                                          \
               big_ |= (unsigned)(act >> l & 1) & !(fabsf(a[l]) <= CVM_M_TRIGF_INLINE_MAX);  \
           if (!big_) LANES(const float x = a[l]; d[l] = cvm_n_qf(INLINE(x)););            \
           else LANES_S(d[l] = cvm_n_qf(FULL_FN(a[l]));))

/* f32 pow: the branch-free routine over the whole plane when every active
 * lane holds an ordinary pair (x > 0 finite, y finite: mathlib.h), else
 * the full routine per lane. */
#define POWF()                                                                             \
    PLANES(float *d = SD(float); const float *a = SA(float);                               \
           const float *b = SB(float); unsigned odd_ = 0;                                  \
           for (unsigned l = 0; l < FIXED_W; l++)                                          \
               odd_ |= (unsigned)(act >> l & 1) & !CVM_M_POWF_ORDINARY(a[l], b[l]);        \
           if (!odd_) LANES(const float x = a[l]; const float y = b[l];                    \
                            d[l] = cvm_n_qf(cvm_m_powf_inline(x, y)););                    \
           else LANES_S(d[l] = cvm_n_qf(cvm_m_powf(a[l], b[l]));))

/* f32 unary math (numerics.h and mathlib.h, as the plane interpreter). */
static bool float_unary(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    if (in->elem != CVM_T_F32)
        return false;
    switch (in->h) {
    case CVM_OP_NEG: UN(float, cvm_n_fnegf(x)); return true;
    case CVM_OP_ABS: UN(float, cvm_n_fabsf(x)); return true;
    case CVM_OP_SQRT: UN(float, cvm_n_qf(sqrtf(x))); return true;
    case CVM_OP_RCP: UN(float, cvm_n_qf(1.0f / x)); return true;
    case CVM_OP_EXP: UN(float, cvm_n_qf(cvm_m_expf_inline(x))); return true;
    case CVM_OP_TANH: UN(float, cvm_n_qf(cvm_m_tanhf_inline(x))); return true;
    case CVM_OP_RSQRT: UN(float, cvm_n_qf(cvm_m_rsqrtf_inline(x))); return true;
    case CVM_OP_ERF: UN(float, cvm_n_qf(cvm_m_erff_inline(x))); return true;
    case CVM_OP_EXP2: UN(float, cvm_n_qf(cvm_m_exp2f_inline(x))); return true;
    case CVM_OP_EXPM1: UN(float, cvm_n_qf(cvm_m_expm1f_inline(x))); return true;
    case CVM_OP_LOG2: UN(float, cvm_n_qf(cvm_m_log2f_inline(x))); return true;
    case CVM_OP_LOG10: UN(float, cvm_n_qf(cvm_m_log10f_inline(x))); return true;
    case CVM_OP_LOG1P: UN(float, cvm_n_qf(cvm_m_log1pf_inline(x))); return true;
    case CVM_OP_FLOOR: UN(float, cvm_n_qf(floorf(x))); return true;
    case CVM_OP_CEIL: UN(float, cvm_n_qf(ceilf(x))); return true;
    case CVM_OP_TRUNC: UN(float, cvm_n_qf(truncf(x))); return true;
    case CVM_OP_RINT: UN(float, cvm_n_qf(rintf(x))); return true;
    case CVM_OP_SIN: TRIG(cvm_m_sinf_inline, cvm_m_sinf); return true;
    case CVM_OP_COS: TRIG(cvm_m_cosf_inline, cvm_m_cosf); return true;
    default: UN(float, cvm_n_qf(cvm_m_logf_inline(x))); return true; /* CVM_OP_LOG */
    }
}

#if defined(__AVX2__)
/* d = a * v of a full plane of 64-bit lanes and a v below 2^32, by
 * vpmuludq (GCC emulates the whole 64-bit product from the C form). */
static inline void mul32_full(uint64_t *d, const uint64_t *a, uint64_t v)
{
    const __m256i vv = _mm256_set1_epi64x((long long)v);
    for (unsigned l = 0; l < FIXED_W; l += 4) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + l));
        const __m256i lo = _mm256_mul_epu32(x, vv);
        const __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), vv);
        _mm256_storeu_si256((__m256i *)(void *)(d + l), _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32)));
    }
}
#define MUL32_FULL(act, d, a, v) ((act) == FULL && (mul32_full(d, a, v), true))
#else
#define MUL32_FULL(act, d, a, v) false
#endif

/*
 * d = a * b of 64-bit lanes a and a b that is one value in every active
 * lane of a plane (decode.c CVM_VM_UNI_B; with swap, a is that one:
 * UNI_A; sign-extended from 32 bits when sext): read once per plane, a
 * power of two shifts, and a b below 2^32 takes two 32-bit multiplies
 * instead of AVX2's emulated 64-bit one (with a = lo + hi 2^32, a b =
 * lo b + ((hi b) mod 2^32) 2^32 mod 2^64). Inactive lanes are computed
 * too and put back (LANES_ALL): b is read from the lowest active lane.
 * pool5's index times the channel count.
 */
static void mul_by_uniform(const lockstep *s, const cvm_vm_dinsn *in, bool sext, bool swap)
{
    cvm_vm_dinsn swapped;
    if (swap) { /* a is the uniform one: the product commutes */
        swapped = *in;
        swapped.a = in->b, swapped.b = in->a;
        in = &swapped;
    }
    LOCALS(s);
    PLANES(if (!act) continue;
           uint64_t *d = SD(uint64_t); const uint64_t *a = SA(uint64_t);
           const unsigned l0 = (unsigned)__builtin_ctzll(act);
           const uint64_t v = sext ? (uint64_t)(int64_t)SB(int32_t)[l0]
                                   : SB(uint64_t)[l0];
           if (v && !(v & (v - 1))) {
               const unsigned sh = (unsigned)__builtin_ctzll(v);
               LANES_ALL(uint64_t, d[l] = a[l] << sh;);
           } else if (!(v >> 32)) {
               if (MUL32_FULL(act, d, a, v))
                   continue;
               LANES_ALL(uint64_t, d[l] = (uint64_t)(uint32_t)a[l] * v +
                                          ((uint64_t)(uint32_t)(a[l] >> 32) * v << 32););
           } else {
               LANES_ALL(uint64_t, d[l] = a[l] * v;);
           });
}

/* cvt by its kind's typed lane loop (interp.h CVM_VM_CVTS); false for the
 * generic kind. Kept out of arith (noinline): its seventy-odd loops made
 * GCC stop inlining arith's neighbours into the dispatch loop. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool convert(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    switch (in->k) {
#define CVT_CASE(K, TO, FROM, TD, TA, LOOP, EXPR)                                          \
    case CVM_VM_CVT_##K:                                                                   \
        PLANES(TD *d = SD(TD); const TA *a = SA(TA);                                       \
               LANES_##LOOP(const TA v = a[l]; d[l] = (TD)(EXPR);));                       \
        return true;
        CVM_VM_CVTS(CVT_CASE)
#undef CVT_CASE
    default:
        return false;
    }
}

/* add and sub of one element per lane (the most frequent ops: their own
 * small function, without arith's switch and its register saves); false
 * for types arith leaves to the plane interpreter. */
static bool add_sub(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    if (in->h == CVM_OP_ADD) {
        ARITH(x + y, x + y)
    }
    ARITH(x - y, x - y)
}

/* Arithmetic (but add and sub: add_sub), compares and bitwise ops of one
 * element per lane; false when `in` is not one this loop runs itself. */
static bool arith(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    switch (in->h) {
    case CVM_OP_MUL:
        if ((in->elem == CVM_T_I64 || in->elem == CVM_T_U64) &&
            (in->uni & (CVM_VM_UNI_A | CVM_VM_UNI_B))) {
            mul_by_uniform(s, in, false, !(in->uni & CVM_VM_UNI_B));
            return true;
        }
        ARITH((x + 0u) * y, x * y)
    case CVM_OP_EQ: COMPARE(==)
    case CVM_OP_NE: COMPARE(!=)
    case CVM_OP_LT: COMPARE(<)
    case CVM_OP_LE: COMPARE(<=)
    case CVM_OP_GT: COMPARE(>)
    case CVM_OP_GE: COMPARE(>=)
    case CVM_OP_AND: BITWISE(&)
    case CVM_OP_OR: BITWISE(|)
    case CVM_OP_XOR: BITWISE(^)
    case CVM_OP_MIN:
    case CVM_OP_MAX: {
        const bool max = in->h == CVM_OP_MAX;
        switch (in->elem) {
        case CVM_T_F32:
            if (max)
                FMINMAX(>, yi, xi, true);
            else
                FMINMAX(<, xi, yi, false);
            return true;
        case CVM_T_I32:
            if (max) BIN(int32_t, x > y ? x : y); else BIN(int32_t, x < y ? x : y);
            return true;
        case CVM_T_U32:
            if (max) BIN(uint32_t, x > y ? x : y); else BIN(uint32_t, x < y ? x : y);
            return true;
        default:
            return false;
        }
    }
    case CVM_OP_FMA:
        switch (in->elem) {
        case CVM_T_F32:
            PLANES(float *d = SD(float); const float *a = SA(float);
                   const float *b = SB(float); const float *c = SC(float);
                   LANES(d[l] = cvm_n_qf(fmaf(a[l], b[l], c[l]));));
            return true;
        default:
            return false;
        }
    case CVM_OP_SHL:
    case CVM_OP_SHR: {
        const bool left = in->h == CVM_OP_SHL;
        if (cvm_vm_esz(in->eb) != 4)
            return false;
        /* 32-bit lanes in 32-bit arithmetic (numerics.h's clamping: a count
         * of 32 or more gives 0, or the sign for i32 shr, which shifts
         * ~x for a negative x), so the loops vectorize (vpsllvd/vpsrlvd) */
        switch (in->elem) {
        case CVM_T_I32:
        case CVM_T_U32:
            if (left) {
                SHIFT(uint32_t, y > 31 ? 0u : x << y);
            } else if (in->elem == CVM_T_U32) {
                SHIFT(uint32_t, y > 31 ? 0u : x >> y);
            } else {
                SHIFT(uint32_t, ((x ^ (0u - (x >> 31))) >> (y > 31 ? 31u : (uint32_t)y)) ^
                                    (0u - (x >> 31)));
            }
            return true;
        case CVM_T_I64:
            if (left) SHIFT(int64_t, cvm_n_shl((uint64_t)x, y, 64));
            else SHIFT(int64_t, cvm_n_ashr(x, y, 64));
            return true;
        case CVM_T_U64:
            if (left) SHIFT(uint64_t, cvm_n_shl(x, y, 64));
            else SHIFT(uint64_t, cvm_n_lshr(x, y, 64));
            return true;
        default:
            return false;
        }
    }
    case CVM_OP_DIV:
    case CVM_OP_REM:
        return divide(s, in);
    case CVM_OP_POW:
        if (in->elem != CVM_T_F32)
            return false;
        POWF();
        return true;
    case CVM_OP_NEG:
    case CVM_OP_ABS:
    case CVM_OP_SQRT:
    case CVM_OP_RCP:
    case CVM_OP_EXP:
    case CVM_OP_TANH:
    case CVM_OP_LOG:
    case CVM_OP_SIN:
    case CVM_OP_COS:
    case CVM_OP_RSQRT:
    case CVM_OP_ERF:
    case CVM_OP_EXP2:
    case CVM_OP_EXPM1:
    case CVM_OP_LOG2:
    case CVM_OP_LOG10:
    case CVM_OP_LOG1P:
    case CVM_OP_FLOOR:
    case CVM_OP_CEIL:
    case CVM_OP_TRUNC:
    case CVM_OP_RINT:
        return float_unary(s, in);
    case CVM_OP_NOT:
        switch (in->elem) {
        case CVM_T_BOOL: UN(uint8_t, x ^ 1u); return true;
        case CVM_T_I32: case CVM_T_U32: UN(uint32_t, ~x); return true;
        default: return false;
        }
    default:
        return false;
    }
}

/* Moves, constants, parameters, selects, conversions and pointer
 * arithmetic of one element per lane; false when not one of these.
 * Inlined into the dispatch loop: a call per instruction costs more than
 * the short lane loops of most of these. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool data(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    switch (in->h) {
    case CVM_OP_MOV:
        switch (in->esz) {
        case 1: UN(uint8_t, x); return true;
        case 4: UN(uint32_t, x); return true;
        case 8: UN(uint64_t, x); return true;
        default: return false;
        }
    case CVM_OP_CONST:
    case CVM_OP_PARAM: {
        uint64_t v = in->imm;
        if (in->h == CVM_OP_PARAM) {
            const cvm_vm_launch *L = s->x->L;
            v = 0;
            memcpy(&v, L->params + L->param_offset[in->aux] + in->imm, in->esz);
        }
        switch (in->esz) {
        case 1: FILLV(uint8_t, v); return true;
        case 4: FILLV(uint32_t, v); return true;
        case 8: FILLV(uint64_t, v); return true;
        default: return false;
        }
    }
    case CVM_OP_SELECT:
        switch (in->esz) {
        case 4:
            PLANES(uint32_t *d = SD(uint32_t); const uint32_t *a = SA(uint32_t);
                   const uint32_t *b = SB(uint32_t); const uint8_t *c = SC(uint8_t);
                   LANES(d[l] = (c[l] & 1) ? a[l] : b[l];));
            return true;
        case 8:
            PLANES(uint64_t *d = SD(uint64_t); const uint64_t *a = SA(uint64_t);
                   const uint64_t *b = SB(uint64_t); const uint8_t *c = SC(uint8_t);
                   LANES(d[l] = (c[l] & 1) ? a[l] : b[l];));
            return true;
        default:
            return false;
        }
    case CVM_OP_CVT:
        return convert(s, in);
    case CVM_OP_BITCAST: /* one element to one of the same width: its bits */
        if (in->la != 1 || cvm_vm_esz(in->ea) != in->esz)
            return false;
        switch (in->esz) {
        case 4: UN(uint32_t, x); return true;
        case 8: UN(uint64_t, x); return true;
        default: return false;
        }
    case CVM_OP_PTR_ADD: {
        const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
        if (in->elem == CVM_T_PTR_GLOBAL) {
            if (wide)
                MIX(uint64_t, uint64_t, uint64_t, a[l] + b[l]);
            else
                MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l]);
        } else {
            if (wide)
                MIX(uint32_t, uint32_t, uint64_t, a[l] + b[l]);
            else
                MIX(uint32_t, uint32_t, uint32_t, a[l] + b[l]);
        }
        return true;
    }
    default:
        return false;
    }
}

/* Special registers: positions lane by lane, the cube's own values
 * filled; false for the rest. */
static bool sreg(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    const cvm_vm_exec *x = s->x;
    const unsigned id = in->aux;
    if (in->esz != 4)
        return false;
    if (id - CVM_SREG_CUBE_POS_X < 3u) {
        FILLV(uint32_t, x->cube[id - CVM_SREG_CUBE_POS_X]);
        return true;
    }
    if (id - CVM_SREG_CUBE_DIM_X < 3u) {
        FILLV(uint32_t, x->L->block[id - CVM_SREG_CUBE_DIM_X]);
        return true;
    }
    uint32_t buf[64];
    if (!sreg_lanes(x, &P[0], id, buf))
        return false;
    for (unsigned g = 0; g < G; g++) {
        const uint32_t *pos = sreg_lanes(x, &P[g], id, buf);
        uint32_t *d = (uint32_t *)(void *)(R0 + g * stride + ((size_t)in->d << rs));
        const uint64_t act = P[g].active;
        LANES(d[l] = pos[l];);
    }
    return true;
}

/* d = a + b * c of f32 or f64 (CVM_VM_H_MULADD; interp_run.c's handler).
 * Not inlined: inlined, it made GCC stop inlining add_sub into the
 * dispatch loop (pool5 +0.8% instructions, as convert did before). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void muladd(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
#define MULADD(T, Q)                                                                       \
    PLANES(T *d = SD(T); const T *a = SA(T); const T *b = SB(T); const T *c = SC(T);       \
           LANES_ALL(T, d[l] = Q(a[l] + b[l] * c[l]);))
    if (in->elem == CVM_T_F32)
        MULADD(float, cvm_n_qf);
    else
        MULADD(double, cvm_n_q);
#undef MULADD
}

/* The fused chains of fuse.c (the same computations as interp_run.c's
 * CVM_VM_H_INDEX and CVM_VM_H_ARITH64 handlers). */
static void fused(const lockstep *s, const cvm_vm_dinsn *in)
{
    LOCALS(s);
    if (in->h == CVM_VM_H_ARITH64) {
        const bool add = in->c == CVM_OP_ADD;
        /* the extended i32 (k: 1 a, 2 b) is the uniform factor; the other
         * is 64-bit whether or not it is uniform too */
        if (!add && in->k == 2 && (in->uni & CVM_VM_UNI_B)) {
            mul_by_uniform(s, in, true, false);
            return;
        }
        if (!add && in->k == 1 && (in->uni & CVM_VM_UNI_A)) {
            mul_by_uniform(s, in, true, true);
            return;
        }
        switch (in->k) {
        case 1:
            if (add) MIX(uint64_t, int32_t, uint64_t, (uint64_t)(int64_t)a[l] + b[l]);
            else MIX(uint64_t, int32_t, uint64_t, (uint64_t)(int64_t)a[l] * b[l]);
            break;
        case 2:
            if (add) MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l]);
            else MIX(uint64_t, uint64_t, int32_t, a[l] * (uint64_t)(int64_t)b[l]);
            break;
        default:
            if (add) MIX(int64_t, int32_t, int32_t, (int64_t)a[l] + b[l]);
            else MIX(int64_t, int32_t, int32_t, (int64_t)a[l] * b[l]);
            break;
        }
        return;
    }
    /* CVM_VM_H_INDEX: d = a + ext(b) * s */
    const uint64_t sc = in->imm;
    const unsigned sh = in->n;
    if (in->elem != CVM_T_PTR_GLOBAL) {
        const uint32_t s32 = (uint32_t)sc;
        if (in->k & (CVM_VM_IX_SEXT32 | CVM_VM_IX_ZEXT32))
            MIX(uint32_t, uint32_t, uint32_t, a[l] + b[l] * s32);
        else
            MIX(uint32_t, uint32_t, uint64_t, a[l] + (uint32_t)b[l] * s32);
        return;
    }
    switch (in->k) {
    case CVM_VM_IX_I64: MIX(uint64_t, uint64_t, uint64_t, a[l] + b[l] * sc); break;
    case CVM_VM_IX_I64 | CVM_VM_IX_SHIFT: MIX(uint64_t, uint64_t, uint64_t, a[l] + (b[l] << sh)); break;
    case CVM_VM_IX_SEXT32: MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l] * sc); break;
    case CVM_VM_IX_SEXT32 | CVM_VM_IX_SHIFT:
        MIX(uint64_t, uint64_t, int32_t, a[l] + ((uint64_t)(int64_t)b[l] << sh)); break;
    case CVM_VM_IX_ZEXT32: MIX(uint64_t, uint64_t, uint32_t, a[l] + (uint64_t)b[l] * sc); break;
    default: MIX(uint64_t, uint64_t, uint32_t, a[l] + ((uint64_t)b[l] << sh)); break;
    }
}

/* Planes still running; finished planes stay in the cube's lockstep
 * and do nothing. */
static bool running(const cvm_vm_plane *q)
{
    return q->state == CVM_VM_RUNNABLE;
}

/* The index at b (an INDEX's lane, of `kind`), extended to 64 bits, to
 * *first: false where `span` lanes counting up by one from it would wrap
 * a 32-bit index's type (a 64-bit index wraps as the addresses do). */
static inline bool first_index(unsigned kind, const uint8_t *b, uint32_t span, uint64_t *first)
{
    if (kind == CVM_VM_IX_I64) {
        *first = *(const uint64_t *)(const void *)b;
    } else if (kind == CVM_VM_IX_SEXT32) {
        const int32_t i0 = *(const int32_t *)(const void *)b;
        if (i0 > INT32_MAX - (int32_t)span)
            return false;
        *first = (uint64_t)(int64_t)i0;
    } else {
        const uint32_t i0 = *(const uint32_t *)(const void *)b;
        if (i0 > UINT32_MAX - span)
            return false;
        *first = i0;
    }
    return true;
}

/* indexed()'s test of plane g's index lanes (type T): they count up by
 * one from the plane's first (tested lane by lane unless `known`), whose
 * extended value goes to off[g] (first_index); `adjacent` stays true
 * while each plane's extended first index is the one before's plus the
 * plane width. */
#define INDEX_PLANE(T, IOTA)                                                               \
    do {                                                                                   \
        const T *b_ = (const T *)(const void *)(R0 + g * stride + ((size_t)in->b << rs));  \
        if (!first_index(kind, (const uint8_t *)b_, FIXED_W - 1, &off[g]))                 \
            return false;                                                                  \
        if (!known) {                                                                      \
            T bad_ = 0;                                                                    \
            UNROLL for (unsigned l = 0; l < FIXED_W; l++)                                  \
                bad_ |= b_[l] ^ (T)(b_[0] + (T)IOTA[l]);                                   \
            bad |= (uint64_t)bad_;                                                         \
        }                                                                                  \
        adjacent = adjacent && (!g || off[g] - off[g - 1] == FIXED_W);                     \
    } while (0)

/* 0, 1, ... as lane values: INDEX_PLANE's additions need no conversion of l */
_Static_assert(FIXED_W == 32, "iota32 and iota64 list FIXED_W lanes");
static const uint32_t iota32[FIXED_W] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
static const uint64_t iota64[FIXED_W] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* The INDEX and access indexed() takes (a global pointer, a power-of-two
 * scale equal to the element size, one element per lane). */
static inline bool index_pair(const cvm_vm_dinsn *in, const cvm_vm_dinsn *mem)
{
    const unsigned kind = in->k & ~(unsigned)CVM_VM_IX_SHIFT;
    return in->elem == CVM_T_PTR_GLOBAL && (in->k & CVM_VM_IX_SHIFT) && mem->elem != CVM_T_BOOL &&
           (kind == CVM_VM_IX_SEXT32 || kind == CVM_VM_IX_ZEXT32 || kind == CVM_VM_IX_I64) &&
           (mem->h == CVM_OP_LD || mem->h == CVM_OP_ST) && mem->line == 1 &&
           mem->esz == 1u << in->n;
}

/*
 * indexed() where the cube is one row, the index's lanes are known
 * consecutive in each plane (CVM_VM_UNI_UNIT_X_B), the planes are at one
 * dynamic point (interp.h synced: a loop's counter has gone round as often
 * in each) and the base is one value: lane l of plane g holds
 * i_0 + 32 g + l in the index's type, i_0 plane 0's lane 0, so when every
 * plane is full and the last lane does not wrap a 32-bit index, the cube's
 * elements are one range from base + (ext(i_0) << n), whatever the other
 * planes hold.
 */
static bool row_indexed(const lockstep *s, const cvm_vm_dinsn *in, const cvm_vm_dinsn *mem,
                        uint64_t base)
{
    LOCALS(s);
    for (unsigned g = 0; g < G; g++)
        if (!running(&P[g]) || P[g].active != FULL)
            return false;
    const unsigned kind = in->k & ~(unsigned)CVM_VM_IX_SHIFT;
    uint64_t first;
    if (!first_index(kind, R0 + ((size_t)in->b << rs), G * FIXED_W - 1, &first))
        return false;
    return cvm_vm_mem_cube_range(s->x, mem, NULL, base + (first << in->n));
}

/*
 * An INDEX `p = base + ext(i) << n` whose only reader is the plain ld or
 * st `mem` right after it (index_pair), done together without writing p:
 * when every plane is full, base is one address for the whole cube (known
 * at decode for a parameter or a register of class CUBE, else tested lane
 * by lane) and i counts up by one from lane to lane of each plane (known
 * at decode for u + unit_pos.x and a loop's counter from it, else tested;
 * without overflow of a 32-bit i; a 64-bit i wraps as the addresses do),
 * plane g's elements are one range
 * from base + (ext(i_g) << n), i_g its lane 0's index:
 * cvm_vm_mem_cube_range checks the cube's lowest to highest address once
 * and copies plane by plane. False (nothing done) otherwise.
 */
static bool indexed(const lockstep *s, const cvm_vm_dinsn *in, const cvm_vm_dinsn *mem)
{
    LOCALS(s);
    const unsigned kind = in->k & ~(unsigned)CVM_VM_IX_SHIFT;
    const uint64_t base = *(const uint64_t *)(const void *)(R0 + ((size_t)in->a << rs));
    uint64_t off[CVM_VM_LOCKSTEP_MAX_PLANES], bad = 0;
    bool adjacent = true;
    /* decode proved each plane's index lanes consecutive where every plane
     * lies in one row of the cube (interp.h CVM_VM_UNI_UNIT_X_B), and the
     * base one value (a parameter, or of class CUBE): no lane to test */
    const bool known = (in->uni & CVM_VM_UNI_UNIT_X_B) && s->x->L->block[0] % FIXED_W == 0;
    const bool one_base = in->a_fixed || (in->uni & CVM_VM_UNI_CUBE_A);
    if (known && one_base && s->x->synced && s->x->L->block[0] == G * FIXED_W)
        return row_indexed(s, in, mem, base);
    for (unsigned g = 0; g < G; g++) {
        if (!running(&P[g]) || P[g].active != FULL)
            return false;
        if (kind == CVM_VM_IX_I64)
            INDEX_PLANE(uint64_t, iota64);
        else
            INDEX_PLANE(uint32_t, iota32);
        if (!one_base) {
            const uint64_t *a = (const uint64_t *)(const void *)(R0 + g * stride + ((size_t)in->a << rs));
            for (unsigned l = 0; l < FIXED_W; l++)
                bad |= a[l] ^ base;
        }
        if (bad) /* at the first plane that differs: failing is cheap */
            return false;
    }
    if (adjacent) /* one range across the cube */
        return cvm_vm_mem_cube_range(s->x, mem, NULL, base + (off[0] << in->n));
    uint64_t at[CVM_VM_LOCKSTEP_MAX_PLANES];
    for (unsigned g = 0; g < G; g++)
        at[g] = base + (off[g] << in->n);
    return cvm_vm_mem_cube_range(s->x, mem, at, 0);
}
#undef INDEX_PLANE

static void set_pc(const lockstep *s, uint32_t pc)
{
    for (unsigned g = 0; g < s->G; g++)
        if (running(&s->P[g]))
            s->P[g].pc = pc;
}

/* A plane's slice ended in a fault: what run_cube does with it. */
static bool faulted(cvm_vm_plane *q, int r)
{
    if (r != CVM_VM_R_FAULT && r != CVM_VM_R_STOP)
        return false;
    q->state = CVM_VM_FAULTED;
    return true;
}

/* Loads and stores, plane by plane (planes without active lanes have
 * nothing to do); false when one faulted (the planes before it have gone
 * past the instruction, the rest have not). */
static bool memory(const lockstep *s, const cvm_vm_dinsn *in, uint32_t pc)
{
    int r = 0;
    const unsigned g = cvm_vm_mem_planes(s->x, in, &r);
    if (g == s->G || !faulted(&s->P[g], r))
        return true;
    for (unsigned h = 0; h < g; h++)
        s->P[h].pc = pc + 1;
    return false;
}

/* The running planes are all at one pc (then *pc is it); finished planes
 * do not count. False when they part, or none runs. */
static bool agree(const lockstep *s, uint32_t *pc)
{
    bool any = false;
    for (unsigned g = 0; g < s->G; g++) {
        const cvm_vm_plane *q = &s->P[g];
        if (q->state == CVM_VM_DONE)
            continue;
        if (!running(q) || (any && q->pc != *pc))
            return false;
        *pc = q->pc;
        any = true;
    }
    return any;
}

/* A plane's next pc from ctl.h: CVM_VM_PC_DONE finishes it. */
static void go(cvm_vm_plane *q, uint32_t t)
{
    if (t == CVM_VM_PC_DONE)
        q->state = CVM_VM_DONE;
    else
        q->pc = t;
}

/*
 * Where the running planes go after a control instruction that left
 * plane g at t[g]: while some plane still has active lanes, planes whose
 * mask became empty ride along at `cont` (the pc the others continue at)
 * instead of going to their next marker: with no active lane they do
 * nothing, and the markers and ends they pass restore their masks from
 * their frames exactly as the jump would have. When no plane has active
 * lanes, each goes where its own control flow says.
 */
static uint32_t settle(const lockstep *s, const uint32_t *t, uint32_t cont)
{
    bool any = false;
    for (unsigned g = 0; g < s->G; g++)
        any |= running(&s->P[g]) && s->P[g].active != 0;
    for (unsigned g = 0; g < s->G; g++)
        if (running(&s->P[g]))
            go(&s->P[g], any ? cont : t[g]);
    return any ? cont : UINT32_MAX;
}

/* END of a loop: while some plane goes round again, all do (a plane with
 * no lane left keeps its frame and rides along; true, and the caller goes
 * to the body's first pc); when none does, each leaves the loop with its
 * own frame (ctl.h), and t[g] says where. */
static bool loop_end(const lockstep *s, const cvm_vm_dinsn *code, const cvm_vm_dinsn *in,
                     uint32_t pc, uint32_t *t)
{
    bool round = false, back = false;
    for (unsigned g = 0; g < s->G; g++) {
        const cvm_vm_plane *q = &s->P[g];
        round |= running(q) && (q->active | q->stack[in->aux].m[1]) != 0;
    }
    for (unsigned g = 0; g < s->G; g++) {
        cvm_vm_plane *q = &s->P[g];
        if (!running(q))
            continue;
        if (!round) {
            t[g] = cvm_vm_end(q, code, in, pc, &back);
            continue;
        }
        cvm_vm_frame *f = &q->stack[in->aux];
        q->active |= f->m[1];
        f->m[1] = 0;
        f->next = code[f->open].target;
    }
    return round;
}

/* Masks of compare `cmp` for every plane (lanes.h cmp_mask_vec over the
 * planes' registers, which lie s->stride apart); false when it does not
 * vectorize (no AVX2, or another type), and the caller goes plane by plane. */
static bool cmp_planes(const lockstep *s, const cvm_vm_dinsn *cmp, uint64_t *m)
{
#if defined(__AVX2__)
    return cmp_mask_vec(cmp, s->R0 + ((size_t)cmp->a << s->rs), s->R0 + ((size_t)cmp->b << s->rs),
                        s->stride, s->G, m);
#else
    (void)s, (void)cmp, (void)m;
    return false;
#endif
}

/*
 * The compares of the fused compare-and-branch `in` for every plane, into
 * m1 and m2 as cmp_planes gives them, when they read only registers that
 * hold one value in every active lane of the cube (decode.c
 * CVM_VM_UNI_CUBE: a loop's exit test on a counter and a bound, a
 * reduction's step test, a counter fuse.c loop_counter proved) while the
 * planes are at one dynamic point (interp.h synced): one active lane's
 * result is every lane's, so each compare runs for one lane of one plane
 * and every plane's mask is all lanes or none. False otherwise.
 */
static bool cmp_cube_uniform(const lockstep *s, const cvm_vm_dinsn *in, const cvm_vm_dinsn *orig,
                             uint64_t *m1, uint64_t *m2)
{
    if (!(in->uni & CVM_VM_UNI_CUBE) || !s->x->synced) /* decode.c; interp.h synced */
        return false;
    unsigned g0 = 0;
    while (g0 < s->G && !(running(&s->P[g0]) && s->P[g0].active))
        g0++;
    bool hit1 = false, hit2 = false;
    if (g0 < s->G) {
        const cvm_vm_plane *q = &s->P[g0];
        const uint64_t one = q->active & (0 - q->active); /* its lowest active lane */
        hit1 = cmp_mask(s->x, q, &orig[in->a], one) != 0;
        hit2 = in->b != UINT32_MAX && cmp_mask(s->x, q, &orig[in->b], one) != 0;
    }
    for (unsigned g = 0; g < s->G; g++)
        m1[g] = hit1 ? UINT64_MAX : 0, m2[g] = hit2 ? UINT64_MAX : 0;
    return true;
}

/* Control flow the planes run here, each with its own masks and frames
 * (ctl.h); false for the rest. *back: a loop went round. */
static bool control(const lockstep *s, const cvm_vm_dinsn *code, const cvm_vm_dinsn *in,
                    uint32_t pc, bool *back, uint32_t *next)
{
    const cvm_vm_dinsn *orig = s->x->exact;
    const unsigned G = s->G;
    cvm_vm_plane *const P = s->P;
    uint32_t t[CVM_VM_LOCKSTEP_MAX_PLANES];
    bool dummy;
    *back = false;
    *next = UINT32_MAX;
    switch (in->h) {
    case CVM_VM_H_CMPBR: {
        uint64_t m1[CVM_VM_LOCKSTEP_MAX_PLANES], m2[CVM_VM_LOCKSTEP_MAX_PLANES];
        /* one lane for all planes where that holds, else every plane's
         * compares at once where they vectorize (a plane that is not
         * running is compared too: compares read, never trap) */
        const bool all = cmp_cube_uniform(s, in, orig, m1, m2) ||
                         (cmp_planes(s, &orig[in->a], m1) &&
                          (in->b == UINT32_MAX || cmp_planes(s, &orig[in->b], m2)));
        uint64_t taken = 0, live = 0;
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            const uint64_t act = q->active;
            uint64_t m = all ? m1[g] : cmp_mask(s->x, q, &orig[in->a], act);
            if (in->b != UINT32_MAX) {
                const uint64_t m2g = all ? m2[g] : cmp_mask(s->x, q, &orig[in->b], act);
                m = in->c == CVM_OP_AND ? m & m2g : m | m2g;
            }
            m1[g] = (in->k ? ~m : m) & act;
            taken |= m1[g];
            live |= act;
        }
        /* a break or continue no active lane takes changes no mask or
         * frame: every plane goes on after it (the common case: a loop's
         * exit test, a bounds test of an interior element) */
        if (!taken && live && in->n != CVM_VM_CB_IF) {
            *next = in->target; /* the planes' pcs catch up at the next sync (see run) */
            return true;
        }
        for (unsigned g = 0; g < G; g++)
            if (running(&P[g]))
                t[g] = cvm_vm_cmpbr(&P[g], in, orig, P[g].active, m1[g]);
        *next = settle(s, t, in->n == CVM_VM_CB_IF ? in->end + 1 : in->target);
        return true;
    }
    case CVM_OP_IF:
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            const uint64_t c = bool_mask(cvm_vm_reg(s->x, q, in->a), FIXED_W, q->active);
            q->stack[in->aux] = (cvm_vm_frame){.kind = CVM_VM_F_IF, .open = pc, .next = in->target};
            q->stack[in->aux].m[0] = q->active & ~c;
            q->sp = in->aux + 1;
            q->active = c;
            t[g] = c ? pc + 1 : in->target;
        }
        *next = settle(s, t, pc + 1);
        return true;
    case CVM_OP_ELSE:
    case CVM_OP_CONTINUING:
        if (in->h == CVM_OP_CONTINUING) {
            /* the common case: no lane took `continue` and every running
             * plane has lanes, so no mask changes and all go on (what the
             * general form below does then, but for the pcs, which catch
             * up at the next sync) */
            bool plain = true;
            for (unsigned g = 0; g < G; g++) {
                cvm_vm_plane *q = &P[g];
                if (!running(q))
                    continue;
                cvm_vm_frame *f = &q->stack[in->aux];
                plain = plain && !f->m[1] && q->active;
                f->next = in->end;
            }
            if (plain) {
                *next = pc + 1;
                return true;
            }
        }
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            cvm_vm_frame *f = &q->stack[in->aux];
            if (in->h == CVM_OP_ELSE) {
                f->m[1] = q->active;
                f->m[2] = 1;
                q->active = f->m[0];
            } else {
                q->active |= f->m[1];
                f->m[1] = 0;
            }
            f->next = in->end;
            t[g] = q->active ? pc + 1 : in->end;
        }
        *next = settle(s, t, pc + 1);
        return true;
    case CVM_OP_END: {
        unsigned g0 = 0;
        while (!running(&P[g0]))
            g0++; /* agree() saw one */
        if (P[g0].stack[in->aux].kind == CVM_VM_F_LOOP) {
            if (loop_end(s, code, in, pc, t)) {
                *back = true;
                *next = P[g0].stack[in->aux].open + 1; /* the body's first pc, for all */
                return true;
            }
            *next = settle(s, t, pc + 1);
            return true;
        }
        for (unsigned g = 0; g < G; g++)
            if (running(&P[g]))
                t[g] = cvm_vm_end(&P[g], code, in, pc, &dummy);
        *next = settle(s, t, pc + 1);
        return true;
    }
    case CVM_OP_BREAK_IF:
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            const uint64_t c = bool_mask(cvm_vm_reg(s->x, q, in->a), FIXED_W, q->active);
            q->stack[in->aux].m[0] |= c;
            q->active &= ~c;
            t[g] = q->active ? pc + 1 : cvm_vm_skip(q);
        }
        *next = settle(s, t, pc + 1);
        return true;
    case CVM_OP_LOOP:
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            q->stack[in->aux] = (cvm_vm_frame){.kind = CVM_VM_F_LOOP, .open = pc, .next = in->target};
            q->sp = in->aux + 1;
            q->pc = *next = pc + 1;
        }
        return true;
    case CVM_OP_SYNC_CUBE:
        /* every running plane arrives together with all its lanes that
         * have not exited (finished planes count as arrived): the barrier
         * opens at once. A plane with lanes missing (riding along, or a
         * divergent barrier) is the plane interpreter's: it faults in
         * checked mode, and a plane without lanes never arrives. */
        for (unsigned g = 0; g < G; g++) {
            const cvm_vm_plane *q = &P[g];
            if (running(q) && q->active != (q->live & ~q->exited))
                return false;
        }
        set_pc(s, pc + 1);
        return true;
    case CVM_OP_RETURN:
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            q->exited |= q->active;
            q->active = 0;
            go(q, cvm_vm_skip(q));
        }
        return true;
    case CVM_VM_H_FINISH:
        for (unsigned g = 0; g < G; g++) {
            cvm_vm_plane *q = &P[g];
            if (!running(q))
                continue;
            q->exited |= q->active;
            q->active = 0;
            q->sp = 0;
            q->state = CVM_VM_DONE;
        }
        return true;
    default:
        return false;
    }
}

/* Leaving lockstep: a plane riding along without active lanes goes where
 * the plane interpreter would have sent it when its mask became empty
 * (its innermost construct's next marker, or done). */
static void leave(const lockstep *s)
{
    for (unsigned g = 0; g < s->G; g++)
        if (running(&s->P[g]) && !s->P[g].active)
            go(&s->P[g], cvm_vm_skip(&s->P[g]));
}

/* Instructions that move the pc themselves (ops.def's control flow, and
 * the decoder's own handlers): every running plane runs them, even
 * without active lanes, so its frames follow. */
static bool moves_pc(unsigned h)
{
    const cvm_bc_opinfo *oi = h < CVM_OP_LIMIT ? cvm_bc_op_info(h) : NULL;
    return !oi || (oi->flags & CVM_OPF_CTRL);
}

/* `in` through the plane interpreter, one plane after the other. Other
 * instructions have no effect on a plane without active lanes (and a
 * barrier must not see it arrive): such a plane only moves past them. */
static void one_step(const lockstep *s, const cvm_vm_dinsn *in, uint32_t pc)
{
    const bool ctl = moves_pc(in->h);
    s->x->one_step = true;
    for (unsigned g = 0; g < s->G; g++) {
        cvm_vm_plane *q = &s->P[g];
        if (!running(q))
            continue;
        if (!ctl && !q->active)
            q->pc = pc + 1;
        else
            faulted(q, cvm_vm_run_plane(s->x, q));
    }
    s->x->one_step = false;
}

void cvm_vm_run_lockstep(cvm_vm_exec *x)
{
    const cvm_vm_dinsn *const code = x->code;
    const lockstep s = {
        .x = x, .P = x->planes, .G = x->nplanes, .rs = x->rshift, .R0 = x->planes[0].regs,
        .stride = x->nplanes > 1 ? (size_t)(x->planes[1].regs - x->planes[0].regs) : 0,
    };
    uint32_t pc, backedges = 0;
    if (!agree(&s, &pc))
        return;
    /* `pc` is where every running plane is; the planes' own pc fields lag
     * behind it (lane loops and the plain forms of control flow do not
     * store them) and are brought up to it wherever they are read: before
     * a memory access or a plane-interpreter step (either may fault and
     * report the plane's pc), by every control form that moves planes
     * apart (settle, go), and before returning to run_cube. */
    for (;;) {
        const cvm_vm_dinsn *in = &code[pc];
        switch (in->h) {
        case CVM_OP_NOP:
            pc++;
            continue;
        case CVM_VM_H_INDEX:
            if (in->late) { /* computed at its access, code[in->end] */
                pc = in->target;
                continue;
            }
            if (in->end != UINT32_MAX && index_pair(in, &code[in->end]) &&
                indexed(&s, in, &code[in->end])) {
                pc = in->end + 1;
                continue;
            }
            fused(&s, in);
            pc = in->target;
            continue;
        case CVM_VM_H_ARITH64:
            fused(&s, in);
            pc = in->target;
            continue;
        case CVM_VM_H_MULADD:
            muladd(&s, in);
            pc = in->target;
            continue;
        case CVM_VM_H_DIVREM:
            if (!divrem(&s, in))
                break; /* a zero divisor: the plane interpreter faults */
            pc = in->target;
            continue;
        case CVM_OP_SREG:
            if (!sreg(&s, in))
                break;
            pc++;
            continue;
        case CVM_OP_LD:
        case CVM_OP_ST:
            if (in->late) { /* the address of the INDEX at in->end, not yet written */
                const cvm_vm_dinsn *ix = &code[in->end];
                if (index_pair(ix, in) && indexed(&s, ix, in)) {
                    pc++;
                    continue;
                }
                fused(&s, ix);
            }
            set_pc(&s, pc);
            if (!cvm_vm_mem_cube(x, in) && !memory(&s, in, pc))
                goto out;
            if (in->h == CVM_OP_LD && in->elem == CVM_T_BOOL)
                for (unsigned g = 0; g < s.G; g++)
                    cvm_vm_bool_loaded(x, &s.P[g], in);
            pc++;
            continue;
        case CVM_OP_MOV:
        case CVM_OP_CONST:
        case CVM_OP_PARAM:
        case CVM_OP_SELECT:
        case CVM_OP_CVT:
        case CVM_OP_BITCAST:
        case CVM_OP_PTR_ADD: /* data's alone: no call to arith on the way */
            if (in->line == 1 && data(&s, in)) {
                pc++;
                continue;
            }
            break;
        case CVM_OP_ADD:
        case CVM_OP_SUB:
            if (in->line == 1 && add_sub(&s, in)) {
                pc++;
                continue;
            }
            break;
        default:
            if (in->line == 1 && arith(&s, in)) {
                pc++;
                continue;
            }
            break;
        }
        bool back = false;
        uint32_t next = UINT32_MAX;
        if (!control(&s, code, in, pc, &back, &next)) {
            next = UINT32_MAX;
            set_pc(&s, pc);
            one_step(&s, in, pc);
        }
        /* settle() says where all went when some plane kept lanes */
        if (next == UINT32_MAX && !agree(&s, &next))
            goto out;
        /* a quantum of back-edges: let run_cube check the timeout */
        if ((back || next <= pc) && ++backedges == CVM_VM_QUANTUM) {
            set_pc(&s, next);
            goto out;
        }
        pc = next;
    }
out:
    leave(&s);
}
