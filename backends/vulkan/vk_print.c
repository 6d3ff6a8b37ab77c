/*
 * vk_print.c - `print` output of kernels on the vulkan device. A launch of
 * a printing kernel gets a host-visible record buffer (the SPIR-V
 * backend's layout, CVM_SPV_PRINT_* in backends/spirv/spv.h); when its
 * submission has finished, the records are sorted by cube, unit and the
 * unit's own print order, formatted as the cpu device formats print lines
 * (vm/interp_plane.c: the register type decides the width, floats convert
 * to integers by truncation, integers to doubles for %f), and appended to
 * the stream's output, which cvm_stream_output hands out. Fault records
 * of `trap` and `assert` (same buffer) become the launch's kernel fault
 * (cvm_vk_print_fault), reported by the next sync. The copies of
 * the formats make the records independent of the module's lifetime.
 */
#include "vk.h"

#include "../../vm/print_fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records per launch; claims beyond land in one spare record and are counted as lost. */
#define PRINT_CAP 16384u

struct vk_print {
    VkBuffer buf;
    VkDeviceMemory mem;
    uint32_t *map;
    uint32_t nsites;
    cvm_spv_print *sites;
    char **formats;          /* per site: a NUL-terminated copy */
    size_t *format_len;
    char (*files)[128];      /* per site: its source file (trap/assert faults) */
    char kernel[128];        /* the launch's kernel, for fault reports */
    uint32_t loop_limit;     /* the driver's loop limit (loop sites' faults) */
};

static size_t print_bytes(void)
{
    return ((size_t)CVM_SPV_PRINT_HEAD + ((size_t)PRINT_CAP + 1) * CVM_SPV_PRINT_WORDS) * 4;
}

void cvm_vk_print_free(cvm_device *dev, vk_print *p)
{
    if (!p)
        return;
    vk_dev *d = vkd(dev);
    for (uint32_t i = 0; p->formats && i < p->nsites; i++)
        if (p->formats[i])
            cvm_vm_dev_free(dev, p->formats[i], p->format_len[i] + 1);
    cvm_vm_dev_free(dev, p->formats, p->nsites * sizeof *p->formats);
    cvm_vm_dev_free(dev, p->format_len, p->nsites * sizeof *p->format_len);
    cvm_vm_dev_free(dev, p->files, p->nsites * sizeof *p->files);
    cvm_vm_dev_free(dev, p->sites, p->nsites * sizeof *p->sites);
    if (!d->hung && p->buf)
        d->vk.vkDestroyBuffer(d->device, p->buf, NULL);
    if (!d->hung && p->mem)
        d->vk.vkFreeMemory(d->device, p->mem, NULL);
    cvm_vm_dev_free(dev, p, sizeof *p);
}

cvm_status cvm_vk_print_begin(cvm_stream *s, const cvm_spv_layout *l, const cvm_bc_module *bc,
                              const char *kernel, vk_print **out, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    vk_print *p = cvm_vm_dev_alloc(dev, sizeof *p);
    cvm_status st = CVM_OK;
    *out = NULL;
    if (!p)
        return cvm_vm_oom(dev, diag, "print records", sizeof *p);
    p->nsites = l->nprints;
    p->loop_limit = l->loop_limit;
    p->sites = cvm_vm_dev_alloc(dev, l->nprints * sizeof *p->sites);
    p->formats = cvm_vm_dev_alloc(dev, l->nprints * sizeof *p->formats);
    p->format_len = cvm_vm_dev_alloc(dev, l->nprints * sizeof *p->format_len);
    p->files = cvm_vm_dev_alloc(dev, l->nprints * sizeof *p->files);
    if (!p->sites || !p->formats || !p->format_len || !p->files) {
        st = cvm_vm_oom(dev, diag, "print records", l->nprints * sizeof *p->sites);
        goto fail;
    }
    memcpy(p->sites, l->prints, l->nprints * sizeof *p->sites);
    snprintf(p->kernel, sizeof p->kernel, "%s", kernel ? kernel : "");
    for (uint32_t i = 0; i < l->nprints; i++) {
        snprintf(p->files[i], sizeof p->files[i], "%s", l->prints[i].file ? l->prints[i].file : "");
        p->sites[i].file = NULL; /* the module's bytes: p->files holds the copy */
        static const cvm_bc_string none = {0};
        const cvm_bc_string *str = l->prints[i].string < bc->nstrings ? &bc->strings[l->prints[i].string]
                                                                       : &none; /* a loop site */
        p->format_len[i] = str->len;
        if (!(p->formats[i] = cvm_vm_dev_alloc(dev, str->len + 1))) {
            st = cvm_vm_oom(dev, diag, "a print format", str->len + 1);
            goto fail;
        }
        if (str->len)
            memcpy(p->formats[i], str->data, str->len);
        p->formats[i][str->len] = '\0';
    }
    if ((st = cvm_vk_raw_buffer(dev, print_bytes(), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &p->buf,
                                &p->mem, (void **)&p->map, diag)))
        goto fail;
    p->map[0] = 0;
    p->map[1] = PRINT_CAP;
    p->map[2] = 0;
    *out = p;
    return CVM_OK;
fail:
    cvm_vk_print_free(dev, p);
    return st;
}

VkDescriptorBufferInfo cvm_vk_print_info(const vk_print *p)
{
    return (VkDescriptorBufferInfo){p->buf, 0, print_bytes()};
}

/* ---- formatting ---- */

/* A record being formatted: its site and its words. */
typedef struct {
    const cvm_spv_print *site;
    const uint32_t *r;
} vk_print_rec;

/* Formats argument i of record ctx (its bits: two words after the header). */
static int format_arg(void *ctx, size_t i, char *spec, size_t slen, char *out, size_t cap)
{
    const vk_print_rec *c = ctx;
    const uint32_t *a = c->r + 4 + 2 * i;
    return cvm_print_scalar(c->site->elems[i], (uint64_t)a[1] << 32 | a[0], spec, slen, out, cap);
}

/* Formats record r (its site's format and arguments) into buf; returns the length. */
static size_t format_record(const vk_print *p, const uint32_t *r, char *buf, size_t cap)
{
    vk_print_rec c = {&p->sites[r[0]], r};
    /* %s is refused when the kernel is translated: no string reaches here */
    return cvm_print_format(p->formats[r[0]], p->format_len[r[0]], c.site->nargs, "diuxXocpfFeEgGaA", format_arg,
                            &c, buf, cap);
}

static int record_cmp(const void *x, const void *y)
{
    const uint32_t *a = *(const uint32_t *const *)x, *b = *(const uint32_t *const *)y;
    for (int i = 1; i <= 3; i++) /* cube, unit, the unit's print count */
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Appends n bytes to the stream's output (cvm_stream.out, device allocator); false: no memory. */
static bool append(cvm_device *dev, cvm_vm_text *t, const char *src, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *d = cvm_vm_dev_alloc(dev, cap);
        if (!d)
            return false;
        if (t->len)
            memcpy(d, t->data, t->len);
        if (t->data)
            cvm_vm_dev_free(dev, t->data, t->cap);
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, src, n);
    t->len += n;
    return true;
}

bool cvm_vk_print_emit(cvm_stream *s, const vk_print *p)
{
    cvm_device *dev = s->dev;
    uint32_t claimed = p->map[0], n = claimed < PRINT_CAP ? claimed : PRINT_CAP;
    const uint32_t **order = n ? cvm_vm_dev_alloc(dev, n * sizeof *order) : NULL;
    bool okk = !n || order;
    for (uint32_t i = 0; okk && i < n; i++)
        order[i] = p->map + CVM_SPV_PRINT_HEAD + (size_t)i * CVM_SPV_PRINT_WORDS;
    if (okk && n)
        qsort(order, n, sizeof *order, record_cmp);
    char buf[CVM_PRINT_LINE_MAX + 1];
    for (uint32_t i = 0; okk && i < n; i++) {
        if (order[i][0] >= p->nsites || p->sites[order[i][0]].kind != CVM_SPV_SITE_PRINT)
            continue; /* fault records: cvm_vk_print_fault */
        size_t len = format_record(p, order[i], buf, sizeof buf - 1);
        if (len == 0 || buf[len - 1] != '\n')
            buf[len++] = '\n';
        okk = append(dev, &s->out, buf, len);
    }
    if (okk && claimed > PRINT_CAP) {
        int len = snprintf(buf, sizeof buf, "(vulkan: %" PRIu32 " print lines of this launch were lost: "
                           "its record buffer holds %u)\n", claimed - PRINT_CAP, PRINT_CAP);
        okk = append(dev, &s->out, buf, len > 0 ? (size_t)len : 0);
    }
    if (order)
        cvm_vm_dev_free(dev, order, n * sizeof *order);
    return okk;
}

/*
 * The launch's fault, if a unit executed a trap or failed an assert: the
 * record of the lowest (cube, unit), reported in the cpu device's words.
 */
bool cvm_vk_print_fault(const vk_print *p, cvm_diag *why)
{
    uint32_t faults = p->map[2], claimed = p->map[0], n = claimed < PRINT_CAP ? claimed : PRINT_CAP;
    const uint32_t *best = NULL;
    if (!faults)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *r = p->map + CVM_SPV_PRINT_HEAD + (size_t)i * CVM_SPV_PRINT_WORDS;
        if (r[0] < p->nsites && p->sites[r[0]].kind != CVM_SPV_SITE_PRINT &&
            (!best || r[1] < best[1] || (r[1] == best[1] && r[2] < best[2])))
            best = r;
    }
    memset(why, 0, sizeof *why);
    if (!best) { /* every fault record landed past the capacity */
        cvm_diag_set(why, CVM_FAULT, "trap or assertion failed in kernel '%s' (%" PRIu32 " fault "
                     "records lost: print records filled the buffer)", p->kernel, faults);
        return true;
    }
    const cvm_spv_print *site = &p->sites[best[0]];
    char where[24] = "";
    if (site->line)
        snprintf(where, sizeof where, " (line %" PRIu32 ")", site->line);
    if (site->kind == CVM_SPV_SITE_LOOP)
        cvm_diag_set(why, CVM_FAULT, "loop limit: a unit's loops reached %" PRIu32 " iterations, where this "
                     "driver ends a shader's loops whatever their conditions say (lavapipe's limit), so the "
                     "results would be wrong; run it on the cpu device, in kernel '%s' cube (%u,%u,%u) unit "
                     "(%u,%u,%u) plane %u lane %u pc %u%s", p->loop_limit, p->kernel, best[4], best[5],
                     best[6], best[7], best[8], best[9], best[10], best[11], site->pc, where);
    else
        cvm_diag_set(why, CVM_FAULT, "%s: %.200s in kernel '%s' cube (%u,%u,%u) unit (%u,%u,%u) plane %u "
                     "lane %u pc %u%s", site->kind == CVM_SPV_SITE_TRAP ? "trap" : "assertion failed",
                     p->formats[best[0]], p->kernel, best[4], best[5], best[6], best[7], best[8],
                     best[9], best[10], best[11], site->pc, where);
    for (char *c = why->message; *c; c++) /* one line, whatever the message holds */
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    why->has_fault = 1;
    cvm_fault *f = &why->fault;
    snprintf(f->kernel, sizeof f->kernel, "%s", p->kernel);
    memcpy(f->cube, best + 4, sizeof f->cube);
    memcpy(f->unit, best + 7, sizeof f->unit);
    f->plane = best[10];
    f->lane = best[11];
    f->pc = site->pc;
    snprintf(f->file, sizeof f->file, "%s", p->files[best[0]]);
    f->line = site->line;
    f->count = faults;
    return true;
}

const char *cvm_vk_stream_output(cvm_stream *s)
{
    cvm_device *dev = s->dev;
    cvm_vk_stream_wait(s); /* the records of queued launches are formatted as they finish */
    if (s->shown.data)
        cvm_vm_dev_free(dev, s->shown.data, s->shown.cap);
    memset(&s->shown, 0, sizeof s->shown);
    if (!s->out.len)
        return "";
    s->out.data[s->out.len] = '\0'; /* append keeps room for it */
    s->shown = s->out;
    memset(&s->out, 0, sizeof s->out);
    return s->shown.data;
}
