/*
 * vk_device.c - the vulkan device: loads the Vulkan loader at run time
 * through volk (never linked against a driver), creates one process-wide
 * instance shared by every open vulkan device, picks a physical device
 * ("vulkan" = the first with a compute queue, discrete GPUs first;
 * "vulkan:N" = index N in the loader's order), enables every feature the
 * device reports (the SPIR-V backend emits only what the target allows),
 * and reports its limits. No loader, no driver, no device: CVM_UNAVAILABLE
 * with the reason.
 */
#include "vk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the shared instance ---- */

static pthread_mutex_t instance_lock = PTHREAD_MUTEX_INITIALIZER;
static VkInstance instance;
static uint32_t instance_users;
static bool instance_kept; /* a hung device was left open: the instance stays too */

/* ---- the validation layer (CUBEVM_VK_VALIDATION=1) ---- */

/*
 * Messages are kept, never printed (the library does not print): the tests
 * read them with cvm_vk_validation_messages and fail on any. The callback
 * may run on any thread, also inside vkCreateInstance while instance_lock
 * is held, so it has a lock of its own.
 */
static pthread_mutex_t message_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t message_count;
static char message_first[512];
static VkDebugUtilsMessengerEXT messenger;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)sev, (void)type, (void)user;
    pthread_mutex_lock(&message_lock);
    if (message_count++ == 0)
        snprintf(message_first, sizeof message_first, "%s",
                 data && data->pMessage ? data->pMessage : "(no text)");
    pthread_mutex_unlock(&message_lock);
    return VK_FALSE;
}

uint32_t cvm_vk_validation_messages(char *first, size_t cap)
{
    pthread_mutex_lock(&message_lock);
    uint32_t n = message_count;
    if (first && cap)
        snprintf(first, cap, "%s", n ? message_first : "");
    pthread_mutex_unlock(&message_lock);
    return n;
}

static bool validation_wanted(void)
{
    const char *v = getenv("CUBEVM_VK_VALIDATION");
    return v && *v && strcmp(v, "0") != 0;
}

static bool has_layer(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t n = 64;
    VkResult r = vkEnumerateInstanceLayerProperties(&n, layers);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(layers[i].layerName, name) == 0)
            return true;
    return false;
}

static const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
    /* Not GENERAL: the loader reports a missing driver file that way, which is
     * "unavailable", not a validation finding. */
    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
    .pfnUserCallback = on_message,
};

cvm_status cvm_vk_result(VkResult r, cvm_diag *diag, const char *what)
{
    switch (r) {
    case VK_SUCCESS:
        return CVM_OK;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "%s: out of host memory", what);
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "%s: out of device memory", what);
    case VK_ERROR_DEVICE_LOST:
        return cvm_diag_set(diag, CVM_DEVICE_LOST, "%s: the Vulkan device was lost", what);
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return cvm_diag_set(diag, CVM_UNAVAILABLE, "%s: no usable Vulkan driver (VkResult %d)",
                            what, (int)r);
    default:
        return cvm_diag_set(diag, CVM_INTERNAL, "%s failed (VkResult %d)", what, (int)r);
    }
}

static cvm_status instance_acquire(cvm_diag *diag)
{
    cvm_status st = CVM_OK;
    pthread_mutex_lock(&instance_lock);
    if (instance_users++ > 0 || instance) /* kept after a hang, or shared */
        goto done;
    if (volkInitialize() != VK_SUCCESS) {
        st = cvm_diag_set(diag, CVM_UNAVAILABLE,
                          "device 'vulkan' is not available: no Vulkan loader (libvulkan.so.1 "
                          "could not be loaded; install libvulkan1 and a driver such as "
                          "mesa-vulkan-drivers)");
        goto fail;
    }
    uint32_t api = VK_API_VERSION_1_1;
    if (vkEnumerateInstanceVersion)
        vkEnumerateInstanceVersion(&api);
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "cubevm",
        .pEngineName = "cubevm",
        .apiVersion = api >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : api,
    };
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pApplicationInfo = &app};
    static const char *const layer = "VK_LAYER_KHRONOS_validation";
    static const char *const ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    bool validate = validation_wanted();
    if (validate && !has_layer(layer)) {
        st = cvm_diag_set(diag, CVM_UNAVAILABLE,
                          "device 'vulkan' is not available: CUBEVM_VK_VALIDATION asks for %s, "
                          "which is not installed (Debian: vulkan-validationlayers)", layer);
        goto fail;
    }
    if (validate) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &ext;
        ci.pNext = &messenger_info; /* messages of vkCreateInstance itself */
    }
    VkResult r = vkCreateInstance(&ci, NULL, &instance);
    if (r != VK_SUCCESS) {
        st = r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED
                 ? cvm_diag_set(diag, CVM_UNAVAILABLE,
                                "device 'vulkan' is not available: the Vulkan loader found no "
                                "driver (no ICD; VkResult %d)", (int)r)
                 : cvm_vk_result(r, diag, "vkCreateInstance");
        goto fail;
    }
    volkLoadInstanceOnly(instance);
    if (validate && (r = vkCreateDebugUtilsMessengerEXT(instance, &messenger_info, NULL,
                                                        &messenger)) != VK_SUCCESS) {
        vkDestroyInstance(instance, NULL);
        instance = VK_NULL_HANDLE;
        st = cvm_vk_result(r, diag, "vkCreateDebugUtilsMessengerEXT");
        goto fail;
    }
    goto done;
fail:
    instance_users--;
done:
    pthread_mutex_unlock(&instance_lock);
    return st;
}

static void instance_release(void)
{
    pthread_mutex_lock(&instance_lock);
    if (instance_users && --instance_users == 0 && !instance_kept) {
        if (messenger)
            vkDestroyDebugUtilsMessengerEXT(instance, messenger, NULL);
        messenger = VK_NULL_HANDLE;
        vkDestroyInstance(instance, NULL);
        instance = VK_NULL_HANDLE;
    }
    pthread_mutex_unlock(&instance_lock);
}

/* ---- choosing a physical device ---- */

static bool compute_family(VkPhysicalDevice pd, uint32_t *out)
{
    VkQueueFamilyProperties fam[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    for (uint32_t i = 0; i < n; i++)
        if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            *out = i;
            return true;
        }
    return false;
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

/* "vulkan" or "vulkan:N" -> a physical device with a compute queue. */
static cvm_status pick(const char *spec, vk_dev *d, cvm_diag *diag)
{
    VkPhysicalDevice pds[16];
    uint32_t n = 16;
    VkResult r = vkEnumeratePhysicalDevices(instance, &n, pds);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return cvm_vk_result(r, diag, "vkEnumeratePhysicalDevices");
    if (n == 0)
        return cvm_diag_set(diag, CVM_UNAVAILABLE,
                            "device '%s' is not available: the Vulkan loader reports no devices",
                            spec);
    const char *colon = strchr(spec, ':');
    if (colon) {
        char *end = NULL;
        unsigned long idx = strtoul(colon + 1, &end, 10);
        if (!colon[1] || *end || colon[1] == '-' || colon[1] == '+')
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                                "device '%s': expected 'vulkan' or 'vulkan:N'", spec);
        if (idx >= n)
            return cvm_diag_set(diag, CVM_UNAVAILABLE,
                                "device '%s' is not available: there %s %u Vulkan device%s",
                                spec, n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
        if (!compute_family(pds[idx], &d->queue_family))
            return cvm_diag_set(diag, CVM_UNAVAILABLE,
                                "device '%s' is not available: it has no compute queue", spec);
        d->index = (uint32_t)idx;
        d->phys = pds[idx];
        return CVM_OK;
    }
    int best = 99;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        uint32_t fam;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (p.apiVersion < VK_API_VERSION_1_1 || !compute_family(pds[i], &fam) ||
            type_rank(p.deviceType) >= best)
            continue;
        best = type_rank(p.deviceType);
        d->index = i;
        d->phys = pds[i];
        d->queue_family = fam;
    }
    if (best == 99)
        return cvm_diag_set(diag, CVM_UNAVAILABLE,
                            "device 'vulkan' is not available: no Vulkan 1.1 device with a "
                            "compute queue among %u", n);
    return CVM_OK;
}

/* ---- features ---- */

typedef struct feature_chain {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af;
} feature_chain;

static bool has_extension(VkPhysicalDevice pd, const char *name)
{
    VkExtensionProperties ext[512];
    uint32_t n = 512;
    VkResult r = vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ext[i].extensionName, name) == 0)
            return true;
    return false;
}

/* Queries the chain for this device's version; `atomic_float`: the extension is there. */
static void query_features(vk_dev *d, feature_chain *c, bool atomic_float)
{
    memset(c, 0, sizeof *c);
    c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    c->af.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
    void **next = &c->f2.pNext;
    if (d->props.apiVersion >= VK_API_VERSION_1_2) {
        *next = &c->v11;
        c->v11.pNext = &c->v12;
        next = &c->v12.pNext;
    }
    if (d->props.apiVersion >= VK_API_VERSION_1_3) {
        *next = &c->v13;
        next = &c->v13.pNext;
    }
    if (atomic_float)
        *next = &c->af;
    vkGetPhysicalDeviceFeatures2(d->phys, &c->f2);
}

static uint8_t indep_of(VkShaderFloatControlsIndependence v)
{
    return v == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL        ? CVM_SPV_INDEP_ALL
           : v == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY ? CVM_SPV_INDEP_32_ONLY
                                                                    : CVM_SPV_INDEP_NONE;
}

static void query_properties(vk_dev *d)
{
    VkPhysicalDeviceSubgroupProperties sg = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceSubgroupSizeControlProperties sc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceFloatControlsProperties fc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &sg};
    vkGetPhysicalDeviceProperties(d->phys, &d->props);
    void **next = &sg.pNext;
    if (d->props.apiVersion >= VK_API_VERSION_1_2) {
        *next = &fc;
        next = &fc.pNext;
    }
    if (d->props.apiVersion >= VK_API_VERSION_1_3)
        *next = &sc;
    vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->target.denorm_preserve16 = fc.shaderDenormPreserveFloat16;
    d->target.denorm_preserve32 = fc.shaderDenormPreserveFloat32;
    d->target.denorm_preserve64 = fc.shaderDenormPreserveFloat64;
    d->target.rte16 = fc.shaderRoundingModeRTEFloat16;
    d->target.rte32 = fc.shaderRoundingModeRTEFloat32;
    d->target.rte64 = fc.shaderRoundingModeRTEFloat64;
    d->target.denorm_indep = indep_of(fc.denormBehaviorIndependence);
    d->target.rounding_indep = indep_of(fc.roundingModeIndependence);
    d->subgroup_size = sg.subgroupSize ? sg.subgroupSize : 1;
    d->subgroup_min = sc.minSubgroupSize ? sc.minSubgroupSize : d->subgroup_size;
    d->subgroup_max = sc.maxSubgroupSize ? sc.maxSubgroupSize : d->subgroup_size;
    d->size_control_compute = (sc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem_props);
    snprintf(d->name, sizeof d->name, "%s", d->props.deviceName);
    /* llvmpipe (lavapipe) ends a shader's loops after 65535 back edges in all
     * (Mesa's gallivm loop limiter): kernels count theirs and fault there */
    d->target.loop_limit = strncmp(d->name, "llvmpipe", 8) == 0 ? 65535 : 0;
}

static void fill_target(vk_dev *d, const feature_chain *c)
{
    cvm_spv_target *t = &d->target;
    uint32_t api = d->props.apiVersion;
    t->spirv_version = api >= VK_API_VERSION_1_3 ? 0x10600 : api >= VK_API_VERSION_1_2 ? 0x10500
                                                                                        : 0x10300;
    t->subgroup_size = d->subgroup_size;
    t->plane_width = d->subgroup_size;
    t->f64 = c->f2.features.shaderFloat64;
    t->f16 = c->v12.shaderFloat16 && c->v11.storageBuffer16BitAccess;
    t->int8 = c->v12.shaderInt8 && c->v12.storageBuffer8BitAccess;
    t->int16 = c->f2.features.shaderInt16 && c->v11.storageBuffer16BitAccess;
    t->int64 = c->f2.features.shaderInt64;
    t->int64_atomics = c->v12.shaderBufferInt64Atomics;
    t->float_atomic_add = c->af.shaderBufferFloat32AtomicAdd;
    t->float_atomic_minmax = false; /* VK_EXT_shader_atomic_float2 is not enabled */
    t->buffer_device_address = c->v12.bufferDeviceAddress;
    t->subgroup_size_control = c->v13.subgroupSizeControl && c->v13.computeFullSubgroups &&
                               d->size_control_compute;
    t->vulkan_memory_model = c->v12.vulkanMemoryModel && c->v12.vulkanMemoryModelDeviceScope;
    /* CUBEVM_VK_SKEW_ESTIMATES=k (tests, -3..3): the f32 div/sqrt correction starts k steps off */
    const char *skew = getenv("CUBEVM_VK_SKEW_ESTIMATES");
    int k = skew ? atoi(skew) : 0;
    t->test_skew = k < -3 ? -3 : k > 3 ? 3 : k;
}

cvm_status cvm_vk_memory_type(const vk_dev *d, uint32_t type_bits, uint32_t *out)
{
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int found = -1;
    for (uint32_t i = 0; i < d->mem_props.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = d->mem_props.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (f & want) != want)
            continue;
        if (found < 0 || (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            found = (int)i;
        if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
            break;
    }
    if (found < 0)
        return CVM_UNSUPPORTED;
    *out = (uint32_t)found;
    return CVM_OK;
}

void cvm_vk_choose_layout(vk_dev *d, uint32_t type_bits, bool force)
{
    VkMemoryPropertyFlags host = d->mem_props.memoryTypes[d->host_mem_type].propertyFlags;
    d->staged = false;
    for (uint32_t i = 0; i < d->mem_props.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) &&
            (d->mem_props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
            d->local_mem_type = i;
            d->staged = force || !(host & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
            return;
        }
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static bool staging_forced(void) { return env_on("CUBEVM_VK_STAGED"); }

/* Creates the logical device with every reported feature and the compute queue. */
static cvm_status create_device(vk_dev *d, cvm_diag *diag)
{
    /* CUBEVM_VK_NO_FLOAT_ATOMIC (tests): as if the device lacked the extension, so f32
     * atomic add is a compare-exchange loop */
    bool atomic_float = !env_on("CUBEVM_VK_NO_FLOAT_ATOMIC") &&
                        has_extension(d->phys, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    feature_chain c;
    query_features(d, &c, atomic_float);
    if (env_on("CUBEVM_VK_NO_BDA")) {
        /* tests: a device without buffer device address (the named rejection) */
        c.v12.bufferDeviceAddress = VK_FALSE;
        c.v12.bufferDeviceAddressCaptureReplay = VK_FALSE;
        c.v12.bufferDeviceAddressMultiDevice = VK_FALSE;
    }
    fill_target(d, &c);
    /* Robustness costs speed on real GPUs, and cubevm checks bounds itself. */
    c.f2.features.robustBufferAccess = VK_FALSE;
    c.v13.robustImageAccess = VK_FALSE;
    const char *exts[1];
    uint32_t next = 0;
    if (atomic_float)
        exts[next++] = VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
    /* Several queues where the family has them, so streams can overlap on the device. */
    VkQueueFamilyProperties fam[16];
    uint32_t nfam = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nfam, fam);
    d->nqueues = d->queue_family < nfam ? fam[d->queue_family].queueCount : 1;
    d->nqueues = d->nqueues < 1 ? 1 : d->nqueues > CVM_VK_QUEUES ? CVM_VK_QUEUES : d->nqueues;
    const float prio[CVM_VK_QUEUES] = {1.0f, 1.0f, 1.0f, 1.0f};
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = d->queue_family,
                                 .queueCount = d->nqueues,
                                 .pQueuePriorities = prio};
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &c.f2,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &q,
                             .enabledExtensionCount = next,
                             .ppEnabledExtensionNames = exts};
    VkResult r = vkCreateDevice(d->phys, &ci, NULL, &d->device);
    if (r != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateDevice");
    volkLoadDeviceTable(&d->vk, d->device);
    for (uint32_t i = 0; i < d->nqueues; i++)
        d->vk.vkGetDeviceQueue(d->device, d->queue_family, i, &d->queues[i]);
    d->queue = d->queues[0];
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 16,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer probe;
    VkMemoryRequirements req;
    if ((r = d->vk.vkCreateBuffer(d->device, &bi, NULL, &probe)) != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateBuffer");
    d->vk.vkGetBufferMemoryRequirements(d->device, probe, &req);
    d->vk.vkDestroyBuffer(d->device, probe, NULL);
    if (cvm_vk_memory_type(d, req.memoryTypeBits, &d->host_mem_type))
        return cvm_diag_set(diag, CVM_UNAVAILABLE,
                            "device 'vulkan:%u' is not available: it has no host-visible "
                            "coherent memory for storage buffers", d->index);
    cvm_vk_choose_layout(d, req.memoryTypeBits, staging_forced());
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                  .queueFamilyIndex = d->queue_family};
    if ((r = d->vk.vkCreateCommandPool(d->device, &pi, NULL, &d->once_pool)) != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateCommandPool");
    return CVM_OK;
}

static void vk_close(cvm_device *dev);

/* The profile name limits report: lavapipe (Mesa calls it llvmpipe), else the device name. */
static void profile_name(const vk_dev *d, char *out, size_t cap)
{
    if (strncmp(d->name, "llvmpipe", 8) == 0)
        snprintf(out, cap, "lavapipe");
    else
        snprintf(out, cap, "%.31s", d->name);
}

/*
 * cvm_config settings of the cpu device: `threads` is ignored (the driver
 * schedules the work); a schedule the device cannot follow, or a profile
 * that names another target, is refused rather than silently not applied.
 */
static cvm_status check_config(const vk_dev *d, const cvm_config *cfg, cvm_diag *diag)
{
    char own[32];
    profile_name(d, own, sizeof own);
    if (!cfg)
        return CVM_OK;
    if (cfg->schedule != CVM_SCHEDULE_PARALLEL)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "device 'vulkan:%u' cannot follow a %s schedule: the driver orders "
                            "cubes and planes itself (schedules are a cpu device setting)",
                            d->index, cfg->schedule == CVM_SCHEDULE_SEQUENTIAL ? "sequential"
                                                                                : "random");
    if (cfg->profile && *cfg->profile && strcmp(cfg->profile, "generic") != 0 &&
        strcmp(cfg->profile, own) != 0)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "device 'vulkan:%u' is %s; profile '%s' describes another target "
                            "(profiles are a cpu device setting)", d->index, own, cfg->profile);
    return CVM_OK;
}

static cvm_status vk_open(const char *spec, const cvm_config *cfg, cvm_device **out_dev,
                          cvm_diag *diag)
{
    cvm_device *dev = NULL;
    cvm_status st = cvm_vm_device_alloc(cfg, &cvm_vk_ops, spec, &dev, diag);
    if (st)
        return st;
    vk_dev *d = cvm_vm_dev_alloc(dev, sizeof *d);
    if (!d) {
        st = cvm_vm_oom(dev, diag, "the vulkan device record", sizeof *d);
        cvm_vm_device_dealloc(dev);
        return st;
    }
    if (pthread_mutex_init(&d->queue_lock, NULL) != 0) {
        cvm_vm_dev_free(dev, d, sizeof *d);
        cvm_vm_device_dealloc(dev);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the queue lock");
    }
    if (pthread_mutex_init(&d->once_lock, NULL) != 0) {
        pthread_mutex_destroy(&d->queue_lock);
        cvm_vm_dev_free(dev, d, sizeof *d);
        cvm_vm_device_dealloc(dev);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the queue lock");
    }
    dev->impl = d;
    if ((st = instance_acquire(diag))) {
        pthread_mutex_destroy(&d->queue_lock);
        pthread_mutex_destroy(&d->once_lock);
        cvm_vm_dev_free(dev, d, sizeof *d);
        cvm_vm_device_dealloc(dev);
        return st;
    }
    if ((st = pick(spec, d, diag)))
        goto fail;
    query_properties(d);
    if ((st = check_config(d, cfg, diag)) || (st = create_device(d, diag)) || (st = cvm_vk_cache_open(dev, diag)) ||
        (st = cvm_vk_stream_init(dev, &dev->stream, diag)))
        goto fail;
    if (diag)
        memset(diag, 0, sizeof *diag);
    *out_dev = dev;
    return CVM_OK;
fail:
    vk_close(dev);
    return st;
}

static void vk_close(cvm_device *dev)
{
    vk_dev *d = vkd(dev);
    if (d->device) {
        cvm_vk_device_wait(dev);
        while (dev->streams)
            cvm_vk_stream_destroy(dev->streams);
        cvm_vk_stream_fini(&dev->stream);
        cvm_vm_device_release_all(dev);
        if (d->pipeline_cache && !d->lost)
            cvm_vk_cache_save(dev);
        if (d->pipeline_cache && !d->hung)
            d->vk.vkDestroyPipelineCache(d->device, d->pipeline_cache, NULL);
        if (d->once_pool && !d->hung)
            d->vk.vkDestroyCommandPool(d->device, d->once_pool, NULL);
        if (!d->hung)
            d->vk.vkDestroyDevice(d->device, NULL);
        pthread_mutex_lock(&instance_lock);
        instance_kept |= d->hung;
        pthread_mutex_unlock(&instance_lock);
    }
    instance_release();
    pthread_mutex_destroy(&d->queue_lock);
    pthread_mutex_destroy(&d->once_lock);
    cvm_vm_dev_free(dev, d, sizeof *d);
    cvm_vm_device_dealloc(dev);
}

/* The device's launches all end (each has a timeout the driver enforces or
 * the device is lost), so a module's free waits for all of them. */
static void vk_module_wait(cvm_module *mod) { cvm_vk_device_wait(mod->dev); }

static void vk_limits(const cvm_device *dev, cvm_device_limits *out)
{
    const vk_dev *d = vkd(dev);
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    snprintf(out->device, sizeof out->device, "vulkan:%u", d->index);
    profile_name(d, out->profile, sizeof out->profile);
    out->plane_width_min = d->subgroup_min;
    out->plane_width_max = d->subgroup_max;
    out->default_plane_width = d->subgroup_size;
    out->max_cube_units = l->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) {
        out->max_cube_dims[i] = l->maxComputeWorkGroupSize[i];
        out->max_grid[i] = i ? l->maxComputeWorkGroupCount[i] : UINT32_MAX; /* x: split (vk_launch.c) */
    }
    out->shared_bytes = l->maxComputeSharedMemorySize;
    out->shared_bytes_optin = l->maxComputeSharedMemorySize;
    out->workers = 1;
    out->memory_limit = dev->mem.limit;
    const cvm_spv_target *t = &d->target;
    /* f32 subnormals: kept on request (DenormPreserve), or by lavapipe, which
     * offers no float controls but keeps them (the conformance suite's add_f32) */
    bool subnormals = t->denorm_preserve32 || strcmp(out->profile, "lavapipe") == 0;
    out->features = (t->f64 ? CVM_FEATURE_F64 : 0) | (t->f16 ? CVM_FEATURE_F16 : 0) |
                    (t->int64_atomics ? CVM_FEATURE_ATOMIC_I64 : 0) |
                    (t->float_atomic_add ? CVM_FEATURE_ATOMIC_F32_ADD : 0) |
                    (subnormals ? CVM_FEATURE_F32_SUBNORMALS : 0);
}

const cvm_vm_device_ops cvm_vk_ops = {
    .open = vk_open,
    .close = vk_close,
    .limits = vk_limits,
    .buffer_alloc = cvm_vk_buffer_alloc,
    .buffer_free = cvm_vk_buffer_free,
    .buffer_map = cvm_vk_buffer_map,
    .buffer_unmap = cvm_vk_buffer_unmap, /* staged buffers write their host copy back */
    .buffer_write = cvm_vk_buffer_write,
    .buffer_read = cvm_vk_buffer_read,
    .buffer_fill = cvm_vk_buffer_fill,
    .buffer_copy = cvm_vk_buffer_copy,
    .module_init = cvm_vk_module_init,
    .module_fini = cvm_vk_module_fini,
    .stream_create = cvm_vk_stream_create,
    .stream_destroy = cvm_vk_stream_destroy,
    .stream_sync = cvm_vk_stream_sync,
    .stream_wait = cvm_vk_stream_wait,
    .device_wait = cvm_vk_device_wait,
    .module_wait = vk_module_wait,
    .stream_output = cvm_vk_stream_output,
    .launch = cvm_vk_launch,
};
