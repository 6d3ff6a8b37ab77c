/*
 * ctl.h - the per-plane effect of the control instructions both
 * interpreters run themselves (interp_run.c one plane at a time,
 * interp_lockstep.c for every plane of a cube): one definition of the
 * mask and frame updates of docs/design.md item 4.
 *
 * Each returns the plane's next pc, or CVM_VM_PC_DONE when its active mask
 * became empty at the outermost level (every lane has finished).
 */
#ifndef CVM_VM_CTL_H
#define CVM_VM_CTL_H

#include "interp.h"

#define CVM_VM_PC_DONE UINT32_MAX

/* The active mask is empty: the innermost construct's next marker
 * recomputes it. */
static inline uint32_t cvm_vm_skip(const cvm_vm_plane *p)
{
    return p->sp ? p->stack[p->sp - 1].next : CVM_VM_PC_DONE;
}

/*
 * A fused compare-and-branch (CVM_VM_H_CMPBR) whose condition holds on the
 * lanes m (a subset of act, the active mask before it): the if form does
 * what IF does at the if's pc; break and continue leave the lanes m.
 */
static inline uint32_t cvm_vm_cmpbr(cvm_vm_plane *p, const cvm_vm_dinsn *in,
                                    const cvm_vm_dinsn *orig, uint64_t act, uint64_t m)
{
    if (in->n == CVM_VM_CB_IF) {
        const cvm_vm_dinsn *fi = &orig[in->end];
        cvm_vm_frame *f = &p->stack[fi->aux];
        *f = (cvm_vm_frame){.kind = CVM_VM_F_IF, .open = in->end, .next = fi->target};
        f->m[0] = act & ~m;
        p->sp = fi->aux + 1;
        p->active = m;
        return m ? in->end + 1 : fi->target;
    }
    cvm_vm_frame *f = &p->stack[in->aux];
    if (in->n == CVM_VM_CB_BREAK)
        f->m[f->kind == CVM_VM_F_SWITCH ? 1 : 0] |= m;
    else
        f->m[1] |= m;
    p->active = act & ~m;
    return p->active ? in->target : cvm_vm_skip(p);
}

/*
 * END at pc of the construct whose frame is in->aux. *back is set when a
 * loop goes round again (the pc returned is then the loop body's first).
 */
static inline uint32_t cvm_vm_end(cvm_vm_plane *p, const cvm_vm_dinsn *code,
                                  const cvm_vm_dinsn *in, uint32_t pc, bool *back)
{
    cvm_vm_frame *f = &p->stack[in->aux];
    uint64_t a = p->active;
    *back = false;
    switch (f->kind) {
    case CVM_VM_F_IF: a = f->m[2] ? f->m[1] | a : a | f->m[0]; break;
    case CVM_VM_F_SWITCH: a |= f->m[1] | f->m[3]; break; /* m[3]: no case, no default */
    case CVM_VM_F_BLOCK: a |= f->m[0]; break;
    default: /* loop */
        a |= f->m[1];
        f->m[1] = 0;
        if (a) {
            p->active = a;
            f->next = code[f->open].target;
            *back = true;
            return f->open + 1;
        }
        a = f->m[0];
        break;
    }
    p->sp = in->aux;
    p->active = a;
    return a ? pc + 1 : cvm_vm_skip(p);
}

#endif /* CVM_VM_CTL_H */
