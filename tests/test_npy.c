/*
 * test_npy.c - the .npy reader and writer (vm/npy.c): the exact bytes of a
 * written header (worked out by hand), every dtype, format versions 1-3,
 * header dict variations, malformed and unsupported files, and a file
 * round trip through the public cvm_npy_save/cvm_npy_load.
 */
#include "../vm/npy.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S10 "          "

/* Builds a .npy image: magic, version, header length, dict (as given), data. */
static size_t image(uint8_t *out, unsigned major, const char *dict, const void *data, size_t n)
{
    size_t dl = strlen(dict), pre = major == 1 ? 10 : 12;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    out[8] = (uint8_t)dl;
    out[9] = (uint8_t)(dl >> 8);
    if (major != 1) {
        out[10] = (uint8_t)(dl >> 16);
        out[11] = (uint8_t)(dl >> 24);
    }
    memcpy(out + pre, dict, dl);
    if (n)
        memcpy(out + pre + dl, data, n);
    return pre + dl + n;
}

static cvm_status parse(const uint8_t *img, size_t size, cvm_vm_npy_header *h, cvm_diag *d)
{
    memset(d, 0, sizeof *d);
    return cvm_vm_npy_parse(img, size, "t.npy", h, d);
}

static void test_written_header(void)
{
    /* 10 prefix bytes + 57-byte dict + 60 spaces + '\n' = 128: data starts 64-aligned. */
    static const char want[] = "\x93NUMPY\x01\x00\x76\x00"
                               "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
                               S10 S10 S10 S10 S10 S10 "\n";
    char got[CVM_VM_NPY_HEADER_CAP];
    size_t n = cvm_vm_npy_header_format(CVM_F32, 3, got);
    is_int((long long)n, 128, "f32 (3,) header is 128 bytes");
    ok(n == 128 && memcmp(got, want, 128) == 0, "f32 (3,) header bytes match the hand-written ones");

    /* 1234567 elements: the dict grows by 6 digits to 63 and still pads to 128. */
    n = cvm_vm_npy_header_format(CVM_U8, 1234567, got);
    is_int((long long)n, 128, "u8 (1234567,) header is 128 bytes");
    ok(n == 128 && memcmp(got + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (1234567,), } ", 64) == 0 && got[127] == 0x0a,
       "u8 header dict");
    is_int((long long)cvm_vm_npy_header_format((cvm_elem)0, 1, got), 0, "invalid elem gives no header");
}

static void test_dtypes(void)
{
    static const struct {
        const char *descr;
        cvm_elem elem;
        unsigned size;
    } t[] = {
        {"<f4", CVM_F32, 4}, {"<f8", CVM_F64, 8}, {"<f2", CVM_F16, 2}, {"|i1", CVM_I8, 1},
        {"<i1", CVM_I8, 1},  {"<i2", CVM_I16, 2}, {"<i4", CVM_I32, 4}, {"<i8", CVM_I64, 8},
        {"|u1", CVM_U8, 1},  {"<u2", CVM_U16, 2}, {"<u4", CVM_U32, 4}, {"<u8", CVM_U64, 8},
        {"|b1", CVM_BOOL, 1}, {">i1", CVM_I8, 1}, {">u1", CVM_U8, 1},
    };
    uint8_t img[512], data[16 * 8];
    for (unsigned i = 0; i < 16 * 8; i++)
        data[i] = (uint8_t)i;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2, 3), }\n",
                 t[i].descr);
        size_t n = image(img, 1, dict, data, 6 * t[i].size);
        cvm_vm_npy_header h;
        cvm_diag d;
        cvm_status st = parse(img, n, &h, &d);
        ok(st == CVM_OK && h.elem == t[i].elem && h.count == 6 && h.elem_size == t[i].size &&
               h.data_offset == 10 + strlen(dict) && strcmp(h.descr, t[i].descr) == 0,
           "dtype %s parses as elem %d", t[i].descr, (int)t[i].elem);
        if (st)
            diag("%s", d.message);
    }
    /* Every element type writes a header that parses back to the same type (bf16 as <u2). */
    for (int e = CVM_BOOL; e <= CVM_F64; e++) {
        char hdr[CVM_VM_NPY_HEADER_CAP];
        size_t n = cvm_vm_npy_header_format((cvm_elem)e, 2, hdr);
        memcpy(img, hdr, n);
        memset(img + n, 0, 16);
        unsigned size = (e == CVM_BOOL || e == CVM_I8 || e == CVM_U8) ? 1
                        : (e == CVM_I16 || e == CVM_U16 || e == CVM_F16 || e == CVM_BF16) ? 2
                        : (e == CVM_I32 || e == CVM_U32 || e == CVM_F32) ? 4 : 8;
        cvm_vm_npy_header h;
        cvm_diag d;
        cvm_status st = parse(img, n + 2 * size, &h, &d);
        cvm_elem want = e == CVM_BF16 ? CVM_U16 : (cvm_elem)e;
        ok(st == CVM_OK && h.elem == want && h.count == 2 && n % 64 == 0,
           "written header of elem %d parses back", e);
    }
}

static void test_variants(void)
{
    uint8_t img[512];
    const float v[2] = {1.5f, -2.0f};
    cvm_vm_npy_header h;
    cvm_diag d;
    size_t n = image(img, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.version == 2 && h.count == 2 && h.data_offset == n - 8,
       "format 2.0 (32-bit header length)");
    n = image(img, 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.version == 3, "format 3.0");
    n = image(img, 1, "{\"shape\": (2,), \"descr\": \"<f4\", \"fortran_order\": False}", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.count == 2, "other key order, double quotes, no trailing comma");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", v, 4);
    ok(parse(img, n, &h, &d) == CVM_OK && h.count == 1 && h.ndim == 0, "shape () is one element");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", v, 0);
    ok(parse(img, n, &h, &d) == CVM_OK && h.count == 0, "shape (0,) with no data");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK, "1-D Fortran order is the same layout: accepted");
    /* as numpy 1.24 reads them (np.lib.format.descr_to_dtype): '|f4' and 'float32' are '<f4' on
     * this little-endian host (both were refused) */
    n = image(img, 1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.elem == CVM_F32 && h.count == 2, "'|f4' is the host's order, as numpy");
    n = image(img, 1, "{'descr': 'float32', 'fortran_order': False, 'shape': (2,), }", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.elem == CVM_F32, "a type name: 'float32' is '<f4'");
    n = image(img, 1, "{'descr': 'double', 'fortran_order': False, 'shape': (1,), }", v, 8);
    ok(parse(img, n, &h, &d) == CVM_OK && h.elem == CVM_F64, "'double' is '<f8'");
    /* numpy 1.24: np.dtype('float') is '<f8', 'int' '<i8', 'f' '<f4', 'i' '<i4', 'B' '|u1' */
    static const struct { const char *name; cvm_elem e; size_t size; } names[] = {
        {"float", CVM_F64, 8}, {"int", CVM_I64, 8}, {"f", CVM_F32, 4}, {"i", CVM_I32, 4}, {"B", CVM_U8, 1}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }", names[i].name);
        n = image(img, 1, dict, v, names[i].size);
        ok(parse(img, n, &h, &d) == CVM_OK && h.elem == names[i].e, "numpy's name '%s' (%s)", names[i].name,
           d.message);
    }
}

/* A malformed image must fail with `want` and a message naming the file and `word`. */
static void bad(const uint8_t *img, size_t n, cvm_status want, const char *word, const char *name)
{
    cvm_vm_npy_header h;
    cvm_diag d;
    cvm_status st = parse(img, n, &h, &d);
    ok(st == want && strncmp(d.message, "t.npy: ", 7) == 0 && strstr(d.message, word),
       "%s: status %d, message names the file and says '%s'", name, (int)want, word);
    if (st != want || !strstr(d.message, word))
        diag("got %d: %s", (int)st, d.message);
}

static void test_malformed(void)
{
    uint8_t img[512];
    const float v[4] = {1, 2, 3, 4};
    size_t n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", v, 16);
    bad(img, 6, CVM_MALFORMED, "truncated .npy file", "truncated before the version");
    bad(img, 40, CVM_MALFORMED, "truncated", "truncated inside the header");
    bad(img, n - 1, CVM_MALFORMED, "needs 4 elements", "data one byte short");
    img[n] = 0;
    bad(img, n + 1, CVM_MALFORMED, "data bytes", "one extra data byte");
    img[1] = 'n';
    bad(img, n, CVM_MALFORMED, "bad magic", "bad magic");
    img[1] = 'N';
    img[6] = 4;
    bad(img, n, CVM_UNSUPPORTED, "version 4", "format version 4");
    /* version 2 with a 4 GiB header length */
    uint8_t huge[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff, '{', '}', 0, 0};
    bad(huge, sizeof huge, CVM_MALFORMED, "exceeds", "huge header length");
    n = image(img, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "big-endian", "big-endian f4");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "Fortran", "Fortran order 2-D");
    n = image(img, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "object", "object dtype");
    n = image(img, 1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (4,), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "structured", "structured dtype");
    n = image(img, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "not supported", "complex dtype");
    n = image(img, 1, "{'descr': '<f4', 'shape': (4,), }", v, 16);
    bad(img, n, CVM_MALFORMED, "needs", "missing fortran_order");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", v, 16);
    bad(img, n, CVM_MALFORMED, "unknown", "unknown key");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", v, 16);
    bad(img, n, CVM_MALFORMED, "non-negative", "negative dimension");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", v, 16);
    bad(img, n, CVM_MALFORMED, "overflows", "element count overflow");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,), }", v, 16);
    bad(img, n, CVM_MALFORMED, "True or False", "fortran_order not a bool");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", v, 16);
    bad(img, n, CVM_MALFORMED, "junk", "junk after the dict");
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,", v, 0);
    bad(img, n, CVM_MALFORMED, "shape", "unterminated shape");
    /* (4) is the integer 4 in Python: numpy refuses it ("shape is not valid"); it was taken */
    n = image(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", v, 16);
    bad(img, n, CVM_MALFORMED, "written (4,)", "shape (4) without the tuple's comma");
    n = image(img, 1, "{'descr': 'float99', 'fortran_order': False, 'shape': (4,), }", v, 16);
    bad(img, n, CVM_UNSUPPORTED, "not supported", "an unknown type name");
    /* a NUL inside the descr string (it read as '<f4', session 23's fuzzing) */
    n = image(img, 1, "{'descr': '<f4#', 'fortran_order': False, 'shape': (4,), }", v, 16);
    for (size_t i = 0; i < n; i++)
        if (img[i] == '#')
            img[i] = 0;
    bad(img, n, CVM_MALFORMED, "NUL", "a NUL byte in the descr");
}

static void test_files(void)
{
    const char *dir = getenv("TEST_TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/rt.npy", dir && *dir ? dir : "/tmp");
    const int16_t v[5] = {1, -2, 300, -32768, 32767};
    cvm_diag d;
    memset(&d, 0, sizeof d);
    ok(cvm_npy_save(path, CVM_I16, v, 5, &d) == CVM_OK, "save i16 x5");
    FILE *f = fopen(path, "rb");
    uint8_t raw[256];
    size_t n = f ? fread(raw, 1, sizeof raw, f) : 0;
    if (f)
        fclose(f);
    /* little-endian by hand: 1, -2 = 0xfffe, 300 = 0x012c, -32768 = 0x8000, 32767 = 0x7fff */
    static const uint8_t want_data[10] = {1, 0, 0xfe, 0xff, 0x2c, 1, 0, 0x80, 0xff, 0x7f};
    ok(n == 138 && memcmp(raw + 128, want_data, 10) == 0, "file is a 128-byte header + 10 data bytes");
    cvm_npy a;
    ok(cvm_npy_load(path, &a, &d) == CVM_OK && a.elem == CVM_I16 && a.count == 5 && a.size == 10 &&
           memcmp(a.data, v, 10) == 0 && strcmp(a.descr, "<i2") == 0,
       "load gives the same elements back");
    cvm_free_bytes(a.data);

    const uint16_t bf[2] = {0x3f80, 0xc000}; /* bf16 1.0, -2.0 */
    ok(cvm_npy_save(path, CVM_BF16, bf, 2, &d) == CVM_OK && cvm_npy_load(path, &a, &d) == CVM_OK &&
           a.elem == CVM_U16 && strcmp(a.descr, "<u2") == 0 && memcmp(a.data, bf, 4) == 0,
       "bf16 travels as <u2 bit patterns");
    cvm_free_bytes(a.data);

    snprintf(path, sizeof path, "%s/missing/none.npy", dir && *dir ? dir : "/tmp");
    cvm_status st = cvm_npy_load(path, &a, &d);
    ok(st == CVM_IO && strstr(d.message, "none.npy") && strstr(d.message, "No such file"),
       "missing file: CVM_IO naming the path and the reason");
    st = cvm_npy_save(path, CVM_F32, v, 1, &d);
    ok(st == CVM_IO && strstr(d.message, "none.npy"), "unwritable path: CVM_IO naming the path");
    /* 2^62 floats are 2^64 bytes: the size wrapped to 0 and a header alone was written, CVM_OK */
    snprintf(path, sizeof path, "%s/huge.npy", dir && *dir ? dir : "/tmp");
    st = cvm_npy_save(path, CVM_F32, v, UINT64_C(1) << 62, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "huge.npy") && strstr(d.message, "do not fit"),
       "an element count whose bytes overflow is refused (%s)", d.message);
    st = cvm_npy_save(path, CVM_F32, NULL, 4, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "NULL data"), "NULL data with a count is refused");
    cvm_npy got;
    ok(cvm_npy_load(path, NULL, &d) == CVM_INVALID_ARGUMENT && cvm_npy_load(NULL, &got, &d) == CVM_INVALID_ARGUMENT,
       "loading with a NULL path or result is refused (%s)", d.message);
}

int main(void)
{
    test_written_header();
    test_dtypes();
    test_variants();
    test_malformed();
    test_files();
    return done_testing();
}
