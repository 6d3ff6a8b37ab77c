/*
 * test_debugger.c - the debugging API (cvm_launch_debug, cvm_debug_*): a
 * hook that records what it is shown at every instruction of a known
 * kernel, checked against values worked out here from the launch's shape
 * and the input data (i = cube * 48 + plane * 32 + lane; v = in[i]); the
 * hook's order (cubes in order, each plane's steps counting up), inlined
 * frames and scoped variables at the source lines numbered below, memory
 * reads with their bounds, a fault reported to the hook, ending a launch
 * from the hook, barriers under the hook, and the refusals.
 */
#include "kern.h"

#include <stdlib.h>

static const char src[] =
    "__device__ float twice(float x)\n"                        /* 1 */
    "{\n"                                                      /* 2 */
    "    float t = x * 2.0f;\n"                                /* 3 */
    "    return t;\n"                                          /* 4 */
    "}\n"                                                      /* 5 */
    "__global__ void k(float *out, const float *in, int n)\n" /* 6 */
    "{\n"                                                      /* 7 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"     /* 8 */
    "    if (i < n) {\n"                                       /* 9 */
    "        float v = in[i];\n"                               /* 10 */
    "        float w = twice(v);\n"                            /* 11 */
    "        out[i] = w;\n"                                    /* 12 */
    "    }\n"                                                  /* 13 */
    "}\n"                                                      /* 14 */
    "__global__ void rev(int *out)\n"                          /* 15 */
    "{\n"                                                      /* 16 */
    "    __shared__ int s[64];\n"                              /* 17 */
    "    int t = threadIdx.x;\n"                               /* 18 */
    "    s[t] = t * 3;\n"                                      /* 19 */
    "    __syncthreads();\n"                                   /* 20 */
    "    out[t] = s[63 - t];\n"                                /* 21 */
    "}\n";                                                     /* 22 */

#define N 96   /* elements of in and out */
#define BLOCK 48
#define GRID 2

typedef struct rec {
    const cvm_kernel *k;
    const float *in;
    int n;
    unsigned calls, faults;
    uint32_t last_cube, last_plane;
    uint64_t last_steps[4];
    int order_bad, steps_bad;
    /* at the first instruction of line 11 (v is live), per (cube, plane) */
    unsigned seen11;
    uint64_t mask11[GRID][2];
    int v_bad, i_bad, mem_bad, ptr_bad;
    /* inside twice() (line 3) */
    int frames_ok, frame_checked;
    int var_t_ok;
    /* ending the launch */
    unsigned stop_after;
    /* the fault */
    char fault[320];
    uint32_t fault_line;
} rec;

static uint32_t line_of(const cvm_kernel *k, uint32_t pc)
{
    uint32_t line = 0;
    if (cvm_debug_line(k, pc, NULL, &line, NULL) != CVM_OK)
        return 0;
    return line;
}

static int find_var(const cvm_kernel *k, uint32_t pc, const char *name, cvm_debug_var *out)
{
    for (uint32_t i = 0; cvm_debug_var_at(k, pc, i, out) == CVM_OK; i++)
        if (!strcmp(out->name, name))
            return 1;
    return 0;
}

static int hook(void *user, const cvm_debug_where *w, const cvm_debug_stop *at)
{
    rec *r = user;
    r->calls++;
    if (w->event == CVM_DEBUG_FAULT) {
        r->faults++;
        snprintf(r->fault, sizeof r->fault, "%s", w->fault ? w->fault : "");
        r->fault_line = line_of(r->k, w->pc);
        return 0;
    }
    /* cubes in order; within a cube, a plane's steps count up by one per call */
    uint32_t cube = w->cube[0];
    if (cube < r->last_cube)
        r->order_bad++;
    if (cube != r->last_cube)
        memset(r->last_steps, 0, sizeof r->last_steps);
    if (w->plane < 4) {
        if (w->steps != r->last_steps[w->plane])
            r->steps_bad++;
        r->last_steps[w->plane] = w->steps + 1;
    }
    r->last_cube = cube;
    uint32_t line = line_of(r->k, w->pc);
    uint32_t prev = w->pc ? line_of(r->k, w->pc - 1) : 0;
    if (line == 11 && prev == 10 && cube < GRID && w->plane < 2) { /* the call, not its return */
        r->seen11++;
        r->mask11[cube][w->plane] = w->active;
        cvm_debug_var v, iv;
        if (!find_var(r->k, w->pc, "v", &v) || !find_var(r->k, w->pc, "i", &iv)) {
            r->v_bad++;
        } else {
            for (uint32_t l = 0; l < w->lanes; l++) {
                if (!(w->active >> l & 1))
                    continue;
                int want_i = (int)(cube * BLOCK + w->plane * 32 + l);
                uint64_t bits = 0, ibits = 0;
                cvm_debug_read_reg(at, UINT32_MAX, v.reg, 0, l, &bits);
                cvm_debug_read_reg(at, UINT32_MAX, iv.reg, 0, l, &ibits);
                float got;
                uint32_t b32 = (uint32_t)bits;
                memcpy(&got, &b32, 4);
                r->v_bad += got != r->in[want_i];
                r->i_bad += (int)(int32_t)ibits != want_i;
            }
        }
        /* the `in` pointer, its element i, and the byte past its end */
        cvm_debug_var inv;
        if (find_var(r->k, w->pc, "in", &inv) && w->active) {
            uint32_t l = (uint32_t)__builtin_ctzll(w->active);
            uint64_t p = 0;
            float x = 0;
            cvm_debug_read_reg(at, UINT32_MAX, inv.reg, 0, l, &p);
            uint32_t want_i = cube * BLOCK + w->plane * 32 + l;
            r->mem_bad += cvm_debug_read_mem(at, UINT32_MAX, l, CVM_DEBUG_GLOBAL, p + 4 * want_i, &x, 4) != CVM_OK ||
                          x != r->in[want_i];
            r->mem_bad += cvm_debug_read_mem(at, UINT32_MAX, l, CVM_DEBUG_GLOBAL, p + 4 * (N - 1), &x, 8) !=
                          CVM_INVALID_ARGUMENT;
            char text[128];
            cvm_debug_ptr_text(at, CVM_DEBUG_GLOBAL, p + 8, text, sizeof text);
            r->ptr_bad += strcmp(text, "buffer 'in' + 8") != 0;
            /* `in`'s pointer moved onto `out`'s memory (the bits above 48 are the
             * buffer's tag, vm/exec.h; ptr.add keeps them): checked mode faults
             * there, and the debugger reads nothing either */
            cvm_debug_var ov;
            uint64_t po = 0;
            const uint64_t addr = (UINT64_C(1) << 48) - 1;
            if (find_var(r->k, w->pc, "out", &ov) &&
                cvm_debug_read_reg(at, UINT32_MAX, ov.reg, 0, l, &po) == CVM_OK) {
                uint64_t cross = (p & ~addr) | (po & addr);
                r->mem_bad += cvm_debug_read_mem(at, UINT32_MAX, l, CVM_DEBUG_GLOBAL, cross, &x, 4) !=
                              CVM_INVALID_ARGUMENT;
                r->mem_bad += cvm_debug_read_mem(at, UINT32_MAX, l, CVM_DEBUG_GLOBAL, po, &x, 4) != CVM_OK;
                cvm_debug_ptr_text(at, CVM_DEBUG_GLOBAL, cross, text, sizeof text);
                r->ptr_bad += strncmp(text, "buffer 'in' ", 12) != 0 || !strstr(text, "(past its 384 bytes)") ==
                              !strstr(text, "(before its start)");
            } else {
                r->mem_bad++;
            }
        } else {
            r->mem_bad++;
        }
    }
    if (line == 4 && !r->frame_checked) {
        r->frame_checked = 1;
        cvm_debug_frame f;
        r->frames_ok = cvm_debug_frame_at(r->k, w->pc, 0, &f) == CVM_OK && !strcmp(f.function, "twice") &&
                       f.line == 11 && cvm_debug_frame_at(r->k, w->pc, 1, &f) == CVM_NOT_FOUND;
        cvm_debug_var t;
        uint64_t bits = 0;
        float got = 0;
        if (find_var(r->k, w->pc, "t", &t) && t.frame == 1 && w->active &&
            cvm_debug_read_reg(at, UINT32_MAX, t.reg, 0, 0, &bits) == CVM_OK) {
            uint32_t b32 = (uint32_t)bits;
            memcpy(&got, &b32, 4);
            r->var_t_ok = got == 2.0f * r->in[cube * BLOCK + w->plane * 32];
        }
    }
    return r->stop_after && r->calls >= r->stop_after;
}

static cvm_status launch(cvm_module *mod, const char *name, cvm_buffer *out, cvm_buffer *in, int n,
                         rec *r, cvm_diag *d)
{
    const cvm_kernel *k = NULL;
    cvm_status st = cvm_kernel_get(mod, name, &k, d);
    if (st)
        return st;
    r->k = k;
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in), kern_arg_bytes(&n, 4)};
    st = cvm_launch_debug(kern_stream(), k, &cfg, args, 3, hook, r, d);
    return st ? st : cvm_stream_sync(kern_stream(), d);
}

static void test_whole_run(cvm_module *mod, const float *in)
{
    cvm_buffer *ob = kern_buf("out", N * 4, NULL), *ib = kern_buf("in", N * 4, in);
    rec r = {.in = in, .n = 80};
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = launch(mod, "k", ob, ib, 80, &r, &d);
    is_int(st, CVM_OK, "a launch under a hook that lets it go on completes (%s)", d.message);
    ok(r.calls > 0 && !r.order_bad, "cubes come to the hook in order (%u calls)", r.calls);
    is_int(r.steps_bad, 0, "each plane's step count goes up by one per call");
    /* cube 0: planes 0 (32 lanes) and 1 (16) have i < 80; cube 1: plane 0 (i = 48..79) does,
     * plane 1 (i = 80..95) skips the if and never reaches line 11 */
    is_int(r.seen11, 3, "three planes reach line 11");
    ok(r.mask11[0][0] == 0xffffffffu && r.mask11[0][1] == 0xffffu && r.mask11[1][0] == 0xffffffffu &&
           r.mask11[1][1] == 0,
       "their active masks: 32, 16 and 32 lanes; none for i >= 80");
    is_int(r.v_bad, 0, "v is in[i] in every active lane");
    is_int(r.i_bad, 0, "i is cube * 48 + plane * 32 + lane in every active lane");
    is_int(r.mem_bad, 0, "in[i] read through the pointer; a read past the buffer, or through in's "
           "pointer into out's memory, is refused");
    is_int(r.ptr_bad, 0, "a pointer's text names its buffer and offset");
    ok(r.frames_ok, "inside twice(): one inlined frame, called from line 11");
    ok(r.var_t_ok, "twice()'s local t is 2 * v, attributed to the inlined frame");
    float got[N];
    int bad = 0;
    kern_read(ob, got, sizeof got);
    for (int i = 0; i < N; i++)
        bad += got[i] != (i < 80 ? 2.0f * in[i] : 0.0f);
    is_int(bad, 0, "the results are those of an unhooked launch");
    cvm_buffer_free(ob);
    cvm_buffer_free(ib);
}

static void test_end_and_fault(cvm_module *mod, const float *in)
{
    cvm_buffer *ob = kern_buf("out", N * 4, NULL), *ib = kern_buf("in", N * 4, in);
    rec r = {.in = in, .stop_after = 10};
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = launch(mod, "k", ob, ib, 80, &r, &d);
    is_int(st, CVM_CANCELED, "a nonzero hook return ends the launch: CVM_CANCELED");
    is_int(r.calls, 10, "the hook is not called again after it ends the launch");
    float got[N];
    kern_read(ob, got, sizeof got);
    ok(got[0] == 0.0f, "no store ran (10 instructions in)");
    /* the stream goes on: a plain launch after it */
    const cvm_kernel *k = NULL;
    int n = 80;
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_arg args[] = {kern_arg_buf(ob), kern_arg_buf(ib), kern_arg_bytes(&n, 4)};
    st = cvm_kernel_get(mod, "k", &k, &d);
    if (!st)
        st = cvm_launch(kern_stream(), k, &cfg, args, 3, &d);
    if (!st)
        st = cvm_stream_sync(kern_stream(), &d);
    kern_read(ob, got, sizeof got);
    ok(st == CVM_OK && got[79] == 2.0f * in[79], "a plain launch after an ended one runs");

    /* n = 96 with `out` of 80 elements: i = 80..95 store past its end */
    cvm_buffer *small = kern_buf("out", 80 * 4, NULL);
    rec f = {.in = in};
    memset(&d, 0, sizeof d);
    st = launch(mod, "k", small, ib, 96, &f, &d);
    is_int(st, CVM_FAULT, "the out-of-bounds store faults under the hook too");
    is_int(f.faults, 1, "the hook hears of the fault once");
    ok(strstr(f.fault, "out-of-bounds store") != NULL, "with its message (%s)", f.fault);
    is_int(f.fault_line, 12, "at the store's line");
    cvm_buffer_free(small);
    cvm_buffer_free(ob);
    cvm_buffer_free(ib);
}

static int nop_hook(void *user, const cvm_debug_where *w, const cvm_debug_stop *at)
{
    unsigned *waits = user;
    cvm_debug_plane_info info;
    /* while one plane runs, the other may wait at the barrier */
    for (uint32_t p = 0; p < w->planes; p++)
        if (cvm_debug_plane(at, p, &info) == CVM_OK && info.state == CVM_DEBUG_WAITING)
            (*waits)++;
    return cvm_debug_plane(at, w->planes, &info) != CVM_INVALID_ARGUMENT;
}

static void test_barrier(cvm_module *mod)
{
    cvm_buffer *ob = kern_buf("out", 64 * 4, NULL);
    const cvm_kernel *k = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    unsigned waits = 0;
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_arg args[] = {kern_arg_buf(ob)};
    cvm_status st = cvm_kernel_get(mod, "rev", &k, &d);
    if (!st)
        st = cvm_launch_debug(kern_stream(), k, &cfg, args, 1, nop_hook, &waits, &d);
    if (!st)
        st = cvm_stream_sync(kern_stream(), &d);
    is_int(st, CVM_OK, "a shared-memory reversal with __syncthreads under a hook (%s)", d.message);
    int got[64], bad = 0;
    kern_read(ob, got, sizeof got);
    for (int t = 0; t < 64; t++)
        bad += got[t] != (63 - t) * 3;
    is_int(bad, 0, "out[t] = 3 * (63 - t)");
    ok(waits > 0, "the hook saw a plane waiting at the barrier (%u times)", waits);
    cvm_buffer_free(ob);
}

static void test_static(cvm_module *mod)
{
    const cvm_kernel *k = NULL;
    cvm_kernel_get(mod, "k", &k, NULL);
    char text[128];
    ok(cvm_debug_insn_text(k, 0, text, sizeof text) == CVM_OK &&
           !strcmp(text, "param.ptr.global %r0, out, 0"),
       "instruction 0 as text: %s", text);
    uint32_t n = cvm_debug_code_size(k);
    is_int(cvm_debug_insn_text(k, n, text, sizeof text), CVM_NOT_FOUND, "no instruction past the end");
    cvm_debug_type t;
    ok(cvm_debug_reg_type(k, 0, &t) == CVM_OK && t.elem == 0 && t.space == CVM_DEBUG_GLOBAL &&
           t.line == 1,
       "%%r0 (out) is a global pointer");
    is_int(cvm_debug_reg_type(k, cvm_debug_reg_count(k), &t), CVM_NOT_FOUND, "no register past the last");
    const char *file = NULL;
    uint32_t line = 0;
    ok(cvm_debug_line(k, n - 1, &file, &line, NULL) == CVM_OK && !strcmp(file, "dbg.cu"),
       "lines name the file");
    cvm_debug_var v;
    ok(cvm_debug_var_at(k, 0, 0, &v) == CVM_NOT_FOUND || strcmp(v.name, "i") != 0,
       "i is not in scope before its declaration");
    /* the refusals */
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_launch_config cfg = kern_cfg(1, 1);
    is_int(cvm_launch_debug(kern_stream(), k, &cfg, NULL, 0, NULL, NULL, &d), CVM_INVALID_ARGUMENT,
           "no hook: CVM_INVALID_ARGUMENT");
    cfg.timeout_s = -1;
    is_int(cvm_launch_debug(kern_stream(), k, &cfg, NULL, 0, nop_hook, NULL, &d),
           CVM_INVALID_ARGUMENT, "a negative timeout: CVM_INVALID_ARGUMENT");
    cfg.timeout_s = 0;
    is_int(cvm_launch_debug(kern_stream(), k, &cfg, NULL, 0, nop_hook, NULL, &d), CVM_TYPE_MISMATCH,
           "missing arguments are checked as cvm_launch checks them");
    uint64_t bits;
    is_int(cvm_debug_read_reg(NULL, 0, 0, 0, 0, &bits), CVM_INVALID_ARGUMENT, "no stop: nothing to read");
    /* parameters: the kernel's, and at -O0 twice()'s x; i and t are none */
    uint32_t in_twice = UINT32_MAX;
    for (uint32_t pc = 0; pc < n && in_twice == UINT32_MAX; pc++)
        if (cvm_debug_line(k, pc, NULL, &line, NULL) == CVM_OK && line == 4)
            in_twice = pc;
    int kparams = 0, x_param = 0, t_local = 0, i_seen = 0;
    for (uint32_t i = 0; cvm_debug_var_at(k, in_twice, i, &v) == CVM_OK; i++) {
        kparams += v.param && v.frame == 0 && (!strcmp(v.name, "out") || !strcmp(v.name, "in") ||
                                               !strcmp(v.name, "n"));
        x_param += !strcmp(v.name, "x") && v.param && v.frame == 1;
        t_local += !strcmp(v.name, "t") && !v.param && v.frame == 1;
        i_seen += !strcmp(v.name, "i") && !v.param && v.frame == 0;
    }
    ok(kparams == 3 && t_local == 1 && i_seen == 1, "at line 4: out, in, n are the kernel's parameters; i "
       "its local; t twice()'s local");
    cvm_module *m0 = NULL;
    void *b0 = NULL;
    size_t s0 = 0;
    cvm_compile_options o0;
    memset(&o0, 0, sizeof o0);
    o0.no_opt = 1;
    const cvm_kernel *k0 = NULL;
    int x0 = 0;
    if (cvm_compile_cuda(src, strlen(src), "dbg.cu", &o0, &b0, &s0, &d) == CVM_OK &&
        cvm_module_load(kern_dev, b0, s0, &m0, &d) == CVM_OK && cvm_kernel_get(m0, "k", &k0, &d) == CVM_OK) {
        uint32_t n0 = cvm_debug_code_size(k0), pc4 = UINT32_MAX;
        for (uint32_t pc = 0; pc < n0 && pc4 == UINT32_MAX; pc++)
            if (cvm_debug_line(k0, pc, NULL, &line, NULL) == CVM_OK && line == 4)
                pc4 = pc;
        for (uint32_t i = 0; cvm_debug_var_at(k0, pc4, i, &v) == CVM_OK; i++)
            x0 += !strcmp(v.name, "x") && v.param && v.frame == 1;
    }
    ok(x0 == 1 && x_param == 0, "twice()'s parameter x is named at -O0 (a parameter of frame 1), not at -O1");
    cvm_module_free(m0);
    cvm_free_bytes(b0);
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
    cvm_module *mod = NULL;
    if (cvm_compile_cuda(src, strlen(src), "dbg.cu", NULL, &bytes, &size, &d) != CVM_OK ||
        cvm_module_load(kern_dev, bytes, size, &mod, &d) != CVM_OK) {
        ok(0, "compile and load: %s", d.message);
        return done_testing();
    }
    float in[N];
    for (int i = 0; i < N; i++)
        in[i] = 0.25f * (float)i - 7.0f;
    test_whole_run(mod, in);
    test_end_and_fault(mod, in);
    test_barrier(mod);
    test_static(mod);
    cvm_module_free(mod);
    cvm_free_bytes(bytes);
    kern_close();
    return done_testing();
}
