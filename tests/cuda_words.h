/*
 * cuda_words.h - the harness of the CUDA language tests (test_cuda_lang.c,
 * test_cuda_inherit.c): compile a kernel k(out, in) with
 * cvm_compile_cuda, run one block of it on the cpu device over the
 * includer's IN words, compare the first output words with expected ones
 * (one TAP line), or check that compiling fails with a given message.
 * The includer defines NOUT (output words) and IN[16] first.
 */
#ifndef CVM_TEST_CUDA_WORDS_H
#define CVM_TEST_CUDA_WORDS_H

#include "kern.h"

static cvm_module *compile_load(const char *src, const char *what, int fmad)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_compile_options o;
    memset(&o, 0, sizeof o);
    o.fmad = fmad;
    if (cvm_compile_cuda(src, strlen(src), what, &o, &bytes, &size, &d) != CVM_OK) {
        diag("%s: compile: %s", what, d.message);
        return NULL;
    }
    if (cvm_module_load(kern_dev, bytes, size, &mod, &d) != CVM_OK)
        diag("%s: load: %s", what, d.message);
    cvm_free_bytes(bytes);
    return mod;
}

/* Runs k(out, in) of src with one block of `block` units; out: NOUT words. */
static int run_k(const char *what, const char *src, uint32_t block, int fmad, void *out_words)
{
    int good = 0;
    cvm_module *mod = compile_load(src, what, fmad);
    cvm_buffer *out = kern_buf("out", NOUT * 4, NULL);
    cvm_buffer *in = kern_buf("in", sizeof IN, IN);
    if (mod && out && in) {
        cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in)};
        const cvm_kernel *k = NULL;
        cvm_launch_config cfg = kern_cfg(1, block);
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_kernel_get(mod, "k", &k, &d);
        if (st == CVM_OK)
            st = cvm_launch(kern_stream(), k, &cfg, args, 2, &d);
        if (st == CVM_OK)
            st = cvm_stream_sync(kern_stream(), &d);
        if (st != CVM_OK)
            diag("%s: launch: %s: %s", what, cvm_status_str(st), d.message);
        else
            good = kern_read(out, out_words, NOUT * 4);
    }
    if (out)
        cvm_buffer_free(out);
    if (in)
        cvm_buffer_free(in);
    if (mod)
        cvm_module_free(mod);
    return good;
}

/* One TAP line: the first n output words equal want[]. */
static void words_are(const char *what, const char *src, uint32_t block, int fmad, const int32_t *want, int n)
{
    int32_t got[NOUT];
    memset(got, 0, sizeof got);
    int good = run_k(what, src, block, fmad, got);
    for (int i = 0; good && i < n; i++)
        if (got[i] != want[i]) {
            diag("%s: out[%d] = %d (0x%x), want %d (0x%x)", what, i, got[i], (unsigned)got[i], want[i],
                 (unsigned)want[i]);
            good = 0;
        }
    ok(good, "%s", what);
}

/* One TAP line: compiling src fails with a message containing `want`. */
static void rejects(const char *what, const char *src, const char *want)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_compile_cuda(src, strlen(src), "bad.cu", NULL, &bytes, &size, &d);
    if (st == CVM_OK)
        cvm_free_bytes(bytes);
    int good = st != CVM_OK && strstr(d.message, want) != NULL;
    if (!good)
        diag("%s: status %s, message '%s'", what, cvm_status_str(st), d.message);
    ok(good, "%s", what);
}

#endif
