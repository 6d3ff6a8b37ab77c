/*
 * print.c - `print` on Vulkan. A unit that executes a print claims a record
 * of the print buffer with one atomic add and writes the site, its cube and
 * unit, its own print count and the arguments' bits there (layout in
 * spv.h, CVM_SPV_PRINT_*); claims past the capacity the host set all land
 * in one spare record, and the claim count tells the host how many lines
 * were lost. The vulkan device formats the records after the launch
 * (backends/vulkan/vk_print.c), as the cpu device formats its lines.
 * `trap` and `assert` write fault records to the same buffer (ctl.c makes
 * the unit return after one), which the device reports as a kernel fault.
 */
#include "spv_int.h"

#include <string.h>

/* False when the format has a %s conversion (a string in memory the host cannot read). */
static bool format_ok(const char *fmt, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fmt[i] != '%')
            continue;
        size_t j = i + 1;
        while (j < n && strchr("-+ #0123456789.", fmt[j]))
            j++;
        while (j < n && strchr("hlLqjzt", fmt[j]))
            j++;
        if (j < n && fmt[j] == 's')
            return false;
        i = j;
    }
    return true;
}

static uint8_t site_kind(unsigned op)
{
    return op == CVM_OP_TRAP ? CVM_SPV_SITE_TRAP : op == CVM_OP_ASSERT ? CVM_SPV_SITE_ASSERT
                                                                        : CVM_SPV_SITE_PRINT;
}

/* One site per print, trap or assert instruction, in pc order; false after failing. */
static bool add_site(spv_ctx *c, uint32_t pc, const cvm_bc_insn *in, cvm_spv_print *site)
{
    if (in->op == CVM_OP_LOOP) { /* the driver's loop limit (cvm_spv_target.loop_limit) */
        memset(site, 0, sizeof *site);
        site->pc = pc;
        site->string = UINT32_MAX;
        site->kind = CVM_SPV_SITE_LOOP;
        if (!cvm_bc_debug_line(c->mod, c->kidx, pc, &site->file, &site->line, NULL)) {
            site->file = "";
            site->line = 0;
        }
        return true;
    }
    uint8_t kind = site_kind(in->op);
    uint32_t si = in->op == CVM_OP_ASSERT ? in->ops[1] : in->ops[0];
    const cvm_bc_string *str = si < c->mod->nstrings ? &c->mod->strings[si] : NULL;
    c->pc = pc; /* for the diagnostic's location */
    if (!str || (kind == CVM_SPV_SITE_PRINT && in->nops - 1 > CVM_SPV_PRINT_ARGS)) {
        spv_fail(c, CVM_UNSUPPORTED, "print with %u arguments: Vulkan's print records hold %u",
                 in->nops - 1, CVM_SPV_PRINT_ARGS);
        return false;
    }
    if (kind == CVM_SPV_SITE_PRINT && !format_ok(str->data, str->len)) {
        spv_fail(c, CVM_UNSUPPORTED, "print with a %%s conversion: the string lies in device "
                 "memory, which Vulkan's print records do not copy");
        return false;
    }
    memset(site, 0, sizeof *site);
    site->pc = pc;
    site->string = si;
    site->kind = kind;
    site->file = "";
    if (!cvm_bc_debug_line(c->mod, c->kidx, pc, &site->file, &site->line, NULL)) {
        site->file = "";
        site->line = 0;
    }
    if (kind != CVM_SPV_SITE_PRINT)
        return true;
    site->nargs = in->nops - 1;
    for (uint32_t i = 0; i < site->nargs; i++)
        site->elems[i] = (uint8_t)c->k->regs[in->ops[1 + i]].elem;
    return true;
}

static bool has_site(const spv_ctx *c, const cvm_bc_insn *in)
{
    return (in->op == CVM_OP_PRINT && in->nops) || (in->op == CVM_OP_TRAP && in->nops) ||
           (in->op == CVM_OP_ASSERT && in->nops > 1) || (in->op == CVM_OP_LOOP && c->t->loop_limit);
}

void spv_print_setup(spv_ctx *c)
{
    cvm_spv_layout *L = c->layout;
    uint32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t pc = 0; pc < c->vk->ninsns; pc++) {
            cvm_bc_insn in;
            if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in) || !has_site(c, &in))
                continue;
            if (pass && !add_site(c, pc, &in, &L->prints[L->nprints++]))
                return;
            c->pc = 0;
            n += !pass;
        }
        if (!n)
            return;
        if (!pass && !(L->prints = cvm_bc_alloc(c->mod->alloc, c->mod->alloc_user, n * sizeof *L->prints))) {
            spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
            return;
        }
    }
    uint32_t u = spv_t_int(c, 32), arr = spv_id(c), s = spv_id(c);
    SPV_EM(c, &c->types, SpvOpTypeRuntimeArray, arr, u);
    SPV_EM(c, &c->annot, SpvOpDecorate, arr, SpvDecorationArrayStride, 4);
    SPV_EM(c, &c->types, SpvOpTypeStruct, s, arr);
    SPV_EM(c, &c->annot, SpvOpDecorate, s, SpvDecorationBlock);
    SPV_EM(c, &c->annot, SpvOpMemberDecorate, s, 0, SpvDecorationOffset, 0);
    L->print_binding = L->nbindings++;
    uint32_t var = spv_global(c, SpvStorageClassStorageBuffer, s, "print_records");
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationDescriptorSet, 0);
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationBinding, L->print_binding);
    c->printv.var = var;
    c->printv.ptr_word = spv_t_ptr(c, SpvStorageClassStorageBuffer, u);
    c->print_seq = spv_id(c); /* starts at 0: an initializer, no prologue store */
    SPV_EM(c, &c->fvars, SpvOpVariable, spv_t_ptr(c, SpvStorageClassFunction, u), c->print_seq,
           SpvStorageClassFunction, spv_c_u32(c, 0));
    spv_emit_str(c, &c->names, SpvOpName, c->print_seq, "print_count");
    if (c->t->loop_limit) {
        L->loop_limit = c->t->loop_limit;
        c->loop_count = spv_id(c);
        SPV_EM(c, &c->fvars, SpvOpVariable, spv_t_ptr(c, SpvStorageClassFunction, u), c->loop_count,
               SpvStorageClassFunction, spv_c_u32(c, 0));
        spv_emit_str(c, &c->names, SpvOpName, c->loop_count, "loop_back_edges");
    }
}

/*
 * At a loop's back edge under the target's loop_limit: the unit's back
 * edges (of all its loops) counted, and when the count reaches the limit,
 * where the driver ends the loop whatever its condition says, a fault
 * record at the loop's site (words as spv_fault_record's); the unit goes
 * on. Per unit: lanes the driver runs together count together there, so
 * a lane whose own count stays below the limit while its neighbours' runs
 * past it is not caught (docs/backends.md).
 */
void spv_loop_guard(spv_ctx *c, uint32_t loop_pc)
{
    if (!c->t->loop_limit || !c->loop_count)
        return;
    uint32_t u = spv_t_int(c, 32), n = spv_op2(c, SpvOpIAdd, u, spv_load(c, u, c->loop_count), spv_c_u32(c, 1));
    spv_store(c, c->loop_count, n);
    uint32_t hit = spv_op2(c, SpvOpIEqual, spv_t_bool(c), n, spv_c_u32(c, c->t->loop_limit));
    uint32_t then = spv_id(c), merge = spv_id(c);
    SPV_EM(c, &c->body, SpvOpSelectionMerge, merge, SpvSelectionControlMaskNone);
    SPV_EM(c, &c->body, SpvOpBranchConditional, hit, then, merge);
    spv_label(c, then);
    const uint32_t pc = c->pc;
    c->pc = loop_pc; /* the loop's site */
    spv_fault_record(c);
    c->pc = pc;
    spv_branch(c, merge);
    spv_label(c, merge);
}

static uint32_t word(spv_ctx *c, uint32_t idx)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAccessChain, c->printv.ptr_word, id, c->printv.var, spv_c_u32(c, 0), idx);
    return id;
}

static void put(spv_ctx *c, uint32_t base, uint32_t at, uint32_t v)
{
    uint32_t u = spv_t_int(c, 32);
    SPV_EM(c, &c->body, SpvOpStore, word(c, spv_op2(c, SpvOpIAdd, u, base, spv_c_u32(c, at))), v);
}

/* The bits of register r as (low, high) words, narrower values zero-extended. */
static void arg_words(spv_ctx *c, uint32_t r, uint32_t *lo, uint32_t *hi)
{
    uint32_t u = spv_t_int(c, 32), v = spv_get(c, r);
    unsigned e = c->k->regs[r].elem, size = cvm_bc_elem_size(e);
    *hi = spv_c_u32(c, 0);
    if (e == CVM_T_BOOL) {
        *lo = spv_op3(c, SpvOpSelect, u, v, spv_c_u32(c, 1), spv_c_u32(c, 0));
    } else if (spv_reg_type(c, r) == spv_t_int(c, 32) || e == CVM_T_F32) {
        *lo = e == CVM_T_F32 ? spv_op1(c, SpvOpBitcast, u, v) : v; /* 32-bit values, 32-bit pointers */
    } else if (size == 8) {
        uint32_t pair = spv_op1(c, SpvOpBitcast, spv_t_vec(c, u, 2), v);
        *lo = spv_op2(c, SpvOpCompositeExtract, u, pair, 0);
        *hi = spv_op2(c, SpvOpCompositeExtract, u, pair, 1);
    } else { /* 8 and 16 bits */
        uint32_t n = cvm_bc_elem_is_float(e) ? spv_op1(c, SpvOpBitcast, spv_t_int(c, size * 8), v) : v;
        *lo = spv_op1(c, SpvOpUConvert, u, n);
    }
}

/* Claims a record (word 0) and returns its first word; *site: the site of this pc. */
static uint32_t claim(spv_ctx *c, uint32_t *site)
{
    const cvm_spv_layout *L = c->layout;
    *site = 0;
    while (*site < L->nprints && L->prints[*site].pc != c->pc)
        (*site)++;
    if (*site == L->nprints) {
        spv_fail(c, CVM_INTERNAL, "a print, trap or assert instruction without its record site");
        return 0;
    }
    uint32_t u = spv_t_int(c, 32), n = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicIAdd, u, n, word(c, spv_c_u32(c, 0)), spv_c_u32(c, SpvScopeDevice),
           spv_c_u32(c, 0), spv_c_u32(c, 1));
    uint32_t cap = spv_load(c, u, word(c, spv_c_u32(c, 1)));
    uint32_t rec = spv_ext2(c, GLSLstd450UMin, u, n, cap);
    return spv_op2(c, SpvOpIAdd, u, spv_c_u32(c, CVM_SPV_PRINT_HEAD),
                   spv_op2(c, SpvOpIMul, u, rec, spv_c_u32(c, CVM_SPV_PRINT_WORDS)));
}

/*
 * The fault record of a trap or failing assert: site, linear cube and unit,
 * then the positions the cpu device reports; word 2 counts faults.
 */
void spv_fault_record(spv_ctx *c)
{
    uint32_t site, u = spv_t_int(c, 32), base = claim(c, &site);
    if (c->st != CVM_OK)
        return;
    static const unsigned pos[8] = {CVM_SREG_CUBE_POS_X, CVM_SREG_CUBE_POS_Y, CVM_SREG_CUBE_POS_Z,
                                    CVM_SREG_UNIT_POS_X, CVM_SREG_UNIT_POS_Y, CVM_SREG_UNIT_POS_Z,
                                    CVM_SREG_PLANE_POS, CVM_SREG_UNIT_POS_PLANE};
    put(c, base, 0, spv_c_u32(c, site));
    put(c, base, 1, spv_sreg(c, CVM_SREG_CUBE_POS, CVM_T_U32));
    put(c, base, 2, spv_sreg(c, CVM_SREG_UNIT_POS, CVM_T_U32));
    put(c, base, 3, spv_c_u32(c, 0));
    for (uint32_t i = 0; i < 8; i++)
        put(c, base, 4 + i, spv_sreg(c, pos[i], CVM_T_U32));
    uint32_t n = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicIAdd, u, n, word(c, spv_c_u32(c, 2)), spv_c_u32(c, SpvScopeDevice),
           spv_c_u32(c, 0), spv_c_u32(c, 1));
}

bool spv_op_print(spv_ctx *c, const cvm_bc_insn *in)
{
    if (in->op != CVM_OP_PRINT)
        return false;
    uint32_t site, u = spv_t_int(c, 32), base = claim(c, &site);
    if (c->st != CVM_OK)
        return true;
    uint32_t seq = spv_load(c, u, c->print_seq);
    put(c, base, 0, spv_c_u32(c, site));
    put(c, base, 1, spv_sreg(c, CVM_SREG_CUBE_POS, CVM_T_U32));
    put(c, base, 2, spv_sreg(c, CVM_SREG_UNIT_POS, CVM_T_U32));
    put(c, base, 3, seq);
    spv_store(c, c->print_seq, spv_op2(c, SpvOpIAdd, u, seq, spv_c_u32(c, 1)));
    for (uint32_t i = 0; i + 1 < in->nops && i < CVM_SPV_PRINT_ARGS; i++) {
        uint32_t lo, hi;
        arg_words(c, in->ops[1 + i], &lo, &hi);
        put(c, base, 4 + 2 * i, lo);
        put(c, base, 5 + 2 * i, hi);
    }
    return true;
}
