/*
 * npy.h - the numpy .npy format (vm/npy.c): parsing a file image's header
 * and writing a 1-D header. The public cvm_npy_load/cvm_npy_save of
 * cubevm.h sit on these; tests/test_npy.c drives them on memory images.
 */
#ifndef CVM_VM_NPY_H
#define CVM_VM_NPY_H

#include "cubevm.h"

/* Header dicts longer than this are rejected (numpy itself writes < 1 KiB). */
#define CVM_VM_NPY_MAX_HEADER 65536u
/* Bytes a 1-D v1.0 header written by cvm_vm_npy_header_format can take. */
#define CVM_VM_NPY_HEADER_CAP 128u

typedef struct cvm_vm_npy_header {
    cvm_elem elem;      /* mapped element type */
    unsigned elem_size; /* bytes per element */
    char descr[16];     /* dtype string as written in the file */
    unsigned version;   /* major format version: 1, 2 or 3 */
    uint32_t ndim;
    uint64_t count;     /* product of the shape */
    size_t data_offset; /* where the data starts in the image */
} cvm_vm_npy_header;

/*
 * Parses the header of a complete .npy image (`size` bytes) and checks that
 * the data after it holds exactly `count` elements. `name` (the file name)
 * starts every message. CVM_MALFORMED for broken headers or a size
 * mismatch, CVM_UNSUPPORTED for valid files this VM cannot use (Fortran
 * order, big-endian, object or structured dtypes).
 */
cvm_status cvm_vm_npy_parse(const void *image, size_t size, const char *name,
                            cvm_vm_npy_header *out, cvm_diag *diag);

/*
 * Writes the v1.0 header of a 1-D array of `count` elements into `out`
 * (at least CVM_VM_NPY_HEADER_CAP bytes), padded so the data starts at a
 * multiple of 64. Returns the header length, 0 for an invalid elem.
 */
size_t cvm_vm_npy_header_format(cvm_elem elem, uint64_t count, char *out);

/* The dtype string for an element type ("<f4"; bf16 gives "<u2"); NULL if invalid. */
const char *cvm_vm_npy_descr(cvm_elem elem);

/*
 * Reads a whole regular file into memory from `fn` (NULL: the default
 * allocator), with one spare zero byte after the data (the block is
 * *out_size + 1 bytes). CVM_IO errors name the path and the reason.
 * Shared by the .npy reader and the module loader.
 */
cvm_status cvm_vm_file_read(const char *path, cvm_alloc_fn fn, void *user, uint8_t **out,
                            size_t *out_size, cvm_diag *diag);

#endif /* CVM_VM_NPY_H */
