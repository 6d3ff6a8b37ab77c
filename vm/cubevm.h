/*
 * cubevm.h - the one public header of libcubevm.
 *
 * A host program opens a device, loads a module (.cbc bytes, or .cbs text
 * assembled on the fly), looks up kernels, creates buffers and launches
 * kernels on a stream. Every fallible call returns a cvm_status (CVM_OK or
 * a negative error) and, when given a non-NULL cvm_diag, fills it with the
 * details: a message, a source position (file:line:col), a byte offset into
 * a malformed module, or the fault record of a kernel (kernel, cube, plane,
 * lane, pc, source line).
 *
 * Threading: devices, modules and kernels are immutable after creation and
 * may be shared between host threads; a stream is used by one host thread
 * at a time. The library never prints, never calls abort/exit/longjmp, and
 * allocates every byte through the allocator of its cvm_config.
 *
 * Only standard headers are included.
 */
#ifndef CUBEVM_H
#define CUBEVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CVM_VERSION_MAJOR 0
#define CVM_VERSION_MINOR 1
#define CVM_VERSION_PATCH 0
#define CVM_VERSION_STRING "0.1.0"

/* Exported symbols: the library builds with -fvisibility=hidden. */
#if defined(__GNUC__)
#define CVM_API __attribute__((visibility("default")))
#else
#define CVM_API
#endif

/* ---- status and diagnostics ---- */

typedef enum cvm_status {
#define CVM_STATUS(name, value, msg) CVM_##name = value,
#include "status.def"
#undef CVM_STATUS
} cvm_status;

/* A short, static English description of a status ("kernel fault"). */
CVM_API const char *cvm_status_str(cvm_status s);

/* Where a kernel fault happened. Valid when cvm_diag.has_fault is set. */
typedef struct cvm_fault {
    char kernel[128];      /* kernel name */
    uint32_t cube[3];      /* cube position (blockIdx) */
    uint32_t unit[3];      /* unit position in the cube (threadIdx) */
    uint32_t plane;        /* plane index in the cube */
    uint32_t lane;         /* lane in the plane */
    uint32_t pc;           /* instruction index in the kernel */
    char file[128];        /* source file from debug info, "" if none */
    uint32_t line;         /* source line, 0 if unknown */
    uint32_t count;        /* faults of this launch, including this one */
} cvm_fault;

/*
 * Diagnostic filled by fallible calls. Fixed size: filling it never
 * allocates. `message` is one line without a trailing newline.
 */
typedef struct cvm_diag {
    cvm_status status;
    char message[512];
    char file[256];        /* source position for text input, "" if none */
    uint32_t line, col;    /* 1-based; 0 when not applicable */
    int has_offset;        /* byte offset into a binary module is valid */
    uint64_t offset;
    int has_fault;         /* fault record is valid */
    cvm_fault fault;
} cvm_diag;

/* ---- configuration ---- */

/*
 * Allocator hook, with Lua's contract: new_size == 0 frees `ptr` and
 * returns NULL; otherwise it returns a block of new_size bytes aligned to
 * at least 64 bytes, preserving min(old_size, new_size) bytes of `ptr`
 * (NULL for a fresh block), or NULL on failure (then `ptr` is untouched).
 * The library calls it from worker threads too, but never from two
 * threads at once (one lock for the process), so it need not be
 * thread-safe.
 */
typedef void *(*cvm_alloc_fn)(void *user, void *ptr, size_t old_size, size_t new_size);

/* How the cpu device orders cubes and planes (docs/design.md "Memory model"). */
typedef enum cvm_schedule {
    CVM_SCHEDULE_PARALLEL = 0,   /* cubes over all workers, in batches */
    CVM_SCHEDULE_SEQUENTIAL = 1, /* one worker at a time, fixed cube and plane order */
    CVM_SCHEDULE_RANDOM = 2      /* one worker at a time; cube and plane order permuted by `seed` */
} cvm_schedule;

typedef struct cvm_config {
    cvm_alloc_fn alloc;    /* NULL: the built-in aligned allocator */
    void *alloc_user;
    uint64_t memory_limit; /* bytes the library may hold at once; 0 = none */
    uint32_t threads;      /* cpu worker threads; 0 = one per core */
    const char *profile;   /* target profile: "generic" (NULL), "sm_80", "sm_90", "lavapipe" */
    cvm_schedule schedule;
    uint64_t seed;         /* CVM_SCHEDULE_RANDOM */
} cvm_config;

/* ---- handles ---- */

typedef struct cvm_device cvm_device;
typedef struct cvm_stream cvm_stream;
typedef struct cvm_module cvm_module;
typedef struct cvm_kernel cvm_kernel;
typedef struct cvm_buffer cvm_buffer;

/* ---- devices ---- */

/*
 * Opens a device by name: "cpu" (always available; also "cpu:0", and
 * NULL means "cpu"), "vulkan" (the first Vulkan device) or "vulkan:N".
 * `cfg` may be NULL.
 * Returns CVM_UNAVAILABLE with the reason for devices that are absent.
 */
CVM_API cvm_status cvm_device_open(const char *name, const cvm_config *cfg, cvm_device **out_dev,
                           cvm_diag *diag);
/* Waits for all work, frees the device. Streams, modules and buffers must be
 * freed first: what is left is released, and using it afterwards is a
 * use after free. */
CVM_API void cvm_device_close(cvm_device *dev);
/* The device's default stream; owned by the device. */
CVM_API cvm_stream *cvm_device_stream(cvm_device *dev);

/* Feature bits of cvm_device_limits.features. */
enum {
    CVM_FEATURE_F64 = 1 << 0,            /* f64 arithmetic */
    CVM_FEATURE_F16 = 1 << 1,            /* f16 arithmetic */
    CVM_FEATURE_ATOMIC_I64 = 1 << 2,     /* 64-bit integer atomics */
    CVM_FEATURE_ATOMIC_F32_ADD = 1 << 3, /* f32 atomic add */
    CVM_FEATURE_ATOMIC_F32_MINMAX = 1 << 4,
    CVM_FEATURE_ATOMIC_F64_ADD = 1 << 5,
    CVM_FEATURE_ATOMIC_F64_MINMAX = 1 << 6,
    CVM_FEATURE_NAMED_BARRIERS = 1 << 7, /* bar.sync/bar.arrive with ids */
    /* f32 arithmetic keeps subnormals; without it a GPU driver flushes them
     * to zero in plain f32 operations (docs/backends.md, "Exactness on Vulkan") */
    CVM_FEATURE_F32_SUBNORMALS = 1 << 8
};

typedef struct cvm_device_limits {
    char device[32];              /* "cpu" */
    char profile[32];             /* "generic", "sm_80", "sm_90", "lavapipe" */
    uint32_t plane_width_min;     /* plane widths: powers of two from min to max */
    uint32_t plane_width_max;
    uint32_t default_plane_width;
    uint32_t max_cube_units;
    uint32_t max_cube_dims[3];
    uint32_t max_grid[3];
    uint32_t shared_bytes;        /* static + dynamic shared memory per cube */
    uint32_t shared_bytes_optin;  /* with cvm_launch_config.shared_opt_in */
    uint32_t workers;             /* cubes that run at once */
    uint64_t memory_limit;        /* bytes; 0 = none */
    uint32_t features;            /* CVM_FEATURE_* */
} cvm_device_limits;

/* What the device (under its profile) accepts. Never fails for a valid device. */
CVM_API cvm_status cvm_device_limits_get(const cvm_device *dev, cvm_device_limits *out_limits,
                                         cvm_diag *diag);

/*
 * Streams: a stream runs its operations in order; different streams run
 * independently. A stream is used by one host thread at a time. Destroying
 * a stream waits for its work; its faults are dropped.
 */
CVM_API cvm_status cvm_stream_create(cvm_device *dev, cvm_stream **out_stream, cvm_diag *diag);
CVM_API void cvm_stream_destroy(cvm_stream *s);

/* ---- modules and kernels ---- */

/*
 * Loads a module from .cbc bytes. The bytes are copied, verified and
 * decoded; the caller may free them on return. Malformed input gives
 * CVM_MALFORMED or CVM_VERIFY with a byte offset or kernel/pc in diag.
 */
CVM_API cvm_status cvm_module_load(cvm_device *dev, const void *bytes, size_t size, cvm_module **out_mod,
                           cvm_diag *diag);
/* Loads a .cbc file, or a .cbs text file (assembled first) by extension. */
CVM_API cvm_status cvm_module_load_file(cvm_device *dev, const char *path, cvm_module **out_mod,
                                cvm_diag *diag);
/* Waits for the queued launches of the module's kernels (cpu: those only;
 * vulkan: the device's queue), then frees it. */
CVM_API void cvm_module_free(cvm_module *mod);

CVM_API uint32_t cvm_module_kernel_count(const cvm_module *mod);
/* Name of kernel i (valid while the module lives), or NULL if out of range. */
CVM_API const char *cvm_module_kernel_name(const cvm_module *mod, uint32_t i);
/* Finds a kernel by name. The kernel handle lives as long as the module. */
CVM_API cvm_status cvm_kernel_get(const cvm_module *mod, const char *name, const cvm_kernel **out_kernel,
                          cvm_diag *diag);

typedef enum cvm_param_kind {
    CVM_PARAM_BUFFER = 0,   /* a global pointer: pass a buffer (+ byte offset) */
    CVM_PARAM_SCALAR = 1,   /* a scalar or line by value */
    CVM_PARAM_STRUCT = 2,   /* bytes by value, CUDA ABI layout */
    CVM_PARAM_COMPTIME = 3  /* a scalar fixed per specialization */
} cvm_param_kind;

typedef enum cvm_access {
    CVM_ACCESS_READ = 1,
    CVM_ACCESS_WRITE = 2,
    CVM_ACCESS_READWRITE = 3
} cvm_access;

/* Element types, as in .cbc and .npy mapping. */
typedef enum cvm_elem {
    CVM_BOOL = 1, CVM_I8, CVM_I16, CVM_I32, CVM_I64, CVM_U8, CVM_U16, CVM_U32, CVM_U64,
    CVM_F16, CVM_BF16, CVM_F32, CVM_F64
} cvm_elem;

typedef struct cvm_param_info {
    const char *name;
    cvm_param_kind kind;
    cvm_elem elem;          /* buffer: element type; scalar/comptime: type; struct: 0 */
    uint32_t line;          /* line size of the element (1 for scalars) */
    cvm_access access;      /* buffers only */
    uint32_t size;          /* bytes passed by value (scalar/struct/comptime) */
} cvm_param_info;

typedef struct cvm_kernel_info {
    const char *name;
    uint32_t param_count;
    uint32_t plane_width;   /* required plane width, 0 = works at any width */
    uint32_t shared_bytes;  /* static shared memory */
    uint32_t local_bytes;   /* local memory per unit */
    uint32_t max_cube_units;/* launch bound, 0 = none */
    int plane_width_hint;   /* 1: plane_width is only preferred (a launch may ask for another;
                               CUDA code reading warpSize), 0: required */
} cvm_kernel_info;

CVM_API void cvm_kernel_info_get(const cvm_kernel *k, cvm_kernel_info *out_info);
/* Parameter i, or CVM_NOT_FOUND. */
CVM_API cvm_status cvm_kernel_param(const cvm_kernel *k, uint32_t i, cvm_param_info *out_param);

/*
 * Module-scope variables (__device__ and __constant__ symbols): copies
 * `size` bytes at byte `offset` of symbol `name` from `src` (write) or into
 * `dst` (read), in order with launches on `s`, like cvm_buffer_write/read.
 * A write changes what later launches of this loaded module see (each
 * loaded module has its own copy). CVM_NOT_FOUND when the module has no
 * such symbol; CVM_INVALID_ARGUMENT when the range leaves the symbol or the
 * stream belongs to another device.
 */
/* What the module records of symbol `name`: its element type (the
 * variable's scalar type, or of its array's elements; 0 when the module
 * gives none, as .cbs text may not), size in bytes, and whether it is a
 * __constant__ (read-only to kernels). CVM_NOT_FOUND when there is none. */
typedef struct cvm_symbol_info {
    cvm_elem elem;
    size_t size;
    int constant;    /* 1: __constant__ */
} cvm_symbol_info;

CVM_API cvm_status cvm_module_symbol_info(const cvm_module *mod, const char *name,
                                          cvm_symbol_info *out_info, cvm_diag *diag);
CVM_API cvm_status cvm_module_symbol_write(cvm_stream *s, cvm_module *mod, const char *name,
                                           size_t offset, const void *src, size_t size,
                                           cvm_diag *diag);
CVM_API cvm_status cvm_module_symbol_read(cvm_stream *s, cvm_module *mod, const char *name,
                                          size_t offset, void *dst, size_t size, cvm_diag *diag);

/* ---- buffers ---- */

/* A device buffer of `size` bytes, zero-filled; `name` (may be NULL) appears in fault reports. */
CVM_API cvm_status cvm_buffer_create(cvm_device *dev, size_t size, const char *name, cvm_buffer **out_buf,
                             cvm_diag *diag);
/* Frees the buffer; while queued work still uses it, the release waits for that work. */
CVM_API void cvm_buffer_free(cvm_buffer *buf);
CVM_API size_t cvm_buffer_size(const cvm_buffer *buf);

/*
 * Stream operations, in order with launches on the same stream. write
 * copies `src` before returning and completes later; copy and fill complete
 * later; read waits for the stream's earlier work, then copies into `dst`.
 * Errors in the arguments are returned at once and enqueue nothing.
 */
CVM_API cvm_status cvm_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                            size_t size, cvm_diag *diag);
CVM_API cvm_status cvm_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                           size_t size, cvm_diag *diag);
CVM_API cvm_status cvm_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                           uint8_t byte, cvm_diag *diag);
/* Copies `size` bytes from src+src_offset to dst+dst_offset (the ranges may overlap). */
CVM_API cvm_status cvm_buffer_copy(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                                   const cvm_buffer *src, size_t src_offset, size_t size,
                                   cvm_diag *diag);

/*
 * Host access to a buffer's bytes: waits until no queued work on any stream
 * uses the buffer, then returns its memory in *out_ptr (valid until unmap).
 * While mapped, the host must not enqueue work that uses the buffer.
 */
CVM_API cvm_status cvm_buffer_map(cvm_buffer *buf, void **out_ptr, cvm_diag *diag);
CVM_API void cvm_buffer_unmap(cvm_buffer *buf);

/* ---- launches ---- */

typedef enum cvm_arg_kind {
    CVM_ARG_BUFFER = 0,     /* .buffer + .offset (a buffer view) */
    CVM_ARG_BYTES = 1       /* .bytes/.size: scalar, struct or comptime value */
} cvm_arg_kind;

typedef struct cvm_arg {
    cvm_arg_kind kind;
    cvm_buffer *buffer;
    size_t offset;
    const void *bytes;
    size_t size;
} cvm_arg;

typedef struct cvm_launch_config {
    uint32_t grid[3];       /* cubes per dimension; 0 is read as 1 */
    uint32_t block[3];      /* units per cube per dimension; 0 is read as 1 */
    uint32_t shared_bytes;  /* dynamic shared memory */
    uint32_t plane_width;   /* 0 = the kernel's requirement, else the device's default
                               (32 on cpu; the profile's, e.g. lavapipe's 8; vulkan: the
                               subgroup size) */
    uint64_t step_budget;   /* instructions per plane before a fault; 0 = none */
    double timeout_s;       /* wall time before a timeout fault; 0 = none; < 0 or NaN: CVM_INVALID_ARGUMENT */
    int unchecked;          /* 1: skip bounds/alignment checks (faster, unsafe) */
    int shared_opt_in;      /* 1: dynamic shared memory up to shared_bytes_optin
                               (cudaFuncAttributeMaxDynamicSharedMemorySize) */
    int racecheck;          /* 1: fault at the first data race between units of a cube on
                               shared or global memory (cpu device only; with unchecked:
                               CVM_INVALID_ARGUMENT; slower; docs/debugging.md "Race
                               checking") */
    int initcheck;          /* 1: fault at the first read of shared memory no unit of the cube
                               wrote, or of local memory its unit did not write (cpu device
                               only; with unchecked: CVM_INVALID_ARGUMENT; slower;
                               docs/debugging.md "Uninitialized reads") */
    int tier;               /* cvm_tier: which engine runs the launch on the cpu device
                               (other devices ignore it; docs/api.md "Tiers") */
} cvm_launch_config;

/*
 * The cpu device's engines. CVM_TIER_DEFAULT follows the environment
 * variable CUBEVM_JIT: auto (and unset: the interpreter until a kernel's
 * earlier launches have run 2^22 units, native code after), off (the
 * interpreter) or on (as CVM_TIER_NATIVE);
 * CVM_TIER_INTERP always interprets; CVM_TIER_NATIVE compiles the kernel
 * at its first launch. Native code needs a build with LLVM, and is never
 * used under a step budget, the race or uninitialized-read checker or the
 * debugger; a kernel it cannot compile runs interpreted. Results are the
 * same in every tier.
 */
typedef enum cvm_tier { CVM_TIER_DEFAULT = 0, CVM_TIER_INTERP = 1, CVM_TIER_NATIVE = 2 } cvm_tier;

/*
 * Whether the cpu device can run `tier` (CVM_TIER_INTERP or
 * CVM_TIER_NATIVE) in this process: CVM_OK with what runs it in
 * diag->message (for native code: the LLVM library and the CPU it
 * compiles for; LLVM is loaded then, once per process), CVM_UNAVAILABLE
 * with the reason (a build without LLVM, libLLVM-14 missing), or
 * CVM_INVALID_ARGUMENT. `diag` may be NULL.
 */
CVM_API cvm_status cvm_tier_available(cvm_tier tier, cvm_diag *diag);

/*
 * Enqueues a launch and returns without waiting for it. Arguments follow
 * the kernel's parameters in order and are checked against them
 * (CVM_TYPE_MISMATCH names the parameter; by-value bytes are copied). A
 * buffer argument is a view: the buffer plus a byte offset. Launches that
 * break the device's or profile's limits fail here with CVM_LIMIT or
 * CVM_UNSUPPORTED and the target's diagnostic, as does one whose memory
 * ((register file + local memory x cube units + shared memory) x workers)
 * exceeds the memory limit. Kernel faults are reported by cvm_stream_sync.
 */
CVM_API cvm_status cvm_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                      const cvm_arg *args, uint32_t arg_count, cvm_diag *diag);

/*
 * Waits for the stream's work. Returns the first fault since the last
 * sync (with its record in diag) and clears it; launches enqueued after a
 * faulted launch are skipped, and the fault's message ends with how many
 * ("(2 later launches skipped)").
 */
CVM_API cvm_status cvm_stream_sync(cvm_stream *s, cvm_diag *diag);

/* Text printed by the kernels' `print` since the last call, in cube order;
 * waits for the stream's work (owned by the stream until the next call;
 * "" if none). A launch whose worker thread gathers more than 64 MiB of it
 * faults (CVM_LIMIT). The text ends with a NUL, but a kernel's `%c` of 0
 * prints a NUL inside it: cvm_stream_output_n gives the length too. */
CVM_API const char *cvm_stream_output(cvm_stream *s);
/* cvm_stream_output, with the text's length in bytes, NULs printed by the
 * kernels included, in *out_len (0 with ""); out_len may be NULL. */
CVM_API const char *cvm_stream_output_n(cvm_stream *s, size_t *out_len);

/* ---- numpy .npy files ---- */

/*
 * The data of a .npy file as a flat array (C order; the shape is folded into
 * `count`). dtypes map to element types: <f2 f16, <f4 f32, <f8 f64, |b1 bool,
 * |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8; bf16 data travels as <u2 bit patterns.
 */
typedef struct cvm_npy {
    cvm_elem elem;      /* element type of the dtype (CVM_U16 for <u2) */
    char descr[16];     /* the dtype string of the file, e.g. "<f4" */
    uint64_t count;     /* number of elements (product of the shape) */
    void *data;         /* count elements; release with cvm_free_bytes */
    size_t size;        /* bytes of data */
} cvm_npy;

/*
 * Reads a .npy file (format 1.0, 2.0 or 3.0). Fortran order, big-endian
 * multibyte dtypes, object and structured dtypes and a data size that does
 * not match the shape give CVM_MALFORMED or CVM_UNSUPPORTED naming the
 * file; a file that cannot be read gives CVM_IO with the reason. A bool
 * (|b1) file's bytes come back as 0 or 1 (numpy reads any nonzero byte as
 * True).
 */
CVM_API cvm_status cvm_npy_load(const char *path, cvm_npy *out, cvm_diag *diag);
/* Writes `count` elements as a 1-D .npy file (format 1.0; bf16 as <u2),
 * through a new file beside `path` renamed over it once complete (a failed
 * write leaves an existing file whole; its mode is kept); in place where a
 * new file would change what the path is (not a regular file, other hard
 * links, a link that does not lead to a regular file, no new file can be
 * made there). */
CVM_API cvm_status cvm_npy_save(const char *path, cvm_elem elem, const void *data, uint64_t count,
                                cvm_diag *diag);

/* ---- bytecode tools ---- */

/*
 * Assembles .cbs text into .cbc bytes, and verifies them. *out_bytes is
 * allocated with the default allocator; release it with cvm_free_bytes.
 * Errors carry file:line:col, a verifier error (CVM_VERIFY) the position of
 * the instruction it concerns (or of the kernel's .kernel line).
 */
CVM_API cvm_status cvm_assemble(const char *text, size_t len, const char *filename, void **out_bytes,
                        size_t *out_size, cvm_diag *diag);
/* Disassembles .cbc bytes into canonical .cbs text (NUL-terminated, cvm_free_bytes). */
CVM_API cvm_status cvm_disassemble(const void *bytes, size_t size, char **out_text, cvm_diag *diag);
/* Parses and verifies .cbc bytes without loading them onto a device. */
CVM_API cvm_status cvm_verify(const void *bytes, size_t size, cvm_diag *diag);
CVM_API void cvm_free_bytes(void *p);

/* ---- the CUDA C frontend (frontends/cuda/; docs/cuda.md) ---- */

/* Receives one compiler warning: message "file:line:col: warning: ...", position in
 * file/line/col, status CVM_OK. The diag is valid during the call only. It is
 * called on the compiler's own thread while cvm_compile_cuda waits (docs/api.md). */
typedef void (*cvm_compile_warning_fn)(void *user, const cvm_diag *warning);

typedef struct cvm_compile_options {
    const char *const *include_dirs; /* -I DIR, searched after the including file's directory */
    uint32_t include_dir_count;
    const char *const *defines;      /* -D: "NAME" or "NAME=VALUE" */
    uint32_t define_count;
    const char *const *kernels;      /* kernels or template instances to emit ("reduce<256>");
                                        none: every non-template __global__ function */
    uint32_t kernel_count;
    int fmad;                        /* 1: contract a*b+c into fma (nvcc's default); 0: never */
    cvm_compile_warning_fn warning;  /* called for each warning of a successful compile; NULL:
                                        warnings are dropped */
    void *warning_user;
    int no_opt;                      /* 1: emit the bytecode as lowered (-O0); 0: move
                                        loop-invariant instructions out of loops (docs/cuda.md) */
} cvm_compile_options;

/*
 * Compiles CUDA C source into .cbc bytes (release with cvm_free_bytes).
 * `opts` may be NULL (defaults: no -I/-D, every kernel, fmad off, optimized).
 * Errors: CVM_SYNTAX (or CVM_UNSUPPORTED for a construct outside the
 * subset) with "file:line:col: error: ..." and diag file/line/col.
 */
CVM_API cvm_status cvm_compile_cuda(const char *src, size_t len, const char *filename,
                                    const cvm_compile_options *opts, void **out_bytes,
                                    size_t *out_size, cvm_diag *diag);

/*
 * The kernel of a template instance in a module compiled by
 * cvm_compile_cuda. `instance` is its canonical name ("reduce<256>",
 * "scale<float, 4>"). A kernel of exactly that name (an instance compiled
 * with its arguments folded in) is returned as is. Otherwise the kernel
 * whose integer template parameters are comptime parameters
 * ("reduce<blockSize>", "scale<float, ITEMS>") is returned, and for each
 * of its comptime parameters, values[i] (i: the parameter's index, below
 * nvalues) receives the instance's argument, to be passed at launch like
 * any by-value argument (its bits: a u64 argument above INT64_MAX reads
 * negative); other entries are left alone. An argument outside its
 * parameter's range matches no kernel. A scalar type argument matches in
 * any spelling of its type ("uint32_t", "unsigned", "unsigned int").
 * CVM_NOT_FOUND when no kernel matches; CVM_INVALID_ARGUMENT when values
 * is too short.
 */
CVM_API cvm_status cvm_kernel_get_instance(const cvm_module *mod, const char *instance,
                                           const cvm_kernel **out_kernel, int64_t *values,
                                           uint32_t nvalues, cvm_diag *diag);

/* ---- debugging (cpu device; docs/debugging.md) ---- */

/* Why a debug hook is called. */
typedef enum cvm_debug_event {
    CVM_DEBUG_STEP = 0,  /* the plane is about to execute the instruction at `pc` */
    CVM_DEBUG_FAULT = 1  /* the instruction at `pc` faulted (`fault` says how) */
} cvm_debug_event;

/* Where a hooked launch is, for the duration of one hook call. */
typedef struct cvm_debug_where {
    cvm_debug_event event;
    uint32_t cube[3];        /* the cube running (cubes run one at a time, in order) */
    uint32_t plane;          /* the plane about to run, or that faulted */
    uint32_t planes;         /* planes in the cube */
    uint32_t plane_width;
    uint32_t lanes;          /* lanes of this plane that exist (the last may be partial) */
    uint64_t active;         /* lanes executing the instruction (bit i: lane i) */
    uint64_t exited;         /* lanes that have returned */
    uint32_t pc;             /* instruction index in the kernel */
    uint64_t steps;          /* instructions this plane has executed in this cube */
    const char *fault;       /* CVM_DEBUG_FAULT: the fault's message (a timeout's or a
                                deadlock's too); else NULL */
    uint32_t fault_lane;     /* CVM_DEBUG_FAULT: the lowest faulting lane of the plane */
    const char *output;      /* text the kernel printed since the previous call (not */
    size_t output_len;       /* NUL-terminated: a %c of 0 prints one) */
} cvm_debug_where;

/* The state behind a hook call: what cvm_debug_read_* read. Valid only
 * during the call. */
typedef struct cvm_debug_stop cvm_debug_stop;

/* Called from the thread that runs the launch. Return 0 to go on, nonzero
 * to end the launch: cvm_stream_sync then returns CVM_CANCELED. It runs
 * inside the launch: it must not wait for the device (a sync, map or read,
 * or freeing what the launch uses), which would wait for itself. */
typedef int (*cvm_debug_hook)(void *user, const cvm_debug_where *where,
                              const cvm_debug_stop *stop);

/*
 * cvm_launch under a debug hook (the cpu device; others: CVM_UNSUPPORTED).
 * The launch runs on one thread, cube after cube in order and the planes
 * of a cube in order, executing the module's own instructions one at a
 * time (no fused sequences), and calls `hook` before every instruction of
 * every plane and after a fault. The hook may block (a debugger waiting
 * for its user); the launch's timeout counts that time too.
 */
CVM_API cvm_status cvm_launch_debug(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                                    const cvm_arg *args, uint32_t arg_count, cvm_debug_hook hook,
                                    void *user, cvm_diag *diag);

/*
 * The bits of element `elem` of register `reg` (%rN of the kernel; elem <
 * its line size) at lane `lane` of plane `plane` of the stopped cube
 * (UINT32_MAX: the stopped plane), zero-extended: an f32 is its 32 bits, a
 * pointer its value (cvm_debug_read_mem). CVM_INVALID_ARGUMENT when out of
 * range.
 */
CVM_API cvm_status cvm_debug_read_reg(const cvm_debug_stop *stop, uint32_t plane, uint32_t reg,
                                      uint32_t elem, uint32_t lane, uint64_t *out_bits);
/* How plane `plane` of the stopped cube stands. */
typedef enum cvm_debug_plane_state {
    CVM_DEBUG_RUNNABLE = 0, CVM_DEBUG_WAITING = 1, CVM_DEBUG_DONE = 2, CVM_DEBUG_FAULTED = 3
} cvm_debug_plane_state;
typedef struct cvm_debug_plane_info {
    cvm_debug_plane_state state;
    uint32_t pc;             /* its next instruction (waiting: the barrier's) */
    uint32_t lanes;
    uint64_t active, exited;
    uint64_t steps;
} cvm_debug_plane_info;
/* CVM_INVALID_ARGUMENT when the cube has no such plane. */
CVM_API cvm_status cvm_debug_plane(const cvm_debug_stop *stop, uint32_t plane,
                                   cvm_debug_plane_info *out);

/* The memory a pointer register's value points at. */
typedef enum cvm_debug_space {
    CVM_DEBUG_GLOBAL = 1, CVM_DEBUG_SHARED = 2, CVM_DEBUG_LOCAL = 3, CVM_DEBUG_CONST = 4
} cvm_debug_space;

/*
 * Copies `size` bytes at pointer value `ptr` of space `space` into out, as
 * lane `lane` of plane `plane` of the stopped cube sees it (UINT32_MAX: the
 * stopped plane; local memory is each unit's own). CVM_INVALID_ARGUMENT,
 * with nothing copied, when the range is not wholly inside one buffer or
 * symbol (global), the cube's shared memory, the unit's local memory or the
 * constant data.
 */
CVM_API cvm_status cvm_debug_read_mem(const cvm_debug_stop *stop, uint32_t plane, uint32_t lane,
                                      cvm_debug_space space, uint64_t ptr, void *out, size_t size);

/* Pointer value `ptr` of space `space` as text: "buffer 'a' + 16", "shared
 * + 64", "local + 8", "const + 0", "buffer 'a' + 400 (its end)"; a global
 * pointer outside every buffer by
 * the buffer it was made from: "buffer 'a' + 4096 (past its 400 bytes)", or
 * "global 0x... (in no buffer)". */
CVM_API void cvm_debug_ptr_text(const cvm_debug_stop *stop, cvm_debug_space space, uint64_t ptr,
                                char *buf, size_t cap);

/* A register's type: a scalar element type, or a pointer (elem 0, space set). */
typedef struct cvm_debug_type {
    cvm_elem elem;           /* 0 for a pointer */
    cvm_debug_space space;   /* pointers only; else 0 */
    uint32_t line;           /* elements (1 for a scalar) */
} cvm_debug_type;

/* The kernel's instruction count, and its register count (%r0 ..). */
CVM_API uint32_t cvm_debug_code_size(const cvm_kernel *k);
CVM_API uint32_t cvm_debug_reg_count(const cvm_kernel *k);
/* The type of register reg; CVM_NOT_FOUND past the last. */
CVM_API cvm_status cvm_debug_reg_type(const cvm_kernel *k, uint32_t reg, cvm_debug_type *out);
/* Instruction pc as assembly text (docs/asm.md), without its indentation. */
CVM_API cvm_status cvm_debug_insn_text(const cvm_kernel *k, uint32_t pc, char *buf, size_t cap);

/* The source position of instruction pc, from the module's debug info
 * (CVM_NOT_FOUND without one). The file name lives as long as the module. */
CVM_API cvm_status cvm_debug_line(const cvm_kernel *k, uint32_t pc, const char **out_file,
                                  uint32_t *out_line, uint32_t *out_col);

/* A source variable the debug info maps to a register. */
typedef struct cvm_debug_var {
    const char *name;
    uint32_t reg;            /* its register (%rN) */
    uint32_t depth;          /* scopes it is nested in (0: the kernel's parameters' level) */
    uint32_t frame;          /* inlined calls around its declaration (0: the kernel) */
    int param;               /* 1: a parameter of the kernel, or of the inlined call
                                `frame` (one in a register; the CUDA frontend names
                                those at -O0) */
} cvm_debug_var;

/* Variable i (0, 1, ...) of those in scope at pc, innermost scope first
 * (a name declared twice: the inner one first); CVM_NOT_FOUND past the last. */
CVM_API cvm_status cvm_debug_var_at(const cvm_kernel *k, uint32_t pc, uint32_t i,
                                    cvm_debug_var *out);

/* An inlined call around pc: the function called and where the call is. */
typedef struct cvm_debug_frame {
    const char *function;
    const char *file;        /* the call's position */
    uint32_t line, col;
} cvm_debug_frame;

/* Inlined call i around pc (0: the innermost); CVM_NOT_FOUND past the
 * outermost (the kernel itself is no frame). */
CVM_API cvm_status cvm_debug_frame_at(const cvm_kernel *k, uint32_t pc, uint32_t i,
                                      cvm_debug_frame *out);

/* ---- the SPIR-V backend (backends/spirv/; docs/backends.md) ---- */

typedef struct cvm_spirv_options {
    uint32_t spirv_version; /* 0x10300 (1.3) .. 0x10600 (1.6); 0: 0x10600 (Vulkan 1.3) */
    uint32_t subgroup_size; /* the device's subgroup width; 0: 8 (lavapipe) */
    uint32_t plane_width;   /* the launch's plane width; 0: the kernel's requirement, else
                               the subgroup size */
} cvm_spirv_options;

/*
 * Translates kernel `kernel` (NULL: the module's only kernel) of .cbc bytes
 * into a Vulkan compute shader for a device with lavapipe's features
 * (docs/backends.md). `opts` may be NULL. *out_words holds *out_size bytes
 * of SPIR-V words (release with cvm_free_bytes). Kernels the target cannot
 * run fail with CVM_UNSUPPORTED and a diagnostic naming the op and line.
 */
CVM_API cvm_status cvm_spirv_compile(const void *cbc_bytes, size_t size, const char *kernel,
                                     const cvm_spirv_options *opts, void **out_words,
                                     size_t *out_size, cvm_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* CUBEVM_H */
