/*
 * lower.c - kernels and statements to .cbs text (docs/lowering.md,
 * "Functions", "Statements and control flow"): one .kernel per __global__
 * function, structured constructs for C control flow, device functions
 * inlined inside block ... end with return as exit, shared and local
 * memory laid out here, and the debug directives (.loc, .scope, .var,
 * .inline) the debugger reads. Which function a call names is
 * lower_call.c's; fe_call_fn here inlines it.
 */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- registers and text ---- */

int fe_reg(fe_lower *L, uint32_t rtype)
{
    fe_ctx *c = L->c;
    if (L->nregs >= CVM_BC_MAX_REGS) { /* the bytecode's limit: an error where the code is, not an ICE */
        const fe_tok at = {.kind = TK_IDENT, .file = L->loc_file, .line = L->loc_line, .col = L->loc_col};
        fe_error(c, L->loc_line ? &at : NULL, CVM_LIMIT, "the kernel needs more than %u registers here "
                 "(the bytecode's limit); split it into smaller kernels or use arrays", CVM_BC_MAX_REGS);
        return 0;
    }
    if (L->nregs == L->capregs) {
        uint32_t cap = L->capregs ? L->capregs * 2 : 256;
        uint32_t *r = fe_alloc(c, sizeof *r * cap);
        size_t *o = fe_alloc(c, sizeof *o * cap);
        if (!r || !o)
            return 0;
        if (L->rtypes) {
            memcpy(r, L->rtypes, sizeof *r * L->nregs);
            memcpy(o, L->open_at, sizeof *o * L->nregs);
        }
        L->rtypes = r;
        L->open_at = o;
        L->capregs = cap;
    }
    L->rtypes[L->nregs] = rtype;
    L->open_at[L->nregs] = 0;
    fe_kind k = (fe_kind)(rtype & 0xff);
    if (k == TY_F64)
        L->uses_f64 = true;
    if (k == TY_F16)
        L->uses_f16 = true;
    return (int)L->nregs++;
}

static const char *space_name(int sp)
{
    switch (sp) {
    case SP_SHARED: return "ptr.shared";
    case SP_LOCAL: return "ptr.local";
    case SP_CONST: return "ptr.const";
    default: return "ptr.global";
    }
}

static void rtype_str(uint32_t rt, char *out, size_t cap)
{
    fe_kind k = (fe_kind)(rt & 0xff);
    uint32_t lanes = (rt >> 8) & 0xff;
    if (k == TY_PTR)
        snprintf(out, cap, "%s", space_name((int)(rt >> 16)));
    else if (lanes > 1)
        snprintf(out, cap, "%sx%u", fe_elem_name(k), lanes);
    else
        snprintf(out, cap, "%s", fe_elem_name(k));
}

const char *fe_tname_of(fe_lower *L, int reg)
{
    char *s = L->tnames[L->tname_next++ & 3];
    rtype_str(reg >= 0 && (uint32_t)reg < L->nregs ? L->rtypes[reg] : RT(TY_I32, 1, 0), s, 32);
    return s;
}

int fe_space_of(fe_lower *L, int reg)
{
    uint32_t rt = (uint32_t)reg < L->nregs ? L->rtypes[reg] : 0;
    return (rt & 0xff) == TY_PTR ? (int)(rt >> 16) : SP_NONE;
}

uint32_t fe_rtype_of(fe_lower *L, fe_type *t, int space)
{
    (void)L;
    if (t->kind == TY_PTR)
        return RT(TY_PTR, 1, space ? space : SP_GLOBAL);
    if (t->kind == TY_VEC)
        return RT(t->base->kind, t->len, 0);
    return RT(t->kind, 1, 0);
}

/* fmt formatted into buf[size], or into the context's memory when it is
 * longer (a long name in a debug directive); NULL when out of memory. */
static const char *format_line(fe_lower *L, char *buf, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    const int n = vsnprintf(buf, size, fmt, ap);
    char *big = n >= 0 && (size_t)n >= size ? fe_alloc(L->c, (size_t)n + 1) : NULL;
    if (big)
        vsnprintf(big, (size_t)n + 1, fmt, again);
    va_end(again);
    return n < 0 ? "" : (size_t)n < size ? buf : big;
}

void fe_emit(fe_lower *L, const char *fmt, ...)
{
    if (L->c->err)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const char *tmp = format_line(L, buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!tmp)
        return;
    fe_buf_printf(L->c, &L->body, "    %s\n", tmp);
    L->ninsn++;
    if (!strncmp(tmp, "if ", 3) || !strcmp(tmp, "loop") || !strcmp(tmp, "block") || !strncmp(tmp, "switch ", 7))
        L->too_deep |= ++L->constructs > (int)CVM_BC_MAX_DEPTH;
    else if (!strcmp(tmp, "end"))
        L->constructs--;
}

static void directive(fe_lower *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void directive(fe_lower *L, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const char *tmp = format_line(L, buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!tmp)
        return;
    fe_buf_printf(L->c, &L->body, "%s\n", tmp);
    if (!strncmp(tmp, ".var ", 5))
        L->var_at = L->ninsn + 1;
}

void fe_loc(fe_lower *L, const fe_tok *t)
{
    if (!t || t->kind == TK_EOF || t->line == 0)
        return;
    if (t->file == L->loc_file && t->line == L->loc_line && t->col == L->loc_col)
        return;
    L->loc_file = t->file;
    L->loc_line = t->line;
    L->loc_col = t->col;
    directive(L, ".loc %u %u %u", t->file, t->line, t->col);
}

/* A debug region (.scope, .inline) that is dropped when no instruction lands in it. */
typedef struct region { size_t len; uint32_t ninsn; } region;

static region region_open(fe_lower *L, const char *text)
{
    region r = {L->body.len, L->ninsn};
    directive(L, "%s", text);
    return r;
}

static void region_close(fe_lower *L, region r, const char *text)
{
    if (L->ninsn == r.ninsn) {
        L->body.len = r.len;
        if (L->body.p)
            L->body.p[r.len] = 0;
        L->loc_line = 0;
        return;
    }
    /* a variable declared after the scope's last instruction (`int p = f(); (void)p;`)
     * needs an instruction to start its live range inside the scope */
    if (L->var_at == L->ninsn + 1)
        fe_emit(L, "nop");
    directive(L, "%s", text);
}

/* ---- variables ---- */

static fe_var *bind(fe_lower *L, const char *name, fe_type *ty)
{
    fe_var *v = fe_alloc(L->c, sizeof *v);
    if (!v)
        return NULL;
    v->name = name;
    v->ty = ty;
    v->next = L->vars;
    L->vars = v;
    return v;
}

static uint32_t align_up(uint32_t x, uint32_t a) { return a ? (x + a - 1) / a * a : x; }

/* The offset of __shared__ declaration d in the kernel being lowered,
 * placed after the others at its first use. */
uint32_t fe_shared_offset(fe_lower *L, fe_node *d)
{
    for (int i = 0; i < L->nshared; i++)
        if (L->shared[i].decl == d)
            return L->shared[i].offset;
    if (L->nshared == 64) {
        fe_error(L->c, d->tok, CVM_LIMIT, "more than 64 __shared__ variables in one kernel");
        return 0;
    }
    uint32_t off = align_up(L->shared_size, d->ty->align < 4 ? 4 : d->ty->align);
    if ((uint64_t)off + d->ty->size > CVM_BC_MAX_SHARED) {
        fe_error(L->c, d->tok, CVM_LIMIT, "the kernel's __shared__ variables take more than %u bytes with '%s' "
                 "(the VM's limit per cube; a GPU has 48 to 228 KiB)", CVM_BC_MAX_SHARED, d->name);
        return 0;
    }
    L->shared_size = off + d->ty->size;
    L->shared[L->nshared].decl = d;
    L->shared[L->nshared++].offset = off;
    return off;
}

static uint32_t local_alloc(fe_lower *L, fe_type *t)
{
    uint32_t off = align_up(L->local_size, t->align < 4 ? 4 : t->align);
    const uint64_t end = (uint64_t)off + (t->size ? t->size : 1);
    L->local_size = end > CVM_BC_MAX_LOCAL ? CVM_BC_MAX_LOCAL + 1 : (uint32_t)end; /* reported by the kernel */
    return end > CVM_BC_MAX_LOCAL ? 0 : off;
}

bool fe_in_memory(fe_type *t)
{
    return t->kind == TY_ARRAY || t->kind == TY_STRUCT || t->kind == TY_DIM3;
}

/* A temporary of type t in local memory (its address, LV_MEM). */
fe_val fe_local_temp(fe_lower *L, fe_type *t)
{
    fe_val tmp = {t, fe_reg(L, RT(TY_PTR, 1, SP_LOCAL)), LV_MEM, 0, false, false, false, true};
    fe_emit(L, "const.ptr.local %%r%d, %u", tmp.reg, local_alloc(L, t));
    return tmp;
}

/* Collects the names x of `&x` in a function body: those variables live in
 * local memory (a register has no address). */
static void scan_taken(fe_lower *L, fe_node *n)
{
    for (; n && !L->c->err; n = NULL) {
        /* &x, and (int &)x: x lives in memory (lower_expr.c ref_cast) */
        if (((n->kind == N_UNARY && n->op == '&') || (n->kind == N_CAST && n->ty && n->ty->is_ref)) && n->a &&
            n->a->kind == N_IDENT) {
            bool have = false;
            for (int i = 0; i < L->ntaken && !have; i++)
                have = strcmp(L->taken[i], n->a->name) == 0;
            if (!have && L->ntaken == 64)
                fe_error(L->c, n->tok, CVM_LIMIT, "addresses of more than 64 local variables taken in one kernel");
            else if (!have)
                L->taken[L->ntaken++] = n->a->name;
        }
        scan_taken(L, n->a);
        scan_taken(L, n->b);
        scan_taken(L, n->c);
        scan_taken(L, n->d);
        for (fe_node *x = n->args; x; x = x->next)
            scan_taken(L, x);
        if (n->kind == N_LAMBDA && n->ty && n->ty->methods) /* [&] { p = &a; }: a, captured, in memory */
            scan_taken(L, n->ty->methods->body);
    }
}

static bool is_taken(fe_lower *L, const char *name)
{
    for (int i = 0; i < L->ntaken; i++)
        if (strcmp(L->taken[i], name) == 0)
            return true;
    return false;
}

/* A variable in memory (shared, or local: arrays, structs, address taken)
 * gets its address under its name in the debug info at -O0, for a debugger
 * to read it through (docs/debugging.md): one constant. At -O1 it would be
 * a named register the optimizer may not move, so the code would change. */
static void debug_address(fe_lower *L, fe_var *var)
{
    if (!L->c->debug_vars)
        return;
    fe_val a = fe_addr_of_var(L, var);
    directive(L, ".var %s %%r%d", var->name, a.reg);
}

/* A scalar variable in local memory, initialized with v (or zero). */
static fe_var *memory_var(fe_lower *L, const char *name, fe_type *t, const fe_val *v, const fe_tok *at)
{
    fe_var *var = bind(L, name, t);
    if (!var)
        return NULL;
    var->mem = MEM_LOCAL;
    var->offset = local_alloc(L, t);
    fe_val addr = fe_addr_of_var(L, var);
    addr.ty = t;
    fe_store(L, addr, v ? *v : fe_zero(L), at);
    debug_address(L, var);
    return var;
}

/* decltype(e) in a declared type: the declared type of a name, the type of
 * the value of other expressions (never a reference: decltype(a[i]) is T). */
fe_type *fe_resolve_decltype(fe_lower *L, fe_type *t)
{
    if (!t || !fe_has_decltype(t))
        return t;
    fe_type *r;
    if (t->kind == TY_PTR)
        r = fe_ptr_to(L->c, fe_resolve_decltype(L, t->base));
    else if (t->kind == TY_ARRAY)
        r = fe_array_of(L->c, fe_resolve_decltype(L, t->base), t->len);
    else
        r = fe_no_ref(L->c, fe_type_of(L, t->decltype_expr));
    r = fe_qualified(L->c, r, t->is_const || r->is_const, t->is_volatile || r->is_volatile);
    return t->is_ref ? fe_ref_to(L->c, r) : r;
}

static void local_decl(fe_lower *L, fe_node *d)
{
    fe_type *t = fe_resolve_decltype(L, d->ty);
    if (t && t->cg == CG_GROUP && !t->is_ref && d->a)
        t = NULL; /* thread_group g = ...: the group the initializer makes, as with auto */
    if (t && t->cg == CG_TILE && !t->is_ref && d->a) { /* a tile keeps what its parent was */
        fe_type *it = fe_type_of(L, d->a);
        if (it && it->cg == CG_TILE && it->len == t->len)
            t = fe_unqual(it);
    }
    for (fe_var *v = L->vars; v && v != L->scope; v = v->next)
        if (strcmp(v->name, d->name) == 0) {
            fe_error(L->c, d->tok, CVM_SYNTAX, "redefinition of '%s'", d->name);
            return;
        }
    if (d->storage & FE_S_EXTERN && d->storage & FE_S_SHARED) {
        fe_var *v = bind(L, d->name, t->kind == TY_ARRAY ? t : fe_array_of(L->c, t, 0));
        if (v) {
            v->mem = MEM_DYNSHARED;
            debug_address(L, v);
        }
        return;
    }
    if (d->storage & FE_S_SHARED) {
        if (d->a)
            fe_error(L->c, d->tok, CVM_SYNTAX, "__shared__ variables cannot have an initializer");
        else if (t && fe_nonempty_default(t))
            fe_error(L->c, d->tok, CVM_SYNTAX, "a __shared__ variable of a type with default member "
                     "initializers or a non-empty default constructor is not allowed (shared memory is not "
                     "initialized; CUDA refuses it too): assign the members after the declaration");
        fe_var *v = bind(L, d->name, t);
        if (v) {
            v->mem = MEM_SHARED;
            v->offset = fe_shared_offset(L, d);
            debug_address(L, v);
        }
        return;
    }
    if (!t) { /* auto */
        if (!d->a) {
            fe_error(L->c, d->tok, CVM_SYNTAX, "'auto' variable needs an initializer");
            return;
        }
        fe_val v = fe_gen(L, d->a);
        if (d->op == '&') { /* auto &x = lvalue */
            fe_var *var = v.lv != LV_NONE ? bind(L, d->name, v.ty) : NULL;
            if (var)
                var->val = v;
            else
                fe_error(L->c, d->tok, CVM_SYNTAX, "a non-const reference must bind to an lvalue");
            return;
        }
        t = v.ty->kind == TY_ARRAY ? fe_ptr_to(L->c, v.ty->base) : fe_unqual(v.ty);
        if (t->is_lambda && d->a->kind != N_LAMBDA) /* auto g = f;: a mutable lambda's copy counts apart */
            t = fe_closure_copy(L, t, d->tok);
        if (fe_in_memory(t)) {
            fe_var *var = bind(L, d->name, t);
            if (var) {
                var->mem = MEM_LOCAL;
                var->offset = local_alloc(L, t);
                fe_copy_construct(L, fe_addr_of_var(L, var), v, t, d->tok); /* auto c = s */
            }
            return;
        }
        v = fe_load(L, v);
        if (is_taken(L, d->name)) {
            memory_var(L, d->name, t, &v, d->tok);
            return;
        }
        int r = fe_reg(L, L->rtypes[v.reg]);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, v.reg);
        fe_var *var = bind(L, d->name, t);
        if (var)
            var->val = (fe_val){t, r, LV_REG, 0, false, false, false, false};
        directive(L, ".var %s %%r%d", d->name, r);
        return;
    }
    if (t->is_ref) {
        if (!d->a) {
            fe_error(L->c, d->tok, CVM_SYNTAX, "a reference needs an initializer");
            return;
        }
        fe_val v = t->is_const || t->is_rref ? fe_gen(L, d->a) : fe_lvalue(L, d->a); /* float &r = c ? a[i] : a[j]; */
        v = fe_as_base(L, v, t, d->tok); /* B &r = d: d's B */
        if (!fe_bind_converted(L, &v, t, d->tok))
            return;
        if (v.lv == LV_NONE && !t->is_const && !t->is_rref) {
            fe_error(L->c, d->tok, CVM_SYNTAX, "a non-const reference must bind to an lvalue");
            return;
        }
        if (v.lv == LV_NONE && t->is_rref && !fe_in_memory(v.ty)) { /* int &&r = 5: a temporary r may modify */
            v = fe_load(L, v);
            int reg = fe_reg(L, L->rtypes[v.reg]);
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, reg), reg, v.reg);
            v = (fe_val){fe_unqual(v.ty), reg, LV_REG, 0, false, false, false, false};
        }
        fe_var *var = bind(L, d->name, t);
        if (var) {
            var->val = v;
            var->val.temp = false; /* const T &r = T(5); T d = r; copies */
        }
        if (var && t->is_const && v.ty->kind == TY_STRUCT) /* const S &r = s: const members are chosen */
            var->val.ty = fe_qualified(L->c, v.ty, true, v.ty->is_volatile);
        return;
    }
    if (t->is_lambda && d->a && d->a->kind != N_LAMBDA) /* auto g = f;: a mutable lambda's copy counts apart */
        t = fe_closure_copy(L, t, d->tok);
    if (fe_in_memory(t)) {
        fe_var *var = bind(L, d->name, t);
        if (!var)
            return;
        var->mem = MEM_LOCAL;
        var->offset = local_alloc(L, t);
        if (d->a) {
            fe_val addr = fe_addr_of_var(L, var);
            if (d->a->kind == N_INITLIST || d->a->kind == N_STR) {
                fe_init_mem(L, addr, t, d->a);
            } else {
                fe_val v = fe_as_base(L, fe_gen(L, d->a), t, d->tok); /* B b = d: a copy of d's B */
                if (t->kind == TY_STRUCT && v.lv == LV_MEM && fe_same_type(fe_unqual(v.ty), fe_unqual(t)))
                    fe_copy_construct(L, addr, v, fe_unqual(t), d->tok); /* S c = s: its copy constructor */
                else
                    fe_store(L, addr, v, d->tok);
            }
        } else if (fe_has_ctor(t)) { /* T x; and T x[n]; run the default constructor */
            fe_default_init(L, fe_addr_of_var(L, var), t, d->tok);
        }
        debug_address(L, var);
        return;
    }
    if (is_taken(L, d->name) && t->kind != TY_PTR) {
        fe_val v = {0};
        if (d->a)
            v = fe_scalar_init(L, t, d->a);
        memory_var(L, d->name, t, d->a ? &v : NULL, d->tok);
        return;
    }
    int r;
    if (d->a) {
        fe_val v;
        v = fe_scalar_init(L, t, d->a);
        v = fe_convert(L, v, t, d->a->kind == N_INITLIST ? d->tok : fe_leftmost(d->a));
        r = fe_reg(L, t->kind == TY_PTR ? L->rtypes[v.reg] : fe_rtype_of(L, t, 0));
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, v.reg);
    } else {
        r = fe_reg(L, fe_rtype_of(L, t, 0));
        if (t->kind != TY_PTR) { /* defined contents: C leaves it indeterminate, the VM wants a write */
            fe_val z = fe_convert(L, fe_zero(L), t, d->tok);
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, z.reg);
        }
    }
    if (t->kind == TY_PTR && is_taken(L, d->name) && (!d->a || fe_space_of(L, r) == SP_GLOBAL)) {
        /* &p of a pointer to global memory: p lives in local memory (pointers there are global) */
        fe_val v = d->a ? (fe_val){t, r, LV_NONE, 0, false, false, false, false} : fe_zero(L);
        v.is_null = !d->a;
        memory_var(L, d->name, t, &v, d->tok);
        return;
    }
    fe_var *var = bind(L, d->name, t);
    if (var)
        var->val = (fe_val){fe_unqual(t), r, LV_REG, 0, false, false, false, false};
    if (var && t->is_const)
        var->val.ty = t;
    directive(L, ".var %s %%r%d", d->name, r);
    if (var && t->kind == TY_PTR && !d->a) /* its space is that of the first pointer it is given */
        L->open_at[r] = L->body.len + 1;
}

/* Whether pointer register reg, declared without a value, can take the
 * space of the pointer register `from` (which it is being given): no
 * instruction has named it since its declaration. Then it does. */
bool fe_adopt_space(fe_lower *L, int reg, int from)
{
    if (reg >= 0 && (uint32_t)reg < L->nregs && L->open_at[reg]) {
        size_t at = L->open_at[reg] - 1;
        L->open_at[reg] = 0;
        if (at > L->body.len || !L->body.p)
            return false;
        char name[16];
        int len = snprintf(name, sizeof name, "%%r%d", reg);
        for (const char *p = strstr(L->body.p + at, name); p; p = strstr(p + len, name))
            if (p[len] < '0' || p[len] > '9')
                return false;
        L->rtypes[reg] = L->rtypes[from];
        return true;
    }
    return false;
}

/* ---- statements ---- */

static void block(fe_lower *L, fe_node *b)
{
    fe_var *saved = L->vars, *scope = L->scope;
    region r = {0, 0};
    bool scoped = b->op != 'D';
    if (scoped) {
        r = region_open(L, ".scope");
        L->scope = L->vars;
    }
    for (fe_node *s = b->args; s && !L->c->err; s = s->next)
        fe_stmt(L, s);
    if (scoped) {
        region_close(L, r, ".endscope");
        L->vars = saved;
        L->scope = scope;
    }
}

static void open_if(fe_lower *L, fe_val c) { fe_emit(L, "if %%r%d", c.reg); }

static void break_unless(fe_lower *L, fe_node *cond)
{
    fe_val c = fe_cond_bool(L, cond);
    int n = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_emit(L, "not.bool %%r%d, %%r%d", n, c.reg);
    fe_emit(L, "if %%r%d", n);
    fe_emit(L, "break");
    fe_emit(L, "end");
}

static void loop_stmt(fe_lower *L, fe_node *s)
{
    fe_var *saved = L->vars, *scope = L->scope;
    region r = region_open(L, ".scope");
    L->scope = L->vars; /* the init statement's names are the loop's own: for (int i ...) after an i */
    if (s->kind == N_FOR && s->a)
        fe_stmt(L, s->a);
    int64_t k;
    fe_emit(L, "loop");
    L->loops++;
    if (s->kind != N_DO && s->b && !(fe_const_eval(L->c, s->b, &k) && k)) {
        fe_loc(L, s->b->tok);
        break_unless(L, s->b);
    }
    if (s->kind == N_WHILE && !(fe_const_eval(L->c, s->a, &k) && k))
        break_unless(L, s->a);
    fe_stmt(L, s->d);
    if (s->kind == N_FOR && s->c) {
        fe_emit(L, "continuing");
        fe_loc(L, s->c->tok);
        fe_rvalue(L, s->c);
    } else if (s->kind == N_DO) {
        fe_emit(L, "continuing");
        fe_loc(L, s->a->tok);
        fe_val c = fe_cond_bool(L, s->a);
        int n = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "not.bool %%r%d, %%r%d", n, c.reg);
        fe_emit(L, "break_if %%r%d", n);
    }
    L->loops--;
    fe_emit(L, "end");
    region_close(L, r, ".endscope");
    L->vars = saved;
    L->scope = scope;
}

/* `return x;` of a local variable of the function (not a parameter, not
 * a reference): the copy the compiler elides (NRVO), as nvcc and g++ do. */
static bool returns_own_local(fe_lower *L, const fe_frame *f, const fe_node *e)
{
    if (e->kind != N_IDENT)
        return false;
    for (const fe_node *p = f->fn ? f->fn->params : NULL; p; p = p->next)
        if (p->name && strcmp(p->name, e->name) == 0)
            return false;
    const fe_var *v = fe_lookup(L, e->name);
    for (const fe_var *g = L->globals; g && v; g = g->next)
        if (g == v)
            return false; /* a __device__ variable */
    return v && !v->ty->is_ref;
}

/* The first pointer (or reference) return of f sets the memory space of
 * its result register to that of reg; a later one must return that space. */
static bool return_space(fe_lower *L, fe_frame *f, int reg, const fe_tok *at)
{
    if (!f->ret_spaced) {
        f->ret_spaced = true;
        L->rtypes[f->ret_reg] = L->rtypes[reg];
        return true;
    }
    if (fe_space_of(L, f->ret_reg) == fe_space_of(L, reg))
        return true;
    fe_error(L->c, at, CVM_UNSUPPORTED, "'%s' returns %s to different memory spaces (global, shared, local, "
             "constant) in one call; the VM has no generic pointer", f->fn->name,
             f->ret_ref ? "references" : "pointers");
    return false;
}

static void return_stmt(fe_lower *L, fe_node *s)
{
    fe_frame *f = L->frame;
    if (!f) { /* kernel level */
        if (s->a)
            fe_error(L->c, s->tok, CVM_SYNTAX, "a __global__ function returns void");
        fe_emit(L, "return");
        return;
    }
    if (s->a && f->deduce && f->ret_reg < 0) { /* the first return of a lambda: its type */
        fe_val v = fe_gen(L, s->a);
        fe_type *t = v.ty->kind == TY_ARRAY ? fe_ptr_to(L->c, v.ty->base) : fe_unqual(v.ty);
        f->ret_ty = t;
        if (t->kind == TY_VOID) {
            f->ret_reg = -1;
        } else if (fe_in_memory(t)) {
            uint32_t off = local_alloc(L, t);
            f->ret_reg = fe_reg(L, RT(TY_PTR, 1, SP_LOCAL));
            fe_emit(L, "const.ptr.local %%r%d, %u", f->ret_reg, off);
            fe_copy_mem(L, (fe_val){t, f->ret_reg, LV_MEM, 0, false, false, false, false}, v, t);
        } else {
            v = fe_load(L, v);
            f->ret_reg = fe_reg(L, L->rtypes[v.reg]);
            f->ret_spaced = true;
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, f->ret_reg), f->ret_reg, v.reg);
        }
        f->deduce = false;
        f->deduced = true;
    } else if (s->a) {
        fe_type *t = f->deduced && s->a->kind != N_INITLIST ? fe_type_of(L, s->a) : NULL;
        if (t && t->kind == TY_ARRAY)
            t = fe_ptr_to(L->c, t->base);
        if (t && !fe_same_type(fe_unqual(fe_no_ref(L->c, t)), f->ret_ty)) {
            char was[96], now[96];
            fe_type_str(f->ret_ty, was, sizeof was);
            fe_type_str(t, now, sizeof now);
            fe_error(L->c, s->tok, CVM_SYNTAX, "the return type of '%s' is deduced as '%s' by its first return, "
                     "and this one returns '%s'%s", f->fn->name, was, now,
                     fe_closures_apart(f->ret_ty, fe_unqual(fe_no_ref(L->c, t))));
            return;
        }
        if (f->ret_reg < 0) {
            fe_rvalue(L, s->a);
        } else if (f->ret_ref) {
            fe_val v = fe_as_base(L, fe_lvalue(L, s->a), f->ret_ty, s->tok); /* a '?:' of members: the address of either */
            if (v.lv != LV_MEM) {
                fe_error(L->c, s->tok, CVM_UNSUPPORTED,
                         "returning a reference to a register variable is not supported; return by value");
                return;
            }
            if (!return_space(L, f, v.reg, s->tok))
                return;
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, f->ret_reg), f->ret_reg, v.reg);
        } else if (fe_in_memory(f->ret_ty)) {
            fe_val dst = {f->ret_ty, f->ret_reg, LV_MEM, 0, false, false, false, false};
            if (s->a->kind == N_INITLIST) {
                fe_init_mem(L, dst, f->ret_ty, s->a);
            } else {
                fe_val v = fe_as_base(L, fe_gen(L, s->a), f->ret_ty, s->tok); /* return d; as a B */
                if (f->ret_ty->kind == TY_STRUCT && v.lv == LV_MEM && fe_same_type(fe_unqual(v.ty), f->ret_ty) &&
                    !returns_own_local(L, f, s->a))
                    fe_copy_construct(L, dst, v, f->ret_ty, s->tok); /* return p; of a parameter, *this */
                else
                    fe_store(L, dst, v, s->tok);
            }
        } else {
            fe_val v = s->a->kind == N_INITLIST ? fe_initlist_value(L, f->ret_ty, s->a) /* {a, b} */
                                                : fe_convert(L, fe_rvalue(L, s->a), f->ret_ty, s->tok);
            if (f->ret_ty->kind == TY_PTR && !return_space(L, f, v.reg, s->tok))
                return;
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, f->ret_reg), f->ret_reg, v.reg);
        }
    }
    fe_emit(L, "exit %d", L->blocks - f->blocks);
}

static void stmt_in(fe_lower *L, fe_node *s);

void fe_stmt(fe_lower *L, fe_node *s)
{
    if (L->c->err || !s || !fe_enter(L->c, s->tok))
        return;
    stmt_in(L, s);
    fe_leave(L->c);
    if (L->too_deep && !L->c->err)
        fe_error(L->c, s->tok, CVM_LIMIT, "control flow nested more than %u deep here (ifs, loops, switches and "
                 "inlined calls count; the bytecode's limit)", CVM_BC_MAX_DEPTH);
}

static void stmt_in(fe_lower *L, fe_node *s)
{
    if (L->c->err || !s)
        return;
    if (s->kind != N_BLOCK)
        fe_loc(L, s->tok);
    switch (s->kind) {
    case N_BLOCK:
        block(L, s);
        return;
    case N_DECL:
        local_decl(L, s);
        return;
    case N_EXPR:
        fe_gen(L, s->a);
        return;
    case N_IF: {
        int64_t k;
        if (fe_const_eval(L->c, s->a, &k)) { /* if constexpr, template arguments */
            fe_stmt(L, k ? s->b : s->c);
            return;
        }
        const fe_tok *at = NULL;
        const char *why = s->is_constexpr ? fe_not_constant(L, s->a, &at) : NULL;
        if (why) { /* in a template's comptime form this folds the instance (docs/cuda.md) */
            fe_error(L->c, at, CVM_SYNTAX, "if constexpr's condition is not a constant: %s", why);
            return;
        }
        fe_val c = fe_cond_bool(L, s->a);
        open_if(L, c);
        fe_var *saved = L->vars;
        fe_stmt(L, s->b);
        L->vars = saved;
        if (s->c) {
            fe_emit(L, "else");
            fe_stmt(L, s->c);
            L->vars = saved;
        }
        fe_emit(L, "end");
        return;
    }
    case N_FOR:
    case N_WHILE:
    case N_DO:
        loop_stmt(L, s);
        return;
    case N_SWITCH:
        fe_switch_stmt(L, s);
        return;
    case N_CASE:
    case N_DEFAULT:
        if (!L->switches)
            fe_error(L->c, s->tok, CVM_SYNTAX, "'%s' statement not in switch statement",
                     s->kind == N_CASE ? "case" : "default");
        else
            fe_error(L->c, s->tok, CVM_UNSUPPORTED,
                     "case label nested inside another statement of the switch is not supported");
        return;
    case N_BREAK:
        if (!L->loops && !L->switches)
            fe_error(L->c, s->tok, CVM_SYNTAX, "'break' statement not in loop or switch statement");
        fe_emit(L, "break");
        return;
    case N_CONTINUE:
        if (!L->loops)
            fe_error(L->c, s->tok, CVM_SYNTAX, "'continue' statement not in loop statement");
        fe_emit(L, "continue");
        return;
    case N_RETURN:
        return_stmt(L, s);
        return;
    case N_STATIC_ASSERT: {
        int64_t k;
        const fe_tok *at = NULL;
        const char *why = fe_const_eval(L->c, s->a, &k) ? NULL : fe_not_constant(L, s->a, &at);
        if (why) /* in a template's comptime form this folds the instance, where it is checked */
            fe_error(L->c, at, CVM_SYNTAX, "static_assert's condition is not a constant: %s", why);
        return;
    }
    case N_EMPTY:
        return;
    default:
        fe_error(L->c, s->tok, CVM_INTERNAL, "internal compiler error: statement kind %d", (int)s->kind);
    }
}

/* ---- functions ---- */

/* Binds the members of the object at `obj` (LV_MEM) as names, those of its
 * anonymous unions and structs too, and its bases' before its own (which
 * hide them: the later binding is found first). A name two bases give is
 * bound as ambiguous, an error where it is used. */
static void bind_members(fe_lower *L, fe_val obj, fe_type *st)
{
    fe_var *mark = L->vars;
    int nbases = 0;
    for (fe_member *m = st->members; m; m = m->next) {
        fe_val a = fe_ptr_add(L, obj, fe_const_int(L, TY_I64, m->offset), 1, NULL);
        if (m->anon || m->is_base) {
            nbases += m->is_base;
            bind_members(L, a, m->ty);
            continue;
        }
        fe_var *mv = bind(L, m->name, m->ty);
        if (mv) {
            mv->val = (fe_val){m->ty, a.reg, LV_MEM, 0, obj.vol || m->ty->is_volatile, false, false, false};
            mv->is_member = true;
        }
    }
    for (fe_var *v = nbases > 1 ? L->vars : mark; v != mark; v = v->next) {
        uint32_t off;
        bool amb = false;
        fe_var *now = fe_lookup(L, v->name);
        if (v->name && !(now && now->ambiguous) && !fe_member_lookup(st, v->name, strlen(v->name), &off, &amb) &&
            amb && (now = bind(L, v->name, fe_ty(TY_I32))) != NULL)
            now->ambiguous = now->is_member = true;
    }
}

/* Binds `this` and the members of the object at `obj` (LV_MEM) as names. */
static void bind_this(fe_lower *L, fe_val obj, fe_type *st)
{
    fe_var *v = bind(L, "this", fe_ptr_to(L->c, st));
    if (v)
        v->val = (fe_val){fe_ptr_to(L->c, st), obj.reg, LV_NONE, 0, false, false, false, false};
    bind_members(L, obj, st);
}

/* The names a definition sees (the module's, its namespace ns) in place
 * of the function being lowered, for a default member initializer or a
 * default argument: enter_definition gives what leave_definition restores. */
typedef struct def_scope {
    fe_var *vars;
    const char *ns;
    const fe_frame *frame;
} def_scope;

static def_scope enter_definition(fe_lower *L, const char *ns)
{
    const def_scope s = {L->vars, L->init_ns, L->init_frame};
    L->vars = L->globals;
    L->init_frame = L->frame;
    L->init_ns = ns;
    return s;
}

static void leave_definition(fe_lower *L, def_scope s)
{
    L->vars = s.vars;
    L->init_ns = s.ns;
    L->init_frame = s.frame;
}

/* Whether expression e names anything (a variable, `this`, a function):
 * a default member initializer of literals and constants needs no
 * members bound. */
static bool names_any(const fe_node *e)
{
    if (!e)
        return false;
    if (e->kind == N_IDENT || e->kind == N_THIS || e->kind == N_CALL)
        return true;
    if (names_any(e->a) || names_any(e->b) || names_any(e->c) || names_any(e->d))
        return true;
    for (const fe_node *x = e->args; x; x = x->next)
        if (names_any(x))
            return true;
    return false;
}

/*
 * Member m of the object at obj (struct st) at addr from its default
 * member initializer. The initializer's names are those of the struct's
 * scope (its members, `this`) and then the module's, never the locals of
 * the function where the object is made.
 */
void fe_init_member(fe_lower *L, fe_val obj, fe_type *st, const fe_member *m, fe_val addr)
{
    const char *ns = st->def_ns ? st->def_ns : st->origin && st->origin->def_ns ? st->origin->def_ns : L->init_ns;
    const def_scope saved = enter_definition(L, ns);
    if (names_any(m->init)) {
        obj.lv = LV_MEM;
        obj.ty = st;
        bind_this(L, obj, st);
    }
    fe_init_mem(L, addr, m->ty, m->init);
    leave_definition(L, saved);
}

/* Whether struct or union t (an anonymous one) has a member `name`, in its
 * own anonymous members too. */
static bool names_member(const fe_type *t, const char *name)
{
    for (const fe_member *m = t->members; m; m = m->next)
        if (m->anon ? names_member(m->ty, name) : strcmp(m->name, name) == 0)
            return true;
    return false;
}

/* The member initializer `m(...)` of a constructor's list: the member's
 * name, or NULL for any other statement (`S() : S(7)` delegates). */
static const char *member_init_name(const fe_node *st)
{
    const fe_node *as = st && st->kind == N_EXPR ? st->a : NULL;
    if (!as || as->kind != N_ASSIGN || !as->is_member_init)
        return NULL;
    return as->a->kind == N_ARROW && as->a->name ? as->a->name : ""; /* this->m (parse_top.c) */
}

/* Does entry s of the initializer list of a constructor of struct st
 * initialize its base m: B(args), Base<T>(args), or a template base by its
 * template's name, Base(args)? */
static bool inits_base(const fe_node *s, const fe_member *m, const fe_type *st)
{
    const fe_node *lhs = s->a->a;
    if (lhs->kind != N_ARROW)
        return false;
    if (lhs->owner)
        return fe_same_type(lhs->owner, m->ty);
    uint32_t off;
    return !fe_find_member(st, lhs->name, strlen(lhs->name), &off) && fe_base_named(st, lhs->name) == m->ty;
}

/*
 * The body of constructor ctor of the object at obj, its parameters
 * bound: its bases and then the members in their declaration order, each from its entry of
 * the initializer list or else from its default member initializer (so
 * `int b = a + 1;` after `a(x)` reads the a the list set), then entries
 * that name no member of the struct's own (an anonymous union's), then
 * the statements. A delegating constructor (`S() : S(7)`) leaves the
 * members to the one it calls.
 */
static void ctor_body(fe_lower *L, fe_node *ctor, fe_val obj)
{
    fe_node *first = ctor->body->args, *rest = first;
    const char *fm = member_init_name(first);
    if (fm && !*fm) {
        fe_stmt(L, ctor->body);
        return;
    }
    while (member_init_name(rest))
        rest = rest->next;
    uint64_t done = 0; /* entries of the list lowered, past 64 at the end */
    const bool is_union = ctor->owner->is_union;
    for (const fe_member *m = ctor->owner->members; m && !L->c->err; m = m->next) {
        bool set = false;
        unsigned i = 0;
        for (fe_node *s = first; s != rest; s = s->next, i++)
            if (i < 64 && !(done >> i & 1) &&
                (m->is_base ? inits_base(s, m, ctor->owner)
                            : strcmp(member_init_name(s), m->name) == 0 ||
                                  (m->anon && names_member(m->ty, member_init_name(s))))) {
                fe_stmt(L, s); /* an anonymous union's member: at the union's place */
                done |= 1ull << i;
                set = true;
            }
        /* a union sets one member: none of the defaults when its list names one */
        if (!set && !(is_union && first != rest))
            fe_default_member(L, obj, ctor->owner, m, ctor->tok);
        if (is_union && first == rest && m->init)
            break; /* U() : its default member initializer is the member it sets */
    }
    unsigned i = 0;
    for (fe_node *s = first; s != rest; s = s->next, i++)
        if (i >= 64 || !(done >> i & 1))
            fe_stmt(L, s);
    fe_node body = *ctor->body;
    body.args = rest;
    fe_stmt(L, &body);
}

/* The default argument of fn's parameter p, evaluated with the names of
 * fn's definition (the module's, its namespace's), never the caller's
 * locals; a lambda's with those where it was made. */
static fe_val default_arg(fe_lower *L, const fe_node *fn, const fe_node *p, const fe_tok *at)
{
    const fe_type *o = fn->owner ? (fn->owner->origin ? fn->owner->origin : fn->owner) : NULL;
    if (o && o->is_lambda)
        return fe_convert(L, fe_rvalue(L, p->a), p->ty, at);
    const def_scope saved = enter_definition(L, !o ? fn->ns : o->def_ns ? o->def_ns
                                                      : o->tmpl && o->tmpl->ns ? o->tmpl->ns : L->init_ns);
    fe_val v = fe_convert(L, fe_rvalue(L, p->a), p->ty, at);
    leave_definition(L, saved);
    return v;
}

/* Inlines fn with arguments already evaluated in the caller (vals: values or
 * lvalues as fe_gen made them), as a method of the object at *obj if given. */
fe_val fe_call_fn(fe_lower *L, const fe_tok *at, fe_node *fn, const fe_val *obj, fe_val *args, int nargs)
{
    const bool members = fn->is_ctor && obj && L->ctor_members == fn && fn->body;
    L->ctor_members = NULL;
    /* a function that calls itself cannot be inlined; another instance of a
     * template (sumT<N - 1> in sumT<N>) can, as long as the chain ends */
    unsigned same_name = 0;
    for (fe_frame *f = L->frame; f; f = f->up) {
        same_name += strcmp(f->fn->name, fn->name) == 0 && f->fn->owner == fn->owner;
        if (f->fn == fn || same_name >= 64) {
            fe_error(L->c, at, CVM_UNSUPPORTED,
                     f->fn == fn ? "recursion is not supported in kernels (device functions are inlined)"
                                 : "recursion is not supported in kernels (device functions are inlined; "
                                   "'%s' nests 64 calls of itself: template recursion must end at compile "
                                   "time)", fn->name);
            return fe_const_int(L, TY_I32, 0);
        }
    }
    if (fn->storage & FE_S_GLOBAL) {
        fe_error(L->c, at, CVM_UNSUPPORTED,
                 "dynamic parallelism (launching a kernel from device code) is not supported");
        return fe_const_int(L, TY_I32, 0);
    }
    fe_val vals[32];
    fe_type *ptys[32]; /* the parameters' types, `auto` ones the argument's */
    int n = 0, nparams = 0;
    for (fe_node *q = fn->params; q; q = q->next)
        nparams++;
    if (nargs > nparams) { /* a template chosen by name takes what it declares */
        fe_error(L->c, at, CVM_SYNTAX, "too many arguments to function '%s' (%d given, %d expected)",
                 fn->name, nargs, nparams);
        return fe_const_int(L, TY_I32, 0);
    }
    fe_node *p = fn->params;
    for (; p && n < nargs; p = p->next) {
        fe_val v = args[n];
        if (n == 32) {
            fe_error(L->c, at, CVM_LIMIT, "more than 32 arguments");
            return fe_const_int(L, TY_I32, 0);
        }
        fe_type *pty = p->ty;
        if ((fe_unqual(pty)->cg == CG_GROUP && v.ty->kind == TY_STRUCT && v.ty->cg >= CG_BLOCK &&
             v.ty->cg <= CG_COALESCED) ||
            (fe_unqual(pty)->cg == CG_TILE && v.ty->cg == CG_TILE && fe_unqual(pty)->len == v.ty->len)) {
            /* thread_group g: the group the caller passes (the body is inlined for it) */
            pty = fe_unqual(v.ty);
            if (p->ty->is_ref)
                pty = fe_ref_to(L->c, pty);
        } else if (fe_is_auto(pty)) {
            fe_type *a = v.ty->kind == TY_ARRAY ? fe_ptr_to(L->c, v.ty->base) : fe_unqual(v.ty);
            pty = fe_qualified(L->c, a, pty->is_const, false);
            if (p->ty->is_ref)
                pty = fe_ref_to(L->c, pty);
        }
        ptys[n] = pty;
        v = fe_as_base(L, v, fe_no_ref(L->c, pty), at); /* a D for a B or B & parameter: its B */
        if (pty->is_ref && !fe_bind_converted(L, &v, pty, at))
            return fe_const_int(L, TY_I32, 0);
        if (pty->is_ref) {
            if (v.lv == LV_NONE && !pty->is_const && !pty->is_rref) {
                fe_error(L->c, at, CVM_SYNTAX, "a non-const reference parameter needs an lvalue");
                return fe_const_int(L, TY_I32, 0);
            }
            if (pty->kind == TY_STRUCT && fe_converts_to(v.ty, fe_unqual(pty)))
                v = fe_struct_value(L, v, fe_no_ref(L->c, pty), at); /* const V2 & from 3.0f */
            else if (v.lv == LV_NONE || (v.ty->kind == TY_STRUCT && pty->kind != TY_STRUCT))
                v = fe_convert(L, fe_load(L, v), fe_no_ref(L->c, pty), at);
        } else if (!fe_in_memory(pty)) {
            v = fe_convert(L, fe_load(L, v), pty, at);
        } else if (pty->kind == TY_STRUCT && fe_converts_to(v.ty, fe_unqual(pty))) {
            v = fe_struct_value(L, v, pty, at); /* V2 from 3.0f */
        }
        vals[n++] = v;
    }
    for (; p && n < 32; p = p->next) { /* default arguments */
        if (!p->a) {
            fe_error(L->c, at, CVM_SYNTAX, "too few arguments to function '%s' (%d given)", fn->name, n);
            return fe_const_int(L, TY_I32, 0);
        }
        ptys[n] = p->ty;
        vals[n++] = default_arg(L, fn, p, at);
    }
    bool deduce = !fn->ty, lambda = fn->owner && fn->owner->is_lambda;
    fe_type *rty = deduce ? NULL : fe_no_ref(L->c, fe_unqual(fn->ty));
    fe_frame fr = {.fn = fn, .ret_reg = -1, .ret_ty = rty, .up = L->frame, .deduce = deduce, .site = at};
    bool ref = !deduce && fn->ty->is_ref;
    if (!deduce && fn->ty->kind != TY_VOID) {
        if (ref) {
            fr.ret_reg = fe_reg(L, RT(TY_PTR, 1, SP_LOCAL)); /* the first return sets the space */
        } else if (fe_in_memory(fn->ty)) {
            uint32_t off = local_alloc(L, fn->ty);
            fr.ret_reg = fe_reg(L, RT(TY_PTR, 1, SP_LOCAL));
            fe_emit(L, "const.ptr.local %%r%d, %u", fr.ret_reg, off);
        } else {
            fr.ret_reg = fe_reg(L, fe_rtype_of(L, fn->ty, 0));
        }
    }
    fr.ret_ref = ref;
    fe_var *saved = L->vars;
    int ntaken = L->ntaken;
    scan_taken(L, fn->body);
    /* a lambda's body sees the names where it was made (its captures, `this`) */
    const fe_type *made = lambda && obj ? fe_unqual(obj->ty) : lambda ? fn->owner : NULL;
    made = made && made->origin ? made->origin : made; /* a const or reference copy: its closure type's */
    L->vars = made && made->lambda_env ? made->lambda_env : L->globals;
    if (obj && !lambda)
        bind_this(L, *obj, fn->owner);
    int i = 0, nvarp = 0;
    fe_var *varp[32];
    for (fe_node *q = fn->params; q && i < n; q = q->next, i++) {
        if (!q->name)
            continue;
        fe_type *qty = fe_closure_of(L, ptys[i], vals[i].ty);
        if (!qty->is_ref) /* a mutable lambda's copy counts apart */
            qty = fe_closure_copy(L, qty, at);
        fe_var *v = bind(L, q->name, qty);
        if (!v)
            break;
        if (qty->is_ref && qty->kind == TY_ARRAY &&
            (vals[i].lv != LV_MEM || !fe_same_type(fe_unqual(vals[i].ty), fe_no_ref(L->c, qty)))) {
            fe_error(L->c, at, CVM_SYNTAX, "argument %d of '%s' is not an array of the parameter's type and length",
                     i + 1, fn->name);
            break;
        }
        if (qty->is_ref) {
            if (vals[i].lv == LV_NONE) { /* const T& to a temporary: a fresh copy */
                int reg = fe_reg(L, L->rtypes[vals[i].reg]);
                fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, reg), reg, vals[i].reg);
                v->val = (fe_val){fe_no_ref(L->c, fe_unqual(qty)), reg, LV_REG, 0, false, false, false, false};
            } else {
                v->val = vals[i];
                v->val.temp = false; /* a named reference: copying it copies (a copy constructor runs) */
                if (qty->is_const && v->val.ty->kind == TY_STRUCT) /* const S &: its const members are chosen */
                    v->val.ty = fe_qualified(L->c, v->val.ty, true, v->val.ty->is_volatile);
            }
        } else if (fe_in_memory(qty)) {
            v->mem = MEM_LOCAL;
            v->offset = local_alloc(L, qty);
            if (vals[i].lv != LV_MEM ||
                (vals[i].ty->kind != qty->kind && !fe_dim3_pair(fe_unqual(vals[i].ty), fe_unqual(qty)))) {
                fe_error(L->c, at, CVM_SYNTAX, "argument %d of '%s' has the wrong type", i + 1, fn->name);
                break;
            }
            if (fe_dim3_pair(fe_unqual(vals[i].ty), fe_unqual(qty)))
                fe_copy_mem(L, fe_addr_of_var(L, v), vals[i], fe_ty(TY_DIM3));
            else /* by its copy constructor if it has one */
                fe_copy_construct(L, fe_addr_of_var(L, v), vals[i], fe_unqual(qty), at);
        } else if (is_taken(L, q->name) &&
                   (qty->kind != TY_PTR || fe_space_of(L, vals[i].reg) == SP_GLOBAL)) {
            L->vars = v->next; /* rebound in memory */
            memory_var(L, q->name, fe_unqual(qty), &vals[i], at);
        } else { /* by value: a fresh register the body may modify */
            int reg = fe_reg(L, L->rtypes[vals[i].reg]);
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, reg), reg, vals[i].reg);
            v->val = (fe_val){fe_unqual(qty), reg, LV_REG, 0, false, false, false, false};
            if (nvarp < 32 && L->c->debug_vars)
                varp[nvarp++] = v;
        }
    }
    /* The inlined call starts after its arguments are copied (they belong to
     * the call's line in the caller: a debugger stopped there is not in the
     * callee yet), and at -O0 the parameters held in registers are the
     * callee's variables, in a scope over its body (at -O1 a named copy
     * would hold the optimizer back: bytecode/opt.c moves no named register). */
    const char *text = fe_fmt(L->c, ".inline \"%s\" %u %u %u", fn->name, at->file, at->line, at->col);
    region r = region_open(L, text);
    region ps = region_open(L, ".scope");
    for (int j = 0; j < nvarp; j++)
        directive(L, ".var %s %%r%d", varp[j]->name, varp[j]->val.reg);
    fe_emit(L, "block");
    L->blocks++;
    fr.blocks = L->blocks;
    L->frame = &fr;
    int loops = L->loops, switches = L->switches;
    L->loops = L->switches = 0;
    if (members)
        ctor_body(L, fn, *obj);
    else
        fe_stmt(L, fn->body);
    L->loops = loops;
    L->switches = switches;
    L->frame = fr.up;
    L->blocks--;
    fe_emit(L, "end");
    L->vars = saved;
    L->ntaken = ntaken;
    region_close(L, ps, ".endscope");
    region_close(L, r, ".endinline");
    L->loc_line = 0;
    fe_loc(L, at);
    if (fr.ret_reg < 0)
        return (fe_val){fe_ty(TY_VOID), 0, LV_NONE, 0, false, false, false, false};
    if (ref || fe_in_memory(fr.ret_ty))
        return (fe_val){fr.ret_ty, fr.ret_reg, LV_MEM, 0, false, false, false, !ref};
    return (fe_val){fr.ret_ty, fr.ret_reg, LV_NONE, 0, false, false, false, false};
}

fe_val fe_arg_value(fe_lower *L, fe_node *arg, const fe_node *param)
{
    if (arg->kind == N_INITLIST && param && param->ty) /* f({a, b}) */
        return fe_initlist_value(L, fe_no_ref(L->c, param->ty), arg);
    return fe_gen(L, arg);
}

fe_val fe_call_user(fe_lower *L, fe_node *call, fe_node *fn)
{
    fe_val vals[32];
    int n = 0;
    fe_node *p = fn->params;
    for (fe_node *a = call->args; a; a = a->next, p = p ? p->next : NULL) {
        if (n == 32) {
            fe_error(L->c, a->tok, CVM_LIMIT, "more than 32 arguments");
            return fe_const_int(L, TY_I32, 0);
        }
        vals[n++] = fe_arg_value(L, a, p);
    }
    return fe_call_fn(L, call->tok, fn, NULL, vals, n);
}

/* ---- kernels ---- */

/* Does a by-value parameter of type t hold pointers (then it is flattened)? */
static bool holds_ptr(const fe_type *t)
{
    if (t->kind == TY_PTR)
        return true;
    if (t->kind == TY_ARRAY)
        return holds_ptr(t->base);
    if (t->kind == TY_STRUCT)
        for (const fe_member *m = t->members; m; m = m->next)
            if (holds_ptr(m->ty))
                return true;
    return false;
}

static void param_line(fe_lower *L, fe_buf *hdr, const char *name, fe_type *t, const fe_tok *at);

/* A struct with pointers inside: one parameter per leaf, named path.field
 * (array elements: path.i), in declaration order; the members of an
 * anonymous struct and of a base are named as those of the struct `scope`
 * holding them, so a base member hidden by another of its name is an error. */
static void param_flat(fe_lower *L, fe_buf *hdr, const char *name, fe_type *t, const fe_type *scope,
                       const fe_tok *at)
{
    if (t->kind == TY_STRUCT && t->is_union && holds_ptr(t)) {
        fe_error(L->c, at, CVM_UNSUPPORTED, "a union that holds a pointer cannot be a kernel parameter "
                 "(each buffer pointer is a parameter of its own); pass the pointer beside it");
    } else if (t->kind == TY_STRUCT && !t->is_union) {
        for (fe_member *m = t->members; m && !L->c->err; m = m->next) { /* an anonymous struct's members are ours */
            uint32_t off;
            if (m->anon || m->is_base) {
                param_flat(L, hdr, name, m->ty, scope, at);
            } else if (scope != t && fe_find_member(scope, m->name, strlen(m->name), &off) != m) {
                fe_error(L->c, at, CVM_UNSUPPORTED, "kernel parameter '%s' of struct '%s': the member '%s' of a "
                         "base class is hidden by another '%s', and its flattened parameters would share the "
                         "name '%s.%s'; rename one", name, scope->name, m->name, m->name, name, m->name);
            } else {
                param_flat(L, hdr, fe_fmt(L->c, "%s.%s", name, m->name), m->ty, m->ty, at);
            }
        }
    } else if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len && !L->c->err; i++)
            param_flat(L, hdr, fe_fmt(L->c, "%s.%u", name, i), t->base, t->base, at);
    } else {
        param_line(L, hdr, name, t, at); /* a leaf; a union without pointers: its bytes */
    }
}

static void param_decl(fe_lower *L, fe_buf *hdr, fe_node *p, int index)
{
    fe_type *t = p->ty;
    const char *name = p->name ? p->name : fe_fmt(L->c, "_p%d", index);
    if (!t->is_ref && t->kind == TY_STRUCT && holds_ptr(t)) {
        param_flat(L, hdr, name, t, t, p->tok);
        return;
    }
    param_line(L, hdr, name, t, p->tok);
}

static void param_line(fe_lower *L, fe_buf *hdr, const char *name, fe_type *t, const fe_tok *at)
{
    if (t->is_ref) {
        fe_error(L->c, at, CVM_UNSUPPORTED, "kernel parameters cannot be references");
        return;
    }
    if (t->kind == TY_PTR) {
        fe_type *b = t->base;
        const char *elem = b->kind == TY_VEC ? fe_fmt(L->c, "%sx%u", fe_elem_name(b->base->kind), b->len)
                           : fe_is_arith(b) ? fe_elem_name(b->kind) : b->kind == TY_PTR ? "u64" : "u8";
        fe_buf_printf(L->c, hdr, ".param \"%s\" buffer %s %s\n", name, elem, b->is_const ? "read" : "readwrite");
    } else if (t->kind == TY_VEC) {
        fe_buf_printf(L->c, hdr, ".param \"%s\" scalar %sx%u\n", name, fe_elem_name(t->base->kind), t->len);
    } else if (fe_is_arith(t)) {
        fe_buf_printf(L->c, hdr, ".param \"%s\" scalar %s\n", name, fe_elem_name(t->kind));
    } else if (t->kind == TY_STRUCT || t->kind == TY_DIM3) {
        fe_buf_printf(L->c, hdr, ".param \"%s\" struct %u %u\n", name, t->size, t->align);
    } else {
        fe_error(L->c, at, CVM_UNSUPPORTED, "unsupported kernel parameter type");
    }
}

/* Reassembles a flattened struct parameter in local memory from its leaves. */
static void param_struct(fe_lower *L, const char *pname, fe_type *t, uint32_t base, fe_val addr);

static void param_unflat(fe_lower *L, const char *name, fe_type *t, fe_val addr)
{
    if (t->kind == TY_STRUCT && t->is_union) { /* a leaf of its own: its bytes */
        param_struct(L, name, t, 0, addr);
        return;
    }
    if (t->kind == TY_STRUCT || t->kind == TY_ARRAY) {
        uint32_t n = t->kind == TY_ARRAY ? t->len : 0;
        fe_member *m = t->kind == TY_STRUCT ? t->members : NULL;
        for (uint32_t i = 0; (t->kind == TY_ARRAY ? i < n : m != NULL) && !L->c->err; i++) {
            uint32_t off = m ? m->offset : i * t->base->size;
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, off), 1, NULL);
            if (m) {
                param_unflat(L, m->anon || m->is_base ? name : fe_fmt(L->c, "%s.%s", name, m->name), m->ty, a);
                m = m->next;
            } else {
                param_unflat(L, fe_fmt(L->c, "%s.%u", name, i), t->base, a);
            }
        }
        return;
    }
    int r = fe_reg(L, fe_rtype_of(L, t, SP_GLOBAL));
    fe_emit(L, "param.%s %%r%d, %s, 0", fe_tname_of(L, r), r, name); /* a bare word: no [ ] , = ; " */
    fe_emit(L, "st.%s [%%r%d], %%r%d", fe_tname_of(L, r), addr.reg, r);
}

/* Copies a by-value struct parameter into local memory, scalar by scalar. */
static void param_struct(fe_lower *L, const char *pname, fe_type *t, uint32_t base, fe_val addr)
{
    if (t->kind == TY_STRUCT) {
        for (fe_member *m = t->members; m; m = m->next) {
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, m->offset), 1, NULL);
            param_struct(L, pname, m->ty, base + m->offset, a);
        }
        return;
    }
    if (t->kind == TY_ARRAY || t->kind == TY_DIM3) {
        fe_type *et = t->kind == TY_DIM3 ? fe_ty(TY_U32) : t->base;
        uint32_t len = t->kind == TY_DIM3 ? 3 : t->len;
        for (uint32_t i = 0; i < len; i++) {
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * et->size), 1, NULL);
            param_struct(L, pname, et, base + i * et->size, a);
        }
        return;
    }
    int r = fe_reg(L, fe_rtype_of(L, t, SP_GLOBAL));
    fe_emit(L, "param.%s %%r%d, %s, %u", fe_tname_of(L, r), r, pname, base);
    fe_emit(L, "st.%s [%%r%d], %%r%d", fe_tname_of(L, r), addr.reg, r);
}

static void kernel_params(fe_lower *L, fe_node *fn)
{
    uint64_t bytes = 0;
    for (fe_node *p = fn->params; p; p = p->next) {
        bytes += p->ty->size;
        if (bytes > 32764) { /* before a struct's elements are copied one by one */
            fe_error(L->c, p->tok, CVM_LIMIT, "the kernel's parameters take more than 32,764 bytes with this one "
                     "(CUDA's limit; 4,096 before CUDA 12.1): pass large data in a buffer");
            return;
        }
    }
    int i = 0;
    for (fe_node *p = fn->params; p && !L->c->err; p = p->next, i++) {
        const char *name = p->name ? p->name : fe_fmt(L->c, "_p%d", i);
        fe_type *t = p->ty;
        fe_var *v = bind(L, name, t);
        if (!v)
            return;
        if (fe_in_memory(t)) {
            v->mem = MEM_LOCAL;
            v->offset = local_alloc(L, t);
            if (t->kind == TY_STRUCT && holds_ptr(t))
                param_unflat(L, name, t, fe_addr_of_var(L, v));
            else
                param_struct(L, name, t, 0, fe_addr_of_var(L, v));
            continue;
        }
        int r = fe_reg(L, fe_rtype_of(L, t, SP_GLOBAL));
        fe_emit(L, "param.%s %%r%d, %s, 0", fe_tname_of(L, r), r, name);
        if (is_taken(L, name)) { /* &p of a buffer pointer: kept in local memory like any scalar */
            L->vars = v->next;
            memory_var(L, name, fe_unqual(t), &(fe_val){fe_unqual(t), r, LV_NONE, 0, false, false, false, false}, p->tok);
            continue;
        }
        v->val = (fe_val){t->kind == TY_PTR ? t : fe_unqual(t), r, LV_REG, 0, false, false, false, false};
        directive(L, ".var \"%s\" %%r%d", name, r);
    }
    /* template value parameters left to the launch: read like scalars */
    const fe_template *ct = L->ct_tmpl;
    for (int k = 0; ct && k < ct->nparams && !L->c->err; k++) {
        if (!(L->ct_mask >> k & 1u))
            continue;
        fe_type *t = fe_unqual(ct->ptypes[k]);
        fe_var *v = bind(L, ct->pnames[k], t);
        if (!v)
            return;
        int r = fe_reg(L, fe_rtype_of(L, t, SP_GLOBAL));
        fe_emit(L, "param.%s %%r%d, %s, 0", fe_tname_of(L, r), r, ct->pnames[k]);
        v->val = (fe_val){t, r, LV_REG, 0, false, false, false, false};
        directive(L, ".var \"%s\" %%r%d", ct->pnames[k], r);
    }
}

void fe_lower_kernel(fe_lower *L, fe_node *fn, const char *name)
{
    fe_ctx *c = L->c;
    fe_buf hdr = {0};
    L->kernel_ns = fn->ns;
    L->nregs = 0;
    L->ninsn = 0;
    L->var_at = 0;
    L->shared_size = L->local_size = 0;
    L->constructs = 0;
    L->too_deep = false;
    L->nshared = 0;
    L->ntaken = 0;
    L->loops = L->switches = 0;
    scan_taken(L, fn->body);
    L->uses_plane = L->uses_f64 = L->uses_f16 = L->reads_warp_size = false;
    L->vars = L->globals;
    L->frame = NULL;
    L->blocks = 0;
    L->loc_line = 0;
    L->body.len = 0;
    if (L->body.p)
        L->body.p[0] = 0;
    if (fn->ty->kind != TY_VOID)
        fe_error(c, fn->tok, CVM_SYNTAX, "a __global__ function must return void");
    fe_buf_printf(c, &hdr, ".kernel \"%s\"\n", name);
    int i = 0;
    for (fe_node *p = fn->params; p; p = p->next)
        param_decl(L, &hdr, p, i++);
    const fe_template *ct = L->ct_tmpl;
    for (int k = 0; ct && k < ct->nparams; k++)
        if (L->ct_mask >> k & 1u)
            fe_buf_printf(c, &hdr, ".param \"%s\" comptime %s\n", ct->pnames[k],
                          fe_elem_name(ct->ptypes[k]->kind));
    fe_loc(L, fn->tok);
    kernel_params(L, fn);
    fe_stmt(L, fn->body);
    fe_emit(L, "return");
    if (L->local_size > CVM_BC_MAX_LOCAL && !c->err)
        fe_error(c, fn->tok, CVM_LIMIT, "kernel '%s' needs more than %u bytes of local memory per unit (the VM's "
                 "limit): a local array, or a struct passed or returned by value, is too large", name,
                 CVM_BC_MAX_LOCAL);
    if (L->uses_plane)
        fe_buf_printf(c, &hdr, ".plane_width 32\n");
    else if (L->reads_warp_size) /* CUDA's warpSize is 32: a device whose subgroups are 8 runs it 32 wide */
        fe_buf_printf(c, &hdr, ".plane_width 32 hint\n");
    if (L->uses_f64 || L->uses_f16)
        fe_buf_printf(c, &hdr, ".uses%s%s\n", L->uses_f64 ? " f64" : "", L->uses_f16 ? " f16" : "");
    if (L->shared_size)
        fe_buf_printf(c, &hdr, ".shared %u\n", align_up(L->shared_size, 16));
    if (L->local_size)
        fe_buf_printf(c, &hdr, ".local %u\n", align_up(L->local_size, 16));
    if (fn->launch_bound)
        fe_buf_printf(c, &hdr, ".max_cube %u\n", fn->launch_bound);
    for (uint32_t r = 0; r < L->nregs; r++) {
        char t[32];
        rtype_str(L->rtypes[r], t, sizeof t);
        fe_buf_printf(c, &hdr, ".reg %s %%r%u\n", t, r);
    }
    if (!c->err) {
        fe_buf_add(c, L->out, hdr.p, hdr.len);
        fe_buf_add(c, L->out, L->body.p ? L->body.p : "", L->body.len);
        fe_buf_printf(c, L->out, ".end\n\n");
    }
    fe_buf_free(c, &hdr);
}
