/*
 * test_asm.c - the assembler, disassembler and .cbc reader/writer.
 *
 * Golden diagnostics (tests/asm/err_*.cbs, first line "; expect error: TEXT"),
 * both round trips of docs/design.md item 11 over every .cbs file under tests/
 * and docs/examples/, float literal bit patterns worked out by hand, SHA-256
 * test vectors, and the reader's behaviour on truncated, corrupted and
 * hand-broken modules. Run from the repository root.
 */
#include "../bytecode/bc.h"
#include "slurp.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

static cvm_bc_module *assemble(const char *text, const char *name, cvm_diag *d)
{
    cvm_bc_module *m = NULL;
    if (cvm_bc_assemble(text, strlen(text), name, NULL, NULL, &m, d) != CVM_OK)
        return NULL;
    return m;
}

/* ---- golden diagnostics ---- */

static void check_error_file(const char *path)
{
    size_t n;
    char *text = test_slurp(path, &n);
    if (!text) {
        ok(0, "read %s", path);
        return;
    }
    const char *tag = "; expect error: ";
    char want[512] = "";
    if (strncmp(text, tag, strlen(tag)) == 0) {
        size_t e = strcspn(text + strlen(tag), "\n");
        snprintf(want, sizeof want, "%.*s", (int)e, text + strlen(tag));
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_bc_module *m = NULL;
    cvm_status st = cvm_bc_assemble(text, n, base, NULL, NULL, &m, &d);
    ok(st == CVM_SYNTAX && want[0] && strstr(d.message, want) != NULL, "%s: error matches", base);
    if (st != CVM_SYNTAX || !strstr(d.message, want))
        diag("  got \"%s\"\n#   want \"%s\"", st ? d.message : "(assembled fine)", want);
    /* the position in the diag agrees with the message */
    char pos[1024];
    snprintf(pos, sizeof pos, "%.200s:%u:%u: error: ", base, d.line, d.col);
    ok(st == CVM_SYNTAX && strncmp(d.message, pos, strlen(pos)) == 0 && strcmp(d.file, base) == 0,
       "%s: diag file/line/col", base);
    cvm_bc_module_free(m);
    free(text);
}

static void error_files(void)
{
    DIR *dir = opendir("tests/asm");
    if (!dir) {
        ok(0, "open tests/asm");
        return;
    }
    int count = 0;
    struct dirent *e;
    static char names[128][300];
    while ((e = readdir(dir)) && count < 128)
        if (strncmp(e->d_name, "err_", 4) == 0 && strstr(e->d_name, ".cbs"))
            snprintf(names[count++], sizeof names[0], "tests/asm/%s", e->d_name);
    closedir(dir);
    qsort(names, (size_t)count, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < count; i++)
        check_error_file(names[i]);
    ok(count >= 15, "at least 15 golden error files (%d)", count);
}

/* ---- round trips ---- */

static bool write_bytes(cvm_bc_module *m, void **b, size_t *n)
{
    cvm_diag d;
    return cvm_bc_module_write(m, b, n, &d) == CVM_OK;
}

static void round_trip(const char *path)
{
    size_t n;
    char *text = test_slurp(path, &n);
    cvm_diag d;
    cvm_bc_module *m0 = NULL, *m1 = NULL, *m2 = NULL, *m3 = NULL;
    void *b0 = NULL, *b1 = NULL;
    size_t s0 = 0, s1 = 0;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (!text || cvm_bc_assemble(text, n, path, NULL, NULL, &m0, &d)) {
        ok(0, "%s assembles", path);
        diag("  %s", text ? d.message : "cannot read");
        goto done;
    }
    bool good = write_bytes(m0, &b0, &s0) && cvm_bc_module_read(b0, s0, NULL, NULL, &m1, &d) == CVM_OK &&
                cvm_bc_disassemble(m1, &t1, &l1, &d) == CVM_OK &&
                cvm_bc_assemble(t1, l1, "disasm", NULL, NULL, &m2, &d) == CVM_OK && write_bytes(m2, &b1, &s1);
    ok(good && s0 == s1 && memcmp(b0, b1, s0) == 0, "%s: binary -> text -> binary is identical", path);
    if (!good)
        diag("  %s", d.message);
    good = good && cvm_bc_disassemble(m2, &t2, &l2, &d) == CVM_OK;
    ok(good && l1 == l2 && memcmp(t1, t2, l1) == 0, "%s: canonical text -> binary -> text is identical", path);
    /* the text is really canonical: it assembles to itself again */
    good = good && cvm_bc_assemble(t2, l2, "disasm2", NULL, NULL, &m3, &d) == CVM_OK;
    ok(good && memcmp(m3->hash, m0->hash, 32) == 0, "%s: content hash survives the round trip", path);
done:
    cvm_bc_module_free(m0);
    cvm_bc_module_free(m1);
    cvm_bc_module_free(m2);
    cvm_bc_module_free(m3);
    free(b0);
    free(b1);
    free(t1);
    free(t2);
    free(text);
}

static bool expects_error(const char *path)
{
    size_t n;
    char *t = test_slurp(path, &n);
    bool r = !t || strstr(t, "; expect error") != NULL;
    free(t);
    return r;
}

static int walk(const char *dirpath)
{
    DIR *dir = opendir(dirpath);
    int count = 0;
    if (!dir)
        return 0;
    char (*names)[600] = malloc(sizeof *names * 1024);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 1024)
        if (e->d_name[0] != '.')
            snprintf(names[n++], sizeof names[0], "%s/%s", dirpath, e->d_name);
    closedir(dir);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) != 0)
            continue;
        const char *base = strrchr(names[i], '/') + 1;
        size_t bl = strlen(base);
        if (S_ISDIR(st.st_mode)) {
            count += walk(names[i]);
        } else if (bl > 4 && strcmp(base + bl - 4, ".cbs") == 0 && strncmp(base, "err_", 4) != 0 &&
                   !expects_error(names[i])) {
            round_trip(names[i]);
            count++;
        }
    }
    free(names);
    return count;
}

/* ---- float literals: bit patterns worked out by hand ---- */

static uint64_t const_bits(const char *type, const char *lit, bool *good)
{
    char text[256];
    snprintf(text, sizeof text, ".kernel k\n.reg %s %%a\n    const.%s %%a, %s\n.end\n", type, type, lit);
    cvm_diag d;
    cvm_bc_module *m = assemble(text, "lit", &d);
    /* words: opcode, attributes, destination register, immediate low, immediate high */
    *good = m && m->kernels[0].ncode == 5;
    uint64_t v = *good ? m->kernels[0].code[3] | (uint64_t)m->kernels[0].code[4] << 32 : 0;
    if (!m)
        diag("  %s", d.message);
    cvm_bc_module_free(m);
    return v;
}

/* The canonical text of the one const instruction of a module. */
static void const_text(const char *type, const char *lit, char *buf, size_t n)
{
    char text[256];
    snprintf(text, sizeof text, ".kernel k\n.reg %s %%a\n    const.%s %%a, %s\n.end\n", type, type, lit);
    cvm_diag d;
    cvm_bc_module *m = assemble(text, "lit", &d);
    char *t = NULL;
    size_t tl;
    buf[0] = 0;
    if (m && cvm_bc_disassemble(m, &t, &tl, &d) == CVM_OK) {
        const char *p = strstr(t, "%r0, ");
        if (p)
            snprintf(buf, n, "%.*s", (int)strcspn(p + 5, "\n"), p + 5);
    }
    free(t);
    cvm_bc_module_free(m);
}

static void float_literals(void)
{
    static const struct {
        const char *type, *lit;
        uint64_t bits;
    } cases[] = {
        {"f32", "1.5", 0x3fc00000},           {"f32", "0x1.8p+0", 0x3fc00000},
        {"f32", "-0.0", 0x80000000},          {"f32", "0.1", 0x3dcccccd},
        {"f32", "0x1p-149", 0x00000001},      {"f32", "1e-45", 0x00000001}, /* 0.71 ulp: rounds up */
        {"f32", "1.17549435e-38", 0x00800000}, {"f32", "0x1.fffffep+127", 0x7f7fffff},
        {"f32", "inf", 0x7f800000},           {"f32", "-inf", 0xff800000},
        {"f32", "nan", 0x7fc00000},           {"f32", "-nan", 0xffc00000},
        {"f32", "nan:0x7f800001", 0x7f800001}, {"f32", "-nan:0x7fc00001", 0xffc00001},
        {"f16", "1.0", 0x3c00},               {"f16", "65504", 0x7bff},
        {"f16", "65520", 0x7c00}, /* halfway to 2^16: ties to even is inf */
        {"f16", "0x1p-24", 0x0001},           {"f16", "0x1p-25", 0x0000}, /* tie to even: 0 */
        {"f16", "0x1.8p-25", 0x0001},         {"f16", "0x1p-14", 0x0400},
        {"f16", "-0.0", 0x8000},              {"f16", "0.1", 0x2e66},
        {"f16", "2049", 0x6800},              {"f16", "2051", 0x6802},
        {"f16", "nan", 0x7e00},               {"f16", "nan:0x7c01", 0x7c01},
        {"f16", "0x1.ffcp+15", 0x7bff},       {"f16", "-inf", 0xfc00},
        {"bf16", "1.0", 0x3f80},              {"bf16", "-2.0", 0xc000},
        {"bf16", "nan", 0x7fc0},              {"bf16", "0x1.fep+127", 0x7f7f},
        {"bf16", "1.00390625", 0x3f80},       {"bf16", "1.01171875", 0x3f82},
        {"bf16", "0x1p-133", 0x0001},         {"bf16", "-0x0p+0", 0x8000},
        {"f64", "0.1", 0x3fb999999999999aull}, {"f64", "-0.0", 0x8000000000000000ull},
        {"f64", "0x1p-1074", 1},              {"f64", "inf", 0x7ff0000000000000ull},
        {"f64", "nan", 0x7ff8000000000000ull}, {"f64", "nan:0x7ff0000000000001", 0x7ff0000000000001ull},
        {"f64", "0x1.999999999999ap-4", 0x3fb999999999999aull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool good;
        uint64_t v = const_bits(cases[i].type, cases[i].lit, &good);
        ok(good && v == cases[i].bits, "const.%s %s = 0x%llx", cases[i].type, cases[i].lit,
           (unsigned long long)cases[i].bits);
        if (v != cases[i].bits)
            diag("  got 0x%llx", (unsigned long long)v);
    }
    static const struct {
        const char *type, *lit, *canon;
    } texts[] = {
        {"f32", "1.5", "0x1.8p+0"},          {"f32", "-0.0", "-0x0p+0"},
        {"f32", "1e-45", "0x1p-149"},        {"f32", "-nan", "nan:0xffc00000"},
        {"f16", "65504", "0x1.ffcp+15"},     {"f16", "0x1p-24", "0x1p-24"},
        {"bf16", "1.0078125", "0x1.02p+0"},  {"f64", "0.1", "0x1.999999999999ap-4"},
        {"f64", "-inf", "-inf"},             {"i32", "-7", "-7"},
        {"u64", "0xffffffffffffffff", "18446744073709551615"}, {"i8", "0xff", "-1"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char buf[128];
        const_text(texts[i].type, texts[i].lit, buf, sizeof buf);
        is_str(buf, texts[i].canon, "const.%s %s prints as %s", texts[i].type, texts[i].lit, texts[i].canon);
    }
}

/* ---- SHA-256 (FIPS 180-2 examples) ---- */

static void sha256_vectors(void)
{
    static const struct {
        const char *msg, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < 3; i++) {
        uint8_t h[32];
        char hex[65];
        cvm_bc_sha256(v[i].msg, strlen(v[i].msg), h);
        for (int j = 0; j < 32; j++)
            snprintf(hex + 2 * j, 3, "%02x", h[j]);
        is_str(hex, v[i].hex, "sha256 of a %zu-byte message", strlen(v[i].msg));
    }
}

/* ---- the reader on broken input ---- */

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void set32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Section `id` of a .cbc image, from its table (the layout of docs/format.md). */
static bool section(const uint8_t *b, size_t n, uint32_t id, uint32_t *off, uint32_t *size)
{
    uint32_t ns = le32(b + 12);
    for (uint32_t i = 0; i < ns && 16 + 12 * (i + 1) <= n; i++)
        if (le32(b + 16 + 12 * i) == id) {
            *off = le32(b + 16 + 12 * i + 4);
            *size = le32(b + 16 + 12 * i + 8);
            return true;
        }
    return false;
}

static size_t biggest_alloc;
static void *counting_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size > biggest_alloc)
        biggest_alloc = new_size;
    return cvm_default_alloc(user, ptr, old_size, new_size);
}

static cvm_status read_status(const uint8_t *b, size_t n, cvm_diag *d)
{
    cvm_bc_module *m = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_bc_module_read(b, n, counting_alloc, NULL, &m, d);
    cvm_bc_module_free(m);
    return st;
}

static void expect_malformed(const uint8_t *b, size_t n, uint64_t offset, const char *what)
{
    cvm_diag d;
    cvm_status st = read_status(b, n, &d);
    ok(st == CVM_MALFORMED && d.has_offset && d.offset == offset, "%s: malformed at offset %llu", what,
       (unsigned long long)offset);
    if (st != CVM_MALFORMED || d.offset != offset)
        diag("  status %d, offset %llu: %s", st, (unsigned long long)d.offset, d.message);
}

static void reader_robustness(const char *path)
{
    size_t tn;
    char *text = test_slurp(path, &tn);
    cvm_diag d;
    cvm_bc_module *m = NULL;
    void *bytes = NULL;
    size_t n = 0;
    if (!text || cvm_bc_assemble(text, tn, path, NULL, NULL, &m, &d) || !write_bytes(m, &bytes, &n)) {
        ok(0, "assemble %s for the reader tests", path);
        free(text);
        cvm_bc_module_free(m);
        return;
    }
    uint8_t *b = bytes, *c = malloc(n);
    ok(read_status(b, n, &d) == CVM_OK, "%s: reads back", path);
    /* Every truncation fails cleanly: a module ends exactly at its hash. */
    int bad_trunc = 0;
    for (size_t len = 0; len < n; len++)
        if (read_status(b, len, &d) != CVM_MALFORMED || !d.has_offset || d.offset > n)
            bad_trunc++;
    ok(bad_trunc == 0, "%s: all %zu truncations are malformed with an offset", path, n);
    /* Flipped bytes: malformed, or accepted only inside the debug section (not hashed). */
    uint32_t doff = 0, dsize = 0;
    section(b, n, 5, &doff, &dsize);
    int bad_flip = 0;
    biggest_alloc = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            static const uint8_t masks[3] = {0x01, 0x80, 0xff};
            memcpy(c, b, n);
            c[i] ^= masks[k];
            cvm_status st = read_status(c, n, &d);
            if (!(st == CVM_MALFORMED || (st == CVM_OK && i >= doff && i < doff + dsize)))
                bad_flip++;
        }
    ok(bad_flip == 0, "%s: %zu x 3 byte flips rejected (or inside debug info)", path, n);
    ok(biggest_alloc <= 16 * n + 4096, "%s: no allocation beyond the input's size (max %zu)", path, biggest_alloc);
    free(c);
    free(bytes);
    free(text);
    cvm_bc_module_free(m);
}

static void reader_offsets(void)
{
    cvm_diag d;
    cvm_bc_module *m = assemble(".global g u32 4 4 = 0x01020304\n.kernel k\n.reg u32 %a\n    nop\n.end\n", "t", &d);
    void *bytes = NULL;
    size_t n = 0;
    if (!m || !write_bytes(m, &bytes, &n)) {
        ok(0, "assemble the offsets module");
        cvm_bc_module_free(m);
        return;
    }
    uint8_t *b = bytes, *c = malloc(n);
    uint32_t off, size;
#define FRESH() memcpy(c, b, n)
    FRESH();
    c[0] ^= 1;
    expect_malformed(c, n, 0, "bad magic");
    FRESH();
    set32(c + 4, CVM_BC_VERSION_MAJOR + 1);
    expect_malformed(c, n, 4, "wrong format version");
    FRESH();
    set32(c + 8, cvm_bc_optable_hash() ^ 1);
    expect_malformed(c, n, 8, "wrong op-table hash");
    FRESH();
    set32(c + 16 + 12 * 1 + 8, 0x7fffffff); /* kernels section size */
    expect_malformed(c, n, 16 + 12 * 1 + 4, "section out of bounds");
    FRESH();
    set32(c + 16 + 12 * 1 + 4, le32(c + 16 + 4)); /* kernels at the strings' offset */
    expect_malformed(c, n, 16 + 12 * 1 + 4, "overlapping sections");
    FRESH();
    section(c, n, 1, &off, &size);
    set32(c + off, 0xffffffffu); /* string count */
    biggest_alloc = 0;
    expect_malformed(c, n, off, "huge string count");
    ok(biggest_alloc < 4096, "huge count allocates nothing big (%zu)", biggest_alloc);
    FRESH();
    section(c, n, 1, &off, &size);
    c[off + 8] = 0; /* first byte of the first string */
    expect_malformed(c, n, off + 8, "NUL inside a string");
    FRESH();
    section(c, n, 4, &off, &size);
    c[off + 8] ^= 0x55; /* first data byte: structurally fine, the hash catches it */
    section(c, n, 6, &off, &size);
    expect_malformed(c, n, off, "content hash mismatch");
    FRESH();
    section(c, n, 2, &off, &size);
    set32(c + off + 4, 1000); /* kernel 0 name: string index */
    expect_malformed(c, n, off + 4, "kernel name out of range");
    free(c);
    free(bytes);
    cvm_bc_module_free(m);
    /* Regression: 3 bytes left for one register's 2 bytes + 2 padding, and a
     * code count that would run past the end of the file. */
    m = assemble(".kernel k\n.reg u32 %a\n.end\n", "t", &d);
    if (!m || !write_bytes(m, &bytes, &n)) {
        ok(0, "assemble the register padding module");
        cvm_bc_module_free(m);
        return;
    }
    b = bytes;
    section(b, n, 2, &off, &size);
    set32(b + 16 + 12 * 1 + 8, size - 1);
    set32(b + off + 4 + 32, 100000);
    expect_malformed(b, n, off + 4 + 28, "register types cut by the section end");
    free(bytes);
    cvm_bc_module_free(m);
}

/* ---- a module from another producer: explicit .string and .data forms ---- */

static void foreign_module(void)
{
    /* Strings in an order the assembler would not choose, an unused one, and
     * data with a gap and a constant placed by hand. */
    cvm_bc_string strs[] = {{6, "unused"}, {3, "sym"}, {1, "k"}, {5, "c\"o\nn"}};
    cvm_bc_type regs[] = {{CVM_T_PTR_CONST, 1}};
    uint32_t code[] = {CVM_BC_W0(CVM_OP_SYM, 2), CVM_BC_W1(CVM_T_PTR_CONST, 1, 0, 0, 0), 0, 0,
                       CVM_BC_W0(CVM_OP_RETURN, 0), 0};
    cvm_bc_kernel k = {2, 0, 0, 0, 0, 0, 0, NULL, 1, regs, 6, code};
    uint8_t data[12] = {9, 9, 9, 9, 0, 0, 0, 0, 1, 2, 3, 4};
    cvm_bc_symbol syms[] = {{1, CVM_SYM_CONST, CVM_T_U32, 0, 4, 4, 8, 4}, {3, CVM_SYM_GLOBAL, 0, 0, 8, 1, 0, 2}};
    uint32_t files[] = {0};
    cvm_bc_dline lines[] = {{0, 0, 0, 7, 1}, {0, 1, 0, 8, 2}};
    cvm_bc_module m;
    memset(&m, 0, sizeof m);
    m.nstrings = 4;
    m.strings = strs;
    m.nkernels = 1;
    m.kernels = &k;
    m.nsymbols = 2;
    m.symbols = syms;
    m.ndata = 12;
    m.data = data;
    m.const_size = 16;
    m.debug.nfiles = 1;
    m.debug.files = files;
    m.debug.nlines = 2;
    m.debug.lines = lines;
    void *b0 = NULL, *b1 = NULL, *b2 = NULL;
    size_t s0 = 0, s1 = 0, s2 = 0;
    cvm_bc_module *r = NULL, *back = NULL;
    char *t = NULL;
    size_t tl = 0;
    cvm_diag d;
    bool good = write_bytes(&m, &b0, &s0) && write_bytes(&m, &b2, &s2) && s0 == s2 && !memcmp(b0, b2, s0);
    ok(good, "writer is deterministic");
    good = good && cvm_bc_module_read(b0, s0, NULL, NULL, &r, &d) == CVM_OK;
    ok(good && r->nstrings == 4 && strcmp(r->strings[3].data, "c\"o\nn") == 0 && r->const_size == 16 &&
           r->symbols[0].init_off == 8 && r->kernels[0].ncode == 6 && r->debug.nlines == 2 &&
           r->debug.lines[1].col == 2 && memcmp(r->hash, m.hash, 32) == 0,
       "hand-built module reads back field for field");
    good = good && cvm_bc_disassemble(r, &t, &tl, &d) == CVM_OK;
    ok(good && strstr(t, ".string \"unused\"") && strstr(t, ".data 0x090909090000000001020304") &&
           strstr(t, ".constant sym u32 4 4 init 8 4") && strstr(t, ".global \"c\\\"o\\nn\" bytes 8 1 init 0 2"),
       "explicit forms for a foreign string table and data layout");
    if (t && !good)
        diag("%s", t);
    good = good && cvm_bc_assemble(t, tl, "foreign", NULL, NULL, &back, &d) == CVM_OK && write_bytes(back, &b1, &s1);
    ok(good && s0 == s1 && memcmp(b0, b1, s0) == 0, "foreign module: binary -> text -> binary is identical");
    if (!good)
        diag("  %s", d.message);
    free(b0);
    free(b1);
    free(b2);
    free(t);
    cvm_bc_module_free(r);
    cvm_bc_module_free(back);
}

/* ---- out of memory at every allocation ---- */

static long fail_after, live_blocks;
static void *failing_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    if (new_size == 0) {
        if (ptr)
            live_blocks--;
        return cvm_default_alloc(NULL, ptr, old_size, 0);
    }
    if (fail_after-- <= 0)
        return NULL;
    void *p = cvm_default_alloc(NULL, ptr, old_size, new_size);
    if (p && !ptr)
        live_blocks++;
    return p;
}

/* Assemble, write, read and disassemble with allocation k failing, for every k. */
static void oom_sweep(const char *path)
{
    size_t n;
    char *text = test_slurp(path, &n);
    int bad = 0, steps = 0;
    for (long k = 0; text && k < 100000; k++, steps++) {
        cvm_bc_module *m = NULL, *r = NULL;
        void *b = NULL;
        size_t bn = 0;
        char *t = NULL;
        size_t tl;
        cvm_diag d;
        fail_after = k;
        live_blocks = 0;
        cvm_status st = cvm_bc_assemble(text, n, path, failing_alloc, NULL, &m, &d);
        if (!st)
            st = cvm_bc_module_write(m, &b, &bn, &d);
        if (!st)
            st = cvm_bc_module_read(b, bn, failing_alloc, NULL, &r, &d);
        if (!st)
            st = cvm_bc_disassemble(r, &t, &tl, &d);
        if (st != CVM_OK && st != CVM_OUT_OF_MEMORY)
            bad++;
        if (t)
            failing_alloc(NULL, t, tl + 1, 0);
        if (b)
            failing_alloc(NULL, b, bn, 0);
        cvm_bc_module_free(m);
        cvm_bc_module_free(r);
        if (live_blocks != 0)
            bad++;
        if (st == CVM_OK)
            break;
    }
    ok(text && bad == 0, "%s: out of memory at each of %d allocations: clean status, nothing leaked", path, steps);
    free(text);
}

/*
 * Disassembler golden files: tests/asm/dis_*.cbs is non-canonical input
 * (named registers, decimal floats, omitted type suffixes) and the
 * sibling .expect file its canonical text, written by hand.
 */
static void disasm_golden(const char *name)
{
    char in[256], ex[256];
    snprintf(in, sizeof in, "tests/asm/%s.cbs", name);
    snprintf(ex, sizeof ex, "tests/asm/%s.expect", name);
    size_t n = 0, en = 0, tl = 0;
    char *text = test_slurp(in, &n), *want = test_slurp(ex, &en), *got = NULL;
    cvm_diag d;
    cvm_bc_module *m = text ? assemble(text, in, &d) : NULL;
    bool good = m && cvm_bc_disassemble(m, &got, &tl, &d) == CVM_OK;
    ok(good && want && tl == en && memcmp(got, want, en) == 0, "%s disassembles to %s", in, ex);
    if (good && want && (tl != en || memcmp(got, want, en) != 0))
        diag("got:\n%s", got);
    if (got)
        cvm_bc_free(m->alloc, m->alloc_user, got, tl + 1);
    if (m)
        cvm_bc_module_free(m);
    free(text);
    free(want);
}

/* A .var with no instruction before its .endscope lives nowhere: dropped, and the
 * module verifies (the CUDA frontend emits one for a value a scope computes last). */
static void var_at_scope_end(void)
{
    static const char text[] = ".kernel k\n.reg u32 %r0, %r1\n"
                               "    .scope\n    .var early %r0\n    sreg.u32 %r0, unit_pos.x\n"
                               "    mov.u32 %r1, %r0\n    .var late %r1\n    .endscope\n    return\n.end\n";
    cvm_diag d;
    cvm_bc_module *m = assemble(text, "var_at_scope_end", &d);
    cvm_bc_verified *v = NULL;
    char *dis = NULL;
    size_t n = 0;
    bool good = m && cvm_bc_verify(m, &v, &d) == CVM_OK && cvm_bc_disassemble(m, &dis, &n, &d) == CVM_OK;
    ok(good && m->debug.nvars == 1 && strstr(dis, ".var early %r0") && !strstr(dis, ".var late"),
       "a .var just before .endscope is dropped and the module verifies");
    if (!good)
        diag("%s", d.message);
    if (v)
        cvm_bc_verified_free(m, v);
    free(dis);
    if (m)
        cvm_bc_module_free(m);
}

int main(void)
{
    error_files();
    int n = walk("tests") + walk("docs/examples");
    ok(n >= 5, "round-tripped %d .cbs files", n);
    float_literals();
    disasm_golden("dis_named");
    var_at_scope_end();
    sha256_vectors();
    reader_offsets();
    reader_robustness("tests/asm/full.cbs");
    reader_robustness("docs/examples/vadd.cbs");
    foreign_module();
    oom_sweep("tests/asm/full.cbs");
    oom_sweep("tests/asm/debug.cbs");
    return done_testing();
}
