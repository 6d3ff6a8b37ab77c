/*
 * vk_env.h - the setup the Vulkan device tests share: lavapipe as the
 * driver, Mesa's shader cache and cubevm's caches in a directory of this
 * run's own, and the Khronos validation layer on where it is installed
 * (vk_test_finish checks it stayed silent).
 */
#ifndef CVM_TEST_VK_ENV_H
#define CVM_TEST_VK_ENV_H

#include "vk_driver.h"
#include "tap.h"
#include "../backends/vulkan/vk.h"
#include "../vm/cubevm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes dir (cap bytes, from template "/tmp/cvm-test-NAME.XXXXXX") and
 * points the caches at it; false, with the TAP skip line printed, when it
 * cannot. */
static int vk_test_env(char *dir, size_t cap, const char *name)
{
    setenv("VK_DRIVER_FILES", vk_test_driver(), 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    snprintf(dir, cap, "/tmp/cvm-test-%s.XXXXXX", name);
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    setenv("MESA_SHADER_CACHE_DIR", dir, 1);
    setenv("CUBEVM_CACHE_DIR", dir, 1);
    setenv("CUBEVM_VK_VALIDATION", "1", 1);
    return 1;
}

/* Opens the vulkan device with the validation layer, or without it (a TAP
 * skip says so) where the layer is not installed; false, with the TAP skip
 * line printed, when there is no Vulkan device. */
static int vk_test_open(cvm_device **vk)
{
    cvm_diag d;
    cvm_status st = cvm_device_open("vulkan", NULL, vk, &d);
    if (st == CVM_UNAVAILABLE && strstr(d.message, "CUBEVM_VK_VALIDATION")) {
        skip("the validation layer: %s", d.message);
        unsetenv("CUBEVM_VK_VALIDATION");
        st = cvm_device_open("vulkan", NULL, vk, &d);
    }
    if (st != CVM_OK) {
        printf("1..0 # SKIP vulkan is not available here: %s\n", d.message);
        return 0;
    }
    return 1;
}

/* Assembles .cbs text src and loads it on dev. */
static cvm_status vk_test_load(cvm_device *dev, const char *src, cvm_module **m, cvm_diag *d)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_status st = cvm_assemble(src, strlen(src), "test.cbs", &bytes, &size, d);
    st = st ? st : cvm_module_load(dev, bytes, size, m, d);
    cvm_free_bytes(bytes);
    return st;
}

/* The end of a run: the validation layer said nothing, the devices are
 * closed, then the run's directory goes (Mesa may write to it until then). */
static void vk_test_finish(const char *dir, cvm_device *cpu, cvm_device *vk)
{
    char first[512];
    uint32_t msgs = cvm_vk_validation_messages(first, sizeof first);
    ok(msgs == 0, "the validation layer stayed silent (%u messages; first: %.300s)", msgs,
       msgs ? first : "none");
    cvm_device_close(cpu);
    cvm_device_close(vk);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}

#endif
