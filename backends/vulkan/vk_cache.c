/*
 * vk_cache.c - the vulkan device's VkPipelineCache persisted beside
 * cubevm's cache directory ($CUBEVM_CACHE_DIR, else
 * $XDG_CACHE_HOME/cubevm, else ~/.cache/cubevm), one file per physical
 * device: vulkan/pipelines-<pipelineCacheUUID>.bin.
 *
 * The file is cubevm's header (magic, vendor and device ids, driver
 * version, the device's pipelineCacheUUID, payload size, FNV-1a checksum)
 * and then the driver's cache data, whose own header (the one Vulkan
 * defines: length, version one, vendor, device, UUID) is checked too. The
 * bytes go to the driver, so they are read only from a directory that
 * belongs to this user and no one else may write to (as for native code).
 * A file that is missing, foreign, truncated, corrupt or too large is
 * ignored (the device starts with an empty cache, never an error); the
 * cache is written back when the device closes if it built pipelines, to a
 * temporary file renamed over the old one, so readers see either file whole.
 */
#include "vk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "CVMVKPC1"
#define CACHE_MAX (64u << 20) /* larger files are not read */

typedef struct cache_header {
    char magic[8];
    uint32_t vendor, device, driver, reserved;
    uint8_t uuid[VK_UUID_SIZE];
    uint64_t size, checksum;
} cache_header;

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* <cache root>/vulkan into out; false when no root can be named. */
static bool cache_dir(char *out, size_t cap)
{
    const char *root = getenv("CUBEVM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (root && *root)
        n = snprintf(out, cap, "%s/vulkan", root);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/cubevm/vulkan", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/cubevm/vulkan", home);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

/* Ours alone: owned by this user, not writable by group or others. */
static bool private_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Creates each missing component of `path` with mode 0700. */
static bool make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = 0;
        bool fine = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = c;
        if (!fine)
            return false;
        if (!c)
            return true;
    }
}

bool cvm_vk_cache_path(const vk_dev *d, char *out, size_t cap, char *dir, size_t dir_cap)
{
    if (!cache_dir(dir, dir_cap))
        return false;
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", d->props.pipelineCacheUUID[i]);
    int n = snprintf(out, cap, "%s/pipelines-%s.bin", dir, uuid);
    return n > 0 && (size_t)n < cap;
}

/* The header Vulkan puts in front of pipeline cache data, checked against this device. */
static bool vulkan_header_ok(const vk_dev *d, const uint8_t *p, size_t n)
{
    uint32_t len, version, vendor, device;
    if (n < 16 + VK_UUID_SIZE)
        return false;
    memcpy(&len, p, 4);
    memcpy(&version, p + 4, 4);
    memcpy(&vendor, p + 8, 4);
    memcpy(&device, p + 12, 4);
    return len >= 16 + VK_UUID_SIZE && len <= n &&
           version == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && vendor == d->props.vendorID &&
           device == d->props.deviceID &&
           !memcmp(p + 16, d->props.pipelineCacheUUID, VK_UUID_SIZE);
}

/* Reads the file's payload if it is this device's; *out NULL (and why) otherwise. */
static void read_payload(cvm_device *dev, const char *path, uint8_t **out, size_t *out_n)
{
    vk_dev *d = vkd(dev);
    cache_header h;
    uint8_t *buf = NULL;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(d->cache_note, sizeof d->cache_note, "no cache file");
        return;
    }
    const char *why = "cubevm's header does not match this device and driver";
    if (fread(&h, sizeof h, 1, f) != 1) {
        why = "truncated header";
        goto done;
    }
    if (memcmp(h.magic, CACHE_MAGIC, 8) || h.vendor != d->props.vendorID ||
        h.device != d->props.deviceID || h.driver != d->props.driverVersion ||
        memcmp(h.uuid, d->props.pipelineCacheUUID, VK_UUID_SIZE))
        goto done;
    if (h.size == 0 || h.size > CACHE_MAX) {
        why = "payload size out of range";
        goto done;
    }
    buf = cvm_vm_dev_alloc(dev, (size_t)h.size);
    if (!buf) {
        why = "no memory to read it";
        goto done;
    }
    if (fread(buf, 1, (size_t)h.size, f) != h.size || fgetc(f) != EOF) {
        why = "the payload's length differs from the header's";
        goto done;
    }
    if (fnv1a(buf, (size_t)h.size) != h.checksum) {
        why = "checksum mismatch";
        goto done;
    }
    if (!vulkan_header_ok(d, buf, (size_t)h.size)) {
        why = "the Vulkan pipeline cache header does not match this device";
        goto done;
    }
    *out = buf;
    *out_n = (size_t)h.size;
    buf = NULL;
    why = NULL;
done:
    if (why)
        snprintf(d->cache_note, sizeof d->cache_note, "ignored %s: %s", path, why);
    if (buf)
        cvm_vm_dev_free(dev, buf, (size_t)h.size);
    fclose(f);
}

cvm_status cvm_vk_cache_open(cvm_device *dev, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    char path[600], dir[512];
    uint8_t *data = NULL;
    size_t n = 0;
    d->cache_loaded = 0;
    if (!cvm_vk_cache_path(d, path, sizeof path, dir, sizeof dir))
        snprintf(d->cache_note, sizeof d->cache_note, "no cache directory (HOME is not set)");
    else if (!private_dir(dir))
        snprintf(d->cache_note, sizeof d->cache_note,
                 "%s is missing or not private to this user: not read", dir);
    else
        read_payload(dev, path, &data, &n);
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = n,
                                    .pInitialData = data};
    VkResult r = d->vk.vkCreatePipelineCache(d->device, &ci, NULL, &d->pipeline_cache);
    if (r == VK_SUCCESS && data) {
        d->cache_loaded = n;
        snprintf(d->cache_note, sizeof d->cache_note, "loaded %zu bytes from %s", n, path);
    } else if (data) {
        /* The driver refused the bytes after all: start empty. */
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        snprintf(d->cache_note, sizeof d->cache_note, "the driver refused %s", path);
        r = d->vk.vkCreatePipelineCache(d->device, &ci, NULL, &d->pipeline_cache);
    }
    if (data)
        cvm_vm_dev_free(dev, data, n);
    return cvm_vk_result(r, diag, "vkCreatePipelineCache");
}

/* Writes header + payload to a temporary file in `dir` and renames it to `path`. */
static bool write_atomic(const char *dir, const char *path, const cache_header *h,
                         const uint8_t *payload)
{
    char tmp[600];
    int n = snprintf(tmp, sizeof tmp, "%s/.pipelines.XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return false;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return false;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return false;
    }
    bool fine = fwrite(h, sizeof *h, 1, f) == 1 &&
                fwrite(payload, 1, (size_t)h->size, f) == h->size && fflush(f) == 0 &&
                fsync(fileno(f)) == 0;
    fine = fclose(f) == 0 && fine;
    if (fine && rename(tmp, path) == 0)
        return true;
    unlink(tmp);
    return false;
}

void cvm_vk_cache_save(cvm_device *dev)
{
    vk_dev *d = vkd(dev);
    char path[600], dir[512];
    size_t n = 0;
    uint8_t *data = NULL;
    if (!d->pipeline_cache || !__atomic_load_n(&d->pipelines_built, __ATOMIC_RELAXED) ||
        !cvm_vk_cache_path(d, path, sizeof path, dir, sizeof dir) || !make_dirs(dir) ||
        !private_dir(dir))
        return;
    if (d->vk.vkGetPipelineCacheData(d->device, d->pipeline_cache, &n, NULL) != VK_SUCCESS ||
        n == 0 || n > CACHE_MAX || !(data = cvm_vm_dev_alloc(dev, n)))
        return;
    size_t got = n;
    if (d->vk.vkGetPipelineCacheData(d->device, d->pipeline_cache, &got, data) == VK_SUCCESS &&
        vulkan_header_ok(d, data, got)) {
        cache_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, CACHE_MAGIC, 8);
        h.vendor = d->props.vendorID;
        h.device = d->props.deviceID;
        h.driver = d->props.driverVersion;
        memcpy(h.uuid, d->props.pipelineCacheUUID, VK_UUID_SIZE);
        h.size = got;
        h.checksum = fnv1a(data, got);
        d->cache_saved = write_atomic(dir, path, &h, data);
    }
    cvm_vm_dev_free(dev, data, n);
}
