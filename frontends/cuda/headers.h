/*
 * headers.h - the CUDA frontend's built-in headers (<cuda_runtime.h>,
 * <stdint.h>, <math.h>, ...), embedded as strings so that common includes
 * work without a CUDA toolkit. The preprocessor searches them first for
 * #include <...> and last for #include "...".
 */
#ifndef CVM_FE_HEADERS_H
#define CVM_FE_HEADERS_H

#include <stddef.h>
#include <stdint.h>

/* Text of the built-in header `name` (name[0..len), e.g. "cuda_runtime.h"
 * or "cooperative_groups/reduce.h"); NULL if there is none. */
const char *cvm_fe_header_find(const char *name, size_t len, size_t *out_len);

/* The built-in headers by index (0 <= i < count), for tests and docs. */
uint32_t cvm_fe_header_count(void);
const char *cvm_fe_header_name(uint32_t i);

#endif
