/*
 * module.c - the SPIR-V backend's module layer: word buffers, result ids,
 * capabilities, the type and constant cache, register variables and the
 * small value helpers the other stages build sequences from.
 */
#include "spv_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cvm_status spv_fail(spv_ctx *c, cvm_status st, const char *fmt, ...)
{
    if (c->st != CVM_OK)
        return c->st;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char where[64];
    c->st = cvm_diag_set(c->diag, st, "kernel '%s' %s: %s",
                         cvm_bc_str(c->mod, c->k->name), spv_where(c, where, sizeof where), msg);
    return c->st;
}

const char *spv_where(spv_ctx *c, char *buf, size_t n)
{
    const char *file = NULL;
    uint32_t line = 0, col = 0;
    if (cvm_bc_debug_line(c->mod, c->kidx, c->pc, &file, &line, &col) && line)
        snprintf(buf, n, "line %u (pc %u)", line, c->pc);
    else
        snprintf(buf, n, "pc %u", c->pc);
    return buf;
}

static bool grow(spv_ctx *c, void **p, size_t *cap, size_t need, size_t esize)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > ((size_t)1 << 26)) {
        spv_fail(c, CVM_OUT_OF_MEMORY, "the SPIR-V module grows beyond 256 MiB");
        return false;
    }
    void *np = cvm_bc_alloc(c->mod->alloc, c->mod->alloc_user, ncap * esize);
    if (!np) {
        spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory building the SPIR-V module");
        return false;
    }
    if (*p) {
        memcpy(np, *p, *cap * esize);
        cvm_bc_free(c->mod->alloc, c->mod->alloc_user, *p, *cap * esize);
    }
    *p = np;
    *cap = ncap;
    return true;
}

void spv_emit(spv_ctx *c, spv_buf *b, uint32_t op, const uint32_t *ops, unsigned n)
{
    if (c->st != CVM_OK || !grow(c, (void **)&b->w, &b->cap, b->n + n + 1, 4))
        return;
    b->w[b->n++] = ((n + 1) << 16) | op;
    memcpy(b->w + b->n, ops, n * 4);
    b->n += n;
}

/* An instruction whose operands are `pre` (if nonzero) then a literal string. */
void spv_emit_str(spv_ctx *c, spv_buf *b, uint32_t op, uint32_t pre, const char *s)
{
    uint32_t w[64];
    unsigned n = 0;
    if (pre)
        w[n++] = pre;
    size_t len = strlen(s);
    if (len > 200)
        len = 200;
    unsigned words = (unsigned)(len / 4 + 1);
    memset(w + n, 0, words * 4);
    memcpy(w + n, s, len);
    spv_emit(c, b, op, w, n + words);
}

uint32_t spv_id(spv_ctx *c) { return c->next_id++; }

void spv_cap(spv_ctx *c, uint32_t cap)
{
    for (uint32_t i = 0; i < c->ncaps; i++)
        if (c->capl[i] == cap)
            return;
    if (c->ncaps < sizeof c->capl / sizeof c->capl[0])
        c->capl[c->ncaps++] = cap;
}

/* ---- the cache of types and constants ---- */

static uint32_t cached(spv_ctx *c, uint32_t op, uint32_t a, uint32_t b, uint32_t d)
{
    for (size_t i = 0; i < c->ncache; i++) {
        const spv_cached *e = &c->cache[i];
        if (e->op == op && e->a == a && e->b == b && e->c == d)
            return e->id;
    }
    return 0;
}

static uint32_t remember(spv_ctx *c, uint32_t op, uint32_t a, uint32_t b, uint32_t d)
{
    if (!grow(c, (void **)&c->cache, &c->capcache, c->ncache + 1, sizeof(spv_cached)))
        return 0;
    uint32_t id = spv_id(c);
    c->cache[c->ncache++] = (spv_cached){op, a, b, d, id};
    return id;
}

uint32_t spv_t_void(spv_ctx *c)
{
    uint32_t id = cached(c, SpvOpTypeVoid, 0, 0, 0);
    if (!id && (id = remember(c, SpvOpTypeVoid, 0, 0, 0)))
        SPV_EM(c, &c->types, SpvOpTypeVoid, id);
    return id;
}

uint32_t spv_t_bool(spv_ctx *c)
{
    uint32_t id = cached(c, SpvOpTypeBool, 0, 0, 0);
    if (!id && (id = remember(c, SpvOpTypeBool, 0, 0, 0)))
        SPV_EM(c, &c->types, SpvOpTypeBool, id);
    return id;
}

uint32_t spv_t_int(spv_ctx *c, unsigned bits)
{
    uint32_t id = cached(c, SpvOpTypeInt, bits, 0, 0);
    if (id)
        return id;
    if (bits == 8)
        spv_cap(c, SpvCapabilityInt8);
    else if (bits == 16)
        spv_cap(c, SpvCapabilityInt16);
    else if (bits == 64)
        spv_cap(c, SpvCapabilityInt64);
    if ((id = remember(c, SpvOpTypeInt, bits, 0, 0)))
        SPV_EM(c, &c->types, SpvOpTypeInt, id, bits, 0);
    return id;
}

uint32_t spv_t_float(spv_ctx *c, unsigned bits)
{
    uint32_t id = cached(c, SpvOpTypeFloat, bits, 0, 0);
    if (id)
        return id;
    if (bits == 16)
        spv_cap(c, SpvCapabilityFloat16);
    else if (bits == 64)
        spv_cap(c, SpvCapabilityFloat64);
    if ((id = remember(c, SpvOpTypeFloat, bits, 0, 0)))
        SPV_EM(c, &c->types, SpvOpTypeFloat, id, bits);
    c->float_widths |= bits;
    return id;
}

uint32_t spv_t_vec(spv_ctx *c, uint32_t comp, unsigned n)
{
    if (n <= 1) /* 0: instructions without a type */
        return comp;
    uint32_t id = cached(c, SpvOpTypeVector, comp, n, 0);
    if (!id && (id = remember(c, SpvOpTypeVector, comp, n, 0)))
        SPV_EM(c, &c->types, SpvOpTypeVector, id, comp, n);
    return id;
}

uint32_t spv_t_ptr(spv_ctx *c, uint32_t sc, uint32_t type)
{
    uint32_t id = cached(c, SpvOpTypePointer, sc, type, 0);
    if (!id && (id = remember(c, SpvOpTypePointer, sc, type, 0)))
        SPV_EM(c, &c->types, SpvOpTypePointer, id, sc, type);
    return id;
}

uint32_t spv_t_elem(spv_ctx *c, unsigned elem)
{
    switch (elem) {
    case CVM_T_BOOL: return spv_t_bool(c);
    case CVM_T_I8: case CVM_T_U8: return spv_t_int(c, 8);
    case CVM_T_I16: case CVM_T_U16: return spv_t_int(c, 16);
    case CVM_T_I64: case CVM_T_U64: return spv_t_int(c, 64);
    case CVM_T_F16: return spv_t_float(c, 16);
    case CVM_T_F32: return spv_t_float(c, 32);
    case CVM_T_F64: return spv_t_float(c, 64);
    case CVM_T_PTR_GLOBAL: return spv_t_int(c, c->bda ? 64 : 32); /* address or buffer offset */
    default: return spv_t_int(c, 32); /* i32, u32 and the 32-bit pointer offsets */
    }
}

uint32_t spv_t_of(spv_ctx *c, unsigned elem, unsigned line)
{
    return spv_t_vec(c, spv_t_elem(c, elem), line);
}

uint32_t spv_t_boolv(spv_ctx *c, unsigned line) { return spv_t_vec(c, spv_t_bool(c), line); }

/*
 * Whether the target can hold values of (elem, line); fails the translation
 * naming `what` otherwise. Lines of 8 and 16 have no Vulkan vector type.
 */
bool spv_elem_ok(spv_ctx *c, unsigned elem, unsigned line, const char *what)
{
    const char *why = NULL;
    if (line != 1 && line != 2 && line != 4)
        why = "lines of 8 or 16 elements have no Vulkan vector type";
    else if (elem == CVM_T_BF16)
        why = "bf16 (__nv_bfloat16) is not supported on the vulkan device, as SPIR-V has no bf16 type: "
              "run the kernel on the cpu device, or compute in float";
    else if ((elem == CVM_T_I64 || elem == CVM_T_U64) && !c->t->int64)
        why = "the target has no 64-bit integers";
    else if (elem == CVM_T_F64 && !c->t->f64)
        why = "the target has no f64";
    else if (elem == CVM_T_F16 && !c->t->f16)
        why = "the target has no f16";
    else if ((elem == CVM_T_I8 || elem == CVM_T_U8) && !c->t->int8)
        why = "the target has no 8-bit integers";
    else if ((elem == CVM_T_I16 || elem == CVM_T_U16) && !c->t->int16)
        why = "the target has no 16-bit integers";
    if (!why)
        return true;
    const char *en = cvm_bc_elem_name(elem);
    char lines[16] = ""; /* a line of one element is named as its element */
    if (line != 1)
        snprintf(lines, sizeof lines, "x%u", line);
    spv_fail(c, CVM_UNSUPPORTED, "%s of type %s%s: %s", what, en ? en : "?", lines, why);
    return false;
}

uint32_t spv_c_int(spv_ctx *c, unsigned bits, uint64_t v)
{
    uint32_t t = spv_t_int(c, bits);
    if (bits < 64)
        v &= (1ull << bits) - 1;
    uint32_t id = cached(c, SpvOpConstant, t, (uint32_t)v, (uint32_t)(v >> 32));
    if (id || !(id = remember(c, SpvOpConstant, t, (uint32_t)v, (uint32_t)(v >> 32))))
        return id;
    if (bits == 64)
        SPV_EM(c, &c->types, SpvOpConstant, t, id, (uint32_t)v, (uint32_t)(v >> 32));
    else
        SPV_EM(c, &c->types, SpvOpConstant, t, id, (uint32_t)v);
    return id;
}

uint32_t spv_c_u32(spv_ctx *c, uint32_t v) { return spv_c_int(c, 32, v); }

uint32_t spv_c_float(spv_ctx *c, unsigned bits, uint64_t v)
{
    uint32_t t = spv_t_float(c, bits);
    if (bits < 64)
        v &= (1ull << bits) - 1;
    uint32_t id = cached(c, SpvOpConstant, t, (uint32_t)v, (uint32_t)(v >> 32));
    if (id || !(id = remember(c, SpvOpConstant, t, (uint32_t)v, (uint32_t)(v >> 32))))
        return id;
    if (bits == 64)
        SPV_EM(c, &c->types, SpvOpConstant, t, id, (uint32_t)v, (uint32_t)(v >> 32));
    else
        SPV_EM(c, &c->types, SpvOpConstant, t, id, (uint32_t)v);
    return id;
}

uint32_t spv_c_bool(spv_ctx *c, bool v)
{
    uint32_t t = spv_t_bool(c), op = v ? SpvOpConstantTrue : SpvOpConstantFalse;
    uint32_t id = cached(c, op, t, 0, 0);
    if (!id && (id = remember(c, op, t, 0, 0)))
        SPV_EM(c, &c->types, op, t, id);
    return id;
}

static uint32_t splat_const(spv_ctx *c, uint32_t scalar, uint32_t type, unsigned line)
{
    if (line == 1)
        return scalar;
    uint32_t id = cached(c, SpvOpConstantComposite, type, scalar, line);
    if (id || !(id = remember(c, SpvOpConstantComposite, type, scalar, line)))
        return id;
    uint32_t w[18] = {type, id};
    for (unsigned i = 0; i < line; i++)
        w[2 + i] = scalar;
    spv_emit(c, &c->types, SpvOpConstantComposite, w, 2 + line);
    return id;
}

uint32_t spv_c_of(spv_ctx *c, unsigned elem, unsigned line, uint64_t bits)
{
    uint32_t s;
    if (elem == CVM_T_BOOL)
        s = spv_c_bool(c, (bits & 1) != 0);
    else if (cvm_bc_elem_is_float(elem))
        s = spv_c_float(c, cvm_bc_elem_size(elem) * 8, bits);
    else if (elem == CVM_T_PTR_GLOBAL && c->bda)
        s = spv_c_int(c, 64, bits);
    else if (cvm_bc_elem_is_ptr(elem))
        s = spv_c_u32(c, (uint32_t)bits);
    else
        s = spv_c_int(c, cvm_bc_elem_size(elem) * 8, bits);
    return splat_const(c, s, spv_t_of(c, elem, line), line);
}

uint32_t spv_c_fval(spv_ctx *c, unsigned elem, unsigned line, double v)
{
    uint64_t bits;
    if (elem == CVM_T_F64) {
        memcpy(&bits, &v, 8);
    } else if (elem == CVM_T_F32) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else { /* f16: the few constants used are exact in binary16 */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
        if (e == 0xff)
            bits = sign | 0x7c00u | (m ? 0x200u : 0);
        else if (e == 0)
            bits = sign;
        else if ((int)e - 127 + 15 >= 31)
            bits = sign | 0x7c00u;
        else if ((int)e - 127 + 15 <= 0)
            bits = sign;
        else
            bits = sign | ((e - 127 + 15) << 10) | (m >> 13);
    }
    return spv_c_of(c, elem, line, bits);
}

/* ---- values ---- */

uint32_t spv_op1(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, op, type, id, a);
    return id;
}

uint32_t spv_op2(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a, uint32_t b)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, op, type, id, a, b);
    return id;
}

uint32_t spv_op3(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a, uint32_t b, uint32_t d)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, op, type, id, a, b, d);
    return id;
}

uint32_t spv_ext1(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, SpvOpExtInst, type, id, c->glsl, inst, a);
    return id;
}

uint32_t spv_ext2(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a, uint32_t b)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, SpvOpExtInst, type, id, c->glsl, inst, a, b);
    return id;
}

uint32_t spv_ext3(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a, uint32_t b, uint32_t d)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->body, SpvOpExtInst, type, id, c->glsl, inst, a, b, d);
    return id;
}

uint32_t spv_label(spv_ctx *c, uint32_t id)
{
    if (!id)
        id = spv_id(c);
    SPV_EM(c, &c->body, SpvOpLabel, id);
    c->terminated = false;
    return id;
}

void spv_branch(spv_ctx *c, uint32_t target)
{
    if (c->terminated)
        return;
    SPV_EM(c, &c->body, SpvOpBranch, target);
    c->terminated = true;
}

/* Code after break/continue/exit in the same part is unreachable but still
 * needs a block to live in. */
void spv_block(spv_ctx *c)
{
    if (c->terminated)
        spv_label(c, 0);
}

uint32_t spv_fvar(spv_ctx *c, uint32_t type)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->fvars, SpvOpVariable, spv_t_ptr(c, SpvStorageClassFunction, type), id,
           SpvStorageClassFunction);
    return id;
}

uint32_t spv_load(spv_ctx *c, uint32_t type, uint32_t ptr) { return spv_op1(c, SpvOpLoad, type, ptr); }

void spv_store(spv_ctx *c, uint32_t ptr, uint32_t val) { SPV_EM(c, &c->body, SpvOpStore, ptr, val); }

uint32_t spv_reg_type(spv_ctx *c, uint32_t r)
{
    return spv_t_of(c, c->k->regs[r].elem, c->k->regs[r].line);
}

uint32_t spv_get(spv_ctx *c, uint32_t r) { return spv_load(c, spv_reg_type(c, r), c->regvar[r]); }

void spv_set(spv_ctx *c, uint32_t r, uint32_t v) { spv_store(c, c->regvar[r], v); }

uint32_t spv_splat_bool(spv_ctx *c, uint32_t cond, unsigned line)
{
    if (line == 1)
        return cond;
    uint32_t id = spv_id(c);
    uint32_t w[18] = {spv_t_boolv(c, line), id};
    for (unsigned i = 0; i < line; i++)
        w[2 + i] = cond;
    spv_emit(c, &c->body, SpvOpCompositeConstruct, w, 2 + line);
    return id;
}
