/*
 * decode.c - cvm_vm_program_build: pre-decodes every kernel of a verified
 * module into cvm_vm_dinsn arrays for the dispatch loop (interp_run.c).
 *
 * Operands become register slot indexes; control instructions get their
 * targets and the construct-stack index of the construct they act on
 * (structured control flow makes every construct's stack position static),
 * case values are converted to the selector's width, strings resolved.
 * fuse.c then builds the fused code (kp->fast) from the result, and
 * allocate_slots below gives that code its register layout.
 * The verifier has already checked everything; the few checks here keep a
 * malformed input from crashing the interpreter all the same.
 */
#include "decode.h"
#include "jit.h"

#include <string.h>

static const bool handled[CVM_OP_LIMIT] = {
#define X(name) [CVM_OP_##name] = true,
    CVM_VM_HANDLED(X)
#undef X
};

/* The typed lane loop for cvt to `to` from `from` (interp.h CVM_VM_CVTS),
 * or CVM_VM_CVT_GENERIC. */
static uint8_t cvt_kind(unsigned to, unsigned from)
{
    static const struct {
        uint8_t to, from;
    } row[] = {
#define CVM_VM_CVT_ROW(K, TO, FROM, TD, TA, LOOP, EXPR) {TO, FROM},
        CVM_VM_CVTS(CVM_VM_CVT_ROW)
#undef CVM_VM_CVT_ROW
    };
    const unsigned ts = cvm_bc_elem_size(to), fs = cvm_bc_elem_size(from);
    const bool int_from = cvm_bc_elem_is_int(from);
    unsigned t = to, f = from;
    if (cvm_bc_elem_is_int(to) && (int_from || from == CVM_T_BOOL))
        t = CVM_VM_CVT_INT(ts);
    if (int_from && (to == CVM_T_BOOL || (cvm_bc_elem_is_int(to) && ts <= fs)))
        f = CVM_VM_CVT_INT(fs);
    for (unsigned i = 0; i < sizeof row / sizeof row[0]; i++)
        if (row[i].to == t && row[i].from == f)
            return (uint8_t)(i + 1);
    return CVM_VM_CVT_GENERIC;
}

const char *cvm_vm_kernel_name(const cvm_vm_program *prog, uint32_t k)
{
    return cvm_bc_str(prog->mod, prog->mod->kernels[k].name);
}

/* An open construct while decoding. */
typedef struct open_construct {
    uint32_t kind, open, marker;
    uint8_t selector; /* switch: element type of the selector */
} open_construct;

typedef struct decoder {
    const cvm_vm_program *prog;
    const cvm_bc_kernel *k;
    cvm_vm_kprog *kp;
    uint32_t *slot;       /* per register: first slot */
    open_construct *stack;
    uint32_t sp;
    uint32_t ncase_used, narg_used;
    const uint8_t *reg_uni; /* the divergence analysis' register classes, or NULL */
    bool varying_src;       /* the instruction being decoded reads a varying register */
    bool cube_varying_src;  /* ... one that may differ between the planes of a cube */
    bool cube_varying_other; /* ... such a one other than its destination register */
    uint8_t src_uni;        /* ... its CVM_VM_UNI_A/B: source a or b is not varying */
    uint8_t *first_use;     /* per register: REG_* (zero_ranges) */
    uint32_t dest;          /* destination register of the instruction, or UINT32_MAX */
    bool cross_lane;        /* the instruction reads other lanes' registers (plane ops) */
    uint32_t *wseg;         /* per register first written: the segment of that write */
    uint8_t *wdepth;        /* ... and its construct depth */
    uint32_t seg[CVM_BC_MAX_DEPTH + 1]; /* the segment open at each depth (see below) */
    uint32_t nseg;
    cvm_diag *diag;
} decoder;

/*
 * How a register first appears in program order (zero_ranges). A
 * "segment" is a run of instructions at one depth between the markers of
 * its construct (open, else, continuing, case, default, end); at depth 0
 * it is the whole kernel. Within a segment a plane's active mask never
 * grows (lanes leave through break, continue, return; a nested construct
 * gives back at its end at most the lanes it started with), and every
 * instruction nested in a later construct of the segment runs with a
 * subset of the lanes there. So a register first written in segment S
 * and read only later in S or inside constructs nested in S is always
 * written, for each lane that reads it, before that lane reads it
 * (REG_WRITTEN_FIRST: not zeroed before a cube). Any other register
 * (read first, read in another segment, or read by a plane op, which
 * looks at other lanes) may be read before it is written and starts
 * every cube at zero, as all registers used to.
 */
enum { REG_UNSEEN, REG_READ_FIRST, REG_WRITTEN_FIRST };

static cvm_status bad(decoder *dc, uint32_t pc, const char *what)
{
    return cvm_diag_set(dc->diag, CVM_VERIFY, "kernel '%s' pc %u: %s",
                        cvm_bc_str(dc->prog->mod, dc->k->name), pc, what);
}

/* Case value v as the selector's bits (zero-extended to 64 bits). */
static uint64_t case_bits(uint32_t v, unsigned elem)
{
    unsigned size = cvm_bc_elem_size(elem);
    if (size >= 8)
        return cvm_bc_elem_is_signed(elem) ? (uint64_t)(int64_t)(int32_t)v : v;
    return size == 4 ? v : (uint64_t)v & ((1u << (size * 8)) - 1);
}

/* Index of the innermost open construct of one of the given kinds (bit set), or -1. */
static int innermost(const decoder *dc, unsigned kinds, uint32_t skip)
{
    for (uint32_t i = dc->sp; i-- > 0;) {
        if (!(kinds & (1u << dc->stack[i].kind)))
            continue;
        if (skip-- == 0)
            return (int)i;
    }
    return -1;
}

/* Structured control: fills targets, ends and stack indexes. */
static cvm_status decode_control(decoder *dc, uint32_t pc, const cvm_bc_insn *bi,
                                 cvm_vm_dinsn *in)
{
    cvm_vm_dinsn *code = dc->kp->code;
    open_construct *top = dc->sp ? &dc->stack[dc->sp - 1] : NULL;
    int idx;
    switch (bi->op) {
    case CVM_OP_IF: case CVM_OP_LOOP: case CVM_OP_SWITCH: case CVM_OP_BLOCK:
        if (dc->sp >= dc->kp->max_depth)
            return bad(dc, pc, "construct nesting too deep");
        in->aux = dc->sp;
        dc->stack[dc->sp++] = (open_construct){
            .kind = bi->op == CVM_OP_IF ? CVM_VM_F_IF : bi->op == CVM_OP_LOOP ? CVM_VM_F_LOOP
                  : bi->op == CVM_OP_SWITCH ? CVM_VM_F_SWITCH : CVM_VM_F_BLOCK,
            .open = pc, .marker = pc, .selector = in->ea};
        dc->seg[dc->sp] = ++dc->nseg;
        return CVM_OK;
    case CVM_OP_ELSE:
        if (!top || top->kind != CVM_VM_F_IF || top->marker != top->open)
            return bad(dc, pc, "else outside an if");
        break;
    case CVM_OP_CONTINUING:
        if (!top || top->kind != CVM_VM_F_LOOP || top->marker != top->open)
            return bad(dc, pc, "continuing outside a loop");
        break;
    case CVM_OP_CASE: case CVM_OP_DEFAULT:
        if (!top || top->kind != CVM_VM_F_SWITCH)
            return bad(dc, pc, "case outside a switch");
        break;
    case CVM_OP_END:
        if (!top)
            return bad(dc, pc, "end without a construct");
        code[top->marker].target = pc;
        for (uint32_t m = top->open; m != pc; m = code[m].target)
            code[m].end = pc;
        in->aux = dc->sp - 1;
        in->target = top->open;
        in->end = pc;
        dc->sp--;
        return CVM_OK;
    case CVM_OP_BREAK:
        if ((idx = innermost(dc, 1u << CVM_VM_F_LOOP | 1u << CVM_VM_F_SWITCH, 0)) < 0)
            return bad(dc, pc, "break outside a loop or switch");
        in->aux = (uint32_t)idx;
        return CVM_OK;
    case CVM_OP_CONTINUE: case CVM_OP_BREAK_IF:
        if ((idx = innermost(dc, 1u << CVM_VM_F_LOOP, 0)) < 0)
            return bad(dc, pc, "continue or break_if outside a loop");
        in->aux = (uint32_t)idx;
        return CVM_OK;
    case CVM_OP_FALLTHROUGH:
        if ((idx = innermost(dc, 1u << CVM_VM_F_SWITCH, 0)) < 0)
            return bad(dc, pc, "fallthrough outside a switch");
        in->aux = (uint32_t)idx;
        return CVM_OK;
    case CVM_OP_EXIT:
        if (bi->nops < 1 || (idx = innermost(dc, 1u << CVM_VM_F_BLOCK, bi->ops[0])) < 0)
            return bad(dc, pc, "exit names no enclosing block");
        in->aux = (uint32_t)idx;
        return CVM_OK;
    default:
        return CVM_OK;
    }
    /* else, continuing, case, default: a marker in the chain of its construct */
    code[top->marker].target = pc;
    top->marker = pc;
    dc->seg[dc->sp] = ++dc->nseg;
    in->aux = dc->sp - 1;
    if (bi->op == CVM_OP_CASE) {
        in->ptr = dc->kp->cases + dc->ncase_used;
        in->n = bi->nops;
        for (unsigned i = 0; i < bi->nops; i++)
            dc->kp->cases[dc->ncase_used++] = case_bits(bi->ops[i], top->selector);
    }
    return CVM_OK;
}

/* Register r may differ between the lanes of a plane (or the module has
 * no verifier facts to say it does not). */
static bool varying(const decoder *dc, uint32_t r)
{
    return !dc->reg_uni || dc->reg_uni[r] >= CVM_UNI_VARYING;
}

static cvm_status reg_operand(decoder *dc, uint32_t pc, uint32_t r, uint32_t *out_slot,
                              uint8_t *out_elem, uint8_t *out_line)
{
    if (r >= dc->k->nregs)
        return bad(dc, pc, "register out of range");
    *out_slot = dc->slot[r];
    if (dc->first_use[r] == REG_UNSEEN || dc->cross_lane ||
        (dc->first_use[r] == REG_WRITTEN_FIRST &&
         (dc->sp < dc->wdepth[r] || dc->seg[dc->wdepth[r]] != dc->wseg[r])))
        dc->first_use[r] = REG_READ_FIRST;
    if (varying(dc, r))
        dc->varying_src = true;
    if (out_elem)
        *out_elem = dc->k->regs[r].elem;
    if (out_line)
        *out_line = dc->k->regs[r].line;
    return CVM_OK;
}

/* Source register v of the instruction being decoded: false when it may
 * differ between the planes of a cube (or there are no verifier facts),
 * which the instruction's CVM_VM_UNI_CUBE and _STEP bits then record. */
static bool cube_source(decoder *dc, uint32_t v)
{
    if (dc->reg_uni && v < dc->k->nregs && dc->reg_uni[v] <= CVM_UNI_CUBE)
        return true;
    dc->cube_varying_src = true;
    if (v != dc->dest)
        dc->cube_varying_other = true;
    return false;
}

/* Operands by the op's format string. */
static cvm_status decode_operands(decoder *dc, uint32_t pc, const cvm_bc_insn *bi,
                                  const char *fmt, cvm_vm_dinsn *in)
{
    const cvm_bc_module *mod = dc->prog->mod;
    unsigned nr = 0, w = 0;
    cvm_status st;
    for (const char *f = fmt; *f; f++) {
        bool rep = f[1] == '*';
        unsigned count = rep ? bi->nops - w : 1;
        if (w + count > bi->nops || (*f == 'k' && w + 2 > bi->nops))
            return bad(dc, pc, "too few operands");
        if (rep && *f == 'r') {
            in->ptr = dc->kp->args + dc->narg_used;
            in->n = count;
            for (unsigned i = 0; i < count; i++, w++) {
                cvm_vm_arg *arg = &dc->kp->args[dc->narg_used++];
                if ((st = reg_operand(dc, pc, bi->ops[w], &arg->slot, &arg->elem, NULL)))
                    return st;
                cube_source(dc, bi->ops[w]);
            }
            break;
        }
        if (rep) /* i* (case values): handled by decode_control */
            break;
        uint32_t v = bi->ops[w++];
        switch (*f) {
        case 'd': {
            bool vs = dc->varying_src; /* the destination is not a source */
            uint8_t use = v < dc->k->nregs ? dc->first_use[v] : REG_UNSEEN;
            if ((st = reg_operand(dc, pc, v, &in->d, &in->ed, NULL)))
                return st;
            dc->first_use[v] = use; /* decided after the sources (decode_insn) */
            dc->dest = v;
            dc->varying_src = vs;
            break;
        }
        case 'r': {
            uint32_t *slots[3] = {&in->a, &in->b, &in->c};
            uint8_t *elems[3] = {&in->ea, &in->eb, &in->ec};
            if (nr >= 3)
                return bad(dc, pc, "too many register operands");
            uint8_t *lines[3] = {&in->la, NULL, &in->lc};
            if ((st = reg_operand(dc, pc, v, slots[nr], elems[nr], lines[nr])))
                return st;
            if (nr < 2 && !varying(dc, v))
                dc->src_uni |= (uint8_t)(nr ? CVM_VM_UNI_B : CVM_VM_UNI_A);
            if (cube_source(dc, v) && nr < 2)
                dc->src_uni |= (uint8_t)(nr ? CVM_VM_UNI_CUBE_B : CVM_VM_UNI_CUBE_A);
            nr++;
            break;
        }
        case 'k':
            in->imm = v | (uint64_t)bi->ops[w++] << 32;
            break;
        case 'i':
            if (bi->op == CVM_OP_PARAM)
                in->imm = v;
            else
                in->aux = v;
            break;
        case 's':
            if (v >= mod->nstrings)
                return bad(dc, pc, "string index out of range");
            if (bi->op == CVM_OP_PRINT) { /* ptr holds the argument list */
                in->imm = v;
            } else {
                in->ptr = mod->strings[v].data;
                in->n = mod->strings[v].len;
            }
            break;
        case 'p':
            if (v >= dc->k->nparams)
                return bad(dc, pc, "parameter index out of range");
            in->aux = v;
            break;
        case 'g':
            if (v >= mod->nsymbols)
                return bad(dc, pc, "symbol index out of range");
            in->aux = v;
            break;
        case 'x':
            if (v >= CVM_SREG_COUNT)
                return bad(dc, pc, "special register out of range");
            in->aux = v;
            break;
        case 'l':
            break; /* exit depth: decode_control */
        default:
            return bad(dc, pc, "unknown operand format");
        }
    }
    return CVM_OK;
}

static cvm_status decode_insn(decoder *dc, uint32_t pc, uint32_t word)
{
    cvm_bc_insn bi;
    cvm_vm_dinsn *in = &dc->kp->code[pc];
    if (!cvm_bc_insn_at(dc->k, word, &bi))
        return bad(dc, pc, "truncated instruction");
    const cvm_bc_opinfo *oi = cvm_bc_op_info(bi.op);
    if (!oi)
        return bad(dc, pc, "unknown opcode");
    if (!handled[bi.op])
        return cvm_diag_set(dc->diag, CVM_UNSUPPORTED,
                            "kernel '%s' pc %u: op '%s' is not supported by the CPU interpreter",
                            cvm_bc_str(dc->prog->mod, dc->k->name), pc, oi->mnemonic);
    *in = (cvm_vm_dinsn){0};
    in->h = bi.op;
    in->elem = bi.elem;
    in->line = bi.line ? bi.line : 1;
    in->order = bi.order;
    in->scope = bi.scope;
    in->align_log2 = bi.align_log2;
    if (in->elem >= CVM_T_COUNT || in->line > 16 || in->align_log2 > 12)
        return bad(dc, pc, "bad instruction type");
    dc->varying_src = false;
    dc->cube_varying_src = false;
    dc->cube_varying_other = false;
    dc->src_uni = 0;
    dc->dest = UINT32_MAX;
    dc->cross_lane = (oi->flags & CVM_OPF_PLANE) != 0;
    const uint32_t depth = dc->sp;
    cvm_status st = decode_operands(dc, pc, &bi, oi->format, in);
    /* first written here: every later read in this segment is covered */
    if (st == CVM_OK && dc->dest != UINT32_MAX && dc->first_use[dc->dest] == REG_UNSEEN) {
        dc->first_use[dc->dest] = REG_WRITTEN_FIRST;
        dc->wdepth[dc->dest] = (uint8_t)depth;
        dc->wseg[dc->dest] = dc->seg[depth];
    }
    if (st == CVM_OK && (oi->flags & CVM_OPF_CTRL))
        st = decode_control(dc, pc, &bi, in);
    /* element indexes the handlers use without further checks */
    if (st == CVM_OK && ((bi.op == CVM_OP_EXTRACT && in->aux >= in->la) ||
                         (bi.op == CVM_OP_INSERT && in->aux >= in->line) ||
                         (bi.op == CVM_OP_BUILD && in->n != in->line)))
        st = bad(dc, pc, "line element out of range");
    in->esz = (uint8_t)cvm_bc_elem_size(in->elem);
    if (bi.op == CVM_OP_CVT)
        in->k = cvt_kind(in->elem, in->ea);
    in->uni = dc->src_uni;
    /* the class of what the op itself reads beyond registers: a special
     * register's own */
    const unsigned own = bi.op == CVM_OP_SREG ? cvm_bc_sreg_uniformity(in->aux) : CVM_UNI_GRID;
    const bool pure = dc->reg_uni && cvm_vm_uniform_candidate(bi.op);
    if (pure && !dc->varying_src && own != CVM_UNI_VARYING)
        in->uni |= CVM_VM_UNI_PLANE;
    if (pure && in->line == 1 && own <= CVM_UNI_CUBE) {
        if (!dc->cube_varying_src)
            in->uni |= CVM_VM_UNI_CUBE;
        if (!dc->cube_varying_other)
            in->uni |= CVM_VM_UNI_STEP;
    }
    return st;
}

/* Counts instructions, case values and list operands; fills word offsets. */
static cvm_status scan_kernel(decoder *dc, uint32_t *words, uint32_t *out_n, uint32_t *out_cases,
                              uint32_t *out_args)
{
    uint32_t n = 0, ncases = 0, nargs = 0;
    for (uint32_t w = 0; w < dc->k->ncode; n++) {
        cvm_bc_insn bi;
        if (n >= CVM_BC_MAX_INSNS || !cvm_bc_insn_at(dc->k, w, &bi))
            return bad(dc, n, "truncated instruction");
        if (words)
            words[n] = w;
        if (bi.op == CVM_OP_CASE)
            ncases += bi.nops;
        if (bi.op == CVM_OP_BUILD || bi.op == CVM_OP_PRINT)
            nargs += bi.nops;
        w += 2u + bi.nops;
    }
    *out_n = n;
    *out_cases = ncases;
    *out_args = nargs;
    return CVM_OK;
}

static void free_kprog(const cvm_vm_program *prog, cvm_vm_kprog *kp)
{
    cvm_jit_release(kp);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->code, sizeof *kp->code * (kp->ninsns + 1u));
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->fast, sizeof *kp->fast * (kp->ninsns + 1u));
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->preset, sizeof *kp->preset * (kp->ninsns + 1u));
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->cases, sizeof *kp->cases * kp->ncases);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->args, sizeof *kp->args * kp->nargs);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->zero, sizeof *kp->zero * kp->zero_cap);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->fast_exact, sizeof *kp->code * (kp->ninsns + 1u));
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->fast_args, sizeof *kp->args * kp->nargs);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->fast_zero, sizeof *kp->zero * kp->zero_cap);
}

/* The slot ranges of registers that may be read before they are written
 * (REG_READ_FIRST), merged where they touch. */
static void zero_ranges(decoder *dc)
{
    cvm_vm_kprog *kp = dc->kp;
    kp->nzero = 0;
    kp->zero_all = dc->prog->ver == NULL; /* no verifier: lines may overrun, zero it all */
    for (uint32_t r = 0; r < dc->k->nregs; r++) {
        if (dc->first_use[r] != REG_READ_FIRST)
            continue;
        uint32_t first = dc->slot[r], count = dc->k->regs[r].line ? dc->k->regs[r].line : 1;
        if (kp->nzero && kp->zero[2 * kp->nzero - 2] + kp->zero[2 * kp->nzero - 1] == first) {
            kp->zero[2 * kp->nzero - 1] += count;
            continue;
        }
        kp->zero[2 * kp->nzero] = first;
        kp->zero[2 * kp->nzero + 1] = count;
        kp->nzero++;
    }
}


/* ---- register slot allocation ---- */

/*
 * The CUDA frontend gives every subexpression its own register, so a
 * kernel's register file is mostly short-lived temporaries, and a cube's
 * file (slots x planes x 256 bytes) outgrows the first-level cache where
 * the live values alone would fit (docs/performance.md "Register
 * footprint and cube size"). Here registers that live within one
 * straight run of lane ops share slots in the fused code (`fast`), by a
 * linear scan over their live intervals in pc order. `code` keeps a slot
 * per register: a step budget runs it, and it is test_differ's reference.
 *
 * A register takes part ("pooled") when it is one slot wide, neither
 * zeroed before a cube nor preset per launch nor a switch's selector
 * (each case reads it again), first written (not read) at the first pc
 * that names it, and no control instruction lies between that pc and the
 * last one naming it (the last may be an if or break_if reading it). Such
 * a register's value never crosses a branch, a loop's back edge or a
 * lane's change of mask: each value is written and read in one straight
 * run that all its lanes execute together, so any
 * other register whose interval is disjoint may use the slot before and
 * after. Every other register keeps a slot of its own.
 *
 * The fused code reads and writes at other pcs than the exact code: a
 * chain's handler at its first pc reads what the chain's instructions
 * read and writes what they write; an INDEX whose access computes the
 * address reads the chain's sources at the access; a DIVREM writes the
 * second result up to four pcs early. So each register an instruction of
 * such a span names has its interval stretched over the whole span
 * (conflict only: whether it is pooled is decided by the exact code).
 * Intervals are closed, so two registers an instruction names never
 * share a slot, and every fact fuse() proved about distinct slots holds
 * after the renaming.
 */
typedef struct slot_span {
    uint32_t first, last; /* pcs; first == UINT32_MAX: never named */
    uint32_t width;       /* slots of the register starting here; 0: not a first slot */
    bool own;             /* keeps a slot of its own */
} slot_span;

/* The register slots instruction `in` names (first slots), by its
 * handler; returns how many, writes first (*nw of them) then reads. */
static unsigned named_slots(const cvm_vm_dinsn *in, uint32_t *out, unsigned *nw)
{
    unsigned n = 0;
    *nw = 0;
    switch (in->h) {
    case CVM_VM_H_INDEX: case CVM_VM_H_ARITH64:
        out[n++] = in->d, *nw = 1;
        out[n++] = in->a, out[n++] = in->b;
        return n;
    case CVM_VM_H_DIVREM:
        out[n++] = in->d, out[n++] = in->c, *nw = 2;
        out[n++] = in->a, out[n++] = in->b;
        return n;
    case CVM_VM_H_MULADD:
        out[n++] = in->d, *nw = 1;
        out[n++] = in->a, out[n++] = in->b, out[n++] = in->c;
        return n;
    case CVM_VM_H_CMPBR: case CVM_VM_H_FINISH:
        return 0; /* CMPBR's compares are named at their own pcs */
    default: break;
    }
    const cvm_vm_reg_uses u = cvm_vm_uses_of(in);
    if (u.dest)
        out[n++] = in->d, *nw = 1;
    const uint32_t src[3] = {in->a, in->b, in->c};
    for (unsigned i = 0; i < u.nsrc; i++)
        out[n++] = src[i];
    return n;
}

/* Renames the slots in the fields named_slots reads, and points an
 * operand list into `args` at the same list of `renamed_args`. */
static void rename_slots(cvm_vm_dinsn *in, const uint32_t *map, const cvm_vm_arg *args,
                         const cvm_vm_arg *renamed_args)
{
    switch (in->h) {
    case CVM_VM_H_DIVREM: case CVM_VM_H_MULADD: in->c = map[in->c]; /* fall through */
    case CVM_VM_H_INDEX: case CVM_VM_H_ARITH64:
        in->d = map[in->d], in->a = map[in->a], in->b = map[in->b];
        return;
    case CVM_VM_H_CMPBR: case CVM_VM_H_FINISH: case CVM_OP_NOP:
        return;
    default: break;
    }
    const cvm_vm_reg_uses u = cvm_vm_uses_of(in);
    uint32_t *src[3] = {&in->a, &in->b, &in->c};
    if (u.dest)
        in->d = map[in->d];
    for (unsigned i = 0; i < u.nsrc; i++)
        *src[i] = map[*src[i]];
    if (u.list)
        in->ptr = renamed_args + ((const cvm_vm_arg *)in->ptr - args);
}

static void span_touch(slot_span *sp, uint32_t s, uint32_t lo, uint32_t hi)
{
    if (sp[s].first == UINT32_MAX || lo < sp[s].first)
        sp[s].first = lo;
    if (sp[s].last == UINT32_MAX || hi > sp[s].last)
        sp[s].last = hi;
}

/* The last pc of the span the fused instruction at pc covers (itself if
 * it is not fused). */
static uint32_t fused_span_end(const cvm_vm_kprog *kp, uint32_t pc)
{
    const cvm_vm_dinsn *f = &kp->fast[pc], *c = &kp->code[pc];
    switch (f->h) {
    case CVM_VM_H_INDEX: return f->end != UINT32_MAX ? f->end : f->target - 1;
    case CVM_VM_H_ARITH64: case CVM_VM_H_CMPBR: case CVM_VM_H_MULADD: return f->target - 1;
    case CVM_VM_H_DIVREM: return pc + 4 < kp->ninsns ? pc + 4 : kp->ninsns - 1;
    default: /* fuse_mov: the op writes the copy's destination */
        return f->h != CVM_OP_NOP && cvm_vm_uses_of(f).dest && f->d != c->d ? pc + 1 : pc;
    }
}

/* Gives `fast` (made a copy of `code` if nothing fused) the layout `map`
 * of nslots slots: kp->fast_exact, fast_args, fast_zero, fast_nslots. */
static cvm_status apply_layout(cvm_vm_program *prog, cvm_vm_kprog *kp, const uint32_t *map,
                               uint32_t nslots, cvm_diag *diag)
{
    const size_t code_size = sizeof *kp->code * ((size_t)kp->ninsns + 1);
    if (!kp->fast && (kp->fast = cvm_bc_alloc(prog->alloc, prog->alloc_user, code_size)))
        memcpy(kp->fast, kp->code, code_size);
    kp->fast_exact = cvm_bc_alloc(prog->alloc, prog->alloc_user, code_size);
    kp->fast_args = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->args * kp->nargs);
    kp->fast_zero = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->zero * kp->zero_cap);
    if (!kp->fast || !kp->fast_exact || (kp->nargs && !kp->fast_args) ||
        (kp->zero_cap && !kp->fast_zero))
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory decoding kernel '%s'",
                            cvm_bc_str(prog->mod, kp->k->name));
    memcpy(kp->fast_exact, kp->code, code_size);
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        rename_slots(&kp->fast_exact[pc], map, kp->args, kp->fast_args);
        rename_slots(&kp->fast[pc], map, kp->args, kp->fast_args);
    }
    for (uint32_t i = 0; i < kp->nargs; i++) {
        kp->fast_args[i] = kp->args[i];
        kp->fast_args[i].slot = map[kp->args[i].slot];
    }
    for (uint32_t i = 0; i < kp->nzero; i++) {
        kp->fast_zero[2 * i] = map[kp->zero[2 * i]];
        kp->fast_zero[2 * i + 1] = kp->zero[2 * i + 1];
    }
    kp->fast_nslots = nslots;
    return CVM_OK;
}

static cvm_status allocate_slots(cvm_vm_program *prog, cvm_vm_kprog *kp, const decoder *dc,
                                 cvm_diag *diag)
{
    const uint32_t ns = kp->nslots, n = kp->ninsns;
    /* one scratch block: the slots' spans; per slot the new slot, the next
     * pooled slot of a list and a pool slot's last pc; per pc the control
     * instructions before it and the list of pooled slots starting there */
    const size_t size = sizeof(slot_span) * ((size_t)ns + 1) +
                        sizeof(uint32_t) * (3 * ((size_t)ns + 1) + 2 * ((size_t)n + 1));
    slot_span *sp = cvm_bc_alloc(prog->alloc, prog->alloc_user, size);
    if (!sp)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory decoding kernel '%s'",
                            cvm_bc_str(prog->mod, kp->k->name));
    uint32_t *map = (uint32_t *)(sp + ns + 1), *next = map + ns + 1, *busy_until = next + ns + 1;
    uint32_t *ctl = busy_until + ns + 1, *head = ctl + n + 1;
    cvm_status st = CVM_OK;
    for (uint32_t s = 0; s < ns; s++)
        sp[s] = (slot_span){UINT32_MAX, UINT32_MAX, 0, false};
    for (uint32_t r = 0; r < dc->k->nregs; r++) {
        const uint32_t s = dc->slot[r], w = dc->k->regs[r].line ? dc->k->regs[r].line : 1;
        sp[s].width = w;
        sp[s].own = w != 1 || cvm_vm_zeroed(kp, s);
    }
    for (uint32_t j = 0; j < kp->npreset; j++)
        sp[kp->code[kp->preset[j]].d].own = true;
    /* the exact code: first and last pcs, and who is read first */
    ctl[0] = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &kp->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t named[5];
        unsigned nw;
        const unsigned nn = named_slots(in, named, &nw);
        for (unsigned i = nw; i < nn; i++) {
            if (sp[named[i]].first == UINT32_MAX)
                sp[named[i]].own = true; /* read first */
            span_touch(sp, named[i], pc, pc);
        }
        if (cvm_vm_uses_of(in).list)
            for (uint32_t i = 0; i < in->n; i++) {
                const uint32_t s = ((const cvm_vm_arg *)in->ptr)[i].slot;
                if (sp[s].first == UINT32_MAX)
                    sp[s].own = true;
                span_touch(sp, s, pc, pc);
            }
        for (unsigned i = 0; i < nw; i++)
            span_touch(sp, named[i], pc, pc);
        if (in->h == CVM_OP_SWITCH) /* each case reads the selector again */
            sp[in->a].own = true;
        ctl[pc + 1] = ctl[pc] + (oi && (oi->flags & CVM_OPF_CTRL) ? 1u : 0u);
    }
    for (uint32_t s = 0; s < ns; s++)
        if (sp[s].width && sp[s].first != UINT32_MAX && ctl[sp[s].last] != ctl[sp[s].first + 1] &&
            sp[s].last > sp[s].first)
            sp[s].own = true; /* a control instruction in between */
    /* the fused code's spans */
    for (uint32_t pc = 0; kp->fast && pc < n; pc++) {
        const uint32_t hi = fused_span_end(kp, pc);
        if (hi == pc)
            continue;
        for (uint32_t q = pc; q <= hi; q++) {
            uint32_t named[5];
            unsigned nw;
            const unsigned nn = named_slots(&kp->code[q], named, &nw);
            for (unsigned i = 0; i < nn; i++)
                span_touch(sp, named[i], pc, hi);
        }
        uint32_t named[5];
        unsigned nw;
        const unsigned nn = named_slots(&kp->fast[pc], named, &nw);
        for (unsigned i = 0; i < nn; i++)
            span_touch(sp, named[i], pc, hi);
    }
    /* own slots first, in their old order (zero ranges stay ranges) */
    uint32_t total = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (sp[s].width && sp[s].own)
            map[s] = total, total += sp[s].width;
    const uint32_t pool = total;
    for (uint32_t pc = 0; pc <= n; pc++)
        head[pc] = UINT32_MAX;
    for (uint32_t s = ns; s-- > 0;) {
        map[s] = sp[s].width && sp[s].own ? map[s] : 0;
        if (sp[s].width && !sp[s].own && sp[s].first != UINT32_MAX)
            next[s] = head[sp[s].first], head[sp[s].first] = s;
    }
    /* linear scan: a pool slot is free for an interval starting after its
     * last occupant's end; the lowest such slot is taken */
    uint32_t npool = 0;
    for (uint32_t pc = 0; pc < n; pc++)
        for (uint32_t s = head[pc]; s != UINT32_MAX; s = next[s]) {
            uint32_t j = 0;
            while (j < npool && busy_until[j] >= pc)
                j++;
            if (j == npool)
                npool++;
            busy_until[j] = sp[s].last;
            map[s] = pool + j;
        }
    if (pool + npool < ns)
        st = apply_layout(prog, kp, map, pool + npool, diag);
    cvm_bc_free(prog->alloc, prog->alloc_user, sp, size);
    return st;
}

static cvm_status decode_kernel(cvm_vm_program *prog, uint32_t ki, cvm_diag *diag)
{
    const cvm_bc_kernel *k = &prog->mod->kernels[ki];
    cvm_vm_kprog *kp = &prog->kernels[ki];
    decoder dc = {.prog = prog, .k = k, .kp = kp, .diag = diag,
                  .reg_uni = prog->ver ? prog->ver->kernels[ki].reg_uni : NULL};
    uint32_t *words = NULL, n = 0, ncases = 0, nargs = 0;
    size_t words_size = 0, slot_size = sizeof *dc.slot * ((size_t)k->nregs + 1);
    size_t stack_size = sizeof *dc.stack * CVM_BC_MAX_DEPTH, use_size = (size_t)k->nregs + 1;
    cvm_status st = scan_kernel(&dc, NULL, &n, &ncases, &nargs);
    if (st)
        return st;
    if (prog->ver && prog->ver->kernels[ki].ninsns != n)
        return bad(&dc, n, "instruction count differs from the verifier's");
    kp->k = k;
    kp->index = ki;
    kp->ninsns = n;
    kp->ncases = ncases;
    kp->nargs = nargs;
    kp->max_depth = CVM_BC_MAX_DEPTH;
    words_size = sizeof *words * ((size_t)n + 1);
    words = cvm_bc_alloc(prog->alloc, prog->alloc_user, words_size);
    dc.slot = cvm_bc_alloc(prog->alloc, prog->alloc_user, slot_size);
    dc.stack = cvm_bc_alloc(prog->alloc, prog->alloc_user, stack_size);
    kp->code = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->code * ((size_t)n + 1));
    kp->cases = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->cases * ncases);
    kp->args = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->args * nargs);
    kp->zero_cap = 2 * k->nregs;
    kp->zero = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *kp->zero * kp->zero_cap);
    dc.first_use = cvm_bc_alloc(prog->alloc, prog->alloc_user, use_size);
    dc.wdepth = cvm_bc_alloc(prog->alloc, prog->alloc_user, use_size);
    dc.wseg = cvm_bc_alloc(prog->alloc, prog->alloc_user, sizeof *dc.wseg * use_size);
    if (!words || !dc.slot || !dc.stack || !kp->code || !kp->cases || !kp->args || !kp->zero ||
        !dc.first_use || !dc.wdepth || !dc.wseg) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory decoding kernel '%s'",
                          cvm_bc_str(prog->mod, k->name));
        goto fail;
    }
    if ((st = scan_kernel(&dc, words, &n, &ncases, &nargs)))
        goto fail;
    memset(dc.first_use, REG_UNSEEN, use_size);
    uint64_t slots = 0;
    for (uint32_t r = 0; r < k->nregs; r++) {
        dc.slot[r] = (uint32_t)slots;
        unsigned line = k->regs[r].line ? k->regs[r].line : 1;
        if (line > 16 || k->regs[r].elem == CVM_T_NONE || k->regs[r].elem >= CVM_T_COUNT) {
            st = bad(&dc, 0, "bad register type");
            goto fail;
        }
        slots += line;
    }
    if (slots > (uint64_t)CVM_BC_MAX_REGS * 16u) {
        st = bad(&dc, 0, "too many registers");
        goto fail;
    }
    kp->nslots = (uint32_t)slots;
    for (uint32_t pc = 0; pc < n; pc++)
        if ((st = decode_insn(&dc, pc, words[pc])))
            goto fail;
    if (dc.sp != 0) {
        st = bad(&dc, n, "construct not closed by end");
        goto fail;
    }
    kp->code[n].h = CVM_VM_H_FINISH;
    zero_ranges(&dc);
    kp->max_depth = 1;
    kp->lockstep = true;
    for (uint32_t pc = 0; pc < n; pc++) {
        if (kp->code[pc].h == CVM_OP_END && kp->code[pc].aux + 1 > kp->max_depth)
            kp->max_depth = kp->code[pc].aux + 1;
        /* print lines would interleave between planes differently */
        kp->lockstep &= kp->code[pc].h != CVM_OP_PRINT;
        kp->reads_dyn_shared |= kp->code[pc].h == CVM_OP_SREG && (kp->code[pc].aux == CVM_SREG_DYN_SHARED_BASE ||
                                                                  kp->code[pc].aux == CVM_SREG_DYN_SHARED_SIZE);
    }
    if (prog->ver) /* chains are proven from verified code only */
        st = cvm_vm_fuse(prog, kp, diag);
    if (prog->ver && st == CVM_OK)
        st = allocate_slots(prog, kp, &dc, diag);
fail:
    cvm_bc_free(prog->alloc, prog->alloc_user, words, words_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.slot, slot_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.stack, stack_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.first_use, use_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.wdepth, use_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.wseg, sizeof *dc.wseg * use_size);
    return st;
}

cvm_status cvm_vm_program_build(const cvm_bc_module *mod, const cvm_bc_verified *ver,
                                cvm_alloc_fn fn, void *user, cvm_vm_program **out_prog,
                                cvm_diag *diag)
{
    cvm_status st;
    if (!mod || !out_prog)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_vm_program_build: no module");
    *out_prog = NULL;
    if (!fn)
        fn = cvm_default_alloc;
    cvm_vm_program *prog = cvm_bc_alloc(fn, user, sizeof *prog);
    if (!prog)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory building a program");
    prog->alloc = fn;
    prog->alloc_user = user;
    prog->mod = mod;
    prog->ver = ver;
    prog->nkernels = mod->nkernels;
    prog->kernels = cvm_bc_alloc(fn, user, sizeof *prog->kernels * mod->nkernels);
    if (!prog->kernels) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory building a program");
        goto fail;
    }
    for (uint32_t k = 0; k < mod->nkernels; k++)
        if ((st = decode_kernel(prog, k, diag)))
            goto fail;
    *out_prog = prog;
    return CVM_OK;
fail:
    cvm_vm_program_free(prog);
    return st;
}

void cvm_vm_program_free(cvm_vm_program *prog)
{
    if (!prog)
        return;
    if (prog->kernels) {
        for (uint32_t k = 0; k < prog->nkernels; k++)
            free_kprog(prog, &prog->kernels[k]);
        cvm_bc_free(prog->alloc, prog->alloc_user, prog->kernels,
                    sizeof *prog->kernels * prog->nkernels);
    }
    cvm_bc_free(prog->alloc, prog->alloc_user, prog, sizeof *prog);
}
