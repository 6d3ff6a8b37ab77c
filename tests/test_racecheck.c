/*
 * test_racecheck.c - the race checker (cvm_launch_config.racecheck; vm/race.c):
 * kernels with one known race each, and where it is worked out here by
 * hand from the kernel's text and the checker's rules (which access, by
 * which unit, at which line, against which earlier one), and correct
 * kernels that must run clean with the results a C reference computes:
 * barriers, exited units, plane ops, shared atomics, a message passed
 * with fences and relaxed atomics, named barriers, races in global
 * memory and in one instruction, idempotent stores, later cubes, the
 * step debugger seeing a race as a fault, the checker's memory going back
 * after the launch, and the refusal with unchecked (the vulkan device's is
 * in tests/test_vulkan.c, which Valgrind does not run).
 *
 * The cpu device runs a cube's planes in order, each until it waits, so
 * in these kernels plane 0 runs its accesses before plane 1's; the race
 * reported is the first conflicting access met in that order, at the
 * lowest unit that meets one.
 */
#include "kern.h"

#include <stdio.h>
#include <stdlib.h>

static const char src[] =
    "__global__ void no_sync(int *out)\n"                            /* 1 */
    "{\n"                                                            /* 2 */
    "    __shared__ int s[64];\n"                                    /* 3 */
    "    int t = threadIdx.x;\n"                                     /* 4 */
    "    s[t] = t + 1;\n"                                            /* 5 */
    "    out[t] = s[(t + 1) % 64];\n"                                /* 6 */
    "}\n"                                                            /* 7 */
    "__global__ void synced(int *out)\n"                             /* 8 */
    "{\n"                                                            /* 9 */
    "    __shared__ int s[64];\n"                                    /* 10 */
    "    int t = threadIdx.x;\n"                                     /* 11 */
    "    s[t] = t + 1;\n"                                            /* 12 */
    "    __syncthreads();\n"                                         /* 13 */
    "    out[t] = s[(t + 1) % 64];\n"                                /* 14 */
    "}\n"                                                            /* 15 */
    "__global__ void war(int *out)\n"                                /* 16 */
    "{\n"                                                            /* 17 */
    "    __shared__ int s[64];\n"                                    /* 18 */
    "    int t = threadIdx.x;\n"                                     /* 19 */
    "    s[t] = t + 1;\n"                                            /* 20 */
    "    __syncthreads();\n"                                         /* 21 */
    "    int v = s[(t + 1) % 64];\n"                                 /* 22 */
    "    s[t] = v;\n"                                                /* 23 */
    "    out[t] = v;\n"                                              /* 24 */
    "}\n"                                                            /* 25 */
    "__global__ void warp_exchange(int *out, int sync)\n"            /* 26 */
    "{\n"                                                            /* 27 */
    "    __shared__ int s[32];\n"                                    /* 28 */
    "    int t = threadIdx.x;\n"                                     /* 29 */
    "    s[t] = t * 7;\n"                                            /* 30 */
    "    if (sync == 1) __syncwarp();\n"                             /* 31 */
    "    if (sync == 2) t = __shfl_sync(0xffffffffu, t, t);\n"      /* 32 */
    "    out[t] = s[31 - t];\n"                                      /* 33 */
    "}\n"                                                            /* 34 */
    "__global__ void same_store(int *out)\n"                         /* 35 */
    "{\n"                                                            /* 36 */
    "    __shared__ int s[1];\n"                                     /* 37 */
    "    s[0] = threadIdx.x;\n"                                      /* 38 */
    "    __syncthreads();\n"                                         /* 39 */
    "    out[threadIdx.x] = s[0];\n"                                 /* 40 */
    "}\n"                                                            /* 41 */
    "__global__ void same_value(int *out)\n"                         /* 42 */
    "{\n"                                                            /* 43 */
    "    __shared__ int flag;\n"                                     /* 44 */
    "    flag = 1;\n"                                                /* 45 */
    "    __syncthreads();\n"                                         /* 46 */
    "    out[threadIdx.x] = flag;\n"                                 /* 47 */
    "}\n"                                                            /* 48 */
    "__global__ void exited(int *out)\n"                             /* 49 */
    "{\n"                                                            /* 50 */
    "    __shared__ int s[32];\n"                                    /* 51 */
    "    int t = threadIdx.x;\n"                                     /* 52 */
    "    if (t >= 32) {\n"                                           /* 53 */
    "        out[t] = s[t - 32];\n"                                  /* 54 */
    "        return;\n"                                              /* 55 */
    "    }\n"                                                        /* 56 */
    "    s[t] = t + 1;\n"                                            /* 57 */
    "    __syncthreads();\n"                                         /* 58 */
    "    out[t] = s[t];\n"                                           /* 59 */
    "}\n"                                                            /* 60 */
    "__global__ void exited_after_store(int *out)\n"                 /* 61 */
    "{\n"                                                            /* 62 */
    "    __shared__ int s[64];\n"                                    /* 63 */
    "    int t = threadIdx.x;\n"                                     /* 64 */
    "    s[t] = t + 1;\n"                                            /* 65 */
    "    if (t >= 32) return;\n"                                     /* 66 */
    "    __syncthreads();\n"                                         /* 67 */
    "    out[t] = s[t + 32];\n"                                      /* 68 */
    "}\n"                                                            /* 69 */
    "__global__ void reduce(int *out, const int *in, int bug)\n"     /* 70 */
    "{\n"                                                            /* 71 */
    "    __shared__ int s[256];\n"                                   /* 72 */
    "    int t = threadIdx.x;\n"                                     /* 73 */
    "    s[t] = in[blockIdx.x * 256 + t];\n"                         /* 74 */
    "    __syncthreads();\n"                                         /* 75 */
    "    for (int k = 128; k > 0; k >>= 1) {\n"                      /* 76 */
    "        if (t < k)\n"                                           /* 77 */
    "            s[t] += s[t + k];\n"                                /* 78 */
    "        if (!bug || k > 32 || blockIdx.x != 2) __syncthreads();\n" /* 79 */
    "    }\n"                                                        /* 80 */
    "    if (t == 0)\n"                                              /* 81 */
    "        out[blockIdx.x] = s[0];\n"                              /* 82 */
    "}\n"                                                            /* 83 */
    "__global__ void global_race(int *out)\n"                        /* 84 */
    "{\n"                                                            /* 85 */
    "    int t = threadIdx.x;\n"                                     /* 86 */
    "    if (t == 0) out[0] = 5;\n"                                  /* 87 */
    "    if (t == 32) out[1] = out[0];\n"                            /* 88 */
    "}\n"                                                            /* 89 */
    "__global__ void cubes_share(int *out)\n"                        /* 90 */
    "{\n"                                                            /* 91 */
    "    if (threadIdx.x == 0) out[0] = blockIdx.x + 1;\n"           /* 92 */
    "}\n"                                                            /* 93 */
    "__global__ void hist(int *out, const int *in, int plain)\n"     /* 94 */
    "{\n"                                                            /* 95 */
    "    __shared__ int bins[8];\n"                                  /* 96 */
    "    int t = threadIdx.x;\n"                                     /* 97 */
    "    if (t < 8) bins[t] = 0;\n"                                  /* 98 */
    "    __syncthreads();\n"                                         /* 99 */
    "    if (plain) bins[in[t] & 7] += 1;\n"                         /* 100 */
    "    else atomicAdd(&bins[in[t] & 7], 1);\n"                     /* 101 */
    "    __syncthreads();\n"                                         /* 102 */
    "    if (t < 8) out[t] = bins[t];\n"                             /* 103 */
    "}\n"                                                            /* 104 */
    "__global__ void message(int *out, int fenced)\n"                /* 105 */
    "{\n"                                                            /* 106 */
    "    __shared__ int data, flag;\n"                               /* 107 */
    "    int t = threadIdx.x;\n"                                     /* 108 */
    "    if (t == 0) {\n"                                            /* 109 */
    "        data = 42;\n"                                           /* 110 */
    "        if (fenced) __threadfence_block();\n"                   /* 111 */
    "        atomicExch(&flag, 1);\n"                                /* 112 */
    "    }\n"                                                        /* 113 */
    "    if (t == 32) {\n"                                           /* 114 */
    "        while (atomicAdd(&flag, 0) == 0) {}\n"                  /* 115 */
    "        if (fenced) __threadfence_block();\n"                   /* 116 */
    "        out[0] = data;\n"                                       /* 117 */
    "    }\n"                                                        /* 118 */
    "}\n"                                                            /* 119 */
    "__global__ void wide(long long *out)\n"                         /* 120 */
    "{\n"                                                            /* 121 */
    "    __shared__ long long s[1];\n"                               /* 122 */
    "    int t = threadIdx.x;\n"                                     /* 123 */
    "    if (t == 3) ((int *)s)[1] = 7;\n"                           /* 124 */
    "    if (t == 40) out[0] = s[0];\n"                              /* 125 */
    "}\n"                                                            /* 126 */
    "__global__ void atomics_then_plain(int *out)\n"                 /* 127 */
    "{\n"                                                            /* 128 */
    "    __shared__ int c;\n"                                        /* 129 */
    "    int t = threadIdx.x;\n"                                     /* 130 */
    "    if (t == 0) c = 5;\n"                                       /* 131 */
    "    __syncthreads();\n"                                         /* 132 */
    "    if (t == 0 || t == 32) atomicAdd(&c, 1);\n"                 /* 133 */
    "    if (t == 32) out[0] = c;\n"                                 /* 134 */
    "}\n"                                                            /* 135 */
    "__global__ void load_then_atomic(int *out)\n"                   /* 136 */
    "{\n"                                                            /* 137 */
    "    __shared__ int c;\n"                                        /* 138 */
    "    int t = threadIdx.x;\n"                                     /* 139 */
    "    if (t == 0) c = 5;\n"                                       /* 140 */
    "    __syncthreads();\n"                                         /* 141 */
    "    if (t == 32) { out[0] = c; atomicAdd(&c, 1); }\n"           /* 142 */
    "    if (t == 64) atomicAdd(&c, 1);\n"                           /* 143 */
    "}\n"                                                            /* 144 */
    "__global__ void touch(int *out, const int *in)\n"               /* 145 */
    "{\n"                                                            /* 146 */
    "    int t = threadIdx.x, s = 0;\n"                              /* 147 */
    "    for (int i = 0; i < 64; i++) s += in[i * 1024 + t];\n"      /* 148 */
    "    out[t] = s;\n"                                              /* 149 */
    "}\n";                                                           /* 150 */

/* Plane 0 stores buf[lane] and arrives at barrier 1; plane 1 waits there
 * (bar.sync) and loads, or with `early` loads before it waits. */
static const char *const named_src[] = {
    ".kernel prodcons\n.param out buffer u32 write\n.param early scalar u32\n.shared 256\n"
    ".plane_width 32\n"
    ".reg u32 %lane, %plane, %c0, %c3, %id, %n, %v, %early\n.reg bool %p, %e\n"
    ".reg i64 %off, %four\n.reg ptr.shared %s\n.reg ptr.global %po\n",
    "    sreg.u32 %lane, unit_pos_plane\n    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n"
    "    const.u32 %c3, 3\n    const.u32 %id, 1\n    const.u32 %n, 64\n"
    "    param.u32 %early, early, 0\n    ne.u32 %e, %early, %c0\n"
    "    cvt.i64 %off, %lane\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    const.ptr.shared %s, 0\n    ptr.add.ptr.shared %s, %s, %off\n"
    "    eq.u32 %p, %plane, %c0\n",
    "    if %p\n"
    "        mul.u32 %v, %lane, %c3\n        add.u32 %v, %v, %id\n        st.u32 [%s], %v\n"
    "        bar.arrive %id, %n\n"
    "    else\n"
    "        if %e\n            ld.u32 %v, [%s]\n        end\n"
    "        bar.sync %id, %n\n        ld.u32 %v, [%s]\n"
    "        param.ptr.global %po, out, 0\n        ptr.add.ptr.global %po, %po, %off\n"
    "        st.u32 [%po], %v\n"
    "    end\n"
    "    return\n.end\n",
    NULL};

/* Plane 0 stores buf[lane] and exits; planes 1 and 2 meet at barrier 1
 * (64 units), then plane 1 loads buf[lane]: plane 0 took no part in it. */
static const char *const nonpart_src[] = {
    ".kernel nonpart\n.param out buffer u32 write\n.shared 128\n.plane_width 32\n"
    ".reg u32 %lane, %plane, %c0, %id, %n, %v\n.reg bool %p\n.reg i64 %off, %four\n"
    ".reg ptr.shared %s\n.reg ptr.global %po\n",
    "    sreg.u32 %lane, unit_pos_plane\n    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n"
    "    const.u32 %id, 1\n    const.u32 %n, 64\n    cvt.i64 %off, %lane\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    const.ptr.shared %s, 0\n    ptr.add.ptr.shared %s, %s, %off\n"
    "    eq.u32 %p, %plane, %c0\n",
    "    if %p\n        add.u32 %v, %lane, %id\n        st.u32 [%s], %v\n        return\n    end\n"
    "    bar.sync %id, %n\n    ld.u32 %v, [%s]\n    param.ptr.global %po, out, 0\n"
    "    ptr.add.ptr.global %po, %po, %off\n    st.u32 [%po], %v\n    return\n.end\n",
    NULL};

/* Lane 0 of plane 0 stores a 128-byte line (u64x16); lane 0 of plane 1 loads it. */
static const char wide_line_src[] =
    ".kernel wide_line\n.shared 256\n.plane_width 32\n.reg u32 %lane, %plane, %c0, %c1\n"
    ".reg bool %p0, %p1, %l0\n.reg u64x16 %v\n.reg u64 %one\n.reg ptr.shared %s\n"
    "    sreg.u32 %lane, unit_pos_plane\n    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n"
    "    const.u32 %c1, 1\n    const.ptr.shared %s, 0\n    const.u64 %one, 1\n"
    "    splat.u64x16 %v, %one\n    eq.u32 %l0, %lane, %c0\n    eq.u32 %p0, %plane, %c0\n"
    "    eq.u32 %p1, %plane, %c1\n    if %l0\n        if %p0\n            st.u64x16 [%s], %v\n"
    "        end\n        if %p1\n            ld.u64x16 %v, [%s]\n        end\n    end\n    return\n.end\n";

static cvm_module *mod;

/* A race check launch of kernel `name` (timeout 10 s), waited for. */
static cvm_status launch(cvm_module *m, const char *name, uint32_t grid, uint32_t block,
                         const cvm_arg *args, uint32_t nargs, int racecheck, cvm_diag *d)
{
    const cvm_kernel *k = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_kernel_get(m, name, &k, d);
    if (st)
        return st;
    cvm_launch_config cfg = kern_cfg(grid, block);
    cfg.racecheck = racecheck;
    st = cvm_launch(kern_stream(), k, &cfg, args, nargs, d);
    return st ? st : cvm_stream_sync(kern_stream(), d);
}

/* The fault is a race at unit (ux,0,0) of cube (cx,0,0) on `line`, whose
 * message holds each of the NULL-terminated texts. */
static void expect_race(const char *what, cvm_status st, const cvm_diag *d, uint32_t cx, uint32_t ux,
                        uint32_t line, const char *const *texts)
{
    int good = st == CVM_FAULT && d->has_fault && strstr(d->message, "data race on ") &&
               d->fault.cube[0] == cx && d->fault.unit[0] == ux && d->fault.unit[1] == 0 &&
               d->fault.line == line;
    for (int i = 0; good && texts[i]; i++)
        good = strstr(d->message, texts[i]) != NULL;
    ok(good, "%s: %s", what, d->message);
}

static void expect_clean(const char *what, cvm_status st, const cvm_diag *d, int good_result)
{
    ok(st == CVM_OK && good_result, "%s (%s%s%s)", what, cvm_status_str(st), st ? ": " : "",
       st ? d->message : "");
}

static void test_shared(void)
{
    cvm_buffer *b = kern_buf("out", 64 * 4, NULL);
    cvm_arg a[] = {kern_arg_buf(b), kern_arg_bytes(&(int){0}, 4)};
    cvm_diag d;
    int got[64];

    /* plane 0 stores s[0..31], then unit 0 loads s[1], which unit 1 stored
     * one instruction before, with nothing between */
    expect_race("a load of another lane's store with no barrier", launch(mod, "no_sync", 1, 64, a, 1, 1, &d),
                &d, 0, 0, 6, (const char *[]){"shared offset 4", "this load of 4 bytes", "a store by unit (1,0,0)",
                                              "(line 5)", NULL});
    cvm_status st = launch(mod, "no_sync", 1, 64, a, 1, 0, &d);
    ok(st == CVM_OK, "the same kernel without the check runs (%s)", cvm_status_str(st));

    st = launch(mod, "synced", 1, 64, a, 1, 1, &d);
    int good = kern_read(b, got, sizeof got);
    for (int t = 0; t < 64; t++)
        good &= got[t] == (t + 1) % 64 + 1;
    expect_clean("__syncthreads between the stores and the loads: no race, and the results", st, &d, good);

    /* after the barrier unit 0 loads s[1]; then unit 1 overwrites it */
    expect_race("a store over another lane's load (write after read)", launch(mod, "war", 1, 64, a, 1, 1, &d),
                &d, 0, 1, 23, (const char *[]){"shared offset 4", "this store of 4 bytes", "a load by unit (0,0,0)",
                                               "(line 22)", NULL});

    int sync = 0;
    cvm_arg w[] = {kern_arg_buf(b), kern_arg_bytes(&sync, 4)};
    /* lane 0 loads s[31], which lane 31 stored (217) one instruction before */
    expect_race("lanes of one plane exchanging through shared memory without __syncwarp",
                launch(mod, "warp_exchange", 1, 32, w, 2, 1, &d), &d, 0, 0, 33,
                (const char *[]){"shared offset 124", "a store by unit (31,0,0)", "(line 30)", NULL});
    for (sync = 1; sync <= 2; sync++) {
        st = launch(mod, "warp_exchange", 1, 32, w, 2, 1, &d);
        good = kern_read(b, got, 32 * 4);
        for (int t = 0; t < 32; t++)
            good &= got[t] == (31 - t) * 7;
        expect_clean(sync == 1 ? "with __syncwarp between: no race" :
                     "with a full-mask __shfl_sync between (a plane op orders its members): no race",
                     st, &d, good);
    }

    /* lane 0 stores 0 over 0 (no write), lane 1 stores 1, lane 2 stores 2 over it */
    expect_race("lanes storing different values to one word in one instruction",
                launch(mod, "same_store", 1, 32, a, 1, 1, &d), &d, 0, 2, 38,
                (const char *[]){"shared offset 0", "a store by unit (1,0,0) in the same instruction", NULL});
    st = launch(mod, "same_value", 1, 64, a, 1, 1, &d);
    good = kern_read(b, got, sizeof got);
    for (int t = 0; t < 64; t++)
        good &= got[t] == 1;
    expect_clean("every unit storing the same value (an idempotent flag) is no race", st, &d, good);

    /* plane 0 stores s[t] and waits; plane 1 loads s[0..31] and exits, and
     * its exit completes the barrier after the loads, not before */
    expect_race("a plane that exits instead of reaching the barrier is not ordered by it",
                launch(mod, "exited", 1, 64, a, 1, 1, &d), &d, 0, 32, 54,
                (const char *[]){"shared offset 0", "this load", "a store by unit (0,0,0)", "(line 57)", NULL});
    /* plane 1 stores s[32..63] and exits; plane 0 then passes the barrier
     * and loads s[32]: the exited units reached no barrier, so nothing
     * orders their stores (CUDA's __syncthreads orders the accesses of the
     * threads that reach it) */
    expect_race("stores of units that exit instead of reaching the barrier are not ordered by it",
                launch(mod, "exited_after_store", 1, 64, a, 1, 1, &d), &d, 0, 0, 68,
                (const char *[]){"shared offset 128", "this load", "a store by unit (32,0,0)", "(line 65)",
                                 NULL});
    /* unit 40 loads 8 bytes at offset 0; unit 3 stored bytes 4..7 */
    expect_race("a wide load racing on its upper half names the byte and where the load starts",
                launch(mod, "wide", 1, 64, a, 1, 1, &d), &d, 0, 40, 125,
                (const char *[]){"data race on shared offset 4: this load of 8 bytes at shared offset 0 "
                                 "and a store by unit (3,0,0)", "(line 124)", NULL});
    /* units 0 and 32 add atomically (no race between them); unit 32's plain
     * load is ordered after its own add, not after unit 0's */
    expect_race("a plain load after two atomic adds races with the one of another unit",
                launch(mod, "atomics_then_plain", 1, 64, a, 1, 1, &d), &d, 0, 32, 134,
                (const char *[]){"shared offset 0: this load of 4 bytes and an atomic by unit (0,0,0)",
                                 "(line 133)", NULL});
    /* unit 32 loads c, then adds to it; unit 64's add is ordered after
     * neither (unit 32's own atomic does not stand for its load) */
    expect_race("an atomic of one unit races with another unit's load that its own atomic followed",
                launch(mod, "load_then_atomic", 1, 96, a, 1, 1, &d), &d, 0, 64, 143,
                (const char *[]){"shared offset 0: this atomic of 4 bytes and a load by unit (32,0,0)",
                                 "(line 142)", NULL});
    cvm_buffer_free(b);
}

static void test_reduce(void)
{
    enum { CUBES = 5 };
    int in[CUBES * 256], want[CUBES], got[CUBES];
    uint32_t seed = 12345;
    for (int i = 0; i < CUBES * 256; i++) {
        seed = seed * 1103515245u + 12345u;
        in[i] = (int)(seed >> 16) % 1000 - 500;
    }
    for (int c = 0; c < CUBES; c++) {
        want[c] = 0;
        for (int i = 0; i < 256; i++)
            want[c] += in[c * 256 + i];
    }
    cvm_buffer *bo = kern_buf("out", sizeof got, NULL), *bi = kern_buf("in", sizeof in, in);
    int bug = 0;
    cvm_arg a[] = {kern_arg_buf(bo), kern_arg_buf(bi), kern_arg_bytes(&bug, 4)};
    cvm_diag d;
    cvm_status st = launch(mod, "reduce", CUBES, 256, a, 3, 1, &d);
    int good = kern_read(bo, got, sizeof got) && !memcmp(got, want, sizeof want);
    expect_clean("a tree reduction with __syncthreads at every step, 5 cubes of 256: no race, the sums", st,
                 &d, good);
    /* cube 2 skips the barrier after step 32: at step 16 unit 0 loads
     * s[16], which unit 16 stored at step 32 */
    bug = 1;
    expect_race("the same reduction with the barriers of the last steps missing in cube 2 only",
                launch(mod, "reduce", CUBES, 256, a, 3, 1, &d), &d, 2, 0, 78,
                (const char *[]){"shared offset 64", "this load", "a store by unit (16,0,0)", "(line 78)", NULL});
    cvm_buffer_free(bo);
    cvm_buffer_free(bi);
}

static void test_global_and_atomics(void)
{
    cvm_buffer *b = kern_buf("out", 64 * 4, NULL);
    cvm_arg a[] = {kern_arg_buf(b)};
    cvm_diag d;
    int got[64];
    expect_race("units of one cube on global memory: unit 32 loads what unit 0 stored",
                launch(mod, "global_race", 1, 64, a, 1, 1, &d), &d, 0, 32, 88,
                (const char *[]){"offset 0 of buffer 'out'", "this load", "a store by unit (0,0,0)",
                                 "(line 87)", NULL});
    cvm_status st = launch(mod, "cubes_share", 4, 32, a, 1, 1, &d);
    ok(st == CVM_OK, "stores of different cubes to one global word are not checked (cubes run apart: "
       "docs/debugging.md) (%s)", cvm_status_str(st));

    int in[64], want[8] = {0};
    for (int t = 0; t < 64; t++) {
        in[t] = (t * 37 + 11) % 23;
        want[in[t] & 7]++;
    }
    cvm_buffer *bi = kern_buf("in", sizeof in, in);
    int plain = 0;
    cvm_arg h[] = {kern_arg_buf(b), kern_arg_buf(bi), kern_arg_bytes(&plain, 4)};
    st = launch(mod, "hist", 1, 64, h, 3, 1, &d);
    int good = kern_read(b, got, 8 * 4) && !memcmp(got, want, sizeof want);
    expect_clean("a shared histogram with atomicAdd: atomics do not race, the counts", st, &d, good);
    plain = 1;
    st = launch(mod, "hist", 1, 64, h, 3, 1, &d);
    /* plane 0 runs line 100's load for all its lanes, then the store: the
     * first store to meet another lane's load is that of the lowest lane
     * whose bin another lane of the plane also loaded */
    uint32_t first = 64;
    for (int t = 0; t < 32 && first == 64; t++)
        for (int o = 0; o < 32; o++)
            if (o != t && (in[o] & 7) == (in[t] & 7)) {
                first = (uint32_t)t;
                break;
            }
    expect_race("the histogram with plain += instead of atomicAdd", st, &d, 0, first, 100,
                (const char *[]){"this store", "a load by unit", "(line 100)", NULL});
    cvm_buffer_free(bi);

    int fenced = 1;
    cvm_arg m[] = {kern_arg_buf(b), kern_arg_bytes(&fenced, 4)};
    st = launch(mod, "message", 1, 64, m, 2, 1, &d);
    good = kern_read(b, got, 4) && got[0] == 42;
    expect_clean("a message passed between planes: __threadfence_block, relaxed atomicExch; relaxed "
                 "atomicAdd, __threadfence_block: release and acquire, no race", st, &d, good);
    fenced = 0;
    expect_race("the same message without the fences: the flag's relaxed atomics order nothing",
                launch(mod, "message", 1, 64, m, 2, 1, &d), &d, 0, 32, 117,
                (const char *[]){"this load", "a store by unit (0,0,0)", "(line 110)", NULL});
    cvm_buffer_free(b);
}

static void test_named(void)
{
    char *text = kern_join(named_src);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_module *m = text ? kern_load(text, "prodcons", &d) : NULL;
    free(text);
    if (!ok(m != NULL, "the named-barrier kernel loads (%s)", d.message))
        return;
    uint32_t got[32], early = 0;
    cvm_buffer *b = kern_buf("out", sizeof got, NULL);
    cvm_arg a[] = {kern_arg_buf(b), kern_arg_bytes(&early, 4)};
    cvm_status st = launch(m, "prodcons", 1, 64, a, 2, 1, &d);
    int good = kern_read(b, got, sizeof got);
    for (uint32_t l = 0; l < 32; l++)
        good &= got[l] == l * 3 + 1;
    expect_clean("bar.arrive by the producer plane, bar.sync by the consumer: no race", st, &d, good);
    early = 1;
    st = launch(m, "prodcons", 1, 64, a, 2, 1, &d);
    ok(st == CVM_FAULT && strstr(d.message, "data race on shared offset 0: this load of 4 bytes and a "
                                            "store by unit (0,0,0)") && d.fault.unit[0] == 32,
       "a consumer loading before its bar.sync races with the producer: %s", d.message);
    cvm_buffer_free(b);
    cvm_module_free(m);

    cvm_module *w = kern_load(wide_line_src, "wide_line", &d);
    st = w ? launch(w, "wide_line", 1, 64, NULL, 0, 1, &d) : CVM_INTERNAL;
    ok(st == CVM_FAULT && strstr(d.message, "data race on shared offset 0: this load of 128 bytes and a store "
                                            "by unit (0,0,0)") && d.fault.unit[0] == 32,
       "lines of 128 bytes (u64x16) are checked too: %s", d.message);
    cvm_module_free(w);

    memset(&d, 0, sizeof d);
    text = kern_join(nonpart_src);
    m = text ? kern_load(text, "nonpart", &d) : NULL;
    free(text);
    if (!ok(m != NULL, "the non-participant kernel loads (%s)", d.message))
        return;
    b = kern_buf("out", sizeof got, NULL);
    cvm_arg o[] = {kern_arg_buf(b)};
    st = launch(m, "nonpart", 1, 96, o, 1, 1, &d);
    ok(st == CVM_FAULT && strstr(d.message, "data race on shared offset 0: this load of 4 bytes and a "
                                            "store by unit (0,0,0)") && d.fault.unit[0] == 32,
       "a named barrier orders only the planes that meet at it, not one that stored and exited: %s",
       d.message);
    cvm_buffer_free(b);
    cvm_module_free(m);
}

typedef struct seen {
    unsigned steps, faults;
    char fault[320];
} seen;

static int hook(void *user, const cvm_debug_where *w, const cvm_debug_stop *stop)
{
    seen *s = user;
    (void)stop;
    if (w->event == CVM_DEBUG_FAULT) {
        s->faults++;
        snprintf(s->fault, sizeof s->fault, "%s", w->fault ? w->fault : "");
    } else {
        s->steps++;
    }
    return 0;
}

/* A launch under the race checker leaves none of its memory charged to the
 * device: on a device limited to 128 MiB, a launch whose 1,024 units read
 * 256 KiB (an access table of 40 MiB, clocks of 8 MiB), then a 100 MiB
 * buffer, which fits only if those went back. */
static void test_memory_after(void)
{
    cvm_config c;
    memset(&c, 0, sizeof c);
    c.memory_limit = 128u << 20;
    c.threads = 1;
    cvm_device *dev = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_device_open("cpu", &c, &dev, &d);
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *out = NULL, *in = NULL, *big = NULL;
    if (!st)
        st = cvm_compile_cuda(src, strlen(src), "race.cu", NULL, &bytes, &size, &d);
    if (!st)
        st = cvm_module_load(dev, bytes, size, &m, &d);
    if (!st)
        st = cvm_kernel_get(m, "touch", &k, &d);
    if (!st)
        st = cvm_buffer_create(dev, 1024 * 4, "out", &out, &d);
    if (!st)
        st = cvm_buffer_create(dev, 64 * 1024 * 4, "in", &in, &d);
    if (!st) {
        cvm_arg a[] = {kern_arg_buf(out), kern_arg_buf(in)};
        cvm_launch_config lc = kern_cfg(1, 1024);
        lc.racecheck = 1;
        st = cvm_launch(cvm_device_stream(dev), k, &lc, a, 2, &d);
        if (!st)
            st = cvm_stream_sync(cvm_device_stream(dev), &d);
        ok(st == CVM_OK, "a race-checked launch reading 256 KiB under a 128 MiB limit (%s %s)",
           cvm_status_str(st), d.message);
    } else {
        ok(0, "setting up a device with a 128 MiB limit: %s", d.message);
    }
    st = dev ? cvm_buffer_create(dev, 100u << 20, "big", &big, &d) : CVM_INTERNAL;
    ok(st == CVM_OK, "after it, a 100 MiB buffer fits: the checker's memory went back (%s %s)",
       cvm_status_str(st), st ? d.message : "");
    cvm_buffer_free(big);
    cvm_buffer_free(in);
    cvm_buffer_free(out);
    cvm_module_free(m);
    cvm_free_bytes(bytes);
    if (dev)
        cvm_device_close(dev);
}

static void test_debugger_and_refusals(void)
{
    cvm_buffer *b = kern_buf("out", 64 * 4, NULL);
    cvm_arg a[] = {kern_arg_buf(b)};
    const cvm_kernel *k = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_kernel_get(mod, "no_sync", &k, &d);
    cvm_launch_config cfg = kern_cfg(1, 64);
    cfg.racecheck = 1;
    seen s = {0, 0, ""};
    cvm_status st = cvm_launch_debug(kern_stream(), k, &cfg, a, 1, hook, &s, &d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), &d);
    ok(st == CVM_FAULT && s.faults >= 1 && s.steps > 0 && strstr(s.fault, "data race on shared offset 4"),
       "under the step debugger a race stops as a fault the hook is shown (%u steps, %u faults: %s)",
       s.steps, s.faults, s.fault);

    cfg.unchecked = 1;
    st = cvm_launch(kern_stream(), k, &cfg, a, 1, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "checked mode"),
       "racecheck with unchecked is refused: %s", d.message);

    cvm_buffer_free(b);
}

int main(void)
{
    if (!kern_open()) {
        printf("Bail out! no cpu device\n");
        return 1;
    }
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (!(mod = kern_load_cuda(src, "race.cu", &d))) {
        ok(0, "compile and load: %s", d.message);
        return done_testing();
    }
    test_shared();
    test_reduce();
    test_global_and_atomics();
    test_named();
    test_memory_after();
    test_debugger_and_refusals();
    cvm_module_free(mod);
    kern_close();
    return done_testing();
}
