/*
 * common.c - small shared pieces of the bytecode layer: the op table
 * expanded from ops.def, element type names, orders and scopes, special
 * registers, the op-table hash, allocation helpers and cvm_diag_set.
 */
#include "bc.h"
#include "c_numbers.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cvm_bc_opinfo cvm_bc_ops[CVM_OP_LIMIT] = {
#define CVM_OP(num, name, mn, fmt, tc, rule, flags, sem) [num] = {mn, fmt, tc, rule, flags, sem},
#include "ops.def"
#undef CVM_OP
};

const cvm_bc_opinfo *cvm_bc_op_info(unsigned op)
{
    if (op >= CVM_OP_LIMIT || !cvm_bc_ops[op].mnemonic)
        return NULL;
    return &cvm_bc_ops[op];
}

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

uint32_t cvm_bc_optable_hash(void)
{
    uint32_t h = 2166136261u;
    for (unsigned op = 0; op < CVM_OP_LIMIT; op++) {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(op);
        if (!oi)
            continue;
        uint32_t num = op;
        h = fnv(h, &num, sizeof num);
        h = fnv(h, oi->mnemonic, strlen(oi->mnemonic) + 1);
        h = fnv(h, oi->format, strlen(oi->format) + 1);
        h = fnv(h, &oi->rule, 1);
    }
    return h;
}

static const struct {
    const char *name;
    unsigned size;
} elems[CVM_T_COUNT] = {
    [CVM_T_BOOL] = {"bool", 1},      [CVM_T_I8] = {"i8", 1},
    [CVM_T_I16] = {"i16", 2},        [CVM_T_I32] = {"i32", 4},
    [CVM_T_I64] = {"i64", 8},        [CVM_T_U8] = {"u8", 1},
    [CVM_T_U16] = {"u16", 2},        [CVM_T_U32] = {"u32", 4},
    [CVM_T_U64] = {"u64", 8},        [CVM_T_F16] = {"f16", 2},
    [CVM_T_BF16] = {"bf16", 2},      [CVM_T_F32] = {"f32", 4},
    [CVM_T_F64] = {"f64", 8},        [CVM_T_PTR_GLOBAL] = {"ptr.global", 8},
    [CVM_T_PTR_SHARED] = {"ptr.shared", 4}, [CVM_T_PTR_LOCAL] = {"ptr.local", 4},
    [CVM_T_PTR_CONST] = {"ptr.const", 4},
};

unsigned cvm_bc_elem_size(unsigned e) { return e < CVM_T_COUNT ? elems[e].size : 0; }
const char *cvm_bc_elem_name(unsigned e) { return e < CVM_T_COUNT ? elems[e].name : NULL; }

unsigned cvm_bc_elem_parse(const char *s, size_t n)
{
    for (unsigned e = 1; e < CVM_T_COUNT; e++)
        if (elems[e].name && strlen(elems[e].name) == n && memcmp(elems[e].name, s, n) == 0)
            return e;
    return CVM_T_NONE;
}

bool cvm_bc_elem_is_int(unsigned e) { return e >= CVM_T_I8 && e <= CVM_T_U64; }
bool cvm_bc_elem_is_signed(unsigned e) { return e >= CVM_T_I8 && e <= CVM_T_I64; }
bool cvm_bc_elem_is_float(unsigned e) { return e >= CVM_T_F16 && e <= CVM_T_F64; }
bool cvm_bc_elem_is_ptr(unsigned e) { return e >= CVM_T_PTR_GLOBAL && e <= CVM_T_PTR_CONST; }

static const char *const order_names[CVM_ORDER_COUNT] = {
    [CVM_ORDER_RELAXED] = "relaxed", [CVM_ORDER_ACQUIRE] = "acquire",
    [CVM_ORDER_RELEASE] = "release", [CVM_ORDER_ACQ_REL] = "acq_rel",
    [CVM_ORDER_SEQ_CST] = "seq_cst",
};
static const char *const scope_names[CVM_SCOPE_COUNT] = {
    [CVM_SCOPE_PLANE] = "plane", [CVM_SCOPE_CUBE] = "cube",
    [CVM_SCOPE_DEVICE] = "device", [CVM_SCOPE_SYSTEM] = "system",
};

const char *cvm_bc_order_name(unsigned o) { return o < CVM_ORDER_COUNT ? order_names[o] : NULL; }
const char *cvm_bc_scope_name(unsigned s) { return s < CVM_SCOPE_COUNT ? scope_names[s] : NULL; }

static const struct {
    const char *name;
    uint8_t uni;
} sregs[CVM_SREG_COUNT] = {
#define CVM_SREG(id, name, text, uni, doc) [id] = {text, uni},
#include "sregs.def"
#undef CVM_SREG
};

const char *cvm_bc_sreg_name(unsigned id) { return id < CVM_SREG_COUNT ? sregs[id].name : NULL; }
cvm_bc_uni cvm_bc_sreg_uniformity(unsigned id)
{
    return id < CVM_SREG_COUNT ? (cvm_bc_uni)sregs[id].uni : CVM_UNI_VARYING;
}

unsigned cvm_bc_sreg_parse(const char *s, size_t n)
{
    for (unsigned i = 0; i < CVM_SREG_COUNT; i++)
        if (sregs[i].name && strlen(sregs[i].name) == n && memcmp(sregs[i].name, s, n) == 0)
            return i;
    return CVM_SREG_COUNT;
}

/* ---- allocation ---- */

void *cvm_default_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    size_t rounded = (new_size + 63) & ~(size_t)63;
    if (rounded < new_size)
        return NULL;
    void *p = aligned_alloc(64, rounded);
    if (!p)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
    }
    return p;
}

void *cvm_bc_alloc(cvm_alloc_fn fn, void *user, size_t size)
{
    if (!fn)
        fn = cvm_default_alloc;
    void *p = fn(user, NULL, 0, size ? size : 1);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

void cvm_bc_free(cvm_alloc_fn fn, void *user, void *p, size_t size)
{
    if (!p)
        return;
    if (!fn)
        fn = cvm_default_alloc;
    fn(user, p, size ? size : 1, 0);
}

cvm_status cvm_diag_set(cvm_diag *d, cvm_status st, const char *fmt, ...)
{
    if (!d)
        return st;
    memset(d, 0, sizeof *d);
    d->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return st;
}

bool cvm_bc_insn_at(const cvm_bc_kernel *k, uint32_t word, cvm_bc_insn *out)
{
    if (word >= k->ncode || k->ncode - word < 2)
        return false;
    uint32_t w0 = k->code[word], w1 = k->code[word + 1];
    unsigned nops = (w0 >> 16) & 0xff;
    if (k->ncode - word - 2 < nops)
        return false;
    out->op = (uint16_t)(w0 & 0xffff);
    out->nops = (uint8_t)nops;
    out->elem = (uint8_t)(w1 & 0xff);
    out->line = (uint8_t)((w1 >> 8) & 0xff);
    out->order = (uint8_t)((w1 >> 16) & 0xf);
    out->scope = (uint8_t)((w1 >> 20) & 0xf);
    out->align_log2 = (uint8_t)(w1 >> 24);
    out->ops = k->code + word + 2;
    return true;
}

const char *cvm_bc_str(const cvm_bc_module *mod, uint32_t idx)
{
    if (!mod || idx >= mod->nstrings)
        return "";
    return mod->strings[idx].data;
}

static locale_t c_numbers;
static void make_c_numbers(void) { c_numbers = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

locale_t cvm_bc_c_numbers(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_c_numbers);
    return c_numbers;
}

locale_t cvm_bc_c_numbers_enter(void)
{
    locale_t c = cvm_bc_c_numbers();
    return c ? uselocale(c) : (locale_t)0;
}

void cvm_bc_c_numbers_leave(locale_t before)
{
    if (before)
        uselocale(before);
}
