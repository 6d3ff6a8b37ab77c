/*
 * bases.c - which buffer parameter each global-pointer access addresses.
 *
 * A ptr.global register becomes a byte offset into one storage buffer, so
 * every ld/st/atomic needs the buffer statically. Registers are reused by
 * the frontends (one register loads `a`, later `b`), so the answer is
 * flow-sensitive: a forward walk over the structured code keeps, per
 * ptr.global register, the buffer its latest write derives from (a buffer
 * parameter p, or a module __device__ symbol s as base nparams + s; or "many"),
 * joins the states where control flow merges (construct ends, break/exit
 * targets, continue points) and repeats a loop body until its head state is
 * stable. The lattice per register is none < param p < many, so the fixed
 * point is reached after a few rounds.
 */
#include "spv_int.h"

#include <string.h>

#define B_NONE (-1)
#define B_MANY (-2)

/* One state: live flag in [0], then one entry per ptr.global register (dense). */
typedef struct bframe {
    uint32_t end;        /* pc of the construct's end */
    uint8_t kind;        /* SPV_F_* */
    int32_t *brk, *cont; /* states arriving at the merge / continue point */
    int32_t *ft;         /* switch: state falling into the next case */
} bframe;

typedef struct bctx {
    spv_ctx *c;
    uint32_t ng;       /* ptr.global registers */
    uint32_t *dense;   /* register -> index + 1 (0 = not ptr.global) */
    int32_t *pool;     /* state storage */
    size_t npool, used;
    bframe frames[CVM_BC_MAX_DEPTH + 2];
    uint32_t nframes;
    bool fail;
} bctx;

static int32_t *st_new(bctx *b)
{
    size_t w = b->ng + 1;
    if (b->used + w > b->npool) {
        b->fail = true;
        return NULL;
    }
    int32_t *s = b->pool + b->used;
    b->used += w;
    s[0] = 0; /* dead */
    return s;
}

static void st_copy(bctx *b, int32_t *d, const int32_t *s) { memcpy(d, s, (b->ng + 1) * sizeof *d); }

static void meet1(int32_t *d, int32_t v)
{
    if (v == B_NONE || *d == v || *d == B_MANY)
        return;
    *d = *d == B_NONE ? v : B_MANY;
}

/* d = d join s; true when d changed. */
static bool st_join(bctx *b, int32_t *d, const int32_t *s)
{
    if (!s[0])
        return false;
    if (!d[0]) {
        st_copy(b, d, s);
        return true;
    }
    bool changed = false;
    for (uint32_t i = 1; i <= b->ng; i++) {
        int32_t old = d[i];
        meet1(&d[i], s[i]);
        changed |= d[i] != old;
    }
    return changed;
}

static int32_t reg_base(bctx *b, const int32_t *s, uint32_t r)
{
    return r < b->c->k->nregs && b->dense[r] ? s[b->dense[r]] : B_MANY;
}

/* Records the first ptr.global source operand's base and applies the write. */
static void transfer(bctx *b, uint32_t pc, const cvm_bc_insn *in, int32_t *s)
{
    spv_ctx *c = b->c;
    const cvm_bc_kernel *k = c->k;
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    if (!oi || !oi->format)
        return;
    const char *f = oi->format;
    char prev = 0;
    bool recorded = false;
    for (unsigned i = 0; i < in->nops;) {
        char ch = *f == '*' ? prev : *f;
        if (!ch)
            break;
        if (ch == 'r' && in->ops[i] < k->nregs && b->dense[in->ops[i]] && !recorded) {
            recorded = true; /* later loop rounds overwrite: their states are larger */
            c->gbase_reg[pc] = in->ops[i];
            c->gbase[pc] = s[0] ? s[b->dense[in->ops[i]]] : SPV_BASE_DEAD;
        }
        i += ch == 'k' ? 2 : 1;
        if (*f != '*') {
            prev = *f;
            f++;
        }
    }
    if (oi->format[0] != 'd' || in->nops < 1 || in->ops[0] >= k->nregs || !b->dense[in->ops[0]])
        return;
    int32_t v = B_MANY;
    if (in->op == CVM_OP_PARAM && in->nops >= 3 && in->ops[1] < k->nparams &&
        k->params[in->ops[1]].kind == CVM_PARAM_BUFFER && in->ops[2] == 0) {
        v = (int32_t)in->ops[1];
    } else if (in->op == CVM_OP_SYM && in->nops >= 2 && in->ops[1] < c->mod->nsymbols &&
               c->mod->symbols[in->ops[1]].space != CVM_SYM_CONST) {
        v = (int32_t)(k->nparams + in->ops[1]); /* a global symbol's own buffer */
    } else if ((in->op == CVM_OP_PTR_ADD || in->op == CVM_OP_MOV) && in->nops >= 2) {
        v = reg_base(b, s, in->ops[1]);
    } else if (in->op == CVM_OP_SELECT) {
        v = B_NONE;
        for (unsigned i = 1; i < in->nops; i++)
            if (in->ops[i] < k->nregs && b->dense[in->ops[i]])
                meet1(&v, s[b->dense[in->ops[i]]]);
    }
    s[b->dense[in->ops[0]]] = v;
}

static bframe *frame_ending(bctx *b, uint32_t end)
{
    for (uint32_t i = b->nframes; i > 0; i--)
        if (b->frames[i - 1].end == end)
            return &b->frames[i - 1];
    b->fail = true;
    return NULL;
}

static void walk(bctx *b, uint32_t from, uint32_t to, int32_t *s);

static bframe *open_frame(bctx *b, uint8_t kind, uint32_t end)
{
    if (b->nframes >= CVM_BC_MAX_DEPTH + 2) {
        b->fail = true;
        return NULL;
    }
    bframe *f = &b->frames[b->nframes++];
    f->kind = kind;
    f->end = end;
    f->brk = st_new(b);
    f->cont = st_new(b);
    f->ft = st_new(b);
    return b->fail ? NULL : f;
}

static void walk_loop(bctx *b, uint32_t p, int32_t *s)
{
    const cvm_bc_vinsn *vi = b->c->vk->insns;
    uint32_t e = vi[p].end, ct = vi[p].target;
    size_t mark = b->used;
    bframe *f = open_frame(b, SPV_F_LOOP, e);
    int32_t *head = st_new(b);
    if (!f || !head)
        return;
    st_copy(b, head, s);
    for (uint32_t round = 0; !b->fail; round++) {
        if (round > 2 * b->ng + 4) { /* cannot happen: the lattice is finite */
            b->fail = true;
            return;
        }
        st_copy(b, s, head);
        f->brk[0] = f->cont[0] = 0;
        walk(b, p + 1, ct, s);
        st_join(b, s, f->cont);
        if (ct != e)
            walk(b, ct + 1, e, s);
        if (!st_join(b, head, s))
            break;
    }
    st_copy(b, s, f->brk);
    b->nframes--;
    b->used = mark;
}

static void walk_switch(bctx *b, uint32_t p, int32_t *s)
{
    const cvm_bc_vinsn *vi = b->c->vk->insns;
    uint32_t e = vi[p].end;
    size_t mark = b->used;
    bframe *f = open_frame(b, SPV_F_SWITCH, e);
    int32_t *in = st_new(b), *out = st_new(b);
    if (!f || !in || !out)
        return;
    st_copy(b, in, s);
    bool dflt = false;
    for (uint32_t m = vi[p].target; m < e && !b->fail; m = vi[m].target) {
        cvm_bc_insn mi;
        if (!cvm_bc_insn_at(b->c->k, vi[m].word, &mi) || vi[m].target <= m) {
            b->fail = true;
            return;
        }
        dflt |= mi.op == CVM_OP_DEFAULT;
        st_copy(b, s, in);
        st_join(b, s, f->ft);
        f->ft[0] = 0;
        walk(b, m + 1, vi[m].target, s);
        st_join(b, out, s);
    }
    if (!dflt)
        st_join(b, out, in);
    st_join(b, out, f->brk);
    st_copy(b, s, out);
    b->nframes--;
    b->used = mark;
}

/* Opens the construct at p (if/loop/switch/block); returns the pc after its end. */
static uint32_t walk_construct(bctx *b, uint32_t p, const cvm_bc_insn *in, int32_t *s)
{
    const cvm_bc_vinsn *vi = b->c->vk->insns;
    uint32_t e = vi[p].end;
    if (e <= p || e >= b->c->vk->ninsns) {
        b->fail = true;
        return b->c->vk->ninsns;
    }
    size_t mark = b->used;
    if (in->op == CVM_OP_IF) {
        int32_t *saved = st_new(b), *then = st_new(b);
        if (!saved || !then)
            return e + 1;
        st_copy(b, saved, s);
        uint32_t t = vi[p].target;
        walk(b, p + 1, t, s);
        if (t != e) {
            st_copy(b, then, s);
            st_copy(b, s, saved);
            walk(b, t + 1, e, s);
            st_join(b, s, then);
        } else {
            st_join(b, s, saved);
        }
    } else if (in->op == CVM_OP_LOOP) {
        walk_loop(b, p, s);
    } else if (in->op == CVM_OP_SWITCH) {
        walk_switch(b, p, s);
    } else { /* block */
        bframe *f = open_frame(b, SPV_F_BLOCK, e);
        if (!f)
            return e + 1;
        walk(b, p + 1, e, s);
        st_join(b, s, f->brk);
        b->nframes--;
    }
    b->used = mark;
    return e + 1;
}

/* An escape: the state goes to its target construct and the path ends here. */
static void leave(bctx *b, uint32_t pc, const cvm_bc_insn *in, int32_t *s)
{
    if (in->op == CVM_OP_RETURN) {
        s[0] = 0;
        return;
    }
    bframe *f = frame_ending(b, b->c->vk->insns[pc].end);
    if (!f)
        return;
    if (in->op == CVM_OP_BREAK_IF) {
        st_join(b, f->brk, s); /* the path continues for lanes that stay */
        return;
    }
    st_join(b, in->op == CVM_OP_CONTINUE ? f->cont : in->op == CVM_OP_FALLTHROUGH ? f->ft : f->brk, s);
    s[0] = 0;
}

static void walk(bctx *b, uint32_t from, uint32_t to, int32_t *s)
{
    spv_ctx *c = b->c;
    for (uint32_t pc = from; pc < to && !b->fail;) {
        cvm_bc_insn in;
        if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in)) {
            b->fail = true;
            return;
        }
        switch (in.op) {
        case CVM_OP_IF:
        case CVM_OP_LOOP:
        case CVM_OP_SWITCH:
        case CVM_OP_BLOCK:
            pc = walk_construct(b, pc, &in, s);
            continue;
        case CVM_OP_BREAK:
        case CVM_OP_BREAK_IF:
        case CVM_OP_CONTINUE:
        case CVM_OP_EXIT:
        case CVM_OP_RETURN:
        case CVM_OP_FALLTHROUGH:
            leave(b, pc, &in, s);
            break;
        default:
            if (in.op > CVM_OP_RETURN)
                transfer(b, pc, &in, s);
            break;
        }
        pc++;
    }
}

cvm_status spv_analyse_bases(spv_ctx *c)
{
    const cvm_bc_kernel *k = c->k;
    cvm_alloc_fn fn = c->mod->alloc;
    void *u = c->mod->alloc_user;
    bctx b;
    memset(&b, 0, sizeof b);
    b.c = c;
    for (uint32_t pc = 0; pc < c->vk->ninsns; pc++) {
        c->gbase[pc] = SPV_BASE_DEAD;
        c->gbase_reg[pc] = UINT32_MAX;
    }
    size_t nd = (size_t)(k->nregs ? k->nregs : 1);
    b.dense = cvm_bc_alloc(fn, u, nd * sizeof(uint32_t));
    if (!b.dense)
        return spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
    for (uint32_t r = 0; r < k->nregs; r++)
        b.dense[r] = k->regs[r].elem == CVM_T_PTR_GLOBAL ? ++b.ng : 0;
    /* five states per open construct level (frame + if/switch locals) plus the current one */
    b.npool = (size_t)(CVM_BC_MAX_DEPTH + 3) * 6 * (b.ng + 1);
    b.pool = cvm_bc_alloc(fn, u, b.npool * sizeof(int32_t));
    if (b.pool) {
        int32_t *s = st_new(&b);
        s[0] = 1;
        for (uint32_t i = 1; i <= b.ng; i++)
            s[i] = B_NONE;
        walk(&b, 0, c->vk->ninsns, s);
        if (b.fail)
            spv_fail(c, CVM_MALFORMED, "the structured code cannot be walked for pointer bases");
        cvm_bc_free(fn, u, b.pool, b.npool * sizeof(int32_t));
    } else {
        spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
    }
    cvm_bc_free(fn, u, b.dense, nd * sizeof(uint32_t));
    return c->st;
}
