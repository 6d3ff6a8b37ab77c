/*
 * test_isa.c - the choice of the interpreter's ISA variant (vm/isa.h):
 * level names, forced levels (CUBEVM_ISA) against a capability mask,
 * unknown and unsupported levels as errors, the detected mask against
 * /proc/cpuinfo's flags, and a vadd launch checked against a C loop under
 * whatever level this process runs (make check-isa runs it per level).
 */
#include "../vm/cubevm.h"
#include "../vm/isa.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vadd_src[] =
    ".kernel vadd\n"
    ".param a buffer f32 read\n.param b buffer f32 read\n.param c buffer f32 write\n"
    ".param n scalar u32\n"
    ".reg u32 %i, %n\n.reg bool %in\n.reg i64 %off, %four\n.reg ptr.global %pa, %pb, %pc\n"
    ".reg f32 %x, %y, %s\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %n, n, 0\n    lt.u32 %in, %i, %n\n"
    "    if %in\n"
    "        cvt.i64 %off, %i\n        const.i64 %four, 4\n        mul.i64 %off, %off, %four\n"
    "        param.ptr.global %pa, a, 0\n        param.ptr.global %pb, b, 0\n"
    "        param.ptr.global %pc, c, 0\n"
    "        ptr.add.ptr.global %pa, %pa, %off\n        ptr.add.ptr.global %pb, %pb, %off\n"
    "        ptr.add.ptr.global %pc, %pc, %off\n"
    "        ld.f32 %x, [%pa]\n        ld.f32 %y, [%pb]\n        mul.f32 %s, %x, %y\n"
    "        add.f32 %s, %s, %x\n        st.f32 [%pc], %s\n"
    "    end\n    return\n.end\n";

static void test_choose(void)
{
    cvm_diag d;
    unsigned l = 99;
    if (strcmp(cvm_vm_isa_name(0), "native") == 0) {
        skip("a build without ISA variants (ISA=off or not x86-64)");
        is_int(cvm_vm_isa_choose("x86-64", 1u, &l, &d), CVM_INVALID_ARGUMENT,
               "without variants an x86 level is refused");
        return;
    }
    is_str(cvm_vm_isa_name(CVM_VM_ISA_X86_64), "x86-64", "level 0 is x86-64");
    is_str(cvm_vm_isa_name(CVM_VM_ISA_V3), "x86-64-v3", "level 1 is x86-64-v3");
    is_str(cvm_vm_isa_name(CVM_VM_ISA_V4), "x86-64-v4", "level 2 is x86-64-v4");

    is_int(cvm_vm_isa_choose(NULL, 7u, &l, &d), CVM_OK, "no forced level: ok");
    is_int(l, CVM_VM_ISA_V4, "the best of all three is v4");
    is_int(cvm_vm_isa_choose("", 3u, &l, &d), CVM_OK, "empty CUBEVM_ISA is no forced level");
    is_int(l, CVM_VM_ISA_V3, "the best of x86-64 and v3 is v3");
    cvm_vm_isa_choose(NULL, 1u, &l, &d);
    is_int(l, CVM_VM_ISA_X86_64, "baseline only: x86-64");

    is_int(cvm_vm_isa_choose("x86-64", 7u, &l, &d), CVM_OK, "forcing x86-64 on a v4 CPU");
    is_int(l, CVM_VM_ISA_X86_64, "forced x86-64 is chosen");
    is_int(cvm_vm_isa_choose("x86-64-v3", 7u, &l, &d), CVM_OK, "forcing v3 on a v4 CPU");
    is_int(l, CVM_VM_ISA_V3, "forced v3 is chosen");

    l = 99;
    cvm_status st = cvm_vm_isa_choose("x86-64-v4", 3u, &l, &d);
    is_int(st, CVM_UNSUPPORTED, "forcing v4 on a v3 CPU is CVM_UNSUPPORTED");
    ok(strstr(d.message, "CUBEVM_ISA=x86-64-v4") && strstr(d.message, "does not support"),
       "the message names the variable and the level: %s", d.message);
    is_int(l, 99, "nothing chosen on error");
    is_int(cvm_vm_isa_choose("x86-64-v3", 1u, &l, &d), CVM_UNSUPPORTED,
           "forcing v3 on a baseline CPU is CVM_UNSUPPORTED");
    st = cvm_vm_isa_choose("avx512", 7u, &l, &d);
    is_int(st, CVM_INVALID_ARGUMENT, "an unknown level name is CVM_INVALID_ARGUMENT");
    ok(strstr(d.message, "unknown level") && strstr(d.message, "x86-64-v3"),
       "the message lists the levels: %s", d.message);
    is_int(cvm_vm_isa_choose("X86-64", 7u, &l, &d), CVM_INVALID_ARGUMENT,
           "names are exact (case matters)");
}

/* Whether every flag of the space-separated list is in the cpuinfo flags line. */
static int has_flags(const char *line, const char *list)
{
    char want[128];
    snprintf(want, sizeof want, "%s", list);
    for (char *w = strtok(want, " "); w; w = strtok(NULL, " ")) {
        size_t n = strlen(w);
        const char *p = line;
        int found = 0;
        while ((p = strstr(p, w)) != NULL) {
            if ((p == line || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' ||
                                                                 p[n] == '\0')) {
                found = 1;
                break;
            }
            p += n;
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* The detected mask against the kernel's view of the CPU (x86-64 Linux only). */
static void test_detect(void)
{
    unsigned mask = cvm_vm_isa_supported();
    ok(mask & 1u, "the lowest level is always supported");
    if (strcmp(cvm_vm_isa_name(0), "native") == 0)
        return;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    int got = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            got = 1;
            break;
        }
    if (f)
        fclose(f);
    if (!got) {
        skip("no /proc/cpuinfo flags line");
        return;
    }
    /* Not "abm" (LZCNT): a Firecracker guest's cpuinfo (kernel 6.18, AMD EPYC)
     * omits it while CPUID reports it and lzcnt runs. */
    int v3 = has_flags(line, "avx avx2 bmi1 bmi2 fma f16c movbe sse4_2 popcnt");
    int v4 = v3 && has_flags(line, "avx512f avx512bw avx512cd avx512dq avx512vl");
    is_int(!!(mask >> CVM_VM_ISA_V3 & 1), v3, "x86-64-v3 detected iff cpuinfo lists its flags");
    is_int(!!(mask >> CVM_VM_ISA_V4 & 1), v4, "x86-64-v4 detected iff cpuinfo lists its flags");
}

/* vadd-like c = a*b + a over 1000 elements: partial last plane, several cubes. */
static void test_launch(void)
{
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    cvm_diag d;
    unsigned level = 0;
    cvm_status st = cvm_vm_isa_current(&level, &d);
    if (st != CVM_OK) {
        /* CUBEVM_ISA names a level this CPU lacks: launches must fail cleanly */
        diag("CUBEVM_ISA=%s: %s", getenv("CUBEVM_ISA"), d.message);
    } else {
        diag("running the %s variant", cvm_vm_isa_name(level));
        const char *forced = getenv("CUBEVM_ISA");
        if (forced && *forced)
            is_str(cvm_vm_isa_name(level), forced, "CUBEVM_ISA chooses the variant");
    }
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.25f - 100.0f;
        b[i] = (float)(i % 37) - 18.5f;
    }
    cvm_device *dev = NULL;
    cvm_module *mod = NULL;
    cvm_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    void *bytes = NULL;
    size_t size = 0;
    const cvm_kernel *k = NULL;
    uint32_t n = N;
    int ok_all = cvm_assemble(vadd_src, strlen(vadd_src), "isa.cbs", &bytes, &size, &d) == CVM_OK &&
                 cvm_device_open("cpu", NULL, &dev, &d) == CVM_OK &&
                 cvm_module_load(dev, bytes, size, &mod, &d) == CVM_OK &&
                 cvm_kernel_get(mod, "vadd", &k, &d) == CVM_OK &&
                 cvm_buffer_create(dev, sizeof a, "a", &ba, &d) == CVM_OK &&
                 cvm_buffer_create(dev, sizeof b, "b", &bb, &d) == CVM_OK &&
                 cvm_buffer_create(dev, sizeof c, "c", &bc, &d) == CVM_OK;
    ok(ok_all, "setup: %s", ok_all ? "ok" : d.message);
    if (ok_all) {
        cvm_stream *s = cvm_device_stream(dev);
        cvm_arg args[4] = {{CVM_ARG_BUFFER, ba, 0, NULL, 0}, {CVM_ARG_BUFFER, bb, 0, NULL, 0},
                           {CVM_ARG_BUFFER, bc, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
        cvm_launch_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.grid[0] = 11;
        cfg.block[0] = 96;
        cvm_buffer_write(s, ba, 0, a, sizeof a, NULL);
        cvm_buffer_write(s, bb, 0, b, sizeof b, NULL);
        cvm_status lst = cvm_launch(s, k, &cfg, args, 4, &d);
        if (st != CVM_OK) {
            is_int(lst, st, "cvm_launch under an unsupported CUBEVM_ISA fails with its status");
            ok(strstr(d.message, "CUBEVM_ISA=") != NULL, "the message names the variable (%s)", d.message);
        } else {
            if (lst == CVM_OK)
                lst = cvm_stream_sync(s, &d);
            is_int(lst, CVM_OK, "launch and sync: %s", lst ? d.message : "ok");
            cvm_buffer_read(s, bc, 0, c, sizeof c, NULL);
            cvm_stream_sync(s, NULL);
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++) {
                volatile float want = a[i] * b[i]; /* no contraction into fma */
                want = want + a[i];
                if (c[i] != want)
                    bad = i;
            }
            ok(bad < 0, "c = a*b + a for all %d elements (first bad %d)", N, bad);
        }
    }
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    cvm_buffer_free(bc);
    if (mod)
        cvm_module_free(mod);
    if (dev)
        cvm_device_close(dev);
    cvm_free_bytes(bytes);
}

int main(void)
{
    test_choose();
    test_detect();
    test_launch();
    return done_testing();
}
