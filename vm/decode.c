/*
 * decode.c - cvm_vm_program_build: pre-decodes every kernel of a verified
 * module into cvm_vm_dinsn arrays for the dispatch loop (interp_run.c).
 *
 * Operands become register slot indexes; control instructions get their
 * targets and the construct-stack index of the construct they act on
 * (structured control flow makes every construct's stack position static),
 * case values are converted to the selector's width, strings resolved.
 * The verifier has already checked everything; the few checks here keep a
 * malformed input from crashing the interpreter all the same.
 */
#include "interp.h"

#include <string.h>

static const bool handled[CVM_OP_LIMIT] = {
#define X(name) [CVM_OP_##name] = true,
    CVM_VM_HANDLED(X)
#undef X
};

/*
 * Ops whose handler computes each lane from its register operands alone
 * (interp_run.c's LANES loops). When the divergence analysis classifies
 * every source register as non-varying, all active lanes would compute the
 * same value: the handler computes the lowest active lane only and
 * broadcasts it (the uniform register file of DESIGN.md "Tiers" item 1,
 * kept inside the lane-major file so every reader finds it in place).
 */
static bool uniform_candidate(unsigned op)
{
    return (op >= CVM_OP_ADD && op <= CVM_OP_CLAMP) || (op >= CVM_OP_SQRT && op <= CVM_OP_COPYSIGN) ||
           (op >= CVM_OP_EQ && op <= CVM_OP_ISFINITE) || (op >= CVM_OP_AND && op <= CVM_OP_BREV) ||
           op == CVM_OP_MOV || op == CVM_OP_CONST || op == CVM_OP_EXTRACT || op == CVM_OP_INSERT ||
           op == CVM_OP_BUILD || op == CVM_OP_SPLAT || op == CVM_OP_SREG || op == CVM_OP_PTR_ADD ||
           op == CVM_OP_PTR_DIFF || op == CVM_OP_CVT;
}

/* The typed lane loop interp_run.c uses for cvt from `from` to `to`; every
 * kind gives the bits interp_plane.c's exact per-lane conversion gives
 * (integer widening and narrowing, int32 to float rounds to nearest even
 * like the host's conversion, f32 to f64 is exact). */
static uint8_t cvt_kind(unsigned to, unsigned from)
{
    const unsigned ts = cvm_bc_elem_size(to), fs = cvm_bc_elem_size(from);
    if (cvm_bc_elem_is_int(to) && cvm_bc_elem_is_int(from)) {
        if (ts == fs)
            return ts == 4 ? CVM_VM_CVT_COPY4 : ts == 8 ? CVM_VM_CVT_COPY8 : CVM_VM_CVT_GENERIC;
        if (fs == 4 && ts == 8)
            return cvm_bc_elem_is_signed(from) ? CVM_VM_CVT_SEXT32 : CVM_VM_CVT_ZEXT32;
        if (fs == 8 && ts == 4)
            return CVM_VM_CVT_TRUNC64;
        return CVM_VM_CVT_GENERIC;
    }
    if (from == CVM_T_I32 && to == CVM_T_F32)
        return CVM_VM_CVT_I32_F32;
    if (from == CVM_T_I32 && to == CVM_T_F64)
        return CVM_VM_CVT_I32_F64;
    if (from == CVM_T_F32 && to == CVM_T_F64)
        return CVM_VM_CVT_F32_F64;
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
    uint8_t *first_use;     /* per register: REG_* (zero_ranges) */
    uint32_t dest;          /* destination register of the instruction, or UINT32_MAX */
    cvm_diag *diag;
} decoder;

/*
 * How a register first appears in program order (zero_ranges). Outside
 * every construct all live lanes are active and code runs in program
 * order, so a register first written there is written for every lane
 * before any lane reads it; any other register may be read before it is
 * written and starts every cube at zero, as all registers used to.
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
    in->aux = dc->sp - 1;
    if (bi->op == CVM_OP_CASE) {
        in->ptr = dc->kp->cases + dc->ncase_used;
        in->n = bi->nops;
        for (unsigned i = 0; i < bi->nops; i++)
            dc->kp->cases[dc->ncase_used++] = case_bits(bi->ops[i], top->selector);
    }
    return CVM_OK;
}

static cvm_status reg_operand(decoder *dc, uint32_t pc, uint32_t r, uint32_t *out_slot,
                              uint8_t *out_elem, uint8_t *out_line)
{
    if (r >= dc->k->nregs)
        return bad(dc, pc, "register out of range");
    *out_slot = dc->slot[r];
    if (dc->first_use[r] == REG_UNSEEN)
        dc->first_use[r] = REG_READ_FIRST;
    if (!dc->reg_uni || dc->reg_uni[r] >= CVM_UNI_VARYING)
        dc->varying_src = true;
    if (out_elem)
        *out_elem = dc->k->regs[r].elem;
    if (out_line)
        *out_line = dc->k->regs[r].line;
    return CVM_OK;
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
    in->h = bi.op;
    in->elem = bi.elem;
    in->line = bi.line ? bi.line : 1;
    in->order = bi.order;
    in->scope = bi.scope;
    in->align_log2 = bi.align_log2;
    if (in->elem >= CVM_T_COUNT || in->line > 16 || in->align_log2 > 12)
        return bad(dc, pc, "bad instruction type");
    dc->varying_src = false;
    dc->dest = UINT32_MAX;
    const uint32_t depth = dc->sp;
    cvm_status st = decode_operands(dc, pc, &bi, oi->format, in);
    /* first written outside every construct: all live lanes are active there */
    if (st == CVM_OK && dc->dest != UINT32_MAX && dc->first_use[dc->dest] == REG_UNSEEN)
        dc->first_use[dc->dest] = depth == 0 ? REG_WRITTEN_FIRST : REG_READ_FIRST;
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
    in->uni = dc->reg_uni && !dc->varying_src && uniform_candidate(bi.op) &&
              (bi.op != CVM_OP_SREG || cvm_bc_sreg_uniformity(in->aux) != CVM_UNI_VARYING);
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
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->code, sizeof *kp->code * (kp->ninsns + 1u));
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->cases, sizeof *kp->cases * kp->ncases);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->args, sizeof *kp->args * kp->nargs);
    cvm_bc_free(prog->alloc, prog->alloc_user, kp->zero, sizeof *kp->zero * kp->zero_cap);
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
    if (!words || !dc.slot || !dc.stack || !kp->code || !kp->cases || !kp->args || !kp->zero ||
        !dc.first_use) {
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
    for (uint32_t pc = 0; pc < n; pc++)
        if (kp->code[pc].h == CVM_OP_END && kp->code[pc].aux + 1 > kp->max_depth)
            kp->max_depth = kp->code[pc].aux + 1;
fail:
    cvm_bc_free(prog->alloc, prog->alloc_user, words, words_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.slot, slot_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.stack, stack_size);
    cvm_bc_free(prog->alloc, prog->alloc_user, dc.first_use, use_size);
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
