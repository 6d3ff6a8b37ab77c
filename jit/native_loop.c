/*
 * native_loop.c - loop versioning's analysis for the native tier
 * (native.h; the code generation is native.c's guard and version_loop):
 * which registers a loop reads that a versioned copy tests at its head,
 * the form each is guessed to have there (guess_forms: one value, or
 * consecutive, from the instructions before the loop), which of those
 * the loop provably keeps from one round to the next (induct), so that
 * the head need not test them again each round, and which registers
 * the copy may leave behind in their slots while it runs (cvm_nat_lazy).
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

uint32_t cvm_nat_dest_slot(const gen *g, const cvm_vm_dinsn *in)
{
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned n, nw;
    cvm_nat_named(g, in, list, &n, &nw);
    return nw && list[0] < g->nslots ? list[0] : UINT32_MAX;
}

/* The registers instruction `in` names, in the order it uses them: its
 * sources, then its destination (*nw: 1 when it has one, the last); of a
 * control instruction only the condition it reads (if, break_if, switch). */
static unsigned operands_in_order(const gen *g, const cvm_vm_dinsn *in, uint32_t *ord, unsigned *nw)
{
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned n;
    cvm_nat_named(g, in, list, &n, nw);
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
    if (oi && (oi->flags & CVM_OPF_CTRL) && in->h != CVM_OP_IF && in->h != CVM_OP_BREAK_IF && in->h != CVM_OP_SWITCH)
        n = *nw = 0;
    for (unsigned j = 0; j < n; j++)
        ord[j] = list[(j + *nw) % n];
    return n;
}

static uint8_t guess_of(const gen *g, uint32_t r)
{
    return r < g->nslots ? g->form[r] : F_VAR;
}

/* Whether what `in` writes is guessed from unit_pos.y or .z: the
 * position itself, or an operand of the ops guess_forms follows (not in
 * code for cubes of rows, gen's rows: there the positions' forms are
 * facts). */
static bool weak_guess(const gen *g, const cvm_vm_dinsn *in)
{
    const bool wa = in->a < g->nslots && g->weak[in->a], wb = in->b < g->nslots && g->weak[in->b];
    switch (in->h) {
    case CVM_OP_SREG:
        return !g->rows && (in->aux == CVM_SREG_UNIT_POS_Y || (in->aux == CVM_SREG_UNIT_POS_Z && !g->pairs));
    case CVM_OP_MOV: case CVM_OP_CVT: return wa;
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_DIV: case CVM_OP_REM: case CVM_OP_MUL: case CVM_OP_AND:
    case CVM_OP_OR: case CVM_OP_XOR: case CVM_OP_SHL: case CVM_OP_SHR: case CVM_OP_PTR_ADD:
        return wa || wb;
    default: return false;
    }
}

/* gen's `form` at pc lo, from the instructions before it in order (the
 * branches not followed): unit_pos.x is consecutive, the other positions
 * and launch values uniform; i / c of a consecutive i by a uniform c is
 * guessed uniform and i % c consecutive (true when c is a multiple of
 * the plane width and the plane's lanes start at one: the indexing of
 * `i = blockIdx.x * blockDim.x + threadIdx.x` split into coordinates).
 * gen's `weak` marks the guesses made from unit_pos.y or .z: one value
 * in a plane only when the cube's rows are at least a plane wide, which
 * the code does not know (a 16x16 matmul's plane of 32 holds two rows). */
static void guess_forms(gen *g, uint32_t lo)
{
    memset(g->form, F_UNI, g->nslots); /* registers start as zero */
    memset(g->weak, 0, g->nslots);
    for (uint32_t pc = 0; pc < lo; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const uint32_t d = cvm_nat_dest_slot(g, in);
        if (d == UINT32_MAX)
            continue;
        const uint8_t a = guess_of(g, in->a), b = guess_of(g, in->b);
        const bool uu = a == F_UNI && b == F_UNI, cu = a == F_CONS && b == F_UNI;
        uint8_t f = (in->uni & CVM_VM_UNI_PLANE) ? F_UNI : F_VAR;
        switch (in->h) {
        case CVM_OP_CONST: case CVM_OP_PARAM: f = F_UNI; break;
        case CVM_OP_SREG:
            f = in->aux == CVM_SREG_UNIT_POS_X || in->aux == CVM_SREG_UNIT_POS_PLANE || in->aux == CVM_SREG_UNIT_POS
                    ? F_CONS : F_UNI;
            if (g->pairs && (in->aux == CVM_SREG_UNIT_POS_X || in->aux == CVM_SREG_UNIT_POS_Y))
                f = F_VAR; /* (two runs in a plane: known lanes, no form) */
            break;
        case CVM_OP_MOV: f = a; break;
        case CVM_OP_CVT: f = is_int(in->elem) && is_int(in->ea) ? a : a == F_UNI ? F_UNI : F_VAR; break;
        case CVM_OP_ADD: f = uu ? F_UNI : cu || (a == F_UNI && b == F_CONS) ? F_CONS : F_VAR; break;
        case CVM_OP_SUB: f = uu ? F_UNI : cu ? F_CONS : F_VAR; break;
        case CVM_OP_DIV: f = uu || cu ? F_UNI : F_VAR; break;
        case CVM_OP_REM: f = uu ? F_UNI : cu ? F_CONS : F_VAR; break;
        case CVM_OP_MUL: case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: case CVM_OP_SHL: case CVM_OP_SHR:
        case CVM_OP_PTR_ADD:
            f = uu ? F_UNI : F_VAR;
            break;
        default: break;
        }
        if (in->line != 1 || width_at(g, d) != 1 || (f == F_CONS && !is_int(g->slot_elem[d])))
            f = F_VAR;
        if (g->puni[d]) /* one value in the plane: a fact, not a guess */
            f = F_UNI;
        const bool weak = f != F_VAR && weak_guess(g, in);
        for (uint32_t w = 0; w < width_at(g, d) && d + w < g->nslots; w++)
            g->form[d + w] = f, g->weak[d + w] = weak;
    }
}

enum { MAXVERSIONLEN = 2000 };

/*
 * Which registers loop lo writes keep their forms from one round to the
 * next, given the candidates' forms at its head: the loop's code in
 * order, with cvm_nat_form_rule (facts, not guess_forms' guesses) at its
 * top level and F_VAR for what a nested construct writes (some lanes
 * only), for what the body writes once the continuing part begins (lanes
 * that continued rejoin there with other values: as rejoin forgets), and
 * for what the body writes after a `continue`. A candidate the loop
 * writes is inductive when its form at the loop's end is its form at the
 * head: written only by the lanes still in the loop, as `j += stride` of
 * a grid-stride loop (consecutive plus one value) or a counter `k++`.
 * Then the head needs no test of it each round: its scalar is carried in
 * an alloca (guard, note_inductive).
 */
static void induct(gen *g, uint32_t lo, vcand *cand, unsigned nc)
{
    const uint32_t hi = g->code[lo].end;
    uint8_t *form = calloc(g->nslots + 1, 1), *wrote = calloc(g->nslots + 1, 1);
    if (!form || !wrote) {
        free(form), free(wrote);
        return;
    }
    for (uint32_t s = 0; s < g->nslots; s++)
        form[s] = g->cst[s] || g->puni[s] ? F_UNI : F_VAR;
    for (unsigned i = 0; i < nc; i++)
        form[cand[i].slot] = cand[i].form;
    unsigned depth = 0;
    bool tainted = false;
    for (uint32_t pc = lo + 1; pc < hi; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        switch (in->h) {
        case CVM_OP_IF: case CVM_OP_LOOP: case CVM_OP_SWITCH: case CVM_OP_BLOCK: depth++; continue;
        case CVM_OP_END: depth--; continue;
        case CVM_OP_CONTINUE: tainted = true; continue;
        case CVM_OP_CONTINUING:
            if (!depth) {
                for (uint32_t s = 0; s < g->nslots; s++)
                    if (wrote[s])
                        form[s] = F_VAR;
                tainted = false;
            }
            continue;
        default: break;
        }
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        const uint32_t d = cvm_nat_dest_slot(g, in);
        if ((oi && (oi->flags & CVM_OPF_CTRL)) || d == UINT32_MAX)
            continue;
        uint8_t f = F_VAR;
        if (!depth && !tainted && in->line == 1 && width_at(g, d) == 1)
            f = cvm_nat_form_rule(g, in, in->a < g->nslots ? form[in->a] : F_VAR, in->b < g->nslots ? form[in->b] : F_VAR);
        if (g->puni[d]) /* (a fact, wherever it is written) */
            f = F_UNI;
        for (uint32_t w = 0; w < width_at(g, d) && d + w < g->nslots; w++)
            form[d + w] = f, wrote[d + w] = 1;
    }
    for (unsigned i = 0; i < nc; i++)
        cand[i].inductive = cand[i].written && form[cand[i].slot] == cand[i].form;
    free(form), free(wrote);
}

/* The registers loop lo (its LOOP's pc) reads whose forms a versioned
 * copy tests at its head: 4- or 8-byte, one slot, not a launch constant,
 * read by no plane op of the loop (those read inactive lanes), guessed
 * uniform or (integers) consecutive; under gen's strong_only not those
 * guessed from unit_pos.y or .z (weak). */
bool cvm_nat_loop_versionable(const gen *g, uint32_t lo)
{
    const uint32_t hi = g->code[lo].end;
    if (hi <= lo || hi >= g->kp->ninsns || hi - lo > MAXVERSIONLEN)
        return false;
    for (uint32_t pc = lo; pc <= hi; pc++)
        if (is_barrier(g->code[pc].h)) /* the plane would go on in the general copy after its first round */
            return false;
    return true;
}

/* Whether `in` computes its registers from its operands alone, with no
 * memory, no fault and nothing the plane's other lanes hold: running it
 * again on the same operands writes the same values. */
static bool pure_op(const cvm_vm_dinsn *in)
{
    switch (in->h) {
    case CVM_OP_CONST: case CVM_OP_MOV: case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL:
    case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: case CVM_OP_NOT: case CVM_OP_SHL: case CVM_OP_SHR:
    case CVM_OP_CVT:
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        return true;
    default:
        return false;
    }
}

uint32_t cvm_nat_loop_exit(const gen *g, uint32_t lo)
{
    const uint32_t hi = g->code[lo].end;
    uint32_t pc = lo + 1, list[CVM_BC_MAX_OPERANDS + 4];
    while (pc < hi && pure_op(&g->code[pc]))
        pc++;
    if (pc + 2 >= hi || g->code[pc].h != CVM_OP_IF || g->code[pc + 1].h != CVM_OP_BREAK ||
        g->code[pc + 2].h != CVM_OP_END || g->code[pc].end != pc + 2)
        return UINT32_MAX;
    /* run again from the head, each op reads what it read the first time:
     * nothing it reads is written by it or after it before the test */
    for (uint32_t w = lo + 1; w < pc; w++) {
        unsigned k, nw;
        cvm_nat_named(g, &g->code[w], list, &k, &nw);
        for (unsigned i = nw; i < k; i++)
            for (uint32_t v = w; v < pc; v++) {
                uint32_t out[CVM_BC_MAX_OPERANDS + 4];
                unsigned k2, nw2;
                cvm_nat_named(g, &g->code[v], out, &k2, &nw2);
                for (unsigned j = 0; j < nw2; j++)
                    if (out[j] < list[i] + width_at(g, list[i]) && list[i] < out[j] + width_at(g, out[j]))
                        return UINT32_MAX;
            }
    }
    return pc;
}

bool cvm_nat_loop_fixed_buffers(const gen *g, uint32_t lo)
{
    const uint32_t hi = g->code[lo].end;
    for (uint32_t pc = lo; pc <= hi; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        if ((in->h != CVM_OP_LD && in->h != CVM_OP_ST) || in->ea != CVM_T_PTR_GLOBAL)
            continue;
        if (in->a < g->nslots && g->cst[in->a])
            continue;
        /* the address's nearest writer before it: a launch constant plus an offset */
        uint32_t w = pc, list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k = 0, nw = 0;
        while (w-- > 0) {
            cvm_nat_named(g, &g->code[w], list, &k, &nw);
            if (nw && list[0] == in->a)
                break;
        }
        const cvm_vm_dinsn *add = w == UINT32_MAX ? NULL : &g->code[w];
        if (!add || add->h != CVM_OP_PTR_ADD || add->a >= g->nslots || !g->cst[add->a])
            return false;
    }
    return true;
}

unsigned cvm_nat_loop_candidates(gen *g, uint32_t lo, vcand *cand)
{
    const uint32_t hi = g->code[lo].end;
    if (!cvm_nat_loop_versionable(g, lo))
        return 0;
    /* 1 read, 2 written, 4 read by a plane op, 8 written before any read
     * (in the order of the code: a register the head needs not test) */
    uint8_t *use = calloc(g->nslots + 1, 1);
    if (!use)
        return 0;
    for (uint32_t pc = lo; pc <= hi; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t ord[CVM_BC_MAX_OPERANDS + 4];
        unsigned nw;
        const unsigned n = operands_in_order(g, in, ord, &nw);
        for (unsigned j = 0; j < n; j++) {
            const bool wr = j >= n - nw;
            for (uint32_t w = 0; w < width_at(g, ord[j]) && ord[j] + w < g->nslots; w++) {
                uint8_t *u = &use[ord[j] + w];
                if (!*u && wr)
                    *u = 8;
                *u |= (uint8_t)(wr ? 2 : oi && (oi->flags & CVM_OPF_PLANE) ? 5 : 1);
            }
        }
    }
    guess_forms(g, lo);
    vcand all[2 * MAXVERSIONED];
    unsigned nc = 0;
    for (uint32_t s = 0; s < g->nslots && nc < 2 * MAXVERSIONED; s++) {
        const unsigned e = g->slot_elem[s], esz = cvm_vm_esz(e);
        if ((use[s] & 13) == 1 && !g->cst[s] && !g->puni[s] && g->slot_width[s] == 1 && (esz == 4 || esz == 8) && !is_float(e) &&
            (g->form[s] == F_UNI || (g->form[s] == F_CONS && is_int(e))) && !(g->strong_only && g->weak[s]))
            all[nc++] = (vcand){s, g->form[s], (use[s] & 2) != 0, false};
    }
    free(use);
    induct(g, lo, all, nc);
    /* (a consecutive register the loop writes, a strided index, is kept
     * only when inductive: a test each round costs what the access saves
     * by it; a counter that is one value pays for its test in scalar
     * arithmetic; dropped before the cap, so they crowd out no other) */
    unsigned k = 0;
    for (unsigned i = 0; i < nc && k < MAXVERSIONED; i++)
        if (!(all[i].written && all[i].form == F_CONS && !all[i].inductive))
            cand[k++] = all[i];
    return k;
}

/* What loop lo's body does with each slot, in the body's order (st, per
 * slot, zeroed by the caller): TOUCHED, named at all; WRITE_FIRST, the
 * first instruction that names it writes it, at the body's top level (at
 * *first_write's slot: its pc, where first_write is not NULL); NESTED,
 * written in a construct of the body; READ_LATE, read after the top
 * level's `continuing`; WRITTEN; CROSS, read by a plane op (which reads
 * inactive lanes too). An instruction reads its sources before it writes. */
enum { TOUCHED = 1, WRITE_FIRST = 2, NESTED = 4, READ_LATE = 8, WRITTEN = 16, CROSS = 32 };

static void body_uses(const gen *g, uint32_t lo, uint8_t *st, uint32_t *first_write)
{
    const uint32_t hi = g->code[lo].end;
    unsigned depth = 0;
    bool late = false;
    for (uint32_t pc = lo + 1; pc < hi; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t ord[CVM_BC_MAX_OPERANDS + 4];
        unsigned nw;
        const unsigned n = operands_in_order(g, in, ord, &nw);
        for (unsigned j = 0; j < n; j++) {
            for (uint32_t w = 0; w < width_at(g, ord[j]) && ord[j] + w < g->nslots; w++) {
                uint8_t *u = &st[ord[j] + w];
                if (j < n - nw) {
                    *u |= (uint8_t)(TOUCHED | (late ? READ_LATE : 0) |
                                    (oi && (oi->flags & CVM_OPF_PLANE) ? CROSS : 0));
                    continue;
                }
                if (!(*u & TOUCHED) && !depth) {
                    *u |= WRITE_FIRST;
                    if (first_write)
                        first_write[ord[j] + w] = pc;
                }
                *u |= (uint8_t)(TOUCHED | WRITTEN | (depth ? NESTED : 0));
            }
        }
        switch (in->h) {
        case CVM_OP_IF: case CVM_OP_LOOP: case CVM_OP_SWITCH: case CVM_OP_BLOCK: depth++; break;
        case CVM_OP_END: depth--; break;
        case CVM_OP_CONTINUING: late = late || !depth; break;
        default: break;
        }
    }
}

/* Whether every read of slot s lies in loop lo's body. */
static bool reads_within(const gen *g, uint32_t s, uint32_t lo)
{
    return g->first_read[s] == UINT32_MAX || (g->first_read[s] > lo && g->last_read[s] < g->code[lo].end);
}

/*
 * Which registers loop lo of a versioned copy may leave behind in their
 * allocas while it runs (gen's lazy, stale): those whose every read in
 * the kernel lies in the loop's body, written there only at its top
 * level, and first: in the body's order the first instruction that names
 * one writes it, at the top level, and nothing after the top level's
 * `continuing` reads it. Each round writes such a register before any
 * lane reads it (lanes only leave between the two), so its value at the
 * head, and in a lane not active, is never read: a lane not active in a
 * round has left the loop, or never entered it this time, and reads the
 * register next after a write it takes part in. Registers a plane op
 * reads are not lazy (it reads inactive lanes); nor launch constants,
 * local, settled or multi-slot registers. (A carried inductive index
 * could be lazy too, forwarded again from its scalar for a yield to
 * store: see docs/performance.md, session 38, for why it is not.)
 */
void cvm_nat_lazy(gen *g, uint32_t lo)
{
    uint8_t *st = calloc(g->nslots + 1, 1);
    if (!st)
        return; /* none lazy: the plain code */
    body_uses(g, lo, st, NULL);
    for (uint32_t s = 0; s < g->nslots; s++) {
        const uint8_t u = st[s];
        if ((u & (WRITTEN | WRITE_FIRST)) == (WRITTEN | WRITE_FIRST) && !(u & (NESTED | CROSS | READ_LATE)) &&
            !g->cst[s] && !g->local[s] && !g->settled[s] && g->slot_width[s] == 1 && reads_within(g, s, lo))
            g->lazy[s] = lo + 1;
    }
    free(st);
}

/*
 * gen's fresh and fresh_end: per slot, the innermost loop whose body
 * holds every read of it and, in each round, writes it first, at the top
 * level (body_uses' WRITE_FIRST), with no read after the `continuing` or
 * by a plane op: the pc + 1 of that write, and the loop's END. Each
 * round writes such a register before any lane reads it, and a lane
 * leaves the loop only for code that does not read it, or enters again
 * through that write; so outside the loop, and in its body up to that
 * write, its value is never read again, and a stop there need not keep
 * it (live_at). Pooling's `kx`, set at the top of each `ky` round, was a
 * vector made at every `kx` round for the store at `ky`'s back edge.
 * Out of memory: none (live_at as before).
 */
void cvm_nat_fresh(gen *g)
{
    uint8_t *st = malloc(g->nslots + 1);
    uint32_t *wpc = malloc(sizeof *wpc * (g->nslots + 1));
    for (uint32_t lo = 0; st && wpc && lo < g->kp->ninsns; lo++) {
        if (g->code[lo].h != CVM_OP_LOOP)
            continue;
        memset(st, 0, g->nslots + 1);
        body_uses(g, lo, st, wpc);
        for (uint32_t s = 0; s < g->nslots; s++)
            if ((st[s] & WRITE_FIRST) && !(st[s] & (CROSS | READ_LATE)) && !g->local[s] &&
                g->slot_width[s] == 1 && g->first_read[s] != UINT32_MAX && reads_within(g, s, lo))
                g->fresh[s] = wpc[s] + 1, g->fresh_end[s] = g->code[lo].end; /* a later loop is an inner one */
    }
    free(st), free(wpc);
}

/* Slot's form as the compare at pc reads it: form_at's, or in cubes of
 * rows, where nothing is forwarded, that of a `remat` register that a
 * lane position of 32 bits wrote before pc, alone or through moves and
 * copies of its bits (a reduction's `threadIdx.x`, read in its loop
 * after every barrier). *nowrap: the lanes are consecutive without
 * passing 2^31 (a position within the cube). */
static uint8_t compare_form(const gen *g, uint32_t slot, uint32_t pc, LLVMValueRef *s, bool *nowrap)
{
    uint8_t k = form_at(g, slot, s);
    *nowrap = false;
    if (k != F_VAR || slot >= g->nslots || !g->remat[slot] || g->remat[slot] - 1 >= pc)
        return k;
    const cvm_vm_dinsn *w = &g->code[g->remat[slot] - 1];
    /* through copies of its bits (`(int)threadIdx.x`), also remat */
    for (unsigned hops = 0; hops < 4 && cvm_vm_esz(w->elem) == 4 && w->a < g->nslots && g->remat[w->a] &&
                            (w->h == CVM_OP_MOV || (w->h == CVM_OP_CVT && w->k == CVM_VM_CVT_COPY4));
         hops++)
        w = &g->code[g->remat[w->a] - 1];
    if (w->h != CVM_OP_SREG || cvm_vm_esz(w->elem) != 4 || !g->rows)
        return F_VAR;
    k = cvm_nat_sreg_form(g, w->aux, s);
    if (k == F_VAR || !*s)
        return F_VAR;
    *nowrap = k == F_CONS;
    return k;
}

/* A test `if c` (or a loop's exit test) made of, in its run and through
 * `not`s, a 32-bit integer order compare of consecutive lanes (s + l,
 * modulo 2^32) with one value t (consec_compare), turned so that the
 * consecutive lanes are on the left. */
typedef struct consec {
    unsigned h;         /* lt, le, gt or ge */
    LLVMValueRef lo, t; /* s and t in 64 bits, widened as the compare's type orders them */
    bool neg;           /* through an odd number of `not`s */
    bool sg;            /* the compare's type is signed */
    bool nowrap;        /* the lanes are known not to wrap */
} consec;

/* The compare of the test at pc (consec); false where it is not such a compare. */
static bool consec_compare(gen *g, uint32_t pc, consec *k)
{
    uint32_t c = g->code[pc].a, w = pc;
    const cvm_vm_dinsn *in;
    k->neg = false;
    for (;;) {
        const uint32_t at = cvm_nat_run_writer(g, w, c);
        if (at == UINT32_MAX)
            return false;
        in = &g->code[at];
        w = at;
        if (in->h != CVM_OP_NOT || in->elem != CVM_T_BOOL)
            break;
        if (!cvm_nat_kept(g, at, pc, in->a))
            return false;
        k->neg = !k->neg, c = in->a;
    }
    if ((in->h != CVM_OP_LT && in->h != CVM_OP_LE && in->h != CVM_OP_GT && in->h != CVM_OP_GE) ||
        in->line != 1 || !is_int(in->ea) || cvm_vm_esz(in->ea) != 4 || !cvm_nat_kept(g, w, pc, in->a) ||
        !cvm_nat_kept(g, w, pc, in->b))
        return false;
    LLVMValueRef x, y;
    bool nwa, nwb;
    const uint8_t ka = compare_form(g, in->a, w, &x, &nwa), kb = compare_form(g, in->b, w, &y, &nwb);
    k->h = in->h;
    if (ka == F_UNI && kb == F_CONS) { /* t < x is x > t */
        LLVMValueRef u = x;
        x = y, y = u, nwa = nwb;
        k->h = k->h == CVM_OP_LT   ? CVM_OP_GT
               : k->h == CVM_OP_LE ? CVM_OP_GE
               : k->h == CVM_OP_GT ? CVM_OP_LT
                                   : CVM_OP_LE;
    } else if (ka != F_CONS || kb != F_UNI) {
        return false;
    }
    k->sg = is_signed(in->ea);
    k->lo = k->sg ? llvm.BuildSExt(g->B, x, g->i64, "") : llvm.BuildZExt(g->B, x, g->i64, "");
    k->t = k->sg ? llvm.BuildSExt(g->B, y, g->i64, "") : llvm.BuildZExt(g->B, y, g->i64, "");
    k->nowrap = nwa;
    return true;
}

LLVMValueRef cvm_nat_exit_scalar(gen *g, uint32_t pc, LLVMValueRef *all)
{
    consec k;
    if (!consec_compare(g, pc, &k))
        return NULL;
    LLVMIntPredicate pr;
    switch (k.h) {
    case CVM_OP_LT: pr = LLVMIntSLT; break;
    case CVM_OP_LE: pr = LLVMIntSLE; break;
    case CVM_OP_GT: pr = LLVMIntSGT; break;
    default: pr = LLVMIntSGE; break;
    }
    /* the lanes stay in their 32-bit type over the plane (known for positions) */
    LLVMValueRef hi = llvm.BuildAdd(g->B, k.lo, c64(g, g->W - 1), "");
    LLVMValueRef ok = k.nowrap ? NULL : llvm.BuildICmp(g->B, LLVMIntSLE, hi, c64(g, k.sg ? INT32_MAX : UINT32_MAX), "");
    const bool up = k.h == CVM_OP_LT || k.h == CVM_OP_LE; /* holds at the low end first */
    LLVMValueRef every = llvm.BuildICmp(g->B, pr, up ? hi : k.lo, k.t, "");
    LLVMValueRef none = llvm.BuildNot(g->B, llvm.BuildICmp(g->B, pr, up ? k.lo : hi, k.t, ""), "");
    *all = k.neg ? none : every;
    LLVMValueRef one = llvm.BuildOr(g->B, every, none, "");
    return ok ? llvm.BuildAnd(g->B, ok, one, "") : one;
}

LLVMValueRef cvm_nat_consec_mask(gen *g, uint32_t pc)
{
    consec k;
    if (!consec_compare(g, pc, &k) || !k.nowrap)
        return NULL;
    /* s + l < t holds where l < t - s, s + l <= t where l < t - s + 1;
     * ge and gt in the other lanes */
    LLVMValueRef d = llvm.BuildSub(g->B, k.t, k.lo, "");
    if (k.h == CVM_OP_LE || k.h == CVM_OP_GT)
        d = llvm.BuildAdd(g->B, d, c64(g, 1), "");
    d = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntSLT, d, c64(g, 0), ""), c64(g, 0), d, "");
    d = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntSGT, d, c64(g, g->W), ""), c64(g, g->W), d, "");
    LLVMValueRef low = llvm.BuildSub(g->B, llvm.BuildShl(g->B, c64(g, 1), d, ""), c64(g, 1), "");
    if (g->W >= 64) /* (a shift by 64 is not defined) */
        low = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, d, c64(g, 64), ""), c64(g, UINT64_MAX), low, "");
    const bool below = (k.h == CVM_OP_LT || k.h == CVM_OP_LE) != k.neg;
    return below ? low : llvm.BuildXor(g->B, low, full_mask(g), "");
}
