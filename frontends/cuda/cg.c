/*
 * cg.c - the cooperative_groups subset of the CUDA frontend: thread_block
 * (this_thread_block, sync, thread_rank, size), thread_block_tile<N>
 * (tiled_partition<N> and tiled_partition(g, N), shfl*, any/all/ballot,
 * sync, thread_rank, size, meta_group_rank/size), thread_group parameters
 * (lower.c binds them to the group passed), coalesced_threads(), and
 * cg::reduce / inclusive_scan / exclusive_scan with plus/less/greater/bit_*
 * or a callable.
 *
 * The group objects are empty structs the parser typed (fe_cg_type); a
 * tile of N units is the N consecutive unit_pos values of one plane, so
 * its operations are the warp intrinsics with width N, which this file
 * lowers by building the equivalent intrinsic call and lowering that.
 */
#include "lower.h"

#include <stdio.h>
#include <string.h>


static fe_node *node(fe_lower *L, fe_nk kind, fe_tok *at)
{
    fe_node *n = fe_alloc(L->c, sizeof *n);
    if (n) {
        n->kind = kind;
        n->tok = at;
    }
    return n;
}

static fe_node *int_node(fe_lower *L, fe_tok *at, uint64_t v, bool is_unsigned)
{
    fe_node *n = node(L, N_INT, at);
    if (n) {
        n->ival = v;
        n->is_unsigned = is_unsigned;
    }
    return n;
}

/* A call of the intrinsic `name` with these argument nodes (copied: their
 * `next` links belong to the original lists). */
static fe_node *call_node(fe_lower *L, fe_tok *at, const char *name, fe_node **args, int n)
{
    fe_node *c = node(L, N_CALL, at), *callee = node(L, N_IDENT, at);
    if (!c || !callee)
        return NULL;
    callee->name = name;
    c->a = callee;
    fe_node **link = &c->args;
    for (int i = 0; i < n; i++) {
        fe_node *a = node(L, N_INT, at);
        if (!a || !args[i])
            return NULL;
        *a = *args[i];
        a->next = NULL;
        *link = a;
        link = &a->next;
    }
    return c;
}

static int cg_nargs(fe_node *call)
{
    int n = 0;
    for (fe_node *a = call->args; a; a = a->next)
        n++;
    return n;
}

static bool cg_want(fe_lower *L, fe_node *call, const char *what, int n)
{
    if (cg_nargs(call) == n)
        return true;
    fe_error(L->c, call->tok, CVM_SYNTAX, "'%s' takes %d argument%s", what, n, n == 1 ? "" : "s");
    return false;
}

static fe_val sreg_u32(fe_lower *L, const char *name)
{
    int r = fe_reg(L, RT(TY_U32, 1, 0));
    fe_emit(L, "sreg.u32 %%r%d, %s", r, name);
    return fe_rv(fe_ty(TY_U32), r);
}

static fe_val op_u32(fe_lower *L, const char *op, fe_val a, fe_val b)
{
    int r = fe_reg(L, RT(TY_U32, 1, 0));
    fe_emit(L, "%s.u32 %%r%d, %%r%d, %%r%d", op, r, a.reg, b.reg);
    return fe_rv(fe_ty(TY_U32), r);
}

static fe_val block_size(fe_lower *L)
{
    fe_val s = sreg_u32(L, "cube_dim.x");
    s = op_u32(L, "mul", s, sreg_u32(L, "cube_dim.y"));
    return op_u32(L, "mul", s, sreg_u32(L, "cube_dim.z"));
}

static fe_val grid_blocks(fe_lower *L)
{
    fe_val s = sreg_u32(L, "cube_count.x");
    s = op_u32(L, "mul", s, sreg_u32(L, "cube_count.y"));
    return op_u32(L, "mul", s, sreg_u32(L, "cube_count.z"));
}

static fe_val lower_call(fe_lower *L, fe_node *c)
{
    fe_val out = fe_zero(L);
    if (c && !fe_builtin_call(L, c, c->a->name, &out) && !L->c->err)
        fe_error(L->c, c->tok, CVM_INTERNAL, "internal compiler error: no builtin '%s'", c->a->name);
    return out;
}

static fe_node *temp_ident(fe_lower *L, fe_tok *at, const char *name, fe_val v);

/* The member mask of an n-unit tile's operations: the tile's lanes that
 * exist in the block (a block of 20 units has a 20-lane plane, its second
 * 16-tile 4 lanes). Tiles of one plane name disjoint masks, which the
 * devices run apart, so a tile whose lanes are all active needs no other
 * tile's (`if (row < rows) v += t.shfl_down(v, 4);` with a tile per row:
 * the whole plane's mask named lanes of rows that skipped the op). */
static fe_node *tile_mask(fe_lower *L, fe_tok *at, uint32_t n)
{
    fe_val exist = sreg_u32(L, "plane_fullmask");
    if (n < 32) {
        fe_val first = op_u32(L, "and", sreg_u32(L, "unit_pos_plane"),
                              fe_const_int(L, TY_U32, ~(int64_t)(n - 1) & 0xffffffff));
        fe_val bits = op_u32(L, "shl", fe_const_int(L, TY_U32, (int64_t)((1ull << n) - 1)), first);
        exist = op_u32(L, "and", exist, bits);
    }
    return temp_ident(L, at, "__cg_mask", exist);
}

/* any/all/ballot of a tile narrower than the plane: the plane's ballot, cut to the tile's bits. */
static fe_val tile_vote(fe_lower *L, fe_node *call, const char *what, uint32_t n)
{
    fe_tok *at = call->tok;
    fe_var *saved = L->vars;
    fe_node *args[2] = {tile_mask(L, at, n), call->args};
    fe_val b = lower_call(L, call_node(L, at, "__ballot_sync", args, 2));
    L->vars = saved;
    fe_val exist = sreg_u32(L, "plane_fullmask"); /* the tile's lanes that exist: fewer in a partial last tile */
    if (n < 32) {
        fe_val lane = sreg_u32(L, "unit_pos_plane");
        fe_val first = op_u32(L, "and", lane, fe_const_int(L, TY_U32, ~(int64_t)(n - 1) & 0xffffffff));
        fe_val keep = fe_const_int(L, TY_U32, (int64_t)((1ull << n) - 1));
        b = op_u32(L, "and", op_u32(L, "shr", b, first), keep);
        exist = op_u32(L, "and", op_u32(L, "shr", exist, first), keep);
    }
    if (strcmp(what, "ballot") == 0)
        return b;
    int r = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_val ref = strcmp(what, "any") == 0 ? fe_const_int(L, TY_U32, 0) : exist;
    fe_emit(L, "%s.u32 %%r%d, %%r%d, %%r%d", strcmp(what, "any") == 0 ? "ne" : "eq", r, b.reg, ref.reg);
    return fe_convert(L, fe_rv(fe_ty(TY_BOOL), r), fe_ty(TY_I32), at);
}

static bool tile_method(fe_lower *L, fe_node *call, uint32_t n, uint32_t parent, const char *m,
                        fe_val *out)
{
    fe_tok *at = call->tok;
    int k = 0;
    while ((1u << k) < n)
        k++;
    if (strcmp(m, "thread_rank") == 0 && cg_want(L, call, m, 0)) {
        *out = op_u32(L, "and", sreg_u32(L, "unit_pos"), fe_const_int(L, TY_U32, n - 1));
    } else if ((strcmp(m, "size") == 0 || strcmp(m, "num_threads") == 0) && cg_want(L, call, m, 0)) {
        *out = fe_const_int(L, TY_U32, n);
    } else if (strcmp(m, "meta_group_rank") == 0 && cg_want(L, call, m, 0)) {
        /* the tile's rank among its parent's tiles: the parent's thread_rank / n */
        fe_val r = sreg_u32(L, "unit_pos");
        if (parent)
            r = op_u32(L, "and", r, fe_const_int(L, TY_U32, parent - 1));
        *out = op_u32(L, "shr", r, fe_const_int(L, TY_U32, k));
    } else if (strcmp(m, "meta_group_size") == 0 && cg_want(L, call, m, 0)) {
        if (parent) {
            *out = fe_const_int(L, TY_U32, parent / n);
        } else {
            fe_val s = op_u32(L, "add", block_size(L), fe_const_int(L, TY_U32, n - 1));
            *out = op_u32(L, "shr", s, fe_const_int(L, TY_U32, k));
        }
    } else if (strcmp(m, "sync") == 0 && cg_want(L, call, m, 0)) {
        fe_var *saved = L->vars;
        fe_node *mask = tile_mask(L, at, n);
        *out = lower_call(L, call_node(L, at, "__syncwarp", &mask, 1));
        L->vars = saved;
    } else if (strcmp(m, "shfl") == 0 || strcmp(m, "shfl_down") == 0 || strcmp(m, "shfl_up") == 0 ||
               strcmp(m, "shfl_xor") == 0) {
        if (!cg_want(L, call, m, 2))
            return true;
        const char *name = m[4] == 0 ? "__shfl_sync" : m[5] == 'd' ? "__shfl_down_sync"
                           : m[5] == 'u' ? "__shfl_up_sync" : "__shfl_xor_sync";
        fe_var *saved = L->vars;
        fe_node *args[4] = {tile_mask(L, at, n), call->args, call->args ? call->args->next : NULL,
                            int_node(L, at, n, false)};
        *out = lower_call(L, call_node(L, at, name, args, 4));
        L->vars = saved;
    } else if (strcmp(m, "any") == 0 || strcmp(m, "all") == 0 || strcmp(m, "ballot") == 0) {
        if (cg_want(L, call, m, 1))
            *out = tile_vote(L, call, m, n);
    } else {
        fe_error(L->c, at, CVM_UNSUPPORTED, "thread_block_tile has no member function '%s' in cubevm", m);
    }
    return true;
}

/* A name bound to a value for the nodes this file builds (an N_IDENT of it). */
static fe_node *temp_ident(fe_lower *L, fe_tok *at, const char *name, fe_val v)
{
    fe_var *var = fe_alloc(L->c, sizeof *var);
    fe_node *id = node(L, N_IDENT, at);
    if (!var || !id)
        return NULL;
    var->name = name;
    var->ty = v.ty;
    var->val = (fe_val){v.ty, v.reg, LV_NONE, 0, false, false, false, false};
    var->next = L->vars;
    L->vars = var;
    id->name = name;
    return id;
}

static fe_val op1_u32(fe_lower *L, const char *op, fe_val a)
{
    int r = fe_reg(L, RT(TY_U32, 1, 0));
    fe_emit(L, "%s.u32 %%r%d, %%r%d", op, r, a.reg);
    return fe_rv(fe_ty(TY_U32), r);
}

/* The lane of the unit of rank `rank` in `mask` (the rank-th set bit): a binary search on popc. */
static fe_val lane_of_rank(fe_lower *L, fe_val mask, fe_val rank)
{
    fe_val pos = fe_const_int(L, TY_U32, 0), one = fe_const_int(L, TY_U32, 1);
    for (uint32_t s = 16; s >= 1; s /= 2) {
        fe_val cand = op_u32(L, "add", pos, fe_const_int(L, TY_U32, s));
        fe_val below = op_u32(L, "sub", op_u32(L, "shl", one, cand), one);
        fe_val cnt = op1_u32(L, "popc", op_u32(L, "and", mask, below));
        int le = fe_reg(L, RT(TY_BOOL, 1, 0)), r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "le.u32 %%r%d, %%r%d, %%r%d", le, cnt.reg, rank.reg);
        fe_emit(L, "select.u32 %%r%d, %%r%d, %%r%d, %%r%d", r, cand.reg, pos.reg, le); /* le ? cand : pos */
        pos = fe_rv(fe_ty(TY_U32), r);
    }
    return pos;
}

/* The lane of rank rank + d (down) or rank - d (up) in mask; the unit's own
 * lane where that rank is outside the group (CUDA keeps the value then). */
static fe_val rank_lane(fe_lower *L, fe_val mask, fe_val lane, fe_val rank, fe_val d, bool up)
{
    fe_val target = op_u32(L, up ? "sub" : "add", rank, d);
    int ok = fe_reg(L, RT(TY_BOOL, 1, 0)), r = fe_reg(L, RT(TY_U32, 1, 0));
    if (up)
        fe_emit(L, "ge.u32 %%r%d, %%r%d, %%r%d", ok, rank.reg, d.reg);
    else
        fe_emit(L, "lt.u32 %%r%d, %%r%d, %%r%d", ok, target.reg, op1_u32(L, "popc", mask).reg);
    fe_val src = lane_of_rank(L, mask, target);
    fe_emit(L, "select.u32 %%r%d, %%r%d, %%r%d, %%r%d", r, src.reg, lane.reg, ok);
    return fe_rv(fe_ty(TY_U32), r);
}

/* The bits of b at the lanes of mask, packed by rank (a parallel bit extract). */
static fe_val compact_bits(fe_lower *L, fe_val b, fe_val mask)
{
    fe_val res = fe_const_int(L, TY_U32, 0), one = fe_const_int(L, TY_U32, 1);
    b = op_u32(L, "and", fe_convert(L, b, fe_ty(TY_U32), NULL), mask);
    for (uint32_t l = 0; l < 32; l++) {
        fe_val bit = op_u32(L, "and", op_u32(L, "shr", b, fe_const_int(L, TY_U32, l)), one);
        fe_val pos = op1_u32(L, "popc", op_u32(L, "and", mask, fe_const_int(L, TY_U32, (int64_t)((1ull << l) - 1))));
        res = op_u32(L, "or", res, op_u32(L, "shl", bit, pos));
    }
    return res;
}

/* coalesced_group: the units active where coalesced_threads() ran, ranked by lane. */
static bool coalesced_method(fe_lower *L, fe_node *call, fe_val obj, const char *m, fe_val *out)
{
    fe_tok *at = call->tok;
    fe_val mask = fe_load(L, (fe_val){fe_ty(TY_U32), obj.reg, LV_MEM, 0, false, false, false, false});
    fe_val lane = sreg_u32(L, "unit_pos_plane");
    fe_val below = op_u32(L, "sub", op_u32(L, "shl", fe_const_int(L, TY_U32, 1), lane), fe_const_int(L, TY_U32, 1));
    fe_var *saved = L->vars;
    if (strcmp(m, "thread_rank") == 0 && cg_want(L, call, m, 0)) {
        *out = op1_u32(L, "popc", op_u32(L, "and", mask, below));
    } else if ((strcmp(m, "size") == 0 || strcmp(m, "num_threads") == 0) && cg_want(L, call, m, 0)) {
        *out = op1_u32(L, "popc", mask);
    } else if (strcmp(m, "meta_group_rank") == 0 && cg_want(L, call, m, 0)) {
        *out = fe_const_int(L, TY_U32, 0);
    } else if (strcmp(m, "meta_group_size") == 0 && cg_want(L, call, m, 0)) {
        *out = fe_const_int(L, TY_U32, 1);
    } else if (strcmp(m, "sync") == 0 && cg_want(L, call, m, 0)) {
        fe_emit(L, "sync_plane %%r%d", mask.reg);
    } else if (strcmp(m, "shfl") == 0) {
        if (!cg_want(L, call, m, 2))
            return true;
        fe_val rank = fe_convert(L, fe_rvalue(L, call->args->next), fe_ty(TY_U32), at);
        fe_node *args[3] = {temp_ident(L, at, "__cg_mask", mask), call->args,
                            temp_ident(L, at, "__cg_lane", lane_of_rank(L, mask, rank))};
        *out = lower_call(L, call_node(L, at, "__shfl_sync", args, 3));
    } else if (strcmp(m, "shfl_down") == 0 || strcmp(m, "shfl_up") == 0) {
        if (!cg_want(L, call, m, 2))
            return true;
        fe_val d = fe_convert(L, fe_rvalue(L, call->args->next), fe_ty(TY_U32), at);
        fe_val src = rank_lane(L, mask, lane, op1_u32(L, "popc", op_u32(L, "and", mask, below)), d, m[5] == 'u');
        fe_node *args[3] = {temp_ident(L, at, "__cg_mask", mask), call->args, temp_ident(L, at, "__cg_lane", src)};
        *out = lower_call(L, call_node(L, at, "__shfl_sync", args, 3));
    } else if (strcmp(m, "any") == 0 || strcmp(m, "all") == 0 || strcmp(m, "ballot") == 0) {
        if (!cg_want(L, call, m, 1))
            return true;
        fe_node *args[2] = {temp_ident(L, at, "__cg_mask", mask), call->args};
        *out = lower_call(L, call_node(L, at, m[1] == 'n' ? "__any_sync" : m[1] == 'l' ? "__all_sync" : "__ballot_sync",
                                       args, 2));
        if (m[0] == 'b') /* bit i of the group's ballot is the unit of rank i */
            *out = compact_bits(L, *out, mask);
    } else {
        fe_error(L->c, at, CVM_UNSUPPORTED, "coalesced_group has no member function '%s' in cubevm "
                 "(thread_rank, size, num_threads, sync, shfl, shfl_up, shfl_down, any, all, ballot)", m);
    }
    L->vars = saved;
    return true;
}

/* threadIdx, blockIdx, blockDim or gridDim as a whole dim3 value. */
static fe_val position(fe_lower *L, fe_tok *at, const char *var)
{
    fe_node *id = node(L, N_IDENT, at);
    fe_val v = fe_rv(fe_ty(TY_I32), 0);
    if (id) {
        id->name = var;
        fe_builtin_ident(L, id, &v);
    }
    return v;
}

static fe_val to_u64(fe_lower *L, fe_val v) { return fe_convert(L, v, fe_ty(TY_U64), NULL); }

/* The grid_group members cubevm has (all but sync): false for others. */
static bool grid_method(fe_lower *L, fe_node *call, const char *m, fe_val *out)
{
    if (strcmp(m, "thread_rank") == 0) { /* block_rank * block size + thread_rank, in 64 bits */
        int r = fe_reg(L, RT(TY_U64, 1, 0));
        fe_val b = to_u64(L, sreg_u32(L, "cube_pos")), n = to_u64(L, block_size(L));
        fe_val u = to_u64(L, sreg_u32(L, "unit_pos"));
        fe_emit(L, "mad.u64 %%r%d, %%r%d, %%r%d, %%r%d", r, b.reg, n.reg, u.reg);
        *out = fe_rv(fe_ty(TY_U64), r);
    } else if (strcmp(m, "size") == 0 || strcmp(m, "num_threads") == 0) {
        int r = fe_reg(L, RT(TY_U64, 1, 0));
        fe_val b = to_u64(L, grid_blocks(L)), n = to_u64(L, block_size(L));
        fe_emit(L, "mul.u64 %%r%d, %%r%d, %%r%d", r, b.reg, n.reg);
        *out = fe_rv(fe_ty(TY_U64), r);
    } else if (strcmp(m, "num_blocks") == 0) {
        *out = grid_blocks(L);
    } else if (strcmp(m, "block_rank") == 0) {
        *out = sreg_u32(L, "cube_pos");
    } else if (strcmp(m, "block_index") == 0 || strcmp(m, "dim_blocks") == 0) {
        *out = position(L, call->tok, m[1] == 'l' ? "blockIdx" : "gridDim");
    } else if (strcmp(m, "is_valid") == 0) {
        *out = fe_convert(L, fe_const_int(L, TY_I32, 1), fe_ty(TY_BOOL), call->tok);
    } else {
        return false;
    }
    return true;
}

bool fe_builtin_method(fe_lower *L, fe_node *call, fe_val obj, fe_val *out)
{
    fe_type *t = obj.ty;
    if (t->kind != TY_STRUCT || !t->cg)
        return false;
    const char *m = call->a->name;
    *out = fe_rv(fe_ty(TY_VOID), 0);
    if (t->cg == CG_TILE)
        return tile_method(L, call, t->len, t->cg_parent, m, out);
    if (t->cg == CG_COALESCED)
        return coalesced_method(L, call, obj, m, out);
    if (t->cg == CG_GROUP) {
        fe_error(L->c, call->tok, CVM_UNSUPPORTED, "a thread_group must be initialized with a group "
                 "(this_thread_block(), tiled_partition, coalesced_threads()) before '%s'", m);
        return true;
    }
    if (t->cg == CG_GRID) {
        if (cg_want(L, call, m, 0) && !grid_method(L, call, m, out))
            fe_error(L->c, call->a->a ? call->a->a->tok : call->tok, CVM_UNSUPPORTED, /* at this_grid() */
                     strcmp(m, "sync") == 0 ? "grid-wide synchronization (this_grid().sync()) is not supported in kernels"
                                            : "grid_group has no member function '%s' in cubevm (thread_rank, size, "
                                              "num_threads, num_blocks, block_rank, block_index, dim_blocks, "
                                              "is_valid)", m);
        return true;
    }
    if (t->cg != CG_BLOCK) {
        fe_error(L->c, call->tok, CVM_SYNTAX, "'%s' has no member function '%s'", t->name, m);
        return true;
    }
    if (strcmp(m, "sync") == 0 && cg_want(L, call, m, 0))
        *out = lower_call(L, call_node(L, call->tok, "__syncthreads", NULL, 0));
    else if (strcmp(m, "thread_rank") == 0 && cg_want(L, call, m, 0))
        *out = sreg_u32(L, "unit_pos");
    else if ((strcmp(m, "size") == 0 || strcmp(m, "num_threads") == 0) && cg_want(L, call, m, 0))
        *out = block_size(L);
    else if ((strcmp(m, "group_index") == 0 || strcmp(m, "thread_index") == 0 || strcmp(m, "group_dim") == 0 ||
              strcmp(m, "dim_threads") == 0) && cg_want(L, call, m, 0))
        *out = position(L, call->tok, strcmp(m, "group_index") == 0 ? "blockIdx"
                                      : strcmp(m, "thread_index") == 0 ? "threadIdx" : "blockDim");
    else if (!L->c->err)
        fe_error(L->c, call->tok, CVM_UNSUPPORTED, "thread_block has no member function '%s' in cubevm "
                 "(sync, thread_rank, size, num_threads, group_index, thread_index, group_dim, dim_threads)", m);
    return true;
}

/* The node op(x, y) of cg::reduce/scan: a cooperative_groups operator, or
 * any callable (a lambda or a function object: operator() of the op node). */
static fe_node *combine(fe_lower *L, fe_tok *at, fe_type *opty, fe_node *opn, fe_node *x, fe_node *y)
{
    fe_node *xy[2] = {x, y};
    if (opty->cg == CG_LESS || opty->cg == CG_GREATER)
        return call_node(L, at, opty->cg == CG_LESS ? "min" : "max", xy, 2);
    if (opty->cg >= CG_PLUS) {
        fe_node *n = node(L, N_BIN, at);
        if (n) {
            n->op = opty->cg == CG_PLUS ? '+' : opty->cg == CG_BIT_AND ? '&' : opty->cg == CG_BIT_OR ? '|' : '^';
            n->a = x;
            n->b = y;
        }
        return n;
    }
    fe_node *c = call_node(L, at, "operator()", xy, 2);
    if (c) {
        c->a = node(L, N_INT, at);
        if (c->a) {
            *c->a = *opn; /* the op expression itself is the callee */
            c->a->next = NULL;
        }
    }
    return c;
}

/*
 * cg::reduce(tile, v, op): a butterfly over the tile's width, so every unit
 * gets the result. cg::inclusive_scan / exclusive_scan(tile, v[, op]):
 * Hillis-Steele over the tile with shfl_up (op defaults to plus; the
 * exclusive scan gives rank 0 a zero value).
 */
static fe_val cg_collective(fe_lower *L, fe_node *call, fe_type *tile, int kind)
{
    fe_tok *at = call->tok;
    fe_node *vn = call->args->next, *opn = vn->next;
    fe_type *opty = opn ? fe_type_of(L, opn) : fe_cg_type(L->c, CG_PLUS, 0, fe_ty(TY_I32));
    fe_val v = fe_rvalue(L, vn);
    fe_type *t = fe_unqual(v.ty);
    if (!fe_is_arith(t)) {
        fe_error(L->c, vn->tok, CVM_UNSUPPORTED, "cg::%s needs an arithmetic value",
                 kind == 0 ? "reduce" : kind == 1 ? "inclusive_scan" : "exclusive_scan");
        return v;
    }
    int acc = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, acc), acc, v.reg);
    fe_var *saved = L->vars;
    fe_node *id = temp_ident(L, at, "__cg_acc", fe_rv(t, acc));
    fe_val rank = op_u32(L, "and", sreg_u32(L, "unit_pos"), fe_const_int(L, TY_U32, tile->len - 1));
    fe_node *rank_id = temp_ident(L, at, "__cg_rank", rank);
    fe_node *mask = tile_mask(L, at, tile->len);
    /* reduce: the lane and the lanes that exist, read once for every step's partner test */
    fe_val lane = {0}, exist = {0};
    if (kind == 0) {
        lane = sreg_u32(L, "unit_pos_plane");
        exist = sreg_u32(L, "plane_fullmask");
    }
    for (uint32_t o = kind == 0 ? tile->len / 2 : 1; o >= 1 && o < tile->len && id && !L->c->err;
         o = kind == 0 ? o / 2 : o * 2) {
        fe_node *args[4] = {mask, id, int_node(L, at, o, false),
                            int_node(L, at, tile->len, false)};
        fe_val other = fe_rvalue(L, call_node(L, at, kind == 0 ? "__shfl_xor_sync" : "__shfl_up_sync", args, 4));
        fe_node *other_id = temp_ident(L, at, "__cg_other", other);
        fe_node *comb = combine(L, at, opty, opn, id, other_id);
        if (!comb || !other_id)
            break;
        if (kind == 0) { /* a partner past a partial last tile's end does not exist: keep the value */
            fe_val partner = op_u32(L, "xor", lane, fe_const_int(L, TY_U32, o));
            fe_val bit = op_u32(L, "and", op_u32(L, "shr", exist, partner), fe_const_int(L, TY_U32, 1));
            int has = fe_reg(L, RT(TY_BOOL, 1, 0));
            fe_emit(L, "ne.u32 %%r%d, %%r%d, %%r%d", has, bit.reg, fe_const_int(L, TY_U32, 0).reg);
            fe_node *cond = node(L, N_COND, at), *has_id = temp_ident(L, at, "__cg_has", fe_rv(fe_ty(TY_BOOL), has));
            if (!cond || !has_id)
                break;
            cond->a = has_id;
            cond->b = comb;
            cond->c = id;
            comb = cond;
        } else { /* only ranks with a partner o below take it */
            fe_node *cond = node(L, N_COND, at), *ge = node(L, N_BIN, at);
            if (!cond || !ge)
                break;
            ge->op = FE_OP2('>', '=');
            ge->a = rank_id;
            ge->b = int_node(L, at, o, true);
            cond->a = ge;
            cond->b = comb;
            cond->c = id;
            comb = cond;
        }
        fe_val r = fe_convert(L, fe_rvalue(L, comb), t, at);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, acc), acc, r.reg);
    }
    if (kind == 0 && id && !L->c->err) { /* rank 0 holds the whole tile's result, partial or not: everyone takes it */
        fe_node *args[4] = {mask, id, int_node(L, at, 0, false), int_node(L, at, tile->len, false)};
        fe_val all = fe_convert(L, fe_rvalue(L, call_node(L, at, "__shfl_sync", args, 4)), t, at);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, acc), acc, all.reg);
    }
    if (kind == 2 && id && !L->c->err) { /* exclusive: the inclusive value of rank - 1 */
        fe_node *args[4] = {mask, id, int_node(L, at, 1, false),
                            int_node(L, at, tile->len, false)};
        fe_val prev = fe_convert(L, fe_rvalue(L, call_node(L, at, "__shfl_up_sync", args, 4)), t, at);
        fe_val zero = fe_convert(L, fe_zero(L), t, at);
        int first = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "eq.u32 %%r%d, %%r%d, %%r%d", first, rank.reg, fe_const_int(L, TY_U32, 0).reg);
        fe_emit(L, "select.%s %%r%d, %%r%d, %%r%d, %%r%d", fe_tname_of(L, acc), acc, zero.reg, prev.reg, first);
    }
    L->vars = saved;
    return fe_rv(t, acc);
}

/*
 * cg::reduce(coalesced_group, v, op): the members may be any lanes, so the
 * tree runs over ranks: rank r takes rank r + o's partial while that rank
 * is in the group (o = 16 .. 1), and rank 0's total is broadcast.
 */
static fe_val coalesced_reduce(fe_lower *L, fe_node *call, fe_type *opty)
{
    fe_tok *at = call->tok;
    fe_node *vn = call->args->next, *opn = vn->next;
    fe_val obj = fe_gen(L, call->args);
    fe_val mask = fe_load(L, (fe_val){fe_ty(TY_U32), obj.reg, LV_MEM, 0, false, false, false, false});
    fe_val v = fe_rvalue(L, vn);
    fe_type *t = fe_unqual(v.ty);
    if (!fe_is_arith(t)) {
        fe_error(L->c, vn->tok, CVM_UNSUPPORTED, "cg::reduce needs an arithmetic value");
        return v;
    }
    fe_val lane = sreg_u32(L, "unit_pos_plane"), one = fe_const_int(L, TY_U32, 1);
    fe_val rank = op1_u32(L, "popc", op_u32(L, "and", mask, op_u32(L, "sub", op_u32(L, "shl", one, lane), one)));
    fe_val size = op1_u32(L, "popc", mask);
    int acc = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, acc), acc, v.reg);
    fe_var *saved = L->vars;
    fe_node *id = temp_ident(L, at, "__cg_acc", fe_rv(t, acc)), *mask_id = temp_ident(L, at, "__cg_mask", mask);
    for (uint32_t o = 16; o >= 1 && id && mask_id && !L->c->err; o /= 2) {
        fe_val d = fe_const_int(L, TY_U32, o);
        fe_node *args[3] = {mask_id, id, temp_ident(L, at, "__cg_lane", rank_lane(L, mask, lane, rank, d, false))};
        fe_node *other_id = temp_ident(L, at, "__cg_other", lower_call(L, call_node(L, at, "__shfl_sync", args, 3)));
        int in = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "lt.u32 %%r%d, %%r%d, %%r%d", in, op_u32(L, "add", rank, d).reg, size.reg);
        fe_node *cond = node(L, N_COND, at), *comb = combine(L, at, opty, opn, id, other_id);
        if (!cond || !comb || !other_id)
            break;
        cond->a = temp_ident(L, at, "__cg_in", fe_rv(fe_ty(TY_BOOL), in));
        cond->b = comb;
        cond->c = id;
        fe_val r = fe_convert(L, fe_rvalue(L, cond), t, at);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, acc), acc, r.reg);
    }
    fe_node *args[3] = {mask_id, id, temp_ident(L, at, "__cg_lane", lane_of_rank(L, mask, fe_const_int(L, TY_U32, 0)))};
    fe_val total = L->c->err ? fe_rv(t, acc) : fe_convert(L, lower_call(L, call_node(L, at, "__shfl_sync", args, 3)), t, at);
    L->vars = saved;
    return total;
}

bool fe_cg_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (strcmp(name, "this_thread_block") == 0 || strcmp(name, "this_grid") == 0) {
        if (!cg_want(L, call, name, 0))
            return true;
        fe_type *t = fe_cg_type(L->c, name[5] == 't' ? CG_BLOCK : CG_GRID, 0, NULL);
        *out = fe_construct(L, t, NULL, call->tok);
        return true;
    }
    if (strcmp(name, "coalesced_threads") == 0) {
        if (!cg_want(L, call, name, 0))
            return true;
        L->uses_plane = true;
        fe_type *t = fe_cg_type(L->c, CG_COALESCED, 0, NULL);
        fe_val obj = fe_construct(L, t, NULL, call->tok);
        int r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "activemask.u32 %%r%d", r);
        fe_store(L, (fe_val){fe_ty(TY_U32), obj.reg, LV_MEM, 0, false, false, false, false}, fe_rv(fe_ty(TY_U32), r), call->tok);
        *out = obj;
        return true;
    }
    if (strcmp(name, "tiled_partition") == 0) {
        int64_t n = 0;
        if (call->a->ntargs == 0 && cg_nargs(call) == 2) { /* tiled_partition(g, 32): a constant size */
            if (!fe_const_eval(L->c, call->args->next, &n)) {
                fe_error(L->c, call->args->next->tok, CVM_UNSUPPORTED,
                         "tiled_partition(g, n) needs a tile size known at compile time in cubevm "
                         "(a constant power of two up to 32)");
                return true;
            }
        } else if (call->a->ntargs != 1 || call->a->targs[0]) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED,
                     "tiled_partition needs a tile size: tiled_partition<32>(g) or tiled_partition(g, 32)");
            return true;
        } else {
            n = call->a->tvals[0];
            if (!cg_want(L, call, name, 1))
                return true;
        }
        fe_type *g = fe_type_of(L, call->args);
        if (g->kind != TY_STRUCT || (g->cg != CG_BLOCK && g->cg != CG_TILE) || n < 1 || n > 32 || (n & (n - 1)) ||
            (g->cg == CG_TILE && (uint32_t)n > g->len)) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED,
                     "tiled_partition<N>(g) needs a thread block or a wider tile and N a power of two up to 32");
            return true;
        }
        L->uses_plane = true;
        *out = fe_construct(L, fe_cg_tile(L->c, (uint32_t)n, g->cg == CG_TILE ? g->len : 0), NULL, call->tok);
        return true;
    }
    bool scan = strcmp(name, "inclusive_scan") == 0 || strcmp(name, "exclusive_scan") == 0;
    if ((strcmp(name, "reduce") == 0 && cg_nargs(call) == 3) || (scan && (cg_nargs(call) == 2 || cg_nargs(call) == 3))) {
        fe_type *g = fe_type_of(L, call->args);
        fe_type *op = cg_nargs(call) == 3 ? fe_type_of(L, call->args->next->next) : NULL;
        if (g->kind != TY_STRUCT || !g->cg)
            return false;
        if (g->cg == CG_COALESCED && !scan && op && op->kind == TY_STRUCT && (op->cg >= CG_PLUS || op->methods)) {
            L->uses_plane = true;
            *out = coalesced_reduce(L, call, op);
            return true;
        }
        if (g->cg != CG_TILE || (op && (op->kind != TY_STRUCT || (op->cg < CG_PLUS && !op->methods)))) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED,
                     "cg::%s needs a thread_block_tile (or, for reduce, a coalesced_group) and cg::plus, cg::less, cg::greater, cg::bit_* "
                     "or a callable (lambda, function object)", name);
            return true;
        }
        L->uses_plane = true;
        *out = cg_collective(L, call, g, !scan ? 0 : name[0] == 'i' ? 1 : 2);
        return true;
    }
    if (strcmp(name, "sync") == 0 && cg_nargs(call) == 1) { /* cg::sync(g) */
        fe_type *g = fe_type_of(L, call->args);
        if (g->kind != TY_STRUCT || !g->cg)
            return false;
        fe_node fake = *call;
        fe_node callee = *call->a;
        callee.name = "sync";
        fake.a = &callee;
        fake.args = NULL;
        return fe_builtin_method(L, &fake, fe_gen(L, call->args), out);
    }
    return false;
}
