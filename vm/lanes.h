/*
 * lanes.h - pieces of the interpreter's lane loops shared by the plane
 * interpreter (interp_run.c) and the lockstep one (interp_lockstep.c).
 */
#ifndef CVM_VM_LANES_H
#define CVM_VM_LANES_H

#include "interp.h"
#include "numerics.h"

#include <string.h>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
 * Lane loops carry no loop-carried dependence: a destination slot is either
 * a different register from every source or the same one (each lane then
 * reads its element before writing it), never a partial overlap. IVDEP
 * tells the vectorizer so, which drops its runtime alias checks and scalar
 * fallback loops.
 */
#if defined(__clang__)
#define IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define IVDEP _Pragma("GCC ivdep")
#else
#define IVDEP
#endif

/* The default plane width, for which the full-plane loops get a constant
 * trip count (straight vector code, no epilogue). */
#define FIXED_W 32u

/*
 * r = f32 min (OP <) or max (OP >) of x and y (bit patterns xi, yi) with
 * numerics.h's rules, as selects the compiler vectorizes: a NaN operand
 * gives the other, two NaNs the canonical NaN, equal operands (only +0 and
 * -0 differ) the one NEG_PICK names when x is negative (min: xi, max: yi),
 * else the other.
 */
#define FMINMAX_F32_BITS(r, OP, NEG_PICK, POS_PICK, x, y, xi, yi)                          \
    do {                                                                                   \
        r = x OP y ? xi : yi;                                                              \
        r = x == y ? ((xi >> 31) ? NEG_PICK : POS_PICK) : r;                               \
        r = y != y ? xi : r;                                                               \
        r = x != x ? (y != y ? CVM_N_NAN32 : yi) : r;                                      \
    } while (0)

/*
 * Mask of the lanes of `act` (lanes < nl) whose bool slot is true (its low
 * bit). Slots are at least 64 bytes, so whole groups of 8 or 16 lanes stay
 * inside the slot. The bytes of lanes outside `act` may never have been
 * written (decode.c zero_ranges), and nothing of them may reach the result:
 * with SSE2 (every x86-64) sixteen lanes go through one movemask and the
 * final and drops them; otherwise they are cleared first and a multiply
 * gathers the low bit of each byte into the top byte, eight lanes at a time.
 */
static inline uint64_t bool_mask(const uint8_t *r, unsigned nl, uint64_t act)
{
#if defined(__SSE2__)
    /* sixteen lanes at a time: bit 0 of each byte to its sign bit, then
     * one movemask (a slot holds at least 64 bytes, so g + 15 < 64) */
    uint64_t b = 0;
    for (unsigned g = 0; g < nl; g += 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(r + g));
        b |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_slli_epi16(v, 7)) << g;
    }
    return b & act;
#else
    uint64_t m = 0;
    for (unsigned g = 0; g < nl; g += 8) {
        uint64_t w, s = (act >> g & 0xffu) * UINT64_C(0x0101010101010101);
        s &= UINT64_C(0x8040201008040201); /* byte i keeps bit i: lane g + i active */
        s = ((s + UINT64_C(0x7f7f7f7f7f7f7f7f)) | s) & UINT64_C(0x8080808080808080);
        memcpy(&w, r + g, 8);
        w &= s >> 7;
        m |= (w * UINT64_C(0x0102040810204080)) >> 56 << g;
    }
    return m;
#endif
}

/* Compare `in` on every lane (no compare traps, so inactive lanes may be
 * read), as a mask of the lanes of `act` where it holds (fused CMPBR). */
#define CMP_ALL(T, EXPR)                                                                   \
    do {                                                                                   \
        const T *a_ = (const T *)(const void *)A, *b_ = (const T *)(const void *)B;        \
        if (nl == FIXED_W) {                                                               \
            IVDEP for (unsigned l = 0; l < FIXED_W; l++) {                                 \
                const T x = a_[l], y = b_[l];                                              \
                t[l] = (uint8_t)(EXPR);                                                    \
            }                                                                              \
        } else {                                                                           \
            for (unsigned l = 0; l < nl; l++) {                                            \
                const T x = a_[l], y = b_[l];                                              \
                t[l] = (uint8_t)(EXPR);                                                    \
            }                                                                              \
        }                                                                                  \
    } while (0)
/* A compare OP of the source type in->ea through M(T, EXPR) (f16 and bf16
 * compare as f32). */
#define CMP_TYPES(M, OP)                                                                   \
    switch (in->ea) {                                                                      \
    case CVM_T_BOOL: case CVM_T_U8: M(uint8_t, x OP y); break;                             \
    case CVM_T_I8: M(int8_t, x OP y); break;                                               \
    case CVM_T_I16: M(int16_t, x OP y); break;                                             \
    case CVM_T_U16: M(uint16_t, x OP y); break;                                            \
    case CVM_T_I32: M(int32_t, x OP y); break;                                             \
    case CVM_T_U32: case CVM_T_PTR_SHARED: case CVM_T_PTR_LOCAL: case CVM_T_PTR_CONST:     \
        M(uint32_t, x OP y); break;                                                        \
    case CVM_T_I64: M(int64_t, x OP y); break;                                             \
    case CVM_T_U64: case CVM_T_PTR_GLOBAL: M(uint64_t, x OP y); break;                     \
    case CVM_T_F32: M(float, x OP y); break;                                               \
    case CVM_T_F64: M(double, x OP y); break;                                              \
    case CVM_T_F16: M(uint16_t, cvm_n_f16_to_f32(x) OP cvm_n_f16_to_f32(y)); break;        \
    case CVM_T_BF16: M(uint16_t, cvm_n_bf16_to_f32(x) OP cvm_n_bf16_to_f32(y)); break;     \
    default: break;                                                                        \
    }
#define CMP_ALL_TYPES(OP) CMP_TYPES(CMP_ALL, OP)
#if defined(__AVX512F__)
/*
 * The compare of G full 32-lane planes (registers `stride` bytes apart:
 * lockstep's planes) of 32- or 64-bit integers or f32 straight into one
 * mask per plane, out[0..G): AVX-512 compares write mask registers, signed
 * and unsigned alike, so a plane of 32-bit lanes is two compares. f32
 * takes the ordered predicates, and != the unordered one (true when either
 * side is NaN, as C's != is). Returns false for other types. (The AVX2
 * form below, for -v3, flips sign bits and gathers with movemask.)
 */
#define CMP512_LOOP(STEP, EXPR)                                                            \
    for (unsigned p = 0; p < G; p++, A += stride, B += stride) {                           \
        uint64_t m = 0;                                                                    \
        for (unsigned g = 0; g < FIXED_W; g += STEP) {                                     \
            const __m512i x = _mm512_loadu_si512((const void *)(A + (size_t)g * esz));     \
            const __m512i y = _mm512_loadu_si512((const void *)(B + (size_t)g * esz));     \
            m |= (uint64_t)(EXPR) << g;                                                    \
        }                                                                                  \
        out[p] = m;                                                                        \
    }
#define CMP512_INT(STEP, CMP)                                                              \
    switch (in->h) {                                                                       \
    case CVM_OP_EQ: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_EQ)) break;                     \
    case CVM_OP_NE: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_NE)) break;                     \
    case CVM_OP_LT: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_LT)) break;                     \
    case CVM_OP_LE: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_LE)) break;                     \
    case CVM_OP_GT: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_NLE)) break;                    \
    default: CMP512_LOOP(STEP, CMP(x, y, _MM_CMPINT_NLT)) break;                           \
    }
#define CMP512_PS(x, y, P) _mm512_cmp_ps_mask(_mm512_castsi512_ps(x), _mm512_castsi512_ps(y), P)
static inline bool cmp_mask_vec(const cvm_vm_dinsn *in, const uint8_t *A, const uint8_t *B,
                                size_t stride, unsigned G, uint64_t *out)
{
    switch (in->ea) {
    case CVM_T_I32: {
        const size_t esz = 4;
        CMP512_INT(16, _mm512_cmp_epi32_mask)
        return true;
    }
    case CVM_T_U32: case CVM_T_PTR_SHARED: case CVM_T_PTR_LOCAL: case CVM_T_PTR_CONST: {
        const size_t esz = 4;
        CMP512_INT(16, _mm512_cmp_epu32_mask)
        return true;
    }
    case CVM_T_I64: {
        const size_t esz = 8;
        CMP512_INT(8, _mm512_cmp_epi64_mask)
        return true;
    }
    case CVM_T_U64: case CVM_T_PTR_GLOBAL: {
        const size_t esz = 8;
        CMP512_INT(8, _mm512_cmp_epu64_mask)
        return true;
    }
    case CVM_T_F32: {
        const size_t esz = 4;
        switch (in->h) {
        case CVM_OP_EQ: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_EQ_OQ)) break;
        case CVM_OP_NE: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_NEQ_UQ)) break;
        case CVM_OP_LT: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_LT_OQ)) break;
        case CVM_OP_LE: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_LE_OQ)) break;
        case CVM_OP_GT: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_GT_OQ)) break;
        default: CMP512_LOOP(16, CMP512_PS(x, y, _CMP_GE_OQ)) break;
        }
        return true;
    }
    default: return false;
    }
}
#undef CMP512_LOOP
#undef CMP512_INT
#undef CMP512_PS
#elif defined(__AVX2__)
/*
 * The compare of G full 32-lane planes (registers `stride` bytes apart:
 * lockstep's planes) of 32- or 64-bit integers or f32 as vector compares
 * straight into one mask per plane, out[0..G) (the generic path below stores a
 * byte per lane and gathers the bytes). Integers compare as signed after
 * flipping the sign bit of unsigned ones; x <= y is !(x > y) for them.
 * f32 takes the ordered predicates, and != the unordered one (true when
 * either side is NaN, as C's != is). Returns false for other types.
 */
#define CMP_VEC_LOOP(STEP, LOAD, MOVE, FLIP, EXPR)                                         \
    for (unsigned p = 0; p < G; p++, A += stride, B += stride) {                           \
        uint64_t m = 0;                                                                    \
        for (unsigned g = 0; g < FIXED_W; g += STEP) {                                     \
            const __m256i x = FLIP(LOAD(A, g));                                            \
            const __m256i y = FLIP(LOAD(B, g));                                            \
            m |= (uint64_t)(uint32_t)MOVE(EXPR) << g;                                      \
        }                                                                                  \
        out[p] = m;                                                                        \
    }
/* == and != compare as loaded; the ordering compares of unsigned operands
 * flip their sign bits first (CMP_FLIP), of signed ones not (CMP_SAME) */
#define CMP_VEC_INT(LOAD, EQ, GT, MOVE, STEP, is_signed)                                    \
    switch (in->h) {                                                                       \
    case CVM_OP_EQ: CMP_VEC_LOOP(STEP, LOAD, MOVE, CMP_SAME, EQ(x, y)) break;              \
    case CVM_OP_NE: CMP_VEC_LOOP(STEP, LOAD, MOVE, CMP_SAME, _mm256_xor_si256(EQ(x, y), ones)) break; \
    default:                                                                               \
        if (is_signed)                                                                     \
            CMP_VEC_ORDER(LOAD, GT, MOVE, STEP, CMP_SAME)                                  \
        else                                                                               \
            CMP_VEC_ORDER(LOAD, GT, MOVE, STEP, CMP_FLIP)                                  \
    }
#define CMP_VEC_ORDER(LOAD, GT, MOVE, STEP, FLIP)                                          \
    switch (in->h) {                                                                       \
    case CVM_OP_LT: CMP_VEC_LOOP(STEP, LOAD, MOVE, FLIP, GT(y, x)) break;                  \
    case CVM_OP_LE: CMP_VEC_LOOP(STEP, LOAD, MOVE, FLIP, _mm256_xor_si256(GT(x, y), ones)) break; \
    case CVM_OP_GT: CMP_VEC_LOOP(STEP, LOAD, MOVE, FLIP, GT(x, y)) break;                  \
    default: CMP_VEC_LOOP(STEP, LOAD, MOVE, FLIP, _mm256_xor_si256(GT(y, x), ones)) break; \
    }
#define CMP_SAME(v) (v)
#define CMP_FLIP(v) _mm256_xor_si256((v), flip)
#define CMP_LOAD(R, g) _mm256_loadu_si256((const __m256i *)(const void *)((R) + (size_t)(g) * esz))
#define CMP_MOVE32(v) _mm256_movemask_ps(_mm256_castsi256_ps(v))
#define CMP_MOVE64(v) _mm256_movemask_pd(_mm256_castsi256_pd(v))
#define CMP_VEC_F32(PRED)                                                                  \
    for (unsigned p = 0; p < G; p++, A += stride, B += stride) {                           \
        uint64_t m = 0;                                                                    \
        for (unsigned g = 0; g < FIXED_W; g += 8) {                                        \
            const __m256 x = _mm256_loadu_ps((const float *)(const void *)A + g);          \
            const __m256 y = _mm256_loadu_ps((const float *)(const void *)B + g);          \
            m |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(x, y, PRED)) << g;   \
        }                                                                                  \
        out[p] = m;                                                                        \
    }
static inline bool cmp_mask_vec(const cvm_vm_dinsn *in, const uint8_t *A, const uint8_t *B,
                                size_t stride, unsigned G, uint64_t *out)
{
    const __m256i ones = _mm256_set1_epi32(-1);
    switch (in->ea) {
    case CVM_T_I32: case CVM_T_U32: case CVM_T_PTR_SHARED: case CVM_T_PTR_LOCAL:
    case CVM_T_PTR_CONST: {
        const size_t esz = 4;
        const __m256i flip = _mm256_set1_epi32(INT32_MIN);
        CMP_VEC_INT(CMP_LOAD, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, CMP_MOVE32, 8,
                    in->ea == CVM_T_I32)
        break;
    }
    case CVM_T_I64: case CVM_T_U64: case CVM_T_PTR_GLOBAL: {
        const size_t esz = 8;
        const __m256i flip = _mm256_set1_epi64x(INT64_MIN);
        CMP_VEC_INT(CMP_LOAD, _mm256_cmpeq_epi64, _mm256_cmpgt_epi64, CMP_MOVE64, 4,
                    in->ea == CVM_T_I64)
        break;
    }
    case CVM_T_F32:
        switch (in->h) {
        case CVM_OP_EQ: CMP_VEC_F32(_CMP_EQ_OQ) break;
        case CVM_OP_NE: CMP_VEC_F32(_CMP_NEQ_UQ) break;
        case CVM_OP_LT: CMP_VEC_F32(_CMP_LT_OQ) break;
        case CVM_OP_LE: CMP_VEC_F32(_CMP_LE_OQ) break;
        case CVM_OP_GT: CMP_VEC_F32(_CMP_GT_OQ) break;
        default: CMP_VEC_F32(_CMP_GE_OQ) break;
        }
        break;
    default: return false;
    }
    return true;
}
#undef CMP_VEC_INT
#undef CMP_VEC_ORDER
#undef CMP_VEC_LOOP
#undef CMP_SAME
#undef CMP_FLIP
#undef CMP_VEC_F32
#undef CMP_LOAD
#undef CMP_MOVE32
#undef CMP_MOVE64
#endif

static inline uint64_t cmp_mask(const cvm_vm_exec *ex, const cvm_vm_plane *p,
                                const cvm_vm_dinsn *in, uint64_t act)
{
    const uint8_t *const A = cvm_vm_reg(ex, p, in->a), *const B = cvm_vm_reg(ex, p, in->b);
    const unsigned nl = p->nlanes;
#if defined(__AVX2__)
    uint64_t vm;
    if (nl == FIXED_W && cmp_mask_vec(in, A, B, 0, 1, &vm))
        return vm & act;
#endif
    uint8_t t[64] = {0};
    switch (in->h) {
    case CVM_OP_EQ: CMP_ALL_TYPES(==); break;
    case CVM_OP_NE: CMP_ALL_TYPES(!=); break;
    case CVM_OP_LT: CMP_ALL_TYPES(<); break;
    case CVM_OP_LE: CMP_ALL_TYPES(<=); break;
    case CVM_OP_GT: CMP_ALL_TYPES(>); break;
    default: CMP_ALL_TYPES(>=); break;
    }
    return bool_mask(t, nl, act);
}

/*
 * Position special registers of every lane of plane p: its unit_pos table
 * (interp.c join fills it once per launch), or for abs_pos that plus the
 * cube's offset, in buf. NULL for the other special registers.
 */
static inline const uint32_t *sreg_lanes(const cvm_vm_exec *x, const cvm_vm_plane *p,
                                         unsigned id, uint32_t buf[64])
{
    if (id - CVM_SREG_UNIT_POS_X < 3u) /* written so for UNIT_POS_X == 0 too */
        return p->upos[id - CVM_SREG_UNIT_POS_X];
    if (id - CVM_SREG_ABS_POS_X >= 3u)
        return NULL;
    const unsigned axis = id - CVM_SREG_ABS_POS_X;
    const uint32_t add = x->cube[axis] * x->L->block[axis], *u = p->upos[axis];
    for (unsigned l = 0; l < 64; l++)
        buf[l] = u[l] + add;
    return buf;
}

#endif /* CVM_VM_LANES_H */
