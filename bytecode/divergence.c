/*
 * divergence.c - the divergence analysis (docs/design.md "The bytecode" item 8),
 * the only one in cubevm: the interpreter's uniform register file, the
 * specializer and the backends all read its results from cvm_bc_vkernel.
 *
 * Classes, ordered: GRID < CUBE < PLANE < VARYING; a class C means "the
 * same for every unit of one C". The join is max. Everything starts GRID
 * and only rises, so the fixed point is reached by a worklist in time
 * linear in the kernel (each register or pc rises at most three times).
 *
 * Masks. w[pc] is the class of the mask of live (non-exited) lanes at pc:
 * - inside an if or switch whose condition/selector register has class C,
 *   w >= C (instructions strictly between the opening instruction and its
 *   end, markers included: conservative for markers);
 * - lanes that leave a construct early make the rest of it partial:
 *   break from a loop, break_if, or exit crossing a loop under class C
 *   (break_if: max of the mask and the condition) raises the whole loop
 *   body (later iterations run without those lanes); break from a switch
 *   raises [pc+1, switch end); continue raises [pc+1, continuing or end);
 *   exit raises [pc+1, block end) and every loop it crosses.
 * - return does not raise w: returned lanes never read a register again.
 *   It raises uni (the mask including exited lanes): every pc after it, and
 *   every pc of the loops around it (later iterations), is >= its class.
 *   So vinsn.uni = max(w, exited-lane class), vinsn.live_uni = w.
 *
 * Registers. An instruction writes class max(value class, w[pc]): lanes
 * inactive under a divergent live mask keep their old values. A register's
 * class is the max over all its writes (flow-insensitive); reads use that.
 * Value classes:
 * - const, param, sym: GRID; sreg: its sregs.def uniformity;
 * - plain ld through ptr.const: the address's class (constant data never
 *   changes during a launch); every other load (global, shared, local,
 *   volatile, atomic) and every atomic: VARYING. Global and shared memory
 *   may be written by other units between two reads of one address, and
 *   local memory is per unit, so a uniform address proves nothing there
 *   (cvm_bc_barrier_classes, for the CUDA frontend's barrier warning
 *   alone, takes a plain shared load at a cube-uniform address as CUBE);
 * - reduce.*, vote.all/any/ballot, match.all: max(mask, min(a, PLANE)):
 *   one value for all member lanes of a plane, and when a is uniform at a
 *   wider class the result is a function of (a, member mask);
 * - match.any: the member mask's class if a <= PLANE (every member lane
 *   matches), else VARYING; shfl.*: a's class if a <= PLANE (every lane
 *   reads the same value), else VARYING; scan.add, exscan.add: VARYING;
 * - activemask: PLANE; sync_cube.count/and/or: CUBE;
 * - everything else: the max of its register operands.
 */
#include "verify.h"

#include <string.h>

typedef struct dstate {
    const cvm_bc_kernel *k;
    cvm_bc_vkernel *vk;
    uint32_t n;
    uint8_t *w;          /* per pc: class of the live mask */
    uint32_t *skip[4];   /* skip[c][i]: path to the first pc >= i with w < c (c = 1..3) */
    uint32_t *encl;      /* per pc: opening pc of the innermost construct around it */
    uint32_t *use_start; /* per register + 1: CSR offsets into uses */
    uint32_t *uses;      /* pcs reading each register */
    uint32_t nuses;
    uint32_t *pcq, npcq; /* pcs whose w rose */
    uint8_t *pcin;
    uint32_t *regq, nregq; /* registers whose class rose */
    uint8_t *regin;
    uint32_t ret_start[4]; /* ret_start[c]: first pc whose mask has exited lanes of class >= c */
    bool shared_uniform;   /* cvm_bc_barrier_classes: shared loads at a cube-uniform address are CUBE */
} dstate;

static unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

static void decode(const dstate *d, uint32_t pc, cvm_bc_insn *in)
{
    cvm_bc_insn_at(d->k, d->vk->insns[pc].word, in); /* verified: always fits */
}

static uint16_t op_at(const dstate *d, uint32_t pc)
{
    return (uint16_t)(d->k->code[d->vk->insns[pc].word] & 0xffff);
}

static uint32_t find(uint32_t *p, uint32_t i)
{
    uint32_t r = i;
    while (p[r] != r)
        r = p[r];
    while (p[i] != r) {
        uint32_t nx = p[i];
        p[i] = r;
        i = nx;
    }
    return r;
}

/* w[pc] = max(w[pc], cls) for pc in [a, b), touching only pcs that rise. */
static void raise_range(dstate *d, uint32_t a, uint32_t b, unsigned cls)
{
    if (cls == CVM_UNI_GRID || a >= b)
        return;
    uint32_t *p = d->skip[cls];
    for (uint32_t i = find(p, a); i < b; i = find(p, i + 1)) {
        for (unsigned c = d->w[i] + 1u; c <= cls; c++)
            d->skip[c][i] = i + 1;
        d->w[i] = (uint8_t)cls;
        if (!d->pcin[i]) {
            d->pcin[i] = 1;
            d->pcq[d->npcq++] = i;
        }
    }
}

static void raise_reg(dstate *d, uint32_t r, unsigned cls)
{
    if (cls <= d->vk->reg_uni[r])
        return;
    d->vk->reg_uni[r] = (uint8_t)cls;
    if (!d->regin[r]) {
        d->regin[r] = 1;
        d->regq[d->nregq++] = r;
    }
}

static unsigned value_class(const dstate *d, const cvm_bc_insn *in)
{
    const uint8_t *R = d->vk->reg_uni;
    const char *fmt = cvm_bc_op_info(in->op)->format;
    switch (in->op) {
    case CVM_OP_CONST:
    case CVM_OP_PARAM:
    case CVM_OP_SYM:
        return CVM_UNI_GRID;
    case CVM_OP_SREG:
        return cvm_bc_sreg_uniformity(in->ops[1]);
    case CVM_OP_LD:
        if (d->shared_uniform && d->k->regs[in->ops[1]].elem == CVM_T_PTR_SHARED && R[in->ops[1]] <= CVM_UNI_CUBE)
            return CVM_UNI_CUBE;
        return d->k->regs[in->ops[1]].elem == CVM_T_PTR_CONST ? R[in->ops[1]] : CVM_UNI_VARYING;
    case CVM_OP_ACTIVEMASK:
        return CVM_UNI_PLANE;
    case CVM_OP_SYNC_CUBE_COUNT:
    case CVM_OP_SYNC_CUBE_AND:
    case CVM_OP_SYNC_CUBE_OR:
        return CVM_UNI_CUBE;
    case CVM_OP_SHFL_IDX:
    case CVM_OP_SHFL_UP:
    case CVM_OP_SHFL_DOWN:
    case CVM_OP_SHFL_XOR:
        return R[in->ops[1]] <= CVM_UNI_PLANE ? R[in->ops[1]] : CVM_UNI_VARYING;
    case CVM_OP_MATCH_ANY:
        return R[in->ops[1]] <= CVM_UNI_PLANE ? R[in->ops[2]] : CVM_UNI_VARYING;
    case CVM_OP_SCAN_ADD:
    case CVM_OP_EXSCAN_ADD:
        return CVM_UNI_VARYING;
    default:
        break;
    }
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    if (oi->flags & CVM_OPF_PLANE) /* reduce.*, vote.*, match.all: "drr" = d, a, mask */
        return umax(R[in->ops[2]], umin(R[in->ops[1]], CVM_UNI_PLANE));
    if (oi->flags & (CVM_OPF_MEM | CVM_OPF_SIDE))
        return CVM_UNI_VARYING; /* other loads and atomics */
    unsigned v = CVM_UNI_GRID;
    for (unsigned i = 0; i < in->nops; i++)
        if (cvm_bc_operand_kind(fmt, i) == 'r')
            v = umax(v, R[in->ops[i]]);
    return v;
}

/* Outermost loop between pc and the construct `stop` (CVM_BC_NOPC: kernel). */
static uint32_t outer_loop(const dstate *d, uint32_t pc, uint32_t stop)
{
    uint32_t lo = CVM_BC_NOPC, depth = 0;
    for (uint32_t x = d->encl[pc]; x != stop && x != CVM_BC_NOPC && depth <= CVM_BC_MAX_DEPTH;
         x = d->encl[x], depth++)
        if (op_at(d, x) == CVM_OP_LOOP)
            lo = x;
    return lo;
}

/* Effects of the control transfer at pc under live-mask class m. */
static void eval_jump(dstate *d, uint32_t pc, const cvm_bc_insn *in, unsigned m)
{
    const cvm_bc_vinsn *I = d->vk->insns;
    uint32_t end = I[pc].end, open = end < d->n ? I[end].target : 0;
    switch (in->op) {
    case CVM_OP_BREAK_IF:
        raise_range(d, open + 1, end, umax(m, d->vk->reg_uni[in->ops[0]]));
        break;
    case CVM_OP_BREAK:
        if (op_at(d, open) == CVM_OP_LOOP)
            raise_range(d, open + 1, end, m);
        else
            raise_range(d, pc + 1, end, m);
        break;
    case CVM_OP_CONTINUE:
        raise_range(d, pc + 1, I[open].target, m);
        break;
    case CVM_OP_EXIT: {
        uint32_t lo = outer_loop(d, pc, open);
        raise_range(d, lo != CVM_BC_NOPC ? lo + 1 : pc + 1, end, m);
        break;
    }
    default: { /* return */
        uint32_t lo = outer_loop(d, pc, CVM_BC_NOPC);
        uint32_t start = lo != CVM_BC_NOPC ? lo + 1 : pc + 1;
        for (unsigned c = 1; c <= m; c++)
            if (start < d->ret_start[c])
                d->ret_start[c] = start;
        break;
    }
    }
}

static void eval(dstate *d, uint32_t pc)
{
    cvm_bc_insn in;
    decode(d, pc, &in);
    unsigned m = d->w[pc];
    switch (in.op) {
    case CVM_OP_IF:
    case CVM_OP_SWITCH:
        raise_range(d, pc + 1, d->vk->insns[pc].end, d->vk->reg_uni[in.ops[0]]);
        return;
    case CVM_OP_BREAK_IF:
    case CVM_OP_BREAK:
    case CVM_OP_CONTINUE:
    case CVM_OP_EXIT:
    case CVM_OP_RETURN:
        eval_jump(d, pc, &in, m);
        return;
    default:
        break;
    }
    if (in.nops && cvm_bc_operand_kind(cvm_bc_op_info(in.op)->format, 0) == 'd')
        raise_reg(d, in.ops[0], umax(value_class(d, &in), m));
}

/* encl[] by a forward walk over the (verified) structure; the use lists. */
static void build_tables(dstate *d)
{
    uint32_t stack[CVM_BC_MAX_DEPTH + 1], sp = 0;
    for (uint32_t pc = 0; pc < d->n; pc++) {
        unsigned op = op_at(d, pc);
        uint32_t top = sp ? stack[sp - 1] : CVM_BC_NOPC;
        if (op == CVM_OP_END) {
            d->encl[pc] = sp > 1 ? stack[sp - 2] : CVM_BC_NOPC;
            if (sp)
                sp--;
        } else {
            d->encl[pc] = top;
            if ((op == CVM_OP_IF || op == CVM_OP_LOOP || op == CVM_OP_SWITCH ||
                 op == CVM_OP_BLOCK) && sp <= CVM_BC_MAX_DEPTH)
                stack[sp++] = pc;
        }
    }
    uint32_t nregs = d->k->nregs;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t pc = 0; pc < d->n; pc++) {
            cvm_bc_insn in;
            decode(d, pc, &in);
            const char *fmt = cvm_bc_op_info(in.op)->format;
            for (unsigned i = 0; i < in.nops; i++) {
                if (cvm_bc_operand_kind(fmt, i) != 'r')
                    continue;
                if (pass == 0)
                    d->use_start[in.ops[i] + 1]++;
                else
                    d->uses[d->use_start[in.ops[i]]++] = pc;
            }
        }
        if (pass == 0) {
            for (uint32_t r = 0; r < nregs; r++)
                d->use_start[r + 1] += d->use_start[r];
        } else {
            for (uint32_t r = nregs; r > 0; r--) /* the fill advanced each start to its end */
                d->use_start[r] = d->use_start[r - 1];
            d->use_start[0] = 0;
        }
    }
}

static void solve(dstate *d)
{
    for (uint32_t pc = 0; pc < d->n; pc++)
        eval(d, pc);
    while (d->npcq || d->nregq) {
        if (d->npcq) {
            uint32_t pc = d->pcq[--d->npcq];
            d->pcin[pc] = 0;
            eval(d, pc);
        } else {
            uint32_t r = d->regq[--d->nregq];
            d->regin[r] = 0;
            for (uint32_t u = d->use_start[r]; u < d->use_start[r + 1]; u++)
                eval(d, d->uses[u]);
        }
    }
}

static void store_results(dstate *d)
{
    for (uint32_t pc = 0; pc < d->n; pc++) {
        cvm_bc_vinsn *vi = &d->vk->insns[pc];
        unsigned exited = CVM_UNI_GRID;
        for (unsigned c = 1; c <= CVM_UNI_VARYING; c++)
            if (d->ret_start[c] <= pc)
                exited = c;
        vi->live_uni = d->w[pc];
        vi->uni = (uint8_t)umax(d->w[pc], exited);
        vi->dst_uni = CVM_UNI_GRID;
        cvm_bc_insn in;
        decode(d, pc, &in);
        if (in.nops && cvm_bc_operand_kind(cvm_bc_op_info(in.op)->format, 0) == 'd')
            vi->dst_uni = (uint8_t)umax(value_class(d, &in), d->w[pc]);
    }
}

static cvm_status analyse(const cvm_bc_module *mod, const cvm_bc_kernel *k, cvm_bc_vkernel *vk,
                          bool shared_uniform, cvm_diag *diag)
{
    dstate d;
    memset(&d, 0, sizeof d);
    d.shared_uniform = shared_uniform;
    d.k = k;
    d.vk = vk;
    d.n = vk->ninsns;
    cvm_alloc_fn fn = mod->alloc;
    void *u = mod->alloc_user;
    size_t n1 = (size_t)d.n + 1, nr = k->nregs;
    cvm_status st = CVM_OK;
    d.w = cvm_bc_alloc(fn, u, n1);
    d.pcin = cvm_bc_alloc(fn, u, n1);
    d.pcq = cvm_bc_alloc(fn, u, n1 * 4);
    d.encl = cvm_bc_alloc(fn, u, n1 * 4);
    for (unsigned c = 1; c <= 3; c++)
        d.skip[c] = cvm_bc_alloc(fn, u, n1 * 4);
    d.regin = cvm_bc_alloc(fn, u, nr);
    d.regq = cvm_bc_alloc(fn, u, nr * 4);
    d.use_start = cvm_bc_alloc(fn, u, (nr + 1) * 4);
    if (!d.w || !d.pcin || !d.pcq || !d.encl || !d.skip[1] || !d.skip[2] || !d.skip[3] ||
        !d.regin || !d.regq || !d.use_start) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory in the divergence analysis");
        goto fail;
    }
    for (uint32_t i = 0; i < d.n + 1; i++)
        d.skip[1][i] = d.skip[2][i] = d.skip[3][i] = i;
    for (unsigned c = 0; c < 4; c++)
        d.ret_start[c] = UINT32_MAX;
    memset(vk->reg_uni, 0, nr);
    /* Count uses first (pass 0 of build_tables needs use_start only). */
    for (uint32_t pc = 0; pc < d.n; pc++) {
        cvm_bc_insn in;
        decode(&d, pc, &in);
        const char *fmt = cvm_bc_op_info(in.op)->format;
        for (unsigned i = 0; i < in.nops; i++)
            d.nuses += cvm_bc_operand_kind(fmt, i) == 'r';
    }
    d.uses = cvm_bc_alloc(fn, u, ((size_t)d.nuses + 1) * 4);
    if (!d.uses) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory in the divergence analysis");
        goto fail;
    }
    build_tables(&d);
    solve(&d);
    store_results(&d);
fail:
    cvm_bc_free(fn, u, d.w, n1);
    cvm_bc_free(fn, u, d.pcin, n1);
    cvm_bc_free(fn, u, d.pcq, n1 * 4);
    cvm_bc_free(fn, u, d.encl, n1 * 4);
    for (unsigned c = 1; c <= 3; c++)
        cvm_bc_free(fn, u, d.skip[c], n1 * 4);
    cvm_bc_free(fn, u, d.regin, nr);
    cvm_bc_free(fn, u, d.regq, nr * 4);
    cvm_bc_free(fn, u, d.use_start, (nr + 1) * 4);
    cvm_bc_free(fn, u, d.uses, ((size_t)d.nuses + 1) * 4);
    return st;
}

cvm_status cvm_bc_divergence(const cvm_bc_module *mod, const cvm_bc_kernel *k,
                             cvm_bc_vkernel *vk, cvm_diag *diag)
{
    return analyse(mod, k, vk, false, diag);
}

cvm_status cvm_bc_barrier_classes(const cvm_bc_module *mod, const cvm_bc_verified *ver, uint32_t ki,
                                  uint8_t *live_uni, cvm_diag *diag)
{
    const cvm_bc_kernel *k = &mod->kernels[ki];
    const cvm_bc_vkernel *vk = &ver->kernels[ki];
    cvm_bc_vkernel scratch = *vk;
    const size_t ni = sizeof *vk->insns * vk->ninsns, nr = k->nregs ? k->nregs : 1;
    scratch.insns = cvm_bc_alloc(mod->alloc, mod->alloc_user, ni ? ni : 1);
    scratch.reg_uni = cvm_bc_alloc(mod->alloc, mod->alloc_user, nr);
    cvm_status st = CVM_OK;
    if (!scratch.insns || !scratch.reg_uni) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory in the divergence analysis");
    } else {
        if (ni)
            memcpy(scratch.insns, vk->insns, ni);
        if ((st = analyse(mod, k, &scratch, true, diag)) == CVM_OK)
            for (uint32_t pc = 0; pc < vk->ninsns; pc++)
                live_uni[pc] = scratch.insns[pc].live_uni;
    }
    cvm_bc_free(mod->alloc, mod->alloc_user, scratch.insns, ni ? ni : 1);
    cvm_bc_free(mod->alloc, mod->alloc_user, scratch.reg_uni, nr);
    return st;
}
