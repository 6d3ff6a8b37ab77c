/*
 * mem.c - memory in the SPIR-V backend: which buffer each global pointer
 * derives from, the resource layout (storage buffers, push constants,
 * Workgroup/Function/Private arrays), loads and stores of any type through
 * byte offsets, pointer arithmetic, fences and atomics.
 *
 * Every space is a u32 array indexed by byte offset / 4: sub-word values
 * are shifted out of their word (sub-word stores to shared or global
 * memory are an atomic and+or so neighbouring bytes written by other units
 * survive), 8-byte values are two words.
 */
#include "spv_int.h"

#include <stdio.h>
#include <string.h>

/* Every Vulkan device has at least 128 bytes of push constants. */
#define SPV_PUSH_MAX 128u

static uint32_t rt_array_u32(spv_ctx *c, uint32_t len_id)
{
    uint32_t u = spv_t_int(c, 32), id = spv_id(c);
    if (len_id)
        SPV_EM(c, &c->types, SpvOpTypeArray, id, u, len_id);
    else
        SPV_EM(c, &c->types, SpvOpTypeRuntimeArray, id, u);
    return id;
}

/* struct { uint w[]; } decorated Block, the array with stride 4. */
static uint32_t block_struct(spv_ctx *c, uint32_t arr)
{
    uint32_t s = spv_id(c);
    SPV_EM(c, &c->annot, SpvOpDecorate, arr, SpvDecorationArrayStride, 4);
    SPV_EM(c, &c->types, SpvOpTypeStruct, s, arr);
    SPV_EM(c, &c->annot, SpvOpDecorate, s, SpvDecorationBlock);
    SPV_EM(c, &c->annot, SpvOpMemberDecorate, s, 0, SpvDecorationOffset, 0);
    return s;
}

static void make_view(spv_ctx *c, spv_view *v, uint32_t var, uint32_t sc, bool member)
{
    v->var = var;
    v->sc = sc;
    v->ptr_word = spv_t_ptr(c, sc, spv_t_int(c, 32));
    v->member = member;
    v->atomic_ok = sc == SpvStorageClassStorageBuffer || sc == SpvStorageClassWorkgroup;
    v->scope = sc == SpvStorageClassWorkgroup ? SpvScopeWorkgroup : SpvScopeDevice;
    v->sem = sc == SpvStorageClassWorkgroup ? SpvMemorySemanticsWorkgroupMemoryMask
                                            : SpvMemorySemanticsUniformMemoryMask;
}

static bool uses_elem(spv_ctx *c, unsigned elem)
{
    for (uint32_t r = 0; r < c->k->nregs; r++)
        if (c->k->regs[r].elem == elem)
            return true;
    return false;
}

/* The pointer register an ld/st/atomic addresses through, or UINT32_MAX for other ops. */
static uint32_t access_reg(const cvm_bc_insn *in)
{
    switch (in->op) {
    case CVM_OP_ST: case CVM_OP_ST_VOLATILE: case CVM_OP_ST_ATOMIC:
        return in->nops ? in->ops[0] : UINT32_MAX;
    case CVM_OP_LD: case CVM_OP_LD_VOLATILE: case CVM_OP_LD_ATOMIC:
        return in->nops > 1 ? in->ops[1] : UINT32_MAX;
    default:
        return in->op >= CVM_OP_ATOM_ADD && in->op <= CVM_OP_ATOM_CAS && in->nops > 1 ? in->ops[1]
                                                                                      : UINT32_MAX;
    }
}

/* The static base of the global access at pc (SPV_BASE_DEAD, >= 0, or < 0: none). */
static int32_t access_base(spv_ctx *c, uint32_t pc, uint32_t r)
{
    return c->gbase_reg[pc] == r ? c->gbase[pc] : -1;
}

/* A comparison of two global pointers: as byte offsets into their own
 * buffers, two buffers' pointers (and any buffer's and null) could compare
 * equal, so only addresses compare them right. */
static bool global_ptr_compare(const cvm_bc_insn *in)
{
    return in->op >= CVM_OP_EQ && in->op <= CVM_OP_GE && in->elem == CVM_T_PTR_GLOBAL;
}

cvm_status spv_mem_plan(spv_ctx *c)
{
    if (spv_analyse_bases(c) != CVM_OK)
        return c->st;
    const bool can = c->t->buffer_device_address && c->t->int64;
    for (uint32_t pc = 0; pc < c->vk->ninsns && !c->bda; pc++) {
        cvm_bc_insn in;
        if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in))
            continue;
        if (global_ptr_compare(&in)) {
            if (!can) {
                c->pc = pc;
                return spv_fail(c, CVM_UNSUPPORTED,
                                "comparing global pointers (with each other or with null) needs "
                                "buffer device address, which the device lacks%s",
                                c->t->buffer_device_address ? " (with 64-bit integers)" : "");
            }
            c->bda = true;
            break;
        }
        if (!can)
            continue; /* accesses without a base are rejected where they are met */
        uint32_t r = access_reg(&in);
        if (r >= c->k->nregs || c->k->regs[r].elem != CVM_T_PTR_GLOBAL)
            continue;
        int32_t b = access_base(c, pc, r);
        c->bda = b != SPV_BASE_DEAD && b < 0;
    }
    return CVM_OK;
}

/*
 * Buffer device address: buffer parameters and global symbols are u64
 * addresses in the push-constant block (layout kind ADDRESS); global
 * memory is reached through PhysicalStorageBuffer pointers made from them.
 */
static void setup_addresses(spv_ctx *c, uint32_t *push)
{
    cvm_spv_layout *L = c->layout;
    uint32_t np = c->k->nparams;
    L->device_address = true;
    for (uint32_t p = 0; p < np; p++)
        if (c->k->params[p].kind == CVM_PARAM_BUFFER) {
            *push = (*push + 7) / 8 * 8;
            L->params[p] = (cvm_spv_bind){CVM_SPV_BIND_ADDRESS, 0, *push, 8};
            *push += 8;
        }
    for (uint32_t i = 0; i < L->nsyms; i++) {
        *push = (*push + 7) / 8 * 8;
        L->syms[i].bind = (cvm_spv_bind){CVM_SPV_BIND_ADDRESS, 0, *push, 8};
        c->param_view[np + L->syms[i].symbol] = *push; /* sym reads its address there */
        *push += 8;
    }
    spv_cap(c, SpvCapabilityPhysicalStorageBufferAddresses);
    c->exts |= SPV_EXT_PSB;
    spv_view *v = &c->gaddr;
    v->var = 1; /* present; words are reached through OpConvertUToPtr */
    v->sc = SpvStorageClassPhysicalStorageBuffer;
    v->ptr_word = spv_t_ptr(c, v->sc, spv_t_int(c, 32));
    v->atomic_ok = true;
    v->scope = SpvScopeDevice;
    v->sem = SpvMemorySemanticsUniformMemoryMask;
}

/* A storage buffer binding seen as a u32 array: the view of base `base`. */
static void storage_binding(spv_ctx *c, uint32_t base, const char *name)
{
    uint32_t b = c->layout->nbindings++;
    uint32_t s = block_struct(c, rt_array_u32(c, 0));
    uint32_t var = spv_global(c, SpvStorageClassStorageBuffer, s, name);
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationDescriptorSet, 0);
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationBinding, b);
    c->param_view[base] = b;
    make_view(c, &c->bufviews[b], var, SpvStorageClassStorageBuffer, true);
    c->bufviews[b].binding = b;
}

/* The global symbol a `sym` instruction addresses, or UINT32_MAX. */
static uint32_t global_sym_at(spv_ctx *c, uint32_t pc)
{
    cvm_bc_insn in;
    if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in) || in.op != CVM_OP_SYM || in.nops < 2 ||
        in.ops[1] >= c->mod->nsymbols || c->mod->symbols[in.ops[1]].space == CVM_SYM_CONST)
        return UINT32_MAX;
    return in.ops[1];
}

/*
 * Module __device__ symbols the kernel addresses: each is a buffer of its
 * own on the device (vm/api_module.c), bound after the parameters' buffers
 * (layout.syms says which binding holds which symbol).
 */
static void setup_symbols(spv_ctx *c)
{
    cvm_spv_layout *L = c->layout;
    uint32_t np = c->k->nparams, n = 0;
    for (uint32_t pc = 0; pc < c->vk->ninsns; pc++) {
        uint32_t s = global_sym_at(c, pc);
        if (s != UINT32_MAX && c->param_view[np + s] == UINT32_MAX) {
            c->param_view[np + s] = 0; /* counted */
            n++;
        }
    }
    if (!n)
        return;
    L->syms = cvm_bc_alloc(c->mod->alloc, c->mod->alloc_user, n * sizeof *L->syms);
    if (!L->syms) {
        spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
        return;
    }
    L->nsyms = n;
    uint32_t i = 0;
    for (uint32_t s = 0; s < c->mod->nsymbols && i < n; s++) {
        if (c->param_view[np + s] == UINT32_MAX)
            continue;
        if (!c->bda)
            storage_binding(c, np + s, cvm_bc_str(c->mod, c->mod->symbols[s].name));
        L->syms[i++] = (cvm_spv_symbind){s, {CVM_SPV_BIND_STORAGE_BUFFER, c->param_view[np + s], 0, 8}};
    }
}

/* Bytes of the kernel's by-value parameters laid out from offset 0 (4-byte multiple). */
static uint32_t by_value_bytes(const cvm_bc_kernel *k)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < k->nparams; p++) {
        const cvm_bc_param *pa = &k->params[p];
        uint32_t al = pa->align ? pa->align : 1;
        if (pa->kind != CVM_PARAM_BUFFER)
            n = (n + al - 1) / al * al + pa->size;
    }
    return (n + 3) / 4 * 4;
}

/* Bytes of buffer addresses in the push constants (8 per buffer parameter and symbol). */
static uint32_t address_bytes(spv_ctx *c)
{
    uint32_t n = c->layout->nsyms;
    for (uint32_t p = 0; p < c->k->nparams; p++)
        n += c->k->params[p].kind == CVM_PARAM_BUFFER;
    return c->bda ? 8 * n : 0;
}

/*
 * The uniform block holding every by-value parameter when they and the
 * buffer addresses do not fit the 128 bytes of push constants every
 * Vulkan device has: struct { uvec4 w[n]; } (std140 needs a 16-byte array
 * stride), one more binding of set 0.
 */
static void setup_uniform(spv_ctx *c, uint32_t bytes)
{
    uint32_t b = c->layout->nbindings++, u = spv_t_int(c, 32);
    uint32_t arr = spv_id(c), s = spv_id(c);
    SPV_EM(c, &c->types, SpvOpTypeArray, arr, spv_t_vec(c, u, 4), spv_c_u32(c, (bytes + 15) / 16));
    SPV_EM(c, &c->annot, SpvOpDecorate, arr, SpvDecorationArrayStride, 16);
    SPV_EM(c, &c->types, SpvOpTypeStruct, s, arr);
    SPV_EM(c, &c->annot, SpvOpDecorate, s, SpvDecorationBlock);
    SPV_EM(c, &c->annot, SpvOpMemberDecorate, s, 0, SpvDecorationOffset, 0);
    uint32_t var = spv_global(c, SpvStorageClassUniform, s, "params_ubo");
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationDescriptorSet, 0);
    SPV_EM(c, &c->annot, SpvOpDecorate, var, SpvDecorationBinding, b);
    make_view(c, &c->ubo, var, SpvStorageClassUniform, true);
    c->ubo.vec4 = true;
    c->ubo.binding = b;
    for (uint32_t p = 0; p < c->k->nparams; p++)
        if (c->layout->params[p].kind == CVM_SPV_BIND_PUSH_CONSTANT) {
            c->layout->params[p].kind = CVM_SPV_BIND_UNIFORM;
            c->layout->params[p].binding = b;
        }
}

/* Whether the kernel reads a cube position or count in x (cube_pos.x,
 * abs_pos.x, cube_pos, cube_count.x), or has print/trap/assert records
 * (which hold cube_pos): then it gets the grid_x words (spv.h). */
static bool reads_grid_x(spv_ctx *c)
{
    if (c->layout->nprints)
        return true;
    for (uint32_t pc = 0; pc < c->vk->ninsns; pc++) {
        cvm_bc_insn in;
        if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in) || in.op != CVM_OP_SREG || in.nops < 2)
            continue;
        unsigned id = in.ops[1];
        if (id == CVM_SREG_CUBE_POS_X || id == CVM_SREG_ABS_POS_X || id == CVM_SREG_CUBE_POS ||
            id == CVM_SREG_CUBE_COUNT_X)
            return true;
    }
    return false;
}

static void setup_params(spv_ctx *c)
{
    const cvm_bc_kernel *k = c->k;
    cvm_spv_layout *L = c->layout;
    uint32_t push = 0;
    for (uint32_t p = 0; p < k->nparams; p++) {
        const cvm_bc_param *pa = &k->params[p];
        if (pa->kind == CVM_PARAM_BUFFER && c->bda) {
            continue; /* an address: setup_addresses */
        } else if (pa->kind == CVM_PARAM_BUFFER) {
            storage_binding(c, p, cvm_bc_str(c->mod, pa->name));
            L->params[p] = (cvm_spv_bind){CVM_SPV_BIND_STORAGE_BUFFER, c->param_view[p], 0, 8};
        } else {
            uint32_t al = pa->align ? pa->align : 1;
            push = (push + al - 1) / al * al;
            L->params[p] = (cvm_spv_bind){CVM_SPV_BIND_PUSH_CONSTANT, 0, push, pa->size};
            push += pa->size;
        }
    }
    setup_symbols(c);
    if (c->st == CVM_OK)
        spv_print_setup(c);
    uint32_t grid_x = c->st == CVM_OK && reads_grid_x(c) ? 8 : 0;
    if (c->st == CVM_OK && by_value_bytes(k) && by_value_bytes(k) + address_bytes(c) + grid_x > SPV_PUSH_MAX) {
        setup_uniform(c, by_value_bytes(k));
        push = 0; /* the push constants hold only the addresses, if any */
    }
    if (c->bda && c->st == CVM_OK)
        setup_addresses(c, &push);
    push = (push + 3) / 4 * 4;
    if (grid_x && push + grid_x > SPV_PUSH_MAX) {
        /* 16 buffer addresses fill the block: no split grids for this kernel */
        L->grid_x_fixed = true;
        grid_x = 0;
    }
    L->grid_x = grid_x != 0;
    L->grid_x_offset = push;
    push += grid_x;
    L->push_size = push;
    if (push > SPV_PUSH_MAX) {
        spv_fail(c, CVM_UNSUPPORTED, "%u bytes of buffer addresses exceed the %u-byte "
                 "push-constant block", push, SPV_PUSH_MAX);
        return;
    }
    if (push) {
        uint32_t s = block_struct(c, rt_array_u32(c, spv_c_u32(c, push / 4)));
        make_view(c, &c->push, spv_global(c, SpvStorageClassPushConstant, s, "params"),
                  SpvStorageClassPushConstant, true);
    }
}

static void setup_shared(spv_ctx *c)
{
    uint32_t u = spv_t_int(c, 32);
    c->spec_dyn = spv_id(c);
    SPV_EM(c, &c->types, SpvOpSpecConstant, u, c->spec_dyn, 0);
    SPV_EM(c, &c->annot, SpvOpDecorate, c->spec_dyn, SpvDecorationSpecId, c->layout->spec_dyn_shared);
    spv_emit_str(c, &c->names, SpvOpName, c->spec_dyn, "dyn_shared_bytes");
    bool need = c->k->shared_bytes || uses_elem(c, CVM_T_PTR_SHARED);
    if (!need)
        return;
    uint32_t words = (c->k->shared_bytes + 15) / 16 * 4 + 1, sh = spv_id(c), len = spv_id(c);
    SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, sh, SpvOpShiftRightLogical, c->spec_dyn,
           spv_c_u32(c, 2));
    SPV_EM(c, &c->types, SpvOpSpecConstantOp, u, len, SpvOpIAdd, sh, spv_c_u32(c, words));
    uint32_t arr = rt_array_u32(c, len);
    make_view(c, &c->shared, spv_global(c, SpvStorageClassWorkgroup, arr, "shared"),
              SpvStorageClassWorkgroup, false);
}

static void setup_const(spv_ctx *c)
{
    const cvm_bc_module *m = c->mod;
    if (!uses_elem(c, CVM_T_PTR_CONST) || !m->const_size)
        return;
    uint32_t words = (m->const_size + 3) / 4;
    if (words > 16384) {
        spv_fail(c, CVM_UNSUPPORTED, "constant data of %u bytes exceeds the 64 KiB the backend "
                 "embeds in the module", m->const_size);
        return;
    }
    uint32_t arr = rt_array_u32(c, spv_c_u32(c, words)), init = spv_id(c);
    uint32_t *w = cvm_bc_alloc(m->alloc, m->alloc_user, (words + 2) * 4);
    if (!w) {
        spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
        return;
    }
    w[0] = arr;
    w[1] = init;
    for (uint32_t i = 0; i < words; i++) {
        uint32_t v = 0;
        for (uint32_t b = 0; b < 4; b++) {
            uint32_t o = i * 4 + b;
            if (o < m->ndata && o < m->const_size)
                v |= (uint32_t)m->data[o] << (8 * b);
        }
        w[2 + i] = spv_c_u32(c, v);
    }
    spv_emit(c, &c->types, SpvOpConstantComposite, w, words + 2);
    cvm_bc_free(m->alloc, m->alloc_user, w, (words + 2) * 4);
    uint32_t var = spv_id(c);
    SPV_EM(c, &c->types, SpvOpVariable, spv_t_ptr(c, SpvStorageClassPrivate, arr), var,
           SpvStorageClassPrivate, init);
    spv_emit_str(c, &c->names, SpvOpName, var, "const_space");
    if (c->t->spirv_version >= 0x10400)
        SPV_EM(c, &c->iface, 0, var);
    make_view(c, &c->konst, var, SpvStorageClassPrivate, false);
}

cvm_status spv_mem_setup(spv_ctx *c)
{
    cvm_alloc_fn fn = c->mod->alloc;
    void *u = c->mod->alloc_user;
    c->nbase = c->k->nparams + c->mod->nsymbols;
    c->bufviews = cvm_bc_alloc(fn, u, (c->nbase + 1) * sizeof(spv_view));
    c->param_view = cvm_bc_alloc(fn, u, (c->nbase + 1) * sizeof(uint32_t));
    if (!c->bufviews || !c->param_view)
        return spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i <= c->nbase; i++)
        c->param_view[i] = UINT32_MAX;
    c->layout->spec_local_size[0] = 0;
    c->layout->spec_local_size[1] = 1;
    c->layout->spec_local_size[2] = 2;
    c->layout->spec_dyn_shared = 3;
    setup_params(c);
    if (c->st == CVM_OK)
        setup_shared(c);
    if (c->st == CVM_OK)
        setup_const(c);
    if (c->st == CVM_OK && c->k->local_bytes) {
        uint32_t arr = rt_array_u32(c, spv_c_u32(c, (c->k->local_bytes + 3) / 4));
        uint32_t var = spv_fvar(c, arr);
        spv_emit_str(c, &c->names, SpvOpName, var, "local");
        make_view(c, &c->local, var, SpvStorageClassFunction, false);
    }
    return c->st;
}

/* ---- word access ---- */

static bool is_addr(const spv_view *v) { return v->sc == SpvStorageClassPhysicalStorageBuffer; }

/* The low 32 bits of a byte offset or address (sub-word positions). */
static uint32_t off32(spv_ctx *c, const spv_view *v, uint32_t off)
{
    return is_addr(v) ? spv_op1(c, SpvOpUConvert, spv_t_int(c, 32), off) : off;
}

/* off + bytes, in the offset's own width. */
static uint32_t off_plus(spv_ctx *c, const spv_view *v, uint32_t off, uint32_t bytes)
{
    if (is_addr(v))
        return spv_op2(c, SpvOpIAdd, spv_t_int(c, 64), off, spv_c_int(c, 64, bytes));
    return spv_op2(c, SpvOpIAdd, spv_t_int(c, 32), off, spv_c_u32(c, bytes));
}

/* A PhysicalStorageBuffer pointer to the `align`-aligned unit holding address a, + plus units. */
static uint32_t addr_ptr(spv_ctx *c, uint32_t ptr_type, uint32_t a, uint32_t align, uint32_t plus)
{
    uint32_t u64 = spv_t_int(c, 64);
    a = spv_op2(c, SpvOpBitwiseAnd, u64, a, spv_c_int(c, 64, ~(uint64_t)(align - 1)));
    if (plus)
        a = spv_op2(c, SpvOpIAdd, u64, a, spv_c_int(c, 64, (uint64_t)plus * align));
    return spv_op1(c, SpvOpConvertUToPtr, ptr_type, a);
}

static uint32_t word_ptr(spv_ctx *c, const spv_view *v, uint32_t idx)
{
    uint32_t id = spv_id(c), u = spv_t_int(c, 32);
    if (v->vec4) /* word idx is component idx % 4 of vector idx / 4 */
        SPV_EM(c, &c->body, SpvOpAccessChain, v->ptr_word, id, v->var, spv_c_u32(c, 0),
               spv_op2(c, SpvOpShiftRightLogical, u, idx, spv_c_u32(c, 2)),
               spv_op2(c, SpvOpBitwiseAnd, u, idx, spv_c_u32(c, 3)));
    else if (v->member)
        SPV_EM(c, &c->body, SpvOpAccessChain, v->ptr_word, id, v->var, spv_c_u32(c, 0), idx);
    else
        SPV_EM(c, &c->body, SpvOpAccessChain, v->ptr_word, id, v->var, idx);
    return id;
}

static uint32_t word_at(spv_ctx *c, const spv_view *v, uint32_t off, uint32_t plus)
{
    if (is_addr(v))
        return addr_ptr(c, v->ptr_word, off, 4, plus);
    uint32_t u = spv_t_int(c, 32);
    uint32_t idx = spv_op2(c, SpvOpShiftRightLogical, u, off, spv_c_u32(c, 2));
    if (plus)
        idx = spv_op2(c, SpvOpIAdd, u, idx, spv_c_u32(c, plus));
    return word_ptr(c, v, idx);
}

/* Memory operands of a word access: Volatile; PhysicalStorageBuffer needs Aligned. */
static uint32_t access_ops(const spv_view *v, bool vol, uint32_t *ops)
{
    ops[0] = (vol ? SpvMemoryAccessVolatileMask : 0) | (is_addr(v) ? SpvMemoryAccessAlignedMask : 0);
    ops[1] = 4;
    return ops[0] ? (is_addr(v) ? 2 : 1) : 0;
}

static uint32_t load_word(spv_ctx *c, const spv_view *v, uint32_t ptr, bool vol)
{
    uint32_t w[5] = {spv_t_int(c, 32), spv_id(c), ptr};
    spv_emit(c, &c->body, SpvOpLoad, w, 3 + access_ops(v, vol, w + 3));
    return w[1];
}

static void store_word(spv_ctx *c, const spv_view *v, uint32_t ptr, uint32_t val, bool vol)
{
    uint32_t w[4] = {ptr, val};
    spv_emit(c, &c->body, SpvOpStore, w, 2 + access_ops(v, vol, w + 2));
}

static unsigned mem_size(unsigned elem)
{
    return elem == CVM_T_PTR_GLOBAL ? 8 : cvm_bc_elem_size(elem); /* pointers in memory: 8 bytes */
}

static uint32_t load_scalar(spv_ctx *c, const spv_view *v, uint32_t off, unsigned elem, bool vol)
{
    uint32_t u = spv_t_int(c, 32), t = spv_t_elem(c, elem), size = mem_size(elem);
    uint32_t w = load_word(c, v, word_at(c, v, off, 0), vol);
    if (size == 4)
        return elem == CVM_T_F32 ? spv_op1(c, SpvOpBitcast, t, w) : w;
    if (size == 8) {
        if (elem == CVM_T_PTR_GLOBAL && !c->bda)
            return w; /* a buffer offset: the low word */
        uint32_t hi = load_word(c, v, word_at(c, v, off, 1), vol);
        uint32_t pair = spv_op2(c, SpvOpCompositeConstruct, spv_t_vec(c, u, 2), w, hi);
        return spv_op1(c, SpvOpBitcast, t, pair);
    }
    uint32_t sh = spv_op2(c, SpvOpShiftLeftLogical, u,
                          spv_op2(c, SpvOpBitwiseAnd, u, off32(c, v, off), spv_c_u32(c, 3)),
                          spv_c_u32(c, 3));
    uint32_t x = spv_op2(c, SpvOpShiftRightLogical, u, w, sh);
    if (elem == CVM_T_BOOL)
        return spv_op2(c, SpvOpINotEqual, t, spv_op2(c, SpvOpBitwiseAnd, u, x, spv_c_u32(c, 0xff)),
                       spv_c_u32(c, 0));
    uint32_t n = spv_op1(c, SpvOpUConvert, spv_t_int(c, size * 8), x);
    return elem == CVM_T_F16 ? spv_op1(c, SpvOpBitcast, t, n) : n;
}

static void store_scalar(spv_ctx *c, const spv_view *v, uint32_t off, unsigned elem, uint32_t val,
                         bool vol)
{
    uint32_t u = spv_t_int(c, 32), size = mem_size(elem);
    if (size == 4 || (elem == CVM_T_PTR_GLOBAL && !c->bda)) {
        uint32_t w = elem == CVM_T_F32 ? spv_op1(c, SpvOpBitcast, u, val) : val;
        store_word(c, v, word_at(c, v, off, 0), w, vol);
        if (elem == CVM_T_PTR_GLOBAL) /* a buffer offset: high word zero */
            store_word(c, v, word_at(c, v, off, 1), spv_c_u32(c, 0), vol);
        return;
    }
    if (size == 8) {
        uint32_t pair = spv_op1(c, SpvOpBitcast, spv_t_vec(c, u, 2), val);
        for (uint32_t i = 0; i < 2; i++)
            store_word(c, v, word_at(c, v, off, i),
                       spv_op2(c, SpvOpCompositeExtract, u, pair, i) /* literal index */, vol);
        return;
    }
    uint32_t x;
    if (elem == CVM_T_BOOL) {
        x = spv_op3(c, SpvOpSelect, u, val, spv_c_u32(c, 1), spv_c_u32(c, 0));
    } else {
        uint32_t n = elem == CVM_T_F16 ? spv_op1(c, SpvOpBitcast, spv_t_int(c, 16), val) : val;
        x = spv_op1(c, SpvOpUConvert, u, n);
    }
    uint32_t sh = spv_op2(c, SpvOpShiftLeftLogical, u,
                          spv_op2(c, SpvOpBitwiseAnd, u, off32(c, v, off), spv_c_u32(c, 3)),
                          spv_c_u32(c, 3));
    uint32_t mask = spv_op2(c, SpvOpShiftLeftLogical, u, spv_c_u32(c, size == 1 ? 0xffu : 0xffffu), sh);
    uint32_t nmask = spv_op1(c, SpvOpNot, u, mask);
    uint32_t bits = spv_op2(c, SpvOpShiftLeftLogical, u, x, sh);
    uint32_t p = word_at(c, v, off, 0);
    if (v->atomic_ok) {
        uint32_t sc = spv_c_u32(c, v->scope), sem = spv_c_u32(c, 0);
        SPV_EM(c, &c->body, SpvOpAtomicAnd, u, spv_id(c), p, sc, sem, nmask);
        SPV_EM(c, &c->body, SpvOpAtomicOr, u, spv_id(c), p, sc, sem, bits);
    } else {
        uint32_t w = load_word(c, v, p, vol);
        w = spv_op2(c, SpvOpBitwiseOr, u, spv_op2(c, SpvOpBitwiseAnd, u, w, nmask), bits);
        store_word(c, v, p, w, vol);
    }
}

uint32_t spv_mem_load(spv_ctx *c, const spv_view *v, uint32_t off, unsigned elem, unsigned line,
                      bool vol)
{
    if (line == 1)
        return load_scalar(c, v, off, elem, vol);
    uint32_t w[18] = {spv_t_of(c, elem, line), spv_id(c)};
    for (unsigned i = 0; i < line; i++) {
        uint32_t o = i ? off_plus(c, v, off, i * mem_size(elem)) : off;
        w[2 + i] = load_scalar(c, v, o, elem, vol);
    }
    spv_emit(c, &c->body, SpvOpCompositeConstruct, w, 2 + line);
    return w[1];
}

static void mem_store(spv_ctx *c, const spv_view *v, uint32_t off, unsigned elem, unsigned line,
                      uint32_t val, bool vol)
{
    if (line == 1) {
        store_scalar(c, v, off, elem, val, vol);
        return;
    }
    uint32_t t = spv_t_elem(c, elem);
    for (unsigned i = 0; i < line; i++) {
        uint32_t o = i ? off_plus(c, v, off, i * mem_size(elem)) : off;
        store_scalar(c, v, o, elem, spv_op2(c, SpvOpCompositeExtract, t, val, i), vol);
    }
}

/* The view a pointer register addresses, or NULL (after failing) when there is none. */
static spv_view *view_of(spv_ctx *c, uint32_t r, bool write)
{
    spv_view *v = NULL;
    switch (c->k->regs[r].elem) {
    case CVM_T_PTR_GLOBAL: {
        if (c->bda) {
            v = &c->gaddr;
            break;
        }
        int32_t base = access_base(c, c->pc, r);
        if (base == SPV_BASE_DEAD && c->layout->nbindings) {
            v = &c->bufviews[0]; /* never executed: any buffer will do */
            break;
        }
        if (base < 0 || (uint32_t)base >= c->nbase || c->param_view[base] == UINT32_MAX) {
            spv_fail(c, CVM_UNSUPPORTED,
                     "the global pointer in register %%r%u may come from more than one buffer "
                     "here (loaded from memory, or selected or merged between buffers): it needs "
                     "buffer device address, which the device lacks%s", r,
                     c->t->buffer_device_address ? " (with 64-bit integers)" : "");
            return NULL;
        }
        v = &c->bufviews[c->param_view[base]];
        break;
    }
    case CVM_T_PTR_SHARED: v = &c->shared; break;
    case CVM_T_PTR_LOCAL: v = &c->local; break;
    case CVM_T_PTR_CONST:
        v = &c->konst;
        if (write) {
            spv_fail(c, CVM_UNSUPPORTED, "store to the constant space");
            return NULL;
        }
        break;
    default: break;
    }
    if (!v || !v->var) {
        spv_fail(c, CVM_UNSUPPORTED, "register %%r%u addresses a memory space the kernel does not declare", r);
        return NULL;
    }
    return v;
}

static bool check_align(spv_ctx *c, const cvm_bc_insn *in)
{
    unsigned size = mem_size(in->elem), need = size < 4 ? size : 4;
    if (in->align_log2 && (1u << in->align_log2) < need) {
        spv_fail(c, CVM_UNSUPPORTED, "access of %u bytes promised only %u-byte alignment", size,
                 1u << in->align_log2);
        return false;
    }
    return true;
}

static uint32_t scope_of(unsigned s)
{
    switch (s) {
    case CVM_SCOPE_PLANE: return SpvScopeSubgroup;
    case CVM_SCOPE_CUBE: return SpvScopeWorkgroup;
    default: return SpvScopeDevice; /* device, system: Vulkan has no wider scope */
    }
}

static uint32_t order_bits(unsigned o)
{
    switch (o) {
    case CVM_ORDER_ACQUIRE: return SpvMemorySemanticsAcquireMask;
    case CVM_ORDER_RELEASE: return SpvMemorySemanticsReleaseMask;
    case CVM_ORDER_ACQ_REL: return SpvMemorySemanticsAcquireReleaseMask;
    case CVM_ORDER_SEQ_CST: return SpvMemorySemanticsSequentiallyConsistentMask;
    default: return 0;
    }
}

static uint32_t sem_of(const spv_view *v, unsigned order)
{
    uint32_t b = order_bits(order);
    return b ? b | v->sem : 0;
}

/* old = *p; *p = f(old) by compare-exchange until it sticks; returns old (u32). */
static uint32_t cas_loop(spv_ctx *c, const cvm_bc_insn *in, const spv_view *v, uint32_t p,
                         uint32_t b)
{
    uint32_t u = spv_t_int(c, 32), f = spv_t_float(c, 32), scope = spv_c_u32(c, scope_of(in->scope));
    uint32_t sem = sem_of(v, in->order), semu = sem & ~(uint32_t)(SpvMemorySemanticsReleaseMask |
                                                                  SpvMemorySemanticsAcquireReleaseMask);
    if (sem & (SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsSequentiallyConsistentMask))
        semu = SpvMemorySemanticsAcquireMask | v->sem;
    uint32_t cur = spv_fvar(c, u);
    uint32_t first = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicLoad, u, first, p, scope, spv_c_u32(c, 0));
    spv_store(c, cur, first);
    uint32_t h = spv_id(c), body = spv_id(c), cont = spv_id(c), merge = spv_id(c);
    spv_branch(c, h);
    spv_label(c, h);
    SPV_EM(c, &c->body, SpvOpLoopMerge, merge, cont, SpvLoopControlMaskNone);
    spv_branch(c, body);
    spv_label(c, body);
    uint32_t old = spv_load(c, u, cur), nv;
    bool fl = in->elem == CVM_T_F32;
    uint32_t a = fl ? spv_op1(c, SpvOpBitcast, f, old) : old;
    switch (in->op) {
    case CVM_OP_ATOM_ADD:
        nv = spv_op2(c, SpvOpFAdd, f, a, b);
        SPV_EM(c, &c->annot, SpvOpDecorate, nv, SpvDecorationNoContraction);
        break;
    case CVM_OP_ATOM_MIN: nv = spv_fminmax(c, CVM_T_F32, 1, a, b, false); break;
    case CVM_OP_ATOM_MAX: nv = spv_fminmax(c, CVM_T_F32, 1, a, b, true); break;
    case CVM_OP_ATOM_INC: { /* (old >= b) ? 0 : old + 1 */
        uint32_t ge = spv_op2(c, SpvOpUGreaterThanEqual, spv_t_bool(c), a, b);
        nv = spv_op3(c, SpvOpSelect, u, ge, spv_c_u32(c, 0), spv_op2(c, SpvOpIAdd, u, a, spv_c_u32(c, 1)));
        break;
    }
    default: { /* dec: (old == 0 || old > b) ? b : old - 1 */
        uint32_t bt = spv_t_bool(c);
        uint32_t wrap = spv_op2(c, SpvOpLogicalOr, bt, spv_op2(c, SpvOpIEqual, bt, a, spv_c_u32(c, 0)),
                                spv_op2(c, SpvOpUGreaterThan, bt, a, b));
        nv = spv_op3(c, SpvOpSelect, u, wrap, b, spv_op2(c, SpvOpISub, u, a, spv_c_u32(c, 1)));
        break;
    }
    }
    if (fl)
        nv = spv_op1(c, SpvOpBitcast, u, nv);
    uint32_t got = spv_id(c);
    SPV_EM(c, &c->body, SpvOpAtomicCompareExchange, u, got, p, scope, spv_c_u32(c, sem),
           spv_c_u32(c, semu), nv, old);
    spv_store(c, cur, got);
    uint32_t done = spv_op2(c, SpvOpIEqual, spv_t_bool(c), got, old);
    SPV_EM(c, &c->body, SpvOpBranchConditional, done, merge, cont);
    c->terminated = true;
    spv_label(c, cont);
    spv_branch(c, h);
    spv_label(c, merge);
    return spv_load(c, u, cur);
}

/*
 * 64-bit integer atomics on a storage buffer: through a second variable of
 * the same binding seen as a u64 array (descriptor aliasing), so the
 * access is one OpAtomic* on a 64-bit word (Int64Atomics). The address
 * must be 8-byte aligned, as the ISA requires of 8-byte atomics.
 */
static void atomic64(spv_ctx *c, const cvm_bc_insn *in, spv_view *v)
{
    uint32_t u64 = spv_t_int(c, 64), u = spv_t_int(c, 32), op = 0;
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    bool sg = cvm_bc_elem_is_signed(in->elem);
    switch (in->op) {
    case CVM_OP_ATOM_ADD: op = SpvOpAtomicIAdd; break;
    case CVM_OP_ATOM_SUB: op = SpvOpAtomicISub; break;
    case CVM_OP_ATOM_MIN: op = sg ? SpvOpAtomicSMin : SpvOpAtomicUMin; break;
    case CVM_OP_ATOM_MAX: op = sg ? SpvOpAtomicSMax : SpvOpAtomicUMax; break;
    case CVM_OP_ATOM_AND: op = SpvOpAtomicAnd; break;
    case CVM_OP_ATOM_OR: op = SpvOpAtomicOr; break;
    case CVM_OP_ATOM_XOR: op = SpvOpAtomicXor; break;
    case CVM_OP_ATOM_EXCH: op = SpvOpAtomicExchange; break;
    case CVM_OP_ATOM_CAS: op = SpvOpAtomicCompareExchange; break;
    default: break;
    }
    const char *why = !c->t->int64_atomics ? "the device lacks Int64Atomics"
                    : v->sc != SpvStorageClassStorageBuffer && !is_addr(v) ? "only global memory has a 64-bit view"
                    : cvm_bc_elem_is_float(in->elem) ? "f64 atomics (atomicAdd on a double) are not implemented by "
                                                       "the SPIR-V backend; only 64-bit integer atomics are"
                    : !op ? "only integer add/sub/min/max/and/or/xor/exch/cas are implemented at 64 bits" : NULL;
    if (why) {
        spv_fail(c, CVM_UNSUPPORTED, "64-bit '%s': %s", oi ? oi->mnemonic : "?", why);
        return;
    }
    spv_cap(c, SpvCapabilityInt64Atomics);
    if (!v->var64 && !is_addr(v)) {
        uint32_t arr = spv_id(c), s = spv_id(c);
        SPV_EM(c, &c->types, SpvOpTypeRuntimeArray, arr, u64);
        SPV_EM(c, &c->annot, SpvOpDecorate, arr, SpvDecorationArrayStride, 8);
        SPV_EM(c, &c->types, SpvOpTypeStruct, s, arr);
        SPV_EM(c, &c->annot, SpvOpDecorate, s, SpvDecorationBlock);
        SPV_EM(c, &c->annot, SpvOpMemberDecorate, s, 0, SpvDecorationOffset, 0);
        v->var64 = spv_global(c, SpvStorageClassStorageBuffer, s, "buffer_u64");
        SPV_EM(c, &c->annot, SpvOpDecorate, v->var64, SpvDecorationDescriptorSet, 0);
        SPV_EM(c, &c->annot, SpvOpDecorate, v->var64, SpvDecorationBinding, v->binding);
    }
    uint32_t p;
    if (is_addr(v)) {
        p = addr_ptr(c, spv_t_ptr(c, v->sc, u64), spv_get(c, in->ops[1]), 8, 0);
    } else {
        uint32_t idx = spv_op2(c, SpvOpShiftRightLogical, u, spv_get(c, in->ops[1]), spv_c_u32(c, 3));
        p = spv_id(c);
        SPV_EM(c, &c->body, SpvOpAccessChain, spv_t_ptr(c, SpvStorageClassStorageBuffer, u64), p,
               v->var64, spv_c_u32(c, 0), idx);
    }
    uint32_t scope = spv_c_u32(c, scope_of(in->scope)), sem = spv_c_u32(c, sem_of(v, in->order));
    uint32_t b = spv_get(c, in->ops[2]), r = spv_id(c);
    if (op == SpvOpAtomicCompareExchange) {
        uint32_t s = sem_of(v, in->order), su = s && in->order != CVM_ORDER_RELEASE ? (SpvMemorySemanticsAcquireMask | v->sem) : 0;
        SPV_EM(c, &c->body, op, u64, r, p, scope, sem, spv_c_u32(c, su), spv_get(c, in->ops[3]), b);
    } else {
        SPV_EM(c, &c->body, op, u64, r, p, scope, sem, b);
    }
    spv_set(c, in->ops[0], r);
}

/*
 * Whether f32 atomic add on this view is one OpAtomicFAddEXT: global memory
 * on a device with shaderBufferFloat32AtomicAdd (SPV_EXT_shader_atomic_float_add).
 * Shared memory keeps the compare-exchange loop: the instruction needs an
 * f32 pointer, and the u32 Workgroup array has no second view (logical
 * pointers cannot be bitcast; aliasing Workgroup variables needs
 * WorkgroupMemoryExplicitLayoutKHR). Requests the capability.
 */
static bool fadd_ok(spv_ctx *c, const spv_view *v)
{
    if (!c->t->float_atomic_add || (v->sc != SpvStorageClassStorageBuffer && !is_addr(v)) || v->vec4)
        return false;
    spv_cap(c, SpvCapabilityAtomicFloat32AddEXT);
    c->exts |= SPV_EXT_FLOAT_ADD;
    return true;
}

/* An f32 pointer to the word at byte offset/address `off`: through an f32 view of the
 * binding (descriptor aliasing, as for 64-bit atomics) or the address itself. */
static uint32_t f32_ptr(spv_ctx *c, spv_view *v, uint32_t off)
{
    uint32_t f = spv_t_float(c, 32), u = spv_t_int(c, 32);
    if (is_addr(v))
        return addr_ptr(c, spv_t_ptr(c, v->sc, f), off, 4, 0);
    if (!v->varf32) {
        uint32_t arr = spv_id(c), s = spv_id(c);
        SPV_EM(c, &c->types, SpvOpTypeRuntimeArray, arr, f);
        SPV_EM(c, &c->annot, SpvOpDecorate, arr, SpvDecorationArrayStride, 4);
        SPV_EM(c, &c->types, SpvOpTypeStruct, s, arr);
        SPV_EM(c, &c->annot, SpvOpDecorate, s, SpvDecorationBlock);
        SPV_EM(c, &c->annot, SpvOpMemberDecorate, s, 0, SpvDecorationOffset, 0);
        v->varf32 = spv_global(c, SpvStorageClassStorageBuffer, s, "buffer_f32");
        SPV_EM(c, &c->annot, SpvOpDecorate, v->varf32, SpvDecorationDescriptorSet, 0);
        SPV_EM(c, &c->annot, SpvOpDecorate, v->varf32, SpvDecorationBinding, v->binding);
    }
    uint32_t p = spv_id(c), idx = spv_op2(c, SpvOpShiftRightLogical, u, off, spv_c_u32(c, 2));
    SPV_EM(c, &c->body, SpvOpAccessChain, spv_t_ptr(c, SpvStorageClassStorageBuffer, f), p,
           v->varf32, spv_c_u32(c, 0), idx);
    return p;
}

static void op_atomic(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t d = in->ops[0], a = in->ops[1];
    spv_view *v = view_of(c, a, true);
    if (!v)
        return;
    if (cvm_bc_elem_size(in->elem) == 8) {
        atomic64(c, in, v);
        return;
    }
    if (cvm_bc_elem_size(in->elem) != 4) {
        spv_fail(c, CVM_UNSUPPORTED, "atomics of %u bytes are not implemented by the SPIR-V backend",
                 cvm_bc_elem_size(in->elem));
        return;
    }
    bool fl = in->elem == CVM_T_F32, fadd = fl && in->op == CVM_OP_ATOM_ADD && fadd_ok(c, v);
    uint32_t u = spv_t_int(c, 32), p = fadd ? 0 : word_at(c, v, spv_get(c, a), 0);
    uint32_t scope = spv_c_u32(c, scope_of(in->scope)), sem = spv_c_u32(c, sem_of(v, in->order));
    uint32_t b = spv_get(c, in->ops[2]), bw = fl && !fadd ? spv_op1(c, SpvOpBitcast, u, b) : b;
    uint32_t r = 0, op = 0;
    switch (in->op) {
    case CVM_OP_ATOM_ADD: op = !fl ? SpvOpAtomicIAdd : fadd ? SpvOpAtomicFAddEXT : 0; break;
    case CVM_OP_ATOM_SUB: op = SpvOpAtomicISub; break;
    case CVM_OP_ATOM_MIN:
        op = fl ? 0 : cvm_bc_elem_is_signed(in->elem) ? SpvOpAtomicSMin : SpvOpAtomicUMin;
        break;
    case CVM_OP_ATOM_MAX:
        op = fl ? 0 : cvm_bc_elem_is_signed(in->elem) ? SpvOpAtomicSMax : SpvOpAtomicUMax;
        break;
    case CVM_OP_ATOM_AND: op = SpvOpAtomicAnd; break;
    case CVM_OP_ATOM_OR: op = SpvOpAtomicOr; break;
    case CVM_OP_ATOM_XOR: op = SpvOpAtomicXor; break;
    case CVM_OP_ATOM_EXCH: op = SpvOpAtomicExchange; break;
    case CVM_OP_ATOM_CAS: {
        uint32_t s = sem_of(v, in->order), su = s ? (SpvMemorySemanticsAcquireMask | v->sem) : 0;
        if (in->order == CVM_ORDER_RELEASE)
            su = 0;
        r = spv_id(c);
        SPV_EM(c, &c->body, SpvOpAtomicCompareExchange, u, r, p, scope, sem, spv_c_u32(c, su),
               spv_get(c, in->ops[3]), b);
        break;
    }
    default: break; /* inc, dec */
    }
    if (in->op != CVM_OP_ATOM_CAS) {
        if (op == SpvOpAtomicFAddEXT) { /* on an f32 pointer, the old value as f32 */
            uint32_t fp = f32_ptr(c, v, spv_get(c, a));
            r = spv_id(c);
            SPV_EM(c, &c->body, op, spv_t_float(c, 32), r, fp, scope, sem, b);
            spv_set(c, d, r);
            return;
        }
        if (op) {
            r = spv_id(c);
            SPV_EM(c, &c->body, op, u, r, p, scope, sem, bw);
        } else {
            r = cas_loop(c, in, v, p, b);
        }
    }
    spv_set(c, d, fl ? spv_op1(c, SpvOpBitcast, spv_t_float(c, 32), r) : r);
}

static void op_ld_st(spv_ctx *c, const cvm_bc_insn *in)
{
    bool st = in->op == CVM_OP_ST || in->op == CVM_OP_ST_VOLATILE || in->op == CVM_OP_ST_ATOMIC;
    bool vol = in->op == CVM_OP_LD_VOLATILE || in->op == CVM_OP_ST_VOLATILE;
    uint32_t preg = in->ops[st ? 0 : 1];
    const spv_view *v = view_of(c, preg, st);
    if (!v || !check_align(c, in))
        return;
    uint32_t off = spv_get(c, preg);
    if (in->op == CVM_OP_LD_ATOMIC || in->op == CVM_OP_ST_ATOMIC) {
        if (mem_size(in->elem) != 4 || !v->atomic_ok) {
            spv_fail(c, CVM_UNSUPPORTED, "atomic %s of %u bytes in this space is not implemented",
                     st ? "store" : "load", mem_size(in->elem));
            return;
        }
        uint32_t u = spv_t_int(c, 32), p = word_at(c, v, off, 0);
        uint32_t scope = spv_c_u32(c, scope_of(in->scope)), sem = spv_c_u32(c, sem_of(v, in->order));
        bool fl = in->elem == CVM_T_F32;
        if (st) {
            uint32_t x = spv_get(c, in->ops[1]);
            SPV_EM(c, &c->body, SpvOpAtomicStore, p, scope, sem, fl ? spv_op1(c, SpvOpBitcast, u, x) : x);
        } else {
            uint32_t r = spv_id(c);
            SPV_EM(c, &c->body, SpvOpAtomicLoad, u, r, p, scope, sem);
            spv_set(c, in->ops[0], fl ? spv_op1(c, SpvOpBitcast, spv_t_float(c, 32), r) : r);
        }
        return;
    }
    if (st)
        mem_store(c, v, off, in->elem, in->line, spv_get(c, in->ops[1]), vol);
    else
        spv_set(c, in->ops[0], spv_mem_load(c, v, off, in->elem, in->line, vol));
}

static void op_param(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t d = in->ops[0], p = in->ops[1], off = in->ops[2];
    if (c->k->params[p].kind == CVM_PARAM_BUFFER && c->bda) {
        uint32_t at = c->layout->params[p].offset; /* its device address */
        spv_set(c, d, spv_mem_load(c, &c->push, spv_c_u32(c, at), CVM_T_U64, 1, false));
        return;
    }
    if (c->k->params[p].kind == CVM_PARAM_BUFFER) {
        spv_set(c, d, spv_c_u32(c, 0)); /* the offset into its own storage buffer */
        return;
    }
    const cvm_spv_bind *b = &c->layout->params[p];
    spv_set(c, d, spv_mem_load(c, b->kind == CVM_SPV_BIND_UNIFORM ? &c->ubo : &c->push,
                               spv_c_u32(c, b->offset + off), in->elem, in->line, false));
}

bool spv_op_mem(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t u = spv_t_int(c, 32);
    switch (in->op) {
    case CVM_OP_LD: case CVM_OP_ST: case CVM_OP_LD_VOLATILE: case CVM_OP_ST_VOLATILE:
    case CVM_OP_LD_ATOMIC: case CVM_OP_ST_ATOMIC:
        op_ld_st(c, in);
        return true;
    case CVM_OP_PARAM:
        op_param(c, in);
        return true;
    case CVM_OP_SYM: {
        const cvm_bc_symbol *s = &c->mod->symbols[in->ops[1]];
        /* a global symbol is offset 0 of its own buffer (or its address, pushed);
         * a constant one sits in the const space */
        if (s->space != CVM_SYM_CONST && c->bda)
            spv_set(c, in->ops[0], spv_mem_load(c, &c->push, spv_c_u32(c, c->param_view[c->k->nparams + in->ops[1]]),
                                                CVM_T_U64, 1, false));
        else
            spv_set(c, in->ops[0], spv_c_u32(c, s->space == CVM_SYM_CONST ? s->init_off : 0));
        return true;
    }
    case CVM_OP_PTR_ADD: {
        uint32_t b = spv_get(c, in->ops[2]), bw = cvm_bc_elem_size(c->k->regs[in->ops[2]].elem);
        bool wide = c->bda && c->k->regs[in->ops[0]].elem == CVM_T_PTR_GLOBAL;
        uint32_t pt = spv_reg_type(c, in->ops[0]);
        if (wide && bw == 4) /* an address plus a 32-bit offset */
            b = cvm_bc_elem_is_signed(c->k->regs[in->ops[2]].elem) ? spv_sext64(c, pt, CVM_T_U64, 1, b, 4)
                                                                    : spv_op1(c, SpvOpUConvert, pt, b);
        else if (!wide && bw == 8)
            b = spv_op1(c, SpvOpUConvert, u, b);
        spv_set(c, in->ops[0], spv_op2(c, SpvOpIAdd, pt, spv_get(c, in->ops[1]), b));
        return true;
    }
    case CVM_OP_PTR_DIFF: {
        uint32_t i64 = spv_t_int(c, 64);
        if (c->bda && c->k->regs[in->ops[1]].elem == CVM_T_PTR_GLOBAL) { /* addresses */
            spv_set(c, in->ops[0], spv_op2(c, SpvOpISub, i64, spv_get(c, in->ops[1]), spv_get(c, in->ops[2])));
            return true;
        }
        uint32_t x = spv_op2(c, SpvOpISub, u, spv_get(c, in->ops[1]), spv_get(c, in->ops[2]));
        spv_set(c, in->ops[0], spv_sext64(c, i64, CVM_T_I64, 1, x, 4));
        return true;
    }
    case CVM_OP_FENCE: {
        uint32_t b = order_bits(in->order);
        if (!b)
            b = SpvMemorySemanticsAcquireReleaseMask;
        SPV_EM(c, &c->body, SpvOpMemoryBarrier, spv_c_u32(c, scope_of(in->scope)),
               spv_c_u32(c, b | SpvMemorySemanticsUniformMemoryMask |
                                SpvMemorySemanticsWorkgroupMemoryMask));
        return true;
    }
    default:
        if (in->op >= CVM_OP_ATOM_ADD && in->op <= CVM_OP_ATOM_CAS) {
            op_atomic(c, in);
            return true;
        }
        return false;
    }
}
