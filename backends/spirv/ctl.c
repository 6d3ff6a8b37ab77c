/*
 * ctl.c - the SPIR-V backend's driver and structured control flow:
 * cvm_spv_compile, if/else, loop/continuing/break_if, switch/case with
 * fallthrough, block/exit as loop-once constructs, and the escape flags
 * that carry break/continue/exit/return across constructs SPIR-V cannot
 * branch out of directly (docs/backends.md "Control flow").
 *
 * Kernel-level `return` sets the `exited` flag and the rest of each part it
 * leaves is guarded by `if (!exited)`; a barrier met while such guards are
 * open in its own part closes and reopens them around itself, so every unit
 * of the cube (exited or not) reaches it in uniform control flow.
 */
#include "spv_int.h"

#include <string.h>

static spv_frame *top(spv_ctx *c) { return &c->frames[c->nframes - 1]; }

static spv_frame *push(spv_ctx *c, uint8_t kind)
{
    if (c->nframes >= CVM_BC_MAX_DEPTH + 1) {
        spv_fail(c, CVM_UNSUPPORTED, "constructs nested too deeply");
        return NULL;
    }
    spv_frame *f = &c->frames[c->nframes++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->pc = c->pc;
    return f;
}

/* Opens `if (!flag) { ... }` for the rest of the current part. */
static void guard(spv_ctx *c, uint32_t flag)
{
    spv_frame *f = top(c);
    if (f->nguards >= SPV_MAX_GUARDS) {
        spv_fail(c, CVM_UNSUPPORTED, "more than %d escapes guard one construct part", SPV_MAX_GUARDS);
        return;
    }
    spv_block(c);
    uint32_t v = spv_load(c, spv_t_bool(c), flag), g = spv_id(c), rest = spv_id(c);
    SPV_EM(c, &c->body, SpvOpSelectionMerge, g, SpvSelectionControlMaskNone);
    SPV_EM(c, &c->body, SpvOpBranchConditional, v, g, rest);
    spv_label(c, rest);
    f->guard_merge[f->nguards] = g;
    f->guard_flag[f->nguards++] = flag;
}

static void close_guards(spv_ctx *c)
{
    spv_frame *f = top(c);
    while (f->nguards) {
        uint32_t g = f->guard_merge[--f->nguards];
        spv_branch(c, g);
        spv_label(c, g);
    }
}

void spv_barrier_lift(spv_ctx *c, bool close)
{
    spv_frame *f = top(c);
    if (close) { /* guard_flag keeps the flags for the reopening */
        uint32_t n = f->nguards;
        close_guards(c);
        c->lifted = n;
    } else {
        uint32_t n = c->lifted, flags[SPV_MAX_GUARDS];
        memcpy(flags, f->guard_flag, sizeof flags);
        for (uint32_t i = 0; i < n; i++)
            guard(c, flags[i]);
        c->lifted = 0;
    }
}

/* if (flag) { [flag = false;] branch target } */
static void cond_leave(spv_ctx *c, uint32_t flag, uint32_t target, bool reset)
{
    spv_block(c);
    uint32_t v = spv_load(c, spv_t_bool(c), flag), g = spv_id(c), x = spv_id(c);
    SPV_EM(c, &c->body, SpvOpSelectionMerge, g, SpvSelectionControlMaskNone);
    SPV_EM(c, &c->body, SpvOpBranchConditional, v, x, g);
    spv_label(c, x);
    if (reset)
        spv_store(c, flag, spv_c_bool(c, false));
    spv_branch(c, target);
    spv_label(c, g);
}

static void add_pending(spv_ctx *c, spv_frame *f, uint32_t flag, uint32_t target, uint8_t action)
{
    for (uint32_t i = 0; i < f->npending; i++)
        if (f->pending[i].flag == flag && f->pending[i].target == target &&
            f->pending[i].action == action)
            return;
    if (f->npending >= SPV_MAX_PENDING) {
        spv_fail(c, CVM_UNSUPPORTED, "more than %d escapes cross one construct", SPV_MAX_PENDING);
        return;
    }
    f->pending[f->npending++] = (spv_escape){flag, target, action};
}

/* After a construct that lanes may have escaped from: continue the escape in its parent. */
static void propagate(spv_ctx *c, const spv_escape *e)
{
    uint32_t pi = c->nframes - 1;
    spv_frame *p = top(c);
    if (e->target == pi) {
        if (e->action == SPV_ESC_BREAK)
            cond_leave(c, e->flag, p->merge, true);
        else if (e->action == SPV_ESC_CONTINUE)
            cond_leave(c, e->flag, p->cont, true);
        else if (p->kind == SPV_F_BLOCK)
            cond_leave(c, e->flag, p->merge, true);
        else
            guard(c, e->flag); /* kernel level: the rest is skipped by exited units */
        return;
    }
    if (p->kind == SPV_F_IF || p->kind == SPV_F_KERNEL) {
        guard(c, e->flag);
    } else if (p->kind == SPV_F_LOOP && p->continuing) {
        spv_fail(c, CVM_UNSUPPORTED, "an escape crosses the continuing part of a loop");
        return;
    } else {
        cond_leave(c, e->flag, p->merge, false);
    }
    add_pending(c, p, e->flag, e->target, e->action);
}

/* Lanes leave to frame `t` (break, continue, exit or return). */
static void escape(spv_ctx *c, uint32_t flag, uint32_t t, uint8_t action)
{
    spv_block(c);
    uint32_t ti = t, fi = c->nframes - 1;
    spv_frame *tf = &c->frames[ti];
    bool direct = tf->kind != SPV_F_KERNEL;
    for (uint32_t i = fi; direct && i > ti; i--) {
        uint8_t k = c->frames[i].kind;
        if (!(k == SPV_F_IF || (k == SPV_F_SWITCH && action == SPV_ESC_CONTINUE)))
            direct = false;
    }
    if (direct) {
        spv_branch(c, action == SPV_ESC_CONTINUE ? tf->cont : tf->merge);
        return;
    }
    spv_store(c, flag, spv_c_bool(c, true));
    spv_frame *f = top(c);
    if (fi == ti) { /* return at kernel level */
        guard(c, flag);
        return;
    }
    if (f->kind == SPV_F_LOOP && f->continuing) {
        spv_fail(c, CVM_UNSUPPORTED, "return or exit inside the continuing part of a loop");
        return;
    }
    spv_branch(c, f->merge);
    add_pending(c, f, flag, ti, action);
}

static uint32_t frame_flag(spv_ctx *c, uint32_t *slot)
{
    if (!*slot)
        *slot = spv_fvar(c, spv_t_bool(c));
    return *slot;
}

static void open_loopish(spv_ctx *c, spv_frame *f)
{
    spv_block(c);
    uint32_t h = spv_id(c), b = spv_id(c);
    f->merge = spv_id(c);
    f->cont = spv_id(c);
    f->header = h;
    spv_branch(c, h);
    spv_label(c, h);
    SPV_EM(c, &c->body, SpvOpLoopMerge, f->merge, f->cont, SpvLoopControlMaskNone);
    spv_branch(c, b);
    spv_label(c, b);
}

static void op_switch(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t r = in->ops[0];
    unsigned elem = c->k->regs[r].elem, size = cvm_bc_elem_size(elem);
    if (size == 8) {
        spv_fail(c, CVM_UNSUPPORTED, "switch on a 64-bit selector");
        return;
    }
    spv_block(c);
    uint32_t v = spv_get(c, r);
    if (size < 4)
        v = spv_op1(c, cvm_bc_elem_is_signed(elem) ? SpvOpSConvert : SpvOpUConvert,
                    spv_t_int(c, 32), v);
    spv_frame *f = push(c, SPV_F_SWITCH);
    if (!f)
        return;
    f->merge = spv_id(c);
    uint32_t w[2 + 2 * 1024], n = 2, dflt = f->merge;
    const cvm_bc_vinsn *vi = c->vk->insns;
    for (uint32_t m = vi[c->pc].target; m < c->vk->ninsns && m != vi[c->pc].end; m = vi[m].target) {
        cvm_bc_insn mi;
        cvm_bc_insn_at(c->k, vi[m].word, &mi);
        if (f->ncases >= SPV_MAX_CASES) {
            spv_fail(c, CVM_UNSUPPORTED, "a switch with more than %d case markers", SPV_MAX_CASES);
            return;
        }
        uint32_t label = spv_id(c);
        f->case_label[f->ncases++] = label;
        if (mi.op == CVM_OP_DEFAULT) {
            dflt = label;
            continue;
        }
        for (unsigned i = 0; i < mi.nops; i++) {
            if (n + 2 > sizeof w / sizeof w[0]) {
                spv_fail(c, CVM_UNSUPPORTED, "a switch with more than 1024 case values");
                return;
            }
            w[n++] = mi.ops[i];
            w[n++] = label;
        }
    }
    w[0] = v;
    w[1] = dflt;
    SPV_EM(c, &c->body, SpvOpSelectionMerge, f->merge, SpvSelectionControlMaskNone);
    spv_emit(c, &c->body, SpvOpSwitch, w, n);
    c->terminated = true;
}

static void op_end(spv_ctx *c)
{
    spv_frame *f = top(c);
    close_guards(c);
    switch (f->kind) {
    case SPV_F_IF:
    case SPV_F_SWITCH:
        spv_branch(c, f->merge);
        break;
    case SPV_F_LOOP: {
        if (!f->continuing) {
            spv_branch(c, f->cont);
            spv_label(c, f->cont);
        }
        spv_loop_guard(c, f->pc);
        uint32_t b = spv_load(c, spv_t_bool(c), f->brk_flag);
        SPV_EM(c, &c->body, SpvOpBranchConditional, b, f->merge, f->header);
        c->terminated = true;
        break;
    }
    case SPV_F_BLOCK:
        spv_branch(c, f->merge);
        spv_label(c, f->cont);
        spv_branch(c, f->header);
        break;
    default:
        spv_fail(c, CVM_MALFORMED, "end without a construct");
        return;
    }
    spv_label(c, f->merge);
    spv_frame done = *f;
    c->nframes--;
    for (uint32_t i = 0; i < done.npending && c->st == CVM_OK; i++)
        propagate(c, &done.pending[i]);
}

static uint32_t innermost(spv_ctx *c, bool loops_only)
{
    for (uint32_t i = c->nframes - 1; i > 0; i--) {
        uint8_t k = c->frames[i].kind;
        if (k == SPV_F_LOOP || (!loops_only && k == SPV_F_SWITCH))
            return i;
    }
    return 0;
}

static void op_ctl(spv_ctx *c, const cvm_bc_insn *in)
{
    spv_frame *f;
    switch (in->op) {
    case CVM_OP_NOP:
        break;
    case CVM_OP_IF: {
        spv_block(c);
        uint32_t v = spv_get(c, in->ops[0]);
        const cvm_bc_vinsn *vi = &c->vk->insns[c->pc];
        if (!(f = push(c, SPV_F_IF)))
            return;
        f->merge = spv_id(c);
        uint32_t then = spv_id(c);
        f->cont = vi->target != vi->end ? spv_id(c) : f->merge; /* the else label */
        SPV_EM(c, &c->body, SpvOpSelectionMerge, f->merge, SpvSelectionControlMaskNone);
        SPV_EM(c, &c->body, SpvOpBranchConditional, v, then, f->cont);
        spv_label(c, then);
        break;
    }
    case CVM_OP_ELSE:
        f = top(c);
        close_guards(c);
        spv_branch(c, f->merge);
        spv_label(c, f->cont);
        break;
    case CVM_OP_LOOP:
        if (!(f = push(c, SPV_F_LOOP)))
            return;
        spv_block(c);
        f->brk_flag = spv_fvar(c, spv_t_bool(c));
        spv_store(c, f->brk_flag, spv_c_bool(c, false));
        open_loopish(c, f);
        break;
    case CVM_OP_CONTINUING:
        f = top(c);
        close_guards(c);
        spv_branch(c, f->cont);
        spv_label(c, f->cont);
        f->continuing = true;
        break;
    case CVM_OP_BREAK_IF:
        f = top(c);
        if (f->kind != SPV_F_LOOP || !f->continuing) {
            spv_fail(c, CVM_UNSUPPORTED, "break_if nested inside the continuing part");
            return;
        }
        spv_block(c);
        spv_store(c, f->brk_flag, spv_get(c, in->ops[0]));
        guard(c, f->brk_flag);
        break;
    case CVM_OP_BREAK: {
        uint32_t t = innermost(c, false);
        escape(c, frame_flag(c, &c->frames[t].esc_brk), t, SPV_ESC_BREAK);
        break;
    }
    case CVM_OP_CONTINUE: {
        uint32_t t = innermost(c, true);
        escape(c, frame_flag(c, &c->frames[t].esc_cont), t, SPV_ESC_CONTINUE);
        break;
    }
    case CVM_OP_SWITCH:
        op_switch(c, in);
        break;
    case CVM_OP_CASE:
    case CVM_OP_DEFAULT:
        f = top(c);
        if (f->case_next) {
            close_guards(c);
            spv_branch(c, f->merge);
        }
        if (f->case_next >= f->ncases) {
            spv_fail(c, CVM_MALFORMED, "case marker outside the switch's list");
            return;
        }
        spv_label(c, f->case_label[f->case_next++]);
        break;
    case CVM_OP_FALLTHROUGH:
        f = top(c);
        spv_block(c);
        close_guards(c);
        if (f->case_next >= f->ncases) {
            spv_fail(c, CVM_MALFORMED, "fallthrough without a next case");
            return;
        }
        spv_branch(c, f->case_label[f->case_next]);
        break;
    case CVM_OP_BLOCK:
        if (!(f = push(c, SPV_F_BLOCK)))
            return;
        spv_block(c);
        f->exit_flag = spv_fvar(c, spv_t_bool(c));
        spv_store(c, f->exit_flag, spv_c_bool(c, false));
        open_loopish(c, f);
        break;
    case CVM_OP_EXIT: {
        uint32_t depth = in->ops[0], t = 0;
        for (uint32_t i = c->nframes - 1; i > 0; i--)
            if (c->frames[i].kind == SPV_F_BLOCK && depth-- == 0) {
                t = i;
                break;
            }
        if (!t) {
            spv_fail(c, CVM_MALFORMED, "exit without its block");
            return;
        }
        escape(c, c->frames[t].exit_flag, t, SPV_ESC_END);
        break;
    }
    case CVM_OP_RETURN:
        escape(c, c->exited, 0, SPV_ESC_END);
        break;
    case CVM_OP_END:
        op_end(c);
        break;
    default:
        break;
    }
}

/*
 * trap: the fault record, then as `return`. assert: the same under
 * `if (!cond)`, an if construct of its own so the return's flag and guards
 * work as for a `return` in source.
 */
static void op_fault(spv_ctx *c, const cvm_bc_insn *in)
{
    spv_block(c);
    spv_frame *f = NULL;
    if (top(c)->kind == SPV_F_LOOP && top(c)->continuing) {
        spv_fail(c, CVM_UNSUPPORTED, "'%s' inside the continuing part of a loop: the faulting "
                 "unit would leave it as a return does, which cannot be expressed there",
                 in->op == CVM_OP_TRAP ? "trap" : "assert");
        return;
    }
    if (in->op == CVM_OP_ASSERT) {
        uint32_t bad = spv_op1(c, SpvOpLogicalNot, spv_t_bool(c), spv_get(c, in->ops[0]));
        if (!(f = push(c, SPV_F_IF)))
            return;
        f->merge = f->cont = spv_id(c);
        uint32_t then = spv_id(c);
        SPV_EM(c, &c->body, SpvOpSelectionMerge, f->merge, SpvSelectionControlMaskNone);
        SPV_EM(c, &c->body, SpvOpBranchConditional, bad, then, f->merge);
        spv_label(c, then);
    }
    spv_fault_record(c);
    if (c->st == CVM_OK)
        escape(c, c->exited, 0, SPV_ESC_END);
    if (f && c->st == CVM_OK)
        op_end(c);
}

static bool is_ctl(unsigned op) { return op <= CVM_OP_RETURN; }

static bool is_barrier(unsigned op)
{
    return op == CVM_OP_SYNC_CUBE || op == CVM_OP_SYNC_CUBE_COUNT || op == CVM_OP_SYNC_CUBE_AND ||
           op == CVM_OP_SYNC_CUBE_OR;
}

void spv_translate(spv_ctx *c)
{
    for (uint32_t pc = 0; pc < c->vk->ninsns && c->st == CVM_OK; pc++) {
        c->pc = pc;
        cvm_bc_insn in;
        if (!cvm_bc_insn_at(c->k, c->vk->insns[pc].word, &in)) {
            spv_fail(c, CVM_MALFORMED, "undecodable instruction");
            return;
        }
        if (is_ctl(in.op)) {
            op_ctl(c, &in);
            continue;
        }
        if (in.op == CVM_OP_TRAP || in.op == CVM_OP_ASSERT) {
            op_fault(c, &in);
            continue;
        }
        spv_block(c);
        bool bar = is_barrier(in.op);
        if (bar && c->nframes != 1 && c->vk->insns[pc].uni > CVM_UNI_CUBE && c->vk->insns[pc].live_uni <= CVM_UNI_CUBE) {
            /* units that returned left the constructs around the barrier: they
             * cannot arrive, and a barrier in non-uniform control flow is
             * undefined in Vulkan (lavapipe returned wrong data, no error) */
            spv_fail(c, CVM_UNSUPPORTED, "a barrier inside a loop, if or switch that some units may have left "
                     "by returning from the kernel is not supported by the SPIR-V backend (units that "
                     "returned cannot arrive); instead of returning early, put the rest of the kernel "
                     "under if (i < n), or keep such barriers at kernel level");
            return;
        }
        if (bar)
            spv_barrier_lift(c, true);
        bool done = spv_op_data(c, &in) || spv_op_mem(c, &in) || spv_op_plane(c, &in) ||
                    spv_op_print(c, &in);
        if (bar)
            spv_barrier_lift(c, false);
        if (!done) {
            const cvm_bc_opinfo *oi = cvm_bc_op_info(in.op);
            spv_fail(c, CVM_UNSUPPORTED, "op '%s' is not supported by the SPIR-V backend",
                     oi ? oi->mnemonic : "?");
        }
    }
}

void spv_close_kernel(spv_ctx *c)
{
    close_guards(c);
    spv_block(c);
}
