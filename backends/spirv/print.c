/*
 * print.c - `print` on Vulkan. A unit that executes a print claims a record
 * of the print buffer with one atomic add and writes the site, its cube and
 * unit, its own print count and the arguments' bits there (layout in
 * spv.h, CVM_SPV_PRINT_*); claims past the capacity the host set all land
 * in one spare record, and the claim count tells the host how many lines
 * were lost. The vulkan device formats the records after the launch
 * (backends/vulkan/vk_print.c), as the cpu device formats its lines.
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

/* One site per print instruction, in pc order; false after failing. */
static bool add_site(spv_ctx *c, uint32_t pc, const cvm_bc_insn *in, cvm_spv_print *site)
{
    const cvm_bc_string *str = in->ops[0] < c->mod->nstrings ? &c->mod->strings[in->ops[0]] : NULL;
    c->pc = pc; /* for the diagnostic's location */
    if (!str || in->nops - 1 > CVM_SPV_PRINT_ARGS) {
        spv_fail(c, CVM_UNSUPPORTED, "print with %u arguments: Vulkan's print records hold %u",
                 in->nops - 1, CVM_SPV_PRINT_ARGS);
        return false;
    }
    if (!format_ok(str->data, str->len)) {
        spv_fail(c, CVM_UNSUPPORTED, "print with a %%s conversion: the string lies in device "
                 "memory, which Vulkan's print records do not copy");
        return false;
    }
    memset(site, 0, sizeof *site);
    site->pc = pc;
    site->string = in->ops[0];
    site->nargs = in->nops - 1;
    for (uint32_t i = 0; i < site->nargs; i++)
        site->elems[i] = (uint8_t)c->k->regs[in->ops[1 + i]].elem;
    return true;
}

void spv_print_setup(spv_ctx *c)
{
    cvm_spv_layout *L = c->layout;
    uint32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t pc = 0; pc < c->vk->ninsns; pc++) {
            cvm_bc_insn in;
            if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in) || in.op != CVM_OP_PRINT || !in.nops)
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

bool spv_op_print(spv_ctx *c, const cvm_bc_insn *in)
{
    if (in->op != CVM_OP_PRINT)
        return false;
    const cvm_spv_layout *L = c->layout;
    uint32_t site = 0;
    while (site < L->nprints && L->prints[site].pc != c->pc)
        site++;
    if (site == L->nprints) {
        spv_fail(c, CVM_INTERNAL, "a print instruction without its record site");
        return true;
    }
    uint32_t u = spv_t_int(c, 32), claim = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicIAdd, u, claim, word(c, spv_c_u32(c, 0)), spv_c_u32(c, SpvScopeDevice),
           spv_c_u32(c, 0), spv_c_u32(c, 1));
    uint32_t cap = spv_load(c, u, word(c, spv_c_u32(c, 1)));
    uint32_t rec = spv_ext2(c, GLSLstd450UMin, u, claim, cap);
    uint32_t base = spv_op2(c, SpvOpIAdd, u, spv_c_u32(c, CVM_SPV_PRINT_HEAD),
                            spv_op2(c, SpvOpIMul, u, rec, spv_c_u32(c, CVM_SPV_PRINT_WORDS)));
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
