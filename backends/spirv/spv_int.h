/*
 * spv_int.h - internals shared by the SPIR-V backend's translation units:
 * the translation context, the word buffers of the module's sections, the
 * type/constant cache and the helpers every stage uses.
 *
 * Model (docs/backends.md): every bytecode register is a Function variable
 * (drivers promote them to SSA), so structured control flow needs no phi
 * construction; pointers are 32-bit byte offsets into a per-space uint
 * array view (a ptr.global register additionally has a static base: the
 * buffer parameter it derives from).
 */
#ifndef CVM_SPV_INT_H
#define CVM_SPV_INT_H

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>

#include "spv.h"

typedef struct spv_buf {
    uint32_t *w;
    size_t n, cap;
} spv_buf;

/* A cached type or constant: (opcode, three key words) -> id. */
typedef struct spv_cached {
    uint32_t op, a, b, c, id;
} spv_cached;

/* A byte-addressed memory space seen as an array of u32 words. */
typedef struct spv_view {
    uint32_t var;      /* OpVariable id; 0 = space not available */
    uint32_t sc;       /* storage class */
    uint32_t ptr_word; /* pointer-to-u32 type in sc */
    bool member;       /* the array is member 0 of a Block struct */
    bool vec4;         /* the array's elements are uvec4 (a uniform block, std140 stride 16) */
    bool atomic_ok;    /* atomics allowed (StorageBuffer, Workgroup) */
    uint32_t scope;    /* scope of sub-word read-modify-writes */
    uint32_t sem;      /* storage-class bit of memory semantics */
    uint32_t binding;  /* storage buffers: the binding in set 0 */
    uint32_t var64;    /* storage buffers: a u64 view of the same binding (64-bit atomics) */
    uint32_t varf32;   /* storage buffers: an f32 view of the same binding (OpAtomicFAddEXT) */
} spv_view;

/* A pending escape: a flag that, once set, makes lanes leave up to frame `target`. */
typedef struct spv_escape {
    uint32_t flag;    /* Function bool variable */
    uint32_t target;  /* frame index */
    uint8_t action;   /* SPV_ESC_* */
} spv_escape;

enum { SPV_ESC_BREAK, SPV_ESC_CONTINUE, SPV_ESC_END };
enum { SPV_F_KERNEL, SPV_F_IF, SPV_F_LOOP, SPV_F_SWITCH, SPV_F_BLOCK };

#define SPV_MAX_GUARDS 16
#define SPV_MAX_PENDING 16
#define SPV_MAX_CASES 256

typedef struct spv_frame {
    uint8_t kind;
    bool continuing;            /* loop: in the continuing part */
    uint32_t pc;                /* opening instruction */
    uint32_t merge, cont, header; /* labels */
    uint32_t brk_flag;          /* loop: set by break_if (back edge exits when true) */
    uint32_t esc_brk, esc_cont; /* loop: flags for break/continue crossing a block */
    uint32_t exit_flag;         /* block: flag for exit from an inner loop-like construct */
    uint32_t nguards;           /* guards open in the current part */
    uint32_t guard_merge[SPV_MAX_GUARDS], guard_flag[SPV_MAX_GUARDS];
    uint32_t npending;
    spv_escape pending[SPV_MAX_PENDING];
    uint32_t ncases;            /* switch: labels of case/default markers in order */
    uint32_t case_label[SPV_MAX_CASES];
    uint32_t case_next;         /* switch: index of the next marker */
} spv_frame;

typedef struct spv_ctx {
    const cvm_bc_module *mod;
    const cvm_bc_kernel *k;
    const cvm_bc_vkernel *vk;
    uint32_t kidx;
    const cvm_spv_target *t;
    cvm_diag *diag;
    cvm_status st;
    uint32_t pc; /* instruction being translated (for diagnostics) */

    uint32_t next_id;
    uint32_t capl[32], ncaps; /* capabilities requested */
    uint32_t exts;    /* SPV_EXT_* bits */
    unsigned float_widths; /* the float types declared: bit 16, 32 or 64 set (a width's value) */
    spv_buf names, annot, types, fvars, body, iface;

    spv_cached *cache;
    size_t ncache, capcache;

    uint32_t glsl;                     /* GLSL.std.450 import */
    uint32_t *regvar;                  /* per register: Function variable */
    int32_t *gbase;                    /* per pc: base param of gbase_reg there (SPV_BASE_*) */
    uint32_t *gbase_reg;               /* per pc: its first ptr.global source (UINT32_MAX: none) */
    /* Bases of global pointers: parameter p is base p, global symbol s base nparams + s. */
    uint32_t nbase;
    uint32_t *param_view;              /* per base: index into bufviews (UINT32_MAX: none) */
    spv_view *bufviews;                /* per storage buffer binding */
    spv_view push, shared, local, konst;
    spv_view ubo;                      /* by-value parameters past the push-constant limit */
    /*
     * Buffer device address (mem.c): some global access has no single buffer
     * and the target has the feature, so every ptr.global is a u64 device
     * address and every global access goes through a PhysicalStorageBuffer
     * pointer (gaddr); parameters and symbols pass their addresses as push
     * constants.
     */
    bool bda;
    spv_view gaddr;
    spv_view printv;                   /* print.c: the print record buffer */
    uint32_t print_seq;                /* print.c: Function u32, prints so far by this unit */
    uint32_t loop_count;               /* print.c: Function u32, back edges so far (target loop_limit) */
    uint32_t v_lid, v_wgid, v_nwg, v_gid, v_lidx, v_sgid, v_sglid; /* builtin variables */
    uint32_t wgsize;                   /* spec-constant composite of the cube size */
    uint32_t spec_dyn;                 /* spec constant: dynamic shared bytes */
    uint32_t exited;                   /* Function bool: the unit executed return */
    uint32_t syncvar;                  /* Workgroup u32 for sync_cube.count/and/or */
    uint32_t plane_scratch;            /* emul.c: Workgroup slots of emulated plane ops */
#define SPV_SLOT_WORDS 3 /* a slot: value low word, high word, live flag */
    uint32_t plane_units;              /* emul.c: spec constant, units per cube */
    bool terminated;                   /* the current block has its terminator */
    uint32_t lifted;                   /* guards closed around the current barrier */

    spv_frame *frames;
    uint32_t nframes;
    cvm_spv_layout *layout;
} spv_ctx;

enum { SPV_EXT_FLOAT_ADD = 1u, SPV_EXT_PSB = 2u };

/* ---- module.c: buffers, ids, types, constants ---- */
void spv_emit(spv_ctx *c, spv_buf *b, uint32_t op, const uint32_t *ops, unsigned n);
#define SPV_EM(c, b, op, ...)                                                                  \
    spv_emit((c), (b), (op), (const uint32_t[]){__VA_ARGS__},                                  \
             (unsigned)(sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)))
void spv_emit_str(spv_ctx *c, spv_buf *b, uint32_t op, uint32_t pre, const char *s);
uint32_t spv_id(spv_ctx *c);
cvm_status spv_fail(spv_ctx *c, cvm_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void spv_cap(spv_ctx *c, uint32_t cap);
uint32_t spv_t_void(spv_ctx *c);
uint32_t spv_t_bool(spv_ctx *c);
uint32_t spv_t_int(spv_ctx *c, unsigned bits);
uint32_t spv_t_float(spv_ctx *c, unsigned bits);
uint32_t spv_t_vec(spv_ctx *c, uint32_t comp, unsigned n);
uint32_t spv_t_ptr(spv_ctx *c, uint32_t sc, uint32_t type);
uint32_t spv_t_elem(spv_ctx *c, unsigned elem);          /* scalar of a bytecode elem */
uint32_t spv_t_of(spv_ctx *c, unsigned elem, unsigned line);
uint32_t spv_c_int(spv_ctx *c, unsigned bits, uint64_t v);
uint32_t spv_c_u32(spv_ctx *c, uint32_t v);
uint32_t spv_c_float(spv_ctx *c, unsigned bits, uint64_t pattern);
uint32_t spv_c_bool(spv_ctx *c, bool v);
/* A constant of bytecode type (elem, line) with the given bit pattern in every element. */
uint32_t spv_c_of(spv_ctx *c, unsigned elem, unsigned line, uint64_t bits);
uint32_t spv_sext64(spv_ctx *c, uint32_t t, unsigned elem, unsigned line, uint32_t a, unsigned src_bytes);
uint32_t spv_c_fval(spv_ctx *c, unsigned elem, unsigned line, double v); /* float value */
bool spv_elem_ok(spv_ctx *c, unsigned elem, unsigned line, const char *what);

/* ---- value helpers (module.c) ---- */
uint32_t spv_op1(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a);
uint32_t spv_op2(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a, uint32_t b);
uint32_t spv_op3(spv_ctx *c, uint32_t op, uint32_t type, uint32_t a, uint32_t b, uint32_t d);
uint32_t spv_ext1(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a);
uint32_t spv_ext2(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a, uint32_t b);
uint32_t spv_ext3(spv_ctx *c, uint32_t inst, uint32_t type, uint32_t a, uint32_t b, uint32_t d);
uint32_t spv_label(spv_ctx *c, uint32_t id); /* starts block id (new id if 0) */
void spv_branch(spv_ctx *c, uint32_t target); /* OpBranch unless the block is terminated */
void spv_loop_guard(spv_ctx *c, uint32_t loop_pc); /* print.c: the driver's loop limit at a back edge */
void spv_block(spv_ctx *c);                  /* ensures an open block (after a terminator) */
uint32_t spv_fvar(spv_ctx *c, uint32_t type); /* new Function variable */
uint32_t spv_load(spv_ctx *c, uint32_t type, uint32_t ptr);
void spv_store(spv_ctx *c, uint32_t ptr, uint32_t val);
uint32_t spv_reg_type(spv_ctx *c, uint32_t r);
uint32_t spv_get(spv_ctx *c, uint32_t r);       /* loads register r */
void spv_set(spv_ctx *c, uint32_t r, uint32_t v); /* stores register r */
/* Bool of the line size of (elem, line): the condition type of selects. */
uint32_t spv_t_boolv(spv_ctx *c, unsigned line);
uint32_t spv_splat_bool(spv_ctx *c, uint32_t cond, unsigned line);
const char *spv_where(spv_ctx *c, char *buf, size_t n); /* "line N" or "pc N" */

/* ---- ops.c ---- */
bool spv_op_data(spv_ctx *c, const cvm_bc_insn *in);   /* handled (or failed) */
uint32_t spv_fminmax(spv_ctx *c, unsigned elem, unsigned line, uint32_t a, uint32_t b, bool max);

/* ---- exact.c: sequences where GLSL.std.450 misses cubevm's numerics (0: none) ---- */
uint32_t spv_exact_fma(spv_ctx *c, unsigned elem, unsigned line, uint32_t a, uint32_t b, uint32_t d);
uint32_t spv_exact_math(spv_ctx *c, unsigned op, unsigned elem, unsigned line, uint32_t a);
uint32_t spv_exact_atan(spv_ctx *c, unsigned op, unsigned elem, unsigned line, uint32_t a, uint32_t b);
uint32_t spv_exact_trig(spv_ctx *c, unsigned op, unsigned elem, unsigned line, uint32_t a, uint32_t b);
uint32_t spv_exact_hyper(spv_ctx *c, unsigned op, unsigned elem, unsigned line, uint32_t a, uint32_t b);
uint32_t spv_exact_divsqrt(spv_ctx *c, unsigned op, unsigned elem, unsigned line, uint32_t a, uint32_t b);
uint32_t spv_exact_fmod(spv_ctx *c, unsigned elem, unsigned line, uint32_t a, uint32_t b);

/* ---- bases.c ---- */
#define SPV_BASE_DEAD (-3) /* the instruction is unreachable */
cvm_status spv_analyse_bases(spv_ctx *c); /* fills gbase/gbase_reg */

/* ---- mem.c ---- */
cvm_status spv_mem_plan(spv_ctx *c);        /* pointer bases; decides bda (before any type) */
cvm_status spv_mem_setup(spv_ctx *c);       /* views, bindings, push constants */
bool spv_op_mem(spv_ctx *c, const cvm_bc_insn *in);
uint32_t spv_mem_load(spv_ctx *c, const spv_view *v, uint32_t off, unsigned elem,
                      unsigned line, bool vol);

/* ---- print.c ---- */
void spv_print_setup(spv_ctx *c);               /* the record buffer, layout.prints */
bool spv_op_print(spv_ctx *c, const cvm_bc_insn *in); /* handled (or failed) */
void spv_fault_record(spv_ctx *c);              /* trap/assert at c->pc: the fault record */

/* ---- plane.c ---- */
cvm_status spv_builtins_setup(spv_ctx *c);
bool spv_op_plane(spv_ctx *c, const cvm_bc_insn *in);
uint32_t spv_sreg(spv_ctx *c, unsigned id, unsigned elem);
void spv_control_barrier(spv_ctx *c);

/* ---- emul.c ---- */
bool spv_plane_emulate(spv_ctx *c, const cvm_bc_insn *in); /* false after failing */

/* ---- compile.c ---- */
uint32_t spv_global(spv_ctx *c, uint32_t sc, uint32_t type, const char *name);

/* ---- ctl.c ---- */
void spv_translate(spv_ctx *c);
void spv_close_kernel(spv_ctx *c);
void spv_barrier_lift(spv_ctx *c, bool close); /* closes (true) / reopens guards around a barrier */

#endif
