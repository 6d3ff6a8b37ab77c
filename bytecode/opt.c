/*
 * opt.c - bytecode optimizations a frontend applies before it writes a
 * module (docs/cuda.md "Optimization"): loop-invariant code motion, then
 * copy coalescing (coalesce() below).
 *
 * The CUDA frontend lowers every expression where it stands, so a loop
 * body recomputes whatever depends only on values the loop never changes:
 * the constants, parameter reads and special registers of its own
 * expressions, and the address arithmetic of row bases and strides
 * (`((b * h + y) * w + x) * c` re-derives `b * h` on every tap of a
 * pooling window). Each such instruction moves to just before the
 * outermost loop it can leave, and the loop runs it once.
 *
 * An instruction at pc j may leave a loop L (its `loop` at pc L, its
 * `end` at E) when
 * - it is pure: no memory, no side effect, no plane op, no control flow,
 *   and no integer division (which checked mode faults on), so running it
 *   for lanes that would not have reached it is unobservable;
 * - every register it reads is written nowhere in [L, E] except by
 *   instructions that leave L (or a loop around L) themselves: its value
 *   is the same at every iteration as before the loop;
 * - its register d is written by it alone in the kernel, is read only in
 *   the part of the construct that holds j, after j (j < pc < the marker
 *   that ends that part; nested constructs included), by no plane op
 *   (which reads other lanes, some of which may not have reached j), and
 *   names no source variable (the debugger shows variables where the
 *   source assigns them). So every lane that reads d has executed j in
 *   the same iteration; it now reads the value it would have computed;
 * - constructs between j and L (an `if`, `switch` or `block` of the
 *   loop) do not matter: j is pure, so running it before them for lanes
 *   that would have skipped it changes nothing they can see, and only
 *   lanes that do reach j read d (the rule above).
 * The marking repeats until nothing moves further out, so chains of
 * invariant instructions leave together and nested loops are left one
 * after the other.
 *
 * One exception keeps the interpreter's fused sequences whole (vm/fuse.c):
 * an i32-to-i64 conversion whose only reader is an i64 multiply
 * that stays in the loop stays too (the multiply of two sign-extended
 * operands is the cheap 32x32->64 one).
 *
 * The moved instructions keep their source positions; scopes, inlined
 * frames and variable ranges are mapped to the new pcs. The result is
 * serialized with cvm_bc_module_write; callers verify it like any module.
 */
#include "bc.h"
#include "verify.h"

#include <string.h>

#define NONE UINT32_MAX
#define GONE (UINT32_MAX - 1) /* out[pc]: a copy coalesced away */

typedef struct opt_kernel {
    const cvm_bc_module *mod;
    const cvm_bc_kernel *k;
    const cvm_bc_vkernel *vk;
    uint32_t kidx, n, nregs;
    uint16_t *op;
    uint32_t *dest;    /* per pc: destination register or NONE */
    uint32_t *parent;  /* per pc: opening pc of the innermost construct around it, or NONE */
    uint32_t *out;     /* per pc: the loop it leaves (opening pc), or NONE */
    uint8_t *cand;     /* per pc: eligible (pure, register rules hold) */
    uint8_t *var;      /* per register: names a source variable (debug info) */
    /* per register: writes and reads as pc lists (CSR: first[r] .. first[r + 1]) */
    uint32_t *wfirst, *wpc, *rfirst, *rpc;
    uint32_t *order;   /* new pc -> old pc (nq of them) */
    uint32_t *newpc;   /* old pc -> new pc (index n: one past the end) */
    uint32_t nq;
    uint32_t *dpatch;  /* per pc: the register it writes instead (coalesce), or NONE */
    uint32_t *sfrom, *sto; /* per pc: reads register sto where it read sfrom, or NONE */
} opt_kernel;

/* Destination and sources of an instruction, by its op's format. */
static unsigned operands(const cvm_bc_insn *in, uint32_t *dst, uint32_t *src)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    unsigned ns = 0;
    *dst = NONE;
    for (unsigned w = 0; oi && w < in->nops; w++) {
        const char c = cvm_bc_operand_kind(oi->format, w);
        if (c == 'd')
            *dst = in->ops[w];
        else if (c == 'r')
            src[ns++] = in->ops[w];
    }
    return ns;
}

static cvm_bc_insn insn_at(const opt_kernel *o, uint32_t pc)
{
    cvm_bc_insn in;
    cvm_bc_insn_at(o->k, o->vk->insns[pc].word, &in); /* verified: always fits */
    return in;
}

/* Pure: no memory, effect, plane op, control flow or faulting division. */
static bool pure(const cvm_bc_insn *in)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    if (!oi || in->op < CVM_OP_MOV || in->op > CVM_OP_PTR_DIFF)
        return false;
    if (oi->flags & (CVM_OPF_CTRL | CVM_OPF_MEM | CVM_OPF_SIDE | CVM_OPF_PLANE | CVM_OPF_BARRIER))
        return false;
    return !(oi->flags & CVM_OPF_DIVFAULT) || cvm_bc_elem_is_float(in->elem);
}

static bool opens(uint16_t op)
{
    return op == CVM_OP_IF || op == CVM_OP_LOOP || op == CVM_OP_SWITCH || op == CVM_OP_BLOCK;
}

/* The per-register lists, the construct tree and the registers that name
 * variables; false on a malformed structure (cannot happen for a verified
 * kernel). */
static bool scan(opt_kernel *o, uint32_t *src)
{
    uint32_t *stack = o->out, sp = 0; /* out is free until mark() */
    for (uint32_t pc = 0; pc < o->n; pc++) {
        const cvm_bc_insn in = insn_at(o, pc);
        o->op[pc] = in.op;
        if (in.op == CVM_OP_END) {
            if (!sp)
                return false;
            sp--;
        }
        o->parent[pc] = sp ? stack[sp - 1] : NONE;
        if (opens(in.op))
            stack[sp++] = pc;
        const unsigned ns = operands(&in, &o->dest[pc], src);
        if (o->dest[pc] != NONE && o->dest[pc] < o->nregs)
            o->wfirst[o->dest[pc] + 1]++;
        for (unsigned i = 0; i < ns; i++)
            if (src[i] < o->nregs)
                o->rfirst[src[i] + 1]++;
    }
    for (uint32_t r = 0; r < o->nregs; r++) {
        o->wfirst[r + 1] += o->wfirst[r];
        o->rfirst[r + 1] += o->rfirst[r];
    }
    /* fill the lists (wfirst/rfirst advanced as cursors, then restored) */
    for (uint32_t pc = 0; pc < o->n; pc++) {
        const cvm_bc_insn in = insn_at(o, pc);
        uint32_t d;
        const unsigned ns = operands(&in, &d, src);
        if (d != NONE && d < o->nregs)
            o->wpc[o->wfirst[d]++] = pc;
        for (unsigned i = 0; i < ns; i++)
            if (src[i] < o->nregs)
                o->rpc[o->rfirst[src[i]]++] = pc;
    }
    for (uint32_t r = o->nregs; r > 0; r--) {
        o->wfirst[r] = o->wfirst[r - 1];
        o->rfirst[r] = o->rfirst[r - 1];
    }
    o->wfirst[0] = o->rfirst[0] = 0;
    const cvm_bc_debug *d = &o->mod->debug;
    for (uint32_t i = 0; i < d->nvars; i++)
        if (d->vars[i].kernel == o->kidx && d->vars[i].reg < o->nregs)
            o->var[d->vars[i].reg] = 1;
    return sp == 0;
}

/* The register rules of the file comment for the instruction at pc j. */
static bool eligible(const opt_kernel *o, uint32_t j)
{
    const cvm_bc_insn in = insn_at(o, j);
    const uint32_t d = o->dest[j];
    if (!pure(&in) || d == NONE || d >= o->nregs || o->parent[j] == NONE)
        return false;
    if (o->wfirst[d + 1] - o->wfirst[d] != 1 || o->var[d])
        return false;
    const uint32_t part_end = o->vk->insns[j].next;
    for (uint32_t i = o->rfirst[d]; i < o->rfirst[d + 1]; i++) {
        const uint32_t r = o->rpc[i];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(o->op[r]);
        if (r <= j || r >= part_end || !oi || (oi->flags & CVM_OPF_PLANE))
            return false;
    }
    return true;
}

/* Register r keeps its value across loop L: each write is outside L or by
 * an instruction that leaves L (or a loop around it). */
static bool steady(const opt_kernel *o, uint32_t r, uint32_t L)
{
    const uint32_t E = o->vk->insns[L].end;
    for (uint32_t i = o->wfirst[r]; i < o->wfirst[r + 1]; i++) {
        const uint32_t w = o->wpc[i], t = o->out[w];
        if (w < L || w > E)
            continue;
        if (t == NONE || t > L || o->vk->insns[t].end < E)
            return false;
    }
    return true;
}

/* The outermost loop instruction j can leave given the current marks. */
static uint32_t outermost(const opt_kernel *o, uint32_t j, uint32_t *src)
{
    const cvm_bc_insn in = insn_at(o, j);
    uint32_t d, best = NONE;
    const unsigned ns = operands(&in, &d, src);
    for (uint32_t L = o->parent[j]; L != NONE; L = o->parent[L]) {
        if (o->op[L] != CVM_OP_LOOP)
            continue; /* an if, switch or block between: pure, so it may run before them */
        for (unsigned i = 0; i < ns; i++)
            if (src[i] >= o->nregs || !steady(o, src[i], L))
                return best;
        best = L;
    }
    return best;
}

static bool is_wide_int(unsigned elem)
{
    return elem == CVM_T_I64 || elem == CVM_T_U64;
}

/* Marks o->out to the fixed point; returns how many instructions move. */
static uint32_t mark(opt_kernel *o, uint32_t *src)
{
    for (uint32_t pc = 0; pc < o->n; pc++) {
        o->out[pc] = NONE;
        o->cand[pc] = eligible(o, pc);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t j = 0; j < o->n; j++) {
            if (!o->cand[j])
                continue;
            const uint32_t L = outermost(o, j, src);
            if (L != o->out[j] && L != NONE && (o->out[j] == NONE || L < o->out[j])) {
                o->out[j] = L;
                changed = true;
            }
        }
    }
    uint32_t moved = 0;
    for (uint32_t j = 0; j < o->n; j++) {
        if (o->out[j] == NONE)
            continue;
        const uint32_t d = o->dest[j];
        if (o->op[j] == CVM_OP_CVT && o->rfirst[d + 1] - o->rfirst[d] == 1) {
            const cvm_bc_insn in = insn_at(o, j), user = insn_at(o, o->rpc[o->rfirst[d]]);
            if (is_wide_int(in.elem) && user.op == CVM_OP_MUL &&
                o->out[o->rpc[o->rfirst[d]]] == NONE) {
                o->out[j] = NONE;
                continue;
            }
        }
        moved++;
    }
    return moved;
}

/* The new order: each moved instruction just before the loop it leaves,
 * moved ones in their old order; coalesced copies dropped. */
static void arrange(opt_kernel *o)
{
    uint32_t q = 0;
    for (uint32_t pc = 0; pc < o->n; pc++) {
        if (o->out[pc] != NONE)
            continue;
        if (o->op[pc] == CVM_OP_LOOP)
            for (uint32_t j = pc + 1; j <= o->vk->insns[pc].end; j++)
                if (o->out[j] == pc)
                    o->newpc[j] = q, o->order[q++] = j;
        o->newpc[pc] = q, o->order[q++] = pc;
    }
    o->nq = q;
    o->newpc[o->n] = q;
}

/* The register a register-only `mov` copies (its one source). */
static uint32_t mov_source(const opt_kernel *o, uint32_t pc)
{
    const cvm_bc_insn in = insn_at(o, pc);
    return in.nops == 2 ? in.ops[1] : NONE;
}

/* Written once and read once in the kernel, and no source variable. */
static bool temporary(const opt_kernel *o, uint32_t t)
{
    return t < o->nregs && o->wfirst[t + 1] - o->wfirst[t] == 1 &&
           o->rfirst[t + 1] - o->rfirst[t] == 1 && !o->var[t];
}

/*
 * Copy coalescing over the arranged order (then arranged again). The
 * frontend writes a statement's value to a temporary and copies it to the
 * variable, and copies a variable to a temporary to read it:
 * - `op t, ...; mov v, t` becomes `op v, ...`;
 * - `mov t, v; op ..., t, ...` becomes `op ..., v, ...` (not for a plane
 *   op, which reads the register in other lanes too, nor for a `switch`,
 *   whose selector must not be written inside it: the frontend copies the
 *   value because a case may assign the variable, `case A: st = B;`);
 * where t is a temporary (written once, read once, by these two adjacent
 * instructions, so under one mask) and the copy has the type of both
 * registers. Returns how many copies went.
 */
static uint32_t coalesce(opt_kernel *o)
{
    uint32_t gone = 0;
    for (uint32_t q = 0; q + 1 < o->nq; q++) {
        const uint32_t i = o->order[q], m = o->order[q + 1];
        if (o->out[i] == GONE || o->out[m] == GONE)
            continue;
        if (o->op[i] == CVM_OP_MOV && o->sfrom[m] == NONE) {
            uint32_t t = o->dest[i], v = mov_source(o, i);
            if (o->sfrom[i] == v) /* i's own source was coalesced already */
                v = o->sto[i];
            const cvm_bc_opinfo *oi = cvm_bc_op_info(o->op[m]);
            if (v != NONE && temporary(o, t) && o->rpc[o->rfirst[t]] == m && oi &&
                !(oi->flags & CVM_OPF_PLANE) && o->op[m] != CVM_OP_SWITCH) {
                o->out[i] = GONE, o->sfrom[m] = t, o->sto[m] = v, gone++;
                continue;
            }
        }
        if (o->op[m] == CVM_OP_MOV && o->dest[i] != NONE && o->dpatch[i] == NONE) {
            const uint32_t t = o->dest[i], v = o->dest[m];
            if (mov_source(o, m) == t && temporary(o, t) && v != t)
                o->out[m] = GONE, o->dpatch[i] = v, gone++;
        }
    }
    return gone;
}

/* A range [s, e) of old pcs in new pcs: from the first instruction at or
 * after s that stayed to the first at or after e that stayed. */
static uint32_t map_start(const opt_kernel *o, uint32_t pc)
{
    while (pc < o->n && o->out[pc] != NONE)
        pc++;
    return o->newpc[pc < o->n ? pc : o->n];
}

typedef struct opt_out {
    cvm_bc_module m;       /* shallow copy with the arrays below */
    cvm_bc_kernel *kernels;
    uint32_t **code;       /* per kernel: new words, or NULL when unchanged */
    uint32_t *nwords;      /* per kernel: words allocated for code[] */
    cvm_bc_dline *lines;
    uint32_t nlines, lines_cap;
    cvm_bc_dscope *scopes;
    cvm_bc_dinline *inlines;
    cvm_bc_dvar *vars;
} opt_out;

static bool push_line(const cvm_bc_module *mod, opt_out *r, cvm_bc_dline l)
{
    if (r->nlines == r->lines_cap) {
        const uint32_t cap = r->lines_cap ? 2 * r->lines_cap : 64;
        cvm_bc_dline *p = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *p * cap);
        if (!p)
            return false;
        if (r->nlines)
            memcpy(p, r->lines, sizeof *p * r->nlines);
        cvm_bc_free(mod->alloc, mod->alloc_user, r->lines, sizeof *p * r->lines_cap);
        r->lines = p;
        r->lines_cap = cap;
    }
    r->lines[r->nlines++] = l;
    return true;
}

/* The line entries of kernel ki, reordered when it changed. */
static bool relines(const cvm_bc_module *mod, opt_out *r, const opt_kernel *o, uint32_t ki)
{
    const cvm_bc_debug *d = &mod->debug;
    uint32_t first = 0, last;
    while (first < d->nlines && d->lines[first].kernel < ki)
        first++;
    for (last = first; last < d->nlines && d->lines[last].kernel == ki; last++)
        ;
    if (!o) {
        for (uint32_t i = first; i < last; i++)
            if (!push_line(mod, r, d->lines[i]))
                return false;
        return true;
    }
    /* effective entry of each old pc (NONE: before any entry) */
    cvm_bc_dline prev = {ki, 0, 0, 0, 0};
    bool have = false;
    for (uint32_t q = 0; q < o->nq; q++) {
        const uint32_t pc = o->order[q];
        uint32_t lo = first, hi = last;
        while (lo < hi) { /* last entry at or before pc */
            const uint32_t mid = lo + (hi - lo) / 2;
            if (d->lines[mid].pc <= pc)
                lo = mid + 1;
            else
                hi = mid;
        }
        cvm_bc_dline l = {ki, q, 0, 0, 0};
        if (lo > first)
            l = d->lines[lo - 1], l.pc = q;
        else if (!have)
            continue;
        if (have && l.file == prev.file && l.line == prev.line && l.col == prev.col)
            continue;
        if (!push_line(mod, r, l))
            return false;
        prev = l;
        have = true;
    }
    return true;
}

static void *dup_array(const cvm_bc_module *mod, const void *p, size_t size)
{
    void *q = size ? cvm_bc_alloc(mod->alloc, mod->alloc_user, size) : NULL;
    if (q)
        memcpy(q, p, size);
    return q;
}

static void out_free(const cvm_bc_module *mod, opt_out *r)
{
    const cvm_bc_debug *d = &mod->debug;
    for (uint32_t i = 0; r->code && r->nwords && i < mod->nkernels; i++)
        if (r->code[i])
            cvm_bc_free(mod->alloc, mod->alloc_user, r->code[i], sizeof(uint32_t) * r->nwords[i]);
    cvm_bc_free(mod->alloc, mod->alloc_user, r->code, sizeof *r->code * (mod->nkernels + 1u));
    cvm_bc_free(mod->alloc, mod->alloc_user, r->nwords, sizeof *r->nwords * (mod->nkernels + 1u));
    cvm_bc_free(mod->alloc, mod->alloc_user, r->kernels, sizeof *r->kernels * mod->nkernels);
    cvm_bc_free(mod->alloc, mod->alloc_user, r->lines, sizeof *r->lines * r->lines_cap);
    cvm_bc_free(mod->alloc, mod->alloc_user, r->scopes, sizeof *r->scopes * d->nscopes);
    cvm_bc_free(mod->alloc, mod->alloc_user, r->inlines, sizeof *r->inlines * d->ninlines);
    cvm_bc_free(mod->alloc, mod->alloc_user, r->vars, sizeof *r->vars * d->nvars);
}

/* Words of the kernel in the new order (with the coalescing patches), and
 * its debug ranges mapped. */
static bool rewrite(const cvm_bc_module *mod, opt_out *r, const opt_kernel *o)
{
    const cvm_bc_kernel *k = o->k;
    uint32_t nw = 0, at = 0;
    for (uint32_t q = 0; q < o->nq; q++) {
        const uint32_t pc = o->order[q];
        nw += (pc + 1 < o->n ? o->vk->insns[pc + 1].word : k->ncode) - o->vk->insns[pc].word;
    }
    uint32_t *w = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *w * (nw + 1u));
    if (!w)
        return false;
    for (uint32_t q = 0; q < o->nq; q++) {
        const uint32_t pc = o->order[q], from = o->vk->insns[pc].word;
        const uint32_t to = pc + 1 < o->n ? o->vk->insns[pc + 1].word : k->ncode;
        memcpy(w + at, k->code + from, sizeof *w * (to - from));
        const char *fmt = cvm_bc_op_info(o->op[pc])->format;
        for (uint32_t i = 2; i < to - from; i++) {
            const char c = cvm_bc_operand_kind(fmt, i - 2);
            if (c == 'd' && o->dpatch[pc] != NONE)
                w[at + i] = o->dpatch[pc];
            else if (c == 'r' && o->sfrom[pc] != NONE && w[at + i] == o->sfrom[pc])
                w[at + i] = o->sto[pc];
        }
        at += to - from;
    }
    r->code[o->kidx] = w;
    r->nwords[o->kidx] = nw + 1u;
    r->kernels[o->kidx].ncode = nw;
    r->kernels[o->kidx].code = w;
    const cvm_bc_debug *d = &mod->debug;
    for (uint32_t i = 0; i < d->nscopes; i++)
        if (r->scopes[i].kernel == o->kidx)
            r->scopes[i].start_pc = map_start(o, d->scopes[i].start_pc),
            r->scopes[i].end_pc = map_start(o, d->scopes[i].end_pc);
    for (uint32_t i = 0; i < d->ninlines; i++)
        if (r->inlines[i].kernel == o->kidx)
            r->inlines[i].start_pc = map_start(o, d->inlines[i].start_pc),
            r->inlines[i].end_pc = map_start(o, d->inlines[i].end_pc);
    for (uint32_t i = 0; i < d->nvars; i++)
        if (r->vars[i].kernel == o->kidx)
            r->vars[i].start_pc = map_start(o, d->vars[i].start_pc),
            r->vars[i].end_pc = map_start(o, d->vars[i].end_pc);
    return true;
}

#define OPT_ARRAYS(X)                                                                      \
    X(op, n) X(dest, n) X(parent, n) X(out, n) X(cand, n) X(var, nregs) X(wfirst, nregs + 1)             \
    X(rfirst, nregs + 1) X(order, n) X(newpc, n + 1) X(dpatch, n) X(sfrom, n) X(sto, n)

cvm_status cvm_bc_optimize(const cvm_bc_module *mod, const cvm_bc_verified *ver,
                           void **out_bytes, size_t *out_size, uint32_t *out_moved,
                           cvm_diag *diag)
{
    if (!mod || !ver || !out_bytes || !out_size)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_optimize: NULL argument");
    const cvm_bc_debug *d = &mod->debug;
    opt_out r;
    memset(&r, 0, sizeof r);
    r.m = *mod;
    r.kernels = dup_array(mod, mod->kernels, sizeof *mod->kernels * mod->nkernels);
    r.code = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *r.code * (mod->nkernels + 1u));
    r.nwords = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *r.nwords * (mod->nkernels + 1u));
    r.scopes = dup_array(mod, d->scopes, sizeof *d->scopes * d->nscopes);
    r.inlines = dup_array(mod, d->inlines, sizeof *d->inlines * d->ninlines);
    r.vars = dup_array(mod, d->vars, sizeof *d->vars * d->nvars);
    uint32_t src[256], moved_total = 0;
    bool ok = (r.kernels || !mod->nkernels) && r.code && r.nwords && (r.scopes || !d->nscopes) &&
              (r.inlines || !d->ninlines) && (r.vars || !d->nvars);
    for (uint32_t ki = 0; ok && ki < mod->nkernels; ki++) {
        opt_kernel o = {.mod = mod, .k = &mod->kernels[ki], .vk = &ver->kernels[ki], .kidx = ki};
        o.n = o.vk->ninsns;
        o.nregs = o.k->nregs;
        const uint32_t n = o.n, nregs = o.nregs;
        uint32_t nw = 0, nrd = 0, moved = 0;
#define ALLOC(f, cnt) o.f = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *o.f * ((size_t)(cnt) + 1)); ok = ok && o.f;
        OPT_ARRAYS(ALLOC)
#undef ALLOC
        /* list sizes: one pass over the operands */
        for (uint32_t pc = 0; ok && pc < n; pc++) {
            const cvm_bc_insn in = insn_at(&o, pc);
            uint32_t dd;
            nrd += operands(&in, &dd, src);
            nw += dd != NONE;
        }
        if (ok) {
            o.wpc = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *o.wpc * (nw + 1));
            o.rpc = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *o.rpc * (nrd + 1));
            ok = o.wpc && o.rpc;
        }
        if (ok && scan(&o, src)) {
            moved = mark(&o, src);
            for (uint32_t pc = 0; pc < n; pc++)
                o.dpatch[pc] = o.sfrom[pc] = NONE;
            arrange(&o);
            const uint32_t gone = coalesce(&o);
            if (gone)
                arrange(&o);
            moved += gone;
            moved_total += moved;
        }
        if (ok && moved) {
            ok = rewrite(mod, &r, &o) && relines(mod, &r, &o, ki);
        } else if (ok) {
            ok = relines(mod, &r, NULL, ki);
        }
        cvm_bc_free(mod->alloc, mod->alloc_user, o.wpc, sizeof *o.wpc * (nw + 1));
        cvm_bc_free(mod->alloc, mod->alloc_user, o.rpc, sizeof *o.rpc * (nrd + 1));
#define FREE(f, cnt) cvm_bc_free(mod->alloc, mod->alloc_user, o.f, sizeof *o.f * ((size_t)(cnt) + 1));
        OPT_ARRAYS(FREE)
#undef FREE
    }
    cvm_status st;
    if (!ok) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory optimizing a module");
    } else {
        r.m.kernels = r.kernels;
        r.m.debug.lines = r.lines;
        r.m.debug.nlines = r.nlines;
        r.m.debug.scopes = r.scopes;
        r.m.debug.inlines = r.inlines;
        r.m.debug.vars = r.vars;
        st = cvm_bc_module_write(&r.m, out_bytes, out_size, diag);
    }
    if (out_moved)
        *out_moved = moved_total;
    out_free(mod, &r);
    return st;
}
