/*
 * fuse.c - the fused super-instructions of a decoded kernel (kp->fast),
 * and the facts decode proves for them: which registers are temporaries,
 * which instructions are preset once per launch, which indexes are
 * consecutive across a plane's lanes, which loop heads compare values
 * that are one in the cube. decode.c calls cvm_vm_fuse once kp->code is
 * complete, then allocates the fused code's register slots.
 */
#include "decode.h"

#include <string.h>

/*
 * The CUDA frontend gives every subexpression its own register, so the
 * hottest sequences are chains of single-use temporaries: address
 * arithmetic (`cvt.i64; const.i64; mul.i64; ptr.add`), sign extensions
 * feeding one 64-bit add or mul, and compares feeding an `if` or a loop's
 * `if; break; end`. Each such chain becomes one handler in kp->fast that
 * computes the chain's last result and skips the rest; the temporaries it
 * no longer writes are read nowhere else (each is written once and read
 * once, by the chain), so no lane can observe the difference. Only
 * straight-line instructions start or sit inside a chain except the
 * `if`, `break`/`continue` and `end` a compare chain ends with, none of
 * which any jump targets from outside the chain, so control never enters
 * a chain in its middle.
 */
typedef struct fuser {
    const cvm_vm_kprog *kp;
    const cvm_vm_dinsn *code;
    uint32_t n;
    const uint32_t *reads, *writes; /* per slot */
    const uint32_t *def;            /* per slot: pc of its last write */
    const uint32_t *encl;           /* per pc: the opening pc of the innermost construct
                                     * around it, NONE_PC outside every one */
    const uint32_t *cont_at;        /* per loop's opening pc: its `continuing`, or n */
    uint8_t *filled;                /* per slot: filled once per launch (presettable),
                                     * set in pc order as the main loop marks them */
} fuser;
#define NONE_PC UINT32_MAX



/* Reads and writes of every register (by first slot) over the kernel, and
 * the pc of its last write. */
static void count_uses(const cvm_vm_kprog *kp, uint32_t *reads, uint32_t *writes, uint32_t *def)
{
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        const cvm_vm_dinsn *in = &kp->code[pc];
        const cvm_vm_reg_uses u = cvm_vm_uses_of(in);
        const uint32_t src[3] = {in->a, in->b, in->c};
        if (u.dest)
            writes[in->d]++, def[in->d] = pc;
        for (unsigned i = 0; i < u.nsrc; i++)
            reads[src[i]]++;
        if (u.list) {
            const cvm_vm_arg *args = in->ptr;
            for (uint32_t i = 0; i < in->n; i++)
                reads[args[i].slot]++;
        }
    }
}

/* Register slot s is a temporary: written once and read once in the kernel. */
static bool temp(const fuser *fu, uint32_t s)
{
    return fu->reads[s] == 1 && fu->writes[s] == 1;
}

static bool is_int64(unsigned elem)
{
    return elem == CVM_T_I64 || elem == CVM_T_U64;
}

/* A 4- or 8-byte integer type. */
static bool int_word(unsigned elem)
{
    return elem == CVM_T_I32 || elem == CVM_T_U32 || is_int64(elem);
}

/* The const instruction whose value register s holds wherever it is
 * read (written by it alone, never read before it: not zeroed), or NULL. */
static const cvm_vm_dinsn *const_reg(const fuser *fu, uint32_t s)
{
    if (fu->writes[s] != 1 || cvm_vm_zeroed(fu->kp, s))
        return NULL;
    const cvm_vm_dinsn *k = &fu->code[fu->def[s]];
    return k->h == CVM_OP_CONST && is_int64(k->elem) && k->line == 1 ? k : NULL;
}

/* An instruction that may sit between a fused rem and div, or between an
 * address chain and its access: a lane op on line-1 registers (no control flow, memory, plane op or operand list). */
static bool quiet(const cvm_vm_dinsn *in)
{
    return cvm_vm_uniform_candidate(in->h) && in->h != CVM_OP_BUILD && in->h != CVM_OP_EXTRACT &&
           in->h != CVM_OP_INSERT && in->h != CVM_OP_SPLAT && in->line == 1 && in->la <= 1 &&
           in->lc <= 1;
}

/* Register slot s is read or written by quiet instruction in, or by a plain access. */
static bool touches(const cvm_vm_dinsn *in, uint32_t s)
{
    const cvm_vm_reg_uses u = cvm_vm_uses_of(in);
    const uint32_t src[3] = {in->a, in->b, in->c};
    if (u.dest && in->d == s)
        return true;
    for (unsigned i = 0; i < u.nsrc; i++)
        if (src[i] == s)
            return true;
    return false;
}

/* Register slot s is written by instruction in. */
static bool writes_slot(const cvm_vm_dinsn *in, uint32_t s)
{
    return cvm_vm_uses_of(in).dest && in->d == s;
}

static bool plain_access(const cvm_vm_dinsn *in)
{
    return (in->h == CVM_OP_LD || in->h == CVM_OP_ST) && in->line == 1;
}

/*
 * The pc of the plain ld or st that reads address p (a temporary) at pc
 * `from` or after up to 16 instructions that may wait before it: lane ops
 * and plain accesses that write neither p's base nor its index (the
 * address computed at the access is the one computed at its chain), none
 * a div or rem (fuse_divrem moves a write to the first of a pair).
 * UINT32_MAX if there is none.
 */
static uint32_t index_reader(const fuser *fu, uint32_t from, uint32_t p, uint32_t base,
                             uint32_t index)
{
    for (uint32_t j = from; j < fu->n && j < from + 16; j++) {
        const cvm_vm_dinsn *in = &fu->code[j];
        if (plain_access(in) && in->a == p)
            return j;
        if ((!quiet(in) && !plain_access(in)) || in->h == CVM_OP_DIV || in->h == CVM_OP_REM ||
            writes_slot(in, base) || writes_slot(in, index) || touches(in, p))
            return UINT32_MAX;
    }
    return UINT32_MAX;
}

/*
 * Where an index holds u + unit_pos.x (CVM_VM_UNI_UNIT_X_B), u one value
 * in every unit of the cube, in the index's type.
 *
 * unit_x_at: the instruction at pc computes it, outside every construct
 * (so once by each unit, with u computed once for the cube): `sreg
 * unit_pos.x` (u = 0), an integer add of a unit_x_plus register and one of
 * class CUBE or GRID, or a bit copy of a unit_x_plus register; with u = 0
 * (`plain`) also a 32- to 64-bit extension, which cannot change a unit's
 * position. unit_x_plus: register slot s holds it in every lane that reads
 * it: written once, by such an instruction, never read before that write
 * (not zeroed).
 */
static bool unit_x_plus(const fuser *fu, uint32_t s, bool *plain, unsigned hops);

static bool unit_x_at(const fuser *fu, uint32_t pc, bool *plain, unsigned hops)
{
    const cvm_vm_dinsn *in = &fu->code[pc];
    if (hops > 8 || fu->encl[pc] != NONE_PC || in->line != 1)
        return false;
    switch (in->h) {
    case CVM_OP_SREG:
        *plain = true;
        return in->aux == CVM_SREG_UNIT_POS_X;
    case CVM_OP_CVT:
        if (in->la > 1)
            return false;
        if (in->k == CVM_VM_CVT_COPY4 || in->k == CVM_VM_CVT_COPY8)
            return unit_x_plus(fu, in->a, plain, hops + 1);
        return (in->k == CVM_VM_CVT_SEXT32 || in->k == CVM_VM_CVT_ZEXT32) &&
               unit_x_plus(fu, in->a, plain, hops + 1) && *plain;
    case CVM_OP_ADD: {
        const unsigned e = in->elem;
        if (!int_word(e))
            return false;
        *plain = false;
        bool inner;
        if (in->uni & CVM_VM_UNI_CUBE_A)
            return unit_x_plus(fu, in->b, &inner, hops + 1);
        if (in->uni & CVM_VM_UNI_CUBE_B)
            return unit_x_plus(fu, in->a, &inner, hops + 1);
        return false;
    }
    default: return false;
    }
}

static bool unit_x_plus(const fuser *fu, uint32_t s, bool *plain, unsigned hops)
{
    return fu->writes[s] == 1 && !cvm_vm_zeroed(fu->kp, s) && fu->code[fu->def[s]].d == s &&
           unit_x_at(fu, fu->def[s], plain, hops);
}

/*
 * The value the instruction at pc, in the `continuing` part of loop L and
 * in no construct inside it, gives from register s: STEP_SAME for s
 * itself (a bit copy), STEP_ADDED for s plus registers of class CUBE or
 * GRID (integer adds, through bit copies); STEP_NONE otherwise. Its
 * sources other than s are written once, there too (so by every lane that
 * goes round).
 */
enum { STEP_NONE, STEP_SAME, STEP_ADDED };
static unsigned step_value(const fuser *fu, uint32_t r, uint32_t s, uint32_t L, unsigned hops);

static unsigned step_at(const fuser *fu, uint32_t pc, uint32_t s, uint32_t L, unsigned hops)
{
    const cvm_vm_dinsn *in = &fu->code[pc];
    if (hops > 8 || fu->encl[pc] != L || pc < fu->cont_at[L] || in->line != 1)
        return STEP_NONE;
    if (in->h == CVM_OP_CVT && in->la <= 1 &&
        (in->k == CVM_VM_CVT_COPY4 || in->k == CVM_VM_CVT_COPY8))
        return step_value(fu, in->a, s, L, hops + 1);
    const unsigned e = in->elem;
    if (in->h != CVM_OP_ADD || !int_word(e))
        return STEP_NONE;
    unsigned v = STEP_NONE;
    if ((in->uni & CVM_VM_UNI_CUBE_A) && in->b != in->a)
        v = step_value(fu, in->b, s, L, hops + 1);
    else if ((in->uni & CVM_VM_UNI_CUBE_B) && in->b != in->a)
        v = step_value(fu, in->a, s, L, hops + 1);
    return v == STEP_NONE ? STEP_NONE : STEP_ADDED;
}

static unsigned step_value(const fuser *fu, uint32_t r, uint32_t s, uint32_t L, unsigned hops)
{
    if (r == s)
        return STEP_SAME;
    if (fu->writes[r] != 1 || fu->code[fu->def[r]].d != r)
        return STEP_NONE;
    return step_at(fu, fu->def[r], s, L, hops);
}

/*
 * Index register slot s, read at pc p, holds in lane l of each plane the
 * plane's lane 0 value plus l wherever cube_dim.x is a multiple of the
 * plane's width: unit_x_plus, or a loop's counter from one, as in a
 * grid-stride loop (`for (i = blockIdx.x * blockDim.x + threadIdx.x; ...;
 * i += blockDim.x * gridDim.x)`): s is written twice, outside every
 * construct by unit_x_at before a loop L itself outside every construct,
 * and in L's `continuing` part (in no construct inside it) as s plus a
 * value of class CUBE or GRID (step_at), never read before the first write,
 * and p is in L's body. Every lane of a plane that reaches p entered L
 * with the others and has gone round as often, adding the same values.
 */
static bool plane_consecutive(const fuser *fu, uint32_t s, uint32_t p)
{
    bool plain;
    if (unit_x_plus(fu, s, &plain, 0))
        return true;
    if (fu->writes[s] != 2 || cvm_vm_zeroed(fu->kp, s))
        return false;
    const uint32_t step = fu->def[s], L = fu->encl[step];
    if (L == NONE_PC || fu->code[L].h != CVM_OP_LOOP || fu->encl[L] != NONE_PC ||
        fu->code[step].d != s || step_at(fu, step, s, L, 0) != STEP_ADDED || p <= L ||
        p >= fu->cont_at[L])
        return false;
    for (uint32_t pc = 0; pc < L; pc++)
        if (cvm_vm_uses_of(&fu->code[pc]).dest && fu->code[pc].d == s)
            return unit_x_at(fu, pc, &plain, 0);
    return false;
}

/* `[cvt.i64 v, x] [const.i64 s, S;] mul.i64 u, v, s; ptr.add p, base, u`,
 * the const either right before the multiply (and read by it alone) or
 * anywhere (const_reg: a loop-invariant constant moved out of the loop). */
static uint32_t fuse_index(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out)
{
    const cvm_vm_dinsn *c = fu->code, *cv = NULL, *k = NULL;
    uint32_t i = pc, v;
    if (i + 2 < fu->n && c[i].h == CVM_OP_CVT && c[i].line == 1 && is_int64(c[i].elem) &&
        (c[i].k == CVM_VM_CVT_SEXT32 || c[i].k == CVM_VM_CVT_ZEXT32 || c[i].k == CVM_VM_CVT_COPY8))
        cv = &c[i++];
    if (i + 2 < fu->n && c[i].h == CVM_OP_CONST && is_int64(c[i].elem) && c[i].line == 1 &&
        temp(fu, c[i].d))
        k = &c[i++];
    if (i + 1 >= fu->n)
        return 0;
    const cvm_vm_dinsn *mul = &c[i], *add = &c[i + 1];
    if (mul->h != CVM_OP_MUL || !is_int64(mul->elem) || mul->line != 1 ||
        add->h != CVM_OP_PTR_ADD || add->line != 1 || !is_int64(add->eb) || add->b != mul->d ||
        add->a == mul->d || !temp(fu, mul->d))
        return 0;
    if (!k) {
        if ((k = const_reg(fu, mul->b)) != NULL && mul->a != mul->b)
            v = mul->a;
        else if ((k = const_reg(fu, mul->a)) != NULL && mul->a != mul->b)
            v = mul->b;
        else
            return 0;
    } else if (mul->b == k->d && mul->a != k->d) {
        v = mul->a;
    } else if (mul->a == k->d && mul->b != k->d) {
        v = mul->b;
    } else {
        return 0;
    }
    if (cv && (v != cv->d || !temp(fu, cv->d)))
        return 0;
    *out = *add;
    out->h = CVM_VM_H_INDEX;
    out->b = cv ? cv->a : v;
    /* the index's lanes (plane_consecutive); the base one value in the
     * cube (the ptr.add's CVM_VM_UNI_CUBE_A) */
    out->uni = (uint8_t)((plane_consecutive(fu, out->b, pc) ? CVM_VM_UNI_UNIT_X_B : 0) |
                         (add->uni & CVM_VM_UNI_CUBE_A));
    out->eb = cv ? cv->ea : mul->elem;
    out->k = !cv || cv->k == CVM_VM_CVT_COPY8 ? CVM_VM_IX_I64
           : cv->k == CVM_VM_CVT_SEXT32      ? CVM_VM_IX_SEXT32
                                             : CVM_VM_IX_ZEXT32;
    out->imm = k->imm;
    out->n = 0;
    /* a base filled once per launch (a parameter): the same in every lane */
    out->a_fixed = fu->filled[add->a];
    if (k->imm && !(k->imm & (k->imm - 1))) {
        out->k |= CVM_VM_IX_SHIFT;
        while (!(k->imm >> out->n & 1))
            out->n++;
    }
    out->target = i + 2;
    /* the address is read once, by a plain load or store right after or
     * a few lane ops later: lockstep (interp_lockstep.c) may do both
     * without writing it */
    out->end = temp(fu, add->d) ? index_reader(fu, out->target, add->d, add->a, out->b) : UINT32_MAX;
    out->late = out->end != UINT32_MAX && out->end != out->target;
    return out->target;
}

/* `cvt.i64 t, x` (from i32) [and a second one] feeding one add or mul of i64. */
static uint32_t fuse_arith64(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out)
{
    const cvm_vm_dinsn *c = fu->code, *cv[2] = {NULL, NULL};
    uint32_t i = pc;
    for (int j = 0; j < 2 && i < fu->n; j++, i++) {
        if (c[i].h != CVM_OP_CVT || c[i].k != CVM_VM_CVT_SEXT32 || c[i].line != 1 ||
            !temp(fu, c[i].d))
            break;
        cv[j] = &c[i];
    }
    if (!cv[0] || i >= fu->n)
        return 0;
    const cvm_vm_dinsn *op = &c[i];
    if ((op->h != CVM_OP_ADD && op->h != CVM_OP_MUL) || !is_int64(op->elem) || op->line != 1)
        return 0;
    *out = *op;
    out->h = CVM_VM_H_ARITH64;
    out->uni = op->uni & (CVM_VM_UNI_A | CVM_VM_UNI_B);
    out->c = op->h;
    out->k = 0;
    for (int j = 0; j < 2; j++) {
        if (!cv[j])
            continue;
        unsigned bit;
        if (op->a == cv[j]->d) {
            out->k |= 1;
            out->a = cv[j]->a;
            bit = CVM_VM_UNI_A;
        } else if (op->b == cv[j]->d) {
            out->k |= 2;
            out->b = cv[j]->a;
            bit = CVM_VM_UNI_B;
        } else {
            return 0; /* a conversion the op does not read: not a chain */
        }
        /* the chain reads the conversion's source, which may be uniform
         * where its result is not: written under a divergent mask, the
         * result's register is varying (pool5's `(long)c` after a
         * `continue`) */
        out->uni = (uint8_t)((out->uni & ~bit) | (cv[j]->uni & CVM_VM_UNI_A ? bit : 0));
    }
    out->target = i + 1;
    return out->target;
}

/* `mul t, x, y; add d, p, t` (or `add d, t, p`) of f32 or f64, t a
 * temporary: CVM_VM_H_MULADD computes d = p + x * y at the mul's pc (a
 * the addend, b and c the factors). Every handler reads a lane's
 * operands before it writes its d, so d may be any of them (a dot
 * product's `acc += x * y`). No uniform bits: every lane computes. */
static uint32_t fuse_muladd(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out)
{
    const cvm_vm_dinsn *m = &fu->code[pc];
    if (m->h != CVM_OP_MUL || (m->elem != CVM_T_F32 && m->elem != CVM_T_F64) || m->line != 1 ||
        pc + 1 >= fu->n || !temp(fu, m->d))
        return 0;
    const cvm_vm_dinsn *ad = &fu->code[pc + 1];
    if (ad->h != CVM_OP_ADD || ad->elem != m->elem || ad->line != 1 ||
        (ad->a == m->d) == (ad->b == m->d))
        return 0;
    *out = *ad;
    out->h = CVM_VM_H_MULADD;
    out->a = ad->a == m->d ? ad->b : ad->a;
    out->b = m->a;
    out->c = m->b;
    out->ea = out->eb = out->ec = m->elem;
    out->uni = 0;
    out->target = pc + 2;
    return out->target;
}

static bool is_cmp(const cvm_vm_dinsn *in)
{
    return in->h >= CVM_OP_EQ && in->h <= CVM_OP_GE && in->line == 1;
}

/* `cmp [cmp; and|or] [not] if` and `... if; break|continue; end`. */
static uint32_t fuse_cmpbr(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out)
{
    const cvm_vm_dinsn *c = fu->code;
    uint32_t i = pc, res, second = UINT32_MAX, join = 0, neg = 0;
    if (i + 1 >= fu->n || !is_cmp(&c[i]))
        return 0;
    res = c[i++].d;
    if (i + 2 < fu->n && is_cmp(&c[i]) && (c[i + 1].h == CVM_OP_AND || c[i + 1].h == CVM_OP_OR) &&
        c[i + 1].elem == CVM_T_BOOL && c[i + 1].line == 1 && temp(fu, res) && temp(fu, c[i].d) &&
        res != c[i].d &&
        ((c[i + 1].a == res && c[i + 1].b == c[i].d) || (c[i + 1].b == res && c[i + 1].a == c[i].d))) {
        second = i;
        join = c[i + 1].h;
        res = c[i + 1].d;
        i += 2;
    }
    if (i + 1 < fu->n && c[i].h == CVM_OP_NOT && c[i].elem == CVM_T_BOOL && c[i].line == 1 &&
        c[i].a == res && temp(fu, res)) {
        neg = 1;
        res = c[i++].d;
    }
    if (i >= fu->n || c[i].h != CVM_OP_IF || c[i].a != res || !temp(fu, res))
        return 0;
    *out = c[i];
    out->h = CVM_VM_H_CMPBR;
    /* CUBE when every compare it makes is (interp.h) */
    out->uni = c[pc].uni & (second == UINT32_MAX ? CVM_VM_UNI_CUBE : c[second].uni) & CVM_VM_UNI_CUBE;
    out->a = pc;
    out->b = second;
    out->c = join;
    out->k = (uint8_t)neg;
    out->end = i;
    out->n = CVM_VM_CB_IF;
    out->target = i + 1;
    if (i + 2 < fu->n && c[i].target == i + 2 && c[i + 2].h == CVM_OP_END &&
        (c[i + 1].h == CVM_OP_BREAK || c[i + 1].h == CVM_OP_CONTINUE)) {
        out->n = c[i + 1].h == CVM_OP_BREAK ? CVM_VM_CB_BREAK : CVM_VM_CB_CONTINUE;
        out->aux = c[i + 1].aux;
        out->target = i + 3;
    }
    return out->target;
}

/* Slots y (read at pc i) and y2 (read at pc j > i) hold the same value:
 * the same slot, or each written once by the same cvt of one source that
 * nothing writes between the two cvts. */
static bool same_divisor(const fuser *fu, uint32_t y, uint32_t y2)
{
    if (y == y2)
        return true;
    if (fu->writes[y] != 1 || fu->writes[y2] != 1)
        return false;
    const uint32_t pa = fu->def[y], pb = fu->def[y2];
    const cvm_vm_dinsn *ca = &fu->code[pa], *cb = &fu->code[pb];
    if (ca->h != CVM_OP_CVT || cb->h != CVM_OP_CVT || pa >= pb || ca->line != 1 || cb->line != 1 ||
        ca->elem != cb->elem || ca->ea != cb->ea || ca->k != cb->k || ca->a != cb->a)
        return false;
    for (uint32_t k = pa + 1; k < pb; k++)
        if (!quiet(&fu->code[k]) || writes_slot(&fu->code[k], ca->a))
            return false;
    return true;
}

/*
 * `rem r, x, y` followed within four quiet instructions by `div q, x, y2`
 * of the same integer type (y2 holding y's value), or `div` then `rem`:
 * one division at the first one's pc writes r and q (CVM_VM_H_DIVREM: d is
 * r, c is q, k is 1 when the div came first), and *divpc is the second
 * one's pc, which becomes a nop. The instructions between neither read
 * nor write the second one's register (it is written earlier now) and
 * write neither x nor y. q, r and y are distinct slots, and so are r and
 * x; q may be x where the rem comes first (`c = t % w; t = t / w`, the
 * frontend's index decomposition): every handler reads a lane's x and y
 * before it writes that lane's results, and nothing between reads x.
 */
static uint32_t fuse_divrem(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out, uint32_t *divpc)
{
    const cvm_vm_dinsn *c = fu->code, *f1 = &c[pc];
    const unsigned e = f1->elem;
    if ((f1->h != CVM_OP_REM && f1->h != CVM_OP_DIV) || f1->line != 1 || !int_word(e) ||
        f1->d == f1->a || f1->d == f1->b)
        return 0;
    const unsigned other = f1->h == CVM_OP_REM ? CVM_OP_DIV : CVM_OP_REM;
    for (uint32_t j = pc + 1; j < fu->n && j <= pc + 4; j++) {
        const cvm_vm_dinsn *f2 = &c[j];
        if (f2->h == other && f2->elem == e && f2->line == 1 && f2->a == f1->a &&
            (f2->d != f1->a || f1->h == CVM_OP_REM) && f2->d != f1->b && f2->d != f1->d &&
            same_divisor(fu, f1->b, f2->b)) {
            for (uint32_t k = pc + 1; k < j; k++)
                if (touches(&c[k], f2->d) || writes_slot(&c[k], f1->a) ||
                    writes_slot(&c[k], f1->b))
                    return 0;
            *out = *f1;
            out->h = CVM_VM_H_DIVREM;
            out->uni = f1->uni & CVM_VM_UNI_B; /* the divisor's fact; the results' are not kept */
            out->k = f1->h == CVM_OP_DIV;
            out->d = out->k ? f2->d : f1->d;
            out->c = out->k ? f1->d : f2->d;
            out->target = pc + 1;
            *divpc = j;
            return pc + 1;
        }
        if (!quiet(f2))
            return 0;
    }
    return 0;
}

/* A line-1 copy of register a's bits: a mov, or a cvt between integer
 * types of one width (i32 <-> u32, i64 <-> u64). */
static bool bit_copy(const cvm_vm_dinsn *in)
{
    return in->line == 1 &&
           ((in->h == CVM_OP_MOV && in->ed == in->elem) ||
            (in->h == CVM_OP_CVT && (in->k == CVM_VM_CVT_COPY4 || in->k == CVM_VM_CVT_COPY8)));
}

/* `op t, ...; mov v, t` (or a same-width integer cvt) with t a temporary:
 * op writes v (the copy becomes a nop). */
static uint32_t fuse_mov(const fuser *fu, uint32_t pc, cvm_vm_dinsn *out, cvm_vm_dinsn *nop)
{
    const cvm_vm_dinsn *op = &fu->code[pc], *mv = &fu->code[pc + 1];
    if (pc + 1 >= fu->n || op->h == CVM_OP_MOV || !cvm_vm_uniform_candidate(op->h) || op->line != 1 ||
        !bit_copy(mv) || mv->a != op->d || mv->ea != op->ed ||
        cvm_bc_elem_size(mv->ed) != cvm_bc_elem_size(op->ed) || !temp(fu, op->d))
        return 0;
    *out = *op;
    out->d = mv->d;
    *nop = *mv;
    nop->h = CVM_OP_NOP;
    return pc + 2;
}

/*
 * An instruction whose result is the same in every lane of every cube of
 * a launch (a constant, a parameter, a launch-wide special register) and
 * whose register is written by it alone and never read before it
 * (REG_WRITTEN_FIRST, so not zeroed): the register can be filled once per
 * launch (interp.c) and the instruction skipped. So can an integer
 * conversion, add, subtract or multiply (4- or 8-byte integers, wrapping)
 * of registers filled so (fu->filled): `(long)n * oh * ow * c` of
 * parameters, the frontend's `cvt.i64` of an int parameter before each
 * use. Such a source is written once, before every read (not zeroed), so
 * its fill comes first in pc order, and interp.c's preset_value reads it.
 */
static bool presettable(const fuser *fu, const cvm_vm_kprog *kp, const cvm_vm_dinsn *in)
{
    if (in->line != 1 || in->esz == 0 || fu->writes[in->d] != 1 || cvm_vm_zeroed(kp, in->d))
        return false;
    switch (in->h) {
    case CVM_OP_CONST: case CVM_OP_PARAM: return true;
    case CVM_OP_CVT: return int_word(in->elem) && int_word(in->ea) && fu->filled[in->a];
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL:
        return int_word(in->elem) && in->ea == in->elem && in->eb == in->elem &&
               fu->filled[in->a] && fu->filled[in->b];
    case CVM_OP_SREG:
        return (in->aux >= CVM_SREG_CUBE_DIM_X && in->aux <= CVM_SREG_CUBE_DIM_Z) ||
               (in->aux >= CVM_SREG_CUBE_COUNT_X && in->aux <= CVM_SREG_CUBE_COUNT_Z) ||
               in->aux == CVM_SREG_PLANE_DIM || in->aux == CVM_SREG_DYN_SHARED_BASE ||
               in->aux == CVM_SREG_DYN_SHARED_SIZE;
    default: return false;
    }
}

/*
 * `cvt t, s` between integer types of one width, t a temporary read by the
 * next instruction alone: that instruction reads s instead (the same
 * bits, and s cannot change in between), in the exact code too, where the
 * cvt still writes t for the debugger; `fast` drops the cvt. The reader
 * keeps its own operand types. Not a plane op reader: it reads other
 * lanes, whose t may be older than their s. Not a switch: each case reads
 * the selector again, and the verifier keeps the switch's body from
 * writing t, not s. Returns the copies forwarded.
 */
static uint32_t forward_copies(cvm_vm_kprog *kp, uint32_t *reads, const uint32_t *writes)
{
    uint32_t n = 0;
    for (uint32_t pc = 0; pc + 1 < kp->ninsns; pc++) {
        const cvm_vm_dinsn *cv = &kp->code[pc];
        cvm_vm_dinsn *rd = &kp->code[pc + 1];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(rd->h);
        if (cv->h != CVM_OP_CVT || !bit_copy(cv) || reads[cv->d] != 1 || writes[cv->d] != 1 ||
            !oi || (oi->flags & CVM_OPF_PLANE) || rd->h == CVM_OP_SWITCH || cv->a == cv->d)
            continue;
        uint32_t *src[3] = {&rd->a, &rd->b, &rd->c};
        const unsigned nsrc = cvm_vm_uses_of(rd).nsrc;
        unsigned hit = 0;
        for (unsigned i = 0; i < nsrc; i++)
            if (*src[i] == cv->d)
                *src[i] = cv->a, hit++;
        if (hit) {
            reads[cv->d] -= hit;
            reads[cv->a] += hit;
            n++;
        }
    }
    return n;
}

/* An op that cannot change any lane's mask or leave the construct: what
 * loop_counters lets stand between a counter's write and a read. */
static bool mask_neutral(unsigned h)
{
    return h == CVM_OP_NOP || cvm_vm_uniform_candidate(h);
}

/*
 * Whether slot r holds one value in every active lane at pc c, the head
 * of a loop (only mask-neutral ops between the loop's `loop` and c), by
 * the shape of a counter: written exactly twice, by a one-element lane op
 * of cube-uniform sources (CVM_VM_UNI_CUBE) among the mask-neutral ops
 * just before the loop, and by one that reads only cube-uniform values
 * besides r itself (CVM_VM_UNI_STEP) in a continuing section of
 * mask-neutral ops alone. The divergence analysis calls such a counter
 * varying when the loop lies under a per-lane branch (a pooling window's
 * inner loop after the outer loop's `continue`), since the lanes outside
 * keep old values; but the lanes active at the head entered the loop
 * together, right after the first write, and went round together, right
 * after the second: all of them computed the same values.
 */
static bool loop_counter(const cvm_vm_kprog *kp, const uint32_t *writes, const uint32_t *def,
                         uint32_t c, uint32_t r)
{
    const cvm_vm_dinsn *code = kp->code;
    uint32_t L = c;
    while (L > 0 && mask_neutral(code[L - 1].h))
        L--;
    if (L == 0 || code[--L].h != CVM_OP_LOOP || writes[r] != 2)
        return false;
    const uint32_t cont = code[L].target, end = code[L].end, p1 = def[r];
    if (cont >= end || code[cont].h != CVM_OP_CONTINUING || p1 <= cont || p1 >= end ||
        code[p1].d != r || !(code[p1].uni & CVM_VM_UNI_STEP))
        return false;
    for (uint32_t pc = cont + 1; pc < end; pc++)
        if (!mask_neutral(code[pc].h))
            return false;
    for (uint32_t pc = L; pc > 0 && mask_neutral(code[pc - 1].h); pc--)
        if (writes_slot(&code[pc - 1], r))
            return (code[pc - 1].uni & CVM_VM_UNI_CUBE) != 0;
    return false;
}

/* Compares at a loop's head whose sources are cube-uniform or counters
 * (loop_counter) get CVM_VM_UNI_CUBE, which fuse_cmpbr passes on. */
static void loop_counters(cvm_vm_kprog *kp, const uint32_t *writes, const uint32_t *def)
{
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        cvm_vm_dinsn *in = &kp->code[pc];
        if (!is_cmp(in) || (in->uni & CVM_VM_UNI_CUBE) ||
            !(in->uni & (CVM_VM_UNI_CUBE_A | CVM_VM_UNI_CUBE_B)))
            continue;
        const bool a = (in->uni & CVM_VM_UNI_CUBE_A) || loop_counter(kp, writes, def, pc, in->a);
        const bool b = (in->uni & CVM_VM_UNI_CUBE_B) || loop_counter(kp, writes, def, pc, in->b);
        if (a && b)
            in->uni |= CVM_VM_UNI_CUBE;
    }
}

/* Builds kp->fast when at least one chain fuses. */
cvm_status cvm_vm_fuse(cvm_vm_program *prog, cvm_vm_kprog *kp, cvm_diag *diag)
{
    const size_t cnt_size = sizeof(uint32_t) * ((size_t)kp->nslots + 1);
    const size_t code_size = sizeof *kp->code * ((size_t)kp->ninsns + 1);
    uint32_t *reads = cvm_bc_alloc(prog->alloc, prog->alloc_user, cnt_size);
    uint32_t *writes = cvm_bc_alloc(prog->alloc, prog->alloc_user, cnt_size);
    uint32_t *def = cvm_bc_alloc(prog->alloc, prog->alloc_user, cnt_size);
    cvm_vm_dinsn *fast = cvm_bc_alloc(prog->alloc, prog->alloc_user, code_size);
    const size_t preset_size = sizeof *kp->preset * ((size_t)kp->ninsns + 1);
    uint32_t *preset = cvm_bc_alloc(prog->alloc, prog->alloc_user, preset_size), npreset = 0;
    const size_t pc_size = sizeof(uint32_t) * ((size_t)kp->ninsns + 1);
    uint32_t *encl = cvm_bc_alloc(prog->alloc, prog->alloc_user, pc_size);
    uint32_t *cont_at = cvm_bc_alloc(prog->alloc, prog->alloc_user, pc_size);
    const size_t filled_size = (size_t)kp->nslots + 1;
    uint8_t *filled = cvm_bc_alloc(prog->alloc, prog->alloc_user, filled_size);
    cvm_status st = CVM_OK;
    uint32_t fused = 0;
    if (!reads || !writes || !def || !fast || !preset || !encl || !cont_at || !filled) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory decoding kernel '%s'",
                          cvm_bc_str(prog->mod, kp->k->name));
        goto fail;
    }
    memset(reads, 0, cnt_size);
    memset(writes, 0, cnt_size);
    count_uses(kp, reads, writes, def);
    fused += forward_copies(kp, reads, writes);
    loop_counters(kp, writes, def);
    memcpy(fast, kp->code, code_size);
    for (uint32_t pc = 0; pc < kp->ninsns; pc++)
        if (bit_copy(&kp->code[pc]) && kp->code[pc].h == CVM_OP_CVT && !reads[kp->code[pc].d])
            fast[pc].h = CVM_OP_NOP; /* forwarded: nothing reads it */
    uint32_t open[CVM_BC_MAX_DEPTH + 1], depth = 0; /* decode_control checked the nesting */
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        const unsigned h = kp->code[pc].h;
        encl[pc] = depth ? open[depth - 1] : NONE_PC;
        cont_at[pc] = kp->ninsns;
        if (h == CVM_OP_CONTINUING && depth)
            cont_at[open[depth - 1]] = pc;
        depth -= h == CVM_OP_END && depth;
        if ((h == CVM_OP_IF || h == CVM_OP_LOOP || h == CVM_OP_SWITCH || h == CVM_OP_BLOCK) &&
            depth <= CVM_BC_MAX_DEPTH)
            open[depth++] = pc;
    }
    memset(filled, 0, filled_size);
    const fuser fu = {.kp = kp, .code = kp->code, .n = kp->ninsns, .reads = reads,
                      .writes = writes, .def = def, .encl = encl, .cont_at = cont_at,
                      .filled = filled};
    uint32_t absorbed = UINT32_MAX; /* the pc of a div fused into its rem */
    for (uint32_t pc = 0; pc < kp->ninsns;) {
        cvm_vm_dinsn f;
        if (pc == absorbed) {
            pc++;
            continue;
        }
        const cvm_vm_dinsn *ci = &kp->code[pc];
        const bool base = ci->h == CVM_OP_CONST || ci->h == CVM_OP_PARAM || ci->h == CVM_OP_SREG;
        uint32_t next = fuse_divrem(&fu, pc, &f, &absorbed);
        if (next)
            fast[absorbed].h = CVM_OP_NOP;
        if (!next)
            next = fuse_index(&fu, pc, &f);
        if (!next)
            next = fuse_cmpbr(&fu, pc, &f);
        if (!next)
            next = fuse_muladd(&fu, pc, &f);
        /* a launch constant computed from others (presettable) rather than
         * the head of an op-and-copy pair: its fill costs nothing per
         * cube, and later constants computed from it are filled too. As
         * the head of a cvt-and-op pair (ARITH64) only where the op reads
         * launch constants alone: an op on a lane's own value keeps the
         * pair, which multiplies by the 32-bit source (pool's `* (long)c`).
         * The constants, parameters and special registers themselves come
         * after the pairs, which fold a constant as an immediate. */
        bool derived = !next && !base && fast[pc].h != CVM_OP_NOP && presettable(&fu, kp, ci);
        if (!next)
            next = fuse_arith64(&fu, pc, &f);
        if (derived && next && !(filled[f.a] && filled[f.b]))
            derived = false;
        if (derived)
            next = 0;
        if (!next && !derived && (next = fuse_mov(&fu, pc, &f, &fast[pc + 1]))) {
            fast[pc] = f;
            fused++;
            pc = next;
            continue;
        }
        if (!next && (derived || (base && presettable(&fu, kp, ci)))) {
            fast[pc].h = CVM_OP_NOP; /* filled once per launch (interp.c preset_regs) */
            preset[npreset++] = pc;
            filled[ci->d] = 1;
            fused++;
        }
        if (!next) {
            pc++;
            continue;
        }
        fast[pc] = f;
        if (f.h == CVM_VM_H_INDEX && f.late) { /* the access computes the address */
            fast[f.end].late = 1;
            fast[f.end].end = pc;
        }
        fused++;
        pc = next;
    }
    if (fused) {
        kp->fast = fast;
        fast = NULL;
        kp->preset = preset;
        kp->npreset = npreset;
        preset = NULL;
    }
fail:
    cvm_bc_free(prog->alloc, prog->alloc_user, reads, cnt_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, writes, cnt_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, def, cnt_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, fast, code_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, preset, preset_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, encl, pc_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, cont_at, pc_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, filled, filled_size);
    return st;
}
