/*
 * plane.c - builtins, special registers, barriers and plane ops of the
 * SPIR-V backend. Plane ops become GroupNonUniform instructions only where
 * the plane width equals the subgroup size and the divergence analysis
 * shows the plane's active set is whole; elsewhere emul.c emulates them
 * through shared memory in cube-uniform control flow or rejects them
 * naming the op, the line and both widths.
 */
#include "spv_int.h"

#include <string.h>

static uint32_t builtin(spv_ctx *c, uint32_t bi, uint32_t type, const char *name)
{
    uint32_t v = spv_global(c, SpvStorageClassInput, type, name);
    SPV_EM(c, &c->annot, SpvOpDecorate, v, SpvDecorationBuiltIn, bi);
    return v;
}

cvm_status spv_builtins_setup(spv_ctx *c)
{
    uint32_t u = spv_t_int(c, 32), v3 = spv_t_vec(c, u, 3), s[3];
    c->v_lid = builtin(c, SpvBuiltInLocalInvocationId, v3, "unit_pos");
    c->v_wgid = builtin(c, SpvBuiltInWorkgroupId, v3, "cube_pos");
    c->v_nwg = builtin(c, SpvBuiltInNumWorkgroups, v3, "cube_count");
    c->v_gid = builtin(c, SpvBuiltInGlobalInvocationId, v3, "abs_pos");
    c->v_lidx = builtin(c, SpvBuiltInLocalInvocationIndex, u, "unit_index");
    for (unsigned i = 0; i < 3; i++) {
        s[i] = spv_id(c);
        SPV_EM(c, &c->types, SpvOpSpecConstant, u, s[i], 1);
        SPV_EM(c, &c->annot, SpvOpDecorate, s[i], SpvDecorationSpecId, i);
    }
    c->wgsize = spv_id(c);
    SPV_EM(c, &c->types, SpvOpSpecConstantComposite, v3, c->wgsize, s[0], s[1], s[2]);
    SPV_EM(c, &c->annot, SpvOpDecorate, c->wgsize, SpvDecorationBuiltIn, SpvBuiltInWorkgroupSize);
    return c->st;
}

static uint32_t comp(spv_ctx *c, uint32_t var, unsigned i)
{
    uint32_t u = spv_t_int(c, 32);
    return spv_op2(c, SpvOpCompositeExtract, u, spv_load(c, spv_t_vec(c, u, 3), var), i);
}

static uint32_t lane(spv_ctx *c)
{
    uint32_t w = c->t->plane_width;
    if (w != c->t->subgroup_size) /* emulated planes: linear unit index mod width */
        return spv_op2(c, SpvOpBitwiseAnd, spv_t_int(c, 32), spv_load(c, spv_t_int(c, 32), c->v_lidx),
                       spv_c_u32(c, w - 1));
    if (!c->v_sglid) {
        spv_cap(c, SpvCapabilityGroupNonUniform);
        c->v_sglid = builtin(c, SpvBuiltInSubgroupLocalInvocationId, spv_t_int(c, 32), "lane");
    }
    return spv_load(c, spv_t_int(c, 32), c->v_sglid);
}

static uint32_t cube_units(spv_ctx *c)
{
    uint32_t u = spv_t_int(c, 32), x = spv_op2(c, SpvOpCompositeExtract, u, c->wgsize, 0);
    x = spv_op2(c, SpvOpIMul, u, x, spv_op2(c, SpvOpCompositeExtract, u, c->wgsize, 1));
    return spv_op2(c, SpvOpIMul, u, x, spv_op2(c, SpvOpCompositeExtract, u, c->wgsize, 2));
}

/* Word `which` of the grid_x pair in the push constants (spv.h): 0 the
 * dispatch's first cube in x, 1 the grid's cube count in x. A grid split
 * into dispatches sees only its part in WorkgroupId and NumWorkgroups. */
static uint32_t grid_x(spv_ctx *c, unsigned which)
{
    if (!c->layout->grid_x) {
        if (!c->layout->grid_x_fixed) /* reads_grid_x missed a reader */
            spv_fail(c, CVM_INTERNAL, "a cube position or count in x without its push constants");
        return which ? comp(c, c->v_nwg, 0) : spv_c_u32(c, 0); /* one dispatch */
    }
    return spv_mem_load(c, &c->push, spv_c_u32(c, c->layout->grid_x_offset + 4 * which), CVM_T_U32, 1,
                        false);
}

/* Special register `id` as a u32 (then widened to elem). */
uint32_t spv_sreg(spv_ctx *c, unsigned id, unsigned elem)
{
    uint32_t u = spv_t_int(c, 32), w = c->t->plane_width, r;
    uint32_t wmask = w >= 32 ? 0xffffffffu : (1u << w) - 1;
    switch (id) {
    case CVM_SREG_UNIT_POS_X: case CVM_SREG_UNIT_POS_Y: case CVM_SREG_UNIT_POS_Z:
        r = comp(c, c->v_lid, id - CVM_SREG_UNIT_POS_X); break;
    case CVM_SREG_CUBE_POS_X:
        r = spv_op2(c, SpvOpIAdd, u, comp(c, c->v_wgid, 0), grid_x(c, 0)); break;
    case CVM_SREG_CUBE_POS_Y: case CVM_SREG_CUBE_POS_Z:
        r = comp(c, c->v_wgid, id - CVM_SREG_CUBE_POS_X); break;
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z:
        r = spv_op2(c, SpvOpCompositeExtract, u, c->wgsize, id - CVM_SREG_CUBE_DIM_X); break;
    case CVM_SREG_CUBE_COUNT_X: r = grid_x(c, 1); break;
    case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z:
        r = comp(c, c->v_nwg, id - CVM_SREG_CUBE_COUNT_X); break;
    case CVM_SREG_ABS_POS_X: /* + the dispatch's first cube times the cube's width */
        r = spv_op2(c, SpvOpIAdd, u, comp(c, c->v_gid, 0),
                    spv_op2(c, SpvOpIMul, u, grid_x(c, 0), spv_op2(c, SpvOpCompositeExtract, u, c->wgsize, 0)));
        break;
    case CVM_SREG_ABS_POS_Y: case CVM_SREG_ABS_POS_Z:
        r = comp(c, c->v_gid, id - CVM_SREG_ABS_POS_X); break;
    case CVM_SREG_PLANE_DIM: r = spv_c_u32(c, w); break;
    case CVM_SREG_UNIT_POS: r = spv_load(c, u, c->v_lidx); break;
    /* The plane of a unit is its linear index / width (lavapipe's subgroups are linear). */
    case CVM_SREG_UNIT_POS_PLANE: r = lane(c); break;
    case CVM_SREG_PLANE_POS:
        r = spv_op2(c, SpvOpUDiv, u, spv_load(c, u, c->v_lidx), spv_c_u32(c, w)); break;
    case CVM_SREG_CUBE_POS: {
        uint32_t x = spv_sreg(c, CVM_SREG_CUBE_POS_X, CVM_T_U32), y = comp(c, c->v_wgid, 1), z = comp(c, c->v_wgid, 2);
        uint32_t nx = grid_x(c, 1), ny = comp(c, c->v_nwg, 1);
        r = spv_op2(c, SpvOpIAdd, u, x, spv_op2(c, SpvOpIMul, u, nx,
                    spv_op2(c, SpvOpIAdd, u, y, spv_op2(c, SpvOpIMul, u, ny, z))));
        break;
    }
    case CVM_SREG_LANEMASK_LT: case CVM_SREG_LANEMASK_LE: case CVM_SREG_LANEMASK_GT: case CVM_SREG_LANEMASK_GE: {
        uint32_t l = lane(c), one = spv_op2(c, SpvOpShiftLeftLogical, u, spv_c_u32(c, 1), l);
        uint32_t lt = spv_op2(c, SpvOpISub, u, one, spv_c_u32(c, 1));
        uint32_t le = spv_op2(c, SpvOpBitwiseOr, u, lt, one);
        r = id == CVM_SREG_LANEMASK_LT ? lt : id == CVM_SREG_LANEMASK_LE ? le
          : spv_op2(c, SpvOpBitwiseAnd, u, spv_c_u32(c, wmask),
                    spv_op1(c, SpvOpNot, u, id == CVM_SREG_LANEMASK_GT ? le : lt));
        break;
    }
    case CVM_SREG_PLANE_FULLMASK: { /* lanes that exist: min(width, units left in the cube) */
        uint32_t base = spv_op2(c, SpvOpIMul, u, spv_sreg(c, CVM_SREG_PLANE_POS, CVM_T_U32), spv_c_u32(c, w));
        uint32_t left = spv_op2(c, SpvOpISub, u, cube_units(c), base);
        uint32_t full = spv_op2(c, SpvOpUGreaterThanEqual, spv_t_bool(c), left, spv_c_u32(c, w));
        uint32_t part = spv_op2(c, SpvOpISub, u, spv_op2(c, SpvOpShiftLeftLogical, u, spv_c_u32(c, 1), left), spv_c_u32(c, 1));
        r = spv_op3(c, SpvOpSelect, u, full, spv_c_u32(c, wmask), part);
        break;
    }
    case CVM_SREG_DYN_SHARED_BASE: r = spv_c_u32(c, (c->k->shared_bytes + 15) / 16 * 16); break;
    case CVM_SREG_DYN_SHARED_SIZE: r = c->spec_dyn; break;
    default: r = spv_c_u32(c, 0); break;
    }
    unsigned size = cvm_bc_elem_size(elem);
    if (size == 8)
        return spv_op1(c, SpvOpUConvert, spv_t_int(c, 64), r);
    if (size < 4)
        return spv_op1(c, SpvOpUConvert, spv_t_int(c, size * 8), r);
    return r;
}

void spv_control_barrier(spv_ctx *c)
{
    SPV_EM(c, &c->body, SpvOpControlBarrier, spv_c_u32(c, SpvScopeWorkgroup), spv_c_u32(c, SpvScopeWorkgroup),
           spv_c_u32(c, SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsWorkgroupMemoryMask |
                            SpvMemorySemanticsUniformMemoryMask));
}

/*
 * GroupNonUniform instructions serve a plane op when the plane is the
 * subgroup and the divergence analysis shows the plane's active set whole
 * (the member mask is then the full plane); anything else goes to the
 * shared-memory emulation (emul.c), which rejects what it cannot do.
 */
static bool native(spv_ctx *c, const cvm_bc_insn *in)
{
    return c->t->plane_width == c->t->subgroup_size && c->vk->insns[c->pc].uni <= CVM_UNI_PLANE &&
           in->op != CVM_OP_MATCH_ANY;
}

static void need(spv_ctx *c, uint32_t cap)
{
    spv_cap(c, SpvCapabilityGroupNonUniform);
    spv_cap(c, cap);
}

static bool op_plane_op(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t u = spv_t_int(c, 32), sg = spv_c_u32(c, SpvScopeSubgroup), d = in->ops[0];
    uint32_t t = spv_t_of(c, in->elem, 1), bt = spv_t_bool(c), r = spv_id(c);
    unsigned e = in->elem;
    bool fl = cvm_bc_elem_is_float(e), sgn = cvm_bc_elem_is_signed(e);
    if (!native(c, in)) {
        spv_plane_emulate(c, in);
        return true;
    }
    switch (in->op) {
    case CVM_OP_SYNC_PLANE:
        SPV_EM(c, &c->body, SpvOpControlBarrier, sg, sg, spv_c_u32(c, SpvMemorySemanticsAcquireReleaseMask |
               SpvMemorySemanticsWorkgroupMemoryMask | SpvMemorySemanticsUniformMemoryMask));
        return true;
    case CVM_OP_VOTE_ALL: case CVM_OP_VOTE_ANY:
        need(c, SpvCapabilityGroupNonUniformVote);
        SPV_EM(c, &c->body, in->op == CVM_OP_VOTE_ALL ? SpvOpGroupNonUniformAll : SpvOpGroupNonUniformAny,
               bt, r, sg, spv_get(c, in->ops[1]));
        break;
    case CVM_OP_VOTE_BALLOT: {
        need(c, SpvCapabilityGroupNonUniformBallot);
        uint32_t v4 = spv_t_vec(c, u, 4);
        SPV_EM(c, &c->body, SpvOpGroupNonUniformBallot, v4, r, sg, spv_get(c, in->ops[1]));
        r = spv_op2(c, SpvOpCompositeExtract, u, r, 0);
        if (cvm_bc_elem_size(e) == 8)
            r = spv_op1(c, SpvOpUConvert, t, r);
        break;
    }
    case CVM_OP_SHFL_IDX: case CVM_OP_SHFL_UP: case CVM_OP_SHFL_DOWN: case CVM_OP_SHFL_XOR: {
        need(c, SpvCapabilityGroupNonUniformShuffle);
        uint32_t a = spv_get(c, in->ops[1]), b = spv_get(c, in->ops[2]), l = lane(c), w = c->t->plane_width;
        uint32_t src, ok;
        switch (in->op) {
        case CVM_OP_SHFL_IDX: src = spv_op2(c, SpvOpBitwiseAnd, u, b, spv_c_u32(c, w - 1)); ok = spv_c_bool(c, true); break;
        case CVM_OP_SHFL_UP: src = spv_op2(c, SpvOpISub, u, l, b); ok = spv_op2(c, SpvOpUGreaterThanEqual, bt, l, b); break;
        case CVM_OP_SHFL_DOWN: src = spv_op2(c, SpvOpIAdd, u, l, b); ok = spv_op2(c, SpvOpULessThan, bt, src, spv_c_u32(c, w)); break;
        default: src = spv_op2(c, SpvOpBitwiseXor, u, l, b); ok = spv_op2(c, SpvOpULessThan, bt, src, spv_c_u32(c, w)); break;
        }
        src = spv_op3(c, SpvOpSelect, u, ok, src, l);
        SPV_EM(c, &c->body, SpvOpGroupNonUniformShuffle, t, r, sg, a, src);
        break;
    }
    case CVM_OP_REDUCE_ADD: case CVM_OP_REDUCE_MIN: case CVM_OP_REDUCE_MAX: case CVM_OP_REDUCE_AND:
    case CVM_OP_REDUCE_OR: case CVM_OP_REDUCE_XOR: case CVM_OP_SCAN_ADD: case CVM_OP_EXSCAN_ADD: {
        need(c, SpvCapabilityGroupNonUniformArithmetic);
        uint32_t op, bo = e == CVM_T_BOOL;
        uint32_t grp = in->op == CVM_OP_SCAN_ADD ? SpvGroupOperationInclusiveScan
                     : in->op == CVM_OP_EXSCAN_ADD ? SpvGroupOperationExclusiveScan : SpvGroupOperationReduce;
        switch (in->op) {
        case CVM_OP_REDUCE_MIN: op = fl ? SpvOpGroupNonUniformFMin : sgn ? SpvOpGroupNonUniformSMin : SpvOpGroupNonUniformUMin; break;
        case CVM_OP_REDUCE_MAX: op = fl ? SpvOpGroupNonUniformFMax : sgn ? SpvOpGroupNonUniformSMax : SpvOpGroupNonUniformUMax; break;
        case CVM_OP_REDUCE_AND: op = bo ? SpvOpGroupNonUniformLogicalAnd : SpvOpGroupNonUniformBitwiseAnd; break;
        case CVM_OP_REDUCE_OR: op = bo ? SpvOpGroupNonUniformLogicalOr : SpvOpGroupNonUniformBitwiseOr; break;
        case CVM_OP_REDUCE_XOR: op = bo ? SpvOpGroupNonUniformLogicalXor : SpvOpGroupNonUniformBitwiseXor; break;
        default: op = fl ? SpvOpGroupNonUniformFAdd : SpvOpGroupNonUniformIAdd; break;
        }
        SPV_EM(c, &c->body, op, t, r, sg, grp, spv_get(c, in->ops[1]));
        break;
    }
    case CVM_OP_MATCH_ALL: {
        need(c, SpvCapabilityGroupNonUniformVote);
        uint32_t eq = spv_id(c), full = spv_sreg(c, CVM_SREG_PLANE_FULLMASK, e);
        SPV_EM(c, &c->body, SpvOpGroupNonUniformAllEqual, bt, eq, sg, spv_get(c, in->ops[1]));
        r = spv_op3(c, SpvOpSelect, t, eq, full, spv_c_of(c, e, 1, 0));
        break;
    }
    default: {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
        spv_fail(c, CVM_UNSUPPORTED, "plane op '%s' is not implemented by the SPIR-V backend", oi->mnemonic);
        return true;
    }
    }
    spv_set(c, d, r);
    return true;
}

/*
 * sync_cube.count/and/or: a Workgroup counter. Every unit (returned ones
 * too: the caller lifted the exit guards, and they count as false) clears
 * it atomically after a barrier that ends the previous use, adds its vote
 * after a second barrier and reads the total after a third. `and` counts
 * the false votes.
 */
static void sync_pred(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t u = spv_t_int(c, 32), bt = spv_t_bool(c), wg = spv_c_u32(c, SpvScopeWorkgroup);
    uint32_t sem = spv_c_u32(c, 0); /* relaxed: the barriers order the three steps */
    if (!c->syncvar)
        c->syncvar = spv_global(c, SpvStorageClassWorkgroup, u, "sync_votes");
    uint32_t p = spv_get(c, in->ops[1]);
    if (in->op == CVM_OP_SYNC_CUBE_AND)
        p = spv_op1(c, SpvOpLogicalNot, bt, p);
    p = spv_op2(c, SpvOpLogicalAnd, bt, p, spv_op1(c, SpvOpLogicalNot, bt, spv_load(c, bt, c->exited)));
    spv_control_barrier(c);
    SPV_EM(c, &c->body, SpvOpAtomicStore, c->syncvar, wg, sem, spv_c_u32(c, 0));
    spv_control_barrier(c);
    SPV_EM(c, &c->body, SpvOpAtomicIAdd, u, spv_id(c), c->syncvar, wg, sem,
           spv_op3(c, SpvOpSelect, u, p, spv_c_u32(c, 1), spv_c_u32(c, 0)));
    spv_control_barrier(c);
    uint32_t n = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicLoad, u, n, c->syncvar, wg, sem);
    if (in->op == CVM_OP_SYNC_CUBE_COUNT)
        spv_set(c, in->ops[0], n);
    else
        spv_set(c, in->ops[0], spv_op2(c, in->op == CVM_OP_SYNC_CUBE_AND ? SpvOpIEqual : SpvOpINotEqual,
                                       bt, n, spv_c_u32(c, 0)));
}

bool spv_op_plane(spv_ctx *c, const cvm_bc_insn *in)
{
    switch (in->op) {
    case CVM_OP_SYNC_CUBE:
        spv_control_barrier(c);
        return true;
    case CVM_OP_SYNC_CUBE_COUNT: case CVM_OP_SYNC_CUBE_AND: case CVM_OP_SYNC_CUBE_OR:
        sync_pred(c, in);
        return true;
    case CVM_OP_ACTIVEMASK: {
        if (c->t->plane_width != c->t->subgroup_size) {
            spv_plane_emulate(c, in);
            return true;
        }
        need(c, SpvCapabilityGroupNonUniformBallot);
        uint32_t u = spv_t_int(c, 32), r = spv_id(c);
        SPV_EM(c, &c->body, SpvOpGroupNonUniformBallot, spv_t_vec(c, u, 4), r, spv_c_u32(c, SpvScopeSubgroup),
               spv_c_bool(c, true));
        r = spv_op2(c, SpvOpCompositeExtract, u, r, 0);
        if (cvm_bc_elem_size(in->elem) == 8)
            r = spv_op1(c, SpvOpUConvert, spv_t_int(c, 64), r);
        spv_set(c, in->ops[0], r);
        return true;
    }
    default:
        if (in->op >= CVM_OP_SYNC_PLANE && in->op <= CVM_OP_MATCH_ALL)
            return op_plane_op(c, in);
        return false; /* print, trap, bar.*: rejected by the caller */
    }
}
