/*
 * fuzz_exec.c - libFuzzer harness that runs what the verifier accepts.
 * Each input is loaded as a .cbc module on a fresh one-worker cpu device;
 * every kernel is launched with a small grid, zero-filled buffers, zero
 * scalars, a step budget (once without, for lockstep) and a short timeout,
 * in checked mode. Faults,
 * limits and unsupported features are fine; a crash, a sanitizer report,
 * a hang past libFuzzer's -timeout, or a byte not given back (counted by
 * the allocator hook after the device closes) is a finding.
 */
#include "../../vm/cubevm.h"
#include "fuzz_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_BUFFER_BYTES 1024u   /* every buffer parameter gets this many zero bytes */
#define FUZZ_STEP_BUDGET 20000u   /* instructions per plane */
#define FUZZ_TIMEOUT_S 0.25
#define FUZZ_LOCKSTEP_TIMEOUT_S 0.01
#define FUZZ_MAX_PARAMS 256u

static const uint8_t zeros[4096];
#ifndef FUZZ_DEBUG_LAUNCH
#define FUZZ_DEBUG_LAUNCH(st, d) (void)0
#endif
static unsigned long exec_launched, exec_faulted; /* launches accepted; syncs that reported an error */

/* Builds the arguments of kernel k; buffers go to bufs (freed by the caller). */
static bool make_args(cvm_device *dev, const cvm_kernel *k, uint32_t n, cvm_arg *args, cvm_buffer **bufs)
{
    for (uint32_t i = 0; i < n; i++) {
        cvm_param_info p;
        if (cvm_kernel_param(k, i, &p) != CVM_OK)
            return false;
        memset(&args[i], 0, sizeof args[i]);
        if (p.kind == CVM_PARAM_BUFFER) {
            if (cvm_buffer_create(dev, FUZZ_BUFFER_BYTES, p.name, &bufs[i], NULL) != CVM_OK)
                return false;
            args[i].kind = CVM_ARG_BUFFER;
            args[i].buffer = bufs[i];
        } else {
            if (p.size > sizeof zeros)
                return false;
            args[i].kind = CVM_ARG_BYTES;
            args[i].bytes = zeros;
            args[i].size = p.size;
        }
    }
    return true;
}

/* Launches kernel k twice (two shapes), then syncs; any status is accepted. */
static void run_kernel(cvm_device *dev, const cvm_kernel *k)
{
    cvm_kernel_info info;
    cvm_kernel_info_get(k, &info);
    uint32_t n = info.param_count;
    if (n > FUZZ_MAX_PARAMS)
        return;
    cvm_arg args[FUZZ_MAX_PARAMS];
    cvm_buffer *bufs[FUZZ_MAX_PARAMS] = {0};
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d;
    if (make_args(dev, k, n, args, bufs)) {
        uint32_t width = info.plane_width ? info.plane_width : 32;
        /* {cubes, units}: full and ragged under a step budget, then two full
         * planes without one (the planes of a cube run in lockstep only
         * then: interp_lockstep.c), bounded by a shorter timeout */
        uint32_t shapes[3][2] = {{2, width}, {1, 2 * width + 3}, {1, 2 * width}};
        for (unsigned i = 0; i < 3; i++) {
            cvm_launch_config lc = {.grid = {shapes[i][0], 1, 1}, .block = {shapes[i][1], 1, 1},
                                    .step_budget = i < 2 ? FUZZ_STEP_BUDGET : 0,
                                    .timeout_s = i < 2 ? FUZZ_TIMEOUT_S : FUZZ_LOCKSTEP_TIMEOUT_S};
            cvm_status lst = cvm_launch(s, k, &lc, args, n, &d);
            exec_launched += lst == CVM_OK;
            FUZZ_DEBUG_LAUNCH(lst, d);
        }
        exec_faulted += cvm_stream_sync(s, &d) != CVM_OK;
        (void)cvm_stream_output(s);
    }
    for (uint32_t i = 0; i < n; i++)
        cvm_buffer_free(bufs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cvm_config cfg = {.alloc = fuzz_alloc, .alloc_user = &heap, .memory_limit = 64u << 20, .threads = 1};
    cvm_device *dev = NULL;
    cvm_module *mod = NULL;
    cvm_diag d;
    if (cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK) {
        FUZZ_FAIL("cannot open the cpu device");
        return 0;
    }
    if (cvm_module_load(dev, data, size, &mod, &d) == CVM_OK) {
        uint32_t nk = cvm_module_kernel_count(mod);
        for (uint32_t i = 0; i < nk; i++) {
            const cvm_kernel *k = NULL;
            const char *name = cvm_module_kernel_name(mod, i);
            FUZZ_CHECK(name && cvm_kernel_get(mod, name, &k, &d) == CVM_OK);
            run_kernel(dev, k);
        }
        cvm_module_free(mod);
    } else {
        FUZZ_CHECK(mod == NULL);
    }
    cvm_device_close(dev);
    FUZZ_CHECK(heap.bytes == 0 && heap.blocks == 0);
    return 0;
}
