/*
 * emul.c - plane ops emulated through shared memory, for a plane width the
 * device's subgroups do not have (lavapipe: 8-wide subgroups, CUDA code
 * written for 32), docs/backends.md "Plane width".
 *
 * Allowed only where every unit of the cube executes the op together: the
 * divergence analysis proves its active set cube-uniform, or cube-uniform
 * apart from units that executed `return` (those arrive too, as at a
 * barrier, and count as absent). Each unit writes its value (two words) and
 * whether it is live into its slot of a Workgroup array, a barrier makes the
 * slots visible, each unit computes its result from the slots of its plane
 * (lane order, as the cpu device combines them), and a second barrier keeps
 * the next op from overwriting slots still being read. Lanes of a plane
 * are units unit_pos / width * width + 0..width-1; a lane is a member when
 * it exists, is live and its bit is set in the reading unit's member mask.
 */
#include "spv_int.h"

#define SLOT_WORDS SPV_SLOT_WORDS

static uint32_t u32t(spv_ctx *c) { return spv_t_int(c, 32); }

/* The Workgroup array of SLOT_WORDS words per unit of the cube. */
static uint32_t scratch(spv_ctx *c)
{
    if (c->plane_scratch)
        return c->plane_scratch;
    uint32_t u = u32t(c), d[3], n = spv_id(c), len = spv_id(c), arr = spv_id(c);
    for (unsigned i = 0; i < 3; i++) {
        d[i] = spv_id(c);
        SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, d[i], SpvOpCompositeExtract, c->wgsize, i);
    }
    uint32_t xy = spv_id(c);
    SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, xy, SpvOpIMul, d[0], d[1]);
    SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, n, SpvOpIMul, xy, d[2]);
    SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, len, SpvOpIMul, n, spv_c_u32(c, SLOT_WORDS));
    SPV_EM(c, &c->types, SpvOpTypeArray, arr, u, len);
    c->plane_units = n;
    c->plane_scratch = spv_global(c, SpvStorageClassWorkgroup, arr, "plane_slots");
    return c->plane_scratch;
}

static uint32_t slot_ptr(spv_ctx *c, uint32_t unit, unsigned word)
{
    uint32_t u = u32t(c), id = spv_id(c);
    uint32_t idx = spv_op2(c, SpvOpIAdd, u, spv_op2(c, SpvOpIMul, u, unit, spv_c_u32(c, SLOT_WORDS)),
                           spv_c_u32(c, word));
    SPV_EM(c, &c->body, SpvOpAccessChain, spv_t_ptr(c, SpvStorageClassWorkgroup, u), id, scratch(c), idx);
    return id;
}

static unsigned words_of(unsigned e)
{
    return !cvm_bc_elem_is_ptr(e) && cvm_bc_elem_size(e) == 8 ? 2 : 1;
}

/* A scalar of elem e as one or two u32 words (bit patterns). */
static void to_words(spv_ctx *c, unsigned e, uint32_t v, uint32_t w[2])
{
    uint32_t u = u32t(c);
    w[1] = spv_c_u32(c, 0);
    if (e == CVM_T_BOOL) {
        w[0] = spv_op3(c, SpvOpSelect, u, v, spv_c_u32(c, 1), spv_c_u32(c, 0));
    } else if (words_of(e) == 2) {
        uint32_t p = spv_op1(c, SpvOpBitcast, spv_t_vec(c, u, 2), v);
        w[0] = spv_op2(c, SpvOpCompositeExtract, u, p, 0);
        w[1] = spv_op2(c, SpvOpCompositeExtract, u, p, 1);
    } else if (cvm_bc_elem_is_ptr(e) || cvm_bc_elem_size(e) == 4) {
        w[0] = e == CVM_T_F32 ? spv_op1(c, SpvOpBitcast, u, v) : v;
    } else { /* 8/16 bits: zero-extended */
        uint32_t n = e == CVM_T_F16 ? spv_op1(c, SpvOpBitcast, spv_t_int(c, 16), v) : v;
        w[0] = spv_op1(c, SpvOpUConvert, u, n);
    }
}

static uint32_t from_words(spv_ctx *c, unsigned e, const uint32_t w[2])
{
    uint32_t u = u32t(c), t = spv_t_elem(c, e);
    if (e == CVM_T_BOOL)
        return spv_op2(c, SpvOpINotEqual, t, w[0], spv_c_u32(c, 0));
    if (words_of(e) == 2)
        return spv_op1(c, SpvOpBitcast, t, spv_op2(c, SpvOpCompositeConstruct, spv_t_vec(c, u, 2), w[0], w[1]));
    if (cvm_bc_elem_is_ptr(e) || cvm_bc_elem_size(e) == 4)
        return e == CVM_T_F32 ? spv_op1(c, SpvOpBitcast, t, w[0]) : w[0];
    uint32_t n = spv_op1(c, SpvOpUConvert, spv_t_int(c, cvm_bc_elem_size(e) * 8), w[0]);
    return e == CVM_T_F16 ? spv_op1(c, SpvOpBitcast, t, n) : n;
}

/* State of one emulated op: this unit's position and the plane's extent. */
typedef struct em {
    spv_ctx *c;
    uint32_t W, lane, base, n;  /* n: lanes that exist in this plane */
    uint32_t mask;              /* this unit's member mask (u32), all ones if none */
    unsigned e;                 /* value elem */
} em;

/* Lane j's membership (bool) and value, loaded from its slot. */
static uint32_t lane_member(em *m, uint32_t j, uint32_t *val, uint32_t *w0, uint32_t *w1)
{
    spv_ctx *c = m->c;
    uint32_t u = u32t(c), bt = spv_t_bool(c);
    uint32_t exists = spv_op2(c, SpvOpULessThan, bt, j, m->n);
    /* stay inside the array for lanes past the cube's end */
    uint32_t unit = spv_op3(c, SpvOpSelect, u, exists, spv_op2(c, SpvOpIAdd, u, m->base, j), m->base);
    uint32_t live = spv_op2(c, SpvOpINotEqual, bt, spv_load(c, u, slot_ptr(c, unit, 2)), spv_c_u32(c, 0));
    uint32_t bit = spv_op2(c, SpvOpBitwiseAnd, u, spv_op2(c, SpvOpShiftRightLogical, u, m->mask, j), spv_c_u32(c, 1));
    uint32_t mem = spv_op2(c, SpvOpLogicalAnd, bt, spv_op2(c, SpvOpLogicalAnd, bt, exists, live),
                           spv_op2(c, SpvOpINotEqual, bt, bit, spv_c_u32(c, 0)));
    uint32_t w[2] = {spv_load(c, u, slot_ptr(c, unit, 0)), spv_c_u32(c, 0)};
    if (words_of(m->e) == 2)
        w[1] = spv_load(c, u, slot_ptr(c, unit, 1));
    if (w0)
        *w0 = w[0], *w1 = w[1];
    if (val)
        *val = from_words(c, m->e, w);
    return mem;
}

static uint32_t combine(spv_ctx *c, unsigned op, unsigned e, uint32_t a, uint32_t b)
{
    uint32_t t = spv_t_elem(c, e);
    bool fl = cvm_bc_elem_is_float(e), sg = cvm_bc_elem_is_signed(e), bo = e == CVM_T_BOOL;
    switch (op) {
    case CVM_OP_REDUCE_MIN: case CVM_OP_REDUCE_MAX: {
        bool mx = op == CVM_OP_REDUCE_MAX;
        if (fl)
            return spv_fminmax(c, e, 1, a, b, mx);
        return spv_ext2(c, sg ? (mx ? GLSLstd450SMax : GLSLstd450SMin) : (mx ? GLSLstd450UMax : GLSLstd450UMin), t, a, b);
    }
    case CVM_OP_REDUCE_AND: return spv_op2(c, bo ? SpvOpLogicalAnd : SpvOpBitwiseAnd, t, a, b);
    case CVM_OP_REDUCE_OR: return spv_op2(c, bo ? SpvOpLogicalOr : SpvOpBitwiseOr, t, a, b);
    case CVM_OP_REDUCE_XOR: return spv_op2(c, bo ? SpvOpLogicalNotEqual : SpvOpBitwiseXor, t, a, b);
    default:
        if (fl) {
            uint32_t r = spv_op2(c, SpvOpFAdd, t, a, b);
            SPV_EM(c, &c->annot, SpvOpDecorate, r, SpvDecorationNoContraction);
            return r;
        }
        return spv_op2(c, SpvOpIAdd, t, a, b);
    }
}

/* Reductions and scans over the members in lane order (the cpu device's order). */
static uint32_t fold(em *m, unsigned op)
{
    spv_ctx *c = m->c;
    uint32_t t = spv_t_elem(c, m->e), bt = spv_t_bool(c);
    bool scan = op == CVM_OP_SCAN_ADD || op == CVM_OP_EXSCAN_ADD;
    uint32_t zero = m->e == CVM_T_BOOL ? spv_c_bool(c, false) : spv_c_of(c, m->e, 1, 0);
    uint32_t acc = zero, have = spv_c_bool(c, false), out = zero;
    for (uint32_t j = 0; j < m->W; j++) {
        uint32_t jc = spv_c_u32(c, j), v, mem = lane_member(m, jc, &v, NULL, NULL);
        uint32_t before = acc;
        uint32_t next = spv_op3(c, SpvOpSelect, t, have, combine(c, scan ? CVM_OP_REDUCE_ADD : op, m->e, acc, v), v);
        acc = spv_op3(c, SpvOpSelect, t, mem, next, acc);
        have = spv_op2(c, SpvOpLogicalOr, bt, have, mem);
        if (scan)
            out = spv_op3(c, SpvOpSelect, t, spv_op2(c, SpvOpIEqual, bt, m->lane, jc),
                          op == CVM_OP_EXSCAN_ADD ? before : acc, out);
    }
    return scan ? out : acc;
}

static uint32_t shuffle(em *m, unsigned op, uint32_t own, uint32_t b)
{
    spv_ctx *c = m->c;
    uint32_t u = u32t(c), bt = spv_t_bool(c), t = spv_t_elem(c, m->e), src, in;
    uint32_t W = spv_c_u32(c, m->W);
    switch (op) {
    case CVM_OP_SHFL_IDX: src = spv_op2(c, SpvOpBitwiseAnd, u, b, spv_c_u32(c, m->W - 1)); in = spv_c_bool(c, true); break;
    case CVM_OP_SHFL_UP: src = spv_op2(c, SpvOpISub, u, m->lane, b); in = spv_op2(c, SpvOpULessThanEqual, bt, b, m->lane); break;
    case CVM_OP_SHFL_DOWN: src = spv_op2(c, SpvOpIAdd, u, m->lane, b); in = spv_op2(c, SpvOpULessThan, bt, src, W); break;
    default: src = spv_op2(c, SpvOpBitwiseXor, u, m->lane, b); in = spv_op2(c, SpvOpULessThan, bt, src, W); break;
    }
    src = spv_op3(c, SpvOpSelect, u, in, src, m->lane);
    uint32_t v, mem = lane_member(m, src, &v, NULL, NULL);
    return spv_op3(c, SpvOpSelect, t, spv_op2(c, SpvOpLogicalAnd, bt, in, mem), v, own);
}

/* Masks over the plane: members, members whose word is non-zero (ballot) or equal to own. */
static void masks(em *m, const uint32_t own[2], uint32_t *members, uint32_t *hits, bool match)
{
    spv_ctx *c = m->c;
    uint32_t u = u32t(c), bt = spv_t_bool(c);
    *members = spv_c_u32(c, 0);
    *hits = spv_c_u32(c, 0);
    for (uint32_t j = 0; j < m->W; j++) {
        uint32_t w0, w1, mem = lane_member(m, spv_c_u32(c, j), NULL, &w0, &w1), hit;
        if (match)
            hit = spv_op2(c, SpvOpLogicalAnd, bt, spv_op2(c, SpvOpIEqual, bt, w0, own[0]),
                          spv_op2(c, SpvOpIEqual, bt, w1, own[1]));
        else
            hit = spv_op2(c, SpvOpINotEqual, bt, w0, spv_c_u32(c, 0));
        uint32_t bit = spv_c_u32(c, 1u << j);
        *members = spv_op3(c, SpvOpSelect, u, mem, spv_op2(c, SpvOpBitwiseOr, u, *members, bit), *members);
        hit = spv_op2(c, SpvOpLogicalAnd, bt, mem, hit);
        *hits = spv_op3(c, SpvOpSelect, u, hit, spv_op2(c, SpvOpBitwiseOr, u, *hits, bit), *hits);
    }
}

/* The register holding an op's member mask, or UINT32_MAX. */
static uint32_t mask_reg(const cvm_bc_insn *in)
{
    switch (in->op) {
    case CVM_OP_SYNC_PLANE: return in->ops[0];
    case CVM_OP_ACTIVEMASK: return UINT32_MAX;
    case CVM_OP_SHFL_IDX: case CVM_OP_SHFL_UP: case CVM_OP_SHFL_DOWN: case CVM_OP_SHFL_XOR: return in->ops[3];
    default: return in->ops[2];
    }
}

/* Does the kernel have trap or assert sites (units that may leave as by `return`)? */
static bool has_fault_sites(const spv_ctx *c)
{
    for (uint32_t i = 0; i < c->layout->nprints; i++)
        if (c->layout->prints[i].kind != CVM_SPV_SITE_PRINT)
            return true;
    return false;
}

/*
 * Can the op at c->pc be emulated? *lift: exited units must be brought
 * along (the divergence analysis knows `return`; a unit that traps or
 * fails an assert leaves the same way, so such kernels always lift).
 */
static bool emulable(spv_ctx *c, bool *lift)
{
    const cvm_bc_vinsn *vi = &c->vk->insns[c->pc];
    *lift = false;
    if (c->t->plane_width > 32)
        return false;
    if (vi->uni <= CVM_UNI_CUBE) {
        *lift = has_fault_sites(c);
        return true;
    }
    if (vi->live_uni > CVM_UNI_CUBE || c->nframes != 1)
        return false; /* exited units escape nested constructs: only kernel level is lifted */
    *lift = true;
    return true;
}

static uint32_t emulate(spv_ctx *c, const cvm_bc_insn *in, bool lift)
{
    uint32_t u = u32t(c), bt = spv_t_bool(c), W = c->t->plane_width;
    em m = {c, W, 0, 0, 0, 0, CVM_T_U32};
    if (lift) /* before any value is computed: they must dominate the code after the guards */
        spv_barrier_lift(c, true);
    spv_block(c);
    uint32_t lidx = spv_load(c, u, c->v_lidx);
    m.lane = spv_op2(c, SpvOpBitwiseAnd, u, lidx, spv_c_u32(c, W - 1));
    m.base = spv_op2(c, SpvOpISub, u, lidx, m.lane);
    scratch(c);
    m.n = spv_ext2(c, GLSLstd450UMin, u, spv_c_u32(c, W), spv_op2(c, SpvOpISub, u, c->plane_units, m.base));
    uint32_t mr = mask_reg(in);
    m.mask = spv_c_u32(c, 0xffffffffu);
    if (mr != UINT32_MAX) {
        m.mask = spv_get(c, mr);
        if (cvm_bc_elem_size(c->k->regs[mr].elem) == 8)
            m.mask = spv_op1(c, SpvOpUConvert, u, m.mask);
    }
    bool has_val = in->op != CVM_OP_SYNC_PLANE && in->op != CVM_OP_ACTIVEMASK;
    m.e = has_val ? c->k->regs[in->ops[1]].elem : CVM_T_U32;
    uint32_t own = has_val ? spv_get(c, in->ops[1]) : 0, w[2] = {spv_c_u32(c, 0), spv_c_u32(c, 0)};
    if (has_val)
        to_words(c, m.e, own, w);
    uint32_t live = spv_c_u32(c, 1);
    if (lift)
        live = spv_op3(c, SpvOpSelect, u, spv_load(c, bt, c->exited), spv_c_u32(c, 0), live);
    spv_control_barrier(c); /* slots of the previous op are read by everyone */
    spv_store(c, slot_ptr(c, lidx, 0), w[0]);
    if (words_of(m.e) == 2)
        spv_store(c, slot_ptr(c, lidx, 1), w[1]);
    spv_store(c, slot_ptr(c, lidx, 2), live);
    spv_control_barrier(c);
    uint32_t r = 0, members, hits, mt = spv_t_elem(c, in->elem);
    switch (in->op) {
    case CVM_OP_SYNC_PLANE: break;
    case CVM_OP_ACTIVEMASK: masks(&m, w, &members, &hits, false); r = members; break;
    case CVM_OP_SHFL_IDX: case CVM_OP_SHFL_UP: case CVM_OP_SHFL_DOWN: case CVM_OP_SHFL_XOR: {
        uint32_t b = spv_get(c, in->ops[2]);
        if (cvm_bc_elem_size(c->k->regs[in->ops[2]].elem) == 8)
            b = spv_op1(c, SpvOpUConvert, u, b);
        r = shuffle(&m, in->op, own, b);
        break;
    }
    case CVM_OP_VOTE_ALL: case CVM_OP_VOTE_ANY: case CVM_OP_VOTE_BALLOT:
        masks(&m, w, &members, &hits, false);
        r = in->op == CVM_OP_VOTE_ALL ? spv_op2(c, SpvOpIEqual, bt, hits, members)
          : in->op == CVM_OP_VOTE_ANY ? spv_op2(c, SpvOpINotEqual, bt, hits, spv_c_u32(c, 0)) : hits;
        break;
    case CVM_OP_MATCH_ANY: case CVM_OP_MATCH_ALL:
        masks(&m, w, &members, &hits, true);
        r = in->op == CVM_OP_MATCH_ANY ? hits
          : spv_op3(c, SpvOpSelect, u, spv_op2(c, SpvOpIEqual, bt, hits, members), members, spv_c_u32(c, 0));
        break;
    default: r = fold(&m, in->op); break;
    }
    if (lift)
        spv_barrier_lift(c, false);
    bool mask_result = in->op == CVM_OP_ACTIVEMASK || in->op == CVM_OP_VOTE_BALLOT ||
                       in->op == CVM_OP_MATCH_ANY || in->op == CVM_OP_MATCH_ALL;
    if (r && mask_result && cvm_bc_elem_size(in->elem) == 8)
        r = spv_op1(c, SpvOpUConvert, mt, r);
    return r;
}

/*
 * Emulates plane op `in` when the plane width differs from the subgroup
 * size; false (after failing with the op, its line and both widths) where
 * the control flow around it is not cube-uniform.
 */
bool spv_plane_emulate(spv_ctx *c, const cvm_bc_insn *in)
{
    bool lift;
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    if (!emulable(c, &lift) && c->t->plane_width == c->t->subgroup_size) {
        spv_fail(c, CVM_UNSUPPORTED, "plane op '%s' in plane-divergent control flow: its member "
                 "mask cannot be proven to equal the active set, and the control flow is not "
                 "cube-uniform for a shared-memory emulation (plane width %u, subgroup %u)",
                 oi->mnemonic, c->t->plane_width, c->t->subgroup_size);
        return false;
    }
    if (!emulable(c, &lift)) {
        spv_fail(c, CVM_UNSUPPORTED, "plane op '%s' needs plane width %u but the device's subgroups "
                 "are %u wide, and its control flow is not cube-uniform, so it cannot be emulated "
                 "through shared memory%s", oi->mnemonic, c->t->plane_width, c->t->subgroup_size,
                 c->t->plane_width > 32 ? " (emulation covers widths up to 32)" : "");
        return false;
    }
    uint32_t r = emulate(c, in, lift);
    if (c->st == CVM_OK && r && in->op != CVM_OP_SYNC_PLANE)
        spv_set(c, in->ops[0], r);
    return c->st == CVM_OK;
}
