/*
 * profile.c - target profiles: the table of vm/profiles.def, and the launch
 * check that refuses, with the target's wording, what the target would
 * refuse. CUDA profiles answer as the CUDA runtime or ptxas would
 * (cudaErrorInvalidConfiguration, cudaErrorInvalidValue, "uses too much
 * shared data"); lavapipe answers with the Vulkan validation layer's VUIDs
 * where one exists (dispatch size, workgroup size, workgroup storage) and
 * plain text for what Vulkan has no VUID for (subgroup size, features).
 */
#include "profile.h"

#include "interp.h"

#include <stdio.h>
#include <string.h>

/* Every feature: profiles.def names it CVM_PF_ALL. */
#define CVM_PF_ALL_FEATURES (CVM_FEATURE_F64 | CVM_FEATURE_F16 | CVM_FEATURE_ATOMIC_I64 | \
    CVM_FEATURE_ATOMIC_F32_ADD | CVM_FEATURE_ATOMIC_F32_MINMAX | CVM_FEATURE_ATOMIC_F64_ADD | \
    CVM_FEATURE_ATOMIC_F64_MINMAX | CVM_FEATURE_NAMED_BARRIERS | CVM_FEATURE_F32_SUBNORMALS)

static const cvm_vm_profile profiles[] = {
#define CVM_PROFILE(n, style, pmin, pmax, pdef, units, dx, dy, dz, gx, gy, gz, sst, sh, sopt, feat) \
    {#n, style, pmin, pmax, pdef, units, {dx, dy, dz}, {gx, gy, gz}, sst, sh, sopt, feat},
#include "profiles.def"
#undef CVM_PROFILE
};
#define NPROFILES (sizeof profiles / sizeof profiles[0])

const cvm_vm_profile *cvm_vm_profile_find(const char *name)
{
    if (!name || !*name)
        return &profiles[0];
    for (size_t i = 0; i < NPROFILES; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const char *cvm_vm_profile_names(void)
{
    return "generic, sm_80, sm_90, lavapipe";
}

void cvm_vm_profile_limits(const cvm_vm_profile *pf, cvm_device_limits *out)
{
    snprintf(out->profile, sizeof out->profile, "%s", pf->name);
    out->plane_width_min = pf->pw_min;
    out->plane_width_max = pf->pw_max;
    out->default_plane_width = pf->pw_default;
    out->max_cube_units = pf->max_units;
    memcpy(out->max_cube_dims, pf->dims, sizeof out->max_cube_dims);
    memcpy(out->max_grid, pf->grid, sizeof out->max_grid);
    out->shared_bytes = pf->shared;
    out->shared_bytes_optin = pf->shared_optin;
    out->features = pf->features;
}

cvm_status cvm_vm_profile_check_shape(const cvm_vm_profile *pf, const char *kname,
                                      const cvm_vm_shape *sh, cvm_diag *diag)
{
    static const char xyz[] = "XYZ";
    uint64_t units = (uint64_t)sh->block[0] * sh->block[1] * sh->block[2];
    for (int i = 0; i < 3; i++) {
        if (sh->grid[i] <= pf->grid[i])
            continue;
        if (pf->style == CVM_VM_STYLE_VULKAN)
            return cvm_diag_set(diag, CVM_LIMIT,
                                "VUID-vkCmdDispatch-groupCount%c-%05d: groupCount%c (%u) exceeds "
                                "maxComputeWorkGroupCount[%d] (%u)", xyz[i], 386 + i, xyz[i],
                                sh->grid[i], i, pf->grid[i]);
        return cvm_diag_set(diag, CVM_LIMIT,
                            "cudaErrorInvalidConfiguration: invalid configuration argument "
                            "(gridDim.%c = %u; %s allows %u) launching '%s'", "xyz"[i],
                            sh->grid[i], pf->name, pf->grid[i], kname);
    }
    for (int i = 0; i < 3; i++) {
        if (sh->block[i] <= pf->dims[i])
            continue;
        if (pf->style == CVM_VM_STYLE_VULKAN)
            return cvm_diag_set(diag, CVM_LIMIT,
                                "VUID-RuntimeSpirv-%c-%05d: LocalSize %c (%u) exceeds "
                                "maxComputeWorkGroupSize[%d] (%u)", "xyz"[i], 6429 + i, xyz[i],
                                sh->block[i], i, pf->dims[i]);
        if (pf->style == CVM_VM_STYLE_CUDA || units <= pf->max_units)
            return cvm_diag_set(diag, CVM_LIMIT,
                                "cudaErrorInvalidConfiguration: invalid configuration argument "
                                "(blockDim.%c = %u; %s allows %u) launching '%s'", "xyz"[i],
                                sh->block[i], pf->name, pf->dims[i], kname);
    }
    if (units <= pf->max_units)
        return CVM_OK;
    if (pf->style == CVM_VM_STYLE_VULKAN)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "VUID-RuntimeSpirv-x-06432: LocalSize X * Y * Z (%llu) exceeds "
                            "maxComputeWorkGroupInvocations (%u)", (unsigned long long)units,
                            pf->max_units);
    if (pf->style == CVM_VM_STYLE_CUDA)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "cudaErrorInvalidConfiguration: invalid configuration argument "
                            "(block %ux%ux%u = %llu threads; %s allows %u per block) launching '%s'",
                            sh->block[0], sh->block[1], sh->block[2], (unsigned long long)units,
                            pf->name, pf->max_units, kname);
    return cvm_diag_set(diag, CVM_LIMIT, "kernel '%s': block %ux%ux%u has more than %u units per cube",
                        kname, sh->block[0], sh->block[1], sh->block[2], pf->max_units);
}

static cvm_status check_width(const cvm_vm_profile *pf, const char *kname, const cvm_vm_shape *sh,
                              cvm_diag *diag)
{
    if (sh->plane_width >= pf->pw_min && sh->plane_width <= pf->pw_max)
        return CVM_OK;
    if (pf->style == CVM_VM_STYLE_VULKAN)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "lavapipe: the subgroup size is %u and the vulkan device emulates "
                            "plane widths up to %u; kernel '%s' runs with plane width %u",
                            pf->pw_default, pf->pw_max, kname, sh->plane_width);
    return cvm_diag_set(diag, CVM_UNSUPPORTED,
                        "%s: the warp size is %u; kernel '%s' runs with plane width %u", pf->name,
                        pf->pw_default, kname, sh->plane_width);
}

static cvm_status check_shared(const cvm_vm_profile *pf, const cvm_bc_kernel *bk, const char *kname,
                               const cvm_vm_shape *sh, cvm_diag *diag)
{
    uint64_t total = (uint64_t)bk->shared_bytes + sh->dyn_shared;
    uint32_t limit = sh->opt_in ? pf->shared_optin : pf->shared;
    if (pf->style == CVM_VM_STYLE_CUDA && bk->shared_bytes > pf->shared_static)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "ptxas error   : Entry function '%s' uses too much shared data "
                            "(0x%x bytes, 0x%x max)", kname, bk->shared_bytes, pf->shared_static);
    if (total <= limit)
        return CVM_OK;
    if (pf->style == CVM_VM_STYLE_VULKAN)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "VUID-RuntimeSpirv-Workgroup-06530: total Workgroup storage (%llu "
                            "bytes: %u static + %u dynamic) exceeds maxComputeSharedMemorySize (%u)",
                            (unsigned long long)total, bk->shared_bytes, sh->dyn_shared, limit);
    if (pf->style == CVM_VM_STYLE_CUDA)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "cudaErrorInvalidValue: invalid argument (launching '%s' with %llu "
                            "bytes of shared memory per block: %u static + %u dynamic; %s allows "
                            "%u%s)", kname, (unsigned long long)total, bk->shared_bytes,
                            sh->dyn_shared, pf->name, limit,
                            sh->opt_in ? " with the opt-in"
                                       : " without cudaFuncAttributeMaxDynamicSharedMemorySize");
    return cvm_diag_set(diag, CVM_LIMIT,
                        "kernel '%s': shared memory %u static + %u dynamic = %llu bytes exceeds "
                        "the cpu device's %u bytes per cube", kname, bk->shared_bytes,
                        sh->dyn_shared, (unsigned long long)total, limit);
}

/* The feature an instruction needs beyond the baseline, 0 if none. */
static uint32_t needs(const cvm_vm_dinsn *in)
{
    bool f32 = in->elem == CVM_T_F32, f64 = in->elem == CVM_T_F64;
    bool wide = in->elem == CVM_T_I64 || in->elem == CVM_T_U64;
    switch (in->h) {
    case CVM_OP_BAR_SYNC:
    case CVM_OP_BAR_ARRIVE:
        return CVM_FEATURE_NAMED_BARRIERS;
    case CVM_OP_ATOM_ADD:
        return f32 ? CVM_FEATURE_ATOMIC_F32_ADD : f64 ? CVM_FEATURE_ATOMIC_F64_ADD
             : wide ? CVM_FEATURE_ATOMIC_I64 : 0;
    case CVM_OP_ATOM_MIN:
    case CVM_OP_ATOM_MAX:
        return f32 ? CVM_FEATURE_ATOMIC_F32_MINMAX : f64 ? CVM_FEATURE_ATOMIC_F64_MINMAX
             : wide ? CVM_FEATURE_ATOMIC_I64 : 0;
    case CVM_OP_ATOM_SUB: case CVM_OP_ATOM_AND: case CVM_OP_ATOM_OR: case CVM_OP_ATOM_XOR:
    case CVM_OP_ATOM_EXCH: case CVM_OP_ATOM_INC: case CVM_OP_ATOM_DEC: case CVM_OP_ATOM_CAS:
        return wide ? CVM_FEATURE_ATOMIC_I64 : 0;
    default:
        return 0;
    }
}

/* How a target names a missing feature (in: the instruction that needs
 * it, NULL for the kernel's flags). */
static const char *feature_name(uint32_t f, int style, const cvm_vm_dinsn *in)
{
    bool vk = style == CVM_VM_STYLE_VULKAN, max = in && in->h == CVM_OP_ATOM_MAX;
    switch (f) {
    case CVM_FEATURE_F64: return vk ? "shaderFloat64" : "f64";
    case CVM_FEATURE_F16: return vk ? "shaderFloat16" : "f16";
    case CVM_FEATURE_ATOMIC_I64: return vk ? "shaderBufferInt64Atomics" : "atom.b64";
    case CVM_FEATURE_ATOMIC_F32_ADD: return vk ? "shaderBufferFloat32AtomicAdd" : "atom.add.f32";
    case CVM_FEATURE_ATOMIC_F32_MINMAX:
        return vk ? "shaderBufferFloat32AtomicMinMax" : max ? "atom.max.f32" : "atom.min.f32";
    case CVM_FEATURE_ATOMIC_F64_ADD: return vk ? "shaderBufferFloat64Atomics" : "atom.add.f64";
    case CVM_FEATURE_ATOMIC_F64_MINMAX:
        return vk ? "shaderBufferFloat64AtomicMinMax" : max ? "atom.max.f64" : "atom.min.f64";
    case CVM_FEATURE_NAMED_BARRIERS: return vk ? "named barriers" : "bar.sync with a barrier id";
    }
    return "?";
}

static cvm_status missing(const cvm_vm_profile *pf, const char *kname, uint32_t f, uint32_t pc,
                          const cvm_vm_dinsn *in, cvm_diag *diag)
{
    if (pf->style == CVM_VM_STYLE_VULKAN)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "lavapipe: kernel '%s' needs %s (pc %u), which the device does not "
                            "provide", kname, feature_name(f, pf->style, in), pc);
    return cvm_diag_set(diag, CVM_UNSUPPORTED,
                        "ptxas error   : Feature '%s' requires .target sm_90 or higher "
                        "(kernel '%s' pc %u, profile %s)", feature_name(f, pf->style, in), kname, pc,
                        pf->name);
}

static cvm_status check_features(const cvm_vm_profile *pf, const cvm_vm_kprog *kp,
                                 const char *kname, cvm_diag *diag)
{
    const cvm_bc_kernel *bk = kp->k;
    if ((bk->flags & CVM_KF_USES_F64) && !(pf->features & CVM_FEATURE_F64))
        return missing(pf, kname, CVM_FEATURE_F64, 0, NULL, diag);
    if ((bk->flags & CVM_KF_USES_F16) && !(pf->features & CVM_FEATURE_F16))
        return missing(pf, kname, CVM_FEATURE_F16, 0, NULL, diag);
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        uint32_t f = needs(&kp->code[pc]);
        if (f && !(pf->features & f))
            return missing(pf, kname, f, pc, &kp->code[pc], diag);
    }
    return CVM_OK;
}

cvm_status cvm_vm_profile_check(const cvm_vm_profile *pf, const cvm_vm_program *prog, uint32_t k,
                                const cvm_vm_shape *sh, cvm_diag *diag)
{
    const cvm_vm_kprog *kp = &prog->kernels[k];
    const char *kname = cvm_vm_kernel_name(prog, k);
    cvm_status st;
    if ((st = check_width(pf, kname, sh, diag)) ||
        (st = check_shared(pf, kp->k, kname, sh, diag)))
        return st;
    if (pf->features == CVM_PF_ALL_FEATURES)
        return CVM_OK;
    return check_features(pf, kp, kname, diag);
}
