/*
 * test_memory.c - memory through every space and pointer op: ld/st on
 * global, shared, local, const (a .constant symbol) and a .global symbol;
 * f32x4 line loads and stores; ptr.add/ptr.diff; a per-lane pointer select;
 * volatile and atomic loads/stores; every atomic op on i32/u32/u64/f32 in
 * global and shared memory, checked order-independently; out-of-bounds and
 * misaligned faults; accesses shaped by 2D cubes' tiles (runs of lanes reading
 * one element or consecutive ones) and partial planes whose active lanes are
 * one run; local memory at a different offset in every lane, in partial
 * planes, in u16 and u32x4; buffer views. Expected values are
 * computed here in C.
 */
#include "kern.h"

/* p = param NAME + t * SIZE (t: %t, scratch %off, %sz) */
#define AT(p, name, size)                                                                  \
    "    cvt.i64 %off, %t\n    const.i64 %sz, " #size "\n    mul.i64 %off, %off, %sz\n"    \
    "    param.ptr.global " p ", " name ", 0\n    ptr.add.ptr.global " p ", " p ", %off\n"

/* ---- every space: out[t*5 + 0..4] = global, shared, local, const, .global symbol ---- */
static const char *const spaces_parts[] = {
    ".constant ctab u32 16 4 = 0x0b000000160000002100000042000000\n"
    ".global gvar u32 16 4 = 0x05000000060000000700000008000000\n"
    ".kernel spaces\n.param inp buffer u32 read\n.param out buffer u32 write\n"
    ".shared 256\n.local 16\n"
    ".reg u32 %t, %v, %w, %k, %c1, %c3, %n, %acc\n.reg i64 %off, %sz\n.reg bool %p\n"
    ".reg ptr.global %pi, %po, %pg\n.reg ptr.shared %sb, %sp\n.reg ptr.local %lb, %lp\n"
    ".reg ptr.const %cb\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %n, cube_dim.x\n    const.u32 %c1, 1\n"
    "    const.u32 %c3, 3\n"
    AT("%pi", "inp", 4) AT("%po", "out", 20)
    "    ld.u32 %v, [%pi]\n    st.u32 [%po], %v\n"
    /* shared: s[t] = 2v; read s[(t + 1) % n] */
    "    const.ptr.shared %sb, 0\n    const.i64 %sz, 4\n    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %sz\n    ptr.add.ptr.shared %sp, %sb, %off\n"
    "    add.u32 %w, %v, %v\n    st.u32 [%sp], %w\n    sync_cube\n"
    "    add.u32 %k, %t, %c1\n    rem.u32 %k, %k, %n\n    cvt.i64 %off, %k\n"
    "    mul.i64 %off, %off, %sz\n    ptr.add.ptr.shared %sp, %sb, %off\n    ld.u32 %w, [%sp]\n"
    "    const.i64 %sz, 4\n    ptr.add.ptr.global %po, %po, %sz\n    st.u32 [%po], %w\n",
    /* local: l[k] = t + k for k < 4, then the sum */
    "    const.ptr.local %lb, 0\n    const.u32 %k, 0\n"
    "    loop\n        cvt.i64 %off, %k\n        mul.i64 %off, %off, %sz\n"
    "        ptr.add.ptr.local %lp, %lb, %off\n        add.u32 %w, %t, %k\n        st.u32 [%lp], %w\n"
    "        add.u32 %k, %k, %c1\n    continuing\n        gt.u32 %p, %k, %c3\n        break_if %p\n    end\n"
    "    const.u32 %acc, 0\n    const.u32 %k, 0\n"
    "    loop\n        cvt.i64 %off, %k\n        mul.i64 %off, %off, %sz\n"
    "        ptr.add.ptr.local %lp, %lb, %off\n        ld.u32 %w, [%lp]\n        add.u32 %acc, %acc, %w\n"
    "        add.u32 %k, %k, %c1\n    continuing\n        gt.u32 %p, %k, %c3\n        break_if %p\n    end\n"
    "    ptr.add.ptr.global %po, %po, %sz\n    st.u32 [%po], %acc\n"
    /* const and .global symbol: element t % 4 */
    "    and.u32 %k, %t, %c3\n    cvt.i64 %off, %k\n    mul.i64 %off, %off, %sz\n"
    "    sym.ptr.const %cb, ctab\n    ptr.add.ptr.const %cb, %cb, %off\n    ld.u32 %w, [%cb]\n"
    "    ptr.add.ptr.global %po, %po, %sz\n    st.u32 [%po], %w\n"
    "    sym.ptr.global %pg, gvar\n    ptr.add.ptr.global %pg, %pg, %off\n    ld.u32 %w, [%pg]\n"
    "    ptr.add.ptr.global %po, %po, %sz\n    st.u32 [%po], %w\n"
    "    return\n.end\n",
    NULL};

static void test_spaces(void)
{
    enum { N = 48 };
    uint32_t in[N], got[N * 5];
    static const uint32_t ctab[4] = {11, 22, 33, 66}, gvar[4] = {5, 6, 7, 8};
    for (uint32_t t = 0; t < N; t++)
        in[t] = t * 1000 + 7;
    char *src = kern_join(spaces_parts);
    cvm_buffer *bi = kern_buf("inp", sizeof in, in), *bo = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo)};
    cvm_launch_config cfg = kern_cfg(1, N);
    cvm_diag d;
    cvm_status st = src ? kern_exec(src, "spaces", &cfg, args, 2, &d) : CVM_OUT_OF_MEMORY;
    if (ok(st == CVM_OK, "spaces: runs (%s %s)", cvm_status_str(st), st ? d.message : "") &&
        kern_read(bo, got, sizeof got)) {
        int g = 1, s = 1, l = 1, c = 1, y = 1;
        for (uint32_t t = 0; t < N; t++) {
            g &= got[t * 5] == in[t];
            s &= got[t * 5 + 1] == 2 * in[(t + 1) % N];
            l &= got[t * 5 + 2] == 4 * t + 6;
            c &= got[t * 5 + 3] == ctab[t % 4];
            y &= got[t * 5 + 4] == gvar[t % 4];
        }
        ok(g, "global ld/st");
        ok(s, "shared ld/st across sync_cube");
        ok(l, "local ld/st");
        ok(c, "const symbol ld");
        ok(y, ".global symbol ld");
    }
    free(src);
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
}

/*
 * ---- lines, pointers, select, volatile and atomic ld/st ----
 * lines: lo[t] = 2 * li[t] as f32x4; sum[t] = sum of the 4 elements
 * diff[t] = ptr.diff(a + 100, a + 4t); sel[t] = t odd ? a[t] : b[t]
 * vol[t] = round trip through st.volatile/ld.volatile and st.atomic/ld.atomic
 */
static const char *const misc_parts[] = {
    ".kernel misc\n.param li buffer f32x4 read\n.param lo buffer f32x4 write\n"
    ".param sum buffer f32 write\n.param a buffer u32 read\n.param b buffer u32 read\n"
    ".param diff buffer i64 write\n.param sel buffer u32 write\n.param vol buffer u32 readwrite\n"
    ".reg u32 %t, %c1, %x, %y\n.reg i64 %off, %sz, %d\n.reg bool %odd\n"
    ".reg ptr.global %p, %q, %r, %pa, %pb\n.reg f32x4 %v\n.reg f32 %e0, %e1, %e2, %e3\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c1, 1\n"
    AT("%p", "li", 16) AT("%q", "lo", 16)
    "    ld.f32x4 %v, [%p]\n    add.f32x4 %v, %v, %v\n    st.f32x4 [%q], %v\n"
    "    extract.f32 %e0, %v, 0\n    extract.f32 %e1, %v, 1\n    extract.f32 %e2, %v, 2\n"
    "    extract.f32 %e3, %v, 3\n    add.f32 %e0, %e0, %e1\n    add.f32 %e0, %e0, %e2\n"
    "    add.f32 %e0, %e0, %e3\n" AT("%r", "sum", 4) "    st.f32 [%r], %e0\n"
    /* pointers */
    AT("%pa", "a", 4) "    param.ptr.global %p, a, 0\n    const.i64 %sz, 100\n"
    "    ptr.add.ptr.global %p, %p, %sz\n    ptr.diff.i64 %d, %p, %pa\n"
    AT("%r", "diff", 8) "    st.i64 [%r], %d\n",
    AT("%pb", "b", 4) "    and.u32 %x, %t, %c1\n    cvt.bool %odd, %x\n"
    "    select.ptr.global %p, %pa, %pb, %odd\n    ld.u32 %x, [%p]\n"
    AT("%r", "sel", 4) "    st.u32 [%r], %x\n"
    /* volatile and atomic round trips */
    AT("%r", "vol", 4) "    mul.u32 %x, %t, %t\n    st.volatile.u32 [%r], %x\n"
    "    ld.volatile.u32 %y, [%r]\n    add.u32 %y, %y, %c1\n"
    "    st.atomic.release.device.u32 [%r], %y\n    ld.atomic.acquire.device.u32 %x, [%r]\n"
    "    add.u32 %x, %x, %c1\n    st.u32 [%r], %x\n"
    "    return\n.end\n",
    NULL};

static void test_misc(void)
{
    enum { N = 40 };
    float li[N * 4], lo[N * 4], sum[N];
    uint32_t a[N], b[N], sel[N], vol[N];
    int64_t diff[N];
    for (int i = 0; i < N * 4; i++)
        li[i] = (float)i * 0.25f - 3.0f;
    for (uint32_t t = 0; t < N; t++)
        a[t] = 100 + t, b[t] = 900 + t;
    char *src = kern_join(misc_parts);
    cvm_buffer *bufs[8] = {kern_buf("li", sizeof li, li), kern_buf("lo", sizeof lo, NULL),
                           kern_buf("sum", sizeof sum, NULL), kern_buf("a", sizeof a, a),
                           kern_buf("b", sizeof b, b), kern_buf("diff", sizeof diff, NULL),
                           kern_buf("sel", sizeof sel, NULL), kern_buf("vol", sizeof vol, NULL)};
    cvm_arg args[8];
    for (int i = 0; i < 8; i++)
        args[i] = kern_arg_buf(bufs[i]);
    cvm_launch_config cfg = kern_cfg(1, N);
    cvm_diag d;
    cvm_status st = src ? kern_exec(src, "misc", &cfg, args, 8, &d) : CVM_OUT_OF_MEMORY;
    if (ok(st == CVM_OK, "misc: runs (%s %s)", cvm_status_str(st), st ? d.message : "") &&
        kern_read(bufs[1], lo, sizeof lo) && kern_read(bufs[2], sum, sizeof sum) &&
        kern_read(bufs[5], diff, sizeof diff) && kern_read(bufs[6], sel, sizeof sel) &&
        kern_read(bufs[7], vol, sizeof vol)) {
        int l = 1, s = 1, df = 1, se = 1, v = 1;
        for (uint32_t t = 0; t < N; t++) {
            float e[4];
            for (int k = 0; k < 4; k++) {
                e[k] = li[t * 4 + k] + li[t * 4 + k];
                l &= lo[t * 4 + k] == e[k];
            }
            float want = e[0] + e[1];
            want = want + e[2];
            want = want + e[3];
            s &= sum[t] == want;
            df &= diff[t] == 100 - 4 * (int64_t)t;
            se &= sel[t] == ((t & 1) ? a[t] : b[t]);
            v &= vol[t] == t * t + 2;
        }
        ok(l, "f32x4 line load, add and store");
        ok(s, "extract from a line");
        ok(df, "ptr.add and ptr.diff");
        ok(se, "per-lane select between pointers into two buffers");
        ok(v, "volatile and atomic load/store round trips");
    }
    free(src);
    for (int i = 0; i < 8; i++)
        cvm_buffer_free(bufs[i]);
}

/*
 * ---- atomics: N units apply OP with operand vals[t] to loc[0] (global) or
 * to a shared copy of it (shared). cas is exercised as a CAS loop that adds
 * vals[t]. Order-independent checks: the final value is the fold of every
 * operand (all these ops commute), and for any serial order the multiset
 * {old_t OP v_t} + {init} equals {old_t} + {final}.
 */
enum { AT_N = 64 };
typedef enum { T_I32, T_U32, T_U64, T_F32 } atype;
static const char *const tname[] = {"i32", "u32", "u64", "f32"};

static const char *atomic_src(char *buf, size_t cap, const char *op, atype ty, int shared)
{
    const char *t = tname[ty], *scope = shared ? "cube" : "device";
    const char *ptr = shared ? "%sp" : "%pl";
    int is_cas = strcmp(op, "cas") == 0;
    char body[1024];
    if (is_cas)
        snprintf(body, sizeof body,
                 "    loop\n        ld.atomic.relaxed.%s.%s %%cur, [%s]\n"
                 "        add.%s %%nv, %%cur, %%v\n"
                 "        atom.cas.relaxed.%s.%s %%old, [%s], %%cur, %%nv\n"
                 "        eq.%s %%done, %%old, %%cur\n        if %%done\n            break\n"
                 "        end\n    end\n",
                 scope, t, ptr, t, scope, t, ptr, t);
    else
        snprintf(body, sizeof body, "    atom.%s.relaxed.%s.%s %%old, [%s], %%v\n", op, scope, t, ptr);
    snprintf(buf, cap,
             ".kernel at\n.param loc buffer %s readwrite\n.param vals buffer %s read\n"
             ".param olds buffer %s write\n.shared 16\n"
             ".reg u32 %%t, %%z\n.reg %s %%v, %%old, %%cur, %%nv\n.reg bool %%first, %%done\n"
             ".reg i64 %%off, %%sz\n.reg ptr.global %%pl, %%pv, %%po\n.reg ptr.shared %%sp\n"
             "    sreg.u32 %%t, abs_pos.x\n    const.u32 %%z, 0\n    eq.u32 %%first, %%t, %%z\n"
             "    const.i64 %%sz, %d\n    cvt.i64 %%off, %%t\n    mul.i64 %%off, %%off, %%sz\n"
             "    param.ptr.global %%pl, loc, 0\n    param.ptr.global %%pv, vals, 0\n"
             "    ptr.add.ptr.global %%pv, %%pv, %%off\n    ld.%s %%v, [%%pv]\n"
             "    const.ptr.shared %%sp, 0\n"
             "%s" /* shared: unit 0 copies loc[0] in */
             "%s"
             "%s" /* shared: unit 0 copies the result out */
             "    param.ptr.global %%po, olds, 0\n    ptr.add.ptr.global %%po, %%po, %%off\n"
             "    st.%s [%%po], %%old\n    return\n.end\n",
             t, t, t, t, ty == T_U64 ? 8 : 4, t,
             shared ? "    if %first\n        ld.TY %cur, [%pl]\n        st.TY [%sp], %cur\n    end\n    sync_cube\n" : "",
             body,
             shared ? "    sync_cube\n    if %first\n        ld.TY %cur, [%sp]\n        st.TY [%pl], %cur\n    end\n" : "",
             t);
    /* the two shared snippets above name the type as TY */
    for (char *p = strstr(buf, ".TY "); p; p = strstr(p, ".TY ")) {
        size_t n = strlen(t);
        memmove(p + 1 + n, p + 3, strlen(p + 3) + 1);
        memcpy(p + 1, t, n);
    }
    return buf;
}

typedef union { uint64_t u; int32_t i32; uint32_t u32; float f; } aval;

static uint64_t bits(atype ty, aval v)
{
    return ty == T_U64 ? v.u : ty == T_F32 ? (uint64_t)(uint32_t)v.u32 : (uint64_t)v.u32;
}

/* The op applied to x and v, in the C reference. */
static aval apply(const char *op, atype ty, aval x, aval v)
{
    aval r = {0};
    if (ty == T_F32) {
        r.f = !strcmp(op, "add") ? x.f + v.f : !strcmp(op, "min") ? (v.f < x.f ? v.f : x.f)
              : !strcmp(op, "max") ? (v.f > x.f ? v.f : x.f) : v.f; /* exch */
        return r;
    }
    uint64_t a = ty == T_U64 ? x.u : x.u32, b = ty == T_U64 ? v.u : v.u32, m;
    int64_t sa = ty == T_I32 ? x.i32 : (int64_t)a, sb = ty == T_I32 ? v.i32 : (int64_t)b;
    if (!strcmp(op, "add") || !strcmp(op, "cas"))
        m = a + b;
    else if (!strcmp(op, "sub"))
        m = a - b;
    else if (!strcmp(op, "min"))
        m = ty == T_I32 ? (sb < sa ? b : a) : (b < a ? b : a);
    else if (!strcmp(op, "max"))
        m = ty == T_I32 ? (sb > sa ? b : a) : (b > a ? b : a);
    else if (!strcmp(op, "and"))
        m = a & b;
    else if (!strcmp(op, "or"))
        m = a | b;
    else if (!strcmp(op, "xor"))
        m = a ^ b;
    else if (!strcmp(op, "inc"))
        m = a >= b ? 0 : a + 1;
    else if (!strcmp(op, "dec"))
        m = (a == 0 || a > b) ? b : a - 1;
    else
        m = b; /* exch */
    if (ty == T_U64)
        r.u = m;
    else
        r.u32 = (uint32_t)m;
    return r;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_atomic(const char *op, atype ty, int shared)
{
    size_t es = ty == T_U64 ? 8 : 4;
    unsigned char vals[AT_N * 8], olds[AT_N * 8], loc[8] = {0};
    aval init = {0}, v[AT_N], o[AT_N], fin, want;
    uint64_t lhs[AT_N + 1], rhs[AT_N + 1];
    char src[4096];
    if (!strcmp(op, "inc") || !strcmp(op, "dec"))
        init.u32 = !strcmp(op, "inc") ? 3 : 500, init.u = ty == T_U64 ? init.u32 : init.u;
    else if (ty == T_F32)
        init.f = 0.5f;
    else
        init.u32 = 0x0f0f1234u, init.u = ty == T_U64 ? 0x123456789abcdefull : init.u;
    for (uint32_t t = 0; t < AT_N; t++) {
        uint32_t h = t * 2654435761u ^ (t << 7);
        v[t].u = 0;
        if (!strcmp(op, "inc") || !strcmp(op, "dec"))
            v[t].u32 = 1000;
        else if (ty == T_F32)
            v[t].f = (float)((int)(h % 23) - 11);
        else if (ty == T_U64)
            v[t].u = (uint64_t)h << 29 ^ h;
        else
            v[t].u32 = h;
        memcpy(vals + t * es, &v[t], es);
    }
    memcpy(loc, &init, es);
    cvm_buffer *bl = kern_buf("loc", 8, loc), *bv = kern_buf("vals", sizeof vals, vals),
               *bo = kern_buf("olds", sizeof olds, NULL);
    cvm_arg args[] = {kern_arg_buf(bl), kern_arg_buf(bv), kern_arg_buf(bo)};
    cvm_launch_config cfg = shared ? kern_cfg(1, AT_N) : kern_cfg(2, AT_N / 2);
    cvm_diag d;
    cvm_status st = kern_exec(atomic_src(src, sizeof src, op, ty, shared), "at", &cfg, args, 3, &d);
    const char *where = shared ? "shared" : "global";
    if (ok(st == CVM_OK, "atom.%s.%s %s: runs", op, tname[ty], where) &&
        kern_read(bl, loc, 8) && kern_read(bo, olds, sizeof olds)) {
        fin.u = 0;
        memcpy(&fin, loc, es);
        want = init;
        for (uint32_t t = 0; t < AT_N; t++) {
            want = apply(op, ty, want, v[t]);
            o[t].u = 0;
            memcpy(&o[t], olds + t * es, es);
            lhs[t] = bits(ty, apply(op, ty, o[t], v[t]));
            rhs[t] = bits(ty, o[t]);
        }
        lhs[AT_N] = bits(ty, init);
        rhs[AT_N] = bits(ty, fin);
        qsort(lhs, AT_N + 1, 8, cmp_u64);
        qsort(rhs, AT_N + 1, 8, cmp_u64);
        if (strcmp(op, "exch") != 0)
            ok(bits(ty, fin) == bits(ty, want), "atom.%s.%s %s: final value", op, tname[ty], where);
        ok(memcmp(lhs, rhs, sizeof lhs) == 0, "atom.%s.%s %s: old values form a serial order", op,
           tname[ty], where);
    } else if (st != CVM_OK) {
        diag("  %s: %s", cvm_status_str(st), d.message);
    }
    cvm_buffer_free(bl);
    cvm_buffer_free(bv);
    cvm_buffer_free(bo);
}

static void test_atomics(void)
{
    static const struct {
        const char *op;
        unsigned types; /* bit per atype */
    } ops[] = {{"add", 15}, {"sub", 7}, {"min", 15}, {"max", 15}, {"and", 7}, {"or", 7},
               {"xor", 7},  {"exch", 15}, {"inc", 6}, {"dec", 6}, {"cas", 7}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (int ty = 0; ty < 4; ty++)
            if (ops[i].types >> ty & 1)
                for (int sh = 0; sh < 2; sh++)
                    test_atomic(ops[i].op, (atype)ty, sh);
}

/* ---- faults: unit 5 of each cube reads/writes at byte offset OFF of a 16-byte buffer ---- */
#define FAULT_SRC(kind, access)                                                            \
    ".kernel " kind "\n.param small buffer u32 readwrite\n"                                \
    ".reg u32 %t, %v, %five\n.reg bool %p\n.reg i64 %off\n.reg ptr.global %ps\n"           \
    "    sreg.u32 %t, unit_pos.x\n"                 /* pc 0 */                             \
    "    const.u32 %five, 5\n"                      /* 1 */                                \
    "    eq.u32 %p, %t, %five\n"                    /* 2 */                                \
    "    param.ptr.global %ps, small, 0\n"          /* 3 */                                \
    "    const.u32 %v, 9\n"                         /* 4 */                                \
    "    if %p\n"                                   /* 5 */                                \
    "        param.i64 %off, off, 0\n"              /* 6 */                                \
    "        ptr.add.ptr.global %ps, %ps, %off\n"   /* 7 */                                \
    "    end\n"                                     /* 8 */                                \
    access                                          /* 9 */                                \
    "    return\n.end\n"

static const char ld_fault_src[] = FAULT_SRC("oob", "    ld.u32 %v, [%ps]\n");
static const char st_fault_src[] = FAULT_SRC("oob", "    st.u32 [%ps], %v\n");
static const char atom_fault_src[] = FAULT_SRC("oob", "    atom.add.relaxed.device.u32 %v, [%ps], %v\n");

static void test_fault(const char *src, const char *what, int64_t off, const char *want_msg)
{
    char patched[2048];
    /* the offset is a scalar parameter; declared after the buffer */
    const char *at = strstr(src, "readwrite\n");
    snprintf(patched, sizeof patched, "%.*s.param off scalar i64\n%s",
             (int)(at + strlen("readwrite\n") - src), src, at + strlen("readwrite\n"));
    cvm_buffer *b = kern_buf("small", 16, NULL);
    cvm_arg args[] = {kern_arg_buf(b), kern_arg_bytes(&off, 8)};
    cvm_launch_config cfg = kern_cfg(2, 8);
    cvm_diag d;
    cvm_status st = kern_exec(patched, "oob", &cfg, args, 2, &d);
    ok(st == CVM_FAULT && d.has_fault, "%s: faults (%s: %s)", what, cvm_status_str(st), d.message);
    if (d.has_fault) {
        ok(d.fault.cube[0] == 0 && d.fault.unit[0] == 5, "%s: lowest faulting unit (cube %u unit %u)",
           what, d.fault.cube[0], d.fault.unit[0]);
        is_int(d.fault.pc, 9, "%s: pc of the access", what);
        if (want_msg) {
            char num[32];
            snprintf(num, sizeof num, "%lld", (long long)off);
            ok(strstr(d.message, want_msg) && strstr(d.message, num),
               "%s: message names buffer '%s' and offset %s", what, want_msg, num);
        }
    }
    cvm_buffer_free(b);
}

/* ---- a full plane of consecutive shared offsets that starts below zero:
 * units 0..15 read at t*4 - 64, which wraps past 2^32 (the fast path once
 * checked only the last lane and copied from before the shared area) ---- */
static const char shared_wrap_src[] =
    ".kernel wrap\n.param out buffer u32 write\n.shared 256\n"
    ".reg u32 %t, %v\n.reg i64 %off, %sz, %neg\n.reg ptr.global %po\n.reg ptr.shared %sb, %sp\n"
    "    sreg.u32 %t, unit_pos.x\n    const.ptr.shared %sb, 0\n    const.i64 %sz, 4\n"
    "    const.i64 %neg, -64\n    cvt.i64 %off, %t\n    mul.i64 %off, %off, %sz\n"
    "    add.i64 %off, %off, %neg\n    ptr.add.ptr.shared %sp, %sb, %off\n"
    "    ld.u32 %v, [%sp]\n    return\n.end\n";

static void test_shared_wrap(void)
{
    cvm_buffer *b = kern_buf("out", 32 * 4, NULL);
    cvm_arg args[] = {kern_arg_buf(b)};
    cvm_launch_config cfg = kern_cfg(1, 32);
    cvm_diag d;
    cvm_status st = kern_exec(shared_wrap_src, "wrap", &cfg, args, 1, &d);
    ok(st == CVM_FAULT && d.has_fault, "shared offsets below zero in a full plane fault (%s: %s)",
       cvm_status_str(st), d.message);
    if (d.has_fault) {
        is_int(d.fault.unit[0], 0, "shared wrap: lowest faulting unit is 0");
        is_int(d.fault.count, 16, "shared wrap: units 0..15 fault, 16..31 are in bounds");
        ok(strstr(d.message, "shared") != NULL, "shared wrap: message names shared memory (%s)", d.message);
    }
    cvm_buffer_free(b);
}

/* ---- tile-shaped accesses (interp_mem.c tile_shape): cubes W units wide
 * put runs of W lanes in a plane, each run reading one element or W
 * consecutive ones. Unit (tx, ty) of cube c, t = ty W + tx, g = c W H + t:
 *   out[g] = in[16c + ty K] ^ 3 in[100 + tx] ^ 7 in[200 + c]
 *            ^ 11 sh[ty W] ^ 13 sh[tx] ^ 17 sh[j + 5 (j / 24)]
 *                         (sh[t] = 3t + c, j = t mod 32: almost a run)
 *   rows[c H + ty] = 5g + 1      (a run storing to one address: lane order
 *                                 leaves its last lane's value)
 *   over[c W H + p W + tx] = 5g + 1   (plane p's runs store to the same W
 *                                 elements: its last run's values stay) ---- */
#define TILE_AT(space, base, idx, dst)                                                     \
    "    cvt.i64 %o, " idx "\n    mul.i64 %o, %o, %four\n"                                 \
    "    ptr.add.ptr." space " " dst ", " base ", %o\n"
static const char tiles_src[] =
    ".kernel tiles\n"
    ".param inp buffer u32 read\n.param out buffer u32 write\n.param rows buffer u32 write\n"
    ".param over buffer u32 write\n.param K scalar u32\n.shared 1024\n"
    ".reg u32 %tx, %ty, %W, %H, %c, %t, %g, %n, %k, %i, %v, %acc, %K, %pp\n"
    ".reg i64 %o, %four\n.reg ptr.global %pb, %p\n.reg ptr.shared %sb, %sp\n"
    "    sreg.u32 %tx, unit_pos.x\n    sreg.u32 %ty, unit_pos.y\n    sreg.u32 %W, cube_dim.x\n"
    "    sreg.u32 %H, cube_dim.y\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %pp, plane_pos\n"
    "    mul.u32 %t, %ty, %W\n    add.u32 %t, %t, %tx\n    mul.u32 %n, %W, %H\n"
    "    mul.u32 %g, %c, %n\n    add.u32 %g, %g, %t\n    const.i64 %four, 4\n"
    "    param.u32 %K, K, 0\n    param.ptr.global %pb, inp, 0\n"
    /* in[16c + ty K]: runs of one address */
    "    const.u32 %k, 16\n    mul.u32 %i, %c, %k\n    mul.u32 %v, %ty, %K\n    add.u32 %i, %i, %v\n"
    TILE_AT("global", "%pb", "%i", "%p") "    ld.u32 %acc, [%p]\n"
    /* in[100 + tx]: runs of W consecutive, the same in every run */
    "    const.u32 %k, 100\n    add.u32 %i, %tx, %k\n"
    TILE_AT("global", "%pb", "%i", "%p") "    ld.u32 %v, [%p]\n"
    "    const.u32 %k, 3\n    mul.u32 %v, %v, %k\n    xor.u32 %acc, %acc, %v\n"
    /* in[200 + c]: one address for the cube */
    "    const.u32 %k, 200\n    add.u32 %i, %c, %k\n"
    TILE_AT("global", "%pb", "%i", "%p") "    ld.u32 %v, [%p]\n"
    "    const.u32 %k, 7\n    mul.u32 %v, %v, %k\n    xor.u32 %acc, %acc, %v\n"
    /* sh[t] = 3t + c, then sh[ty W] (runs of one address) and sh[tx] */
    "    const.u32 %k, 3\n    mul.u32 %v, %t, %k\n    add.u32 %v, %v, %c\n"
    "    const.ptr.shared %sb, 0x0\n" TILE_AT("shared", "%sb", "%t", "%sp") "    st.u32 [%sp], %v\n"
    "    sync_cube\n"
    "    mul.u32 %i, %ty, %W\n" TILE_AT("shared", "%sb", "%i", "%sp") "    ld.u32 %v, [%sp]\n"
    "    const.u32 %k, 11\n    mul.u32 %v, %v, %k\n    xor.u32 %acc, %acc, %v\n"
    TILE_AT("shared", "%sb", "%tx", "%sp") "    ld.u32 %v, [%sp]\n"
    "    const.u32 %k, 13\n    mul.u32 %v, %v, %k\n    xor.u32 %acc, %acc, %v\n"
    /* sh[j + 5 (j / 24)], j = t mod 32: consecutive but for the last eight lanes */
    "    const.u32 %k, 32\n    rem.u32 %i, %t, %k\n    const.u32 %k, 24\n    div.u32 %v, %i, %k\n"
    "    const.u32 %k, 5\n    mul.u32 %v, %v, %k\n    add.u32 %i, %i, %v\n"
    TILE_AT("shared", "%sb", "%i", "%sp") "    ld.u32 %v, [%sp]\n"
    "    const.u32 %k, 17\n    mul.u32 %v, %v, %k\n    xor.u32 %acc, %acc, %v\n"
    "    param.ptr.global %pb, out, 0\n" TILE_AT("global", "%pb", "%g", "%p") "    st.u32 [%p], %acc\n"
    "    const.u32 %k, 5\n    mul.u32 %v, %g, %k\n    const.u32 %k, 1\n    add.u32 %v, %v, %k\n"
    "    mul.u32 %i, %c, %H\n    add.u32 %i, %i, %ty\n    param.ptr.global %pb, rows, 0\n"
    TILE_AT("global", "%pb", "%i", "%p") "    st.u32 [%p], %v\n"
    "    mul.u32 %i, %c, %n\n    mul.u32 %k, %pp, %W\n    add.u32 %i, %i, %k\n    add.u32 %i, %i, %tx\n"
    "    param.ptr.global %pb, over, 0\n" TILE_AT("global", "%pb", "%i", "%p") "    st.u32 [%p], %v\n"
    "    return\n.end\n";
#undef TILE_AT

enum { TILE_IN = 256, TILE_GRID = 2, TILE_UNITS = 256 };

static uint32_t tile_in(uint32_t i) { return i * 2654435761u ^ 0x9e3779b9u; }

static void test_tiles(uint32_t W, uint32_t H, uint32_t K)
{
    const uint32_t n = W * H, per = 32 / W; /* rows per plane */
    uint32_t in[TILE_IN], out[TILE_GRID * TILE_UNITS], rows[TILE_GRID * TILE_UNITS];
    uint32_t over[TILE_GRID * TILE_UNITS];
    for (uint32_t i = 0; i < TILE_IN; i++)
        in[i] = tile_in(i);
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", sizeof out, NULL);
    cvm_buffer *br = kern_buf("rows", sizeof rows, NULL), *bv = kern_buf("over", sizeof over, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo), kern_arg_buf(br), kern_arg_buf(bv),
                      kern_arg_u32(&K)};
    cvm_launch_config cfg = kern_cfg(TILE_GRID, W);
    cfg.block[1] = H;
    cvm_diag d;
    cvm_status st = kern_exec(tiles_src, "tiles", &cfg, args, 5, &d);
    /* 16c + ty K past the input: the lowest such unit of cube 0 faults */
    const uint32_t fault_ty = (TILE_IN + K - 1) / K;
    if (fault_ty < H) {
        ok(st == CVM_FAULT && d.has_fault, "tiles %ux%u, K %u: a run past the buffer faults (%s)", W,
           H, K, d.message);
        ok(d.has_fault && d.fault.cube[0] == 0 && d.fault.unit[0] == 0 && d.fault.unit[1] == fault_ty,
           "tiles %ux%u, K %u: the lowest unit out of bounds is reported (unit %u,%u)", W, H, K,
           d.fault.unit[0], d.fault.unit[1]);
        goto out;
    }
    ok(st == CVM_OK, "tiles %ux%u: runs (%s)", W, H, st ? d.message : "ok");
    kern_read(bo, out, sizeof out);
    kern_read(br, rows, sizeof rows);
    kern_read(bv, over, sizeof over);
    int bad = -1;
    for (uint32_t c = 0; c < TILE_GRID; c++)
        for (uint32_t t = 0; t < n; t++) {
            const uint32_t tx = t % W, ty = t / W, g = c * n + t;
            const uint32_t j = t % 32 + t % 32 / 24 * 5;
            const uint32_t want = in[16 * c + ty * K] ^ 3 * in[100 + tx] ^ 7 * in[200 + c] ^
                                  11 * (3 * (ty * W) + c) ^ 13 * (3 * tx + c) ^ 17 * (3 * j + c);
            if (out[g] != want && bad < 0)
                bad = (int)g;
        }
    ok(bad < 0, "tiles %ux%u: loads of one address or consecutive runs match C%s", W, H,
       bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("unit %d: got %#x", bad, out[bad]);
    bad = -1;
    for (uint32_t c = 0; c < TILE_GRID; c++)
        for (uint32_t ty = 0; ty < H; ty++)
            if (rows[c * H + ty] != 5 * (c * n + ty * W + W - 1) + 1 && bad < 0)
                bad = (int)(c * H + ty);
    ok(bad < 0, "tiles %ux%u: a run storing to one address leaves its last lane's value", W, H);
    bad = -1;
    for (uint32_t c = 0; c < TILE_GRID; c++)
        for (uint32_t p = 0; p < n / 32; p++)
            for (uint32_t tx = 0; tx < W; tx++) {
                const uint32_t ty = p * per + per - 1;
                if (over[c * n + p * W + tx] != 5 * (c * n + ty * W + tx) + 1 && bad < 0)
                    bad = (int)(c * n + p * W + tx);
            }
    ok(bad < 0, "tiles %ux%u: runs storing over each other leave the last run's values", W, H);
out:
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
    cvm_buffer_free(br);
    cvm_buffer_free(bv);
}

/* ---- tile-shaped shared stores and loads (interp_mem.c tile_access32,
 * the lockstep's lean path): unit (tx, ty) of cube c, t = ty W + tx,
 * v = 5t + c + 1, plane p of `per` rows:
 *   sh[ty] = v                 (runs storing to one address: the last lane's
 *                               value stays)
 *   sh[512 + p W + tx] = v     (a plane's runs store over the same W
 *                               elements: the last run's values stay)
 *   then u[t] = sh[(ty K) + off / 4] read as bytes ty K 4 + off: a run of
 *   one address each, past the shared memory for large K (a fault at the
 *   lowest such unit), misaligned for off = 2 (a fault in checked mode);
 *   rows[c H + t] = sh[t] for t < H, over[c n + t] = sh[512 + t] for
 *   t < n / per ---- */
static const char shtiles_src[] =
    ".kernel shtiles\n"
    ".param rows buffer u32 write\n.param over buffer u32 write\n.param u buffer u32 write\n"
    ".param K scalar u32\n.param off scalar u32\n.shared 4096\n"
    ".reg u32 %tx, %ty, %W, %H, %c, %t, %n, %k, %i, %v, %pp, %K, %off, %m\n"
    ".reg i64 %o\n.reg bool %b\n.reg ptr.global %pb, %p\n.reg ptr.shared %sb, %sp\n"
    "    sreg.u32 %tx, unit_pos.x\n    sreg.u32 %ty, unit_pos.y\n    sreg.u32 %W, cube_dim.x\n"
    "    sreg.u32 %H, cube_dim.y\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %pp, plane_pos\n"
    "    mul.u32 %t, %ty, %W\n    add.u32 %t, %t, %tx\n    mul.u32 %n, %W, %H\n"
    "    param.u32 %K, K, 0\n    param.u32 %off, off, 0\n    const.ptr.shared %sb, 0x0\n"
    "    const.u32 %k, 5\n    mul.u32 %v, %t, %k\n    add.u32 %v, %v, %c\n"
    "    const.u32 %k, 1\n    add.u32 %v, %v, %k\n    const.u32 %m, 4\n"
    "    mul.u32 %i, %ty, %m\n    cvt.i64 %o, %i\n    ptr.add.ptr.shared %sp, %sb, %o\n"
    "    st.u32 [%sp], %v\n"
    "    mul.u32 %i, %pp, %W\n    add.u32 %i, %i, %tx\n    const.u32 %k, 512\n"
    "    add.u32 %i, %i, %k\n    mul.u32 %i, %i, %m\n    cvt.i64 %o, %i\n"
    "    ptr.add.ptr.shared %sp, %sb, %o\n    st.u32 [%sp], %v\n"
    "    sync_cube\n"
    "    mul.u32 %i, %ty, %K\n    mul.u32 %i, %i, %m\n    add.u32 %i, %i, %off\n"
    "    cvt.i64 %o, %i\n    ptr.add.ptr.shared %sp, %sb, %o\n    ld.u32 %v, [%sp]\n"
    "    mul.u32 %i, %c, %n\n    add.u32 %i, %i, %t\n    mul.u32 %i, %i, %m\n    cvt.i64 %o, %i\n"
    "    param.ptr.global %pb, u, 0\n    ptr.add.ptr.global %p, %pb, %o\n    st.u32 [%p], %v\n"
    "    lt.u32 %b, %t, %H\n    if %b\n"
    "        mul.u32 %i, %t, %m\n        cvt.i64 %o, %i\n        ptr.add.ptr.shared %sp, %sb, %o\n"
    "        ld.u32 %v, [%sp]\n        mul.u32 %i, %c, %H\n        add.u32 %i, %i, %t\n"
    "        mul.u32 %i, %i, %m\n        cvt.i64 %o, %i\n        param.ptr.global %pb, rows, 0\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        st.u32 [%p], %v\n    end\n"
    "    const.u32 %k, 32\n    div.u32 %k, %n, %k\n    mul.u32 %k, %k, %W\n"
    "    lt.u32 %b, %t, %k\n    if %b\n"
    "        const.u32 %k, 512\n        add.u32 %i, %t, %k\n        mul.u32 %i, %i, %m\n"
    "        cvt.i64 %o, %i\n        ptr.add.ptr.shared %sp, %sb, %o\n        ld.u32 %v, [%sp]\n"
    "        mul.u32 %i, %c, %n\n        add.u32 %i, %i, %t\n        mul.u32 %i, %i, %m\n"
    "        cvt.i64 %o, %i\n        param.ptr.global %pb, over, 0\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        st.u32 [%p], %v\n    end\n"
    "    return\n.end\n";

static void test_shared_tiles(uint32_t W, uint32_t H, uint32_t K, uint32_t off)
{
    const uint32_t n = W * H, per = 32 / W;
    uint32_t rows[TILE_GRID * TILE_UNITS], over[TILE_GRID * TILE_UNITS], u[TILE_GRID * TILE_UNITS];
    cvm_buffer *br = kern_buf("rows", sizeof rows, NULL), *bv = kern_buf("over", sizeof over, NULL);
    cvm_buffer *bu = kern_buf("u", sizeof u, NULL);
    cvm_arg args[] = {kern_arg_buf(br), kern_arg_buf(bv), kern_arg_buf(bu), kern_arg_u32(&K),
                      kern_arg_u32(&off)};
    cvm_launch_config cfg = kern_cfg(TILE_GRID, W);
    cfg.block[1] = H;
    cvm_diag d;
    cvm_status st = kern_exec(shtiles_src, "shtiles", &cfg, args, 5, &d);
    /* the lowest row whose run reads at or past byte 4096 */
    const uint32_t fault_ty = (4096 - off + 4 * K - 1) / (4 * K);
    if (off % 4 || fault_ty < H) {
        const uint32_t ty = off % 4 ? 0 : fault_ty;
        ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == 0 && d.fault.unit[0] == 0 &&
               d.fault.unit[1] == ty,
           "shared tiles %ux%u, K %u, +%u: the lowest faulting unit is (0,%u) (%s)", W, H, K, off,
           ty, d.message);
        ok(strstr(d.message, off % 4 ? "misaligned" : "out-of-bounds") != NULL,
           "shared tiles %ux%u, K %u, +%u: the message says why", W, H, K, off);
        goto out;
    }
    ok(st == CVM_OK, "shared tiles %ux%u: runs (%s)", W, H, st ? d.message : "ok");
    kern_read(br, rows, sizeof rows);
    kern_read(bv, over, sizeof over);
    kern_read(bu, u, sizeof u);
    int bad = -1, bad2 = -1, bad3 = -1;
    for (uint32_t c = 0; c < TILE_GRID; c++) {
        for (uint32_t ty = 0; ty < H; ty++)
            if (rows[c * H + ty] != 5 * (ty * W + W - 1) + c + 1 && bad < 0)
                bad = (int)(c * H + ty);
        for (uint32_t p = 0; p < n / 32; p++)
            for (uint32_t tx = 0; tx < W; tx++)
                if (over[c * n + p * W + tx] != 5 * ((p * per + per - 1) * W + tx) + c + 1 &&
                    bad2 < 0)
                    bad2 = (int)(c * n + p * W + tx);
        for (uint32_t t = 0; t < n; t++) {
            const uint32_t e = t / W * K; /* the element unit t read */
            const uint32_t want = e < H   ? 5 * (e * W + W - 1) + c + 1
                                  : e >= 512 && e - 512 < n / 32 * W
                                      ? 5 * (((e - 512) / W * per + per - 1) * W + (e - 512) % W) + c + 1
                                      : 0;
            if (u[c * n + t] != want && bad3 < 0)
                bad3 = (int)(c * n + t);
        }
    }
    ok(bad < 0, "shared tiles %ux%u: a run storing to one address leaves its last lane's value", W, H);
    ok(bad2 < 0, "shared tiles %ux%u: runs storing over each other leave the last run's values", W, H);
    ok(bad3 < 0, "shared tiles %ux%u, K %u: runs of one address read what was stored%s", W, H, K,
       bad3 < 0 ? "" : " (first mismatch below)");
    if (bad3 >= 0)
        diag("unit %d: got %u", bad3, u[bad3]);
out:
    cvm_buffer_free(br);
    cvm_buffer_free(bv);
    cvm_buffer_free(bu);
}

/* ---- one element for the whole cube (interp_mem.c cube_one): cubes of
 * 256 units; units with t % 7 == skip and, when skip < 7, all of plane 2
 * are inactive in the `if`. Unit t of cube c:
 *   v = active ? in[idx + c] : 0xdead0000 + t     (a load of one address by
 *                                                  every active lane; the
 *                                                  inactive keep their value;
 *                                                  lane `odd` of each plane
 *                                                  reads in[idx + c + 1])
 *   active: w[c] = t + 1000, sh[3] = t + 2000     (stores to one address: the
 *                                                  last active lane stays)
 *   out[256 c + t] = v ^ 5 sh[3] (read by all after sync_cube) ---- */
static const char one_src[] =
    ".kernel one\n"
    ".param out buffer u32 write\n.param inp buffer u32 read\n.param w buffer u32 write\n"
    ".param idx scalar u32\n.param skip scalar u32\n.param odd scalar u32\n.shared 64\n"
    ".reg u32 %t, %c, %pp, %v, %k, %i, %sk, %s, %g\n.reg bool %b, %b2, %b3\n"
    ".reg i64 %o, %four\n.reg ptr.global %pb, %p\n.reg ptr.shared %sp\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %pp, plane_pos\n"
    "    param.u32 %sk, skip, 0\n    const.i64 %four, 4\n    const.ptr.shared %sp, 0xc\n"
    "    const.u32 %k, 0xdead0000\n    add.u32 %v, %t, %k\n"
    "    const.u32 %k, 7\n    rem.u32 %i, %t, %k\n    ne.u32 %b, %i, %sk\n"
    "    const.u32 %k, 2\n    ne.u32 %b2, %pp, %k\n    const.u32 %k, 7\n    lt.u32 %b3, %sk, %k\n"
    "    if %b3\n        and.bool %b, %b, %b2\n    end\n"
    "    if %b\n"
    "        param.u32 %i, idx, 0\n        add.u32 %i, %i, %c\n        const.u32 %k, 31\n"
    "        and.u32 %g, %t, %k\n        param.u32 %k, odd, 0\n        eq.u32 %b3, %g, %k\n"
    "        if %b3\n            const.u32 %k, 1\n            add.u32 %i, %i, %k\n        end\n"
    "        cvt.i64 %o, %i\n"
    "        mul.i64 %o, %o, %four\n        param.ptr.global %pb, inp, 0\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        ld.u32 %v, [%p]\n"
    "        cvt.i64 %o, %c\n        mul.i64 %o, %o, %four\n        param.ptr.global %pb, w, 0\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        const.u32 %k, 1000\n        add.u32 %s, %t, %k\n"
    "        st.u32 [%p], %s\n        const.u32 %k, 2000\n        add.u32 %s, %t, %k\n"
    "        st.u32 [%sp], %s\n"
    "    end\n"
    "    sync_cube\n"
    "    ld.u32 %s, [%sp]\n    const.u32 %k, 5\n    mul.u32 %s, %s, %k\n    xor.u32 %v, %v, %s\n"
    "    const.u32 %k, 256\n    mul.u32 %g, %c, %k\n    add.u32 %g, %g, %t\n    cvt.i64 %o, %g\n"
    "    mul.i64 %o, %o, %four\n    param.ptr.global %pb, out, 0\n    ptr.add.ptr.global %p, %pb, %o\n"
    "    st.u32 [%p], %v\n"
    "    return\n.end\n";

static void test_one(uint32_t idx, uint32_t skip, uint32_t odd)
{
    enum { G = 2, B = 256, IN = 64 };
    uint32_t in[IN], out[G * B], w[G];
    for (uint32_t i = 0; i < IN; i++)
        in[i] = tile_in(i + 11);
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", sizeof out, NULL);
    cvm_buffer *bw = kern_buf("w", sizeof w, NULL);
    cvm_arg args[] = {kern_arg_buf(bo), kern_arg_buf(bi), kern_arg_buf(bw), kern_arg_u32(&idx),
                      kern_arg_u32(&skip), kern_arg_u32(&odd)};
    cvm_launch_config cfg = kern_cfg(G, B);
    cvm_diag d;
    cvm_status st = kern_exec(one_src, "one", &cfg, args, 6, &d);
    uint32_t first = 0, lastt = 0; /* the lowest and highest active unit */
    for (uint32_t t = B; t-- > 0;)
        if (t % 7 != skip && (skip >= 7 || t / 32 != 2))
            first = t;
    for (uint32_t t = 0; t < B; t++)
        if (t % 7 != skip && (skip >= 7 || t / 32 != 2))
            lastt = t;
    if (idx + G > IN) { /* cube 1 reads past the input when idx + 1 == IN */
        const uint32_t cube = idx + 1 > IN ? 0 : 1;
        ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == cube && d.fault.unit[0] == first,
           "one element, in[%u + c], skip %u: the lowest active unit of cube %u faults (%s)", idx,
           skip, cube, d.message);
        goto out;
    }
    ok(st == CVM_OK, "one element, skip %u: runs (%s)", skip, st ? d.message : "ok");
    kern_read(bo, out, sizeof out);
    kern_read(bw, w, sizeof w);
    int bad = -1;
    for (uint32_t c = 0; c < G; c++)
        for (uint32_t t = 0; t < B; t++) {
            const int on = t % 7 != skip && (skip >= 7 || t / 32 != 2);
            const uint32_t e = idx + c + (t % 32 == odd);
            const uint32_t want = (on ? in[e] : 0xdead0000u + t) ^ 5 * (lastt + 2000);
            if (out[c * B + t] != want && bad < 0)
                bad = (int)(c * B + t);
        }
    ok(bad < 0, "one element, skip %u, lane %u: active lanes load it, inactive ones keep their value%s",
       skip, odd, bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("unit %d: got %#x", bad, out[bad]);
    ok(w[0] == lastt + 1000 && w[1] == lastt + 1000,
       "one element, skip %u: a store to it leaves the last active lane's value (%u %u, want %u)",
       skip, w[0], w[1], lastt + 1000);
out:
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
    cvm_buffer_free(bw);
}

/* ---- partial planes (interp_mem.c span): units lo <= t < hi other than
 * `hole` of cubes of 64 run
 *   out[64c + t] = in[t + sh] ^ 3 in[200 + c]   (a run of consecutive
 *                  elements, a run of one element)
 *   one[2c + plane] = 5t + 1                    (a run storing to one
 *                  address: its last lane's value stays)
 * and the others write nothing. ---- */
static const char edges_src[] =
    ".kernel edges\n"
    ".param inp buffer u32 read\n.param out buffer u32 write\n.param one buffer u32 write\n"
    ".param lo scalar u32\n.param hi scalar u32\n.param hole scalar u32\n.param sh scalar u32\n"
    ".reg u32 %t, %c, %pp, %lo, %hi, %hole, %sh, %i, %k, %v, %w\n.reg bool %b, %b2, %b3\n"
    ".reg i64 %o, %four\n.reg ptr.global %pb, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %pp, plane_pos\n"
    "    param.u32 %lo, lo, 0\n    param.u32 %hi, hi, 0\n    param.u32 %hole, hole, 0\n"
    "    param.u32 %sh, sh, 0\n    const.i64 %four, 4\n"
    "    ge.u32 %b, %t, %lo\n    lt.u32 %b2, %t, %hi\n    and.bool %b, %b, %b2\n"
    "    ne.u32 %b3, %t, %hole\n    and.bool %b, %b, %b3\n"
    "    if %b\n"
    "        param.ptr.global %pb, inp, 0\n    add.u32 %i, %t, %sh\n    cvt.i64 %o, %i\n"
    "        mul.i64 %o, %o, %four\n        ptr.add.ptr.global %p, %pb, %o\n        ld.u32 %v, [%p]\n"
    "        const.u32 %k, 200\n        add.u32 %i, %c, %k\n        cvt.i64 %o, %i\n"
    "        mul.i64 %o, %o, %four\n        ptr.add.ptr.global %p, %pb, %o\n        ld.u32 %w, [%p]\n"
    "        const.u32 %k, 3\n        mul.u32 %w, %w, %k\n        xor.u32 %v, %v, %w\n"
    "        const.u32 %k, 64\n        mul.u32 %i, %c, %k\n        add.u32 %i, %i, %t\n"
    "        param.ptr.global %pb, out, 0\n        cvt.i64 %o, %i\n        mul.i64 %o, %o, %four\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        st.u32 [%p], %v\n"
    "        const.u32 %k, 5\n        mul.u32 %v, %t, %k\n        const.u32 %k, 1\n"
    "        add.u32 %v, %v, %k\n        const.u32 %k, 2\n        mul.u32 %i, %c, %k\n"
    "        add.u32 %i, %i, %pp\n        param.ptr.global %pb, one, 0\n        cvt.i64 %o, %i\n"
    "        mul.i64 %o, %o, %four\n        ptr.add.ptr.global %p, %pb, %o\n        st.u32 [%p], %v\n"
    "    end\n"
    "    return\n.end\n";

static void test_edges(uint32_t lo, uint32_t hi, uint32_t hole, uint32_t sh, uint32_t fault_unit)
{
    enum { G = 2, B = 64, IN = 256 };
    uint32_t in[IN], out[G * B], one[2 * G];
    for (uint32_t i = 0; i < IN; i++)
        in[i] = tile_in(i + 7);
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", sizeof out, NULL);
    cvm_buffer *b1 = kern_buf("one", sizeof one, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo), kern_arg_buf(b1), kern_arg_u32(&lo),
                      kern_arg_u32(&hi), kern_arg_u32(&hole), kern_arg_u32(&sh)};
    cvm_launch_config cfg = kern_cfg(G, B);
    cvm_diag d;
    cvm_status st = kern_exec(edges_src, "edges", &cfg, args, 7, &d);
    if (fault_unit != UINT32_MAX) {
        ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == 0 && d.fault.unit[0] == fault_unit,
           "units %u..%u, in[t + %u]: the lowest unit past the input faults (unit %u: %s)", lo,
           hi - 1, sh, d.fault.unit[0], d.message);
        goto out;
    }
    ok(st == CVM_OK, "units %u..%u but %u: runs (%s)", lo, hi - 1, hole, st ? d.message : "ok");
    kern_read(bo, out, sizeof out);
    kern_read(b1, one, sizeof one);
    int bad = -1;
    for (uint32_t c = 0; c < G; c++)
        for (uint32_t t = 0; t < B; t++) {
            const int on = t >= lo && t < hi && t != hole;
            const uint32_t want = on ? in[t + sh] ^ 3 * in[200 + c] : 0;
            if (out[c * B + t] != want && bad < 0)
                bad = (int)(c * B + t);
        }
    ok(bad < 0, "units %u..%u but %u: partial planes load and store as each lane would%s", lo,
       hi - 1, hole, bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("element %d: got %#x", bad, out[bad]);
    bad = -1;
    for (uint32_t c = 0; c < G; c++)
        for (uint32_t p = 0; p < 2; p++) {
            uint32_t want = 0; /* the last active lane of the plane */
            for (uint32_t t = 32 * p; t < 32 * p + 32; t++)
                if (t >= lo && t < hi && t != hole)
                    want = 5 * t + 1;
            if (one[2 * c + p] != want && bad < 0)
                bad = (int)(2 * c + p);
        }
    ok(bad < 0, "units %u..%u but %u: a store of every active lane to one address keeps the last",
       lo, hi - 1, hole);
out:
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
    cvm_buffer_free(b1);
}

/* ---- whole lines at consecutive addresses (`float4 v = in[i]`) ---- */

/* out[g] = in[g + sh] as f32x4 lines for the units below n; units 0..n-1
 * of a cube of 64 are whole planes when n is 64, so the line path runs;
 * with n = 40 plane 1 is partial and takes the per-lane path. */
static const char lines_src[] =
    ".kernel lines\n.param inp buffer f32x4 read\n.param out buffer f32x4 write\n"
    ".param sh scalar u32\n.param n scalar u32\n.param swap scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %sh, %i, %n, %swap, %l, %k, %zero, %dl\n.reg bool %b, %b1\n"
    ".reg i64 %o, %sixteen\n"
    ".reg ptr.global %pb, %p\n.reg f32x4 %v\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    param.u32 %sh, sh, 0\n"
    "    param.u32 %n, n, 0\n    lt.u32 %b, %t, %n\n"
    "    if %b\n"
    "        add.u32 %i, %g, %sh\n"
    /* with swap, lanes 1 and 2 of each plane trade lines (the ends stay) */
    "        param.u32 %swap, swap, 0\n        const.u32 %zero, 0\n        const.u32 %k, 31\n"
    "        and.u32 %l, %t, %k\n        const.u32 %k, 1\n        eq.u32 %b1, %l, %k\n"
    "        select.u32 %dl, %swap, %zero, %b1\n        add.u32 %i, %i, %dl\n"
    "        const.u32 %k, 2\n        eq.u32 %b1, %l, %k\n"
    "        select.u32 %dl, %swap, %zero, %b1\n        sub.u32 %i, %i, %dl\n"
    "        param.ptr.global %pb, inp, 0\n        cvt.i64 %o, %i\n"
    "        const.i64 %sixteen, 16\n        mul.i64 %o, %o, %sixteen\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        ld.f32x4 %v, [%p]\n"
    "        param.ptr.global %pb, out, 0\n        cvt.i64 %o, %g\n        mul.i64 %o, %o, %sixteen\n"
    "        ptr.add.ptr.global %p, %pb, %o\n        st.f32x4 [%p], %v\n"
    "    end\n"
    "    return\n.end\n";

/* ty: "f32x4" or "u64x2" (the same 16 bytes a line, moved as 4- or 8-byte
 * elements); B: the cube size (40: a plane of 32 lanes and one of 8) */
static void test_lines(const char *ty, uint32_t B, uint32_t sh, uint32_t n, uint32_t swap,
                       uint32_t out_lines, uint32_t fault_unit)
{
    enum { G = 2, IN = 160 };
    char src[sizeof lines_src];
    memcpy(src, lines_src, sizeof src);
    for (char *at = src; (at = strstr(at, "f32x4")) != NULL; at += 5)
        memcpy(at, ty, 5);
    float in[IN * 4], out[G * 64 * 4];
    for (uint32_t i = 0; i < IN * 4; i++)
        in[i] = (float)tile_in(i + 3);
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", out_lines * 16, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo), kern_arg_u32(&sh), kern_arg_u32(&n),
                      kern_arg_u32(&swap)};
    cvm_launch_config cfg = kern_cfg(G, B);
    cvm_diag d;
    cvm_status st = kern_exec(src, "lines", &cfg, args, 5, &d);
    if (fault_unit != UINT32_MAX) {
        ok(st == CVM_FAULT && d.has_fault && d.fault.unit[0] == fault_unit,
           "%s lines, in[g + %u] into %u lines: unit %u faults first (unit %u: %s)", ty, sh,
           out_lines, fault_unit, d.fault.unit[0], d.message);
        goto out;
    }
    ok(st == CVM_OK, "%s lines, cubes of %u, in[g + %u], units below %u%s: runs (%s)", ty, B, sh, n,
       swap ? ", lanes 1 and 2 swapped" : "", st ? d.message : "ok");
    memset(out, 0, sizeof out);
    kern_read(bo, out, sizeof out);
    int bad = -1;
    for (uint32_t g = 0; g < G * B && bad < 0; g++)
        for (uint32_t e = 0; e < 4; e++) {
            const uint32_t l = g % B % 32, from = g + sh + (swap && l == 1) - (swap && l == 2);
            const float want = g % B < n ? in[from * 4 + e] : 0.0f;
            if (out[g * 4 + e] != want && bad < 0)
                bad = (int)(g * 4 + e);
        }
    ok(bad < 0, "%s lines, cubes of %u, in[g + %u], units below %u%s: every element in its place", ty,
       B, sh, n, swap ? ", lanes 1 and 2 swapped" : "");
    if (bad >= 0)
        diag("element %d: got %g", bad, out[bad]);
out:
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
}

/* ---- f32x4 lines through shared memory: unit t stores in[g] at line t,
 * then (after sync_cube) reads line t + sh back into out[g] ---- */
static const char shlines_src[] =
    ".kernel shlines\n.param inp buffer f32x4 read\n.param out buffer f32x4 write\n"
    ".param sh scalar u32\n.shared 1024\n"
    ".reg u32 %t, %c, %cd, %g, %sh, %i\n.reg i64 %o, %sixteen\n"
    ".reg ptr.global %pb, %p\n.reg ptr.shared %sb, %sp\n.reg f32x4 %v\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    param.u32 %sh, sh, 0\n"
    "    const.i64 %sixteen, 16\n    param.ptr.global %pb, inp, 0\n    cvt.i64 %o, %g\n"
    "    mul.i64 %o, %o, %sixteen\n    ptr.add.ptr.global %p, %pb, %o\n    ld.f32x4 %v, [%p]\n"
    "    const.ptr.shared %sb, 0\n    cvt.i64 %o, %t\n    mul.i64 %o, %o, %sixteen\n"
    "    ptr.add.ptr.shared %sp, %sb, %o\n    st.f32x4 [%sp], %v\n    sync_cube\n"
    "    add.u32 %i, %t, %sh\n    cvt.i64 %o, %i\n    mul.i64 %o, %o, %sixteen\n"
    "    ptr.add.ptr.shared %sp, %sb, %o\n    ld.f32x4 %v, [%sp]\n"
    "    param.ptr.global %pb, out, 0\n    cvt.i64 %o, %g\n    mul.i64 %o, %o, %sixteen\n"
    "    ptr.add.ptr.global %p, %pb, %o\n    st.f32x4 [%p], %v\n"
    "    return\n.end\n";

/* sh = 0: every line comes back; sh = 1: the cube's last unit reads line
 * 64, past the 1024 bytes of shared memory, and faults */
static void test_shared_lines(uint32_t sh)
{
    enum { G = 2, B = 64 };
    float in[G * B * 4], out[G * B * 4];
    for (uint32_t i = 0; i < G * B * 4; i++)
        in[i] = (float)tile_in(i + 11);
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", sizeof out, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo), kern_arg_u32(&sh)};
    cvm_launch_config cfg = kern_cfg(G, B);
    cvm_diag d;
    cvm_status st = kern_exec(shlines_src, "shlines", &cfg, args, 3, &d);
    if (sh) {
        ok(st == CVM_FAULT && d.has_fault && d.fault.unit[0] == 63 && strstr(d.message, "shared"),
           "f32x4 lines in shared memory: the line past its end faults (unit %u: %s)",
           d.fault.unit[0], d.message);
    } else {
        ok(st == CVM_OK, "f32x4 lines in shared memory: runs (%s)", st ? d.message : "ok");
        kern_read(bo, out, sizeof out);
        ok(memcmp(in, out, sizeof in) == 0, "f32x4 lines in shared memory: every line back in place");
    }
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
}

/*
 * ---- local memory lane by lane: 64 bytes per unit ----
 * 1. word (t + k) & 15 = g * 100 + k for k = 0..15 (every lane a different
 *    offset; full planes)
 * 2. units with t % 3 != 0 (partial planes): the u16 at (t * 6) & 62 =
 *    g ^ 0x5a5a
 * 3. the u32 at 60 = g; unit `bad` stores at 64 (past the end) and unit
 *    `mis` at 58 (misaligned)
 * 4. out[3g] = sum over k of (k + 1) * word (t * 7 + k) & 15, out[3g + 1]
 *    = the u16 at (t * 6) & 62, out[3g + 2] = the sum of the u32x4 line
 *    t & 3
 * Units in cubes of 64 (lockstep) or 40 (planes of 32 and 8).
 */
static char *local_src(void)
{
    static char src[16384];
    size_t n = 0;
#define APP(...) (n += (size_t)snprintf(src + n, sizeof src - n, __VA_ARGS__))
    APP(".kernel locl\n.param out buffer u32 write\n.param bad scalar u32\n.param mis scalar u32\n"
        ".local 64\n"
        ".reg u32 %%t, %%c, %%cd, %%g, %%k, %%j, %%w, %%acc, %%m, %%bad, %%mis, %%x\n"
        ".reg u16 %%h\n.reg i64 %%off\n.reg bool %%p\n.reg ptr.local %%lb, %%lp\n"
        ".reg ptr.global %%po\n.reg u32x4 %%v\n.reg u32 %%e0, %%e1, %%e2, %%e3\n"
        "    sreg.u32 %%t, unit_pos.x\n    sreg.u32 %%c, cube_pos.x\n    sreg.u32 %%cd, cube_dim.x\n"
        "    mul.u32 %%g, %%c, %%cd\n    add.u32 %%g, %%g, %%t\n    const.ptr.local %%lb, 0\n"
        "    param.u32 %%bad, bad, 0\n    param.u32 %%mis, mis, 0\n");
    for (int k = 0; k < 16; k++)
        APP("    const.u32 %%k, %d\n    add.u32 %%j, %%t, %%k\n    const.u32 %%m, 15\n"
            "    and.u32 %%j, %%j, %%m\n    const.u32 %%m, 4\n    mul.u32 %%j, %%j, %%m\n"
            "    cvt.i64 %%off, %%j\n    ptr.add.ptr.local %%lp, %%lb, %%off\n"
            "    const.u32 %%m, 100\n    mul.u32 %%w, %%g, %%m\n    add.u32 %%w, %%w, %%k\n"
            "    st.u32 [%%lp], %%w\n",
            k);
    APP("    const.u32 %%m, 3\n    rem.u32 %%x, %%t, %%m\n    const.u32 %%m, 0\n"
        "    ne.u32 %%p, %%x, %%m\n    const.u32 %%m, 6\n    mul.u32 %%j, %%t, %%m\n"
        "    const.u32 %%m, 62\n    and.u32 %%j, %%j, %%m\n    cvt.i64 %%off, %%j\n"
        "    ptr.add.ptr.local %%lp, %%lb, %%off\n"
        "    if %%p\n        const.u32 %%m, 0x5a5a\n        xor.u32 %%w, %%g, %%m\n"
        "        cvt.u16 %%h, %%w\n        st.u16 [%%lp], %%h\n    end\n"
        "    const.u32 %%j, 60\n    eq.u32 %%p, %%t, %%bad\n    const.u32 %%m, 64\n"
        "    select.u32 %%j, %%m, %%j, %%p\n    eq.u32 %%p, %%t, %%mis\n    const.u32 %%m, 58\n"
        "    select.u32 %%j, %%m, %%j, %%p\n    cvt.i64 %%off, %%j\n"
        "    ptr.add.ptr.local %%lp, %%lb, %%off\n    st.u32 [%%lp], %%g\n"
        "    const.u32 %%acc, 0\n");
    for (int k = 0; k < 16; k++)
        APP("    const.u32 %%m, 7\n    mul.u32 %%j, %%t, %%m\n    const.u32 %%k, %d\n"
            "    add.u32 %%j, %%j, %%k\n    const.u32 %%m, 15\n    and.u32 %%j, %%j, %%m\n"
            "    const.u32 %%m, 4\n    mul.u32 %%j, %%j, %%m\n    cvt.i64 %%off, %%j\n"
            "    ptr.add.ptr.local %%lp, %%lb, %%off\n    ld.u32 %%w, [%%lp]\n"
            "    const.u32 %%m, %d\n    mul.u32 %%w, %%w, %%m\n    add.u32 %%acc, %%acc, %%w\n",
            k, k + 1);
    APP("    param.ptr.global %%po, out, 0\n    const.u32 %%m, 12\n    mul.u32 %%j, %%g, %%m\n"
        "    cvt.i64 %%off, %%j\n    ptr.add.ptr.global %%po, %%po, %%off\n    st.u32 [%%po], %%acc\n"
        "    const.u32 %%m, 6\n    mul.u32 %%j, %%t, %%m\n    const.u32 %%m, 62\n"
        "    and.u32 %%j, %%j, %%m\n    cvt.i64 %%off, %%j\n    ptr.add.ptr.local %%lp, %%lb, %%off\n"
        "    ld.u16 %%h, [%%lp]\n    cvt.u32 %%w, %%h\n    const.i64 %%off, 4\n"
        "    ptr.add.ptr.global %%po, %%po, %%off\n    st.u32 [%%po], %%w\n"
        "    const.u32 %%m, 3\n    and.u32 %%j, %%t, %%m\n    const.u32 %%m, 16\n"
        "    mul.u32 %%j, %%j, %%m\n    cvt.i64 %%off, %%j\n    ptr.add.ptr.local %%lp, %%lb, %%off\n"
        "    ld.u32x4 %%v, [%%lp]\n    extract.u32 %%e0, %%v, 0\n    extract.u32 %%e1, %%v, 1\n"
        "    extract.u32 %%e2, %%v, 2\n    extract.u32 %%e3, %%v, 3\n    add.u32 %%w, %%e0, %%e1\n"
        "    add.u32 %%w, %%w, %%e2\n    add.u32 %%w, %%w, %%e3\n    const.i64 %%off, 4\n"
        "    ptr.add.ptr.global %%po, %%po, %%off\n    st.u32 [%%po], %%w\n    return\n.end\n");
#undef APP
    return n < sizeof src ? src : NULL;
}

/* The C model of one unit's 64 bytes (little-endian) and its three outputs. */
static void local_model(uint32_t t, uint32_t g, uint32_t o[3])
{
    uint8_t m[64];
    uint32_t w, acc = 0, line = 0;
    uint16_t h;
    memset(m, 0, sizeof m);
    for (uint32_t k = 0; k < 16; k++) {
        w = g * 100 + k;
        memcpy(m + ((t + k) & 15) * 4, &w, 4);
    }
    if (t % 3 != 0) {
        h = (uint16_t)(g ^ 0x5a5a);
        memcpy(m + ((t * 6) & 62), &h, 2);
    }
    memcpy(m + 60, &g, 4);
    for (uint32_t k = 0; k < 16; k++) {
        memcpy(&w, m + ((t * 7 + k) & 15) * 4, 4);
        acc += w * (k + 1);
    }
    memcpy(&h, m + ((t * 6) & 62), 2);
    for (uint32_t e = 0; e < 4; e++) {
        memcpy(&w, m + (t & 3) * 16 + e * 4, 4);
        line += w;
    }
    o[0] = acc, o[1] = h, o[2] = line;
}

static void test_local_lanes(uint32_t B, uint32_t bad, uint32_t mis)
{
    enum { G = 3 };
    uint32_t got[G * 64 * 3], want[3];
    const char *src = local_src();
    cvm_buffer *bo = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(bo), kern_arg_u32(&bad), kern_arg_u32(&mis)};
    cvm_launch_config cfg = kern_cfg(G, B);
    cvm_diag d;
    cvm_status st = src ? kern_exec(src, "locl", &cfg, args, 3, &d) : CVM_OUT_OF_MEMORY;
    if (bad != UINT32_MAX || mis != UINT32_MAX) {
        const uint32_t unit = bad < mis ? bad : mis;
        ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == 0 && d.fault.unit[0] == unit &&
               strstr(d.message, bad < mis ? "out-of-bounds local store" : "misaligned store") &&
               strstr(d.message, bad < mis ? "offset 64" : "offset 0x3a"),
           "local memory, cubes of %u: unit %u's %s store faults (cube %u unit %u: %s)", B, unit,
           bad < mis ? "out-of-bounds" : "misaligned", d.fault.cube[0], d.fault.unit[0], d.message);
    } else if (ok(st == CVM_OK, "local memory, cubes of %u: runs (%s)", B, st ? d.message : "ok") &&
               kern_read(bo, got, (size_t)G * B * 3 * 4)) {
        uint32_t first = UINT32_MAX;
        for (uint32_t g = 0; g < G * B && first == UINT32_MAX; g++) {
            local_model(g % B, g, want);
            if (memcmp(&got[3 * g], want, sizeof want))
                first = g;
        }
        if (!ok(first == UINT32_MAX, "local memory, cubes of %u: every unit's words, halves and lines",
                B))
            diag("  unit %u: got %u %u %u", first, got[3 * first], got[3 * first + 1],
                 got[3 * first + 2]);
    }
    cvm_buffer_free(bo);
}

/* ---- one plane's atomics into two buffers (the plane-wide range check
 * sees two tags and leaves it to each lane) ---- */
static const char atom_two_src[] =
    ".kernel two\n.param a buffer u32 readwrite\n.param b buffer u32 readwrite\n"
    ".reg u32 %t, %k, %one, %old\n.reg bool %p\n.reg ptr.global %pa, %pb, %pp\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %k, 20\n    lt.u32 %p, %t, %k\n"
    "    param.ptr.global %pa, a, 0\n    param.ptr.global %pb, b, 0\n"
    "    select.ptr.global %pp, %pa, %pb, %p\n    const.u32 %one, 1\n"
    "    atom.add.relaxed.device.u32 %old, [%pp], %one\n"
    "    return\n.end\n";

static void test_atom_two_buffers(void)
{
    uint32_t a[4] = {0}, b[4] = {0};
    cvm_buffer *ba = kern_buf("a", sizeof a, NULL), *bb = kern_buf("b", sizeof b, NULL);
    cvm_arg args[] = {kern_arg_buf(ba), kern_arg_buf(bb)};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    cvm_status st = kern_exec(atom_two_src, "two", &cfg, args, 2, &d);
    ok(st == CVM_OK, "atomics of one plane into two buffers: runs (%s)", st ? d.message : "ok");
    kern_read(ba, a, sizeof a);
    kern_read(bb, b, sizeof b);
    ok(a[0] == 20 && b[0] == 44, "atomics of one plane into two buffers: a 20, b 44 (got %u, %u)",
       a[0], b[0]);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
}

/* ---- f32 atomic adds whose sum is a NaN give the canonical NaN ----
 * Word 0 holds a negative NaN with a payload and 8 units add 1.0; into word
 * 1 (0.0), units 0 and 1 add NaNs of other payloads and the rest 1.0:
 * whatever the order, every sum after a NaN is the canonical NaN. */
static const char atom_nan_src[] =
    ".kernel nan\n.param m buffer f32 readwrite\n.param v buffer u32 read\n"
    ".reg u32 %t\n.reg f32 %one, %x, %old\n.reg i64 %off, %four\n.reg ptr.global %p, %q\n"
    "    sreg.u32 %t, unit_pos.x\n    param.ptr.global %p, m, 0\n    const.f32 %one, 1.0\n"
    "    atom.add.relaxed.device.f32 %old, [%p], %one\n"
    "    param.ptr.global %q, v, 0\n    cvt.i64 %off, %t\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    ptr.add.ptr.global %q, %q, %off\n    ld.f32 %x, [%q]\n"
    "    ptr.add.ptr.global %p, %p, %four\n    atom.add.relaxed.device.f32 %old, [%p], %x\n"
    "    return\n.end\n";

static void test_atom_nan(void)
{
    uint32_t m[2] = {0xffc01234u, 0}, v[8];
    for (unsigned i = 0; i < 8; i++)
        v[i] = i == 0 ? 0xff812345u : i == 1 ? 0x7fd00001u : 0x3f800000u;
    cvm_buffer *bm = kern_buf("m", sizeof m, m), *bv = kern_buf("v", sizeof v, v);
    cvm_arg args[] = {kern_arg_buf(bm), kern_arg_buf(bv)};
    cvm_launch_config cfg = kern_cfg(1, 8);
    cvm_diag d;
    cvm_status st = kern_exec(atom_nan_src, "nan", &cfg, args, 2, &d);
    ok(st == CVM_OK, "f32 atomic adds of NaNs: runs (%s)", st ? d.message : "ok");
    kern_read(bm, m, sizeof m);
    ok(m[0] == 0x7fc00000u && m[1] == 0x7fc00000u,
       "f32 atomic adds of NaNs: the canonical NaN (got %08x %08x)", m[0], m[1]);
    cvm_buffer_free(bm);
    cvm_buffer_free(bv);
}

/* ---- buffer views: the kernel sees buffer + offset as its element 0 ---- */
static const char view_src[] =
    ".kernel view\n.param src buffer u32 read\n.param dst buffer u32 write\n"
    ".reg u32 %t, %v\n.reg i64 %off, %sz\n.reg ptr.global %p, %q\n"
    "    sreg.u32 %t, unit_pos.x\n" AT("%p", "src", 4) AT("%q", "dst", 4)
    "    ld.u32 %v, [%p]\n    st.u32 [%q], %v\n    return\n.end\n";

static void test_view(void)
{
    uint32_t src[16], dst[16] = {0};
    for (uint32_t i = 0; i < 16; i++)
        src[i] = 50 + i;
    cvm_buffer *bs = kern_buf("src", sizeof src, src), *bd = kern_buf("dst", sizeof dst, NULL);
    cvm_arg args[] = {kern_arg_view(bs, 8), kern_arg_view(bd, 16)};
    cvm_launch_config cfg = kern_cfg(1, 8);
    cvm_diag d;
    cvm_status st = kern_exec(view_src, "view", &cfg, args, 2, &d);
    if (ok(st == CVM_OK, "view: runs (%s)", d.message) && kern_read(bd, dst, sizeof dst)) {
        int good = 1;
        for (uint32_t i = 0; i < 16; i++)
            good &= dst[i] == (i >= 4 && i < 12 ? src[i - 4 + 2] : 0);
        ok(good, "buffer views offset both the read and the written buffer");
    }
    /* a view whose kernel reads past the end of the underlying buffer faults */
    cfg = kern_cfg(1, 16);
    st = kern_exec(view_src, "view", &cfg, args, 2, &d);
    ok(st == CVM_FAULT, "view: reading past the buffer through a view faults (%s)",
       cvm_status_str(st));
    cvm_buffer_free(bs);
    cvm_buffer_free(bd);
}

/*
 * An overflow that runs from one buffer into the next must fault against the
 * first buffer and leave the neighbour untouched: every unit stores
 * a[i] = 7 into a 16-element `a` (256 units); `b`, as small and allocated
 * right after, so likely in the path, must stay zero. Checked mode attributes each access to the
 * buffer its pointer came from (vm/exec.h, pointer tags).
 */
static const char overflow_src[] =
    ".kernel overflow\n.param a buffer u32 write\n"
    ".reg u32 %i, %seven\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n    cvt.i64 %off, %i\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    param.ptr.global %p, a, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n    const.u32 %seven, 7\n    st.u32 [%p], %seven\n"
    "    return\n.end\n";

static void test_overflow_into_neighbour(void)
{
    enum { NB = 16 };
    uint32_t got[NB];
    cvm_buffer *a = kern_buf("a", 64, NULL), *b = kern_buf("b", 4 * NB, NULL);
    cvm_arg args[] = {kern_arg_buf(a)};
    cvm_launch_config cfg = kern_cfg(4, 64);
    cvm_diag d;
    cvm_status st = kern_exec(overflow_src, "overflow", &cfg, args, 1, &d);
    ok(st == CVM_FAULT && strstr(d.message, "buffer 'a'"),
       "an overflow past 'a' faults against 'a' (%s)", d.message);
    int untouched = kern_read(b, got, sizeof got);
    for (uint32_t i = 0; untouched && i < NB; i++)
        untouched = got[i] == 0;
    ok(untouched, "the neighbouring buffer 'b' is not written by the overflow");
    cvm_buffer_free(a);
    cvm_buffer_free(b);
}

int main(void)
{
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    test_spaces();
    test_misc();
    test_atomics();
    test_fault(ld_fault_src, "out-of-bounds load", 32, "small");
    test_fault(st_fault_src, "out-of-bounds store", 64, "small");
    test_fault(ld_fault_src, "misaligned load", 2, NULL);
    test_fault(st_fault_src, "negative-offset store", -8, NULL);
    test_fault(atom_fault_src, "out-of-bounds atomic", 16, "small");
    test_fault(atom_fault_src, "misaligned atomic", 2, NULL);
    test_fault(atom_fault_src, "negative-offset atomic", -4, NULL);
    test_atom_two_buffers();
    test_atom_nan();
    test_local_lanes(64, UINT32_MAX, UINT32_MAX);
    test_local_lanes(40, UINT32_MAX, UINT32_MAX);
    test_local_lanes(64, 37, UINT32_MAX); /* plane 1, lane 5 */
    test_local_lanes(40, 35, UINT32_MAX); /* the plane of 8 */
    test_local_lanes(64, UINT32_MAX, 6);
    test_shared_lines(0);
    test_shared_lines(1);
    test_shared_wrap();
    test_tiles(16, 16, 1);
    test_tiles(8, 32, 1);
    test_tiles(32, 8, 1);
    test_tiles(16, 16, 20); /* rows 13.. read past the input */
    test_one(5, 7, 32); /* every unit */
    test_one(9, 3, 32); /* partial planes, plane 2 without lanes */
    test_one(9, 0, 32);
    test_one(9, 7, 13); /* lane 13 of each plane reads the next element */
    test_one(9, 3, 13);
    test_one(63, 0, 32); /* cube 1 reads past the input */
    test_one(64, 5, 32); /* so does cube 0 */
    test_shared_tiles(16, 16, 1, 0);
    test_shared_tiles(8, 32, 1, 0);
    test_shared_tiles(32, 8, 1, 0);
    test_shared_tiles(16, 16, 33, 0); /* ty K 4 + 0 ... 4092: in bounds */
    test_shared_tiles(16, 16, 128, 0); /* rows 8.. read past the shared memory */
    test_shared_tiles(32, 8, 200, 0);  /* rows 6.. */
    test_shared_tiles(32, 8, 256, 0);  /* row 4 reads exactly at the end: rows 4.. */
    test_shared_tiles(16, 16, 1, 2);   /* misaligned from row 0 */
    test_edges(1, 64, 99, 0, UINT32_MAX);  /* lane 0 of plane 0 off: a run of 31 */
    test_edges(0, 31, 99, 5, UINT32_MAX);  /* lane 31 off, plane 1 empty */
    test_edges(5, 40, 20, 3, UINT32_MAX);  /* a hole at 20: not one run */
    test_edges(33, 34, 99, 1, UINT32_MAX); /* one lane */
    test_edges(2, 30, 99, 240, 16);        /* units 16..29 read past the input */
    test_lines("f32x4", 64, 3, 64, 0, 128, UINT32_MAX);
    test_lines("f32x4", 64, 3, 64, 1, 128, UINT32_MAX); /* not consecutive: lane by lane */
    test_lines("f32x4", 64, 3, 40, 0, 128, UINT32_MAX); /* some lanes inactive: lane by lane */
    test_lines("f32x4", 40, 5, 40, 0, 128, UINT32_MAX); /* planes of 32 and 8 lanes */
    test_lines("u64x2", 64, 3, 64, 0, 128, UINT32_MAX); /* 8-byte elements */
    test_lines("u64x2", 40, 3, 40, 1, 128, UINT32_MAX);
    test_lines("f32x4", 64, 40, 64, 0, 128, 56);        /* cube 1 reads past the input from unit 56 */
    test_lines("f32x4", 64, 0, 64, 0, 127, 63);         /* cube 1 stores past the output at unit 63 */
    test_lines("u64x2", 64, 0, 64, 0, 100, 36);         /* from unit 36 */
    test_lines("f32x4", 40, 0, 40, 0, 79, 39);          /* cube 1's plane of 8 lanes, at its last */
    test_view();
    test_overflow_into_neighbour();
    kern_close();
    return done_testing();
}
