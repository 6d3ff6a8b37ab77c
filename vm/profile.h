/*
 * profile.h - target profiles of the cpu device (vm/profiles.def): the
 * limits and features of a GPU target, applied to launches so the CPU
 * refuses what that target would refuse, with the target's own wording.
 */
#ifndef CVM_VM_PROFILE_H
#define CVM_VM_PROFILE_H

#include "cubevm.h"
#include "exec.h"

/* Whose diagnostics a profile imitates. */
enum { CVM_VM_STYLE_CPU, CVM_VM_STYLE_CUDA, CVM_VM_STYLE_VULKAN };

typedef struct cvm_vm_profile {
    const char *name;
    int style;
    uint32_t pw_min, pw_max, pw_default;
    uint32_t max_units, dims[3], grid[3];
    uint32_t shared_static, shared, shared_optin;
    uint32_t features;
} cvm_vm_profile;

/* The profile named `name` (NULL or "" is generic), or NULL if unknown. */
const cvm_vm_profile *cvm_vm_profile_find(const char *name);
/* "generic, sm_80, ..." for messages. */
const char *cvm_vm_profile_names(void);

/* A launch's resolved shape, as the profile check sees it. */
typedef struct cvm_vm_shape {
    uint32_t grid[3], block[3];
    uint32_t plane_width;
    uint32_t dyn_shared;
    bool opt_in;
} cvm_vm_shape;

/* Grid and cube dimensions and units against the profile: CVM_LIMIT with the
 * target's diagnostic. */
cvm_status cvm_vm_profile_check_shape(const cvm_vm_profile *pf, const char *kname,
                                      const cvm_vm_shape *sh, cvm_diag *diag);
/*
 * Kernel `k` of `prog` launched as `sh` against the profile: plane width,
 * shared memory, features. CVM_LIMIT or CVM_UNSUPPORTED with the target's
 * diagnostic.
 */
cvm_status cvm_vm_profile_check(const cvm_vm_profile *pf, const cvm_vm_program *prog, uint32_t k,
                                const cvm_vm_shape *sh, cvm_diag *diag);

/* Fills the profile's part of cvm_device_limits. */
void cvm_vm_profile_limits(const cvm_vm_profile *pf, cvm_device_limits *out);

#endif /* CVM_VM_PROFILE_H */
