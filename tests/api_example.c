/*
 * api_example.c - a complete host program for libcubevm (docs/api.md).
 * Build against an installed copy:
 *   cc api_example.c $(pkg-config --cflags --libs cubevm) -o api_example
 */
#include <cubevm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two kernels in .cbs text: c = a + b, and one that writes out[i] = i for
 * every unit without a bounds test (so a too-small buffer faults). */
static const char source[] =
    ".kernel vadd\n"
    ".param a buffer f32 read\n"
    ".param b buffer f32 read\n"
    ".param c buffer f32 write\n"
    ".param n scalar u32\n"
    ".reg u32 %i, %n\n"
    ".reg bool %inside\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %pa, %pb, %pc\n"
    ".reg f32 %x, %y, %sum\n"
    "    sreg.u32 %i, abs_pos.x\n"
    "    param.u32 %n, n, 0\n"
    "    lt.u32 %inside, %i, %n\n"
    "    if %inside\n"
    "        cvt.i64 %off, %i\n"
    "        const.i64 %four, 4\n"
    "        mul.i64 %off, %off, %four\n"
    "        param.ptr.global %pa, a, 0\n"
    "        param.ptr.global %pb, b, 0\n"
    "        param.ptr.global %pc, c, 0\n"
    "        ptr.add.ptr.global %pa, %pa, %off\n"
    "        ptr.add.ptr.global %pb, %pb, %off\n"
    "        ptr.add.ptr.global %pc, %pc, %off\n"
    "        ld.f32 %x, [%pa]\n"
    "        ld.f32 %y, [%pb]\n"
    "        add.f32 %sum, %x, %y\n"
    "        st.f32 [%pc], %sum\n"
    "    end\n"
    "    return\n"
    ".end\n"
    ".kernel fill\n"
    ".param out buffer u32 write\n"
    ".reg u32 %i\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n"
    "    cvt.i64 %off, %i\n"
    "    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n"
    "    st.u32 [%p], %i\n"
    "    return\n"
    ".end\n";

/* An allocator hook that counts what the library holds (Lua's contract). */
typedef struct counter {
    size_t held, peak, calls;
} counter;

static void *counting_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counter *c = user;
    if (new_size == 0) {
        free(ptr);
        c->held -= ptr ? old_size : 0;
        return NULL;
    }
    void *p = aligned_alloc(64, (new_size + 63) / 64 * 64);
    if (!p)
        return NULL; /* the library reports CVM_OUT_OF_MEMORY */
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
        c->held -= old_size;
    }
    c->held += new_size;
    c->calls++;
    if (c->held > c->peak)
        c->peak = c->held;
    return p;
}

static const char *const elem_names[] = {"?",   "bool", "i8",  "i16", "i32",  "i64", "u8",
                                         "u16", "u32",  "u64", "f16", "bf16", "f32", "f64"};
static const char *const kind_names[] = {"buffer", "scalar", "struct", "comptime"};

/* Prints a kernel's signature from its introspection data. */
static void print_signature(const cvm_kernel *k)
{
    cvm_kernel_info info;
    cvm_kernel_info_get(k, &info);
    printf("kernel %s(", info.name);
    for (uint32_t i = 0; i < info.param_count; i++) {
        cvm_param_info p;
        if (cvm_kernel_param(k, i, &p) != CVM_OK)
            break;
        printf("%s%s: %s %s", i ? ", " : "", p.name, kind_names[p.kind],
               p.elem <= CVM_F64 ? elem_names[p.elem] : "?");
        if (p.kind == CVM_PARAM_BUFFER)
            printf(" %s", p.access == CVM_ACCESS_READ    ? "read"
                          : p.access == CVM_ACCESS_WRITE ? "write"
                                                         : "readwrite");
    }
    printf(")\n");
}

/* Prints a failed call's diagnostic, with the fault record when there is one. */
static void print_diag(const char *what, cvm_status st, const cvm_diag *d)
{
    printf("%s: %s: %s\n", what, cvm_status_str(st), d->message);
    if (d->has_fault) {
        const cvm_fault *f = &d->fault;
        printf("  at kernel %s, cube (%u,%u,%u), unit (%u,%u,%u), plane %u, lane %u, pc %u; "
               "%u faults\n",
               f->kernel, f->cube[0], f->cube[1], f->cube[2], f->unit[0], f->unit[1], f->unit[2],
               f->plane, f->lane, f->pc, f->count);
    }
}

enum { N = 1000 };

int main(void)
{
    counter mem = {0, 0, 0};
    cvm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.alloc = counting_alloc;
    cfg.alloc_user = &mem;
    cfg.memory_limit = 64u << 20; /* the library may hold at most 64 MiB */
    cfg.threads = 2;

    cvm_diag d;
    cvm_device *dev = NULL;
    cvm_stream *s = NULL;
    cvm_module *mod = NULL;
    cvm_buffer *a = NULL, *b = NULL, *c = NULL, *small = NULL;
    void *bytes = NULL;
    size_t size = 0;
    const cvm_kernel *vadd = NULL, *fill = NULL;
    int rc = 1;
    cvm_status st;

    /* Device, stream, module. The module bytes are copied: free them at once. */
    if ((st = cvm_device_open("cpu", &cfg, &dev, &d)) != CVM_OK) {
        print_diag("device", st, &d);
        return 1;
    }
    cvm_device_limits lim;
    cvm_device_limits_get(dev, &lim, NULL);
    printf("device %s, profile %s, plane widths %u..%u, at most %u units per cube\n", lim.device,
           lim.profile, lim.plane_width_min, lim.plane_width_max, lim.max_cube_units);
    if ((st = cvm_stream_create(dev, &s, &d)) != CVM_OK)
        goto fail;
    st = cvm_assemble(source, strlen(source), "example.cbs", &bytes, &size, &d);
    if (st != CVM_OK)
        goto fail;
    st = cvm_module_load(dev, bytes, size, &mod, &d);
    cvm_free_bytes(bytes);
    if (st != CVM_OK)
        goto fail;
    if ((st = cvm_kernel_get(mod, "vadd", &vadd, &d)) != CVM_OK ||
        (st = cvm_kernel_get(mod, "fill", &fill, &d)) != CVM_OK)
        goto fail;
    print_signature(vadd);

    /* Buffers and their data: a[i] = i, b[i] = 2i. */
    static float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * (float)i;
    }
    if ((st = cvm_buffer_create(dev, sizeof ha, "a", &a, &d)) != CVM_OK ||
        (st = cvm_buffer_create(dev, sizeof hb, "b", &b, &d)) != CVM_OK ||
        (st = cvm_buffer_create(dev, sizeof hc, "c", &c, &d)) != CVM_OK ||
        (st = cvm_buffer_create(dev, 16 * sizeof(uint32_t), "small", &small, &d)) != CVM_OK)
        goto fail;
    if ((st = cvm_buffer_write(s, a, 0, ha, sizeof ha, &d)) != CVM_OK ||
        (st = cvm_buffer_write(s, b, 0, hb, sizeof hb, &d)) != CVM_OK)
        goto fail;

    /* c = a + b: 4 cubes of 256 units cover the 1000 elements. */
    uint32_t n = N;
    cvm_arg args[4] = {
        {.kind = CVM_ARG_BUFFER, .buffer = a},
        {.kind = CVM_ARG_BUFFER, .buffer = b},
        {.kind = CVM_ARG_BUFFER, .buffer = c},
        {.kind = CVM_ARG_BYTES, .bytes = &n, .size = sizeof n},
    };
    cvm_launch_config lc = {.grid = {4, 1, 1}, .block = {256, 1, 1}};
    if ((st = cvm_launch(s, vadd, &lc, args, 4, &d)) != CVM_OK)
        goto fail;
    if ((st = cvm_buffer_read(s, c, 0, hc, sizeof hc, &d)) != CVM_OK ||
        (st = cvm_stream_sync(s, &d)) != CVM_OK)
        goto fail;
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hc[i] != ha[i] + hb[i];
    printf("c[1] = %g, c[500] = %g, c[999] = %g\n", hc[1], hc[500], hc[999]);
    printf("%d of %d results differ from the host loop\n", bad, N);

    /* A fault: 32 units store into a buffer of 16 elements. The launch after
     * it on the same stream is skipped; sync reports the first fault. */
    cvm_arg fill_args[1] = {{.kind = CVM_ARG_BUFFER, .buffer = small}};
    cvm_launch_config one_cube = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
    cvm_buffer_fill(s, c, 0, sizeof hc, 0, NULL);
    if ((st = cvm_launch(s, fill, &one_cube, fill_args, 1, &d)) != CVM_OK ||
        (st = cvm_launch(s, vadd, &lc, args, 4, &d)) != CVM_OK)
        goto fail;
    st = cvm_stream_sync(s, &d);
    if (st == CVM_OK) {
        printf("expected a fault\n");
        goto fail;
    }
    print_diag("sync", st, &d);

    /* The stream is usable again; map gives the host the buffer's bytes. */
    void *p = NULL;
    if ((st = cvm_buffer_map(c, &p, &d)) != CVM_OK)
        goto fail;
    printf("after the fault: c[999] = %g (the vadd was skipped)\n", ((float *)p)[999]);
    cvm_buffer_unmap(c);
    if ((st = cvm_launch(s, vadd, &lc, args, 4, &d)) != CVM_OK ||
        (st = cvm_buffer_read(s, c, 999 * sizeof(float), hc, sizeof(float), &d)) != CVM_OK ||
        (st = cvm_stream_sync(s, &d)) != CVM_OK)
        goto fail;
    printf("relaunched: c[999] = %g\n", hc[0]);
    rc = 0;
    st = CVM_OK;
fail:
    if (st != CVM_OK)
        print_diag("error", st, &d);
    cvm_buffer_free(a);
    cvm_buffer_free(b);
    cvm_buffer_free(c);
    cvm_buffer_free(small);
    if (mod)
        cvm_module_free(mod);
    if (s)
        cvm_stream_destroy(s);
    cvm_device_close(dev);
    printf("allocator: peak %zu bytes, %zu bytes held after cleanup\n", mem.peak, mem.held);
    return rc;
}
