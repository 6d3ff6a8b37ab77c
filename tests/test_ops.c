/*
 * test_ops.c - table-driven op tests generated from bytecode/ops.def.
 *
 * The test expands ops.def itself, so it walks every opcode. Each value op
 * (data movement, arithmetic, float math, comparison, bitwise, conversion,
 * pointer arithmetic) is run here for every allowed element type, line
 * sizes 1 and 4, under a full and a partial mask, over an edge-value set
 * (0, -0, +-1, min, max, NaN, +-inf, denormals, shift counts around the
 * width, ...) plus fixed-seed random values, and compared with the C
 * references of tests/ops_ref.h. Ops whose behaviour needs other machinery
 * (control flow, memory, atomics, barriers, plane ops, debugging) are listed
 * in `elsewhere` with the test program that covers them; an opcode that is
 * in neither place fails the suite, so a new op cannot land untested.
 *
 * Each (op, type, line) is one generated .cbs kernel, assembled and run on
 * the "cpu" device through the public API only: every unit loads its
 * operands from input buffers, computes the op into a register initialized
 * from an `init` buffer, computes it again under `if mask[unit]` into a
 * second register holding the same initial value, and stores both. Units
 * run in cubes of 37 at plane width 32, so every launch has a full plane
 * and a partial last plane. One TAP line per (op, type, line, mask).
 */
#include "../bytecode/bc.h"
#include "ops_ref.h"
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Cube size: 37 units (a full plane and a partial one, which the plane
 * interpreter runs), then 64 (two full planes, which run in lockstep:
 * vm/interp_lockstep.c). */
static unsigned cube = 37;
#define MAXSRC 4
#define MAXOUT 40

/* ---- the op table, expanded here ---- */

typedef struct oprow {
    unsigned num;
    const char *mn, *fmt;
    uint32_t types;
    unsigned rule;
} oprow;

static const oprow rows[] = {
#define CVM_OP(num, name, mn, fmt, tc, rule, flags, sem) {num, mn, fmt, tc, rule},
#include "../bytecode/ops.def"
#undef CVM_OP
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Ops covered by other test programs (they need control flow, memory,
 * scheduling or plane machinery rather than value vectors). */
static const struct {
    const char *mn, *test;
} elsewhere[] = {
    {"if", "tests/test_control.c"}, {"else", "tests/test_control.c"},
    {"end", "tests/test_control.c"}, {"loop", "tests/test_control.c"},
    {"continuing", "tests/test_control.c"}, {"break_if", "tests/test_control.c"},
    {"break", "tests/test_control.c"}, {"continue", "tests/test_control.c"},
    {"switch", "tests/test_control.c"}, {"case", "tests/test_control.c"},
    {"default", "tests/test_control.c"}, {"fallthrough", "tests/test_control.c"},
    {"block", "tests/test_control.c"}, {"exit", "tests/test_control.c"},
    {"return", "tests/test_control.c"},
    {"param", "tests/test_memory.c"}, {"sym", "tests/test_memory.c"},
    {"sreg", "tests/test_plane.c"},
    {"ld", "tests/test_memory.c"}, {"st", "tests/test_memory.c"},
    {"ld.volatile", "tests/test_memory.c"}, {"st.volatile", "tests/test_memory.c"},
    {"ld.atomic", "tests/test_memory.c"}, {"st.atomic", "tests/test_memory.c"},
    {"atom.add", "tests/test_memory.c"}, {"atom.sub", "tests/test_memory.c"},
    {"atom.min", "tests/test_memory.c"}, {"atom.max", "tests/test_memory.c"},
    {"atom.and", "tests/test_memory.c"}, {"atom.or", "tests/test_memory.c"},
    {"atom.xor", "tests/test_memory.c"}, {"atom.exch", "tests/test_memory.c"},
    {"atom.inc", "tests/test_memory.c"}, {"atom.dec", "tests/test_memory.c"},
    {"atom.cas", "tests/test_memory.c"}, {"fence", "tests/test_sched.c"},
    {"sync_cube", "tests/test_sched.c"}, {"sync_cube.count", "tests/test_sched.c"},
    {"sync_cube.and", "tests/test_sched.c"}, {"sync_cube.or", "tests/test_sched.c"},
    {"bar.sync", "tests/test_sched.c"}, {"bar.arrive", "tests/test_sched.c"},
    {"sync_plane", "tests/test_plane.c"}, {"activemask", "tests/test_plane.c"},
    {"shfl.idx", "tests/test_plane.c"}, {"shfl.up", "tests/test_plane.c"},
    {"shfl.down", "tests/test_plane.c"}, {"shfl.xor", "tests/test_plane.c"},
    {"vote.all", "tests/test_plane.c"}, {"vote.any", "tests/test_plane.c"},
    {"vote.ballot", "tests/test_plane.c"}, {"reduce.add", "tests/test_plane.c"},
    {"reduce.min", "tests/test_plane.c"}, {"reduce.max", "tests/test_plane.c"},
    {"reduce.and", "tests/test_plane.c"}, {"reduce.or", "tests/test_plane.c"},
    {"reduce.xor", "tests/test_plane.c"}, {"scan.add", "tests/test_plane.c"},
    {"exscan.add", "tests/test_plane.c"}, {"match.any", "tests/test_plane.c"},
    {"match.all", "tests/test_plane.c"},
    {"assert", "tests/test_sched.c"}, {"trap", "tests/test_sched.c"},
    {"print", "tests/test_sched.c"},
};
#define NELSEWHERE (sizeof elsewhere / sizeof elsewhere[0])

/* ---- types ---- */

static const char *const elem_names[] = {
    [R_BOOL] = "bool", [R_I8] = "i8", [R_I16] = "i16", [R_I32] = "i32", [R_I64] = "i64",
    [R_U8] = "u8", [R_U16] = "u16", [R_U32] = "u32", [R_U64] = "u64", [R_F16] = "f16",
    [R_BF16] = "bf16", [R_F32] = "f32", [R_F64] = "f64", [R_PG] = "ptr.global",
    [R_PS] = "ptr.shared", [R_PL] = "ptr.local", [R_PC] = "ptr.const",
};

typedef struct tyl {
    unsigned elem, line;
} tyl;

static unsigned esize(unsigned e) { return r_bits(e) / 8; }

/* "f32x4", "bool", "ptr.global"; a static buffer per call slot. */
static const char *tname(tyl t)
{
    static char buf[8][24];
    static unsigned slot;
    char *b = buf[slot++ % 8];
    if (t.line > 1)
        snprintf(b, sizeof buf[0], "%sx%u", elem_names[t.elem], t.line);
    else
        snprintf(b, sizeof buf[0], "%s", elem_names[t.elem]);
    return b;
}

/* How a buffer holding values of this type is declared (pointers as raw words). */
static const char *bufname(tyl t)
{
    if (r_is_ptr(t.elem))
        return t.elem == R_PG ? "u64" : "u32";
    return tname(t);
}

static unsigned unsigned_of(unsigned e)
{
    switch (r_bits(e)) {
    case 8: return R_U8;
    case 16: return R_U16;
    case 32: return R_U32;
    default: return R_U64;
    }
}

/* ---- fixed-seed random values ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ---- value sets ---- */

enum { ROLE_VAL, ROLE_COUNT, ROLE_COND, ROLE_SHORT };
#define MAXVALS 320

static unsigned float_vals(unsigned e, bool shortset, uint64_t *v)
{
    r_fmt f = r_fmt_of(e);
    uint64_t sb = r_sign_bit(e);
    uint64_t maxb = (r_exp_all(f) - (1ull << f.mbits)) | r_mask(f.mbits); /* largest finite */
    uint64_t minn = 1ull << f.mbits;
    unsigned n = 0;
    static const long double common[] = {0.0L, 1.0L, -1.0L, 1.5L, 3.0L, 0.1L};
    for (unsigned i = 0; i < sizeof common / sizeof common[0]; i++)
        v[n++] = r_from_ld(e, common[i]);
    v[n++] = sb;                  /* -0 */
    v[n++] = 1;                   /* smallest denormal */
    v[n++] = r_finf(e, false);
    v[n++] = r_finf(e, true);
    v[n++] = r_fqnan(e);
    v[n++] = maxb;                /* max */
    if (shortset)
        return n;
    v[n++] = maxb | sb;           /* -max */
    v[n++] = 1 | sb;              /* -smallest denormal */
    v[n++] = minn - 1;            /* largest denormal */
    v[n++] = minn;                /* smallest normal */
    v[n++] = minn | sb;
    v[n++] = r_fqnan(e) | sb;     /* -NaN */
    v[n++] = r_exp_all(f) | 1;    /* NaN with a payload (signalling) */
    v[n++] = r_exp_all(f) | 5ull << (f.mbits - 4) | sb; /* payload in its top bits */
    static const long double more[] = {0.5L, 2.5L, -2.5L, -0.5L, 255.5L, -128.5L, 65535.0L,
                                       2147483648.0L, -2147483649.0L, 4294967296.0L,
                                       9223372036854775808.0L, 18446744073709551616.0L,
                                       -9223372036854775808.0L, 1e10L, 3.14159265358979L,
                                       -7.25L, 1e-5L};
    for (unsigned i = 0; i < sizeof more / sizeof more[0]; i++)
        v[n++] = r_from_ld(e, more[i]);
    for (unsigned i = 0; i < 4; i++)
        v[n++] = rnd() & r_mask(r_bits(e));
    for (unsigned i = 0; i < 8; i++)
        v[n++] = r_from_ld(e, ((long double)(rnd() % 20001) - 10000.0L) / 997.0L);
    return n;
}

static unsigned int_vals(unsigned e, int role, uint64_t *v)
{
    unsigned w = r_bits(e), n = 0;
    uint64_t m = r_mask(w);
    if (role == ROLE_COUNT) {
        uint64_t c[] = {0, 1, 3, w - 1, w, w + 1, 2 * w, m, rnd() % w, rnd() % w};
        for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++)
            v[n++] = c[i] & m;
        return n;
    }
    uint64_t base[] = {0, 1, m, 1ull << (w - 1), m >> 1, 2, m - 1, 0x5555555555555555ull & m};
    for (unsigned i = 0; i < sizeof base / sizeof base[0]; i++)
        v[n++] = base[i];
    if (role == ROLE_SHORT) {
        v[n++] = rnd() & m;
        return n;
    }
    uint64_t more[] = {3, 7, (1ull << (w - 1)) + 1, (m >> 1) - 1, w - 1, w, w + 1, 100,
                       (0 - 100ull) & m, 0xaaaaaaaaaaaaaaaaull & m, 0x80ull, 0xffull & m};
    for (unsigned i = 0; i < sizeof more / sizeof more[0]; i++)
        v[n++] = more[i] & m;
    for (unsigned i = 0; i < 8; i++)
        v[n++] = rnd() & m;
    return n;
}

static unsigned value_set(unsigned e, int role, bool unary, uint64_t *v)
{
    if (role == ROLE_COND || e == R_BOOL) {
        v[0] = 0;
        v[1] = 1;
        return 2;
    }
    if (r_is_float(e)) {
        unsigned n = float_vals(e, role == ROLE_SHORT, v);
        if (unary) { /* math functions: points inside their domains, then every binade */
            r_fmt f = r_fmt_of(e);
            for (unsigned i = 0; i < 100; i++)
                v[n++] = r_from_ld(e, ((long double)(rnd() % 4001) - 2000.0L) / 500.0L);
            for (unsigned i = 0; i < 100; i++) {
                int span = 2 * r_bias(f) + f.mbits;
                int ex = (int)(rnd() % (unsigned)span) - r_bias(f) - f.mbits + 1;
                long double m = 1.0L + (long double)(rnd() >> 11) * 0x1p-53L;
                v[n++] = r_from_ld(e, (rnd() & 1 ? -1 : 1) * ldexpl(m, ex));
            }
        }
        return n;
    }
    return int_vals(e, role, v);
}

/* ---- one generated test group ---- */

enum { M_BITS, M_FEXACT, M_ULP };

typedef struct grp {
    const oprow *row;
    tyl suffix; /* the instruction type written after the mnemonic */
    tyl dst;
    unsigned nsrc;
    tyl src[MAXSRC];
    int role[MAXSRC];
    unsigned nout;          /* destination registers per unit */
    uint64_t imm[MAXOUT];   /* const: the literal of each output */
    bool unchecked;         /* integer div/rem by zero must not fault */
    int mode;
    unsigned ulp;
    bool nop_before;        /* the nop test: a nop precedes each op */
    const char *note;       /* appended to the TAP name */
} grp;

/* ---- text building ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static TAP_FMT(2, 3) void sb_printf(sbuf *s, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
        va_end(ap);
        if (n >= 0 && s->p && s->len + (size_t)n < s->cap) {
            s->len += (size_t)n;
            return;
        }
        size_t cap = (s->cap + (size_t)(n > 0 ? n : 0) + 256) * 2;
        char *np = realloc(s->p, cap);
        if (!np)
            abort();
        s->p = np;
        s->cap = cap;
    }
}

/* An immediate literal for `const`. */
static void literal(sbuf *s, unsigned e, uint64_t b)
{
    if (r_is_float(e)) {
        if (r_fisnan(e, b))
            sb_printf(s, "nan:0x%llx", (unsigned long long)b);
        else if (r_fisinf(e, b))
            sb_printf(s, "%sinf", (b & r_sign_bit(e)) ? "-" : "");
        else
            sb_printf(s, "%a", (double)r_fval(e, b));
    } else if (r_is_sint(e)) {
        sb_printf(s, "%lld", (long long)r_sext(b, r_bits(e)));
    } else {
        sb_printf(s, "0x%llx", (unsigned long long)b);
    }
}

/* The op instruction for output j into register `d`. */
static void emit_op(sbuf *s, const grp *g, unsigned j, const char *d)
{
    unsigned op = g->row->num;
    if (g->nop_before)
        sb_printf(s, "    nop\n");
    sb_printf(s, "    %s.%s %s%u", g->row->mn, tname(g->suffix), d, j);
    if (op == CVM_OP_CONST) {
        sb_printf(s, ", ");
        literal(s, g->dst.elem, g->imm[j]);
    } else {
        for (unsigned k = 0; k < g->nsrc; k++)
            sb_printf(s, ", %%s%u", k);
        if (op == CVM_OP_EXTRACT || op == CVM_OP_INSERT)
            sb_printf(s, ", %u", j);
    }
    sb_printf(s, "\n");
}

/* p = param `name` + unit * stride bytes */
static void emit_addr(sbuf *s, const char *name, unsigned stride)
{
    sb_printf(s, "    const.i64 %%k, %u\n    mul.i64 %%o, %%x, %%k\n", stride);
    sb_printf(s, "    param.ptr.global %%p, %s, 0\n    ptr.add.ptr.global %%p, %%p, %%o\n", name);
}

static void emit_step(sbuf *s, unsigned bytes)
{
    sb_printf(s, "    const.i64 %%k, %u\n    ptr.add.ptr.global %%p, %%p, %%k\n", bytes);
}

static char *kernel_text(const grp *g)
{
    sbuf s = {0};
    unsigned dbytes = esize(g->dst.elem) * g->dst.line;
    sb_printf(&s, ".kernel t\n");
    for (unsigned k = 0; k < g->nsrc; k++)
        sb_printf(&s, ".param s%u buffer %s read\n", k, bufname(g->src[k]));
    sb_printf(&s, ".param ini buffer %s read\n.param msk buffer bool read\n", bufname(g->dst));
    sb_printf(&s, ".param of buffer %s write\n.param op buffer %s write\n", bufname(g->dst),
              bufname(g->dst));
    sb_printf(&s, ".reg u32 %%u\n.reg i64 %%x, %%k, %%o\n.reg ptr.global %%p\n.reg bool %%m\n");
    for (unsigned k = 0; k < g->nsrc; k++)
        sb_printf(&s, ".reg %s %%s%u\n", tname(g->src[k]), k);
    for (unsigned j = 0; j < g->nout; j++)
        sb_printf(&s, ".reg %s %%f%u, %%q%u\n", tname(g->dst), j, j);
    sb_printf(&s, "    sreg.u32 %%u, abs_pos.x\n    cvt.i64 %%x, %%u\n");
    for (unsigned k = 0; k < g->nsrc; k++) {
        char name[16];
        snprintf(name, sizeof name, "s%u", k);
        emit_addr(&s, name, esize(g->src[k].elem) * g->src[k].line);
        sb_printf(&s, "    ld.%s %%s%u, [%%p]\n", tname(g->src[k]), k);
    }
    emit_addr(&s, "ini", dbytes * g->nout);
    for (unsigned j = 0; j < g->nout; j++) {
        if (j)
            emit_step(&s, dbytes);
        sb_printf(&s, "    ld.%s %%f%u, [%%p]\n    ld.%s %%q%u, [%%p]\n", tname(g->dst), j,
                  tname(g->dst), j);
    }
    sb_printf(&s, "    param.ptr.global %%p, msk, 0\n    ptr.add.ptr.global %%p, %%p, %%x\n");
    sb_printf(&s, "    ld.bool %%m, [%%p]\n");
    for (unsigned j = 0; j < g->nout; j++)
        emit_op(&s, g, j, "%f");
    sb_printf(&s, "    if %%m\n");
    for (unsigned j = 0; j < g->nout; j++)
        emit_op(&s, g, j, "%q");
    sb_printf(&s, "    end\n");
    const char *outs[2] = {"of", "op"}, *regs[2] = {"f", "q"};
    for (unsigned o = 0; o < 2; o++) {
        emit_addr(&s, outs[o], dbytes * g->nout);
        for (unsigned j = 0; j < g->nout; j++) {
            if (j)
                emit_step(&s, dbytes);
            sb_printf(&s, "    st.%s [%%p], %%%s%u\n", tname(g->dst), regs[o], j);
        }
    }
    sb_printf(&s, "    return\n.end\n");
    return s.p;
}

/* ---- references ---- */

/* Float math functions compared with the host's long double libm. */
static long double math1(unsigned op, long double x)
{
    switch (op) {
    case CVM_OP_RSQRT: return 1.0L / sqrtl(x);
    case CVM_OP_EXP: return expl(x);
    case CVM_OP_EXP2: return exp2l(x);
    case CVM_OP_EXPM1: return expm1l(x);
    case CVM_OP_LOG: return logl(x);
    case CVM_OP_LOG2: return log2l(x);
    case CVM_OP_LOG10: return log10l(x);
    case CVM_OP_LOG1P: return log1pl(x);
    case CVM_OP_SIN: return sinl(x);
    case CVM_OP_COS: return cosl(x);
    case CVM_OP_TAN: return tanl(x);
    case CVM_OP_ASIN: return asinl(x);
    case CVM_OP_ACOS: return acosl(x);
    case CVM_OP_ATAN: return atanl(x);
    case CVM_OP_SINH: return sinhl(x);
    case CVM_OP_COSH: return coshl(x);
    case CVM_OP_TANH: return tanhl(x);
    case CVM_OP_ERF: return erfl(x);
    case CVM_OP_ERFC: return erfcl(x);
    case CVM_OP_CBRT: return cbrtl(x);
    case CVM_OP_FLOOR: return floorl(x);
    case CVM_OP_CEIL: return ceill(x);
    case CVM_OP_TRUNC: return truncl(x);
    case CVM_OP_ROUND: return roundl(x);
    case CVM_OP_RINT: return rintl(x);
    default: return NAN;
    }
}

/* pow with the C99 Annex F special cases spelled out: the host's powl is
 * only trusted for finite, non-zero operands (x87 powl(-inf, -2^63) gives
 * +inf where Annex F says +0). */
static long double ref_pow(long double x, long double y)
{
    bool yint = isfinite(y) && truncl(y) == y;
    bool yodd = yint && fabsl(y) < 0x1p64L && fmodl(y, 2.0L) != 0;
    if (y == 0 || x == 1)
        return 1;
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == 0) {
        if (y < 0)
            return yodd ? copysignl(INFINITY, x) : INFINITY;
        return yodd ? x : 0.0L;
    }
    if (isinf(y)) {
        if (x == -1)
            return 1;
        return (fabsl(x) < 1) == (y < 0) ? INFINITY : 0.0L;
    }
    if (isinf(x)) {
        if (x < 0)
            return y < 0 ? (yodd ? -0.0L : 0.0L) : (yodd ? -INFINITY : INFINITY);
        return y < 0 ? 0.0L : INFINITY;
    }
    if (x < 0 && !yint)
        return NAN;
    return powl(x, y);
}

static uint64_t ref_float(unsigned op, unsigned e, const uint64_t *in)
{
    uint64_t a = in[0], b = in[1], c = in[2], sb = r_sign_bit(e);
    long double x = r_fval(e, a), y = r_fval(e, b);
    switch (op) {
    case CVM_OP_ADD: return r_fbasic(e, '+', a, b);
    case CVM_OP_SUB: return r_fbasic(e, '-', a, b);
    case CVM_OP_MUL: return r_fbasic(e, '*', a, b);
    case CVM_OP_DIV: return r_fbasic(e, '/', a, b);
    case CVM_OP_SQRT: return r_fbasic(e, 's', a, b);
    case CVM_OP_RCP: return r_fbasic(e, '/', r_from_ld(e, 1.0L), a);
    case CVM_OP_REM: return r_from_ld(e, fmodl(x, y)); /* fmod is exact */
    case CVM_OP_MIN: return r_fminmax(e, a, b, false);
    case CVM_OP_MAX: return r_fminmax(e, a, b, true);
    case CVM_OP_CLAMP: return r_fminmax(e, r_fminmax(e, a, b, true), c, false);
    case CVM_OP_NEG: return a ^ sb;
    case CVM_OP_ABS: return a & ~sb;
    case CVM_OP_COPYSIGN: return (a & ~sb) | (b & sb);
    case CVM_OP_FMA: return r_ffma(e, a, b, c);
    case CVM_OP_ATAN2: return r_from_ld(e, atan2l(x, y));
    case CVM_OP_POW: return r_from_ld(e, ref_pow(x, y));
    case CVM_OP_HYPOT: return r_from_ld(e, hypotl(x, y));
    default: return r_from_ld(e, math1(op, x));
    }
}

static bool ref_cmp(unsigned op, unsigned e, uint64_t a, uint64_t b)
{
    if (r_is_float(e)) {
        long double x = r_fval(e, a), y = r_fval(e, b);
        switch (op) {
        case CVM_OP_EQ: return x == y;
        case CVM_OP_NE: return !(x == y);
        case CVM_OP_LT: return x < y;
        case CVM_OP_LE: return x <= y;
        case CVM_OP_GT: return x > y;
        default: return x >= y;
        }
    }
    int c; /* -1, 0, 1 */
    if (r_is_sint(e)) {
        int64_t x = r_sext(a, r_bits(e)), y = r_sext(b, r_bits(e));
        c = x < y ? -1 : x > y;
    } else {
        c = a < b ? -1 : a > b;
    }
    switch (op) {
    case CVM_OP_EQ: return c == 0;
    case CVM_OP_NE: return c != 0;
    case CVM_OP_LT: return c < 0;
    case CVM_OP_LE: return c <= 0;
    case CVM_OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static uint64_t ref_int(unsigned op, unsigned e, const uint64_t *in)
{
    unsigned w = r_bits(e);
    uint64_t m = r_mask(w), a = in[0], b = in[1], c = in[2];
    bool s = r_is_sint(e);
    int64_t sa = r_sext(a, w), sb = r_sext(b, w);
    uint64_t smin = 1ull << (w - 1);
    switch (op) {
    case CVM_OP_ADD: return (a + b) & m;
    case CVM_OP_SUB: return (a - b) & m;
    case CVM_OP_MUL: return (a * b) & m;
    case CVM_OP_MAD: return (a * b + c) & m;
    case CVM_OP_MULHI: return r_mulhi(e, a, b);
    case CVM_OP_DIV:
        if (b == 0)
            return m;
        if (s && a == smin && b == m)
            return smin;
        return s ? r_u(sa / sb) & m : a / b;
    case CVM_OP_REM:
        if (b == 0)
            return a;
        if (s && b == m)
            return 0;
        return s ? r_u(sa % sb) & m : a % b;
    case CVM_OP_MIN: return (s ? sa < sb : a < b) ? a : b;
    case CVM_OP_MAX: return (s ? sa > sb : a > b) ? a : b;
    case CVM_OP_CLAMP: {
        uint64_t t[2] = {(s ? sa > sb : a > b) ? a : b, c};
        int64_t st = r_sext(t[0], w), sc = r_sext(c, w);
        return (s ? st < sc : t[0] < c) ? t[0] : c;
    }
    case CVM_OP_NEG: return (0 - a) & m;
    case CVM_OP_ABS: return (s && sa < 0) ? (0 - a) & m : a;
    case CVM_OP_AND: return a & b;
    case CVM_OP_OR: return a | b;
    case CVM_OP_XOR: return a ^ b;
    case CVM_OP_NOT: return ~a & m;
    case CVM_OP_SHL: return b >= w ? 0 : (a << b) & m;
    case CVM_OP_SHR:
        if (!s || sa >= 0)
            return b >= w ? 0 : a >> b;
        return b >= w ? m : ((a >> b) | (m & ~(m >> b))) & m;
    case CVM_OP_POPC: return r_popc(a, w);
    case CVM_OP_CLZ: return r_clz(a, w);
    case CVM_OP_CTZ: return r_ctz(a, w);
    case CVM_OP_BREV: return r_brev(a, w);
    default: return 0;
    }
}

/* The result element of an element-wise op from its operand elements. */
static uint64_t ref_elem(const grp *g, const uint64_t *in)
{
    unsigned op = g->row->num, e = g->suffix.elem;
    switch (g->row->rule) {
    case CVM_RULE_CMP: return ref_cmp(op, e, in[0], in[1]);
    case CVM_RULE_TEST:
        if (op == CVM_OP_ISNAN)
            return r_fisnan(e, in[0]);
        if (op == CVM_OP_ISINF)
            return r_fisinf(e, in[0]);
        return !r_fisnan(e, in[0]) && !r_fisinf(e, in[0]);
    case CVM_RULE_CVT: return r_cvt(g->dst.elem, g->src[0].elem, in[0]);
    case CVM_RULE_SELECT: return in[2] ? in[0] : in[1];
    case CVM_RULE_PTRADD: {
        int64_t off = r_sext(in[1], r_bits(g->src[1].elem));
        return (in[0] + r_u(off)) & r_mask(r_bits(e));
    }
    case CVM_RULE_PTRDIFF:
        if (g->src[0].elem == R_PG)
            return in[0] - in[1];
        return r_u((int64_t)in[0] - (int64_t)in[1]);
    default: break;
    }
    if (op == CVM_OP_MOV)
        return in[0];
    if (e == R_BOOL) {
        switch (op) {
        case CVM_OP_AND: return in[0] && in[1];
        case CVM_OP_OR: return in[0] || in[1];
        case CVM_OP_XOR: return (in[0] != 0) != (in[1] != 0);
        default: return !in[0]; /* not */
        }
    }
    if (r_is_float(e))
        return ref_float(op, e, in);
    return ref_int(op, e, in);
}

/* Source element k of unit u for operand s (lines index by element,
 * scalars in a line group by unit). */
static unsigned src_index(const grp *g, unsigned s, unsigned u, unsigned e)
{
    return g->src[s].line == 1 ? u : u * g->src[s].line + e;
}

/* The expected destination values of unit u: nout * dst.line elements. */
static void ref_unit(const grp *g, uint64_t *const *src, unsigned u, uint64_t *want)
{
    unsigned op = g->row->num, L = g->dst.line;
    switch (op) {
    case CVM_OP_CONST:
        for (unsigned j = 0; j < g->nout; j++)
            for (unsigned e = 0; e < L; e++)
                want[j * L + e] = g->imm[j];
        return;
    case CVM_OP_EXTRACT:
        for (unsigned j = 0; j < g->nout; j++)
            want[j] = src[0][u * g->src[0].line + j];
        return;
    case CVM_OP_INSERT:
        for (unsigned j = 0; j < g->nout; j++)
            for (unsigned e = 0; e < L; e++)
                want[j * L + e] = e == j ? src[1][u] : src[0][u * L + e];
        return;
    case CVM_OP_BUILD:
        for (unsigned e = 0; e < L; e++)
            want[e] = src[e][u];
        return;
    case CVM_OP_SPLAT:
        for (unsigned e = 0; e < L; e++)
            want[e] = src[0][u];
        return;
    case CVM_OP_BITCAST: {
        /* the unit's bytes, little-endian, reread as the destination type */
        uint8_t bytes[64] = {0};
        unsigned ss = esize(g->src[0].elem), ds = esize(g->dst.elem);
        for (unsigned e = 0; e < g->src[0].line; e++)
            for (unsigned i = 0; i < ss; i++)
                bytes[e * ss + i] = (uint8_t)(src[0][u * g->src[0].line + e] >> (8 * i));
        for (unsigned e = 0; e < L; e++) {
            uint64_t v = 0;
            for (unsigned i = 0; i < ds; i++)
                v |= (uint64_t)bytes[e * ds + i] << (8 * i);
            want[e] = v;
        }
        return;
    }
    default:
        for (unsigned e = 0; e < L; e++) {
            uint64_t in[MAXSRC] = {0};
            for (unsigned s = 0; s < g->nsrc; s++)
                in[s] = src[s][src_index(g, s, u, e)];
            want[e] = ref_elem(g, in);
        }
    }
}

/* ---- running a group ---- */

static cvm_device *dev;
static unsigned ngroups, nfail_groups;

static void put(uint8_t *buf, size_t idx, unsigned e, uint64_t v)
{
    unsigned n = esize(e);
    for (unsigned i = 0; i < n; i++)
        buf[idx * n + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *buf, size_t idx, unsigned e)
{
    unsigned n = esize(e);
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)buf[idx * n + i] << (8 * i);
    return v;
}

/* "0x3f800000 (1)" */
static const char *show(unsigned e, uint64_t v)
{
    static char buf[8][64];
    static unsigned slot;
    char *b = buf[slot++ % 8];
    if (r_is_float(e))
        snprintf(b, sizeof buf[0], "0x%llx (%.10Lg)", (unsigned long long)v, r_fval(e, v));
    else if (r_is_sint(e))
        snprintf(b, sizeof buf[0], "0x%llx (%lld)", (unsigned long long)v,
                 (long long)r_sext(v, r_bits(e)));
    else
        snprintf(b, sizeof buf[0], "0x%llx (%llu)", (unsigned long long)v, (unsigned long long)v);
    return b;
}

static bool matches(const grp *g, uint64_t got, uint64_t want)
{
    unsigned e = g->dst.elem;
    if (g->mode == M_BITS || !r_is_float(e))
        return got == want;
    /* a converted NaN's bits are defined (payload rules); any other NaN
     * result is the format's canonical NaN (docs/numerics.md), whatever
     * NaNs the operands held and whichever the host would have made */
    if (r_fisnan(e, want) || r_fisnan(e, got))
        return g->row->rule == CVM_RULE_CVT ? got == want : r_fisnan(e, want) && got == r_fqnan(e);
    if (g->mode == M_FEXACT)
        return got == want;
    bool wz = r_fval(e, want) == 0, gz = r_fval(e, got) == 0;
    if (wz && gz)
        return got == want; /* sign of a zero result is exact */
    return r_ulp_dist(e, got, want) <= g->ulp;
}

/* Describes the first failures of one variant. */
static void report(const grp *g, uint64_t *const *src, unsigned u, unsigned j, unsigned e,
                   uint64_t got, uint64_t want)
{
    char in[400] = "";
    size_t n = 0;
    for (unsigned s = 0; s < g->nsrc && n < sizeof in - 80; s++) {
        unsigned k = g->src[s].line == g->dst.line || g->src[s].line == 1
                         ? src_index(g, s, u, e)
                         : u * g->src[s].line;
        n += (size_t)snprintf(in + n, sizeof in - n, " %c=%s", "abcd"[s],
                              show(g->src[s].elem, src[s][k]));
    }
    diag("  %s.%s unit %u out %u elem %u:%s got %s want %s", g->row->mn, tname(g->suffix), u, j,
         e, in, show(g->dst.elem, got), show(g->dst.elem, want));
}

static cvm_buffer *make_buf(const char *name, const void *data, size_t size)
{
    cvm_buffer *b = NULL;
    cvm_diag d = {0};
    if (cvm_buffer_create(dev, size, name, &b, &d) != CVM_OK) {
        diag("buffer %s: %s", name, d.message);
        return NULL;
    }
    if (data && cvm_buffer_write(cvm_device_stream(dev), b, 0, data, size, &d) != CVM_OK) {
        diag("buffer %s write: %s", name, d.message);
        cvm_buffer_free(b);
        return NULL;
    }
    return b;
}

/* Assembles, loads and launches g's kernel; fills got_full/got_part. */
static bool launch(const grp *g, uint8_t *const *srcb, const size_t *srcsize, const uint8_t *ini,
                   const uint8_t *msk, unsigned nunits, uint8_t *got_full, uint8_t *got_part)
{
    char *text = kernel_text(g);
    void *bytes = NULL;
    size_t size = 0, dsize = (size_t)nunits * g->nout * g->dst.line * esize(g->dst.elem);
    cvm_module *mod = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bufs[MAXSRC + 4] = {0};
    cvm_arg args[MAXSRC + 4];
    cvm_diag d = {0};
    bool okay = false;
    cvm_stream *st = cvm_device_stream(dev);
    if (cvm_assemble(text, strlen(text), "test_ops.cbs", &bytes, &size, &d) != CVM_OK) {
        diag("assemble: %s:%u:%u: %s", d.file, d.line, d.col, d.message);
        goto fail;
    }
    if (cvm_module_load(dev, bytes, size, &mod, &d) != CVM_OK ||
        cvm_kernel_get(mod, "t", &k, &d) != CVM_OK) {
        diag("load: %s", d.message);
        goto fail;
    }
    unsigned nb = 0;
    for (unsigned s = 0; s < g->nsrc; s++)
        bufs[nb++] = make_buf("src", srcb[s], srcsize[s]);
    bufs[nb++] = make_buf("ini", ini, dsize);
    bufs[nb++] = make_buf("msk", msk, nunits);
    bufs[nb++] = make_buf("of", NULL, dsize);
    bufs[nb++] = make_buf("op", NULL, dsize);
    for (unsigned i = 0; i < nb; i++) {
        if (!bufs[i])
            goto fail;
        args[i] = (cvm_arg){.kind = CVM_ARG_BUFFER, .buffer = bufs[i]};
    }
    cvm_launch_config cfg = {.grid = {nunits / cube, 1, 1}, .block = {cube, 1, 1},
                             .plane_width = 32, .unchecked = g->unchecked};
    if (cvm_launch(st, k, &cfg, args, nb, &d) != CVM_OK || cvm_stream_sync(st, &d) != CVM_OK) {
        diag("launch: %s", d.message);
        goto fail;
    }
    if (cvm_buffer_read(st, bufs[nb - 2], 0, got_full, dsize, &d) != CVM_OK ||
        cvm_buffer_read(st, bufs[nb - 1], 0, got_part, dsize, &d) != CVM_OK ||
        cvm_stream_sync(st, &d) != CVM_OK) {
        diag("read: %s", d.message);
        goto fail;
    }
    okay = true;
fail:
    if (!okay)
        diag("kernel:\n%s", text);
    for (unsigned i = 0; i < MAXSRC + 4; i++)
        if (bufs[i])
            cvm_buffer_free(bufs[i]);
    if (mod)
        cvm_module_free(mod);
    cvm_free_bytes(bytes);
    free(text);
    return okay;
}

/* Operand values: tuple t of the cartesian product of the value sets
 * (mixed radix, the first operand fastest). */
static unsigned fill_sources(const grp *g, uint64_t **src, unsigned *out_nunits)
{
    static uint64_t sets[MAXSRC][MAXVALS];
    unsigned nset[MAXSRC], ntuples = 1, nunits = 1;
    for (unsigned s = 0; s < g->nsrc; s++) {
        nset[s] = value_set(g->src[s].elem, g->role[s], g->nsrc == 1, sets[s]);
        if (ntuples < 4096)
            ntuples *= nset[s];
    }
    if (ntuples > 4096)
        ntuples = 4096;
    for (unsigned s = 0; s < g->nsrc; s++) {
        unsigned n = (ntuples + g->src[s].line - 1) / g->src[s].line;
        if (n > nunits)
            nunits = n;
    }
    nunits = (nunits + cube - 1) / cube * cube;
    for (unsigned s = 0; s < g->nsrc; s++) {
        unsigned count = nunits * g->src[s].line;
        src[s] = calloc(count, sizeof(uint64_t));
        for (unsigned k = 0; k < count; k++) {
            unsigned t = k % ntuples;
            for (unsigned r = 0; r < s; r++)
                t /= nset[r];
            src[s][k] = sets[s][t % nset[s]];
        }
    }
    *out_nunits = nunits;
    return ntuples;
}

/* Mask pattern: whole planes on, whole planes off, and mixed planes. */
static bool mask_of(unsigned u)
{
    switch ((u / 32) % 4) {
    case 1: return true;
    case 2: return false;
    default: return ((u * 2654435761u) >> 7) & 1;
    }
}

static void run_group(const grp *g)
{
    uint64_t *src[MAXSRC] = {0};
    uint8_t *srcb[MAXSRC] = {0};
    size_t srcsize[MAXSRC] = {0};
    unsigned nunits = cube;
    fill_sources(g, src, &nunits);
    unsigned nd = nunits * g->nout * g->dst.line, de = g->dst.elem;
    size_t dsize = (size_t)nd * esize(de);
    uint8_t *ini = malloc(dsize), *msk = malloc(nunits), *gf = calloc(1, dsize),
            *gp = calloc(1, dsize);
    uint64_t *want = calloc(g->nout * g->dst.line, sizeof(uint64_t));
    for (unsigned s = 0; s < g->nsrc; s++) {
        unsigned count = nunits * g->src[s].line;
        srcsize[s] = (size_t)count * esize(g->src[s].elem);
        srcb[s] = malloc(srcsize[s]);
        for (unsigned k = 0; k < count; k++)
            put(srcb[s], k, g->src[s].elem, src[s][k]);
    }
    for (unsigned i = 0; i < nd; i++)
        put(ini, i, de, de == R_BOOL ? rnd() & 1 : rnd());
    for (unsigned u = 0; u < nunits; u++)
        msk[u] = mask_of(u);
    bool ran = launch(g, srcb, srcsize, ini, msk, nunits, gf, gp);
    unsigned bad[2] = {0, 0};
    for (unsigned u = 0; ran && u < nunits; u++) {
        ref_unit(g, src, u, want);
        for (unsigned i = 0; i < g->nout * g->dst.line; i++) {
            size_t idx = (size_t)u * g->nout * g->dst.line + i;
            uint64_t w[2] = {want[i], msk[u] ? want[i] : get(ini, idx, de)};
            uint64_t got[2] = {get(gf, idx, de), get(gp, idx, de)};
            for (unsigned v = 0; v < 2; v++) {
                bool okv = v == 1 && !msk[u] ? got[v] == w[v] : matches(g, got[v], w[v]);
                if (!okv && bad[v]++ < 4) {
                    if (v == 1)
                        diag("  (partial mask, unit active: %d)", msk[u]);
                    report(g, src, u, i / g->dst.line, i % g->dst.line, got[v], w[v]);
                }
            }
        }
    }
    ngroups++;
    const char *what[2] = {"full mask", "partial mask"};
    for (unsigned v = 0; v < 2; v++) {
        bool from = g->row->rule == CVM_RULE_CVT || g->row->rule == CVM_RULE_BITCAST ||
                    g->row->rule == CVM_RULE_PTRDIFF || g->row->rule == CVM_RULE_EXTRACT;
        if (!ok(ran && !bad[v], "%s%s.%s %s%s%s%s%s", g->nop_before ? "nop, then " : "",
                g->row->mn, tname(g->suffix), what[v], from ? " from " : "",
                from ? tname(g->src[0]) : "", g->note ? g->note : "",
                cube == 64 ? " (cubes of 64: lockstep)" : ""))
            nfail_groups++;
        if (bad[v] > 4)
            diag("  ... %u mismatches in all", bad[v]);
    }
    for (unsigned s = 0; s < g->nsrc; s++) {
        free(src[s]);
        free(srcb[s]);
    }
    free(ini);
    free(msk);
    free(gf);
    free(gp);
    free(want);
}

/* ---- which groups each op gets ---- */

/* ULP bounds of the math functions for f32 and f64: docs/numerics.md states
 * at most 1 ulp of error for each (rcp is correctly rounded and tested as
 * exact). Errors are measured against the long double result rounded to the
 * type, so a 1-ulp function may land 1 step from it. f16 and bf16 results
 * must be within 1 step of the correctly rounded one. */
static const struct {
    unsigned op, f32, f64;
} ulp_bounds[] = {
    {CVM_OP_RSQRT, 1, 1}, {CVM_OP_EXP, 1, 1}, {CVM_OP_EXP2, 1, 1}, {CVM_OP_EXPM1, 1, 1},
    {CVM_OP_LOG, 1, 1}, {CVM_OP_LOG2, 1, 1}, {CVM_OP_LOG10, 1, 1}, {CVM_OP_LOG1P, 1, 1},
    {CVM_OP_SIN, 1, 1}, {CVM_OP_COS, 1, 1}, {CVM_OP_TAN, 1, 1}, {CVM_OP_ASIN, 1, 1},
    {CVM_OP_ACOS, 1, 1}, {CVM_OP_ATAN, 1, 1}, {CVM_OP_ATAN2, 1, 1}, {CVM_OP_SINH, 1, 1},
    {CVM_OP_COSH, 1, 1}, {CVM_OP_TANH, 1, 1}, {CVM_OP_POW, 1, 1}, {CVM_OP_ERF, 1, 1},
    {CVM_OP_ERFC, 1, 1}, {CVM_OP_CBRT, 1, 1}, {CVM_OP_HYPOT, 1, 1},
};

static void set_mode(grp *g)
{
    unsigned op = g->row->num, e = g->dst.elem;
    g->mode = M_BITS;
    if (!r_is_float(e))
        return;
    for (unsigned i = 0; i < sizeof ulp_bounds / sizeof ulp_bounds[0]; i++)
        if (ulp_bounds[i].op == op) {
            g->mode = M_ULP;
            g->ulp = e == R_F32 ? ulp_bounds[i].f32 : e == R_F64 ? ulp_bounds[i].f64 : 1;
            return;
        }
    switch (op) {
    case CVM_OP_MOV: case CVM_OP_CONST: case CVM_OP_SELECT: case CVM_OP_EXTRACT:
    case CVM_OP_INSERT: case CVM_OP_BUILD: case CVM_OP_SPLAT: case CVM_OP_NEG:
    case CVM_OP_ABS: case CVM_OP_COPYSIGN: case CVM_OP_BITCAST:
        return; /* bit moves: exact bits, NaN payloads included */
    default:
        g->mode = M_FEXACT; /* one correctly rounded result; the canonical NaN for NaN */
    }
}

static grp group(const oprow *r, unsigned e, unsigned line)
{
    grp g;
    memset(&g, 0, sizeof g);
    g.row = r;
    g.suffix = g.dst = (tyl){e, line};
    g.nout = 1;
    return g;
}

/* CVM_TEST_OPS_SHARD=k/n: this run takes groups k, k + n, k + 2n, ... */
static unsigned shard, nshards = 1, ngroups_seen;

static void run(grp *g)
{
    if (ngroups_seen++ % nshards != shard)
        return;
    set_mode(g);
    run_group(g);
}

static unsigned count_regs(const char *fmt)
{
    unsigned n = 0;
    for (; *fmt; fmt++)
        n += *fmt == 'r';
    return n;
}

static void plan_cvt(const oprow *r, unsigned e, unsigned L)
{
    for (unsigned s = R_BOOL; s <= R_F64; s++) {
        grp g = group(r, e, L);
        g.nsrc = 1;
        g.src[0] = (tyl){s, L};
        run(&g);
    }
}

static void plan_bitcast(const oprow *r, unsigned e, unsigned L)
{
    static const unsigned lines[] = {1, 2, 4, 8, 16};
    for (unsigned s = R_I8; s <= R_F64; s++)
        for (unsigned i = 0; i < 5; i++) {
            if (esize(s) * lines[i] != esize(e) * L)
                continue;
            grp g = group(r, e, L);
            g.nsrc = 1;
            g.src[0] = (tyl){s, lines[i]};
            run(&g);
        }
}

/* Runs every group of one (op, element type, line); false if the op is not
 * one this file generates. */
static bool plan(const oprow *r, unsigned e, unsigned L)
{
    grp g = group(r, e, L);
    tyl t = {e, L}, scalar = {e, 1};
    switch (r->rule) {
    case CVM_RULE_SAME:
        g.nsrc = count_regs(r->fmt);
        for (unsigned k = 0; k < g.nsrc; k++) {
            g.src[k] = t;
            g.role[k] = g.nsrc >= 3 ? ROLE_SHORT : ROLE_VAL;
        }
        g.unchecked = (r->num == CVM_OP_DIV || r->num == CVM_OP_REM) && r_is_int(e);
        break;
    case CVM_RULE_CONST: {
        uint64_t vals[MAXVALS];
        unsigned n = value_set(e, ROLE_VAL, false, vals);
        if (e == R_PG) /* the only meaningful global pointer constant is null */
            vals[0] = 0, n = 1;
        g.nout = n < MAXOUT ? n : MAXOUT;
        memcpy(g.imm, vals, g.nout * sizeof vals[0]);
        break;
    }
    case CVM_RULE_SELECT:
        g.nsrc = 3;
        g.src[0] = g.src[1] = t;
        g.src[2] = (tyl){R_BOOL, L};
        g.role[2] = ROLE_COND;
        if (L > 1) {
            grp g1 = g;
            g1.src[2].line = 1;
            g1.note = " (scalar condition)";
            run(&g1);
        }
        break;
    case CVM_RULE_EXTRACT: /* the instruction type is the scalar result */
        g.nsrc = 1;
        g.src[0] = t;
        g.suffix = g.dst = scalar;
        g.nout = L;
        break;
    case CVM_RULE_INSERT:
        g.nsrc = 2;
        g.src[0] = t;
        g.src[1] = scalar;
        g.nout = L;
        break;
    case CVM_RULE_BUILD:
        g.nsrc = L;
        for (unsigned k = 0; k < L; k++)
            g.src[k] = scalar;
        break;
    case CVM_RULE_SPLAT:
        g.nsrc = 1;
        g.src[0] = scalar;
        break;
    case CVM_RULE_CMP:
    case CVM_RULE_TEST:
        g.nsrc = r->rule == CVM_RULE_CMP ? 2 : 1;
        g.src[0] = g.src[1] = t;
        g.dst = (tyl){R_BOOL, L};
        break;
    case CVM_RULE_SHIFT:
        g.nsrc = 2;
        g.src[0] = t;
        g.src[1] = (tyl){unsigned_of(e), L};
        g.role[1] = ROLE_COUNT;
        break;
    case CVM_RULE_COUNT:
        g.nsrc = 1;
        g.src[0] = t;
        g.dst = (tyl){R_U32, L};
        break;
    case CVM_RULE_CVT:
        plan_cvt(r, e, L);
        return true;
    case CVM_RULE_BITCAST:
        plan_bitcast(r, e, L);
        return true;
    case CVM_RULE_PTRADD:
        g.nsrc = 2;
        g.src[0] = t;
        g.src[1] = (tyl){R_I32, 1};
        run(&g);
        g.src[1] = (tyl){R_I64, 1};
        break;
    case CVM_RULE_PTRDIFF:
        if (e != R_I64)
            return true; /* d is always i64 */
        g.nsrc = 2;
        for (unsigned p = R_PG; p < R_PC; p++) {
            g.src[0] = g.src[1] = (tyl){p, 1};
            run(&g);
        }
        g.src[0] = g.src[1] = (tyl){R_PC, 1};
        break;
    default:
        return false;
    }
    run(&g);
    return true;
}

/* nop changes nothing: mov.u32 runs with a nop before it. */
static void run_nop(void)
{
    for (unsigned i = 0; i < NROWS; i++)
        if (rows[i].num == CVM_OP_MOV) {
            grp g = group(&rows[i], R_U32, 1);
            g.nsrc = 1;
            g.src[0] = g.dst;
            g.nop_before = true;
            run(&g);
        }
}

/* Checked mode (the default) faults on integer x/0 and x%0. */
static void div_faults(void)
{
    static const char *const ops[] = {"div", "rem"};
    for (unsigned i = 0; i < 2; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 ".kernel t\n.param o buffer i32 write\n.reg i32 %%a, %%b\n"
                 ".reg ptr.global %%p\n    const.i32 %%a, 7\n    const.i32 %%b, 0\n"
                 "    %s.i32 %%a, %%a, %%b\n    param.ptr.global %%p, o, 0\n"
                 "    st.i32 [%%p], %%a\n    return\n.end\n",
                 ops[i]);
        void *bytes = NULL;
        size_t size = 0;
        cvm_module *mod = NULL;
        const cvm_kernel *k = NULL;
        cvm_buffer *b = make_buf("o", NULL, 4);
        cvm_diag d = {0};
        cvm_status st = CVM_INTERNAL;
        cvm_stream *s = cvm_device_stream(dev);
        if (b && cvm_assemble(text, strlen(text), "fault.cbs", &bytes, &size, &d) == CVM_OK &&
            cvm_module_load(dev, bytes, size, &mod, &d) == CVM_OK &&
            cvm_kernel_get(mod, "t", &k, &d) == CVM_OK) {
            cvm_arg a = {.kind = CVM_ARG_BUFFER, .buffer = b};
            cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .plane_width = 32};
            st = cvm_launch(s, k, &cfg, &a, 1, &d);
            if (st == CVM_OK)
                st = cvm_stream_sync(s, &d);
        }
        if (!ok(st == CVM_FAULT, "checked mode: %s.i32 by zero faults", ops[i]))
            diag("  status %s: %s", cvm_status_str(st), d.message);
        if (mod)
            cvm_module_free(mod);
        if (b)
            cvm_buffer_free(b);
        cvm_free_bytes(bytes);
    }
}

/* Is `word` in `text` as an instruction: between a space, quote or line
 * start and a '.', space, comma, quote or backslash? */
static bool has_token(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p++) {
        char before = p == text ? ' ' : p[-1], after = p[len];
        if (strchr(" \t\n\"", before) && after && strchr(". ,\"\\\n", after))
            return true;
    }
    return false;
}

/* Does the covering test mention the op? Either the whole mnemonic as an
 * instruction, or for dotted families built from a table (atom.%s) the
 * family prefix and the quoted suffix. */
static bool test_mentions(const char *path, const char *mn)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    sbuf s = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_printf(&s, "%.*s", (int)n, chunk);
    fclose(f);
    bool found = s.p && has_token(s.p, mn);
    const char *dot = strchr(mn, '.');
    if (s.p && !found && dot) {
        char prefix[32], quoted[32];
        snprintf(prefix, sizeof prefix, "%.*s.", (int)(dot - mn), mn);
        snprintf(quoted, sizeof quoted, "\"%s\"", dot + 1);
        found = strstr(s.p, prefix) && strstr(s.p, quoted);
    }
    free(s.p);
    return found;
}

static void check_elsewhere(const oprow *r)
{
    for (unsigned i = 0; i < NELSEWHERE; i++)
        if (strcmp(elsewhere[i].mn, r->mn) == 0) {
            ok(test_mentions(elsewhere[i].test, r->mn), "%s (0x%x): covered by %s", r->mn,
               r->num, elsewhere[i].test);
            return;
        }
    ok(0, "%s (0x%x): no generated test and no covering test listed in test_ops.c", r->mn,
       r->num);
}

int main(void)
{
    cvm_diag d = {0};
    if (cvm_device_open("cpu", NULL, &dev, &d) != CVM_OK) {
        ok(0, "open the cpu device: %s", d.message);
        return done_testing();
    }
    const char *only = getenv("CVM_TEST_OPS_ONLY"); /* run one mnemonic while debugging */
    /* CVM_TEST_OPS_PASSES=1: cubes of 37 only (tests/test_native_corpus.sh) */
    const char *np = getenv("CVM_TEST_OPS_PASSES");
    unsigned npass = np && !strcmp(np, "1") ? 1 : 2;
    /* CVM_TEST_OPS_SHARD=k/n: every n-th group from the k-th (the native
     * corpus runs two shards at once: each kernel costs LLVM ~50 ms) */
    const char *sh = getenv("CVM_TEST_OPS_SHARD");
    if (sh && (sscanf(sh, "%u/%u", &shard, &nshards) != 2 || nshards == 0 || shard >= nshards)) {
        ok(0, "CVM_TEST_OPS_SHARD=%s is not k/n with k < n", sh);
        return done_testing();
    }
    for (unsigned pass = 0; pass < npass; pass++) {
    cube = pass ? 64 : 37;
    for (unsigned i = 0; i < NROWS; i++) {
        const oprow *r = &rows[i];
        if (only && strcmp(only, r->mn) != 0)
            continue;
        if (r->num == CVM_OP_NOP) {
            run_nop();
            continue;
        }
        bool here = false;
        for (unsigned e = R_BOOL; e <= R_PC; e++) {
            if (!(r->types & (1u << e)))
                continue;
            for (unsigned L = 1; L <= 4; L += 3) {
                bool scalar_only = r_is_ptr(e) || r->rule == CVM_RULE_PTRADD ||
                                   r->rule == CVM_RULE_PTRDIFF;
                if (L > 1 && scalar_only)
                    continue;
                here |= plan(r, e, L);
            }
        }
        if (!here && !pass && shard == 0)
            check_elsewhere(r);
    }
    }
    if (!only && shard == 0)
        div_faults();
    diag("%u generated groups, %u with failures", ngroups, nfail_groups);
    cvm_device_close(dev);
    return done_testing();
}
