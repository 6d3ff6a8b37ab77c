/*
 * decode.h - between the two passes of cvm_vm_program_build: decode.c
 * (the decoder, the registers a cube zeroes, the fused code's slot
 * allocation) and fuse.c (the fused super-instructions of kp->fast and
 * the facts they carry). Internal to vm/.
 */
#ifndef CVM_VM_DECODE_H
#define CVM_VM_DECODE_H

#include "interp.h"

/*
 * Ops whose handler computes each lane from its register operands alone
 * (interp_run.c's LANES loops). When the divergence analysis classifies
 * every source register as non-varying, all active lanes would compute the
 * same value: the handler computes the lowest active lane only and
 * broadcasts it (the uniform instructions of docs/design.md "The bytecode" item 8,
 * kept inside the lane-major file so every reader finds it in place).
 */
static inline bool cvm_vm_uniform_candidate(unsigned op)
{
    return (op >= CVM_OP_ADD && op <= CVM_OP_CLAMP) || (op >= CVM_OP_SQRT && op <= CVM_OP_COPYSIGN) ||
           (op >= CVM_OP_EQ && op <= CVM_OP_ISFINITE) || (op >= CVM_OP_AND && op <= CVM_OP_BREV) ||
           op == CVM_OP_MOV || op == CVM_OP_CONST || op == CVM_OP_EXTRACT || op == CVM_OP_INSERT ||
           op == CVM_OP_BUILD || op == CVM_OP_SPLAT || op == CVM_OP_SREG || op == CVM_OP_PTR_ADD ||
           op == CVM_OP_PTR_DIFF || op == CVM_OP_CVT;
}

/* Slot s is zeroed before every cube (zero_ranges). */
static inline bool cvm_vm_zeroed(const cvm_vm_kprog *kp, uint32_t s)
{
    for (uint32_t i = 0; i < kp->nzero; i++)
        if (s - kp->zero[2 * i] < kp->zero[2 * i + 1])
            return true;
    return kp->zero_all;
}

/* The register operands of `in` by its op's format: whether it writes
 * in->d, how many of a, b, c it reads (in that order), and whether an
 * operand list (in->ptr, cvm_vm_arg) follows them. */
typedef struct cvm_vm_reg_uses {
    bool dest, list;
    unsigned nsrc;
} cvm_vm_reg_uses;

static inline cvm_vm_reg_uses cvm_vm_uses_of(const cvm_vm_dinsn *in)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
    cvm_vm_reg_uses u = {false, false, 0};
    for (const char *f = oi ? oi->format : ""; *f; f++) {
        if (*f == 'r' && f[1] == '*') {
            u.list = true;
            break;
        }
        if (*f == 'd')
            u.dest = true;
        else if (*f == 'r' && u.nsrc < 3)
            u.nsrc++;
    }
    return u;
}

/* Fills kp->fast (and its presets and facts) from kp->code; decode.c
 * then gives the fused code its register layout. */
cvm_status cvm_vm_fuse(cvm_vm_program *prog, cvm_vm_kprog *kp, cvm_diag *diag);

#endif
