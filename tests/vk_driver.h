/*
 * vk_driver.h - the Vulkan driver (ICD manifest) the device tests run on:
 * Mesa's lavapipe, unless CUBEVM_TEST_VK_DRIVER names another manifest
 * (a GPU's, e.g. /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json).
 * Checks that hold only for lavapipe (its plane width of 8, say) ask
 * vk_test_on_lavapipe first.
 */
#ifndef CVM_TEST_VK_DRIVER_H
#define CVM_TEST_VK_DRIVER_H

#include <stdlib.h>

#define CVM_TEST_LVP_ICD "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

static inline const char *vk_test_driver(void)
{
    const char *e = getenv("CUBEVM_TEST_VK_DRIVER");
    return e && *e ? e : CVM_TEST_LVP_ICD;
}

static inline int vk_test_on_lavapipe(void)
{
    const char *e = getenv("CUBEVM_TEST_VK_DRIVER");
    return !(e && *e);
}

#endif
