/*
 * test_cuda_debug.c - the debug info the CUDA frontend puts in a .cbc,
 * seen through the public API: the source line of a fault
 * (diag.fault.file/line) and the .cbs text of cvm_disassemble (.file,
 * .loc per statement, .inline frames with the call site, .var for named
 * locals and parameters).
 *
 * The kernel is written out below with its line numbers in comments; the
 * expected lines are those numbers, not anything read from the compiler.
 */
#include "kern.h"

#include <stdlib.h>

static const char src[] =
    "__device__ float twice(float x)\n"     /* 1 */
    "{\n"                                   /* 2 */
    "    float y = x * 2.0f;\n"             /* 3 */
    "    return y;\n"                       /* 4 */
    "}\n"                                   /* 5 */
    "\n"                                    /* 6 */
    "__global__ void k(float *out, const float *in, int n)\n" /* 7 */
    "{\n"                                   /* 8 */
    "    int i = threadIdx.x;\n"            /* 9 */
    "    float v = in[i];\n"                /* 10 */
    "    float w = twice(v);\n"             /* 11 */
    "    out[i + n] = w;\n"                 /* 12: faults when i + n is past the end */
    "}\n";                                  /* 13 */

/* Whether some line of text starts (after indentation) with prefix. */
static const char *find_line(const char *text, const char *prefix)
{
    size_t k = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, prefix, k) == 0)
            return q;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

static void check_disasm(const void *bytes, size_t size)
{
    char *text = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_disassemble(bytes, size, &text, &d) != CVM_OK) {
        ok(0, "disassemble: %s", d.message);
        return;
    }
    ok(find_line(text, ".file 0 \"dbg.cu\"") != NULL, ".file names the source");
    /* a .loc for every statement line, callee lines included */
    static const int stmt_lines[] = {3, 4, 9, 10, 11, 12};
    for (size_t i = 0; i < sizeof stmt_lines / sizeof stmt_lines[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, ".loc 0 %d ", stmt_lines[i]);
        ok(find_line(text, want) != NULL, ".loc for the statement on line %d", stmt_lines[i]);
    }
    ok(find_line(text, ".loc 0 6 ") == NULL, "no .loc for the blank line 6");
    const char *inl = find_line(text, ".inline twice 0 11 ");
    ok(inl != NULL, ".inline twice with the call site's line 11");
    const char *end = inl ? strstr(inl, ".endinline") : NULL;
    const char *callee = inl ? strstr(inl, ".loc 0 3 ") : NULL;
    ok(end && callee && callee < end, "the callee's line 3 lies inside the inline frame");
    const char *after = end ? strstr(end, ".loc 0 12 ") : NULL;
    ok(after != NULL, "line 12 follows the inline frame");
    static const char *const vars[] = {"out", "in", "n", "i", "v", "w", "y"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, ".var %s ", vars[i]);
        ok(find_line(text, want) != NULL, ".var for '%s'", vars[i]);
    }
    const char *y = find_line(text, ".var y ");
    ok(y && inl && end && y > inl && y < end, "the callee's local 'y' is declared inside the inline frame");
    ok(find_line(text, ".scope") != NULL && find_line(text, ".endscope") != NULL,
       "lexical scopes are recorded");
    cvm_free_bytes(text);
}

static void check_fault(const void *bytes, size_t size)
{
    cvm_module *mod = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_module_load(kern_dev, bytes, size, &mod, &d) != CVM_OK) {
        ok(0, "load: %s", d.message);
        return;
    }
    float in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    cvm_buffer *out = kern_buf("out", sizeof in, NULL);
    cvm_buffer *inb = kern_buf("in", sizeof in, in);
    const cvm_kernel *k = NULL;
    int32_t n = 4; /* units 4..7 store past out[7] */
    cvm_launch_config cfg = kern_cfg(1, 8);
    cvm_status st = CVM_INTERNAL;
    if (out && inb && cvm_kernel_get(mod, "k", &k, &d) == CVM_OK) {
        cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(inb), kern_arg_bytes(&n, 4)};
        st = cvm_launch(kern_stream(), k, &cfg, args, 3, &d);
        if (st == CVM_OK)
            st = cvm_stream_sync(kern_stream(), &d);
    }
    ok(st == CVM_FAULT && d.has_fault, "the out-of-bounds store faults (%s: %s)",
       cvm_status_str(st), d.message);
    is_str(d.has_fault ? d.fault.file : "", "dbg.cu", "fault record names the source file");
    is_int(d.has_fault ? d.fault.line : 0, 12, "fault record names the store's line");
    if (out)
        cvm_buffer_free(out);
    if (inb)
        cvm_buffer_free(inb);
    cvm_module_free(mod);
}

int main(void)
{
    if (!kern_open()) {
        printf("Bail out! no cpu device\n");
        return 1;
    }
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_compile_cuda(src, strlen(src), "dbg.cu", NULL, &bytes, &size, &d) != CVM_OK) {
        ok(0, "compile: %s", d.message);
    } else {
        ok(1, "compiled dbg.cu (%zu bytes)", size);
        check_disasm(bytes, size);
        check_fault(bytes, size);
        cvm_free_bytes(bytes);
    }
    kern_close();
    return done_testing();
}
