/*
 * verify.h - internal interface between the verifier (verify.c) and the
 * divergence analysis (divergence.c). Nothing outside bytecode/ uses it;
 * the results reach other layers through cvm_bc_verified (bc.h).
 */
#ifndef CVM_BC_VERIFY_H
#define CVM_BC_VERIFY_H

#include "bc.h"

/* "No construct": the enclosing construct of a kernel-level instruction. */
#define CVM_BC_NOPC UINT32_MAX

/*
 * The format letter of operand word i of an op with format `fmt`
 * ('d', 'r', 'i', 'k', 's', 'p', 'g', 'x', 'l'; 'h' for the high word of
 * a 'k' immediate); 0 past the end of a format without '*'.
 */
char cvm_bc_operand_kind(const char *fmt, unsigned i);

/*
 * Runs the divergence analysis of one kernel whose structure and types
 * verify.c has already checked (vk->insns with word/target/end/depth
 * filled, vk->reg_uni allocated with k->nregs entries). Fills reg_uni,
 * and uni/live_uni/dst_uni of every instruction. Fails only when an
 * allocation fails (CVM_OUT_OF_MEMORY).
 */
cvm_status cvm_bc_divergence(const cvm_bc_module *mod, const cvm_bc_kernel *k,
                             cvm_bc_vkernel *vk, cvm_diag *diag);

#endif /* CVM_BC_VERIFY_H */
