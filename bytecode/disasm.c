/*
 * disasm.c - the disassembler: a module to canonical .cbs text.
 *
 * Canonical text is what this file prints; docs/asm.md describes it. It is
 * chosen so that assembling it gives back the same module: the text is
 * assembled once more here, and where the friendly form would not rebuild
 * the exact string table or data layout (a module from another producer),
 * the explicit forms (.string, .data/.const_size, init OFF SIZE) are used.
 */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { RAW_STRINGS = 1, RAW_DATA = 2 };

typedef struct out {
    cvm_alloc_fn fn;
    void *user;
    char *p;
    size_t len, cap;
    bool oom;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void emit(out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || o->oom)
        return;
    if (o->cap - o->len < (size_t)n + 1) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->len < (size_t)n + 1)
            cap *= 2;
        char *np = o->fn(o->user, o->p, o->cap, cap);
        if (!np) {
            o->oom = true;
            return;
        }
        o->p = np;
        o->cap = cap;
    }
    if ((size_t)n < sizeof small) {
        memcpy(o->p + o->len, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(o->p + o->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    o->len += (size_t)n;
}

static void emit_quoted(out *o, const char *s, uint32_t n)
{
    emit(o, "\"");
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            emit(o, "\\n");
        else if (c == '\t')
            emit(o, "\\t");
        else if (c == '"' || c == '\\')
            emit(o, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            emit(o, "%c", c);
        else
            emit(o, "\\x%02x", c);
    }
    emit(o, "\"");
}

/* A name the lexer reads back as one word. */
static bool is_word(const char *s, uint32_t n)
{
    if (!n || s[0] == '%')
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f || strchr(",[]=;\"", s[i]))
            return false;
    return true;
}

static void emit_name(out *o, const cvm_bc_module *m, uint32_t idx)
{
    if (idx >= m->nstrings) {
        emit(o, "\"?string%u\"", idx);
        return;
    }
    const cvm_bc_string *s = &m->strings[idx];
    if (is_word(s->data, s->len))
        emit(o, "%s", s->data);
    else
        emit_quoted(o, s->data, s->len);
}

static void emit_hex(out *o, const uint8_t *p, uint32_t n)
{
    emit(o, "0x");
    for (uint32_t i = 0; i < n; i++)
        emit(o, "%02x", p[i]);
}

static void emit_type(out *o, unsigned elem, unsigned line)
{
    const char *n = cvm_bc_elem_name(elem);
    emit(o, "%s", n ? n : "?");
    if (line > 1)
        emit(o, "x%u", line);
}

/* ---- module parts ---- */

static void emit_symbols(out *o, const cvm_bc_module *m, unsigned mode)
{
    if (mode & RAW_DATA) {
        if (m->const_size)
            emit(o, ".const_size %u\n", m->const_size);
        for (uint32_t off = 0; off < m->ndata; off += 32) {
            emit(o, ".data ");
            emit_hex(o, m->data + off, m->ndata - off < 32 ? m->ndata - off : 32);
            emit(o, "\n");
        }
    }
    for (uint32_t i = 0; i < m->nsymbols; i++) {
        const cvm_bc_symbol *s = &m->symbols[i];
        emit(o, "%s ", s->space == CVM_SYM_CONST ? ".constant" : ".global");
        emit_name(o, m, s->name);
        emit(o, " %s %u %u", s->elem ? (cvm_bc_elem_name(s->elem) ? cvm_bc_elem_name(s->elem) : "?") : "bytes",
             s->size, s->align);
        if (mode & RAW_DATA) {
            emit(o, " init %u %u", s->init_off, s->init_size);
        } else if (s->init_size) {
            emit(o, " = ");
            emit_hex(o, m->data + s->init_off, s->init_size);
        }
        emit(o, "\n");
    }
}

static void emit_param(out *o, const cvm_bc_module *m, const cvm_bc_param *p)
{
    static const char *const access[4] = {"?", "read", "write", "readwrite"};
    uint32_t size = 0, align = 0;
    emit(o, ".param ");
    emit_name(o, m, p->name);
    switch (p->kind) {
    case CVM_PARAM_STRUCT:
        emit(o, " struct %u %u", p->size, p->align);
        size = p->size;
        align = p->align;
        break;
    case CVM_PARAM_BUFFER:
    case CVM_PARAM_SCALAR:
    case CVM_PARAM_COMPTIME:
        emit(o, " %s ", p->kind == CVM_PARAM_BUFFER ? "buffer" : p->kind == CVM_PARAM_SCALAR ? "scalar" : "comptime");
        emit_type(o, p->elem, p->line);
        if (p->kind == CVM_PARAM_BUFFER)
            emit(o, " %s", access[p->access & 3]);
        size = align = p->kind == CVM_PARAM_BUFFER ? 8 : cvm_bc_elem_size(p->elem) * p->line;
        break;
    default:
        emit(o, " ?kind%u", p->kind);
    }
    if (p->size != size)
        emit(o, " size=%u", p->size);
    if (p->align != align)
        emit(o, " align=%u", p->align);
    emit(o, "\n");
}

static void emit_attrs(out *o, const cvm_bc_kernel *k)
{
    if (k->plane_width)
        emit(o, ".plane_width %u%s\n", k->plane_width, k->flags & CVM_KF_FIXED_WIDTH ? "" : " hint");
    if (k->flags & (CVM_KF_USES_F64 | CVM_KF_USES_F16))
        emit(o, ".uses%s%s\n", k->flags & CVM_KF_USES_F64 ? " f64" : "", k->flags & CVM_KF_USES_F16 ? " f16" : "");
    if (k->shared_bytes)
        emit(o, ".shared %u\n", k->shared_bytes);
    if (k->local_bytes)
        emit(o, ".local %u\n", k->local_bytes);
    if (k->max_cube)
        emit(o, ".max_cube %u\n", k->max_cube);
    for (uint32_t r = 0; r < k->nregs;) {
        uint32_t e = r;
        emit(o, ".reg ");
        emit_type(o, k->regs[r].elem, k->regs[r].line);
        while (e < k->nregs && k->regs[e].elem == k->regs[r].elem && k->regs[e].line == k->regs[r].line) {
            emit(o, "%s %%r%u", e == r ? "" : ",", e);
            e++;
        }
        emit(o, "\n");
        r = e;
    }
}

/* ---- instructions ---- */

static void indent(out *o, int depth)
{
    emit(o, "%*s", 4 * (depth > 0 ? depth : 0) + 4, "");
}

static void emit_imm64(out *o, uint64_t v, unsigned elem)
{
    unsigned bits = cvm_bc_elem_size(elem) * 8;
    if (bits && bits < 64)
        v &= ((uint64_t)1 << bits) - 1;
    if (cvm_bc_elem_is_float(elem)) {
        char buf[64];
        cvm_bc_format_float(buf, sizeof buf, v, elem);
        emit(o, "%s", buf);
    } else if (cvm_bc_elem_is_signed(elem)) {
        if (bits < 64 && (v >> (bits - 1)) & 1)
            v |= ~(uint64_t)0 << bits;
        emit(o, "%lld", (long long)v);
    } else if (cvm_bc_elem_is_int(elem) || elem == CVM_T_BOOL) {
        emit(o, "%llu", (unsigned long long)v);
    } else {
        emit(o, "0x%llx", (unsigned long long)v);
    }
}

/* The index is printed when the name would not find this entry again. */
static void emit_param_ref(out *o, const cvm_bc_module *m, const cvm_bc_kernel *k, uint32_t v)
{
    uint32_t first = v;
    if (v < k->nparams)
        for (uint32_t i = 0; i < v; i++)
            if (k->params[i].name == k->params[v].name)
                first = i;
    const cvm_bc_string *s = v < k->nparams && k->params[v].name < m->nstrings ? &m->strings[k->params[v].name] : NULL;
    if (s && first == v && is_word(s->data, s->len)) {
        uint64_t x;
        bool neg;
        if (cvm_bc_parse_int(s->data, s->len, &x, &neg)) { /* a numeric name would read as an index */
            emit(o, "%s", s->data);
            return;
        }
    }
    emit(o, "%u", v);
}

static void emit_sym_ref(out *o, const cvm_bc_module *m, uint32_t v)
{
    uint32_t first = v;
    if (v < m->nsymbols)
        for (uint32_t i = 0; i < v; i++)
            if (m->symbols[i].name == m->symbols[v].name)
                first = i;
    const cvm_bc_string *s = v < m->nsymbols && m->symbols[v].name < m->nstrings ? &m->strings[m->symbols[v].name] : NULL;
    uint64_t x;
    bool neg;
    if (s && first == v && is_word(s->data, s->len) && cvm_bc_parse_int(s->data, s->len, &x, &neg))
        emit(o, "%s", s->data);
    else
        emit(o, "%u", v);
}

/* One instruction; false when its words do not match its op (an invalid module). */
static bool emit_insn(out *o, const cvm_bc_module *m, const cvm_bc_kernel *k, const cvm_bc_insn *in)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
    if (!oi)
        return false;
    const char *f = oi->format;
    size_t flen = strlen(f);
    bool star = flen && f[flen - 1] == '*';
    size_t min = star ? flen - 2 : flen;
    /* check the operand words against the format first */
    uint32_t w = 0, n = 0;
    while (w < in->nops) {
        char letter = n < min ? f[n] : star ? f[flen - 2] : 0;
        if (!letter)
            return false;
        w += letter == 'k' ? 2 : 1;
        n++;
    }
    if (w != in->nops || n < min)
        return false;
    emit(o, "%s", oi->mnemonic);
    if (in->order)
        emit(o, ".%s", cvm_bc_order_name(in->order) ? cvm_bc_order_name(in->order) : "?");
    if (in->scope)
        emit(o, ".%s", cvm_bc_scope_name(in->scope) ? cvm_bc_scope_name(in->scope) : "?");
    if (in->elem) {
        emit(o, ".");
        emit_type(o, in->elem, in->line);
    }
    bool first_r = true;
    for (uint32_t i = 0, wi = 0; i < n; i++) {
        char letter = i < min ? f[i] : f[flen - 2];
        uint32_t v = in->ops[wi];
        emit(o, i ? ", " : " ");
        switch (letter) {
        case 'd': emit(o, "%%r%u", v); break;
        case 'r':
            emit(o, (oi->flags & CVM_OPF_MEM) && first_r ? "[%%r%u]" : "%%r%u", v);
            first_r = false;
            break;
        case 'k': emit_imm64(o, (uint64_t)v | (uint64_t)in->ops[wi + 1] << 32, in->elem); break;
        case 's':
            if (v < m->nstrings)
                emit_quoted(o, m->strings[v].data, m->strings[v].len);
            else
                emit(o, "\"?string%u\"", v);
            break;
        case 'p': emit_param_ref(o, m, k, v); break;
        case 'g': emit_sym_ref(o, m, v); break;
        case 'x': emit(o, "%s", cvm_bc_sreg_name(v) ? cvm_bc_sreg_name(v) : "?sreg"); break;
        default: emit(o, "%u", v); break;
        }
        wi += letter == 'k' ? 2 : 1;
    }
    if (in->align_log2)
        emit(o, " align=%llu", 1ull << (in->align_log2 & 63));
    emit(o, "\n");
    return true;
}

/* True when scope s of kernel kidx opens at pc (so its variables follow its .scope). */
static bool opens_at(const cvm_bc_debug *d, uint32_t s, uint32_t kidx, uint32_t pc, bool last)
{
    if (s >= d->nscopes || d->scopes[s].kernel != kidx)
        return false;
    return d->scopes[s].start_pc == pc || (last && d->scopes[s].start_pc > pc);
}

/* .var lines at pc: of scope `only`, or (only == UINT32_MAX) of scopes not opening at pc. */
static void emit_vars_at(out *o, const cvm_bc_module *m, uint32_t kidx, uint32_t pc, bool last, int depth,
                         uint32_t only)
{
    const cvm_bc_debug *d = &m->debug;
    for (uint32_t i = 0; i < d->nvars; i++) {
        const cvm_bc_dvar *v = &d->vars[i];
        if (v->kernel != kidx || !(v->start_pc == pc || (last && v->start_pc > pc)))
            continue;
        if (only == UINT32_MAX ? opens_at(d, v->scope, kidx, pc, last) : v->scope != only)
            continue;
        indent(o, depth);
        emit(o, ".var ");
        emit_name(o, m, v->name);
        emit(o, " %%r%u\n", v->reg);
    }
}

/* Debug directives that take effect at pc (docs/asm.md "canonical order"). */
static void emit_debug_at(out *o, const cvm_bc_module *m, uint32_t kidx, uint32_t pc, bool last, int depth)
{
    const cvm_bc_debug *d = &m->debug;
#define AT(x) ((x) == pc || (last && (x) > pc))
    for (uint32_t i = d->nscopes; i-- > 0;)
        if (d->scopes[i].kernel == kidx && AT(d->scopes[i].end_pc) && d->scopes[i].start_pc < d->scopes[i].end_pc) {
            indent(o, depth);
            emit(o, ".endscope\n");
        }
    for (uint32_t i = d->ninlines; i-- > 0;)
        if (d->inlines[i].kernel == kidx && AT(d->inlines[i].end_pc) && d->inlines[i].start_pc < d->inlines[i].end_pc) {
            indent(o, depth);
            emit(o, ".endinline\n");
        }
    /* Variables of scopes opening here come right after their .scope, the others first. */
    emit_vars_at(o, m, kidx, pc, last, depth, UINT32_MAX);
    for (uint32_t i = 0; i < d->nscopes; i++)
        if (d->scopes[i].kernel == kidx && AT(d->scopes[i].start_pc)) {
            indent(o, depth);
            emit(o, ".scope\n");
            emit_vars_at(o, m, kidx, pc, last, depth, i);
        }
    for (uint32_t i = 0; i < d->ninlines; i++)
        if (d->inlines[i].kernel == kidx && AT(d->inlines[i].start_pc)) {
            const cvm_bc_dinline *in = &d->inlines[i];
            indent(o, depth);
            emit(o, ".inline ");
            emit_name(o, m, in->callee);
            emit(o, " %u %u %u\n", in->file, in->line, in->col);
        }
    /* The line table is sorted by (kernel, pc) (the reader checks): start at the first candidate. */
    uint32_t lo = 0, hi = d->nlines;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->lines[mid].kernel < kidx || (d->lines[mid].kernel == kidx && d->lines[mid].pc < pc))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < d->nlines && d->lines[i].kernel == kidx && AT(d->lines[i].pc); i++) {
        indent(o, depth);
        emit(o, ".loc %u %u %u\n", d->lines[i].file, d->lines[i].line, d->lines[i].col);
    }
#undef AT
}

static void emit_kernel(out *o, const cvm_bc_module *m, uint32_t kidx)
{
    const cvm_bc_kernel *k = &m->kernels[kidx];
    emit(o, "%s.kernel ", o->len ? "\n" : "");
    emit_name(o, m, k->name);
    emit(o, "\n");
    for (uint32_t i = 0; i < k->nparams; i++)
        emit_param(o, m, &k->params[i]);
    emit_attrs(o, k);
    int depth = 0;
    uint32_t pc = 0, w = 0;
    cvm_bc_insn in;
    while (w < k->ncode) {
        if (!cvm_bc_insn_at(k, w, &in))
            break;
        bool closes = in.op == CVM_OP_END, mid = in.op == CVM_OP_ELSE || in.op == CVM_OP_CONTINUING ||
                                              in.op == CVM_OP_CASE || in.op == CVM_OP_DEFAULT;
        emit_debug_at(o, m, kidx, pc, false, depth);
        if (closes || mid)
            depth--;
        indent(o, depth);
        if (!emit_insn(o, m, k, &in))
            break;
        if (mid || in.op == CVM_OP_IF || in.op == CVM_OP_LOOP || in.op == CVM_OP_SWITCH || in.op == CVM_OP_BLOCK)
            depth++;
        w += 2u + in.nops;
        pc++;
    }
    if (w < k->ncode) { /* an invalid module: show the words that did not decode */
        emit(o, "    ; cannot decode code word %u onwards:", w);
        for (uint32_t i = w; i < k->ncode && i < w + 16; i++)
            emit(o, " 0x%08x", k->code[i]);
        emit(o, "%s\n", k->ncode - w > 16 ? " ..." : "");
    }
    emit_debug_at(o, m, kidx, pc, true, depth);
    emit(o, ".end\n");
}

static void render(out *o, const cvm_bc_module *m, unsigned mode)
{
    o->len = 0;
    if (o->p)
        o->p[0] = 0;
    if (mode & RAW_STRINGS)
        for (uint32_t i = 0; i < m->nstrings; i++) {
            emit(o, ".string ");
            emit_quoted(o, m->strings[i].data, m->strings[i].len);
            emit(o, "\n");
        }
    for (uint32_t i = 0; i < m->debug.nfiles; i++) {
        emit(o, ".file %u ", i);
        uint32_t s = m->debug.files[i];
        if (s < m->nstrings)
            emit_quoted(o, m->strings[s].data, m->strings[s].len);
        else
            emit(o, "\"?string%u\"", s);
        emit(o, "\n");
    }
    emit_symbols(o, m, mode);
    for (uint32_t k = 0; k < m->nkernels; k++)
        emit_kernel(o, m, k);
}

static bool same_strings(const cvm_bc_module *a, const cvm_bc_module *b)
{
    if (a->nstrings != b->nstrings)
        return false;
    for (uint32_t i = 0; i < a->nstrings; i++)
        if (a->strings[i].len != b->strings[i].len || memcmp(a->strings[i].data, b->strings[i].data, a->strings[i].len))
            return false;
    return true;
}

static bool same_data(const cvm_bc_module *a, const cvm_bc_module *b)
{
    if (a->ndata != b->ndata || a->const_size != b->const_size || a->nsymbols != b->nsymbols ||
        (a->ndata && memcmp(a->data, b->data, a->ndata)))
        return false;
    for (uint32_t i = 0; i < a->nsymbols; i++) {
        const cvm_bc_symbol *x = &a->symbols[i], *y = &b->symbols[i];
        if (x->init_off != y->init_off || x->init_size != y->init_size)
            return false;
    }
    return true;
}

cvm_status cvm_bc_disassemble(const cvm_bc_module *mod, char **out_text, size_t *out_len, cvm_diag *diag)
{
    if (!mod || !out_text || !out_len)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_disassemble: NULL argument");
    out o = {mod->alloc ? mod->alloc : cvm_default_alloc, mod->alloc_user, NULL, 0, 0, false};
    render(&o, mod, 0);
    /* Check that the friendly form rebuilds the string table and data layout. */
    cvm_bc_module *back = NULL;
    cvm_status st = o.oom ? CVM_OUT_OF_MEMORY : cvm_bc_assemble(o.p, o.len, "<disasm>", o.fn, o.user, &back, NULL);
    if (st == CVM_OK) {
        unsigned mode = (same_strings(mod, back) ? 0 : RAW_STRINGS) | (same_data(mod, back) ? 0 : RAW_DATA);
        cvm_bc_module_free(back);
        if (mode)
            render(&o, mod, mode);
    } else if (st == CVM_OUT_OF_MEMORY) {
        o.oom = true; /* never hand out text that was not checked */
    }
    /* Other failures mean an invalid module (the verifier would reject it): its text is best effort. */
    if (!o.p && !o.oom) { /* an empty module has empty text */
        o.p = o.fn(o.user, NULL, 0, 1);
        o.cap = 1;
        o.oom = !o.p;
        if (o.p)
            o.p[0] = 0;
    }
    if (o.oom) {
        if (o.p)
            o.fn(o.user, o.p, o.cap, 0);
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while disassembling");
    }
    /* Shrink so the caller frees exactly len + 1 bytes. */
    char *fit = o.fn(o.user, o.p, o.cap, o.len + 1);
    if (!fit) {
        o.fn(o.user, o.p, o.cap, 0);
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while disassembling");
    }
    *out_text = fit;
    *out_len = o.len;
    return CVM_OK;
}

cvm_status cvm_bc_insn_text(const cvm_bc_module *mod, uint32_t kidx, uint32_t pc, char *buf,
                            size_t cap)
{
    if (!mod || kidx >= mod->nkernels || !buf || !cap)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_kernel *k = &mod->kernels[kidx];
    cvm_bc_insn in;
    uint32_t w = 0;
    for (uint32_t i = 0;; i++) {
        if (w >= k->ncode || !cvm_bc_insn_at(k, w, &in))
            return CVM_NOT_FOUND;
        if (i == pc)
            break;
        w += 2u + in.nops;
    }
    out o = {mod->alloc ? mod->alloc : cvm_default_alloc, mod->alloc_user, NULL, 0, 0, false};
    bool ok = emit_insn(&o, mod, k, &in);
    cvm_status st = o.oom ? CVM_OUT_OF_MEMORY : ok ? CVM_OK : CVM_MALFORMED;
    if (st == CVM_OK) {
        size_t n = o.len && o.p[o.len - 1] == '\n' ? o.len - 1 : o.len;
        n = n < cap - 1 ? n : cap - 1;
        memcpy(buf, o.p, n);
        buf[n] = 0;
    }
    if (o.p)
        o.fn(o.user, o.p, o.cap, 0);
    return st;
}
