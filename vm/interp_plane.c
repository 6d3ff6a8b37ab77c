/*
 * interp_plane.c - plane ops (shuffles, votes, reductions, scans, match,
 * sync_plane), conversions, bitcasts and print for the plane interpreter.
 *
 * Plane ops read the member mask (last operand) and, in checked mode,
 * fault unless every member lane is active and every executing lane is a
 * member (docs/design.md item 7). Results combine member lanes in lane order so
 * float reductions are deterministic. These handlers are not hot enough to
 * need vector loops; they work lane by lane on raw bits.
 */
#include "interp.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lanes.h"
#include "numerics.h"
#include "print_fmt.h"

/* for (l = 0; l < n; l++) BODY, with a constant trip count when n is the
 * default plane width (lanes.h FIXED_W), which the compiler vectorizes. */
#define EACH_LANE(n, ...)                                                                  \
    do {                                                                                   \
        if ((n) == FIXED_W) {                                                              \
            for (uint32_t l = 0; l < FIXED_W; l++) { __VA_ARGS__ }                         \
        } else {                                                                           \
            for (uint32_t l = 0; l < (n); l++) { __VA_ARGS__ }                             \
        }                                                                                  \
    } while (0)

/* ---- member masks ---- */

static unsigned lowest(uint64_t m)
{
    unsigned l = 0;
    while (l < 63 && !(m >> l & 1))
        l++;
    return l;
}

/*
 * The members of a plane op: its member mask (the last register operand)
 * without the named lanes that exited or do not exist (*out_gone), which
 * CUDA allows (its rule binds the non-exited named threads). The active
 * lanes name one mask (cvm_vm_plane_op runs each group of lanes naming
 * one as its own op). Checked: every other named lane is active, and no
 * active lane is left out.
 */
static bool members_of(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in,
                       uint64_t *out_members, uint64_t *out_gone)
{
    unsigned elem;
    const uint8_t *r = cvm_vm_member_reg(x, p, in, &elem);
    const uint64_t act = p->active;
    unsigned first = lowest(act);
    uint64_t m = cvm_vm_get_bits(r, elem, first);
    const uint64_t gone = m & (~p->live | p->exited);
    *out_members = m & ~gone;
    *out_gone = gone;
    if (!x->L->checked)
        return true;
    const char *mn = cvm_bc_ops[in->h].mnemonic;
    uint64_t bad;
    if ((bad = m & ~act & ~gone)) {
        cvm_vm_fault(x, p, lowest(bad), CVM_FAULT,
                     "synccheck: %s member lanes 0x%llx are not active (member mask 0x%llx, active 0x%llx)",
                     mn, (unsigned long long)bad, (unsigned long long)m, (unsigned long long)act);
        return false;
    }
    if ((bad = act & ~m)) {
        cvm_vm_fault(x, p, lowest(bad), CVM_FAULT,
                     "synccheck: %s executed by lanes 0x%llx outside the member mask 0x%llx", mn,
                     (unsigned long long)bad, (unsigned long long)m);
        return false;
    }
    return true;
}

/* ---- value combination for reductions and scans ---- */

static uint64_t combine(unsigned op, unsigned elem, uint64_t acc, uint64_t v)
{
    const unsigned bits = cvm_vm_esz(elem) * 8;
    if (op == CVM_OP_REDUCE_AND)
        return acc & v;
    if (op == CVM_OP_REDUCE_OR)
        return acc | v;
    if (op == CVM_OP_REDUCE_XOR)
        return acc ^ v;
    const bool mn = op == CVM_OP_REDUCE_MIN, add = op != CVM_OP_REDUCE_MIN && op != CVM_OP_REDUCE_MAX;
    switch (elem) {
    case CVM_T_F32: {
        float a = cvm_n_f32_from((uint32_t)acc), b = cvm_n_f32_from((uint32_t)v);
        return cvm_n_f32_bits(add ? cvm_n_qf(a + b) : mn ? cvm_n_fminf(a, b) : cvm_n_fmaxf(a, b));
    }
    case CVM_T_F64: {
        double a = cvm_n_f64_from(acc), b = cvm_n_f64_from(v);
        return cvm_n_f64_bits(add ? cvm_n_q(a + b) : mn ? cvm_n_fmin(a, b) : cvm_n_fmax(a, b));
    }
    case CVM_T_F16: {
        if (add)
            return cvm_n_f16_add((uint16_t)acc, (uint16_t)v);
        float a = cvm_n_f16_to_f32((uint16_t)acc), b = cvm_n_f16_to_f32((uint16_t)v);
        return cvm_n_f32_to_f16(mn ? cvm_n_fminf(a, b) : cvm_n_fmaxf(a, b));
    }
    case CVM_T_BF16: {
        if (add)
            return cvm_n_bf16_add((uint16_t)acc, (uint16_t)v);
        float a = cvm_n_bf16_to_f32((uint16_t)acc), b = cvm_n_bf16_to_f32((uint16_t)v);
        return cvm_n_f32_to_bf16(mn ? cvm_n_fminf(a, b) : cvm_n_fmaxf(a, b));
    }
    default:
        break;
    }
    if (add)
        return cvm_n_add(acc, v, bits);
    if (cvm_bc_elem_is_signed(elem)) {
        int64_t a = cvm_n_sext(acc, bits), b = cvm_n_sext(v, bits);
        return cvm_n_zext((uint64_t)(mn ? cvm_n_smin(a, b) : cvm_n_smax(a, b)), bits);
    }
    return mn ? cvm_n_umin(acc, v) : cvm_n_umax(acc, v);
}

/* Shuffle source lane of lane l, or l itself when out of range or not a member. */
static unsigned shfl_src(unsigned op, unsigned l, uint32_t b, unsigned W, uint64_t members)
{
    uint64_t src;
    switch (op) {
    case CVM_OP_SHFL_IDX: src = b % W; break;
    case CVM_OP_SHFL_UP: src = b > l ? UINT64_MAX : l - b; break;
    case CVM_OP_SHFL_DOWN: src = (uint64_t)l + b; break;
    default: src = l ^ b; break;
    }
    if (src >= W || !(members >> src & 1))
        return l;
    return (unsigned)src;
}

/* Checked: no active lane of a shuffle reads a named lane that exited or
 * does not exist (its value is undefined in CUDA); false after the fault. */
static bool shfl_from_gone(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in, const uint8_t *b,
                           uint64_t gone)
{
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        const unsigned src = shfl_src(in->h, l, (uint32_t)cvm_vm_get_bits(b, in->eb, l), x->W, gone);
        if (src != l) {
            cvm_vm_fault(x, p, l, CVM_FAULT, "synccheck: %s by lane %u reads lane %u, which %s",
                         cvm_bc_ops[in->h].mnemonic, l, src,
                         src >= p->nlanes ? "does not exist" : "has exited");
            return false;
        }
    }
    return true;
}

/* A shuffle of 4- or 8-byte elements by 32-bit lane operands (all that
 * the frontend emits): the source lanes (shfl_src's rule) by one
 * branch-free loop per op, then typed copies instead of bit access per
 * lane; false for other shapes. When every lane of the plane is active
 * and a member (the usual full-plane shuffle), "a member" is "below
 * nlanes". Results go through t, since d may be a. */
#define SHFL_TYPED(T)                                                                      \
    do {                                                                                   \
        const T *av = (const T *)(const void *)a;                                          \
        T *dv = (T *)(void *)d, t[64];                                                     \
        EACH_LANE(nl, t[l] = av[src[l]];);                                                 \
        if (full)                                                                          \
            memcpy(dv, t, nl * sizeof(T));                                                 \
        else                                                                               \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    dv[l] = t[l];                                                          \
    } while (0)
static bool shfl_typed(const cvm_vm_exec *x, const cvm_vm_plane *p, const cvm_vm_dinsn *in,
                       uint64_t members, const uint8_t *a, const uint8_t *b, uint8_t *d)
{
    const unsigned esz = cvm_vm_esz(in->elem), nl = p->nlanes, W = x->W;
    const uint64_t act = p->active;
    const bool full = act == p->live && members == act;
    const uint32_t *bv = (const uint32_t *)(const void *)b;
    uint32_t src[64];
    if (cvm_vm_esz(in->eb) != 4 || (esz != 4 && esz != 8) || nl > 64 || W > 64)
        return false;
    const uint32_t lim = full ? nl : W; /* src >= lim: out of range, its own value */
    switch (in->h) {
    case CVM_OP_SHFL_IDX:
        EACH_LANE(nl, const uint32_t s = bv[l] % W; src[l] = s < lim ? s : l;);
        break;
    case CVM_OP_SHFL_UP:
        EACH_LANE(nl, src[l] = bv[l] > l ? l : l - bv[l];);
        break;
    case CVM_OP_SHFL_DOWN:
        EACH_LANE(nl, src[l] = bv[l] < lim - l ? l + bv[l] : l;);
        break;
    default:
        EACH_LANE(nl, const uint32_t s = l ^ bv[l]; src[l] = s < lim ? s : l;);
        break;
    }
    if (!full)
        for (unsigned l = 0; l < nl; l++) /* not a member: its own value */
            if (!(members >> src[l] & 1))
                src[l] = l;
    if (esz == 4)
        SHFL_TYPED(uint32_t);
    else
        SHFL_TYPED(uint64_t);
    return true;
}
#undef SHFL_TYPED

/* An add reduction or scan (op: reduce.add, scan.add, exscan.add) of 4- or
 * 8-byte integers or floats, in lane order over the members as combine()
 * adds them (the first member's value, then each next one added, a NaN
 * sum the canonical one), into out as bits; false for other types. */
#define ADD_TYPED(T, U, Q)                                                                 \
    do {                                                                                   \
        const T *av = (const T *)(const void *)a;                                          \
        T acc = 0;                                                                         \
        bool have = false;                                                                 \
        U bits_;                                                                           \
        for (unsigned l = 0; l < nl; l++) {                                                \
            const T before = acc;                                                          \
            if (members >> l & 1) {                                                        \
                acc = have ? (T)Q(acc + av[l]) : av[l];                                    \
                have = true;                                                               \
            }                                                                              \
            memcpy(&bits_, op == CVM_OP_EXSCAN_ADD ? &before : &acc, sizeof bits_);        \
            out[l] = bits_;                                                                \
        }                                                                                  \
        if (op == CVM_OP_REDUCE_ADD) {                                                     \
            memcpy(&bits_, &acc, sizeof bits_);                                            \
            for (unsigned l = 0; l < nl; l++)                                              \
                out[l] = bits_;                                                            \
        }                                                                                  \
    } while (0)
static bool add_typed(unsigned op, unsigned elem, uint64_t members, unsigned nl, const uint8_t *a,
                      uint64_t *out)
{
    switch (elem) {
    case CVM_T_I32: case CVM_T_U32: ADD_TYPED(uint32_t, uint32_t, ); return true;
    case CVM_T_I64: case CVM_T_U64: ADD_TYPED(uint64_t, uint64_t, ); return true;
    case CVM_T_F32: ADD_TYPED(float, uint32_t, cvm_n_qf); return true;
    case CVM_T_F64: ADD_TYPED(double, uint64_t, cvm_n_q); return true;
    default: return false;
    }
}
#undef ADD_TYPED

/* The active lanes of d get out[l] (type T). */
#define OUT_TYPED(T)                                                                       \
    do {                                                                                   \
        T *dv = (T *)(void *)d;                                                            \
        for (unsigned l = 0; l < nl; l++)                                                  \
            if (act >> l & 1)                                                              \
                dv[l] = (T)out[l];                                                         \
    } while (0)

static int plane_op_group(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    uint64_t members, gone, out[64];
    const uint64_t act = p->active;
    const unsigned nl = p->nlanes;
    if (!members_of(x, p, in, &members, &gone))
        return CVM_VM_R_FAULT;
    if (in->h == CVM_OP_SYNC_PLANE) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 0;
    }
    const uint8_t *a = cvm_vm_reg(x, p, in->a), *b = cvm_vm_reg(x, p, in->b);
    uint8_t *d = cvm_vm_reg(x, p, in->d);
    const unsigned elem = in->elem;
    uint64_t pred = 0;
    if (in->h >= CVM_OP_VOTE_ALL && in->h <= CVM_OP_VOTE_BALLOT)
        for (unsigned l = 0; l < nl; l++)
            pred |= (uint64_t)(a[l] & 1) << l;
    pred &= members;
    switch (in->h) {
    case CVM_OP_SHFL_IDX: case CVM_OP_SHFL_UP: case CVM_OP_SHFL_DOWN: case CVM_OP_SHFL_XOR:
        if (gone && x->L->checked && !shfl_from_gone(x, p, in, b, gone))
            return CVM_VM_R_FAULT;
        if (shfl_typed(x, p, in, members, a, b, d))
            return 0;
        for (unsigned l = 0; l < nl; l++)
            if (act >> l & 1) {
                uint32_t delta = (uint32_t)cvm_vm_get_bits(b, in->eb, l);
                out[l] = cvm_vm_get_bits(a, elem, shfl_src(in->h, l, delta, x->W, members));
            }
        break;
    case CVM_OP_VOTE_ALL: case CVM_OP_VOTE_ANY: case CVM_OP_VOTE_BALLOT: {
        uint64_t v = in->h == CVM_OP_VOTE_ALL ? pred == members
                   : in->h == CVM_OP_VOTE_ANY ? pred != 0 : pred;
        for (unsigned l = 0; l < nl; l++)
            out[l] = v;
        break;
    }
    case CVM_OP_MATCH_ANY: case CVM_OP_MATCH_ALL: {
        unsigned ea = in->ea;
        uint64_t same_all = members;
        for (unsigned l = 0; l < nl; l++) {
            if (!(act >> l & 1))
                continue;
            uint64_t v = cvm_vm_get_bits(a, ea, l), m = 0;
            for (unsigned j = 0; j < nl; j++)
                if ((members >> j & 1) && cvm_vm_get_bits(a, ea, j) == v)
                    m |= UINT64_C(1) << j;
            out[l] = m;
            if (m != members)
                same_all = 0;
        }
        if (in->h == CVM_OP_MATCH_ALL)
            for (unsigned l = 0; l < nl; l++)
                out[l] = same_all;
        break;
    }
    default: { /* reductions and scans, in lane order over the members */
        const bool scan = in->h == CVM_OP_SCAN_ADD || in->h == CVM_OP_EXSCAN_ADD;
        const unsigned op = scan ? CVM_OP_REDUCE_ADD : in->h;
        if (op == CVM_OP_REDUCE_ADD && add_typed(in->h, elem, members, nl, a, out))
            break;
        uint64_t acc = 0;
        bool have = false;
        for (unsigned l = 0; l < nl; l++) {
            uint64_t before = acc;
            if (members >> l & 1) {
                uint64_t v = cvm_vm_get_bits(a, elem, l);
                acc = have ? combine(op, elem, acc, v) : v;
                have = true;
            }
            out[l] = in->h == CVM_OP_EXSCAN_ADD ? before : acc;
        }
        if (!scan)
            for (unsigned l = 0; l < nl; l++)
                out[l] = acc;
        break;
    }
    }
    /* vote.all/any carry no instruction type: their result is a bool */
    const unsigned delem = in->h == CVM_OP_VOTE_ALL || in->h == CVM_OP_VOTE_ANY ? CVM_T_BOOL : elem;
    switch (cvm_vm_esz(delem)) { /* the active lanes' results, typed */
    case 1: OUT_TYPED(uint8_t); break;
    case 4: OUT_TYPED(uint32_t); break;
    case 8: OUT_TYPED(uint64_t); break;
    default:
        for (unsigned l = 0; l < nl; l++)
            if (act >> l & 1)
                cvm_vm_set_bits(d, delem, l, out[l]);
        break;
    }
    return 0;
}

/* The lanes of `lanes` whose member mask (r, elem) is m. */
static uint64_t naming(const uint8_t *r, unsigned elem, unsigned nl, uint64_t lanes, uint64_t m)
{
    uint64_t same = 0;
    if (cvm_vm_esz(elem) == 4) {
        const uint32_t *r32 = (const uint32_t *)(const void *)r;
        for (unsigned l = 0; l < nl; l++)
            same |= (uint64_t)(r32[l] == (uint32_t)m) << l;
    } else {
        for (unsigned l = 0; l < nl; l++)
            same |= (uint64_t)(cvm_vm_get_bits(r, elem, l) == m) << l;
    }
    return same & lanes;
}

/*
 * A plane op. The active lanes usually name one member mask; lanes that
 * name different ones form groups, each group the lanes naming one mask,
 * and each group is its own op over its own members, as CUDA's `*_sync`
 * intrinsics with disjoint masks are (`__shfl_xor_sync(l < 16 ? 0xffff :
 * 0xffff0000, v, 1)`; docs/isa.md "Plane ops and member masks"). Checked,
 * a mask that names an active lane of another group is a synccheck fault.
 */
int cvm_vm_plane_op(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    const uint64_t act = p->active;
    unsigned elem;
    const uint8_t *r = cvm_vm_member_reg(x, p, in, &elem);
    uint64_t m = cvm_vm_get_bits(r, elem, lowest(act)), group = naming(r, elem, p->nlanes, act, m);
    if (group == act)
        return plane_op_group(x, p, in);
    int rc = 0;
    for (uint64_t left = act; left && !rc; left &= ~group) {
        const unsigned first = lowest(left);
        m = cvm_vm_get_bits(r, elem, first);
        group = naming(r, elem, p->nlanes, left, m);
        const uint64_t other = m & act & ~group & ~(~p->live | p->exited);
        if (x->L->checked && other) {
            const unsigned l = lowest(other);
            cvm_vm_fault(x, p, l, CVM_FAULT,
                         "synccheck: %s member mask 0x%llx of lane %u differs from 0x%llx of lane %u, which names it",
                         cvm_bc_ops[in->h].mnemonic, (unsigned long long)cvm_vm_get_bits(r, elem, l), l,
                         (unsigned long long)m, first);
            rc = CVM_VM_R_FAULT;
            break;
        }
        p->active = group;
        rc = plane_op_group(x, p, in);
        p->active = act;
    }
    return rc;
}

/* ---- conversions ---- */

static uint64_t convert(unsigned to, unsigned from, uint64_t b)
{
    const unsigned bits = cvm_vm_esz(to) * 8;
    if (to == from && cvm_bc_elem_is_float(from))
        return b; /* a copy: a signalling NaN stays one */
    if (cvm_bc_elem_is_float(from)) {
        double v = cvm_float_elem_value(from, b);
        switch (to) {
        case CVM_T_BOOL: return v != 0.0;
        case CVM_T_F16: return cvm_n_f64_to_f16(v);
        case CVM_T_BF16: return cvm_n_f64_to_bf16(v);
        case CVM_T_F32: return cvm_n_f32_bits(cvm_n_f64_to_f32(v));
        case CVM_T_F64: return cvm_n_f64_bits(v);
        default:
            if (cvm_bc_elem_is_signed(to))
                return (uint64_t)cvm_n_f64_to_sint(v, bits);
            return cvm_n_f64_to_uint(v, bits);
        }
    }
    /* from an integer or bool, extended by its signedness */
    const unsigned fbits = cvm_vm_esz(from) * 8;
    const bool sgn = cvm_bc_elem_is_signed(from);
    const int64_t s = sgn ? cvm_n_sext(b, fbits) : (int64_t)cvm_n_zext(b, fbits);
    const uint64_t u = from == CVM_T_BOOL ? (b & 1) : cvm_n_zext(b, fbits);
    switch (to) {
    case CVM_T_BOOL: return (from == CVM_T_BOOL ? u : cvm_n_zext(b, fbits)) != 0;
    case CVM_T_F16: return sgn ? cvm_n_s64_to_f16(s) : cvm_n_u64_to_f16(u);
    case CVM_T_BF16: return sgn ? cvm_n_s64_to_bf16(s) : cvm_n_u64_to_bf16(u);
    case CVM_T_F32: return cvm_n_f32_bits(sgn ? cvm_n_s64_to_f32(s) : cvm_n_u64_to_f32(u));
    case CVM_T_F64: return cvm_n_f64_bits(sgn ? cvm_n_s64_to_f64(s) : cvm_n_u64_to_f64(u));
    default: return sgn ? (uint64_t)s : u;
    }
}

void cvm_vm_cvt(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    for (unsigned e = 0; e < in->line; e++) {
        const uint8_t *a = cvm_vm_reg(x, p, in->a + e);
        uint8_t *d = cvm_vm_reg(x, p, in->d + e);
        for (unsigned l = 0; l < p->nlanes; l++)
            if (p->active >> l & 1)
                cvm_vm_set_bits(d, in->elem, l, convert(in->elem, in->ea, cvm_vm_get_bits(a, in->ea, l)));
    }
}

void cvm_vm_bitcast(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    const unsigned asz = cvm_vm_esz(in->ea), dsz = cvm_vm_esz(in->elem);
    const unsigned total = asz * in->la;
    uint8_t tmp[16 * 8];
    if (total > sizeof tmp || total != dsz * in->line)
        return; /* the verifier guarantees equal widths */
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        for (unsigned e = 0; e < in->la; e++)
            memcpy(tmp + e * asz, cvm_vm_reg(x, p, in->a + e) + (size_t)l * asz, asz);
        for (unsigned e = 0; e < in->line; e++)
            memcpy(cvm_vm_reg(x, p, in->d + e) + (size_t)l * dsz, tmp + e * dsz, dsz);
    }
}

/* ---- print ---- */


/* The print instruction's arguments for lane l (cvm_print_format's ctx). */
typedef struct {
    cvm_vm_exec *x;
    cvm_vm_plane *p;
    const cvm_vm_arg *args;
    unsigned l;
} print_ctx;

/* Formats argument i of lane l: %s reads a string from kernel memory, the
 * rest is a scalar conversion. */
static int format_arg(void *ctx, size_t i, char *spec, size_t slen, char *out, size_t cap)
{
    const print_ctx *c = ctx;
    const cvm_vm_arg *arg = &c->args[i];
    const uint64_t b = cvm_vm_get_bits(cvm_vm_reg(c->x, c->p, arg->slot), arg->elem, c->l);
    if (spec[slen - 1] != 's')
        return cvm_print_scalar(arg->elem, b, spec, slen, out, cap);
    size_t max = 0;
    const char *str = cvm_bc_elem_is_ptr(arg->elem) ? cvm_vm_string_at(c->x, c->p, c->l, arg->elem, b, &max) : NULL;
    if (!str)
        return snprintf(out, cap, "(bad string)");
    size_t n = strnlen(str, max);
    return snprintf(out, cap, "%.*s", (int)(n > 4096 ? 4096 : n), str);
}

int cvm_vm_print(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    if (!x->L->print_out)
        return 0;
    const cvm_bc_string *str = &x->prog->mod->strings[in->imm];
    char buf[CVM_PRINT_LINE_MAX + 1];
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        print_ctx c = {x, p, in->ptr, l};
        size_t n = cvm_print_format(str->data, str->len, in->n, "diuxXocpsfFeEgGaA", format_arg, &c, buf,
                                    sizeof buf - 1);
        if (n == 0 || buf[n - 1] != '\n')
            buf[n++] = '\n';
        cvm_status st = cvm_vm_print_text(x, buf, n);
        if (st == CVM_LIMIT) {
            cvm_vm_fault(x, p, l, st, "print output of this launch passed %u MiB on one worker thread",
                         CVM_VM_PRINT_CAP >> 20);
            return CVM_VM_R_STOP;
        }
        if (st) {
            cvm_vm_fault(x, p, l, st, "out of memory appending print output");
            return CVM_VM_R_STOP;
        }
    }
    return 0;
}
