/*
 * bc.h - the bytecode layer's internal interface: element and register
 * types, the op table expanded into enums and a descriptor array, the
 * in-memory form of a module, and the entry points of the reader/writer,
 * assembler, disassembler and verifier.
 *
 * bytecode/ depends on nothing but the standard library and the type
 * definitions of vm/cubevm.h (status, diag, allocator). See docs/format.md
 * for the binary layout and docs/isa.md for the instruction set.
 */
#ifndef CVM_BC_H
#define CVM_BC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../vm/cubevm.h"

/* ---- format constants ---- */

#define CVM_BC_MAGIC 0x1a434243u /* "CBC\x1a" little-endian */
#define CVM_BC_VERSION_MAJOR 1
#define CVM_BC_VERSION_MINOR 0

/* Resource bounds the verifier enforces (docs/design.md "The bytecode" item 10). */
#define CVM_BC_MAX_REGS 65536u           /* registers per kernel */
#define CVM_BC_MAX_REG_BYTES (1u << 20)  /* sum of register sizes per unit */
#define CVM_BC_MAX_DEPTH 64u             /* construct nesting depth */
#define CVM_BC_MAX_LOCAL (1u << 20)      /* local bytes per unit */
#define CVM_BC_MAX_SHARED (1u << 24)     /* static shared bytes per cube */
#define CVM_BC_MAX_STRING (1u << 20)     /* bytes per string */
#define CVM_BC_MAX_PARAMS 256u
#define CVM_BC_MAX_INSNS (1u << 24)      /* instructions per kernel */
#define CVM_BC_MAX_OPERANDS 255u
#define CVM_BC_MAX_PLANE 64u             /* widest plane on the CPU */
#define CVM_BC_MAX_CONST (1u << 20)      /* constant space per module (CUDA's is 64 KiB) */

/* ---- element types (values are cvm_elem of cubevm.h, plus pointers) ---- */

typedef enum cvm_bc_elem {
    CVM_T_NONE = 0,
    CVM_T_BOOL = CVM_BOOL,
    CVM_T_I8 = CVM_I8, CVM_T_I16 = CVM_I16, CVM_T_I32 = CVM_I32, CVM_T_I64 = CVM_I64,
    CVM_T_U8 = CVM_U8, CVM_T_U16 = CVM_U16, CVM_T_U32 = CVM_U32, CVM_T_U64 = CVM_U64,
    CVM_T_F16 = CVM_F16, CVM_T_BF16 = CVM_BF16, CVM_T_F32 = CVM_F32, CVM_T_F64 = CVM_F64,
    CVM_T_PTR_GLOBAL = 16, /* 64-bit address */
    CVM_T_PTR_SHARED = 17, /* 32-bit byte offset into the cube's shared memory */
    CVM_T_PTR_LOCAL = 18,  /* 32-bit byte offset into the unit's local memory */
    CVM_T_PTR_CONST = 19,  /* 32-bit byte offset into the module's constant data */
    CVM_T_COUNT = 20
} cvm_bc_elem;

/* Size in bytes of one element (bool is 1 byte in memory); 0 for invalid. */
unsigned cvm_bc_elem_size(unsigned elem);
/* "f32", "ptr.global", ...; NULL for invalid. */
const char *cvm_bc_elem_name(unsigned elem);
/* Parses an element type name of length n; CVM_T_NONE if unknown. */
unsigned cvm_bc_elem_parse(const char *s, size_t n);
bool cvm_bc_elem_is_int(unsigned elem);    /* i8..u64 */
bool cvm_bc_elem_is_signed(unsigned elem); /* i8..i64 */
bool cvm_bc_elem_is_float(unsigned elem);  /* f16, bf16, f32, f64 */
bool cvm_bc_elem_is_ptr(unsigned elem);

/* A register's type: an element type and a line size (1, 2, 4, 8, 16). */
typedef struct cvm_bc_type {
    uint8_t elem;
    uint8_t line;
} cvm_bc_type;

/* ---- memory orders and scopes (attribute fields of an instruction) ---- */

typedef enum cvm_bc_order {
    CVM_ORDER_NONE = 0, CVM_ORDER_RELAXED, CVM_ORDER_ACQUIRE, CVM_ORDER_RELEASE,
    CVM_ORDER_ACQ_REL, CVM_ORDER_SEQ_CST, CVM_ORDER_COUNT
} cvm_bc_order;

typedef enum cvm_bc_scope {
    CVM_SCOPE_NONE = 0, CVM_SCOPE_PLANE, CVM_SCOPE_CUBE, CVM_SCOPE_DEVICE, CVM_SCOPE_SYSTEM,
    CVM_SCOPE_COUNT
} cvm_bc_scope;

const char *cvm_bc_order_name(unsigned order); /* "relaxed", ... ; NULL if invalid */
const char *cvm_bc_scope_name(unsigned scope); /* "plane", ... ; NULL if invalid */

/* ---- uniformity classes of the divergence analysis ---- */

typedef enum cvm_bc_uni {
    CVM_UNI_GRID = 0,    /* same for every unit of the launch */
    CVM_UNI_CUBE = 1,    /* same within a cube */
    CVM_UNI_PLANE = 2,   /* same within a plane */
    CVM_UNI_VARYING = 3  /* may differ between lanes */
} cvm_bc_uni;

/* ---- the op table ---- */

typedef enum cvm_bc_op {
#define CVM_OP(num, name, mn, fmt, tc, rule, flags, sem) CVM_OP_##name = num,
#include "ops.def"
#undef CVM_OP
    CVM_OP_LIMIT = 0x120 /* opcodes are < CVM_OP_LIMIT */
} cvm_bc_op;

typedef enum cvm_bc_sreg {
#define CVM_SREG(id, name, text, uni, doc) CVM_SREG_##name = id,
#include "sregs.def"
#undef CVM_SREG
    CVM_SREG_COUNT
} cvm_bc_sreg;

/* Type classes: bit sets of element types allowed as the instruction type. */
#define CVM_TBIT(e) (1u << (e))
#define CVM_TC_NONE 0u
#define CVM_TC_SINT (CVM_TBIT(CVM_T_I8) | CVM_TBIT(CVM_T_I16) | CVM_TBIT(CVM_T_I32) | CVM_TBIT(CVM_T_I64))
#define CVM_TC_UINT (CVM_TBIT(CVM_T_U8) | CVM_TBIT(CVM_T_U16) | CVM_TBIT(CVM_T_U32) | CVM_TBIT(CVM_T_U64))
#define CVM_TC_INT (CVM_TC_SINT | CVM_TC_UINT)
#define CVM_TC_FLOAT (CVM_TBIT(CVM_T_F16) | CVM_TBIT(CVM_T_BF16) | CVM_TBIT(CVM_T_F32) | CVM_TBIT(CVM_T_F64))
#define CVM_TC_NUM (CVM_TC_INT | CVM_TC_FLOAT)
#define CVM_TC_NUM_BOOL (CVM_TC_NUM | CVM_TBIT(CVM_T_BOOL))
#define CVM_TC_BITS (CVM_TC_INT | CVM_TBIT(CVM_T_BOOL))
#define CVM_TC_PTR (CVM_TBIT(CVM_T_PTR_GLOBAL) | CVM_TBIT(CVM_T_PTR_SHARED) | CVM_TBIT(CVM_T_PTR_LOCAL) | CVM_TBIT(CVM_T_PTR_CONST))
#define CVM_TC_ANY (CVM_TC_NUM_BOOL | CVM_TC_PTR)
#define CVM_TC_CMP (CVM_TC_NUM | CVM_TBIT(CVM_T_BOOL) | CVM_TC_PTR) /* type of the compared operands */
#define CVM_TC_MEM CVM_TC_ANY                                        /* ld/st value types */
#define CVM_TC_SCALARMEM (CVM_TC_INT | CVM_TC_FLOAT | CVM_TBIT(CVM_T_BOOL))
#define CVM_TC_SCALAR CVM_TC_ANY
#define CVM_TC_MASK (CVM_TBIT(CVM_T_U32) | CVM_TBIT(CVM_T_U64))
#define CVM_TC_ATOMI (CVM_TBIT(CVM_T_I32) | CVM_TBIT(CVM_T_I64) | CVM_TBIT(CVM_T_U32) | CVM_TBIT(CVM_T_U64))
#define CVM_TC_ATOMU (CVM_TBIT(CVM_T_U32) | CVM_TBIT(CVM_T_U64))
#define CVM_TC_ATOMF (CVM_TC_ATOMI | CVM_TBIT(CVM_T_F32) | CVM_TBIT(CVM_T_F64))

/*
 * Operand-type rules; each is implemented once in verify.c. "T" is the
 * instruction type (elem + line).
 */
typedef enum cvm_bc_rule {
    CVM_RULE_NONE,       /* no registers */
    CVM_RULE_COND,       /* first operand is a scalar bool */
    CVM_RULE_SELECTOR,   /* operand is a scalar integer */
    CVM_RULE_SAME,       /* every register has type T */
    CVM_RULE_CONST,      /* d has type T; pointer constants: see docs/isa.md */
    CVM_RULE_PARAM,      /* d has type T; parameter index and offset in range */
    CVM_RULE_SYM,        /* d is ptr.global or ptr.const matching the symbol */
    CVM_RULE_SREG,       /* d is a scalar integer of T; x a valid sreg id */
    CVM_RULE_SELECT,     /* d, a, b have type T; c is bool (scalar, or a line of T's size) */
    CVM_RULE_EXTRACT,    /* d scalar of T's elem; a a line of that elem; i < line */
    CVM_RULE_INSERT,     /* d and a of type T (a line); b scalar elem; i < line */
    CVM_RULE_BUILD,      /* d of type T; exactly line scalar operands of T's elem */
    CVM_RULE_SPLAT,      /* d of type T; a scalar of T's elem */
    CVM_RULE_CMP,        /* a, b of type T; d bool of T's line */
    CVM_RULE_TEST,       /* a of type T (float); d bool of T's line */
    CVM_RULE_SHIFT,      /* d, a of type T; b unsigned integer of T's line (any width) */
    CVM_RULE_COUNT,      /* a of type T; d u32 of T's line */
    CVM_RULE_CVT,        /* d of type T; a numeric/bool of the same line */
    CVM_RULE_BITCAST,    /* d of type T; a numeric with the same total bytes */
    CVM_RULE_PTRADD,     /* d, a of pointer type T (scalar); b scalar i32/i64 */
    CVM_RULE_PTRDIFF,    /* d scalar i64; a, b pointers of one space */
    CVM_RULE_LD,         /* d of type T; a a scalar pointer */
    CVM_RULE_ST,         /* a a scalar pointer; b of type T */
    CVM_RULE_ATOM,       /* d, b scalar of T; a ptr.global or ptr.shared */
    CVM_RULE_CAS,        /* d, b, c scalar of T; a ptr.global or ptr.shared */
    CVM_RULE_SYNCPRED,   /* a scalar bool; d u32 (count) or bool (and/or) */
    CVM_RULE_BAR,        /* a, b scalar u32, cube-uniform */
    CVM_RULE_PLANEMASK,  /* the mask operand is a scalar u32/u64 */
    CVM_RULE_ACTIVEMASK, /* d scalar of T (u32/u64) */
    CVM_RULE_SHFL,       /* d, a scalar of T; b scalar u32; mask u32/u64 */
    CVM_RULE_VOTE,       /* d bool; a bool; mask */
    CVM_RULE_BALLOT,     /* d T (u32/u64); a bool; mask */
    CVM_RULE_PLANEVAL,   /* d, a scalar of T; mask */
    CVM_RULE_MATCH,      /* d T (u32/u64); a any scalar integer/float; mask */
    CVM_RULE_PRINT       /* arguments are scalars */
} cvm_bc_rule;

/* Op flags. */
#define CVM_OPF_CTRL 0x01u     /* structured control flow */
#define CVM_OPF_MEM 0x02u      /* reads or writes memory through a pointer */
#define CVM_OPF_SIDE 0x04u     /* has effects beyond its destination register */
#define CVM_OPF_ORDERED 0x08u  /* carries a memory order and scope */
#define CVM_OPF_BARRIER 0x10u  /* cube barrier: a scheduling point */
#define CVM_OPF_PLANE 0x20u    /* plane op with a member mask (last operand) */
#define CVM_OPF_DIVFAULT 0x40u /* integer division: checked mode faults on 0 */

/* One row of ops.def. Unused opcode numbers have mnemonic == NULL. */
typedef struct cvm_bc_opinfo {
    const char *mnemonic;
    const char *format;
    uint32_t types;
    uint8_t rule;
    uint8_t flags;
    const char *semantics;
} cvm_bc_opinfo;

/* The table indexed by opcode; cvm_bc_op_info returns NULL for unused or out-of-range numbers. */
extern const cvm_bc_opinfo cvm_bc_ops[CVM_OP_LIMIT];
const cvm_bc_opinfo *cvm_bc_op_info(unsigned op);
/* FNV-1a over every row's (number, mnemonic, format, rule): stored in module headers. */
uint32_t cvm_bc_optable_hash(void);

/* Special registers. */
const char *cvm_bc_sreg_name(unsigned id); /* NULL if invalid */
unsigned cvm_bc_sreg_parse(const char *s, size_t n); /* CVM_SREG_COUNT if unknown */
cvm_bc_uni cvm_bc_sreg_uniformity(unsigned id);

/* ---- instruction encoding (docs/format.md "Code") ----
 *
 * word 0: bits 0..15 opcode, bits 16..23 operand count, bits 24..31 zero
 * word 1: bits 0..7 elem, 8..15 line, 16..19 order, 20..23 scope,
 *         24..31 alignment log2 (0 = natural alignment of the type)
 * words 2..: operands, as the op's format says.
 */
#define CVM_BC_W0(op, nops) ((uint32_t)(op) | ((uint32_t)(nops) << 16))
#define CVM_BC_W1(elem, line, order, scope, alog2)                                     \
    ((uint32_t)(elem) | ((uint32_t)(line) << 8) | ((uint32_t)(order) << 16) |          \
     ((uint32_t)(scope) << 20) | ((uint32_t)(alog2) << 24))

/* A view of one encoded instruction (pointers into the kernel's code words). */
typedef struct cvm_bc_insn {
    uint16_t op;
    uint8_t nops;
    uint8_t elem, line, order, scope, align_log2;
    const uint32_t *ops; /* nops words */
} cvm_bc_insn;

/* ---- the in-memory module ---- */

typedef struct cvm_bc_string {
    uint32_t len;
    const char *data; /* points into cvm_bc_module.blob; NUL-terminated there */
} cvm_bc_string;

typedef struct cvm_bc_param {
    uint32_t name;   /* string index */
    uint8_t kind;    /* cvm_param_kind */
    uint8_t elem;    /* buffer: pointee elem; scalar/comptime: elem; struct: 0 */
    uint8_t line;    /* 1..16 */
    uint8_t access;  /* cvm_access for buffers, 0 otherwise */
    uint32_t size;   /* bytes by value: 8 for buffers (the pointer) */
    uint32_t align;  /* alignment of the by-value bytes */
} cvm_bc_param;

#define CVM_KF_FIXED_WIDTH 0x1u  /* plane_width is required, not a hint */
#define CVM_KF_USES_F64 0x2u
#define CVM_KF_USES_F16 0x4u

typedef struct cvm_bc_kernel {
    uint32_t name;         /* string index */
    uint32_t flags;        /* CVM_KF_* */
    uint32_t plane_width;  /* 0 = any */
    uint32_t shared_bytes; /* static shared per cube */
    uint32_t local_bytes;  /* local per unit */
    uint32_t max_cube;     /* launch bound (units per cube), 0 = none */
    uint32_t nparams;
    cvm_bc_param *params;
    uint32_t nregs;
    cvm_bc_type *regs;
    uint32_t ncode;        /* code words */
    uint32_t *code;
} cvm_bc_kernel;

typedef enum cvm_bc_symspace {
    CVM_SYM_GLOBAL = 0, /* __device__ variable: global memory, per loaded module */
    CVM_SYM_CONST = 1   /* __constant__: the module's constant data */
} cvm_bc_symspace;

typedef struct cvm_bc_symbol {
    uint32_t name;      /* string index */
    uint8_t space;      /* cvm_bc_symspace */
    uint8_t elem;       /* element type for tools (0 = bytes) */
    uint16_t reserved;
    uint32_t size;      /* bytes */
    uint32_t align;     /* power of two, <= 4096 */
    uint32_t init_off;  /* offset of the initializer in data */
    uint32_t init_size; /* <= size; the rest is zero */
} cvm_bc_symbol;

/* Debug info (docs/format.md "Debug"). pcs are instruction indexes. */
typedef struct cvm_bc_dline {
    uint32_t kernel, pc, file, line, col; /* file: index into debug files */
} cvm_bc_dline;
typedef struct cvm_bc_dscope {
    uint32_t kernel, start_pc, end_pc, parent; /* parent: scope index or UINT32_MAX */
} cvm_bc_dscope;
typedef struct cvm_bc_dinline {
    uint32_t kernel, callee, file, line, col, start_pc, end_pc, parent;
} cvm_bc_dinline;
typedef struct cvm_bc_dvar {
    uint32_t kernel, name, scope, reg, start_pc, end_pc; /* reg: register index */
} cvm_bc_dvar;

typedef struct cvm_bc_debug {
    uint32_t nfiles;   uint32_t *files; /* string indexes */
    uint32_t nlines;   cvm_bc_dline *lines; /* sorted by (kernel, pc) */
    uint32_t nscopes;  cvm_bc_dscope *scopes;
    uint32_t ninlines; cvm_bc_dinline *inlines;
    uint32_t nvars;    cvm_bc_dvar *vars;
} cvm_bc_debug;

typedef struct cvm_bc_module {
    cvm_alloc_fn alloc;
    void *alloc_user;
    uint32_t nstrings;  cvm_bc_string *strings;
    uint32_t nkernels;  cvm_bc_kernel *kernels;
    uint32_t nsymbols;  cvm_bc_symbol *symbols;
    uint32_t ndata;     uint8_t *data;   /* constant data + symbol initializers */
    uint32_t const_size; /* bytes of ptr.const space (constant symbols live inside) */
    cvm_bc_debug debug;
    uint8_t hash[32];   /* SHA-256 content hash (everything but debug info) */
    void *blob;         /* owned storage behind the arrays above */
} cvm_bc_module;

/* ---- allocation helpers (all bytecode allocations go through these) ---- */

void *cvm_bc_alloc(cvm_alloc_fn fn, void *user, size_t size);   /* zeroed; NULL on failure */
void cvm_bc_free(cvm_alloc_fn fn, void *user, void *p, size_t size);
/* The default allocator (64-byte aligned). */
void *cvm_default_alloc(void *user, void *ptr, size_t old_size, size_t new_size);

/* Fills a diag: status, message, no position. Returns status. printf-style. */
cvm_status cvm_diag_set(cvm_diag *d, cvm_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- reader / writer (bytecode/module.c) ---- */

/* Parses .cbc bytes into a module (copied into owned memory). Structural
 * checks only (sections, bounds, counts); cvm_bc_verify does the rest. */
cvm_status cvm_bc_module_read(const void *bytes, size_t size, cvm_alloc_fn fn, void *user,
                              cvm_bc_module **out_mod, cvm_diag *diag);
/* Serializes a module (computes and stores its content hash). */
cvm_status cvm_bc_module_write(cvm_bc_module *mod, void **out_bytes, size_t *out_size,
                               cvm_diag *diag);
void cvm_bc_module_free(cvm_bc_module *mod);
const char *cvm_bc_str(const cvm_bc_module *mod, uint32_t idx); /* "" if out of range */

/* Decodes the instruction at code word `word` of kernel k; false if it does not fit. */
bool cvm_bc_insn_at(const cvm_bc_kernel *k, uint32_t word, cvm_bc_insn *out);

/* ---- text (bytecode/asm.c, bytecode/disasm.c) ---- */

cvm_status cvm_bc_assemble(const char *text, size_t len, const char *filename, cvm_alloc_fn fn,
                           void *user, cvm_bc_module **out_mod, cvm_diag *diag);

/* Where each instruction of an assembled module came from. */
typedef struct cvm_bc_srcmap {
    cvm_alloc_fn fn;
    void *user;
    uint32_t nkernels, ninsns;
    uint32_t *kpos;  /* per kernel: line and column of its .kernel directive */
    uint32_t *first; /* per kernel: its first instruction's index in pos (nkernels + 1) */
    uint32_t *pos;   /* per instruction: line and column of its mnemonic */
} cvm_bc_srcmap;
/* cvm_bc_assemble, and the source map of the module in *out_map (free with
 * cvm_bc_srcmap_free) when out_map is not NULL. */
cvm_status cvm_bc_assemble_map(const char *text, size_t len, const char *filename, cvm_alloc_fn fn,
                               void *user, cvm_bc_module **out_mod, cvm_bc_srcmap **out_map,
                               cvm_diag *diag);
void cvm_bc_srcmap_free(cvm_bc_srcmap *m);
/* The line and column of instruction pc of a kernel (its .kernel directive
 * for pc UINT32_MAX); false when the map has no such kernel. */
bool cvm_bc_srcmap_find(const cvm_bc_srcmap *m, uint32_t kernel, uint32_t pc, uint32_t *line, uint32_t *col);
/* Canonical text; *out_text allocated with the module's allocator, *out_len without NUL. */
cvm_status cvm_bc_disassemble(const cvm_bc_module *mod, char **out_text, size_t *out_len,
                              cvm_diag *diag);
/* Instruction pc of kernel kidx as one line of .cbs text (no indentation or
 * newline), cut to fit cap bytes; CVM_NOT_FOUND past the last instruction. */
cvm_status cvm_bc_insn_text(const cvm_bc_module *mod, uint32_t kidx, uint32_t pc, char *buf,
                            size_t cap);

/* ---- verifier and divergence analysis (bytecode/verify.c, divergence.c) ---- */

/* Per-instruction facts of a verified kernel, indexed by instruction (pc). */
typedef struct cvm_bc_vinsn {
    uint32_t word;     /* offset of the instruction in the code words */
    uint32_t target;   /* if: pc of its else (or end); else: its end; loop: continuing (or end);
                          continuing: loop end; switch: first case/default (or end);
                          case/default: next case/default (or end); block: end;
                          end: pc of the construct's opening instruction; others: 0 */
    uint32_t end;      /* pc of the end of the construct this instruction opens or belongs to
                          (for break/continue/exit/fallthrough: of their target construct) */
    uint16_t depth;    /* construct nesting depth at this instruction */
    uint8_t uni;       /* cvm_bc_uni: how uniform the active mask is here */
    uint8_t dst_uni;   /* cvm_bc_uni of the destination register after this instruction */
    uint8_t live_uni;  /* cvm_bc_uni of the mask of non-exited lanes here (uni without the
                          lanes that executed return); register writes are classed by it */
    uint32_t next;     /* pc of the marker (else/continuing/case/default/end) that ends the
                          part holding this instruction; ninsns at kernel level. depth counts
                          the constructs around an instruction; an opening instruction and
                          its markers and end sit at the depth outside their construct */
} cvm_bc_vinsn;

typedef struct cvm_bc_vkernel {
    uint32_t ninsns;
    cvm_bc_vinsn *insns;
    uint8_t *reg_uni;        /* per register: cvm_bc_uni over the whole kernel */
    uint32_t reg_bytes;      /* bytes of register storage per unit (sum of register sizes) */
    uint32_t max_depth;      /* deepest construct nesting */
    uint32_t max_cases;      /* most case values in one switch */
    bool uses_barrier, uses_plane_ops, uses_atomics, uses_print;
} cvm_bc_vkernel;

typedef struct cvm_bc_verified {
    const cvm_bc_module *mod;
    cvm_bc_vkernel *kernels; /* nkernels */
} cvm_bc_verified;

/*
 * Checks everything of docs/design.md item 10 and runs the divergence analysis.
 * Errors name the kernel and pc (diag.message "kernel 'k' pc 12: ...").
 */
cvm_status cvm_bc_verify(const cvm_bc_module *mod, cvm_bc_verified **out_ver, cvm_diag *diag);
/* What a kernel diagnostic of the verifier concerns: the kernel's index and
 * the pc (CVM_BC_NOPC for the kernel's header, or both when none). */
typedef struct cvm_bc_where {
    uint32_t kernel, pc;
} cvm_bc_where;
/* cvm_bc_verify, also filling *where (when not NULL) on a kernel's error. */
cvm_status cvm_bc_verify_at(const cvm_bc_module *mod, cvm_bc_verified **out_ver, cvm_diag *diag,
                            cvm_bc_where *where);
void cvm_bc_verified_free(const cvm_bc_module *mod, cvm_bc_verified *ver);
/*
 * The live-mask class (vinsn.live_uni) of every pc of kernel ki under one
 * more assumption than the divergence analysis makes: a plain load of
 * shared memory at a cube-uniform address gives the whole cube one value
 * (units that wrote it in between without a barrier race, which CUDA
 * leaves undefined). For the CUDA frontend's barrier warning alone (a
 * flag thread 0 sets before a barrier, `if (amLast) __syncthreads();`);
 * execution uses cvm_bc_verify's classes. live_uni: ninsns entries.
 */
cvm_status cvm_bc_barrier_classes(const cvm_bc_module *mod, const cvm_bc_verified *ver, uint32_t ki,
                                  uint8_t *live_uni, cvm_diag *diag);

/*
 * Loop-invariant code motion and copy coalescing over every kernel of a
 * verified module (bytecode/opt.c): the optimized module, serialized into
 * *out_bytes (allocated with the module's allocator), and in *out_moved
 * (may be NULL) how many instructions moved out of loops or went. The
 * result must be verified like any module before it runs.
 */
cvm_status cvm_bc_optimize(const cvm_bc_module *mod, const cvm_bc_verified *ver,
                           void **out_bytes, size_t *out_size, uint32_t *out_moved,
                           cvm_diag *diag);

/* Source line of kernel k at pc from debug info; false if none. */
bool cvm_bc_debug_line(const cvm_bc_module *mod, uint32_t kernel, uint32_t pc,
                       const char **out_file, uint32_t *out_line, uint32_t *out_col);

/* SHA-256 (bytecode/sha256.c). */
void cvm_bc_sha256(const void *data, size_t size, uint8_t out[32]);

#endif /* CVM_BC_H */
