/*
 * spv.h - the SPIR-V backend's interface: one verified kernel of a .cbc
 * module in, a Vulkan compute shader module (SPIR-V words) out, plus the
 * resource layout the Vulkan device needs to bind arguments.
 *
 * Used by the vulkan device (backends/vulkan/) and by `cubevm spirv`.
 * The translation rules are docs/lowering.md's SPIR-V column and
 * docs/backends.md.
 */
#ifndef CVM_SPV_H
#define CVM_SPV_H

#include "../../bytecode/bc.h"

/* VkShaderFloatControlsIndependence, renumbered so that zero is "all". */
enum { CVM_SPV_INDEP_ALL = 0, CVM_SPV_INDEP_32_ONLY = 1, CVM_SPV_INDEP_NONE = 2 };

/* What the target device supports (from Vulkan feature/property queries). */
typedef struct cvm_spv_target {
    uint32_t spirv_version;     /* 0x10300 = SPIR-V 1.3, ... 0x10600 */
    uint32_t subgroup_size;     /* the device's subgroup width (lavapipe: 8) */
    uint32_t plane_width;       /* the launch's plane width (must be supported, see docs) */
    bool f64, f16, int8, int16, int64, int64_atomics;
    bool float_atomic_add;      /* shaderBufferFloat32AtomicAdd: OpAtomicFAddEXT on global memory */
    bool float_atomic_minmax;
    bool buffer_device_address;
    bool subgroup_size_control; /* VK_EXT_subgroup_size_control: a fixed width is possible */
    bool vulkan_memory_model;
    /* Float controls (Vulkan 1.2): shaderDenormPreserveFloat16/32/64 and
     * shaderRoundingModeRTEFloat16/32/64, and how independent the widths'
     * modes may be (CVM_SPV_INDEP_*). The module asks for DenormPreserve and
     * RoundingModeRTE at each float width it declares where the device
     * can, widths tied together as the device requires (docs/backends.md). */
    bool denorm_preserve16, denorm_preserve32, denorm_preserve64;
    bool rte16, rte32, rte64;
    uint8_t denorm_indep, rounding_indep;
    /* tests: f32 div/rcp/sqrt/rsqrt start this many f32 steps off their
     * estimate (at most 3 either way), so the correction runs on any driver */
    int test_skew;
    /* The driver ends a shader's loops after this many back edges in all
     * (lavapipe: 65535, Mesa's gallivm loop limiter); 0: no limit. Each
     * loop then counts the unit's back edges and writes a fault record
     * (a CVM_SPV_SITE_LOOP site at the loop) when the count reaches it,
     * so a launch the driver cut short fails instead of giving wrong results. */
    uint32_t loop_limit;
} cvm_spv_target;

/* How each kernel parameter reaches the shader. */
typedef enum cvm_spv_bind_kind {
    CVM_SPV_BIND_STORAGE_BUFFER = 0, /* descriptor set 0, binding = .binding */
    CVM_SPV_BIND_PUSH_CONSTANT = 1,  /* bytes at .offset in the push-constant block */
    CVM_SPV_BIND_UNIFORM = 2,        /* bytes at .offset in a uniform buffer at .binding */
    /* The buffer's device address plus the argument's offset, 8 bytes at .offset in the
     * push-constant block (buffer device address: see docs/backends.md) */
    CVM_SPV_BIND_ADDRESS = 3
} cvm_spv_bind_kind;

typedef struct cvm_spv_bind {
    uint8_t kind;      /* cvm_spv_bind_kind */
    uint32_t binding;  /* storage/uniform buffers */
    uint32_t offset;   /* push constants / uniform: byte offset */
    uint32_t size;     /* push constants / uniform: bytes */
} cvm_spv_bind;

/* A module __device__ symbol the kernel addresses: its buffer goes to `bind`. */
typedef struct cvm_spv_symbind {
    uint32_t symbol;   /* index in the module's symbol table */
    cvm_spv_bind bind; /* STORAGE_BUFFER or ADDRESS */
} cvm_spv_symbind;

/*
 * A `print` site: units that execute it append a record to the print
 * buffer (binding layout.print_binding), u32 words: [0] records claimed
 * (atomic), [1] capacity in records (set by the host; the buffer holds
 * one more record, where claims past the capacity land), [2] fault
 * records written (atomic), then records of CVM_SPV_PRINT_WORDS words
 * from word CVM_SPV_PRINT_HEAD: site, linear cube, linear unit, the
 * unit's print count before this one, then each argument's bits as two
 * words (low, high; narrower values zero-extended).
 *
 * `trap` and a failing `assert` are sites of the same buffer (kind
 * CVM_SPV_SITE_TRAP/ASSERT, string = the message, no arguments): the unit
 * writes a record whose words 4..11 are its cube position x y z, its unit
 * position x y z, its plane and lane, counts it in word 2, and returns.
 * A loop is a site of kind CVM_SPV_SITE_LOOP (string UINT32_MAX) under a
 * target's loop_limit: the same fault record, and the unit goes on.
 */
enum { CVM_SPV_SITE_PRINT = 0, CVM_SPV_SITE_TRAP = 1, CVM_SPV_SITE_ASSERT = 2, CVM_SPV_SITE_LOOP = 3 };
#define CVM_SPV_PRINT_ARGS 12
#define CVM_SPV_PRINT_HEAD 4
#define CVM_SPV_PRINT_WORDS (4 + 2 * CVM_SPV_PRINT_ARGS)
typedef struct cvm_spv_print {
    uint32_t pc;       /* the instruction */
    uint32_t string;   /* format: string index in the module */
    uint32_t nargs;
    uint8_t elems[CVM_SPV_PRINT_ARGS]; /* argument types (cvm_bc elem) */
    uint8_t kind;      /* CVM_SPV_SITE_* */
    uint32_t line;     /* source line from the debug info (0: none) */
    const char *file;  /* source file ("" if none; the module's bytes: copy while it lives) */
} cvm_spv_print;

typedef struct cvm_spv_layout {
    uint32_t nparams;
    cvm_spv_bind *params;       /* one per kernel parameter */
    uint32_t push_size;         /* bytes of the push-constant block */
    uint32_t nbindings;         /* storage + uniform bindings in set 0 */
    uint32_t spec_local_size[3];/* specialization constant ids for the local size */
    uint32_t spec_dyn_shared;   /* spec constant id of the dynamic shared size (bytes) */
    uint32_t nsyms;             /* global module symbols the kernel addresses */
    cvm_spv_symbind *syms;      /* nsyms entries (NULL when none) */
    bool device_address;        /* global pointers are device addresses (buffers need the
                                 * shader-device-address usage and memory flag) */
    uint32_t nprints;           /* print, trap and assert sites (0: none) */
    cvm_spv_print *prints;
    uint32_t print_binding;     /* storage buffer of print records (nprints > 0) */
    uint32_t loop_limit;        /* the target's loop_limit, which loop sites report */
    /* grid_x: at byte grid_x_offset of the push constants, two u32 the host
     * writes per dispatch: the first cube in x of this dispatch, then the
     * grid's cube count in x (false: the kernel reads no x position or
     * count). A grid wider than the device's x limit runs as several
     * dispatches; cube_pos.x, abs_pos.x, cube_pos and cube_count.x come from
     * these words. */
    bool grid_x;
    uint32_t grid_x_offset;
    /* The kernel reads x positions but its push constants had no room for
     * the grid_x words (16 buffer addresses): its grid must fit one dispatch. */
    bool grid_x_fixed;
    /* Workgroup words per unit of the cube that emulated plane ops keep
     * beside the kernel's shared memory (0: none); a launch counts them
     * against the device's shared memory limit */
    uint32_t scratch_words_per_unit;
} cvm_spv_layout;

/*
 * Translates kernel `kernel` of a verified module. On success *out_words
 * (allocated with the module's allocator; free with cvm_bc_free(...,
 * *out_count * 4)) holds a SPIR-V module valid for spirv-val at the
 * target's version, and *out_layout the parameter bindings (free with
 * cvm_spv_layout_free). Kernels the target cannot run get CVM_UNSUPPORTED
 * with a diagnostic naming the op, the source line and the reason.
 */
cvm_status cvm_spv_compile(const cvm_bc_module *mod, const cvm_bc_verified *ver, uint32_t kernel,
                           const cvm_spv_target *target, uint32_t **out_words, size_t *out_count,
                           cvm_spv_layout *out_layout, cvm_diag *diag);
void cvm_spv_layout_free(const cvm_bc_module *mod, cvm_spv_layout *layout);

#endif
