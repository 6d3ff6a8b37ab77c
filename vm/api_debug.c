/*
 * api_debug.c - the debugging API of cubevm.h: launches under a hook
 * (interp.c run_hooked calls it before every instruction), reads of the
 * stopped cube's registers and memory, and the module's debug info (lines,
 * variables, inlined calls) by pc. `cubevm debug` (tools/cubevm_debug.c)
 * is built on these alone. docs/debugging.md.
 */
#include "api.h"
#include "interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cvm_debug_stop {
    cvm_vm_exec *x;
    cvm_vm_plane *p;
};

/* interp.c's hook: the public view of the plane, and the print text since the last call. */
static int trampoline(void *user, cvm_vm_exec *x, cvm_vm_plane *p, int event)
{
    cvm_vm_op *op = user;
    const char *text;
    size_t len;
    cvm_vm_printed(x, &text, &len); /* this run's text only: one worker runs it all */
    cvm_debug_where w = {
        .event = event == CVM_VM_HOOK_FAULT ? CVM_DEBUG_FAULT : CVM_DEBUG_STEP,
        .cube = {x->cube[0], x->cube[1], x->cube[2]},
        .plane = p->index,
        .planes = x->nplanes,
        .plane_width = x->W,
        .lanes = p->nlanes,
        .active = p->active,
        .exited = p->exited,
        .pc = p->pc,
        .steps = p->steps,
        .fault = event == CVM_VM_HOOK_FAULT && x->fault.has ? x->fault.what : NULL,
        .fault_lane = event == CVM_VM_HOOK_FAULT && x->fault.plane == p->index ? x->fault.lane : 0,
        .output = text ? text + op->debug_shown : "",
        .output_len = len - op->debug_shown,
    };
    op->debug_shown = len;
    cvm_debug_stop at = {x, p};
    return op->debug_hook(op->debug_user, &w, &at);
}

cvm_status cvm_launch_debug(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                            const cvm_arg *args, uint32_t arg_count, cvm_debug_hook hook,
                            void *user, cvm_diag *diag)
{
    if (!s || !k || !cfg || !hook)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch_debug: NULL stream, kernel, config or hook");
    if (s->dev->ops != &cvm_vm_cpu_ops)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "cvm_launch_debug: only the cpu device runs kernels under a debugger");
    if (!(cfg->timeout_s >= 0))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch_debug: timeout must be >= 0 seconds");
    cvm_vm_debugging dbg = {trampoline, hook, user};
    return cvm_vm_cpu_launch_with(s, k, cfg, args, arg_count, &dbg, diag);
}

/* ---- the stopped cube ---- */

static cvm_vm_plane *plane_of(const cvm_debug_stop *at, uint32_t plane)
{
    if (!at)
        return NULL;
    if (plane == UINT32_MAX)
        return at->p;
    return plane < at->x->nplanes ? &at->x->planes[plane] : NULL;
}

cvm_status cvm_debug_read_reg(const cvm_debug_stop *at, uint32_t plane, uint32_t reg,
                              uint32_t elem, uint32_t lane, uint64_t *out_bits)
{
    cvm_vm_plane *p = plane_of(at, plane);
    if (!p || !out_bits)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_kernel *k = at->x->kp->k;
    if (reg >= k->nregs || lane >= p->nlanes)
        return CVM_INVALID_ARGUMENT;
    /* the exact code keeps one slot per register, in order (decode.c) */
    uint32_t slot = 0;
    for (uint32_t r = 0; r < reg; r++)
        slot += k->regs[r].line ? k->regs[r].line : 1;
    uint32_t line = k->regs[reg].line ? k->regs[reg].line : 1;
    if (elem >= line)
        return CVM_INVALID_ARGUMENT;
    *out_bits = cvm_vm_get_bits(cvm_vm_reg(at->x, p, slot + elem), k->regs[reg].elem, lane);
    return CVM_OK;
}

cvm_status cvm_debug_plane(const cvm_debug_stop *at, uint32_t plane, cvm_debug_plane_info *out)
{
    cvm_vm_plane *p = plane_of(at, plane);
    if (!p || !out)
        return CVM_INVALID_ARGUMENT;
    static const cvm_debug_plane_state state[] = {
        [CVM_VM_RUNNABLE] = CVM_DEBUG_RUNNABLE, [CVM_VM_AT_SYNC] = CVM_DEBUG_WAITING,
        [CVM_VM_AT_BAR] = CVM_DEBUG_WAITING,    [CVM_VM_DONE] = CVM_DEBUG_DONE,
        [CVM_VM_FAULTED] = CVM_DEBUG_FAULTED,
    };
    *out = (cvm_debug_plane_info){
        .state = p->state < sizeof state / sizeof *state ? state[p->state] : CVM_DEBUG_FAULTED,
        .pc = p->state == CVM_VM_AT_SYNC || p->state == CVM_VM_AT_BAR ? p->wait_pc : p->pc,
        .lanes = p->nlanes,
        .active = p->active,
        .exited = p->exited,
        .steps = p->steps,
    };
    return CVM_OK;
}

cvm_status cvm_debug_read_mem(const cvm_debug_stop *at, uint32_t plane, uint32_t lane,
                              cvm_debug_space space, uint64_t ptr, void *out, size_t size)
{
    const cvm_vm_plane *p = plane_of(at, plane);
    if (!p || !out || lane >= p->nlanes)
        return CVM_INVALID_ARGUMENT;
    const cvm_vm_exec *x = at->x;
    const uint8_t *base = NULL;
    uint64_t limit = 0, off = ptr;
    switch (space) {
    case CVM_DEBUG_GLOBAL: {
        /* as checked mode does: inside a buffer, the one the pointer was made
         * from when it carries its tag (an overflow into a neighbour is no read) */
        uint64_t a = CVM_VM_PTR_ADDR(ptr);
        const cvm_vm_region *r = cvm_vm_region_of(x->L, a, CVM_VM_PTR_TAG(ptr));
        if (r && a >= r->base) {
            base = (const uint8_t *)r->base;
            limit = r->size;
            off = a - r->base;
        }
        break;
    }
    case CVM_DEBUG_SHARED:
        base = x->shared, limit = x->shared_size;
        break;
    case CVM_DEBUG_LOCAL:
        base = x->local + (size_t)(p->index * x->W + lane) * x->local_bytes;
        limit = x->local_bytes;
        break;
    case CVM_DEBUG_CONST:
        base = x->L->const_data, limit = x->L->const_size;
        break;
    default:
        return CVM_INVALID_ARGUMENT;
    }
    if (!base || off > limit || limit - off < size)
        return CVM_INVALID_ARGUMENT;
    memcpy(out, base + off, size);
    return CVM_OK;
}

void cvm_debug_ptr_text(const cvm_debug_stop *at, cvm_debug_space space, uint64_t ptr, char *buf,
                        size_t cap)
{
    if (!buf || !cap)
        return;
    static const char *const names[] = {"?", "global", "shared", "local", "const"};
    const char *name = space >= CVM_DEBUG_GLOBAL && space <= CVM_DEBUG_CONST ? names[space] : "?";
    if (space != CVM_DEBUG_GLOBAL) {
        snprintf(buf, cap, "%s + %llu", name, (unsigned long long)(uint32_t)ptr);
        return;
    }
    uint64_t a = CVM_VM_PTR_ADDR(ptr);
    uint16_t tag = CVM_VM_PTR_TAG(ptr);
    /* the buffer it points into (one past the end too), as checked mode finds it */
    const cvm_vm_region *r = at ? cvm_vm_region_of(at->x->L, a, tag) : NULL;
    if (r && a >= r->base && a - r->base <= r->size) {
        snprintf(buf, cap, "buffer '%s' + %llu%s", r->name ? r->name : "?",
                 (unsigned long long)(a - r->base), a - r->base == r->size ? " (its end)" : "");
        return;
    }
    const cvm_vm_region *from = r && tag && r->tag == tag ? r : NULL; /* the one it was made from */
    if (from && a >= from->base)
        snprintf(buf, cap, "buffer '%s' + %llu (past its %zu bytes)", from->name ? from->name : "?",
                 (unsigned long long)(a - from->base), from->size);
    else if (from)
        snprintf(buf, cap, "buffer '%s' - %llu (before its start)", from->name ? from->name : "?",
                 (unsigned long long)(from->base - a));
    else
        snprintf(buf, cap, "global 0x%llx (in no buffer)", (unsigned long long)a);
}

/* ---- the module's code and debug info ---- */

static const cvm_bc_kernel *bk_of(const cvm_kernel *k)
{
    return k ? &k->mod->bc->kernels[k->index] : NULL;
}

uint32_t cvm_debug_code_size(const cvm_kernel *k)
{
    return k ? k->mod->prog->kernels[k->index].ninsns : 0;
}

uint32_t cvm_debug_reg_count(const cvm_kernel *k)
{
    return k ? bk_of(k)->nregs : 0;
}

cvm_status cvm_debug_reg_type(const cvm_kernel *k, uint32_t reg, cvm_debug_type *out)
{
    if (!k || !out)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_kernel *bk = bk_of(k);
    if (reg >= bk->nregs)
        return CVM_NOT_FOUND;
    unsigned e = bk->regs[reg].elem;
    static const cvm_debug_space spaces[] = {
        [CVM_T_PTR_GLOBAL - CVM_T_PTR_GLOBAL] = CVM_DEBUG_GLOBAL,
        [CVM_T_PTR_SHARED - CVM_T_PTR_GLOBAL] = CVM_DEBUG_SHARED,
        [CVM_T_PTR_LOCAL - CVM_T_PTR_GLOBAL] = CVM_DEBUG_LOCAL,
        [CVM_T_PTR_CONST - CVM_T_PTR_GLOBAL] = CVM_DEBUG_CONST,
    };
    bool ptr = e >= CVM_T_PTR_GLOBAL && e <= CVM_T_PTR_CONST;
    *out = (cvm_debug_type){
        .elem = ptr ? (cvm_elem)0 : (cvm_elem)e,
        .space = ptr ? spaces[e - CVM_T_PTR_GLOBAL] : (cvm_debug_space)0,
        .line = bk->regs[reg].line ? bk->regs[reg].line : 1,
    };
    return CVM_OK;
}

cvm_status cvm_debug_insn_text(const cvm_kernel *k, uint32_t pc, char *buf, size_t cap)
{
    if (!k)
        return CVM_INVALID_ARGUMENT;
    return cvm_bc_insn_text(k->mod->bc, k->index, pc, buf, cap);
}

cvm_status cvm_debug_line(const cvm_kernel *k, uint32_t pc, const char **out_file,
                          uint32_t *out_line, uint32_t *out_col)
{
    if (!k)
        return CVM_INVALID_ARGUMENT;
    return cvm_bc_debug_line(k->mod->bc, k->index, pc, out_file, out_line, out_col)
               ? CVM_OK
               : CVM_NOT_FOUND;
}

/* Scopes around scope s (s itself counted). */
static uint32_t scope_depth(const cvm_bc_debug *d, uint32_t s)
{
    uint32_t n = 0;
    for (; s < d->nscopes && n <= d->nscopes; s = d->scopes[s].parent)
        n++;
    return n;
}

/* The inlined calls of kernel kidx whose body holds variable v: those around
 * both its first pc and the start of its scope. Its first pc alone would
 * count a call that starts right after its declaration (`int v = f(i);
 * g();`: v's first pc is the call's), its scope's start alone a call that
 * starts with the scope (`{ g(); int z = ...; }`). */
static uint32_t var_frame(const cvm_bc_debug *d, uint32_t kidx, const cvm_bc_dvar *v)
{
    if (v->scope >= d->nscopes)
        return 0; /* the kernel's own level */
    uint32_t s = d->scopes[v->scope].start_pc, n = 0;
    for (uint32_t i = 0; i < d->ninlines; i++) {
        const cvm_bc_dinline *c = &d->inlines[i];
        n += c->kernel == kidx && c->start_pc <= v->start_pc && v->start_pc < c->end_pc &&
             c->start_pc <= s && s < c->end_pc;
    }
    return n;
}

static int by_key_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* A variable the frontend put in an inlined call's parameter scope, which
 * opens where the call does. */
static bool var_param(const cvm_bc_debug *d, uint32_t kidx, const cvm_bc_dvar *v, uint32_t frame)
{
    if (v->scope >= d->nscopes)
        return true; /* outside every scope: the kernel's parameters */
    if (!frame)
        return false;
    const uint32_t s = d->scopes[v->scope].start_pc;
    for (uint32_t i = 0; i < d->ninlines; i++) {
        const cvm_bc_dinline *c = &d->inlines[i];
        if (c->kernel == kidx && c->start_pc == s && c->start_pc <= v->start_pc &&
            v->start_pc < c->end_pc)
            return true;
    }
    return false;
}

cvm_status cvm_debug_var_at(const cvm_kernel *k, uint32_t pc, uint32_t i, cvm_debug_var *out)
{
    if (!k || !out)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_module *m = k->mod->bc;
    const cvm_bc_debug *d = &m->debug;
    /* the variables in scope, then the i-th innermost: by scope depth, deepest
     * first, then the later declaration first */
    uint32_t n = 0;
    for (uint32_t v = 0; v < d->nvars; v++)
        n += d->vars[v].kernel == k->index && d->vars[v].start_pc <= pc && pc < d->vars[v].end_pc;
    if (i >= n)
        return CVM_NOT_FOUND;
    cvm_alloc_fn fn = m->alloc ? m->alloc : cvm_default_alloc;
    uint64_t *key = cvm_bc_alloc(fn, m->alloc_user, sizeof *key * n);
    if (!key)
        return CVM_OUT_OF_MEMORY;
    n = 0;
    for (uint32_t v = 0; v < d->nvars; v++) {
        const cvm_bc_dvar *dv = &d->vars[v];
        if (dv->kernel == k->index && dv->start_pc <= pc && pc < dv->end_pc)
            key[n++] = (uint64_t)scope_depth(d, dv->scope) << 32 | v; /* larger: first */
    }
    qsort(key, n, sizeof *key, by_key_desc); /* a listing asks for each i: n log n a call */
    const uint32_t v = (uint32_t)key[i], depth = (uint32_t)(key[i] >> 32);
    cvm_bc_free(fn, m->alloc_user, key, sizeof *key * n);
    const cvm_bc_dvar *dv = &d->vars[v];
    const uint32_t frame = var_frame(d, k->index, dv);
    *out = (cvm_debug_var){
        .name = cvm_bc_str(m, dv->name),
        .reg = dv->reg,
        .depth = depth,
        .frame = frame,
        .param = var_param(d, k->index, dv, frame),
    };
    return CVM_OK;
}

cvm_status cvm_debug_frame_at(const cvm_kernel *k, uint32_t pc, uint32_t i, cvm_debug_frame *out)
{
    if (!k || !out)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_module *m = k->mod->bc;
    const cvm_bc_debug *d = &m->debug;
    /* the innermost call around pc: nested calls are listed after their parent */
    uint32_t f = UINT32_MAX;
    for (uint32_t j = 0; j < d->ninlines; j++)
        if (d->inlines[j].kernel == k->index && d->inlines[j].start_pc <= pc &&
            pc < d->inlines[j].end_pc)
            f = j;
    for (uint32_t n = 0; n < i && f < d->ninlines; n++)
        f = d->inlines[f].parent;
    if (f >= d->ninlines)
        return CVM_NOT_FOUND;
    const cvm_bc_dinline *c = &d->inlines[f];
    *out = (cvm_debug_frame){
        .function = cvm_bc_str(m, c->callee),
        .file = c->file < d->nfiles ? cvm_bc_str(m, d->files[c->file]) : "",
        .line = c->line,
        .col = c->col,
    };
    return CVM_OK;
}
