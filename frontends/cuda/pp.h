/*
 * pp.h - the CUDA frontend's preprocessor: text in, text out.
 *
 * cvm_fe_pp expands #include "..." (searched beside the including file,
 * then in the -I directories), the built-in headers (<cuda_runtime.h>,
 * <cuda_fp16.h>, <cuda_bf16.h>, <cooperative_groups.h>, <stdint.h>,
 * <math.h>, <float.h>, <climits>, <cassert>, ...), object- and
 * function-like #define (with # and ##), #undef, #if/#ifdef/#ifndef/#elif/
 * #else/#endif with defined(), #error, and keeps `#pragma` lines (e.g.
 * `#pragma unroll 4`) for the parser. The output carries GNU line markers
 * (`# LINE "FILE"` on their own lines) so the compiler reports positions
 * in the original files.
 */
#ifndef CVM_FE_PP_H
#define CVM_FE_PP_H

#include "../../bytecode/bc.h"

typedef struct cvm_fe_define {
    const char *name;  /* NAME */
    const char *value; /* NULL for -D NAME (defined as 1) */
} cvm_fe_define;

typedef struct cvm_fe_pp_opts {
    const char *const *include_dirs; /* -I, searched in order */
    uint32_t ninclude_dirs;
    const cvm_fe_define *defines;    /* -D */
    uint32_t ndefines;
    cvm_alloc_fn alloc;
    void *alloc_user;
    int implicit_cuda_runtime;       /* 1: read <cuda_runtime.h> before the source, as nvcc does */
} cvm_fe_pp_opts;

/*
 * Preprocesses `src` (len bytes) read from `filename`. On success
 * *out_text is NUL-terminated, allocated with opts->alloc (free with
 * cvm_bc_free(alloc, user, text, *out_len + 1)). Errors: CVM_SYNTAX with
 * diag file/line/col and "file:line:col: error: ..." (unterminated #if,
 * missing include, bad macro call...), CVM_IO for unreadable includes,
 * CVM_OUT_OF_MEMORY, CVM_LIMIT (include depth > 64, expansion > 64 MiB).
 */
cvm_status cvm_fe_pp(const char *src, size_t len, const char *filename, const cvm_fe_pp_opts *opts,
                     char **out_text, size_t *out_len, cvm_diag *diag);

#endif
