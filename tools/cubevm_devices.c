/*
 * cubevm_devices.c - `cubevm devices`: lists the devices this build can
 * open (cpu, then each Vulkan device as vulkan:N) with the limits the
 * public API reports, or why a kind of device is unavailable. Opening
 * every device is what makes the list true: a loader that finds no driver
 * shows up here exactly as `cubevm run --device vulkan` would see it.
 */
#include "cubevm_cli.h"

#include <string.h>

static void print_features(uint32_t f)
{
    static const struct { uint32_t bit; const char *name; } names[] = {
        {CVM_FEATURE_F64, "f64"},
        {CVM_FEATURE_F16, "f16"},
        {CVM_FEATURE_ATOMIC_I64, "atomic-i64"},
        {CVM_FEATURE_ATOMIC_F32_ADD, "atomic-f32-add"},
        {CVM_FEATURE_ATOMIC_F32_MINMAX, "atomic-f32-minmax"},
        {CVM_FEATURE_ATOMIC_F64_ADD, "atomic-f64-add"},
        {CVM_FEATURE_ATOMIC_F64_MINMAX, "atomic-f64-minmax"},
        {CVM_FEATURE_NAMED_BARRIERS, "named-barriers"},
        {CVM_FEATURE_F32_SUBNORMALS, "f32-subnormals"},
    };
    printf("  features:");
    int any = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) {
            printf(" %s", names[i].name);
            any = 1;
        }
    printf("%s\n", any ? "" : " none");
}

static void print_device(const cvm_device_limits *l, int is_default)
{
    printf("%s%s (%s)\n", l->device, is_default ? " [default]" : "", l->profile);
    printf("  plane width: %u (supported %u..%u)\n", l->default_plane_width, l->plane_width_min,
           l->plane_width_max);
    uint64_t cubes; /* the cpu device counts cubes in 64 bits */
    bool capped = __builtin_mul_overflow((uint64_t)l->max_grid[0] * l->max_grid[1], (uint64_t)l->max_grid[2],
                                         &cubes);
    printf("  cube: at most %u units, %u x %u x %u; grid at most %u x %u x %u%s\n",
           l->max_cube_units, l->max_cube_dims[0], l->max_cube_dims[1], l->max_cube_dims[2],
           l->max_grid[0], l->max_grid[1], l->max_grid[2], capped ? ", fewer than 2^64 cubes in all" : "");
    printf("  shared memory: %u bytes per cube (%u with opt-in)\n", l->shared_bytes,
           l->shared_bytes_optin);
    printf("  workers: %u\n", l->workers);
    if (!strcmp(l->device, "cpu")) {
        cvm_diag d;
        cvm_status st = cvm_tier_available(CVM_TIER_NATIVE, &d);
        printf("  tiers: interpreter, %s%s\n", st ? "no native code: " : "", d.message);
    }
    print_features(l->features);
}

/* Opens `name` and prints it; 0 when it cannot be opened (*d says why). */
static int show(const char *name, const char *default_device, cvm_diag *d)
{
    cvm_device *dev = NULL;
    cvm_device_limits l;
    if (cvm_device_open(name, NULL, &dev, d) != CVM_OK)
        return 0;
    cvm_device_limits_get(dev, &l, NULL);
    print_device(&l, default_device && !strcmp(default_device, l.device));
    cvm_device_close(dev);
    return 1;
}

int cli_devices(int argc, char **argv)
{
    if (argc > 1)
        return cli_error(CLI_USAGE, "devices: usage: cubevm devices");
    cvm_diag d;
    if (!show("cpu", NULL, &d))
        return cli_diag_error("cpu", d.status, &d);
    /* Which vulkan:N a plain "vulkan" means (discrete GPUs first). */
    char chosen[32] = "";
    cvm_device *dev = NULL;
    if (cvm_device_open("vulkan", NULL, &dev, &d) == CVM_OK) {
        cvm_device_limits l;
        cvm_device_limits_get(dev, &l, NULL);
        snprintf(chosen, sizeof chosen, "%s", l.device);
        cvm_device_close(dev);
    } else {
        printf("vulkan: unavailable: %s\n", d.message);
        return CLI_OK;
    }
    for (unsigned i = 0; i < 64; i++) {
        char name[32];
        snprintf(name, sizeof name, "vulkan:%u", i);
        if (!show(name, chosen, &d))
            break;
    }
    return CLI_OK;
}
