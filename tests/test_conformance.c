/*
 * test_conformance.c - runs the device-neutral conformance suite
 * (tests/conformance/NAME.case with NAME.cbs kernels, format in
 * tests/conformance/README.md) on the cpu device, one TAP line per case;
 * cases whose requirements the device lacks are skipped with the reason.
 * Run from the repository root (make check does).
 */
#include "kern.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#define DIR_PATH "tests/conformance"
#define MAX_ITEMS 16

typedef struct item {
    char name[64];
    int is_buffer;
    cvm_elem elem;
    size_t count, size; /* elements, element bytes */
    unsigned char *init; /* count * size bytes, NULL = zeros */
    cvm_buffer *buf;
    /* expectation (buffers) */
    char mode[64];
    double a, r;
    unsigned char *want;
} item;

typedef struct kcase {
    char kernel[64], skip[192], err[160];
    uint32_t grid, block, width;
    item items[MAX_ITEMS];
    int nitems;
    char outputs[4][128];
    int noutputs;
} kcase;

static const struct { const char *name; cvm_elem elem; size_t size; } types[] = {
    {"i8", CVM_I8, 1},   {"u8", CVM_U8, 1},   {"i16", CVM_I16, 2}, {"u16", CVM_U16, 2},
    {"i32", CVM_I32, 4}, {"u32", CVM_U32, 4}, {"i64", CVM_I64, 8}, {"u64", CVM_U64, 8},
    {"f32", CVM_F32, 4}, {"f64", CVM_F64, 8}};

static int type_of(const char *s, item *it)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(s, types[i].name)) {
            it->elem = types[i].elem;
            it->size = types[i].size;
            return 1;
        }
    return 0;
}

/* Parses `count` values of the item's type from `s` into a new array. */
static unsigned char *parse_values(const item *it, char *s, char *err, size_t errcap)
{
    unsigned char *out = calloc(it->count ? it->count : 1, it->size);
    char *end;
    for (size_t i = 0; out && i < it->count; i++) {
        unsigned char *dst = out + i * it->size;
        while (*s == ' ' || *s == '\t')
            s++;
        if (it->elem == CVM_F32 || it->elem == CVM_F64) {
            double d = strtod(s, &end);
            if (it->elem == CVM_F32) {
                float f = (float)d;
                memcpy(dst, &f, 4);
            } else {
                memcpy(dst, &d, 8);
            }
        } else if (*s == '-') {
            long long v = strtoll(s, &end, 0);
            memcpy(dst, &v, it->size); /* little-endian: the low bytes */
        } else {
            unsigned long long v = strtoull(s, &end, 0);
            memcpy(dst, &v, it->size);
        }
        if (end == s) {
            snprintf(err, errcap, "%s: value %zu of %zu missing or bad", it->name, i + 1, it->count);
            free(out);
            return NULL;
        }
        s = end;
    }
    return out;
}

static item *find_item(kcase *c, const char *name)
{
    for (int i = 0; i < c->nitems; i++)
        if (!strcmp(c->items[i].name, name))
            return &c->items[i];
    return NULL;
}

/* Reads one line of a case file into `c`; returns 0 with c->err set on a bad line. */
static int parse_line(kcase *c, char *line)
{
    char w[5][64] = {{0}};
    char *eq = strstr(line, " = ");
    if (eq)
        *eq = 0;
    int n = sscanf(line, "%63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4]);
    if (n <= 0 || w[0][0] == '#')
        return 1;
    if (!strcmp(w[0], "kernel") && n == 2) {
        snprintf(c->kernel, sizeof c->kernel, "%s", w[1]);
    } else if (!strcmp(w[0], "launch") && n == 3) {
        c->grid = (uint32_t)atoi(w[1]);
        c->block = (uint32_t)atoi(w[2]);
    } else if (!strcmp(w[0], "require")) {
        /* the cpu device runs f64 and plane widths 1..64 */
        if (!strcmp(w[1], "plane_width") && n == 3 && atoi(w[2]) >= 1 && atoi(w[2]) <= 64)
            c->width = (uint32_t)atoi(w[2]);
        else if (strcmp(w[1], "f64") != 0 && !c->skip[0])
            snprintf(c->skip, sizeof c->skip, "cpu device lacks: %s %s", w[1], w[2]);
    } else if ((!strcmp(w[0], "buffer") && (n == 4)) || (!strcmp(w[0], "scalar") && n == 3)) {
        item *it = &c->items[c->nitems];
        if (c->nitems == MAX_ITEMS || !type_of(w[2], it))
            return snprintf(c->err, sizeof c->err, "bad item line: %.100s", line), 0;
        snprintf(it->name, sizeof it->name, "%s", w[1]);
        it->is_buffer = w[0][0] == 'b';
        it->count = it->is_buffer ? (size_t)strtoull(w[3], NULL, 0) : 1;
        if ((eq || !it->is_buffer) &&
            !(it->init = parse_values(it, eq ? eq + 3 : line + (strstr(line, w[2]) - line) + strlen(w[2]),
                                      c->err, sizeof c->err)))
            return 0;
        c->nitems++;
    } else if (!strcmp(w[0], "expect") && n >= 3 && eq) {
        item *it = find_item(c, w[1]);
        if (!it || !it->is_buffer)
            return snprintf(c->err, sizeof c->err, "expect names no buffer: %s", w[1]), 0;
        snprintf(it->mode, sizeof it->mode, "%s", w[2]);
        it->a = n > 3 ? atof(w[3]) : 0;
        it->r = n > 4 ? atof(w[4]) : 0;
        if (!(it->want = parse_values(it, eq + 3, c->err, sizeof c->err)))
            return 0;
    } else if (!strcmp(w[0], "output") && c->noutputs < 4) {
        char *q1 = strchr(line, '"'), *q2 = q1 ? strrchr(line, '"') : NULL;
        if (!q1 || q2 == q1)
            return snprintf(c->err, sizeof c->err, "output needs a quoted string"), 0;
        snprintf(c->outputs[c->noutputs++], sizeof c->outputs[0], "%.*s", (int)(q2 - q1 - 1), q1 + 1);
    } else {
        return snprintf(c->err, sizeof c->err, "unknown line: %.100s", line), 0;
    }
    return 1;
}

/* Maps float bits to integers whose distance is the ULP distance. */
static int64_t ordered(const unsigned char *p, cvm_elem e)
{
    if (e == CVM_F32) {
        int32_t i;
        memcpy(&i, p, 4);
        return i < 0 ? (int64_t)INT32_MIN - i : i;
    }
    int64_t i;
    memcpy(&i, p, 8);
    return i < 0 ? INT64_MIN - i : i;
}

static double as_double(const unsigned char *p, cvm_elem e)
{
    if (e == CVM_F32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

static size_t elem_size_g;
static int cmp_bytes(const void *a, const void *b) { return memcmp(a, b, elem_size_g); }

/* 1 if element `got` matches `want` under the item's mode. */
static int elem_ok(const item *it, const unsigned char *got, const unsigned char *want)
{
    int is_float = it->elem == CVM_F32 || it->elem == CVM_F64;
    if (is_float && isnan(as_double(want, it->elem)))
        return isnan(as_double(got, it->elem));
    if (!strcmp(it->mode, "ulp")) {
        int64_t d = ordered(got, it->elem) - ordered(want, it->elem);
        return (d < 0 ? -d : d) <= (int64_t)it->a;
    }
    if (!strcmp(it->mode, "absrel")) {
        double g = as_double(got, it->elem), w = as_double(want, it->elem);
        return fabs(g - w) <= it->a + it->r * fabs(w);
    }
    return memcmp(got, want, it->size) == 0;
}

/* Compares a buffer with its expectation; describes the first mismatch in `why`. */
static int check_item(item *it, unsigned char *got, char *why, size_t cap)
{
    if (!strcmp(it->mode, "unordered")) {
        elem_size_g = it->size;
        qsort(got, it->count, it->size, cmp_bytes);
        qsort(it->want, it->count, it->size, cmp_bytes);
    } else if (strcmp(it->mode, "exact") && strcmp(it->mode, "ulp") && strcmp(it->mode, "absrel")) {
        snprintf(why, cap, "%s: unknown comparison mode '%s'", it->name, it->mode);
        return 0;
    }
    for (size_t i = 0; i < it->count; i++) {
        if (!elem_ok(it, got + i * it->size, it->want + i * it->size)) {
            uint64_t g = 0, w = 0;
            memcpy(&g, got + i * it->size, it->size);
            memcpy(&w, it->want + i * it->size, it->size);
            snprintf(why, cap, "%s[%zu] (%s): got 0x%llx, want 0x%llx", it->name, i, it->mode,
                     (unsigned long long)g, (unsigned long long)w);
            return 0;
        }
    }
    return 1;
}

/* Launches the case's kernel and checks every expectation; fills `why` on failure. */
static int run_case(kcase *c, const char *base, char *why, size_t cap)
{
    char path[512];
    cvm_module *mod = NULL;
    const cvm_kernel *k = NULL;
    cvm_arg args[MAX_ITEMS];
    cvm_diag d;
    int good = 0;
    memset(&d, 0, sizeof d);
    snprintf(path, sizeof path, "%s/%s.cbs", DIR_PATH, base);
    cvm_status st = cvm_module_load_file(kern_dev, path, &mod, &d);
    if (st == CVM_OK)
        st = cvm_kernel_get(mod, c->kernel, &k, &d);
    for (int i = 0; st == CVM_OK && i < c->nitems; i++) {
        item *it = &c->items[i];
        if (it->is_buffer) {
            it->buf = kern_buf(it->name, it->count * it->size, it->init);
            if (!it->buf)
                st = CVM_OUT_OF_MEMORY;
            args[i] = kern_arg_buf(it->buf);
        } else {
            args[i] = kern_arg_bytes(it->init, it->size);
        }
    }
    cvm_launch_config cfg = kern_cfg(c->grid, c->block);
    cfg.plane_width = c->width;
    if (st == CVM_OK)
        st = cvm_launch(kern_stream(), k, &cfg, args, (uint32_t)c->nitems, &d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), &d);
    if (st != CVM_OK) {
        snprintf(why, cap, "%s: %s", cvm_status_str(st), d.message);
        goto done;
    }
    const char *out = cvm_stream_output(kern_stream());
    good = 1;
    for (int i = 0; good && i < c->noutputs; i++)
        if (!out || !strstr(out, c->outputs[i])) {
            snprintf(why, cap, "print output lacks \"%s\"", c->outputs[i]);
            good = 0;
        }
    for (int i = 0; good && i < c->nitems; i++) {
        item *it = &c->items[i];
        if (!it->want)
            continue;
        unsigned char *got = malloc(it->count * it->size);
        good = got && kern_read(it->buf, got, it->count * it->size) && check_item(it, got, why, cap);
        free(got);
    }
done:
    for (int i = 0; i < c->nitems; i++)
        if (c->items[i].buf)
            cvm_buffer_free(c->items[i].buf);
    if (mod)
        cvm_module_free(mod);
    return good;
}

static void one_case(const char *base)
{
    static kcase c;
    char path[512], line[16384], why[640] = "";
    memset(&c, 0, sizeof c);
    snprintf(path, sizeof path, "%s/%s.case", DIR_PATH, base);
    FILE *f = fopen(path, "r");
    int parsed = f != NULL;
    while (parsed && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        parsed = parse_line(&c, line);
    }
    if (f)
        fclose(f);
    if (!parsed || !c.kernel[0] || !c.block) {
        ok(0, "%s: case file (%s)", base, c.err[0] ? c.err : "missing kernel or launch");
    } else if (c.skip[0]) {
        skip("%s: %s", base, c.skip);
    } else {
        if (!ok(run_case(&c, base, why, sizeof why), "%s", base))
            diag("  %s", why);
    }
    for (int i = 0; i < c.nitems; i++) {
        free(c.items[i].init);
        free(c.items[i].want);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    char *names[256];
    size_t n = 0;
    DIR *dir = opendir(DIR_PATH);
    if (!dir) {
        ok(0, "open %s (run from the repository root)", DIR_PATH);
        return done_testing();
    }
    for (struct dirent *e; (e = readdir(dir)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".case"))
            names[n] = strndup(e->d_name, len - 5), n += names[n] != NULL;
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], cmp_str);
    ok(n >= 20, "at least 20 conformance cases (%zu)", n);
    if (kern_open()) {
        for (size_t i = 0; i < n; i++)
            one_case(names[i]);
        kern_close();
    } else {
        ok(0, "cpu device opens");
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return done_testing();
}
