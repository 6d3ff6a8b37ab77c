/*
 * native_facts.c - what the native tier knows of a kernel's registers
 * before it emits code (native.h, gen's per-slot facts): which are local
 * to a straight run of code, where each is first and last read, each
 * pc's outermost loop (cvm_nat_analyse), which hold one launch constant
 * (constants), which a resume makes again from unit positions
 * (rematerials), which are settled before barriers and which of those are
 * one value in every lane (settle), which may keep the hardware's
 * NaNs until they leave the plane (raw_nans), and which never hold a
 * NaN (no_nans).
 */
#include "native.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gen's `cst`: registers whose only writer is one `const`. */
static void constants(gen *g)
{
    const cvm_vm_kprog *kp = g->kp;
    if (kp->zero_all)
        return;
    uint8_t *no = calloc(g->nslots + 1, 1); /* written otherwise, read across lanes, or zeroed */
    if (!no)
        return; /* no facts: no constants */
    for (uint32_t i = 0; i < kp->nzero; i++)
        for (uint32_t s = kp->zero[2 * i]; s < kp->zero[2 * i] + kp->zero[2 * i + 1] && s < g->nslots; s++)
            no[s] = 1;
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k, nw;
        cvm_nat_named(g, in, list, &k, &nw);
        for (unsigned i = 0; i < k; i++) {
            const uint32_t r = list[i];
            if (r >= g->nslots)
                continue;
            if (i >= nw) {
                if (oi && (oi->flags & CVM_OPF_PLANE))
                    for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++)
                        no[r + w] = 1;
                continue;
            }
            const bool one = (in->h == CVM_OP_CONST || in->h == CVM_OP_PARAM) && in->line == 1 &&
                             width_at(g, r) == 1;
            const cvm_vm_dinsn *was = g->cst[r] ? &g->code[g->cst[r] - 1] : NULL;
            if (!one || (was && (was->h != in->h || was->elem != in->elem || was->imm != in->imm ||
                                 was->aux != in->aux))) {
                for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++)
                    no[r + w] = 1;
            } else {
                g->cst[r] = pc + 1;
            }
        }
    }
    for (uint32_t s = 0; s < g->nslots; s++)
        if (no[s])
            g->cst[s] = 0;
    free(no);
}

/* +1 where instruction `in` opens a construct, -1 where it closes one. */
static int nesting(const cvm_vm_dinsn *in)
{
    switch (in->h) {
    case CVM_OP_IF: case CVM_OP_LOOP: case CVM_OP_SWITCH: case CVM_OP_BLOCK: return 1;
    case CVM_OP_END: return -1;
    default: return 0;
    }
}

/* Whether lane_op makes what `in` writes from its operands alone, with
 * no fault and nothing read but the plane's unit positions: the ops of
 * gen's `remat`. */
static bool remat_op(const cvm_vm_dinsn *in)
{
    if (in->line != 1 || in->la > 1 || in->lc > 1)
        return false;
    switch (in->h) {
    case CVM_OP_SREG:
        return cvm_vm_esz(in->elem) == 4 &&
               (in->aux == CVM_SREG_UNIT_POS_X || in->aux == CVM_SREG_UNIT_POS_Y || in->aux == CVM_SREG_UNIT_POS_Z);
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL: case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR:
        return is_int(in->elem);
    case CVM_OP_MOV:
        return is_int(in->elem) || in->elem == CVM_T_PTR_GLOBAL || in->elem == CVM_T_PTR_SHARED;
    case CVM_OP_SHL: case CVM_OP_SHR: return is_int(in->elem) && is_int(in->eb);
    case CVM_OP_CVT: /* between integers, one instruction (native_ops.c convert) */
        return is_int(in->elem) && is_int(in->ea) && cvm_nat_cvt_class(in->k) != CVM_NAT_CVT_NONE;
    case CVM_OP_PTR_ADD: return in->elem == CVM_T_PTR_GLOBAL || in->elem == CVM_T_PTR_SHARED;
    default: return false;
    }
}

/* gen's `remat` (after constants: launch constants are operands). */
static void rematerials(gen *g)
{
    const uint32_t n = g->kp->ninsns;
    uint32_t *writes = calloc(g->nslots + 1, sizeof *writes);
    if (!writes)
        return; /* none: every resume reloads, as before */
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned k, nw;
    for (uint32_t pc = 0; pc < n; pc++) {
        cvm_nat_named(g, &g->code[pc], list, &k, &nw);
        for (unsigned i = 0; i < nw; i++)
            for (uint32_t t = list[i]; t < list[i] + width_at(g, list[i]) && t < g->nslots; t++)
                writes[t]++;
    }
    unsigned depth = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const unsigned at = depth;
        depth += nesting(in);
        if (at || !remat_op(in))
            continue;
        cvm_nat_named(g, in, list, &k, &nw);
        const uint32_t d = list[0];
        if (nw != 1 || d >= g->nslots || width_at(g, d) != 1 || writes[d] != 1 || g->puni[d] || g->cst[d])
            continue;
        bool made = true;
        for (unsigned i = nw; i < k && made; i++)
            made = list[i] < g->nslots && width_at(g, list[i]) == 1 &&
                   (g->cst[list[i]] || (g->remat[list[i]] && g->remat[list[i]] - 1 < pc));
        if (made)
            g->remat[d] = pc + 1;
    }
    free(writes);
}

/* cvm_nat_named, less the operands of a control instruction other than
 * if, break_if and switch: those read nothing a plane's stop must keep. */
static void named_operands(const gen *g, const cvm_vm_dinsn *in, uint32_t *list, unsigned *k, unsigned *nw)
{
    cvm_nat_named(g, in, list, k, nw);
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
    if (oi && (oi->flags & CVM_OPF_CTRL) && in->h != CVM_OP_IF && in->h != CVM_OP_BREAK_IF && in->h != CVM_OP_SWITCH)
        *k = 0;
}

/* gen's `settled`: for a slot written only outside loops and live at the
 * resume point of a barrier after its first touch, the last stop (a
 * barrier, or a loop: its head yields and deoptimizes) where it is live.
 * (Before its first write a register no lane reads before writing it
 * may hold an older cube's value in the file: decode.c zeroes the
 * others, as unborn_at relies on.) */
static void settle(gen *g)
{
    /* VARIED: some writer runs in a construct, or its lanes may differ */
    enum { WRITTEN = 1, LOOPED = 2, BARRIER = 4, VARIED = 8 };
    const uint32_t n = g->kp->ninsns;
    uint8_t *f = calloc(g->nslots + 1, 1);
    uint32_t *last = calloc(g->nslots + 1, sizeof *last);
    if (!f || !last) {
        free(f), free(last);
        return; /* none settled: every stop stores them, as before */
    }
    unsigned depth = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        uint32_t list[CVM_BC_MAX_OPERANDS + 4], lo, hi;
        unsigned k, nw;
        cvm_nat_named(g, in, list, &k, &nw);
        uint8_t w = outer_loop(g, pc, &lo, &hi) ? WRITTEN | LOOPED : WRITTEN;
        if (depth || !(in->uni & CVM_VM_UNI_PLANE) || in->line != 1)
            w |= VARIED;
        for (unsigned i = 0; i < nw; i++)
            for (uint32_t t = list[i]; t < list[i] + width_at(g, list[i]) && t < g->nslots; t++)
                f[t] |= w;
        depth += nesting(in);
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        const bool barrier = is_barrier(g->code[pc].h);
        if (!barrier && g->code[pc].h != CVM_OP_LOOP)
            continue;
        for (uint32_t s = 0; s < g->nslots; s++)
            if ((f[s] & (WRITTEN | LOOPED)) == WRITTEN && !g->local[s] && !g->cst[s] && g->first_touch[s] < pc &&
                live_at(g, s, pc + 1)) {
                last[s] = pc; /* the stops in order: the last one stays */
                f[s] |= barrier ? BARRIER : 0;
            }
    }
    for (uint32_t s = 0; s < g->nslots; s++) {
        g->settled[s] = (f[s] & BARRIER) ? last[s] : 0;
        /* one value in every lane not exited: each writer at the top level (all
         * those lanes run it) with one value in its lanes */
        g->uni_settled[s] = g->settled[s] && !(f[s] & VARIED) && g->slot_width[s] == 1;
    }
    free(f), free(last);
}

/* What instruction `in` is to a float register (raw_nans): ARITH, float
 * arithmetic whose result the VM makes canonical and which reads its
 * operands only as numbers or NaN; ASKS, an op that reads them so too
 * (min/max, compares); STORES, a store of slot's bits; 0 anything else. */
enum { NAN_OTHER, NAN_ARITH, NAN_ASKS, NAN_STORES };

static int nan_use(const cvm_vm_dinsn *in, uint32_t slot)
{
    if (in->line != 1)
        return NAN_OTHER;
    switch (in->h) {
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL: case CVM_OP_DIV: case CVM_OP_FMA: case CVM_OP_SQRT:
        return is_float(in->elem) ? NAN_ARITH : NAN_OTHER;
    case CVM_OP_EXP:
        return in->elem == CVM_T_F32 ? NAN_ARITH : NAN_OTHER;
    case CVM_OP_MIN: case CVM_OP_MAX:
        return is_float(in->elem) ? NAN_ASKS : NAN_OTHER;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        return is_float(in->ea) ? NAN_ASKS : NAN_OTHER;
    case CVM_OP_ST:
        return slot == in->b ? NAN_STORES : NAN_OTHER;
    default:
        return NAN_OTHER;
    }
}

/* Whether the bits of an f32 or f64 constant are a NaN other than the
 * canonical one (vm/numerics.h's cvm_n_qf/cvm_n_q would change them). */
static bool other_nan(uint64_t bits, unsigned elem)
{
    if (elem == CVM_T_F32)
        return cvm_n_f32_bits(cvm_n_qf(cvm_n_f32_from((uint32_t)bits))) != (uint32_t)bits;
    return cvm_n_f64_bits(cvm_n_q(cvm_n_f64_from(bits))) != bits;
}

/* gen's `raw_nan`: the float registers whose NaNs may stay the
 * hardware's until they leave the plane's vectors. Their writers are all
 * arithmetic whose results the VM makes canonical (lane ops that call
 * arith_result, native_ops.c), or constants that are not other NaNs
 * (`float s = 0.0f`), so a store or spill that makes them canonical
 * gives the bits the writer would have; their readers ask only
 * whether a value is NaN (an operand's NaN gives the same result, the
 * canonical NaN, whatever its bits: fminmax replaces a NaN operand, the
 * exp selects it, compares are unordered), or store it; and every store
 * lies in fewer loops than every writer, so the work moves out of a loop,
 * never into one. What goes through the interpreter is spilled, so made
 * canonical, first. */
static void raw_nans(gen *g)
{
    enum { OK = 1, NO = 2 };
    const uint32_t n = g->kp->ninsns;
    uint8_t *f = calloc(g->nslots + 1, 1);
    int *wmin = malloc(((size_t)g->nslots + 1) * sizeof *wmin), *smax = malloc(((size_t)g->nslots + 1) * sizeof *smax);
    if (!f || !wmin || !smax) {
        free(f), free(wmin), free(smax);
        return; /* none: every writer makes its NaNs canonical */
    }
    for (uint32_t s = 0; s < g->nslots; s++)
        wmin[s] = INT32_MAX, smax[s] = -1;
    int depth = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        if (in->h == CVM_OP_END && g->code[in->target].h == CVM_OP_LOOP)
            depth--;
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k, nw;
        cvm_nat_named(g, in, list, &k, &nw);
        for (unsigned i = 0; i < k; i++) {
            const uint32_t t = list[i];
            if (t >= g->nslots)
                continue;
            if (g->slot_width[t] != 1 || !is_float(g->slot_elem[t])) {
                f[t] |= NO;
            } else if (i < nw && nan_use(in, t) == NAN_ARITH) {
                f[t] |= OK;
                wmin[t] = depth < wmin[t] ? depth : wmin[t];
            } else if (i < nw) { /* a constant's bits are its own unless a NaN's other than the canonical */
                f[t] |= in->h == CVM_OP_CONST && !other_nan(in->imm, g->slot_elem[t]) ? 0 : NO;
            } else {
                const int use = nan_use(in, t);
                f[t] |= use == NAN_OTHER ? NO : 0;
                if (use == NAN_STORES)
                    smax[t] = depth > smax[t] ? depth : smax[t];
            }
        }
        if (in->h == CVM_OP_LOOP)
            depth++;
    }
    for (uint32_t s = 0; s < g->nslots; s++)
        g->raw_nan[s] = f[s] == OK && smax[s] < wmin[s];
    free(f), free(wmin), free(smax);
}

/* Whether the f32 or f64 bits are a NaN. */
static bool nan_bits(uint64_t bits, unsigned elem)
{
    if (elem == CVM_T_F32)
        return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu);
    return (bits & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000) &&
           (bits & UINT64_C(0x000fffffffffffff));
}

/* Whether instruction `in` writes a number (no NaN) to float register t
 * in its lanes where the registers of no_nan hold numbers. */
static bool writes_number(const gen *g, const cvm_vm_dinsn *in, uint32_t t)
{
    const unsigned e = g->slot_elem[t];
    if (in->line != 1 || in->d != t || in->elem != e)
        return false;
    switch (in->h) {
    case CVM_OP_CONST: return !nan_bits(in->imm, e);
    case CVM_OP_MOV: case CVM_OP_NEG: case CVM_OP_ABS: return g->no_nan[in->a];
    case CVM_OP_MIN: case CVM_OP_MAX: return g->no_nan[in->a] || g->no_nan[in->b]; /* a NaN gives the other */
    case CVM_OP_BITCAST: { /* of an integer constant: pooling's -__int_as_float(0x7f800000) */
        const cvm_vm_dinsn *c = g->cst[in->a] ? &g->code[g->cst[in->a] - 1] : NULL;
        return c && c->h == CVM_OP_CONST && cvm_vm_esz(c->elem) == cvm_vm_esz(e) && !nan_bits(c->imm, e);
    }
    default: return false;
    }
}

/* gen's `no_nan`, the greatest set of float registers whose every
 * writer writes a number where they hold numbers (writes_number): start
 * from all of them and drop those with another writer until none drops.
 * Registers start as zero, a number, so by induction over the plane's
 * steps none of them ever holds a NaN; the interpreter (a fallback) and
 * the register file (spills, resumes) keep the same values. */
static void no_nans(gen *g)
{
    for (uint32_t s = 0; s < g->nslots; s++)
        g->no_nan[s] = g->slot_width[s] == 1 && (g->slot_elem[s] == CVM_T_F32 || g->slot_elem[s] == CVM_T_F64);
    for (bool again = true; again;) {
        again = false;
        for (uint32_t pc = 0; pc < g->kp->ninsns; pc++) {
            const cvm_vm_dinsn *in = &g->code[pc];
            uint32_t list[CVM_BC_MAX_OPERANDS + 4];
            unsigned k, nw;
            cvm_nat_named(g, in, list, &k, &nw);
            for (unsigned i = 0; i < nw; i++)
                for (uint32_t w = 0; w < width_at(g, list[i]) && list[i] + w < g->nslots; w++) {
                    const uint32_t t = list[i] + w;
                    if (g->no_nan[t] && (w || !writes_number(g, in, t)))
                        g->no_nan[t] = 0, again = true;
                }
        }
    }
}

/* The first entry of the increasing list v[0..n) at or after x (n: none). */
static uint32_t first_at_or_after(const uint32_t *v, uint32_t n, uint32_t x)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        const uint32_t m = a + (b - a) / 2;
        if (v[m] < x)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

bool cvm_nat_written_first(const gen *g, uint32_t s, uint32_t from, uint32_t pc)
{
    if (!g->kills || s >= g->nslots)
        return false;
    const uint32_t *k = g->kills + g->kills_at[s], nk = g->kills_at[s + 1] - g->kills_at[s];
    const uint32_t *r = g->reads + g->reads_at[s], nr = g->reads_at[s + 1] - g->reads_at[s];
    const uint32_t ik = first_at_or_after(k, nk, pc + 1), ir = first_at_or_after(r, nr, from);
    /* (an instruction reads its sources before it writes: a read at the
     * kill's own pc keeps the slot live) */
    return ik < nk && (ir == nr || r[ir] > k[ik]);
}

/* gen's reads and kills (CSR per slot; see gen): two passes over the
 * code, counting then filling. Out of memory: none (live_at as before). */
static void reads_and_kills(gen *g)
{
    const uint32_t n = g->kp->ninsns, ns = g->nslots;
    uint32_t *rc = calloc(ns + 2, sizeof *rc), *kc = calloc(ns + 2, sizeof *kc);
    if (!rc || !kc) {
        free(rc), free(kc);
        return;
    }
    uint32_t *reads = NULL, *kills = NULL;
    for (int fill = 0; fill < 2; fill++) {
        unsigned depth = 0;
        for (uint32_t pc = 0; pc < n; pc++) {
            const cvm_vm_dinsn *in = &g->code[pc];
            uint32_t list[CVM_BC_MAX_OPERANDS + 4];
            unsigned k, nw;
            named_operands(g, in, list, &k, &nw);
            for (unsigned j = 0; j < k; j++) {
                const uint32_t r = list[j];
                const bool write = j < nw;
                if (r >= ns || (write && (depth || width_at(g, r) != 1)))
                    continue;
                for (uint32_t w = 0; w < width_at(g, r) && r + w < ns; w++) {
                    uint32_t *c = write ? kc : rc;
                    if (fill)
                        (write ? kills : reads)[c[r + w]++] = pc;
                    else
                        c[r + w + 1]++;
                }
            }
            depth += nesting(in);
        }
        if (fill)
            break;
        for (uint32_t s = 0; s < ns; s++)
            rc[s + 1] += rc[s], kc[s + 1] += kc[s];
        reads = malloc(sizeof *reads * (rc[ns] + 1));
        kills = malloc(sizeof *kills * (kc[ns] + 1));
        g->reads_at = malloc(sizeof *g->reads_at * (ns + 1));
        g->kills_at = malloc(sizeof *g->kills_at * (ns + 1));
        if (!reads || !kills || !g->reads_at || !g->kills_at) {
            free(reads), free(kills), free(rc), free(kc);
            free(g->reads_at), free(g->kills_at);
            g->reads_at = g->kills_at = NULL;
            return;
        }
        memcpy(g->reads_at, rc, sizeof *rc * (ns + 1));
        memcpy(g->kills_at, kc, sizeof *kc * (ns + 1));
    }
    g->reads = reads, g->kills = kills;
    free(rc), free(kc);
}

bool cvm_nat_const_at(const gen *g, uint32_t pc, uint32_t k, int64_t *v)
{
    if (k >= g->nslots || !is_int(g->slot_elem[k]))
        return false;
    const uint32_t w = cvm_nat_run_writer(g, pc, k);
    const cvm_vm_dinsn *in = w != UINT32_MAX ? &g->code[w] : g->cst[k] ? &g->code[g->cst[k] - 1] : NULL;
    if (!in || in->h != CVM_OP_CONST)
        return false;
    const unsigned bits = 8 * cvm_vm_esz(g->slot_elem[k]);
    *v = bits >= 64 ? (int64_t)in->imm : (int64_t)(in->imm << (64 - bits)) >> (64 - bits);
    return true;
}

/* The trailing zero bits of what `in` writes, from gen's `tz` of its
 * sources: each low bit that is zero in every source lane of an integer
 * op that keeps low bits (a sum, a product, a shift left by a constant,
 * an integer conversion) is zero in the result. 0: not known. */
static unsigned written_tz(const gen *g, const cvm_vm_dinsn *in)
{
    const unsigned ta = in->a < g->nslots ? g->tz[in->a] : 0, tb = in->b < g->nslots ? g->tz[in->b] : 0;
    if (in->line != 1 || !(is_int(in->elem) || cvm_bc_elem_is_ptr(in->elem))) /* (a float sum's low bits are not its operands') */
        return 0;
    switch (in->h) {
    case CVM_OP_CONST: return in->imm ? (unsigned)__builtin_ctzll(in->imm) : 64;
    case CVM_OP_MOV: return ta;
    case CVM_OP_CVT: return is_int(in->elem) && is_int(in->ea) ? ta : 0;
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_OR: case CVM_OP_XOR: case CVM_OP_PTR_ADD:
        return ta < tb ? ta : tb;
    case CVM_OP_AND: return ta > tb ? ta : tb;
    case CVM_OP_MUL: return ta + tb < 64 ? ta + tb : 64;
    case CVM_OP_SHL: {
        int64_t c; /* the count, unsigned at its width; of the width or more: zero */
        if (!cvm_nat_const_at(g, 0, in->b, &c))
            return ta;
        const unsigned bits = 8 * cvm_vm_esz(g->slot_elem[in->b]);
        const uint64_t k = bits < 64 ? (uint64_t)c & ((UINT64_C(1) << bits) - 1) : (uint64_t)c;
        return k >= 64 || ta + k >= 64 ? 64 : ta + (unsigned)k;
    }
    default: return 0;
    }
}

/* gen's `tz`: every slot starts at 64 (registers start as zero; decode.c
 * zeroes those a lane may read before writing), and each writer lowers
 * its destination's to what it writes, until nothing changes (each pass
 * lowers one at least, so at most 65 passes a slot; two or three here). */
static void aligned_slots(gen *g)
{
    const uint32_t n = g->kp->ninsns;
    memset(g->tz, 64, g->nslots);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t pc = 0; pc < n; pc++) {
            const cvm_vm_dinsn *in = &g->code[pc];
            uint32_t list[CVM_BC_MAX_OPERANDS + 4];
            unsigned k, nw;
            cvm_nat_named(g, in, list, &k, &nw);
            const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
            const bool listed = oi && strstr(oi->format, "r*"); /* a list of registers it may write */
            const unsigned v = nw && !listed && list[0] < g->nslots && width_at(g, list[0]) == 1 ? written_tz(g, in) : 0;
            for (unsigned i = 0; i < (listed ? k : nw); i++)
                for (uint32_t t = list[i]; t < list[i] + width_at(g, list[i]) && t < g->nslots; t++)
                    if (g->tz[t] > v) {
                        g->tz[t] = (uint8_t)v;
                        changed = true;
                    }
        }
    }
}

/* The facts of gen's `local`, `first_read`, `last_read`, `first_touch`,
 * `outer_lo/hi`, then constants, settle, raw_nans, no_nans and tz. */
void cvm_nat_analyse(gen *g)
{
    const uint32_t n = g->kp->ninsns;
    uint32_t *seg = calloc(g->nslots + 1, sizeof *seg), depth = 0, lo = 1, hi = 0, cur = 1;
    if (!seg) {
        g->failed = g->again = true;
        snprintf(g->why, g->nwhy, "out of memory");
        return;
    }
    for (uint32_t s = 0; s < g->nslots; s++) {
        g->first_read[s] = UINT32_MAX;
        g->first_touch[s] = UINT32_MAX;
        g->local[s] = g->slot_width[s] == 1; /* until an access says otherwise */
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        const bool ctl = oi && (oi->flags & CVM_OPF_CTRL);
        /* a control instruction changes the mask after reading its
         * condition (if, break_if: the run before it), a barrier stops the
         * plane before it counts */
        const bool reads_in_run = in->h == CVM_OP_IF || in->h == CVM_OP_BREAK_IF;
        if ((ctl && !reads_in_run) || is_barrier(in->h))
            cur++;
        if (in->h == CVM_OP_LOOP && depth++ == 0)
            lo = pc, hi = in->end;
        else if (in->h == CVM_OP_END && pc == hi)
            depth = 0;
        else if (in->h == CVM_OP_END && depth && g->code[in->target].h == CVM_OP_LOOP)
            depth--;
        g->outer_lo[pc] = depth || pc == hi ? lo : 1;
        g->outer_hi[pc] = depth || pc == hi ? hi : 0;
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k, nw;
        named_operands(g, in, list, &k, &nw);
        /* an instruction reads its sources before it writes its
         * destination (cvm_nat_named() lists the destination first); a plane op
         * reads other lanes, inactive ones too, so what it reads keeps
         * its inactive lanes as the interpreter does (decode.c
         * cross_lane) */
        const bool cross_lane = oi && (oi->flags & CVM_OPF_PLANE);
        for (unsigned j = 0; j < k; j++) {
            const unsigned i = j < k - nw ? nw + j : j - (k - nw);
            const uint32_t r = list[i];
            if (r >= g->nslots)
                continue;
            const bool write = i < nw;
            for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++) {
                const uint32_t t = r + w;
                if (g->first_touch[t] == UINT32_MAX)
                    g->first_touch[t] = pc;
                if (!write) {
                    if (g->first_read[t] == UINT32_MAX)
                        g->first_read[t] = pc;
                    g->last_read[t] = pc;
                    if (cross_lane)
                        g->local[t] = 0, g->xlane[t] = 1;
                }
                if (!seg[t]) {
                    seg[t] = cur;
                    if (!write)
                        g->local[t] = 0; /* read before written here: may hold older values */
                } else if (seg[t] != cur) {
                    g->local[t] = 0;
                }
            }
        }
        if (ctl || is_barrier(in->h))
            cur++;
    }
    free(seg);
    reads_and_kills(g);
    cvm_nat_fresh(g);
    constants(g);
    rematerials(g);
    settle(g);
    raw_nans(g);
    no_nans(g);
    aligned_slots(g);
}

uint32_t cvm_nat_run_writer(const gen *g, uint32_t pc, uint32_t r)
{
    while (pc-- > 0) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        if (!oi || (oi->flags & CVM_OPF_CTRL) || is_barrier(in->h))
            return UINT32_MAX;
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned n, nw;
        cvm_nat_named(g, in, list, &n, &nw);
        if (nw && list[0] <= r && r < list[0] + width_at(g, list[0]))
            return pc;
    }
    return UINT32_MAX;
}

bool cvm_nat_kept(const gen *g, uint32_t w, uint32_t pc, uint32_t r)
{
    const uint32_t last = cvm_nat_run_writer(g, pc, r);
    return last == UINT32_MAX || last < w;
}
