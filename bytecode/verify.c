/*
 * verify.c - the bytecode verifier, the security boundary of docs/design.md
 * "The bytecode" item 10. cvm_bc_module_read only checked structure
 * (sections, counts, bounds); everything else is checked here before
 * anything executes a module: instruction encodings, types per the RULE
 * column of ops.def, structured control flow, register/param/symbol/string
 * indexes, resource bounds and debug info. Then it runs the divergence
 * analysis (divergence.c) and keeps the per-instruction facts the
 * interpreter and backends need (cvm_bc_verified).
 *
 * Every check runs in time linear in the module (name uniqueness and case
 * values: n log n); nothing allocates more than a small multiple of the
 * module's own size; diagnostics name the kernel and pc.
 *
 * Decisions beyond bc.h/ops.def (documented in docs as they settle):
 * - Untyped ops (TYPES CVM_TC_NONE) encode elem 0 and line 0.
 * - align_log2 is only allowed on ld/st variants. 0 means the natural
 *   alignment of the type (element size x line, at most 16); otherwise 2^align_log2
 *   bytes, at most 4096 and at least the element size, so a line may be
 *   promised only element alignment but no element is ever misaligned.
 * - ld.atomic/st.atomic take global or shared pointers (like atom.*);
 *   no store of any kind goes through ptr.const.
 * - break, continue, exit and return may not leave the continuing part of
 *   a loop (SPIR-V continue constructs; only break_if leaves from there).
 * - Case values are u32 words read in the selector's type: sign-extended
 *   for signed, zero-extended for unsigned selectors; 8- and 16-bit
 *   selectors take only values in their range.
 * - const.bool is 0 or 1; const.ptr.global is 0; other 32-bit pointer
 *   constants fit 32 bits.
 * - param into ptr.global reads a buffer (offset 0) or struct parameter.
 * - sreg writes a 32- or 64-bit integer.
 * - Named barrier ids and counts are cube-uniform registers; when a
 *   register's only definition is a const, the id is 0..15 and the count
 *   nonzero (a multiple of the kernel's plane width when it fixes one).
 * - Names of kernels, symbols and a kernel's parameters are non-empty,
 *   free of NUL bytes and unique.
 */
#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAM_BYTES 65536u        /* by-value parameter bytes per kernel */
#define MAX_GLOBAL_BYTES (1u << 30)   /* global symbol bytes per module */
#define MAX_ALIGN 4096u

/* ---- small helpers ---- */

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static bool line_ok(unsigned l) { return l == 1 || l == 2 || l == 4 || l == 8 || l == 16; }
static bool is_value_elem(unsigned e) { return e >= CVM_T_BOOL && e <= CVM_T_F64; }
static bool type_eq(cvm_bc_type a, cvm_bc_type b) { return a.elem == b.elem && a.line == b.line; }
static cvm_bc_type mk(unsigned elem, unsigned line) { return (cvm_bc_type){(uint8_t)elem, (uint8_t)line}; }

static const char *tyname(cvm_bc_type t, char *buf, size_t n)
{
    const char *e = cvm_bc_elem_name(t.elem);
    if (!e)
        e = "?";
    if (t.line == 1)
        snprintf(buf, n, "%s", e);
    else
        snprintf(buf, n, "%sx%u", e, (unsigned)t.line);
    return buf;
}

char cvm_bc_operand_kind(const char *fmt, unsigned i)
{
    unsigned w = 0;
    for (const char *f = fmt; *f; f++) {
        if (f[1] == '*')
            return *f; /* the repeated letter covers every remaining word */
        if (*f == 'k') {
            if (i == w)
                return 'k';
            if (i == w + 1)
                return 'h';
            w += 2;
        } else {
            if (i == w)
                return *f;
            w++;
        }
    }
    return 0;
}

static bool format_fits(const char *fmt, unsigned nops)
{
    unsigned w = 0;
    for (const char *f = fmt; *f; f++) {
        if (f[1] == '*')
            return nops >= w;
        w += *f == 'k' ? 2 : 1;
    }
    return nops == w;
}

/* A string usable as a name: in range, non-empty, no NUL inside. */
static bool name_ok(const cvm_bc_module *m, uint32_t idx)
{
    if (idx >= m->nstrings)
        return false;
    const cvm_bc_string *s = &m->strings[idx];
    return s->len > 0 && s->data && !memchr(s->data, 0, s->len);
}

static int name_cmp(const cvm_bc_module *m, uint32_t a, uint32_t b)
{
    const cvm_bc_string *x = &m->strings[a], *y = &m->strings[b];
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->data, y->data, x->len);
}

/*
 * Finds two items with equal names (names[i]: valid string index of item
 * i) by a merge sort of item indexes: n log n comparisons whatever the
 * names are. *out_dup = the later item of an equal pair, or UINT32_MAX.
 */
static cvm_status find_dup_name(const cvm_bc_module *m, const uint32_t *names, uint32_t n,
                                uint32_t *out_dup)
{
    *out_dup = UINT32_MAX;
    if (n < 2)
        return CVM_OK;
    size_t bytes = (size_t)n * 2 * sizeof(uint32_t);
    uint32_t *a = cvm_bc_alloc(m->alloc, m->alloc_user, bytes);
    if (!a)
        return CVM_OUT_OF_MEMORY;
    uint32_t *buf = a, *src = a, *dst = a + n;
    for (uint32_t i = 0; i < n; i++)
        src[i] = i;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = name_cmp(m, names[src[j]], names[src[i]]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    for (uint32_t i = 1; i < n; i++) {
        if (name_cmp(m, names[src[i - 1]], names[src[i]]) == 0) {
            uint32_t d = src[i - 1] > src[i] ? src[i - 1] : src[i];
            if (d < *out_dup)
                *out_dup = d;
        }
    }
    cvm_bc_free(m->alloc, m->alloc_user, buf, bytes);
    return CVM_OK;
}

/* ---- per-kernel state ---- */

typedef struct frame {
    uint8_t kind;        /* CVM_OP_IF, CVM_OP_LOOP, CVM_OP_SWITCH or CVM_OP_BLOCK */
    uint8_t part;        /* 0: then/body/before the first case; 1: else/continuing/a case */
    uint8_t has_default;
    uint32_t open;       /* pc of the opening instruction */
    uint32_t marker;     /* pc of the latest marker, whose target is the next one */
    uint32_t sel;        /* switch selector register */
    uint32_t case0;      /* switch: index of its first value in kctx.cases */
} frame;

typedef struct kctx {
    const cvm_bc_module *mod;
    const cvm_bc_kernel *k;
    uint32_t kidx;
    cvm_bc_vkernel *vk;
    cvm_diag *diag;
    uint32_t pc; /* CVM_BC_NOPC for kernel-level diagnostics */
    const cvm_bc_opinfo *oi;
    cvm_bc_insn in;
    uint32_t regs[CVM_BC_MAX_OPERANDS]; /* register operands of the instruction */
    uint8_t argno[CVM_BC_MAX_OPERANDS]; /* their 1-based operand numbers */
    unsigned nr;
    frame frames[CVM_BC_MAX_DEPTH];
    unsigned nframes;
    uint8_t *selector;  /* per register: open switches selecting on it */
    uint8_t *ndefs;     /* per register: definitions, saturating at 2 */
    uint32_t *defpc;    /* per register: pc of its first definition */
    uint64_t *cases;    /* value << 32 | pc of the values of open switches */
    uint32_t ncases, cases_cap;
    cvm_bc_where *where; /* where a diagnostic points (kernel, pc), or NULL */
} kctx;

static void kname(const kctx *c, char *buf, size_t n)
{
    if (c->k->name < c->mod->nstrings && c->mod->strings[c->k->name].data) {
        const cvm_bc_string *s = &c->mod->strings[c->k->name];
        snprintf(buf, n, "%.*s", (int)(s->len < 64 ? s->len : 64), s->data);
    } else {
        snprintf(buf, n, "#%u", c->kidx);
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static cvm_status kfail(const kctx *c, const char *fmt, ...)
{
    char msg[384], name[80];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kname(c, name, sizeof name);
    if (c->where)
        c->where->kernel = c->kidx, c->where->pc = c->pc;
    if (c->pc == CVM_BC_NOPC)
        return cvm_diag_set(c->diag, CVM_VERIFY, "kernel '%s': %s", name, msg);
    if (c->oi)
        return cvm_diag_set(c->diag, CVM_VERIFY, "kernel '%s' pc %u (%s): %s", name, c->pc,
                            c->oi->mnemonic, msg);
    return cvm_diag_set(c->diag, CVM_VERIFY, "kernel '%s' pc %u: %s", name, c->pc, msg);
}

/* ---- kernel header: attributes, parameters, registers ---- */

static cvm_status check_param(kctx *c, uint32_t i, uint64_t *bytes)
{
    const cvm_bc_param *p = &c->k->params[i];
    unsigned esz = cvm_bc_elem_size(p->elem);
    if (!name_ok(c->mod, p->name))
        return kfail(c, "parameter %u has an invalid name", i);
    if (!line_ok(p->line))
        return kfail(c, "parameter %u has line size %u", i, (unsigned)p->line);
    if (!is_pow2(p->align) || p->align > MAX_ALIGN)
        return kfail(c, "parameter %u has alignment %u (want a power of two <= %u)", i, p->align,
                     MAX_ALIGN);
    switch (p->kind) {
    case CVM_PARAM_BUFFER:
        if (!is_value_elem(p->elem) || p->access < CVM_ACCESS_READ ||
            p->access > CVM_ACCESS_READWRITE || p->size != 8)
            return kfail(c, "buffer parameter %u: bad element type, access or size", i);
        break;
    case CVM_PARAM_SCALAR:
    case CVM_PARAM_COMPTIME:
        if (!is_value_elem(p->elem) || p->access != 0 || p->size != esz * p->line)
            return kfail(c, "parameter %u: bad element type, access or size", i);
        break;
    case CVM_PARAM_STRUCT:
        if (p->elem != 0 || p->line != 1 || p->access != 0 || p->size == 0 ||
            p->size > MAX_PARAM_BYTES)
            return kfail(c, "struct parameter %u: bad element type, access or size", i);
        break;
    default:
        return kfail(c, "parameter %u has unknown kind %u", i, (unsigned)p->kind);
    }
    *bytes = ((*bytes + p->align - 1) & ~(uint64_t)(p->align - 1)) + p->size;
    if (*bytes > MAX_PARAM_BYTES)
        return kfail(c, "parameters take more than %u bytes", MAX_PARAM_BYTES);
    return CVM_OK;
}

static cvm_status check_params(kctx *c)
{
    const cvm_bc_kernel *k = c->k;
    if (k->nparams > CVM_BC_MAX_PARAMS)
        return kfail(c, "%u parameters (limit %u)", k->nparams, CVM_BC_MAX_PARAMS);
    if (k->nparams && !k->params)
        return kfail(c, "parameter table missing");
    uint64_t bytes = 0;
    uint32_t names[CVM_BC_MAX_PARAMS];
    for (uint32_t i = 0; i < k->nparams; i++) {
        cvm_status st = check_param(c, i, &bytes);
        if (st)
            return st;
        names[i] = k->params[i].name;
    }
    uint32_t dup;
    cvm_status st = find_dup_name(c->mod, names, k->nparams, &dup);
    if (st)
        return cvm_diag_set(c->diag, st, "out of memory while verifying");
    if (dup != UINT32_MAX)
        return kfail(c, "parameter %u repeats the name '%.64s'", dup,
                     c->mod->strings[names[dup]].data);
    return CVM_OK;
}

static cvm_status check_header(kctx *c)
{
    const cvm_bc_kernel *k = c->k;
    const uint32_t known = CVM_KF_FIXED_WIDTH | CVM_KF_USES_F64 | CVM_KF_USES_F16;
    if (!name_ok(c->mod, k->name))
        return kfail(c, "invalid kernel name (string %u)", k->name);
    if (k->flags & ~known)
        return kfail(c, "unknown kernel flags 0x%x", k->flags & ~known);
    if (k->plane_width && (!is_pow2(k->plane_width) || k->plane_width > CVM_BC_MAX_PLANE))
        return kfail(c, "plane width %u is not a power of two <= %u", k->plane_width,
                     CVM_BC_MAX_PLANE);
    if ((k->flags & CVM_KF_FIXED_WIDTH) && !k->plane_width)
        return kfail(c, "fixed plane width flag without a plane width");
    if (k->shared_bytes > CVM_BC_MAX_SHARED)
        return kfail(c, "%u static shared bytes (limit %u)", k->shared_bytes, CVM_BC_MAX_SHARED);
    if (k->local_bytes > CVM_BC_MAX_LOCAL)
        return kfail(c, "%u local bytes per unit (limit %u)", k->local_bytes, CVM_BC_MAX_LOCAL);
    cvm_status st = check_params(c);
    if (st)
        return st;
    if (k->nregs > CVM_BC_MAX_REGS)
        return kfail(c, "%u registers (limit %u)", k->nregs, CVM_BC_MAX_REGS);
    if (k->nregs && !k->regs)
        return kfail(c, "register table missing");
    uint64_t bytes = 0;
    for (uint32_t r = 0; r < k->nregs; r++) {
        cvm_bc_type t = k->regs[r];
        if (!cvm_bc_elem_name(t.elem) || !line_ok(t.line) ||
            (cvm_bc_elem_is_ptr(t.elem) && t.line != 1))
            return kfail(c, "register %%r%u has an invalid type (elem %u, line %u)", r,
                         (unsigned)t.elem, (unsigned)t.line);
        bytes += (uint64_t)cvm_bc_elem_size(t.elem) * t.line;
    }
    if (bytes > CVM_BC_MAX_REG_BYTES)
        return kfail(c, "registers take %llu bytes per unit (limit %u)", (unsigned long long)bytes,
                     CVM_BC_MAX_REG_BYTES);
    c->vk->reg_bytes = (uint32_t)bytes;
    return CVM_OK;
}

/* First pass: instruction boundaries. Words must be covered exactly. */
static cvm_status decode(kctx *c)
{
    const cvm_bc_kernel *k = c->k;
    if (k->ncode && !k->code)
        return kfail(c, "code missing");
    uint32_t n = 0, nvalues = 0, word = 0;
    cvm_bc_insn in;
    while (word < k->ncode) {
        if (!cvm_bc_insn_at(k, word, &in))
            return kfail(c, "instruction %u at code word %u runs past the end of the code", n,
                         word);
        if (in.op == CVM_OP_CASE)
            nvalues += in.nops;
        if (++n > CVM_BC_MAX_INSNS)
            return kfail(c, "more than %u instructions", CVM_BC_MAX_INSNS);
        word += 2u + in.nops;
    }
    cvm_bc_vkernel *vk = c->vk;
    vk->insns = cvm_bc_alloc(c->mod->alloc, c->mod->alloc_user, (size_t)n * sizeof *vk->insns);
    if (!vk->insns)
        return cvm_diag_set(c->diag, CVM_OUT_OF_MEMORY, "out of memory while verifying");
    vk->ninsns = n;
    word = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        vk->insns[pc].word = word;
        word += 2u + ((k->code[word] >> 16) & 0xff);
    }
    c->cases_cap = nvalues;
    return CVM_OK;
}

/* ---- one instruction: encoding, attributes, operand indexes ---- */

static cvm_status check_attrs(kctx *c)
{
    const cvm_bc_insn *in = &c->in;
    const cvm_bc_opinfo *oi = c->oi;
    char tb[32];
    if (oi->types == CVM_TC_NONE) {
        if (in->elem || in->line)
            return kfail(c, "untyped op with type field elem %u line %u", (unsigned)in->elem,
                         (unsigned)in->line);
    } else {
        if (in->elem >= 32 || !(oi->types & CVM_TBIT(in->elem)) || !cvm_bc_elem_name(in->elem))
            return kfail(c, "type %s is not allowed for this op",
                         cvm_bc_elem_name(in->elem) ? cvm_bc_elem_name(in->elem) : "(invalid)");
        if (!line_ok(in->line))
            return kfail(c, "line size %u (want 1, 2, 4, 8 or 16)", (unsigned)in->line);
        bool scalar_only = cvm_bc_elem_is_ptr(in->elem) ||
                           (oi->flags & (CVM_OPF_PLANE | CVM_OPF_ORDERED)) ||
                           in->op == CVM_OP_ACTIVEMASK;
        if (scalar_only && in->line != 1)
            return kfail(c, "type %s: this op takes scalars only", tyname(mk(in->elem, in->line), tb, sizeof tb));
    }
    if (oi->flags & CVM_OPF_ORDERED) {
        unsigned o = in->order;
        bool ok;
        if (in->op == CVM_OP_LD_ATOMIC)
            ok = o == CVM_ORDER_RELAXED || o == CVM_ORDER_ACQUIRE || o == CVM_ORDER_SEQ_CST;
        else if (in->op == CVM_OP_ST_ATOMIC)
            ok = o == CVM_ORDER_RELAXED || o == CVM_ORDER_RELEASE || o == CVM_ORDER_SEQ_CST;
        else if (in->op == CVM_OP_FENCE)
            ok = o > CVM_ORDER_RELAXED && o < CVM_ORDER_COUNT;
        else
            ok = o >= CVM_ORDER_RELAXED && o < CVM_ORDER_COUNT;
        if (!ok)
            return kfail(c, "memory order %s is not allowed here",
                         cvm_bc_order_name(o) ? cvm_bc_order_name(o) : "(none or invalid)");
        if (in->scope == CVM_SCOPE_NONE || in->scope >= CVM_SCOPE_COUNT)
            return kfail(c, "missing or invalid memory scope %u", (unsigned)in->scope);
    } else if (in->order || in->scope) {
        return kfail(c, "memory order/scope on an op without them");
    }
    bool ldst = oi->rule == CVM_RULE_LD || oi->rule == CVM_RULE_ST;
    if (in->align_log2) {
        unsigned esz = cvm_bc_elem_size(in->elem);
        if (!ldst)
            return kfail(c, "alignment on an op that is not a load or store");
        if (in->align_log2 > 12 || (1u << in->align_log2) < esz)
            return kfail(c, "alignment 2^%u is not between the element size %u and %u",
                         (unsigned)in->align_log2, esz, MAX_ALIGN);
    }
    return CVM_OK;
}

static cvm_status check_operands(kctx *c)
{
    const cvm_bc_insn *in = &c->in;
    const cvm_bc_module *m = c->mod;
    const cvm_bc_kernel *k = c->k;
    unsigned arg = 0;
    c->nr = 0;
    for (unsigned i = 0; i < in->nops; i++) {
        char l = cvm_bc_operand_kind(c->oi->format, i);
        uint32_t v = in->ops[i];
        if (l != 'h')
            arg++;
        switch (l) {
        case 'd':
        case 'r':
            if (v >= k->nregs)
                return kfail(c, "operand %u: register %%r%u out of range (%u registers)", arg, v,
                             k->nregs);
            if (l == 'd' && c->nr != 0)
                return cvm_diag_set(c->diag, CVM_INTERNAL, "op table: 'd' not first");
            c->regs[c->nr] = v;
            c->argno[c->nr] = (uint8_t)arg;
            c->nr++;
            break;
        case 's':
            if (v >= m->nstrings)
                return kfail(c, "operand %u: string %u out of range", arg, v);
            break;
        case 'p':
            if (v >= k->nparams)
                return kfail(c, "operand %u: parameter %u out of range (%u parameters)", arg, v,
                             k->nparams);
            break;
        case 'g':
            if (v >= m->nsymbols)
                return kfail(c, "operand %u: symbol %u out of range", arg, v);
            break;
        case 'x':
            if (v >= CVM_SREG_COUNT || !cvm_bc_sreg_name(v))
                return kfail(c, "operand %u: unknown special register %u", arg, v);
            break;
        default:
            break; /* immediates: checked by the rule or the control pass */
        }
    }
    return CVM_OK;
}

/* ---- operand type rules (one case per CVM_RULE_*) ---- */

static cvm_bc_type rt(const kctx *c, unsigned i) { return c->k->regs[c->regs[i]]; }

static cvm_status want(const kctx *c, unsigned i, bool ok, const char *expect)
{
    if (ok)
        return CVM_OK;
    char tb[32];
    return kfail(c, "operand %u %%r%u has type %s, expected %s", (unsigned)c->argno[i], c->regs[i],
                 tyname(rt(c, i), tb, sizeof tb), expect);
}

static cvm_status want_type(const kctx *c, unsigned i, cvm_bc_type t)
{
    char tb[32];
    return want(c, i, type_eq(rt(c, i), t), tyname(t, tb, sizeof tb));
}

static bool scalar_in(cvm_bc_type t, uint32_t tc) { return t.line == 1 && t.elem < 32 && (tc & CVM_TBIT(t.elem)); }

#define TRY(x)                                                                                     \
    do {                                                                                           \
        cvm_status st_ = (x);                                                                      \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)

#define TC_GS (CVM_TBIT(CVM_T_PTR_GLOBAL) | CVM_TBIT(CVM_T_PTR_SHARED))

static cvm_status rule_const(kctx *c, cvm_bc_type T)
{
    uint64_t v = c->in.ops[1] | (uint64_t)c->in.ops[2] << 32;
    TRY(want_type(c, 0, T));
    if (T.elem == CVM_T_BOOL && v > 1)
        return kfail(c, "bool constant %llu is not 0 or 1", (unsigned long long)v);
    if (T.elem == CVM_T_PTR_GLOBAL && v != 0)
        return kfail(c, "ptr.global constant must be 0 (null)");
    if (cvm_bc_elem_is_ptr(T.elem) && v > UINT32_MAX)
        return kfail(c, "pointer constant does not fit 32 bits");
    return CVM_OK;
}

static cvm_status rule_param(kctx *c, cvm_bc_type T)
{
    const cvm_bc_param *p = &c->k->params[c->in.ops[1]];
    uint64_t off = c->in.ops[2], size = (uint64_t)cvm_bc_elem_size(T.elem) * T.line;
    TRY(want_type(c, 0, T));
    if (off + size > p->size)
        return kfail(c, "reads bytes %llu..%llu of parameter %u, which has %u bytes",
                     (unsigned long long)off, (unsigned long long)(off + size), c->in.ops[1],
                     p->size);
    if (p->kind == CVM_PARAM_BUFFER && (T.elem != CVM_T_PTR_GLOBAL || off != 0))
        return kfail(c, "buffer parameter %u is read as ptr.global at offset 0", c->in.ops[1]);
    if (T.elem == CVM_T_PTR_GLOBAL && p->kind != CVM_PARAM_BUFFER && p->kind != CVM_PARAM_STRUCT)
        return kfail(c, "ptr.global from a scalar parameter");
    return CVM_OK;
}

static cvm_status rule_sym(kctx *c, cvm_bc_type T)
{
    const cvm_bc_symbol *s = &c->mod->symbols[c->in.ops[1]];
    unsigned want_elem = s->space == CVM_SYM_CONST ? CVM_T_PTR_CONST : CVM_T_PTR_GLOBAL;
    if (T.elem != want_elem)
        return kfail(c, "symbol %u lives in %s space; its address is %s", c->in.ops[1],
                     s->space == CVM_SYM_CONST ? "constant" : "global",
                     cvm_bc_elem_name(want_elem));
    return want_type(c, 0, T);
}

static cvm_status rule_lanes(kctx *c, cvm_bc_type T)
{
    char tb[32];
    cvm_bc_type E = mk(T.elem, 1);
    switch (c->oi->rule) {
    case CVM_RULE_SELECT: {
        cvm_bc_type cc = rt(c, 3);
        TRY(want_type(c, 0, T));
        TRY(want_type(c, 1, T));
        TRY(want_type(c, 2, T));
        return want(c, 3, cc.elem == CVM_T_BOOL && (cc.line == 1 || cc.line == T.line),
                    "bool or a bool line of the same size");
    }
    case CVM_RULE_EXTRACT:
        if (T.line != 1)
            return kfail(c, "extract writes a scalar");
        TRY(want_type(c, 0, T));
        TRY(want(c, 1, rt(c, 1).elem == T.elem, "a line of the instruction's element type"));
        if (c->in.ops[2] >= rt(c, 1).line)
            return kfail(c, "element %u of a %u-element line", c->in.ops[2], (unsigned)rt(c, 1).line);
        return CVM_OK;
    case CVM_RULE_INSERT:
        TRY(want_type(c, 0, T));
        TRY(want_type(c, 1, T));
        TRY(want_type(c, 2, E));
        if (c->in.ops[3] >= T.line)
            return kfail(c, "element %u of a %u-element line", c->in.ops[3], (unsigned)T.line);
        return CVM_OK;
    case CVM_RULE_BUILD:
        TRY(want_type(c, 0, T));
        if (c->nr - 1 != T.line)
            return kfail(c, "%u elements for a %s", c->nr - 1, tyname(T, tb, sizeof tb));
        for (unsigned i = 1; i < c->nr; i++)
            TRY(want_type(c, i, E));
        return CVM_OK;
    default: /* CVM_RULE_SPLAT */
        TRY(want_type(c, 0, T));
        return want_type(c, 1, E);
    }
}

static cvm_status rule_arith(kctx *c, cvm_bc_type T)
{
    cvm_bc_type a = c->nr > 1 ? rt(c, 1) : mk(0, 0);
    switch (c->oi->rule) {
    case CVM_RULE_CMP:
        TRY(want_type(c, 0, mk(CVM_T_BOOL, T.line)));
        TRY(want_type(c, 1, T));
        return want_type(c, 2, T);
    case CVM_RULE_TEST:
        TRY(want_type(c, 0, mk(CVM_T_BOOL, T.line)));
        return want_type(c, 1, T);
    case CVM_RULE_SHIFT:
        TRY(want_type(c, 0, T));
        TRY(want_type(c, 1, T));
        return want(c, 2, rt(c, 2).line == T.line && rt(c, 2).elem >= CVM_T_U8 && rt(c, 2).elem <= CVM_T_U64,
                    "an unsigned integer of the same line size");
    case CVM_RULE_COUNT:
        TRY(want_type(c, 0, mk(CVM_T_U32, T.line)));
        return want_type(c, 1, T);
    case CVM_RULE_CVT:
        TRY(want_type(c, 0, T));
        return want(c, 1, a.line == T.line && (CVM_TC_NUM_BOOL & CVM_TBIT(a.elem)),
                    "a number or bool of the same line size");
    case CVM_RULE_BITCAST:
        TRY(want_type(c, 0, T));
        return want(c, 1, (CVM_TC_NUM & CVM_TBIT(a.elem)) &&
                          cvm_bc_elem_size(a.elem) * a.line == cvm_bc_elem_size(T.elem) * T.line,
                    "a number of the same total size");
    case CVM_RULE_PTRADD:
        TRY(want_type(c, 0, T));
        TRY(want_type(c, 1, T));
        return want(c, 2, scalar_in(rt(c, 2), CVM_TBIT(CVM_T_I32) | CVM_TBIT(CVM_T_I64)),
                    "scalar i32 or i64");
    default: /* CVM_RULE_PTRDIFF */
        TRY(want_type(c, 0, mk(CVM_T_I64, 1)));
        if (!type_eq(T, mk(CVM_T_I64, 1)))
            return kfail(c, "ptr.diff has type i64");
        TRY(want(c, 1, scalar_in(a, CVM_TC_PTR), "a pointer"));
        return want_type(c, 2, a);
    }
}

static cvm_status rule_memory(kctx *c, cvm_bc_type T)
{
    bool atomic = c->in.op == CVM_OP_LD_ATOMIC || c->in.op == CVM_OP_ST_ATOMIC;
    uint32_t spaces = atomic ? TC_GS : CVM_TC_PTR;
    const char *sp = atomic ? "ptr.global or ptr.shared" : "a pointer";
    switch (c->oi->rule) {
    case CVM_RULE_LD:
        TRY(want_type(c, 0, T));
        return want(c, 1, scalar_in(rt(c, 1), spaces), sp);
    case CVM_RULE_ST:
        if (!atomic) {
            spaces &= ~CVM_TBIT(CVM_T_PTR_CONST);
            sp = "a writable pointer (not ptr.const)";
        }
        TRY(want(c, 0, scalar_in(rt(c, 0), spaces), sp));
        return want_type(c, 1, T);
    case CVM_RULE_ATOM:
        TRY(want_type(c, 0, T));
        TRY(want(c, 1, scalar_in(rt(c, 1), TC_GS), "ptr.global or ptr.shared"));
        return want_type(c, 2, T);
    default: /* CVM_RULE_CAS */
        TRY(want_type(c, 0, T));
        TRY(want(c, 1, scalar_in(rt(c, 1), TC_GS), "ptr.global or ptr.shared"));
        TRY(want_type(c, 2, T));
        return want_type(c, 3, T);
    }
}

static cvm_status rule_plane(kctx *c, cvm_bc_type T)
{
    const cvm_bc_type B = mk(CVM_T_BOOL, 1);
    if (c->oi->rule != CVM_RULE_ACTIVEMASK)
        TRY(want(c, c->nr - 1, scalar_in(rt(c, c->nr - 1), CVM_TC_MASK), "a u32 or u64 member mask"));
    switch (c->oi->rule) {
    case CVM_RULE_ACTIVEMASK:
        return want_type(c, 0, T);
    case CVM_RULE_SHFL:
        TRY(want_type(c, 0, T));
        TRY(want_type(c, 1, T));
        return want_type(c, 2, mk(CVM_T_U32, 1));
    case CVM_RULE_VOTE:
        TRY(want_type(c, 0, B));
        return want_type(c, 1, B);
    case CVM_RULE_BALLOT:
        TRY(want_type(c, 0, T));
        return want_type(c, 1, B);
    case CVM_RULE_PLANEVAL:
        TRY(want_type(c, 0, T));
        return want_type(c, 1, T);
    case CVM_RULE_MATCH:
        TRY(want_type(c, 0, T));
        return want(c, 1, scalar_in(rt(c, 1), CVM_TC_INT | CVM_TC_FLOAT), "a scalar integer or float");
    default: /* CVM_RULE_PLANEMASK: only the mask */
        return CVM_OK;
    }
}

static cvm_status check_rule(kctx *c)
{
    cvm_bc_type T = mk(c->in.elem, c->in.line);
    const cvm_bc_type B = mk(CVM_T_BOOL, 1);
    switch ((cvm_bc_rule)c->oi->rule) {
    case CVM_RULE_NONE:
        return CVM_OK;
    case CVM_RULE_COND:
        return want_type(c, 0, B);
    case CVM_RULE_SELECTOR:
        return want(c, 0, scalar_in(rt(c, 0), CVM_TC_INT), "a scalar integer");
    case CVM_RULE_SAME:
        for (unsigned i = 0; i < c->nr; i++)
            TRY(want_type(c, i, T));
        return CVM_OK;
    case CVM_RULE_CONST:
        return rule_const(c, T);
    case CVM_RULE_PARAM:
        return rule_param(c, T);
    case CVM_RULE_SYM:
        return rule_sym(c, T);
    case CVM_RULE_SREG:
        if (T.line != 1 || cvm_bc_elem_size(T.elem) < 4)
            return kfail(c, "sreg writes a scalar 32- or 64-bit integer");
        return want_type(c, 0, T);
    case CVM_RULE_SELECT:
    case CVM_RULE_EXTRACT:
    case CVM_RULE_INSERT:
    case CVM_RULE_BUILD:
    case CVM_RULE_SPLAT:
        return rule_lanes(c, T);
    case CVM_RULE_CMP:
    case CVM_RULE_TEST:
    case CVM_RULE_SHIFT:
    case CVM_RULE_COUNT:
    case CVM_RULE_CVT:
    case CVM_RULE_BITCAST:
    case CVM_RULE_PTRADD:
    case CVM_RULE_PTRDIFF:
        return rule_arith(c, T);
    case CVM_RULE_LD:
    case CVM_RULE_ST:
    case CVM_RULE_ATOM:
    case CVM_RULE_CAS:
        return rule_memory(c, T);
    case CVM_RULE_SYNCPRED:
        TRY(want_type(c, 0, c->in.op == CVM_OP_SYNC_CUBE_COUNT ? mk(CVM_T_U32, 1) : B));
        return want_type(c, 1, B);
    case CVM_RULE_BAR: /* uniformity: after the divergence analysis */
        TRY(want_type(c, 0, mk(CVM_T_U32, 1)));
        return want_type(c, 1, mk(CVM_T_U32, 1));
    case CVM_RULE_PLANEMASK:
    case CVM_RULE_ACTIVEMASK:
    case CVM_RULE_SHFL:
    case CVM_RULE_VOTE:
    case CVM_RULE_BALLOT:
    case CVM_RULE_PLANEVAL:
    case CVM_RULE_MATCH:
        return rule_plane(c, T);
    case CVM_RULE_PRINT:
        for (unsigned i = 0; i < c->nr; i++)
            TRY(want(c, i, rt(c, i).line == 1, "a scalar"));
        return CVM_OK;
    }
    return cvm_diag_set(c->diag, CVM_INTERNAL, "op table: unknown rule %u", (unsigned)c->oi->rule);
}

/* ---- structured control flow ---- */

static uint16_t op_at(const kctx *c, uint32_t pc)
{
    return (uint16_t)(c->k->code[c->vk->insns[pc].word] & 0xffff);
}

static cvm_status push(kctx *c, unsigned kind)
{
    if (c->nframes >= CVM_BC_MAX_DEPTH)
        return kfail(c, "constructs nested deeper than %u", CVM_BC_MAX_DEPTH);
    frame *f = &c->frames[c->nframes++];
    memset(f, 0, sizeof *f);
    f->kind = (uint8_t)kind;
    f->open = f->marker = c->pc;
    if (kind == CVM_OP_SWITCH) {
        f->sel = c->regs[0];
        f->case0 = c->ncases;
        c->selector[f->sel]++;
    }
    if (c->nframes > c->vk->max_depth)
        c->vk->max_depth = c->nframes;
    return CVM_OK;
}

/* A marker (else, continuing, case, default) of the innermost construct. */
static void marker(kctx *c, frame *f)
{
    c->vk->insns[f->marker].target = c->pc;
    f->marker = c->pc;
    f->part = 1;
    c->vk->insns[c->pc].depth = (uint16_t)(c->nframes - 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Case values of the closing switch f: unique (sorted with their pcs). */
static cvm_status close_switch(kctx *c, frame *f)
{
    uint32_t n = c->ncases - f->case0;
    uint64_t *v = c->cases + f->case0;
    if (n > c->vk->max_cases)
        c->vk->max_cases = n;
    c->selector[f->sel]--;
    qsort(v, n, sizeof *v, cmp_u64);
    for (uint32_t i = 1; i < n; i++) {
        if (v[i] >> 32 == v[i - 1] >> 32) {
            c->pc = (uint32_t)v[i];
            c->oi = cvm_bc_op_info(CVM_OP_CASE);
            return kfail(c, "duplicate case value %u (also at pc %u)", (unsigned)(v[i] >> 32),
                         (unsigned)v[i - 1]);
        }
    }
    c->ncases = f->case0;
    return CVM_OK;
}

static cvm_status close_construct(kctx *c)
{
    if (!c->nframes)
        return kfail(c, "end without an open construct");
    frame *f = &c->frames[c->nframes - 1];
    cvm_bc_vinsn *insns = c->vk->insns;
    insns[f->marker].target = c->pc;
    insns[c->pc].target = f->open;
    insns[c->pc].depth = (uint16_t)(c->nframes - 1);
    for (uint32_t m = f->open; m != c->pc; m = insns[m].target)
        insns[m].end = c->pc;
    insns[c->pc].end = c->pc;
    if (f->kind == CVM_OP_SWITCH)
        TRY(close_switch(c, f));
    c->nframes--;
    return CVM_OK;
}

static bool case_fits(unsigned elem, uint32_t w)
{
    int32_t s = (int32_t)w;
    switch (elem) {
    case CVM_T_U8: return w <= 0xff;
    case CVM_T_U16: return w <= 0xffff;
    case CVM_T_I8: return s >= -128 && s <= 127;
    case CVM_T_I16: return s >= -32768 && s <= 32767;
    default: return true;
    }
}

static cvm_status check_case(kctx *c, frame *f)
{
    if (!f || f->kind != CVM_OP_SWITCH)
        return kfail(c, "%s outside a switch", c->oi->mnemonic);
    if (c->in.op == CVM_OP_DEFAULT) {
        if (f->has_default)
            return kfail(c, "second default in the switch at pc %u", f->open);
        f->has_default = 1;
    } else {
        unsigned sel = c->k->regs[f->sel].elem;
        if (!c->in.nops)
            return kfail(c, "case without values");
        for (unsigned i = 0; i < c->in.nops; i++) {
            uint32_t w = c->in.ops[i];
            if (!case_fits(sel, w))
                return kfail(c, "case value %d does not fit the %s selector", (int)w,
                             cvm_bc_elem_name(sel));
            if (c->ncases >= c->cases_cap)
                return cvm_diag_set(c->diag, CVM_INTERNAL, "case value count");
            c->cases[c->ncases++] = (uint64_t)w << 32 | c->pc;
        }
    }
    marker(c, f);
    return CVM_OK;
}

/* The innermost loop/switch (break) or loop (continue) around pc. */
static cvm_status check_jump(kctx *c)
{
    cvm_bc_vinsn *vi = &c->vk->insns[c->pc];
    bool is_break = c->in.op == CVM_OP_BREAK;
    for (unsigned i = c->nframes; i-- > 0;) {
        frame *f = &c->frames[i];
        if (f->kind == CVM_OP_LOOP) {
            if (f->part)
                return kfail(c, "%s in the continuing part of a loop%s", c->oi->mnemonic,
                             is_break ? " (use break_if)" : "");
            vi->end = f->open;
            return CVM_OK;
        }
        if (f->kind == CVM_OP_SWITCH && is_break) {
            vi->end = f->open;
            return CVM_OK;
        }
    }
    return kfail(c, is_break ? "break outside a loop or switch" : "continue outside a loop");
}

static cvm_status check_exit(kctx *c)
{
    uint32_t want_depth = c->in.ops[0], blocks = 0;
    for (unsigned i = c->nframes; i-- > 0;) {
        frame *f = &c->frames[i];
        if (f->kind == CVM_OP_LOOP && f->part)
            return kfail(c, "exit leaves the continuing part of the loop at pc %u", f->open);
        if (f->kind == CVM_OP_BLOCK && blocks++ == want_depth) {
            c->vk->insns[c->pc].end = f->open;
            return CVM_OK;
        }
    }
    return kfail(c, "exit %u but only %u enclosing blocks", want_depth, blocks);
}

static cvm_status check_control(kctx *c)
{
    frame *top = c->nframes ? &c->frames[c->nframes - 1] : NULL;
    cvm_bc_vinsn *vi = &c->vk->insns[c->pc];
    unsigned op = c->in.op;
    if (top && top->kind == CVM_OP_SWITCH && !top->part && op != CVM_OP_CASE &&
        op != CVM_OP_DEFAULT && op != CVM_OP_END)
        return kfail(c, "the switch at pc %u must be followed by case, default or end", top->open);
    vi->depth = (uint16_t)c->nframes;
    vi->end = top ? top->open : CVM_BC_NOPC; /* resolved by finish_kernel */
    switch (op) {
    case CVM_OP_IF:
    case CVM_OP_LOOP:
    case CVM_OP_SWITCH:
    case CVM_OP_BLOCK:
        return push(c, op);
    case CVM_OP_ELSE:
    case CVM_OP_CONTINUING:
        if (!top || top->kind != (op == CVM_OP_ELSE ? CVM_OP_IF : CVM_OP_LOOP) || top->part)
            return kfail(c, "%s without an open %s", c->oi->mnemonic,
                         op == CVM_OP_ELSE ? "if" : "loop");
        marker(c, top);
        return CVM_OK;
    case CVM_OP_CASE:
    case CVM_OP_DEFAULT:
        return check_case(c, top);
    case CVM_OP_END:
        return close_construct(c);
    case CVM_OP_BREAK_IF:
        if (!top || top->kind != CVM_OP_LOOP || !top->part)
            return kfail(c, "break_if outside the continuing part of a loop");
        return CVM_OK;
    case CVM_OP_BREAK:
    case CVM_OP_CONTINUE:
        return check_jump(c);
    case CVM_OP_EXIT:
        return check_exit(c);
    case CVM_OP_RETURN:
        for (unsigned i = 0; i < c->nframes; i++)
            if (c->frames[i].kind == CVM_OP_LOOP && c->frames[i].part)
                return kfail(c, "return in the continuing part of a loop");
        vi->end = CVM_BC_NOPC;
        return CVM_OK;
    case CVM_OP_FALLTHROUGH: {
        uint16_t next = c->pc + 1 < c->vk->ninsns ? op_at(c, c->pc + 1) : CVM_OP_END;
        if (!top || top->kind != CVM_OP_SWITCH ||
            (next != CVM_OP_CASE && next != CVM_OP_DEFAULT))
            return kfail(c, "fallthrough must be the last instruction of a case that another "
                            "case or default follows");
        return CVM_OK;
    }
    default:
        return CVM_OK;
    }
}

/* ---- one instruction ---- */

static cvm_status check_insn(kctx *c, uint32_t pc)
{
    c->pc = pc;
    c->oi = NULL;
    uint32_t word = c->vk->insns[pc].word;
    cvm_bc_insn_at(c->k, word, &c->in); /* fits: checked by decode() */
    c->oi = cvm_bc_op_info(c->in.op);
    if (!c->oi)
        return kfail(c, "unknown opcode 0x%x", (unsigned)c->in.op);
    if (c->k->code[word] >> 24)
        return kfail(c, "reserved bits set in the first instruction word");
    if (!format_fits(c->oi->format, c->in.nops))
        return kfail(c, "%u operand words do not match the format \"%s\"", (unsigned)c->in.nops,
                     c->oi->format);
    TRY(check_attrs(c));
    TRY(check_operands(c));
    TRY(check_rule(c));
    if (c->nr && cvm_bc_operand_kind(c->oi->format, 0) == 'd') {
        uint32_t d = c->regs[0];
        if (c->selector[d])
            return kfail(c, "writes %%r%u, the selector of an enclosing switch", d);
        if (c->ndefs[d] == 0)
            c->defpc[d] = pc;
        if (c->ndefs[d] < 2)
            c->ndefs[d]++;
    }
    uint8_t fl = c->oi->flags;
    cvm_bc_vkernel *vk = c->vk;
    vk->uses_barrier |= (fl & CVM_OPF_BARRIER) != 0;
    vk->uses_plane_ops |= (fl & CVM_OPF_PLANE) || c->in.op == CVM_OP_ACTIVEMASK;
    vk->uses_atomics |= c->oi->rule == CVM_RULE_ATOM || c->oi->rule == CVM_RULE_CAS ||
                        c->in.op == CVM_OP_LD_ATOMIC || c->in.op == CVM_OP_ST_ATOMIC;
    vk->uses_print |= c->in.op == CVM_OP_PRINT;
    return check_control(c);
}

static bool is_structural(unsigned op)
{
    switch (op) {
    case CVM_OP_IF: case CVM_OP_ELSE: case CVM_OP_LOOP: case CVM_OP_CONTINUING:
    case CVM_OP_SWITCH: case CVM_OP_CASE: case CVM_OP_DEFAULT: case CVM_OP_BLOCK:
    case CVM_OP_END:
        return true;
    default:
        return false;
    }
}

/* Resolves `end` of non-structural instructions and computes `next`. */
static void finish_kernel(kctx *c)
{
    cvm_bc_vkernel *vk = c->vk;
    uint32_t n = vk->ninsns, nxt[CVM_BC_MAX_DEPTH + 2];
    for (uint32_t pc = 0; pc < n; pc++) {
        cvm_bc_vinsn *vi = &vk->insns[pc];
        if (!is_structural(op_at(c, pc)))
            vi->end = vi->end == CVM_BC_NOPC ? n : vk->insns[vi->end].end;
    }
    nxt[0] = n;
    for (uint32_t pc = n; pc-- > 0;) {
        cvm_bc_vinsn *vi = &vk->insns[pc];
        unsigned op = op_at(c, pc), d = vi->depth;
        if (op == CVM_OP_ELSE || op == CVM_OP_CONTINUING || op == CVM_OP_CASE ||
            op == CVM_OP_DEFAULT || op == CVM_OP_END) {
            vi->next = op == CVM_OP_END ? nxt[d] : vi->target;
            nxt[d + 1] = pc;
        } else {
            vi->next = nxt[d];
        }
    }
}

/* Named barrier operands: cube-uniform; constant ids 0..15, counts > 0. */
static cvm_status check_barriers(kctx *c)
{
    const cvm_bc_vkernel *vk = c->vk;
    for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
        c->pc = pc;
        cvm_bc_insn_at(c->k, vk->insns[pc].word, &c->in);
        c->oi = cvm_bc_op_info(c->in.op);
        if (c->oi->rule != CVM_RULE_BAR)
            continue;
        for (unsigned i = 0; i < 2; i++) {
            uint32_t r = c->in.ops[i];
            if (vk->reg_uni[r] > CVM_UNI_CUBE)
                return kfail(c, "barrier %s %%r%u is not cube-uniform", i ? "count" : "id", r);
            if (c->ndefs[r] != 1)
                continue;
            cvm_bc_insn def;
            cvm_bc_insn_at(c->k, vk->insns[c->defpc[r]].word, &def);
            if (def.op != CVM_OP_CONST)
                continue;
            uint64_t v = def.ops[1] | (uint64_t)def.ops[2] << 32;
            if (i == 0 && v > 15)
                return kfail(c, "barrier id %llu (want 0..15)", (unsigned long long)v);
            if (i == 1 && (v == 0 || (c->k->plane_width && v % c->k->plane_width)))
                return kfail(c, "barrier count %llu is not a positive multiple of the plane width",
                             (unsigned long long)v);
        }
    }
    return CVM_OK;
}

/* ---- one kernel ---- */

static void kctx_free(kctx *c)
{
    cvm_alloc_fn fn = c->mod->alloc;
    void *u = c->mod->alloc_user;
    uint32_t nregs = c->k->nregs;
    cvm_bc_free(fn, u, c->selector, nregs);
    cvm_bc_free(fn, u, c->ndefs, nregs);
    cvm_bc_free(fn, u, c->defpc, (size_t)nregs * sizeof *c->defpc);
    cvm_bc_free(fn, u, c->cases, (size_t)c->cases_cap * sizeof *c->cases);
}

static cvm_status verify_kernel(const cvm_bc_module *mod, uint32_t kidx, cvm_bc_vkernel *vk,
                                cvm_diag *diag, cvm_bc_where *where)
{
    kctx c;
    memset(&c, 0, sizeof c);
    c.where = where;
    c.mod = mod;
    c.k = &mod->kernels[kidx];
    c.kidx = kidx;
    c.vk = vk;
    c.diag = diag;
    c.pc = CVM_BC_NOPC;
    cvm_alloc_fn fn = mod->alloc;
    void *u = mod->alloc_user;
    cvm_status st = check_header(&c);
    if (st)
        goto fail;
    st = decode(&c);
    if (st)
        goto fail;
    uint32_t nregs = c.k->nregs;
    c.selector = cvm_bc_alloc(fn, u, nregs);
    c.ndefs = cvm_bc_alloc(fn, u, nregs);
    c.defpc = cvm_bc_alloc(fn, u, (size_t)nregs * sizeof *c.defpc);
    c.cases = cvm_bc_alloc(fn, u, (size_t)c.cases_cap * sizeof *c.cases);
    vk->reg_uni = cvm_bc_alloc(fn, u, nregs);
    if (!c.selector || !c.ndefs || !c.defpc || !c.cases || !vk->reg_uni) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while verifying");
        goto fail;
    }
    for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
        st = check_insn(&c, pc);
        if (st)
            goto fail;
    }
    if (c.nframes) {
        c.pc = c.frames[c.nframes - 1].open;
        c.oi = cvm_bc_op_info(op_at(&c, c.pc));
        st = kfail(&c, "construct is not closed by end");
        goto fail;
    }
    finish_kernel(&c);
    st = cvm_bc_divergence(mod, c.k, vk, diag);
    if (st)
        goto fail;
    st = check_barriers(&c);
fail:
    kctx_free(&c);
    return st;
}

/* ---- module level: strings, symbols, names, debug info ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static cvm_status mfail(cvm_diag *diag, const char *fmt, ...)
{
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cvm_diag_set(diag, CVM_VERIFY, "%s", msg);
}

static cvm_status check_symbols(const cvm_bc_module *m, cvm_diag *diag)
{
    uint64_t global_bytes = 0;
    if (m->const_size > m->ndata)
        return mfail(diag, "constant space of %u bytes exceeds the %u data bytes", m->const_size,
                     m->ndata);
    if (m->const_size > CVM_BC_MAX_CONST)
        return mfail(diag, "constant space of %u bytes exceeds the limit of %u", m->const_size,
                     CVM_BC_MAX_CONST);
    if (m->nsymbols && !m->symbols)
        return mfail(diag, "symbol table missing");
    for (uint32_t i = 0; i < m->nsymbols; i++) {
        const cvm_bc_symbol *s = &m->symbols[i];
        if (!name_ok(m, s->name))
            return mfail(diag, "symbol %u has an invalid name", i);
        const char *nm = m->strings[s->name].data;
        if (s->space > CVM_SYM_CONST || s->reserved ||
            (s->elem && (!is_value_elem(s->elem))))
            return mfail(diag, "symbol '%.64s': bad space, element type or reserved field", nm);
        if (!is_pow2(s->align) || s->align > MAX_ALIGN || s->size == 0)
            return mfail(diag, "symbol '%.64s': size %u, alignment %u", nm, s->size, s->align);
        if (s->init_size > s->size || (uint64_t)s->init_off + s->init_size > m->ndata)
            return mfail(diag, "symbol '%.64s': initializer %u+%u outside the %u data bytes", nm,
                         s->init_off, s->init_size, m->ndata);
        if (s->space == CVM_SYM_CONST &&
            ((uint64_t)s->init_off + s->size > m->const_size || s->init_off % s->align))
            return mfail(diag, "constant symbol '%.64s' at %u+%u outside the %u-byte constant "
                         "space or misaligned", nm, s->init_off, s->size, m->const_size);
        if (s->space == CVM_SYM_GLOBAL) {
            global_bytes += (uint64_t)s->size + s->align;
            if (global_bytes > MAX_GLOBAL_BYTES)
                return mfail(diag, "global symbols take more than %u bytes", MAX_GLOBAL_BYTES);
        }
    }
    return CVM_OK;
}

/* Unique names of kernels (which == 0) or symbols (which == 1). */
static cvm_status check_unique(const cvm_bc_module *m, int which, cvm_diag *diag)
{
    uint32_t n = which ? m->nsymbols : m->nkernels;
    if (n < 2)
        return CVM_OK;
    uint32_t *names = cvm_bc_alloc(m->alloc, m->alloc_user, (size_t)n * sizeof *names);
    if (!names)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while verifying");
    for (uint32_t i = 0; i < n; i++)
        names[i] = which ? m->symbols[i].name : m->kernels[i].name;
    uint32_t dup;
    cvm_status st = find_dup_name(m, names, n, &dup);
    if (st)
        st = cvm_diag_set(diag, st, "out of memory while verifying");
    else if (dup != UINT32_MAX)
        st = mfail(diag, "%s %u repeats the name '%.64s'", which ? "symbol" : "kernel", dup,
                   m->strings[names[dup]].data);
    cvm_bc_free(m->alloc, m->alloc_user, names, (size_t)n * sizeof *names);
    return st;
}

static bool range_ok(const cvm_bc_verified *v, uint32_t kernel, uint32_t a, uint32_t b)
{
    return kernel < v->mod->nkernels && a <= b && b <= v->kernels[kernel].ninsns;
}

static cvm_status check_debug_lines(const cvm_bc_verified *v, cvm_diag *diag)
{
    const cvm_bc_module *m = v->mod;
    const cvm_bc_debug *d = &m->debug;
    if ((d->nfiles && !d->files) || (d->nlines && !d->lines) || (d->nscopes && !d->scopes) ||
        (d->ninlines && !d->inlines) || (d->nvars && !d->vars))
        return mfail(diag, "debug table missing");
    for (uint32_t i = 0; i < d->nfiles; i++)
        if (d->files[i] >= m->nstrings)
            return mfail(diag, "debug file %u: string %u out of range", i, d->files[i]);
    for (uint32_t i = 0; i < d->nlines; i++) {
        const cvm_bc_dline *l = &d->lines[i];
        if (!range_ok(v, l->kernel, l->pc, l->pc) || l->file >= d->nfiles)
            return mfail(diag, "debug line %u: kernel %u pc %u file %u out of range", i, l->kernel,
                         l->pc, l->file);
        if (i && (l->kernel < l[-1].kernel || (l->kernel == l[-1].kernel && l->pc < l[-1].pc)))
            return mfail(diag, "debug line %u: not sorted by kernel and pc", i);
    }
    return CVM_OK;
}

/*
 * Debug scopes and inlined-call frames are ranges that the text form writes
 * as properly nested .scope/.endscope (.inline/.endinline) pairs, so a
 * valid module holds exactly what the text can say: per kernel, in order of
 * start, non-empty, nested, each range's parent the innermost range still
 * open where it starts. (Binary -> text -> binary is then byte-identical.)
 * The walk up the parents pops each closed range once: linear time.
 */
typedef struct range_ref {
    uint32_t kernel, start_pc, end_pc, parent;
} range_ref;

static range_ref scope_ref(const cvm_bc_debug *d, uint32_t i)
{
    const cvm_bc_dscope *s = &d->scopes[i];
    return (range_ref){s->kernel, s->start_pc, s->end_pc, s->parent};
}

static range_ref inline_ref(const cvm_bc_debug *d, uint32_t i)
{
    const cvm_bc_dinline *s = &d->inlines[i];
    return (range_ref){s->kernel, s->start_pc, s->end_pc, s->parent};
}

static cvm_status check_nesting(const cvm_bc_verified *v, uint32_t n,
                                range_ref (*get)(const cvm_bc_debug *, uint32_t), const char *what,
                                cvm_diag *diag)
{
    const cvm_bc_debug *d = &v->mod->debug;
    for (uint32_t i = 0; i < n; i++) {
        range_ref s = get(d, i), prev = i ? get(d, i - 1) : s;
        if (!range_ok(v, s.kernel, s.start_pc, s.end_pc) || s.start_pc == s.end_pc)
            return mfail(diag, "debug %s %u: kernel %u or pcs %u..%u out of range or empty", what, i,
                         s.kernel, s.start_pc, s.end_pc);
        if (i && (s.kernel < prev.kernel || (s.kernel == prev.kernel && s.start_pc < prev.start_pc)))
            return mfail(diag, "debug %s %u: not sorted by kernel and start pc", what, i);
        /* The innermost range still open at s.start_pc: i - 1 or one of its ancestors. */
        uint32_t open = i && prev.kernel == s.kernel ? i - 1 : UINT32_MAX;
        while (open != UINT32_MAX && get(d, open).end_pc <= s.start_pc)
            open = get(d, open).parent;
        if (s.parent != open || (open != UINT32_MAX && get(d, open).end_pc < s.end_pc))
            return mfail(diag, "debug %s %u (pcs %u..%u): not nested in the innermost open %s",
                         what, i, s.start_pc, s.end_pc, what);
    }
    return CVM_OK;
}

/*
 * A variable is declared where the text writes its .var: at its start pc,
 * in the innermost scope open there (or the scope opening there), live to
 * the end of that scope (of the kernel without one); in the order the
 * disassembler writes them.
 */
static cvm_status check_vars(const cvm_bc_verified *v, cvm_diag *diag)
{
    const cvm_bc_module *m = v->mod;
    const cvm_bc_debug *d = &m->debug;
    uint32_t next = 0, cur = UINT32_MAX; /* next scope to open; innermost open scope */
    uint64_t last_key = 0;
    for (uint32_t i = 0; i < d->nvars; i++) {
        const cvm_bc_dvar *s = &d->vars[i];
        if (!range_ok(v, s->kernel, s->start_pc, s->end_pc) || s->name >= m->nstrings ||
            s->reg >= m->kernels[s->kernel].nregs ||
            (s->scope != UINT32_MAX &&
             (s->scope >= d->nscopes || d->scopes[s->scope].kernel != s->kernel)))
            return mfail(diag, "debug variable %u: kernel, pcs, name, scope or register out of "
                         "range", i);
        if (i && s->kernel < s[-1].kernel)
            return mfail(diag, "debug variable %u: not sorted by kernel", i);
        if (!i || s->kernel != s[-1].kernel) {
            cur = UINT32_MAX;
            last_key = 0;
            while (next < d->nscopes && d->scopes[next].kernel < s->kernel)
                next++;
        }
        const uint32_t p = s->start_pc;
        while (next < d->nscopes && d->scopes[next].kernel == s->kernel && d->scopes[next].start_pc < p)
            cur = next++; /* its parent is the innermost open one (check_nesting) */
        while (cur != UINT32_MAX && d->scopes[cur].end_pc <= p)
            cur = d->scopes[cur].parent;
        bool opens = s->scope != UINT32_MAX && d->scopes[s->scope].start_pc == p;
        uint32_t end = s->scope == UINT32_MAX ? v->kernels[s->kernel].ninsns : d->scopes[s->scope].end_pc;
        if ((!opens && s->scope != cur) || s->end_pc != end)
            return mfail(diag, "debug variable %u: scope %d or live range %u..%u is not the one "
                         "its declaration at pc %u gives", i, (int)s->scope, s->start_pc, s->end_pc, p);
        uint64_t key = (uint64_t)p << 32 | (opens ? s->scope + 1ull : 0);
        if (key < last_key)
            return mfail(diag, "debug variable %u: not in declaration order", i);
        last_key = key;
    }
    return CVM_OK;
}

static cvm_status check_debug(const cvm_bc_verified *v, cvm_diag *diag)
{
    const cvm_bc_module *m = v->mod;
    const cvm_bc_debug *d = &m->debug;
    TRY(check_debug_lines(v, diag));
    TRY(check_nesting(v, d->nscopes, scope_ref, "scope", diag));
    TRY(check_nesting(v, d->ninlines, inline_ref, "inline", diag));
    for (uint32_t i = 0; i < d->ninlines; i++) {
        const cvm_bc_dinline *s = &d->inlines[i];
        if (s->callee >= m->nstrings || s->file >= d->nfiles)
            return mfail(diag, "debug inline %u: callee or file out of range", i);
    }
    return check_vars(v, diag);
}

static cvm_status check_module(const cvm_bc_module *m, cvm_diag *diag)
{
    if ((m->nstrings && !m->strings) || (m->nkernels && !m->kernels) || (m->ndata && !m->data))
        return mfail(diag, "module tables missing");
    for (uint32_t i = 0; i < m->nstrings; i++) {
        if (m->strings[i].len > CVM_BC_MAX_STRING || !m->strings[i].data)
            return mfail(diag, "string %u: %u bytes (limit %u)", i, m->strings[i].len,
                         CVM_BC_MAX_STRING);
    }
    TRY(check_symbols(m, diag));
    for (uint32_t i = 0; i < m->nkernels; i++)
        if (!name_ok(m, m->kernels[i].name))
            return mfail(diag, "kernel %u has an invalid name (string %u)", i, m->kernels[i].name);
    TRY(check_unique(m, 0, diag));
    return check_unique(m, 1, diag);
}

/* ---- public entry points ---- */

void cvm_bc_verified_free(const cvm_bc_module *mod, cvm_bc_verified *ver)
{
    if (!mod || !ver)
        return;
    cvm_alloc_fn fn = mod->alloc;
    void *u = mod->alloc_user;
    if (ver->kernels) {
        for (uint32_t i = 0; i < mod->nkernels; i++) {
            cvm_bc_vkernel *vk = &ver->kernels[i];
            cvm_bc_free(fn, u, vk->insns, (size_t)vk->ninsns * sizeof *vk->insns);
            cvm_bc_free(fn, u, vk->reg_uni, mod->kernels[i].nregs);
        }
        cvm_bc_free(fn, u, ver->kernels, (size_t)mod->nkernels * sizeof *ver->kernels);
    }
    cvm_bc_free(fn, u, ver, sizeof *ver);
}

cvm_status cvm_bc_verify(const cvm_bc_module *mod, cvm_bc_verified **out_ver, cvm_diag *diag)
{
    return cvm_bc_verify_at(mod, out_ver, diag, NULL);
}

cvm_status cvm_bc_verify_at(const cvm_bc_module *mod, cvm_bc_verified **out_ver, cvm_diag *diag,
                            cvm_bc_where *where)
{
    if (where)
        where->kernel = where->pc = CVM_BC_NOPC;
    if (!mod || !out_ver)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_verify: NULL argument");
    *out_ver = NULL;
    cvm_status st = check_module(mod, diag);
    if (st)
        return st;
    cvm_bc_verified *v = cvm_bc_alloc(mod->alloc, mod->alloc_user, sizeof *v);
    if (!v)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while verifying");
    v->mod = mod;
    v->kernels = cvm_bc_alloc(mod->alloc, mod->alloc_user,
                              (size_t)mod->nkernels * sizeof *v->kernels);
    if (!v->kernels) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while verifying");
        goto fail;
    }
    for (uint32_t i = 0; i < mod->nkernels; i++) {
        st = verify_kernel(mod, i, &v->kernels[i], diag, where);
        if (st)
            goto fail;
    }
    st = check_debug(v, diag);
    if (st)
        goto fail;
    *out_ver = v;
    return CVM_OK;
fail:
    cvm_bc_verified_free(mod, v);
    return st;
}

bool cvm_bc_debug_line(const cvm_bc_module *mod, uint32_t kernel, uint32_t pc,
                       const char **out_file, uint32_t *out_line, uint32_t *out_col)
{
    if (!mod || !mod->debug.lines)
        return false;
    const cvm_bc_debug *d = &mod->debug;
    /* The last entry at or before (kernel, pc): entries hold until the next one. */
    uint32_t lo = 0, hi = d->nlines;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const cvm_bc_dline *l = &d->lines[mid];
        if (l->kernel < kernel || (l->kernel == kernel && l->pc <= pc))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return false;
    const cvm_bc_dline *l = &d->lines[lo - 1];
    if (l->kernel != kernel || l->line == 0 || l->file >= d->nfiles)
        return false;
    if (out_file)
        *out_file = cvm_bc_str(mod, d->files[l->file]);
    if (out_line)
        *out_line = l->line;
    if (out_col)
        *out_col = l->col;
    return true;
}
