/*
 * test_interp.c - unit tests of the CPU plane interpreter (vm/interp*.c)
 * through cvm_vm_program_build / cvm_vm_execute: small .cbs kernels,
 * assembled and verified, run on host buffers; expected values are
 * computed here in plain C.
 */
#include "../vm/exec.h"
#include "../vm/interp.h" /* decoded instructions: uniform flags */

#include <stdlib.h>
#include <string.h>

#include "tap.h"

typedef struct buf {
    const char *name;
    void *data;
    size_t size;
    bool writable;
} buf;

typedef struct opts {
    uint32_t grid, block, width;
    bool unchecked;
    uint64_t budget;
    double timeout;
    cvm_vm_text *print;
} opts;

static int cmp_region(const void *a, const void *b)
{
    const cvm_vm_region *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* A module, its verifier facts and its decoded program (decoded_free). */
typedef struct decoded {
    cvm_bc_module *mod;
    cvm_bc_verified *ver;
    cvm_vm_program *prog;
} decoded;

/* Assembles, verifies and builds src into dc (a diag line names the stage
 * that failed); dc is to be freed whatever the status. */
static cvm_status decode_src(const char *src, decoded *dc, cvm_diag *dg)
{
    cvm_status st;
    memset(dc, 0, sizeof *dc);
    memset(dg, 0, sizeof *dg);
    if ((st = cvm_bc_assemble(src, strlen(src), "test.cbs", NULL, NULL, &dc->mod, dg)))
        diag("assemble: %s (line %u)", dg->message, dg->line);
    else if ((st = cvm_bc_verify(dc->mod, &dc->ver, dg)))
        diag("verify: %s", dg->message);
    else if ((st = cvm_vm_program_build(dc->mod, dc->ver, NULL, NULL, &dc->prog, dg)))
        diag("build: %s", dg->message);
    return st;
}

static void decoded_free(decoded *dc)
{
    cvm_vm_program_free(dc->prog);
    if (dc->ver)
        cvm_bc_verified_free(dc->mod, dc->ver);
    cvm_bc_module_free(dc->mod);
}

/*
 * Assembles, verifies, builds and runs kernel 0 of src. params[i] is the
 * 8-byte value of parameter i: a buffer's address or a scalar.
 */
static cvm_status run(const char *src, const opts *o, const uint64_t *params, uint32_t nparams,
                      const buf *bufs, uint32_t nbufs, cvm_diag *dg)
{
    decoded dc;
    cvm_vm_region regions[8];
    uint32_t offsets[16];
    cvm_status st = decode_src(src, &dc, dg);
    if (st)
        goto done;
    const cvm_bc_module *mod = dc.mod;
    for (uint32_t i = 0; i < nbufs; i++)
        regions[i] = (cvm_vm_region){(uintptr_t)bufs[i].data, bufs[i].size, bufs[i].name,
                                     bufs[i].writable, 0 /* untagged: checked by address */};
    qsort(regions, nbufs, sizeof regions[0], cmp_region);
    for (uint32_t i = 0; i < nparams; i++)
        offsets[i] = i * 8;
    uint64_t syms[8] = {0};
    for (uint32_t i = 0; i < mod->nsymbols && i < 8; i++)
        syms[i] = mod->symbols[i].init_off; /* constant symbols only in these tests */
    cvm_vm_launch L = {
        .kernel = 0,
        .grid = {o->grid ? o->grid : 1, 1, 1},
        .block = {o->block ? o->block : 1, 1, 1},
        .plane_width = o->width ? o->width : 32,
        .params = (const uint8_t *)params,
        .param_offset = offsets,
        .regions = regions,
        .nregions = nbufs,
        .const_data = mod->data,
        .const_size = mod->const_size,
        .sym_value = syms,
        .step_budget = o->budget,
        .timeout_s = o->timeout,
        .checked = !o->unchecked,
        .print_out = o->print,
    };
    st = cvm_vm_execute(dc.prog, &L, dg);
done:
    decoded_free(&dc);
    return st;
}

#define ADDR(p) ((uint64_t)(uintptr_t)(p))

/* Common tail: %po = &out[abs_pos.x] (i32 elements). */
#define OUT_PTR                                                                            \
    "    sreg.u32 %i, abs_pos.x\n"                                                         \
    "    const.i64 %four, 4\n"                                                             \
    "    cvt.i64 %off, %i\n"                                                               \
    "    mul.i64 %off, %off, %four\n"                                                      \
    "    param.ptr.global %po, out, 0\n"                                                   \
    "    ptr.add.ptr.global %po, %po, %off\n"
#define OUT_REGS ".reg u32 %i\n.reg i64 %off, %four\n.reg ptr.global %po\n"

static const char vadd_src[] =
    ".kernel vadd\n.param a buffer f32 read\n.param b buffer f32 read\n"
    ".param c buffer f32 write\n.param n scalar u32\n"
    ".reg u32 %i, %n\n.reg bool %inside\n.reg i64 %off, %four\n"
    ".reg ptr.global %pa, %pb, %pc\n.reg f32 %x, %y, %sum\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %n, n, 0\n    lt.u32 %inside, %i, %n\n"
    "    if %inside\n        cvt.i64 %off, %i\n        const.i64 %four, 4\n"
    "        mul.i64 %off, %off, %four\n        param.ptr.global %pa, a, 0\n"
    "        param.ptr.global %pb, b, 0\n        param.ptr.global %pc, c, 0\n"
    "        ptr.add.ptr.global %pa, %pa, %off\n        ptr.add.ptr.global %pb, %pb, %off\n"
    "        ptr.add.ptr.global %pc, %pc, %off\n        ld.f32 %x, [%pa]\n"
    "        ld.f32 %y, [%pb]\n        add.f32 %sum, %x, %y\n        st.f32 [%pc], %sum\n"
    "    end\n    return\n.end\n";

static void test_vadd(void)
{
    float a[100], b[100], c[100];
    for (int i = 0; i < 100; i++)
        a[i] = (float)i * 0.5f, b[i] = 1000.0f - (float)i, c[i] = -1.0f;
    buf bufs[] = {{"a", a, sizeof a, false}, {"b", b, sizeof b, false}, {"c", c, sizeof c, true}};
    uint64_t params[] = {ADDR(a), ADDR(b), ADDR(c), 100};
    cvm_diag d;
    for (int width = 1; width <= 64; width *= 4) {
        memset(c, 0, sizeof c);
        opts o = {.grid = 4, .block = 32, .width = (uint32_t)width};
        cvm_status st = run(vadd_src, &o, params, 4, bufs, 3, &d);
        int good = st == CVM_OK;
        for (int i = 0; i < 100 && good; i++)
            good = c[i] == a[i] + b[i];
        ok(good, "vadd at plane width %d (status %d %s)", width, st, d.message);
    }
}

static void test_if_else_partial(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %r, %three, %zero, %two, %hund\n.reg bool %c\n.reg i32 %v\n" OUT_PTR
        "    const.u32 %three, 3\n    const.u32 %zero, 0\n    const.u32 %two, 2\n"
        "    const.u32 %hund, 100\n    rem.u32 %r, %i, %three\n    eq.u32 %c, %r, %zero\n"
        "    if %c\n        mul.u32 %r, %i, %two\n    else\n        add.u32 %r, %i, %hund\n"
        "    end\n    cvt.i32 %v, %r\n    st.i32 [%po], %v\n.end\n";
    int32_t out[20];
    memset(out, 0x55, sizeof out);
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 20, .width = 8};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 20 && good; i++)
        good = out[i] == (i % 3 == 0 ? i * 2 : i + 100);
    ok(good, "divergent if/else with a partial plane (%s)", d.message);
}

static void test_loop_continue_break(void)
{
    /* sum of even j < i + 3, with j == 7 leaving early by break */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %j, %lim, %sum, %one, %three, %seven, %bit\n.reg bool %c\n.reg i32 %v\n" OUT_PTR
        "    const.u32 %one, 1\n    const.u32 %three, 3\n    const.u32 %seven, 7\n"
        "    const.u32 %j, 0\n    const.u32 %sum, 0\n    add.u32 %lim, %i, %three\n"
        "    loop\n"
        "        ge.u32 %c, %j, %lim\n        if %c\n            break\n        end\n"
        "        eq.u32 %c, %j, %seven\n        if %c\n            break\n        end\n"
        "        and.u32 %bit, %j, %one\n        eq.u32 %c, %bit, %one\n"
        "        if %c\n            continue\n        end\n"
        "        add.u32 %sum, %sum, %j\n"
        "    continuing\n        add.u32 %j, %j, %one\n"
        "    end\n    cvt.i32 %v, %sum\n    st.i32 [%po], %v\n.end\n";
    int32_t out[16];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 16, .width = 16};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 16 && good; i++) {
        int s = 0;
        for (int j = 0; j < i + 3; j++) {
            if (j == 7)
                break;
            if (j & 1)
                continue;
            s += j;
        }
        good = out[i] == s;
        if (!good)
            diag("lane %d: got %d want %d", i, out[i], s);
    }
    ok(good, "loop with continue and break (%s)", d.message);
}

static void test_switch(void)
{
    /* switch (i % 6) { case 0: v = 10; fallthrough; case 1: v += 1; break;
       case 2, 3: v = 30; break; default: v = 99; } */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %s, %six\n.reg i32 %v, %one\n" OUT_PTR
        "    const.u32 %six, 6\n    rem.u32 %s, %i, %six\n    const.i32 %v, 0\n"
        "    const.i32 %one, 1\n"
        "    switch %s\n"
        "    case 0\n        const.i32 %v, 10\n        fallthrough\n"
        "    case 1\n        add.i32 %v, %v, %one\n        break\n"
        "    case 2, 3\n        const.i32 %v, 30\n"
        "    default\n        const.i32 %v, 99\n"
        "    end\n    st.i32 [%po], %v\n.end\n";
    int32_t out[24];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 24, .width = 8};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 24 && good; i++) {
        int s = i % 6, want = s == 0 ? 11 : s == 1 ? 1 : s <= 3 ? 30 : 99;
        good = out[i] == want;
        if (!good)
            diag("lane %d: got %d want %d", i, out[i], want);
    }
    ok(good, "switch with fallthrough, multi-value case, default and break (%s)", d.message);
}

static void test_block_exit(void)
{
    /* block { block { if (i odd) exit 1; v = 1; if (i % 4 == 0) exit 0; v = 2; } v += 10; } */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %b, %one, %three, %zero\n.reg bool %c\n.reg i32 %v, %ten\n" OUT_PTR
        "    const.u32 %one, 1\n    const.u32 %three, 3\n    const.u32 %zero, 0\n"
        "    const.i32 %v, 0\n    const.i32 %ten, 10\n"
        "    block\n        block\n"
        "            and.u32 %b, %i, %one\n            eq.u32 %c, %b, %one\n"
        "            if %c\n                exit 1\n            end\n"
        "            const.i32 %v, 1\n"
        "            and.u32 %b, %i, %three\n            eq.u32 %c, %b, %zero\n"
        "            if %c\n                exit 0\n            end\n"
        "            const.i32 %v, 2\n"
        "        end\n        add.i32 %v, %v, %ten\n"
        "    end\n    st.i32 [%po], %v\n.end\n";
    int32_t out[16];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 16, .width = 8};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 16 && good; i++) {
        int want = (i & 1) ? 0 : (i % 4 == 0) ? 11 : 12;
        good = out[i] == want;
        if (!good)
            diag("lane %d: got %d want %d", i, out[i], want);
    }
    ok(good, "block/exit at two depths (%s)", d.message);
}

static void test_return_before_barrier(void)
{
    /* units >= 5 return; the rest pass sync_cube and write their index */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %five\n.reg bool %c\n.reg i32 %v\n" OUT_PTR
        "    const.u32 %five, 5\n    ge.u32 %c, %i, %five\n"
        "    if %c\n        return\n    end\n    sync_cube\n"
        "    cvt.i32 %v, %i\n    st.i32 [%po], %v\n.end\n";
    int32_t out[16];
    for (int i = 0; i < 16; i++)
        out[i] = -7;
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 16, .width = 4};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 16 && good; i++)
        good = out[i] == (i < 5 ? i : -7);
    ok(good, "early return before a barrier (%s)", d.message);
}

static void test_shared_reduction(void)
{
    /* each cube of 64 units over 4 planes sums i*i into shared, tree with sync_cube */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n.shared 256\n" OUT_REGS
        ".reg u32 %tid, %stride, %one, %zero, %other\n.reg bool %c\n"
        ".reg ptr.shared %sb, %sm, %so\n.reg i32 %v, %w\n" OUT_PTR
        "    sreg.u32 %tid, unit_pos.x\n    const.u32 %one, 1\n    const.u32 %zero, 0\n"
        "    mul.u32 %other, %i, %i\n    cvt.i32 %v, %other\n"
        "    const.ptr.shared %sb, 0\n    cvt.i64 %off, %tid\n    mul.i64 %off, %off, %four\n"
        "    ptr.add.ptr.shared %sm, %sb, %off\n    st.i32 [%sm], %v\n    sync_cube\n"
        "    sreg.u32 %stride, cube_dim.x\n    shr.u32 %stride, %stride, %one\n"
        "    loop\n        lt.u32 %c, %tid, %stride\n        if %c\n"
        "            add.u32 %other, %tid, %stride\n            cvt.i64 %off, %other\n"
        "            mul.i64 %off, %off, %four\n            ptr.add.ptr.shared %so, %sb, %off\n"
        "            ld.i32 %v, [%sm]\n            ld.i32 %w, [%so]\n"
        "            add.i32 %v, %v, %w\n            st.i32 [%sm], %v\n        end\n"
        "        sync_cube\n        shr.u32 %stride, %stride, %one\n"
        "    continuing\n        eq.u32 %c, %stride, %zero\n        break_if %c\n    end\n"
        "    ld.i32 %v, [%sb]\n    st.i32 [%po], %v\n.end\n";
    static int32_t out[128];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 2, .block = 64, .width = 16};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int c = 0; c < 2 && good; c++) {
        int32_t want = 0;
        for (int i = c * 64; i < c * 64 + 64; i++)
            want += i * i;
        for (int i = c * 64; i < c * 64 + 64 && good; i++)
            good = out[i] == want;
    }
    ok(good, "shared-memory reduction across 4 planes with sync_cube (%s)", d.message);
}

static void test_pingpong(void)
{
    /* plane 0 sets the flag to 1 and spins until 2; plane 1 spins until 1 and sets 2 */
    static const char src[] =
        ".kernel k\n.param out buffer u32 write\n.shared 16\n" OUT_REGS
        ".reg u32 %plane, %zero, %one, %two, %flag, %spins\n.reg bool %c\n"
        ".reg ptr.shared %sf\n" OUT_PTR
        "    sreg.u32 %plane, plane_pos\n    const.u32 %zero, 0\n    const.u32 %one, 1\n"
        "    const.u32 %two, 2\n    const.ptr.shared %sf, 0\n"
        "    eq.u32 %c, %plane, %zero\n"
        "    if %c\n        st.volatile.u32 [%sf], %one\n"
        "        loop\n            ld.volatile.u32 %flag, [%sf]\n"
        "        continuing\n            eq.u32 %c, %flag, %two\n            break_if %c\n"
        "        end\n"
        "    else\n"
        "        loop\n            ld.volatile.u32 %flag, [%sf]\n"
        "        continuing\n            eq.u32 %c, %flag, %one\n            break_if %c\n"
        "        end\n        st.volatile.u32 [%sf], %two\n"
        "    end\n    st.u32 [%po], %flag\n.end\n";
    uint32_t out[2] = {0, 0};
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 2, .width = 1, .timeout = 20};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    ok(st == CVM_OK && out[0] == 2 && out[1] == 1, "two planes ping-pong a shared flag (%s)",
       d.message);
}

static void test_deadlock(void)
{
    /* plane 0 waits at named barrier 1 for 64 units; plane 1 returns */
    static const char src[] =
        ".kernel dl\n.reg u32 %plane, %zero, %id, %cnt\n.reg bool %c\n"
        "    sreg.u32 %plane, plane_pos\n    const.u32 %zero, 0\n    const.u32 %id, 1\n"
        "    const.u32 %cnt, 64\n    eq.u32 %c, %plane, %zero\n"
        "    if %c\n        bar.sync %id, %cnt\n    end\n    return\n.end\n";
    cvm_diag d;
    opts o = {.grid = 1, .block = 64, .width = 32, .timeout = 20};
    cvm_status st = run(src, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_FAULT && d.has_fault && strstr(d.message, "deadlock") &&
           strstr(d.message, "plane 0 waits at named barrier 1") &&
           strstr(d.message, "plane 1 has finished"),
       "a deadlock faults instead of hanging (%s)", d.message);
}

static void test_oob(void)
{
    /* c is followed by unregistered padding, as separate allocations would be */
    static float a[128], b[128], c[64 + 16];
    buf bufs[] = {{"a", a, sizeof a, false}, {"b", b, sizeof b, false}, {"c", c, 64 * sizeof *c, true}};
    uint64_t params[] = {ADDR(a), ADDR(b), ADDR(c), 65};
    cvm_diag d;
    opts o = {.grid = 4, .block = 32, .width = 32};
    cvm_status st = run(vadd_src, &o, params, 4, bufs, 3, &d);
    ok(st == CVM_FAULT && d.has_fault &&
           strstr(d.message, "out-of-bounds store of 4 bytes at offset 256 of buffer 'c' (size 256)") &&
           d.fault.cube[0] == 2 && d.fault.unit[0] == 0 && d.fault.lane == 0 &&
           strcmp(d.fault.kernel, "vadd") == 0,
       "out-of-bounds store names buffer, offset, cube and unit (%s)", d.message);
    /* a read-only buffer */
    uint64_t params2[] = {ADDR(a), ADDR(b), ADDR(a), 8};
    st = run(vadd_src, &o, params2, 4, bufs, 3, &d);
    ok(st == CVM_FAULT && strstr(d.message, "read-only buffer 'a'"), "store to a read-only buffer faults (%s)",
       d.message);
}

static void test_division(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n.param uout buffer u32 write\n" OUT_REGS
        ".reg u32 %one, %b, %ua, %uq\n.reg i32 %a, %bi, %q\n.reg ptr.global %pu\n" OUT_PTR
        "    const.u32 %one, 1\n    and.u32 %b, %i, %one\n    cvt.i32 %bi, %b\n"
        "    const.i32 %a, -17\n    div.i32 %q, %a, %bi\n    st.i32 [%po], %q\n"
        "    const.u32 %ua, 17\n    div.u32 %uq, %ua, %b\n    param.ptr.global %pu, uout, 0\n"
        "    ptr.add.ptr.global %pu, %pu, %off\n    st.u32 [%pu], %uq\n.end\n";
    int32_t out[8];
    uint32_t uout[8];
    buf bufs[] = {{"out", out, sizeof out, true}, {"uout", uout, sizeof uout, true}};
    uint64_t params[] = {ADDR(out), ADDR(uout)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 8, .width = 8};
    cvm_status st = run(src, &o, params, 2, bufs, 2, &d);
    ok(st == CVM_FAULT && strstr(d.message, "division by zero") && d.fault.lane == 0,
       "integer division by zero faults in checked mode (%s)", d.message);
    o.unchecked = true;
    st = run(src, &o, params, 2, bufs, 2, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 8 && good; i++)
        good = out[i] == ((i & 1) ? -17 : -1) && uout[i] == ((i & 1) ? 17u : 0xffffffffu);
    ok(good, "unchecked x/0 gives -1 (signed) and all ones (unsigned) (%s)", d.message);
}

static void test_step_budget(void)
{
    static const char src[] =
        ".kernel spin\n.reg u32 %x, %one\n    const.u32 %one, 1\n    const.u32 %x, 0\n"
        "    loop\n        add.u32 %x, %x, %one\n    end\n.end\n";
    cvm_diag d;
    opts o = {.grid = 1, .block = 4, .width = 4, .budget = 5000};
    cvm_status st = run(src, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "step budget"), "step budget fault (%s)", d.message);
    o.budget = 0;
    o.timeout = 0.2;
    st = run(src, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_TIMEOUT && d.has_fault && strstr(d.message, "timeout"), "timeout fault (%s)",
       d.message);
}

static void test_shuffle_reduction(void)
{
    /* butterfly: v = lane + 1; for off = 16..1: v += shfl.xor(v, off) */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %lane, %offs, %one, %zero\n.reg u64 %mask\n.reg bool %c\n.reg i32 %v, %w, %k1\n" OUT_PTR
        "    sreg.u32 %lane, unit_pos_plane\n    sreg.u64 %mask, plane_fullmask\n"
        "    const.u32 %one, 1\n    const.u32 %zero, 0\n    const.i32 %k1, 1\n"
        "    cvt.i32 %v, %lane\n    add.i32 %v, %v, %k1\n    sreg.u32 %offs, plane_dim\n"
        "    shr.u32 %offs, %offs, %one\n"
        "    loop\n        eq.u32 %c, %offs, %zero\n        if %c\n            break\n        end\n"
        "        shfl.xor.i32 %w, %v, %offs, %mask\n        add.i32 %v, %v, %w\n"
        "        shr.u32 %offs, %offs, %one\n    end\n    st.i32 [%po], %v\n.end\n";
    int32_t out[64];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 64, .width = 32};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 64 && good; i++)
        good = out[i] == 32 * 33 / 2;
    ok(good, "plane shuffle (xor butterfly) reduction (%s)", d.message);
}

/* Ballot of (lane odd) by lanes 0..3 with member mask 0xf; optionally lanes 0..2 only. */
static cvm_status ballot_kernel(uint32_t active_lanes, int32_t *out, cvm_diag *d)
{
    static const char tmpl[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %lane, %n, %mask, %one, %b, %res\n.reg bool %c, %odd\n.reg i32 %v\n" OUT_PTR
        "    sreg.u32 %lane, unit_pos_plane\n    const.u32 %n, 4\n    const.u32 %mask, 15\n"
        "    const.u32 %one, 1\n    const.i32 %v, -1\n    lt.u32 %c, %lane, %n\n"
        "    if %c\n        and.u32 %b, %lane, %one\n        eq.u32 %odd, %b, %one\n"
        "        vote.ballot.u32 %res, %odd, %mask\n        cvt.i32 %v, %res\n    end\n"
        "    st.i32 [%po], %v\n.end\n";
    char src[sizeof tmpl];
    memcpy(src, tmpl, sizeof tmpl);
    strstr(src, "%n, 4")[4] = (char)('0' + active_lanes);
    buf bufs[] = {{"out", out, 8 * sizeof *out, true}};
    uint64_t params[] = {ADDR(out)};
    opts o = {.grid = 1, .block = 8, .width = 8};
    return run(src, &o, params, 1, bufs, 1, d);
}

static void test_ballot_synccheck(void)
{
    int32_t out[8];
    cvm_diag d;
    cvm_status st = ballot_kernel(4, out, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 8 && good; i++)
        good = out[i] == (i < 4 ? 10 : -1);
    ok(good, "ballot with a partial member mask (%s)", d.message);
    st = ballot_kernel(3, out, &d);
    ok(st == CVM_FAULT && strstr(d.message, "synccheck") && d.fault.lane == 3,
       "synccheck fault for an inactive member lane (%s)", d.message);
}

static void test_atomics_print(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer u32 write\n.param ctr buffer u32 readwrite\n"
        ".param fsum buffer f32 readwrite\n" OUT_REGS
        ".reg u32 %one, %old\n.reg ptr.global %pc, %pf\n.reg f32 %h, %fo\n" OUT_PTR
        "    const.u32 %one, 1\n    param.ptr.global %pc, ctr, 0\n"
        "    atom.add.relaxed.device.u32 %old, [%pc], %one\n    st.u32 [%po], %old\n"
        "    param.ptr.global %pf, fsum, 0\n    const.f32 %h, 0.5\n"
        "    atom.add.relaxed.device.f32 %fo, [%pf], %h\n"
        "    print \"unit %u old %u half %.1f hex %x\", %i, %old, %h, %i\n.end\n";
    uint32_t out[40], ctr = 0;
    float fsum = 0;
    buf bufs[] = {{"out", out, sizeof out, true}, {"ctr", &ctr, 4, true}, {"fsum", &fsum, 4, true}};
    uint64_t params[] = {ADDR(out), ADDR(&ctr), ADDR(&fsum)};
    cvm_vm_text text = {0};
    cvm_diag d;
    opts o = {.grid = 2, .block = 20, .width = 8, .print = &text};
    cvm_status st = run(src, &o, params, 3, bufs, 3, &d);
    int seen[40] = {0}, good = st == CVM_OK && ctr == 40 && fsum == 20.0f;
    for (int i = 0; i < 40 && good; i++)
        good = out[i] < 40 && !seen[out[i]]++ && out[i] == (uint32_t)i; /* one worker: lane order */
    ok(good, "global integer and float atomics apply in lane order (%s)", d.message);
    ok(text.data && strncmp(text.data, "unit 0 old 0 half 0.5 hex 0\nunit 1 old 1 half 0.5 hex 1\n", 56) == 0 &&
           strstr(text.data, "unit 31 old 31 half 0.5 hex 1f\n"),
       "print formats one line per active lane");
    free(text.data);
}


static void test_lines_local_const(void)
{
    /* out4[i] = 2 * in4[i] (f32x4); a local array reversed; a constant table lookup;
       select, extract, insert, build, splat */
    static const char src[] =
        ".constant tbl i32 16 4 = 0x070000000b0000000d00000011000000\n"
        ".kernel k\n.param in4 buffer f32x4 read\n.param out4 buffer f32x4 write\n"
        ".param out buffer i32 write\n.local 16\n" OUT_REGS
        ".reg u32 %three, %k, %one, %four32\n.reg bool %c, %odd\n.reg i64 %off16, %sixteen, %koff\n"
        ".reg ptr.global %pi, %pq\n.reg f32x4 %x, %y\n.reg f32 %e2, %s\n"
        ".reg ptr.local %lb, %lp\n.reg ptr.const %cb\n.reg i32 %v, %w, %t\n" OUT_PTR
        "    const.i64 %sixteen, 16\n    cvt.i64 %off16, %i\n    mul.i64 %off16, %off16, %sixteen\n"
        "    param.ptr.global %pi, in4, 0\n    ptr.add.ptr.global %pi, %pi, %off16\n"
        "    ld.f32x4 %x, [%pi]\n    add.f32x4 %y, %x, %x\n"
        "    extract.f32 %e2, %y, 2\n    const.f32 %s, 0.25\n    add.f32 %e2, %e2, %s\n"
        "    insert.f32x4 %y, %y, %e2, 2\n"
        "    param.ptr.global %pq, out4, 0\n    ptr.add.ptr.global %pq, %pq, %off16\n"
        "    st.f32x4 [%pq], %y\n"
        /* local: l[k] = i * 10 + k for k < 4, then v = l[3] - l[0] + l[1] */
        "    const.ptr.local %lb, 0\n    const.u32 %k, 0\n    const.u32 %one, 1\n"
        "    const.u32 %four32, 4\n"
        "    loop\n        cvt.i64 %koff, %k\n        mul.i64 %koff, %koff, %four\n"
        "        ptr.add.ptr.local %lp, %lb, %koff\n        mul.u32 %three, %i, %four32\n"
        "        add.u32 %three, %three, %k\n        cvt.i32 %v, %three\n        st.i32 [%lp], %v\n"
        "    continuing\n        add.u32 %k, %k, %one\n        ge.u32 %c, %k, %four32\n"
        "        break_if %c\n    end\n"
        "    const.i64 %koff, 12\n    ptr.add.ptr.local %lp, %lb, %koff\n    ld.i32 %v, [%lp]\n"
        "    ld.i32 %w, [%lb]\n    sub.i32 %v, %v, %w\n"
        /* constant table: t = tbl[i % 4] */
        "    const.u32 %three, 3\n    and.u32 %k, %i, %three\n    cvt.i64 %koff, %k\n"
        "    mul.i64 %koff, %koff, %four\n    sym.ptr.const %cb, tbl\n"
        "    ptr.add.ptr.const %cb, %cb, %koff\n    ld.i32 %t, [%cb]\n"
        /* v = odd ? v * 100 + t : t */
        "    and.u32 %k, %i, %one\n    eq.u32 %odd, %k, %one\n    const.i32 %w, 100\n"
        "    mul.i32 %v, %v, %w\n    add.i32 %v, %v, %t\n    select.i32 %v, %v, %t, %odd\n"
        "    st.i32 [%po], %v\n.end\n";
    float in4[16 * 4], out4[16 * 4];
    int32_t out[16];
    static const int32_t tbl[4] = {7, 11, 13, 17};
    for (int i = 0; i < 64; i++)
        in4[i] = (float)i - 20.5f;
    buf bufs[] = {{"in4", in4, sizeof in4, false}, {"out4", out4, sizeof out4, true},
                  {"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(in4), ADDR(out4), ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 2, .block = 8, .width = 4};
    cvm_status st = run(src, &o, params, 3, bufs, 3, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 64 && good; i++)
        good = out4[i] == in4[i] * 2 + (i % 4 == 2 ? 0.25f : 0.0f);
    ok(good, "f32x4 load, add, extract/insert, store (%s)", d.message);
    good = st == CVM_OK;
    for (int i = 0; i < 16 && good; i++)
        good = out[i] == ((i & 1) ? 3 * 100 + tbl[i % 4] : tbl[i % 4]);
    ok(good, "local arrays, constant table and select (%s)", d.message);
}

static void test_switch_no_default(void)
{
    /* lanes matching no case (and no default) continue after the switch */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n" OUT_REGS
        ".reg u32 %s, %four32\n.reg i32 %v, %hund\n" OUT_PTR
        "    const.u32 %four32, 4\n    rem.u32 %s, %i, %four32\n    cvt.i32 %v, %i\n"
        "    const.i32 %hund, 100\n"
        "    switch %s\n    case 2\n        add.i32 %v, %v, %hund\n    end\n"
        "    add.i32 %v, %v, %hund\n    st.i32 [%po], %v\n.end\n";
    int32_t out[8];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 8, .width = 8};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 8 && good; i++)
        good = out[i] == i + 100 + (i % 4 == 2 ? 100 : 0);
    ok(good, "switch without default: unmatched lanes continue (%s)", d.message);
}

static void test_barrier_divergence_line(void)
{
    static const char src[] =
        ".file 0 \"div.cu\"\n.kernel k\n.reg u32 %i, %two\n.reg bool %c\n"
        "    sreg.u32 %i, unit_pos.x\n    const.u32 %two, 2\n    lt.u32 %c, %i, %two\n"
        "    if %c\n.loc 0 42 5\n        sync_cube\n    end\n.end\n";
    cvm_diag d;
    opts o = {.grid = 1, .block = 8, .width = 8};
    cvm_status st = run(src, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "barrier divergence") && d.fault.line == 42 &&
           strcmp(d.fault.file, "div.cu") == 0 && d.fault.lane == 2 && strstr(d.message, "(line 42)"),
       "barrier divergence fault with its source line (%s)", d.message);
}

static void test_uniform(void)
{
    /* u = cube_pos * 7 + 3 from uniform operands, computed inside a divergent if
       where lane 0 is inactive: one lane computes, the active lanes receive it */
    static const char src[] =
        ".kernel k\n.param out buffer u32 write\n" OUT_REGS
        ".reg u32 %c, %k7, %k3, %u, %r, %three, %one\n.reg bool %p\n" OUT_PTR
        "    sreg.u32 %c, cube_pos.x\n    const.u32 %k7, 7\n    const.u32 %k3, 3\n"
        "    const.u32 %three, 3\n    const.u32 %one, 1\n    const.u32 %u, 0\n"
        "    rem.u32 %r, %i, %three\n    eq.u32 %p, %r, %one\n"
        "    if %p\n        mul.u32 %u, %c, %k7\n        add.u32 %u, %u, %k3\n    end\n"
        "    st.u32 [%po], %u\n.end\n";
    uint32_t out[48];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 3, .block = 16, .width = 8};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 48 && good; i++)
        good = out[i] == (i % 3 == 1 ? (uint32_t)(i / 16) * 7 + 3 : 0);
    ok(good, "uniform instructions under a divergent mask (%s)", d.message);

    /* which instructions the decoder runs uniformly */
    decoded dc;
    const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
    int uni = 0, mul_uni = 0, rem_uni = 1, mul_ab = 0, rem_b = 0;
    if (kp) {
        for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
            const int u = kp->code[pc].uni & CVM_VM_UNI_PLANE;
            uni += u;
            const unsigned ab = kp->code[pc].uni & (CVM_VM_UNI_A | CVM_VM_UNI_B);
            if (kp->code[pc].h == CVM_OP_MUL && kp->code[pc].elem == CVM_T_U32)
                mul_uni = u, mul_ab = ab == (CVM_VM_UNI_A | CVM_VM_UNI_B);
            if (kp->code[pc].h == CVM_OP_REM)
                rem_uni = u, rem_b = ab == CVM_VM_UNI_B;
        }
    }
    ok(mul_uni && !rem_uni && uni >= 8, "decoder marks uniform instructions (%d), not varying ones", uni);
    /* rem %r, %i (varying), %three: only its b is uniform */
    ok(mul_ab && rem_b, "decoder marks which sources are uniform (a and b of the mul, b of the rem)");
    decoded_free(&dc);
}

/* The uniform-source bits on decode's fused `cvt.i64; mul.i64` (ARITH64;
 * interp_lockstep.c multiplies by such a value once per plane): set for
 * a cube-uniform value's conversion (a constant's is filled once per
 * launch instead: fuse.c presettable), also where the conversion's own
 * result is varying (written under a divergent if), not for a lane's own
 * value's. */
static void test_uniform_fused(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer i64 write\n"
        ".reg u32 %t, %k3, %cp\n.reg i32 %k, %ti\n.reg i64 %w, %kk, %p, %kv, %pv, %kd, %pd\n"
        ".reg bool %c\n.reg ptr.global %po\n"
        "    sreg.u32 %t, unit_pos.x\n    cvt.i64 %w, %t\n    const.u32 %k3, 3\n"
        "    sreg.u32 %cp, cube_pos.x\n    cvt.i32 %k, %cp\n"
        "    cvt.i64 %kk, %k\n    mul.i64 %p, %w, %kk\n"
        "    cvt.i32 %ti, %t\n    cvt.i64 %kv, %ti\n    mul.i64 %pv, %w, %kv\n"
        "    param.ptr.global %po, out, 0\n    st.i64 [%po], %p\n    st.i64 [%po], %pv\n"
        "    lt.u32 %c, %t, %k3\n    if %c\n"
        "        cvt.i64 %kd, %k\n        mul.i64 %pd, %w, %kd\n        st.i64 [%po], %pd\n    end\n"
        ".end\n";
    cvm_diag d;
    decoded dc;
    const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
    int fused = 0, by_const = 0, by_lane = 0, in_if = 0;
    if (kp && kp->fast) {
        for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
            const cvm_vm_dinsn *in = &kp->fast[pc];
            if (in->h != CVM_VM_H_ARITH64 || in->k != 2)
                continue;
            const unsigned ab = in->uni & (CVM_VM_UNI_A | CVM_VM_UNI_B);
            fused++;
            if (fused == 1)
                by_const = ab == CVM_VM_UNI_B;
            else if (fused == 2)
                by_lane = ab == 0;
            else
                in_if = ab == CVM_VM_UNI_B;
        }
    }
    ok(fused == 3 && by_const && by_lane && in_if,
       "fused cvt+mul: b uniform for a cube-uniform value, inside a divergent if too, not for a "
       "lane's "
       "own (%d fused; %d, %d, %d)", fused, by_const, by_lane, in_if);
    decoded_free(&dc);
}

/* fuse.c fuse_divrem: `r = t % w; t = t / w` (the quotient replaces the
 * dividend) is one DIVREM; the same with t read between the two is not,
 * nor is `t = t / w; r = t % w` (the rem reads the new t). */
static void test_divrem_in_place(void)
{
    static const char *const body[] = {
        "    rem.i64 %r, %t, %w\n    cvt.u32 %o, %r\n    div.i64 %t, %t, %w\n",
        "    rem.i64 %r, %t, %w\n    cvt.u32 %o, %t\n    div.i64 %t, %t, %w\n",
        "    div.i64 %t, %t, %w\n    cvt.u32 %o, %t\n    rem.i64 %r, %t, %w\n",
    };
    int fused[3];
    for (int i = 0; i < 3; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 ".kernel k\n.param out buffer u32 write\n.param w scalar i64\n"
                 ".reg u32 %%u, %%o\n.reg i64 %%t, %%w, %%r\n.reg ptr.global %%po\n"
                 "    sreg.u32 %%u, unit_pos.x\n    cvt.i64 %%t, %%u\n    param.i64 %%w, w, 0\n"
                 "%s    param.ptr.global %%po, out, 0\n    st.u32 [%%po], %%o\n"
                 "    cvt.u32 %%o, %%t\n    st.u32 [%%po], %%o\n    cvt.u32 %%o, %%r\n"
                 "    st.u32 [%%po], %%o\n.end\n",
                 body[i]);
        cvm_diag d;
        decoded dc;
        const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
        fused[i] = kp && kp->fast ? 0 : -1;
        for (uint32_t pc = 0; kp && kp->fast && pc < kp->ninsns; pc++)
            fused[i] += kp->fast[pc].h == CVM_VM_H_DIVREM;
        decoded_free(&dc);
    }
    ok(fused[0] == 1 && fused[1] == 0 && fused[2] == 0,
       "rem then a div into the dividend: one division; not with the dividend read between, nor "
       "div first (%d, %d, %d)", fused[0], fused[1], fused[2]);
}

/* fuse.c presettable: integer values computed from launch constants alone
 * are filled once per launch (in kp->preset, a nop in the fused code):
 * `(long)p` read twice and its square; not a sum with a lane's own value,
 * and not a sign extension that a lane's own multiply reads (the ARITH64
 * pair keeps it). */
static void test_derived_presets(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer i64 write\n.param p scalar i32\n"
        ".reg i32 %p\n.reg u32 %t\n.reg i64 %a, %b, %tl, %c, %k, %y\n.reg ptr.global %po\n"
        "    param.i32 %p, p, 0\n    cvt.i64 %a, %p\n    mul.i64 %b, %a, %a\n"
        "    sreg.u32 %t, unit_pos.x\n    cvt.i64 %tl, %t\n    add.i64 %c, %b, %tl\n"
        "    cvt.i64 %k, %p\n    mul.i64 %y, %tl, %k\n"
        "    param.ptr.global %po, out, 0\n    st.i64 [%po], %c\n    st.i64 [%po], %y\n.end\n";
    cvm_diag d;
    decoded dc;
    const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
    char got[16] = "";
    for (uint32_t pc = 0; kp && kp->fast && pc < kp->ninsns && pc < 8; pc++) {
        bool pre = false;
        for (uint32_t j = 0; j < kp->npreset; j++)
            pre = pre || kp->preset[j] == pc;
        got[pc] = pre && kp->fast[pc].h == CVM_OP_NOP ? 'p' : kp->fast[pc].h == CVM_VM_H_ARITH64 ? 'f' : '-';
    }
    ok(strcmp(got, "ppp---f-") == 0,
       "launch constants from launch constants are preset, not a sum with a lane's value nor a "
       "pair's extension (got '%s')", got);
    decoded_free(&dc);
}

/* For each INDEX of src's decoded kernel in program order (up to 15):
 * got 'y' where it has CVM_VM_UNI_UNIT_X_B, else 'n'; base 'c' where it has
 * CVM_VM_UNI_CUBE_A, else '-'. Both empty when src does not decode. */
static void index_facts(const char *src, char *got, char *base)
{
    cvm_diag d;
    decoded dc;
    const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
    unsigned nix = 0;
    for (uint32_t pc = 0; kp && kp->fast && pc < kp->ninsns && nix < 15; pc++)
        if (kp->fast[pc].h == CVM_VM_H_INDEX) {
            got[nix] = kp->fast[pc].uni & CVM_VM_UNI_UNIT_X_B ? 'y' : 'n';
            base[nix++] = kp->fast[pc].uni & CVM_VM_UNI_CUBE_A ? 'c' : '-';
        }
    got[nix] = base[nix] = 0;
    decoded_free(&dc);
}

/*
 * fuse.c unit_x_plus: which INDEX chains read an index that is u +
 * unit_pos.x (CVM_VM_UNI_UNIT_X_B), u cube-uniform, written once outside
 * every construct. In program order: (int)(c d + t), (unsigned)(c d + t)
 * and the i64 c d + (long)t do; the i64 c d + (long)(c d + t) (an
 * extension of a sum), t * 2, an index written twice, t + t, one written
 * inside an if, and c d + unit_pos.y do not.
 */
static void test_unit_x_index(void)
{
    static const char chain[] = "    cvt.i64 %%a%d, %%%s\n    const.i64 %%s%d, 4\n"
                                "    mul.i64 %%u%d, %%a%d, %%s%d\n"
                                "    ptr.add.ptr.global %%p%d, %%pi, %%u%d\n"
                                "    ld.u32 %%x%d, [%%p%d]\n";
    static const char chain64[] = "    const.i64 %%s%d, 4\n    mul.i64 %%u%d, %%%s, %%s%d\n"
                                  "    ptr.add.ptr.global %%p%d, %%pi, %%u%d\n"
                                  "    ld.u32 %%x%d, [%%p%d]\n";
    static const char *const idx[] = {"ig", "ug", "g64", "e64", "m", "w2", "tt", "ui", "py"};
    char src[6000];
    int n = snprintf(src, sizeof src, "%s",
                     ".kernel k\n.param in buffer u32 read\n"
                     ".reg u32 %t, %c, %cd, %cg, %ug, %m, %k2, %w2, %tt, %ui, %ty, %py\n"
                     ".reg i32 %ig\n.reg i64 %t64, %cg64, %g64, %ue64, %e64\n.reg bool %b\n"
                     ".reg ptr.global %pi\n");
    for (int i = 0; i < 9; i++)
        n += snprintf(src + n, sizeof src - (size_t)n,
                      ".reg i64 %%a%d, %%s%d, %%u%d\n.reg ptr.global %%p%d\n.reg u32 %%x%d\n", i, i,
                      i, i, i);
    n += snprintf(src + n, sizeof src - (size_t)n, "%s",
                  "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n"
                  "    sreg.u32 %cd, cube_dim.x\n    param.ptr.global %pi, in, 0\n"
                  "    mul.u32 %cg, %c, %cd\n    add.u32 %ug, %cg, %t\n    cvt.i32 %ig, %ug\n"
                  "    cvt.i64 %t64, %t\n    cvt.i64 %cg64, %cg\n    add.i64 %g64, %cg64, %t64\n"
                  "    cvt.i64 %ue64, %ug\n    add.i64 %e64, %cg64, %ue64\n"
                  "    const.u32 %k2, 2\n    mul.u32 %m, %t, %k2\n"
                  "    add.u32 %w2, %cg, %t\n    add.u32 %w2, %w2, %k2\n    add.u32 %tt, %t, %t\n"
                  "    sreg.u32 %ty, unit_pos.y\n    add.u32 %py, %cg, %ty\n");
    for (int i = 0; i < 9; i++) {
        if (i == 7)
            n += snprintf(src + n, sizeof src - (size_t)n, "%s",
                          "    lt.u32 %b, %t, %k2\n    if %b\n        add.u32 %ui, %cg, %t\n");
        if (i == 2 || i == 3)
            n += snprintf(src + n, sizeof src - (size_t)n, chain64, i, i, idx[i], i, i, i, i, i);
        else
            n += snprintf(src + n, sizeof src - (size_t)n, chain, i, idx[i], i, i, i, i, i, i, i,
                          i);
        if (i == 7)
            n += snprintf(src + n, sizeof src - (size_t)n, "%s", "    end\n");
    }
    snprintf(src + n, sizeof src - (size_t)n, "%s", "    return\n.end\n");
    char got[16], base[16];
    index_facts(src, got, base);
    ok(strcmp(got, "yyynnnnnn") == 0,
       "INDEX chains of u + unit_pos.x: the first three of nine (got '%s')", got);
}

/*
 * fuse.c plane_consecutive's loop counters, and the INDEX's base of
 * class CUBE (CVM_VM_UNI_CUBE_A). In program order: a grid-stride
 * counter read in its loop (yes), the same counter stepped through bit
 * copies, as the CUDA frontend writes `i += n` on an int (yes); one read
 * after its loop, one stepped inside an if of the continuing part, one
 * whose loop is inside an if, one stepped by a lane's own value, one
 * stepped through a copy made inside an if (no). The base is of class
 * CUBE (a parameter plus a cube-uniform offset, or the parameter itself)
 * in all but the sixth chain, where it is per lane.
 */
static void test_unit_x_loops(void)
{
    static const char src[] =
        ".kernel k\n.param in buffer u32 read\n.param n scalar u32\n"
        ".reg u32 %t, %c, %cd, %cc, %cg, %st, %n, %x, %i1, %i2, %i3, %i4, %i5, %i6, %c2, %d2\n"
        ".reg i32 %j2, %j7\n.reg bool %b, %b1, %b2, %b3, %b4, %b5, %b6, %b7\n"
        ".reg i64 %co, %a1, %s1, %u1, %a2, %s2, %u2, %a3, %s3, %u3, %a4, %s4, %u4, %a5, %s5, %u5\n"
        ".reg i64 %a6, %s6, %u6, %a7, %s7, %u7, %t64\n.reg u32 %i7, %c7\n"
        ".reg ptr.global %pi, %row, %lane, %p1, %p2, %p3, %p4, %p5, %p6, %p7\n"
        "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
        "    sreg.u32 %cc, cube_count.x\n    mul.u32 %cg, %c, %cd\n    mul.u32 %st, %cd, %cc\n"
        "    param.u32 %n, n, 0\n    param.ptr.global %pi, in, 0\n"
        "    cvt.i64 %co, %cg\n    ptr.add.ptr.global %row, %pi, %co\n"
        "    cvt.i64 %t64, %t\n    ptr.add.ptr.global %lane, %pi, %t64\n"
        "    add.u32 %i1, %cg, %t\n    add.u32 %i2, %cg, %t\n    add.u32 %i3, %cg, %t\n"
        "    add.u32 %i4, %cg, %t\n    add.u32 %i5, %cg, %t\n    add.u32 %i6, %cg, %t\n"
        "    add.u32 %i7, %cg, %t\n"
        "    loop\n        lt.u32 %b1, %i1, %n\n        if %b1\n            break\n        end\n"
        "        cvt.i64 %a1, %i1\n        const.i64 %s1, 4\n        mul.i64 %u1, %a1, %s1\n"
        "        ptr.add.ptr.global %p1, %row, %u1\n        ld.u32 %x, [%p1]\n"
        "    continuing\n        add.u32 %i1, %i1, %st\n    end\n"
        "    loop\n        lt.u32 %b2, %i2, %n\n        if %b2\n            break\n        end\n"
        "        cvt.i64 %a2, %i2\n        const.i64 %s2, 4\n        mul.i64 %u2, %a2, %s2\n"
        "        ptr.add.ptr.global %p2, %row, %u2\n        ld.u32 %x, [%p2]\n"
        "    continuing\n        cvt.i32 %j2, %i2\n        cvt.u32 %c2, %j2\n"
        "        add.u32 %d2, %c2, %st\n        cvt.u32 %i2, %d2\n    end\n"
        "    loop\n        lt.u32 %b3, %i3, %n\n        if %b3\n            break\n        end\n"
        "    continuing\n        add.u32 %i3, %i3, %st\n    end\n"
        "    cvt.i64 %a3, %i3\n    const.i64 %s3, 4\n    mul.i64 %u3, %a3, %s3\n"
        "    ptr.add.ptr.global %p3, %pi, %u3\n    ld.u32 %x, [%p3]\n"
        "    loop\n        lt.u32 %b4, %i4, %n\n        if %b4\n            break\n        end\n"
        "        cvt.i64 %a4, %i4\n        const.i64 %s4, 4\n        mul.i64 %u4, %a4, %s4\n"
        "        ptr.add.ptr.global %p4, %pi, %u4\n        ld.u32 %x, [%p4]\n"
        "    continuing\n        lt.u32 %b, %t, %n\n        if %b\n            add.u32 %i4, %i4, %st\n"
        "        end\n    end\n"
        "    lt.u32 %b, %c, %n\n    if %b\n"
        "    loop\n        lt.u32 %b5, %i5, %n\n        if %b5\n            break\n        end\n"
        "        cvt.i64 %a5, %i5\n        const.i64 %s5, 4\n        mul.i64 %u5, %a5, %s5\n"
        "        ptr.add.ptr.global %p5, %pi, %u5\n        ld.u32 %x, [%p5]\n"
        "    continuing\n        add.u32 %i5, %i5, %st\n    end\n    end\n"
        "    loop\n        lt.u32 %b6, %i6, %n\n        if %b6\n            break\n        end\n"
        "        cvt.i64 %a6, %i6\n        const.i64 %s6, 4\n        mul.i64 %u6, %a6, %s6\n"
        "        ptr.add.ptr.global %p6, %lane, %u6\n        ld.u32 %x, [%p6]\n"
        "    continuing\n        add.u32 %i6, %i6, %t\n    end\n"
        "    loop\n        lt.u32 %b7, %i7, %n\n        if %b7\n            break\n        end\n"
        "        cvt.i64 %a7, %i7\n        const.i64 %s7, 4\n        mul.i64 %u7, %a7, %s7\n"
        "        ptr.add.ptr.global %p7, %pi, %u7\n        ld.u32 %x, [%p7]\n"
        "    continuing\n        lt.u32 %b, %t, %n\n        if %b\n            cvt.i32 %j7, %i7\n"
        "        end\n        cvt.u32 %c7, %j7\n        add.u32 %i7, %c7, %st\n    end\n"
        "    return\n.end\n";
    char got[16], base[16];
    index_facts(src, got, base);
    ok(strcmp(got, "yynnnnn") == 0,
       "loop counters from u + unit_pos.x: the first two of seven INDEX chains (got '%s')", got);
    ok(strcmp(base, "ccccc-c") == 0,
       "INDEX bases: of class CUBE but in the sixth, per lane (got '%s')", base);
}

/*
 * decode.c allocate_slots: the fused code's registers share slots where
 * their lives do not overlap. Counted by hand for this kernel: t, s (both
 * live across the if) and po (preset) keep their own slots; a [pc 1-2],
 * b [2-3], c [3-4], p [5-6] and d [7-8] need two slots between them; the
 * address chain at pcs 11-14 (fused, its store at 15 included) needs four
 * for o, four, o2 and pp. 12 registers, 7 slots. The exact code keeps its
 * 12, and both runs compute out[t] by the C model.
 */
static void test_slot_allocation(void)
{
    static const char src[] =
        ".kernel k\n.param out buffer u32 write\n"
        ".reg u32 %t, %a, %b, %c, %s, %d\n.reg bool %p\n.reg ptr.global %po, %pp\n"
        ".reg i64 %o, %four, %o2\n"
        "    sreg.u32 %t, unit_pos.x\n    mul.u32 %a, %t, %t\n    add.u32 %b, %a, %t\n"
        "    mul.u32 %c, %b, %b\n    add.u32 %s, %c, %t\n    lt.u32 %p, %t, %s\n"
        "    if %p\n        mul.u32 %d, %s, %s\n        add.u32 %s, %s, %d\n    end\n"
        "    param.ptr.global %po, out, 0\n    cvt.i64 %o, %t\n    const.i64 %four, 4\n"
        "    mul.i64 %o2, %o, %four\n    ptr.add.ptr.global %pp, %po, %o2\n    st.u32 [%pp], %s\n"
        ".end\n";
    cvm_diag d;
    decoded dc;
    const cvm_vm_kprog *kp = decode_src(src, &dc, &d) == CVM_OK ? &dc.prog->kernels[0] : NULL;
    ok(kp && kp->nslots == 12 && kp->fast_exact && kp->fast_nslots == 7,
       "registers share slots in the fused code: 12 -> 7 (%u -> %u)", kp ? kp->nslots : 0,
       kp && kp->fast_exact ? kp->fast_nslots : 0);
    decoded_free(&dc);
    for (int budget = 0; budget < 2; budget++) {
        uint32_t out[64];
        buf bufs[] = {{"out", out, sizeof out, true}};
        uint64_t params[] = {ADDR(out)};
        opts o = {.grid = 1, .block = 64, .width = 32, .budget = budget ? 1u << 20 : 0};
        cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
        int good = st == CVM_OK;
        for (uint32_t t = 0; t < 64 && good; t++) {
            uint32_t b = t * t + t, s = b * b + t;
            if (t < s)
                s += s * s;
            good = out[t] == s;
        }
        ok(good, "... and compute what the C model does (%s code: %s)", budget ? "exact" : "fused",
           d.message);
    }
}

static void test_more_atomics_misaligned(void)
{
    /* shared inc (wrap 7), dec (wrap 5), cas chain; global signed min and float max */
    static const char src[] =
        ".kernel k\n.param out buffer u32 write\n.param g buffer i32 readwrite\n"
        ".param gf buffer f32 readwrite\n.shared 16\n" OUT_REGS
        ".reg u32 %seven, %five, %old, %old2, %exp, %nxt, %one, %tid\n.reg i32 %sv, %m41, %k20, %gold\n"
        ".reg ptr.shared %s0, %s1, %s2\n.reg i64 %c4, %c8\n.reg ptr.global %pg, %pf\n.reg f32 %fv, %fold\n" OUT_PTR
        "    sreg.u32 %tid, unit_pos.x\n    const.u32 %seven, 7\n    const.u32 %five, 5\n"
        "    const.u32 %one, 1\n    const.ptr.shared %s0, 0\n    const.i64 %c4, 4\n    const.i64 %c8, 8\n"
        "    ptr.add.ptr.shared %s1, %s0, %c4\n    ptr.add.ptr.shared %s2, %s0, %c8\n"
        "    atom.inc.relaxed.cube.u32 %old, [%s0], %seven\n"
        "    atom.dec.relaxed.cube.u32 %old2, [%s1], %five\n"
        "    mov.u32 %exp, %tid\n    add.u32 %nxt, %tid, %one\n"
        "    atom.cas.relaxed.cube.u32 %exp, [%s2], %exp, %nxt\n"
        "    mul.u32 %old, %old, %seven\n    add.u32 %old, %old, %old2\n"
        "    mul.u32 %old, %old, %seven\n    add.u32 %old, %old, %exp\n    st.u32 [%po], %old\n"
        "    cvt.i32 %sv, %i\n    const.i32 %m41, 37\n    mul.i32 %sv, %sv, %m41\n"
        "    const.i32 %m41, 41\n    rem.i32 %sv, %sv, %m41\n    const.i32 %k20, 20\n    sub.i32 %sv, %sv, %k20\n"
        "    param.ptr.global %pg, g, 0\n    atom.min.relaxed.device.i32 %gold, [%pg], %sv\n"
        "    cvt.f32 %fv, %sv\n    param.ptr.global %pf, gf, 0\n"
        "    atom.max.relaxed.device.f32 %fold, [%pf], %fv\n.end\n";
    uint32_t out[16];
    int32_t g = 1000;
    float gf = -1000.0f;
    buf bufs[] = {{"out", out, sizeof out, true}, {"g", &g, 4, true}, {"gf", &gf, 4, true}};
    uint64_t params[] = {ADDR(out), ADDR(&g), ADDR(&gf)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 16, .width = 4};
    cvm_status st = run(src, &o, params, 3, bufs, 3, &d);
    int good = st == CVM_OK;
    uint32_t inc = 0, dec = 0;
    int32_t mn = 1000;
    float mx = -1000.0f;
    for (uint32_t i = 0; i < 16 && good; i++) {
        /* lanes apply in order: plane by plane, lane by lane = unit order */
        uint32_t want = (inc * 7 + dec) * 7 + i;
        good = out[i] == want;
        if (!good)
            diag("unit %u: got %u want %u", i, out[i], want);
        inc = inc >= 7 ? 0 : inc + 1;
        dec = (dec == 0 || dec > 5) ? 5 : dec - 1;
        int32_t v = (int32_t)(i * 37) % 41 - 20;
        mn = v < mn ? v : mn;
        mx = (float)v > mx ? (float)v : mx;
    }
    ok(good && g == mn && gf == mx, "shared inc/dec/cas and global min/max atomics (%s)", d.message);

    static const char mis[] =
        ".kernel m\n.param g buffer u32 read\n.reg ptr.global %p\n.reg i64 %two\n.reg u32 %v\n"
        "    param.ptr.global %p, g, 0\n    const.i64 %two, 2\n    ptr.add.ptr.global %p, %p, %two\n"
        "    ld.u32 %v, [%p]\n.end\n";
    uint32_t words[4] = {0};
    buf b2[] = {{"g", words, sizeof words, false}};
    uint64_t p2[] = {ADDR(words)};
    st = run(mis, &o, p2, 1, b2, 1, &d);
    ok(st == CVM_FAULT && strstr(d.message, "misaligned load of 4 bytes at offset 2 of buffer 'g'") &&
       d.fault.count == 16, "misaligned load faults in checked mode naming the buffer and offset, "
       "every lane counted (%s)", d.message);
    o.unchecked = true;
    st = run(mis, &o, p2, 1, b2, 1, &d);
    ok(st == CVM_OK, "unchecked mode performs the misaligned load");
}

static void test_assert_trap(void)
{
    static const char src[] =
        ".kernel k\n.reg u32 %i, %five\n.reg bool %c\n"
        "    sreg.u32 %i, unit_pos.x\n    const.u32 %five, 5\n    lt.u32 %c, %i, %five\n"
        "    assert %c, \"i < 5\\nsecond line\"\n.end\n";
    cvm_diag d;
    opts o = {.grid = 1, .block = 8, .width = 4};
    cvm_status st = run(src, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "assertion failed: i < 5 second line") &&
           d.fault.unit[0] == 5 && d.fault.plane == 1 && d.fault.lane == 1 && !strchr(d.message, '\n'),
       "assert faults at the lowest failing unit, message on one line (%s)", d.message);
    static const char src2[] = ".kernel k\n    trap \"unreachable\"\n.end\n";
    st = run(src2, &o, NULL, 0, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "trap: unreachable") && d.fault.unit[0] == 0,
       "trap faults (%s)", d.message);
}

static void test_named_barrier(void)
{
    /* plane 0 consumes what plane 1 produces: bar.sync 1 waits for plane 1's bar.arrive */
    static const char src[] =
        ".kernel k\n.param out buffer i32 write\n.shared 256\n" OUT_REGS
        ".reg u32 %plane, %zero, %id, %cnt, %tid, %other, %w\n.reg bool %c\n"
        ".reg ptr.shared %sb, %sp\n.reg i32 %v\n" OUT_PTR
        "    sreg.u32 %plane, plane_pos\n    sreg.u32 %tid, unit_pos.x\n    sreg.u32 %w, plane_dim\n"
        "    const.u32 %zero, 0\n    const.u32 %id, 1\n    const.u32 %cnt, 64\n"
        "    const.ptr.shared %sb, 0\n    const.i32 %v, -1\n    eq.u32 %c, %plane, %zero\n"
        "    if %c\n        bar.sync %id, %cnt\n"
        "        add.u32 %other, %tid, %w\n        cvt.i64 %off, %other\n        mul.i64 %off, %off, %four\n"
        "        ptr.add.ptr.shared %sp, %sb, %off\n        ld.i32 %v, [%sp]\n"
        "    else\n"
        "        cvt.i64 %off, %tid\n        mul.i64 %off, %off, %four\n"
        "        ptr.add.ptr.shared %sp, %sb, %off\n        cvt.i32 %v, %tid\n"
        "        mul.i32 %v, %v, %v\n        st.i32 [%sp], %v\n        bar.arrive %id, %cnt\n"
        "    end\n    st.i32 [%po], %v\n.end\n";
    int32_t out[64];
    buf bufs[] = {{"out", out, sizeof out, true}};
    uint64_t params[] = {ADDR(out)};
    cvm_diag d;
    opts o = {.grid = 1, .block = 64, .width = 32};
    cvm_status st = run(src, &o, params, 1, bufs, 1, &d);
    int good = st == CVM_OK;
    for (int i = 0; i < 64 && good; i++)
        good = out[i] == (i < 32 ? (i + 32) * (i + 32) : i * i);
    ok(good, "bar.sync waits for another plane's bar.arrive (%s)", d.message);
}

static void test_op_coverage_and_bad_code(void)
{
    /* every row of ops.def has a handler (an op without one would be rejected
       by cvm_vm_program_build with CVM_UNSUPPORTED) */
    static const bool handled[CVM_OP_LIMIT] = {
#define X(name) [CVM_OP_##name] = true,
        CVM_VM_HANDLED(X)
#undef X
    };
    int missing = 0;
    for (unsigned op = 0; op < CVM_OP_LIMIT; op++)
        if (cvm_bc_op_info(op) && !handled[op]) {
            diag("no handler for %s", cvm_bc_op_info(op)->mnemonic);
            missing++;
        }
    ok(missing == 0, "every op of ops.def has an interpreter handler");

    /* unverified code with an unknown opcode or missing operands is refused, not run */
    cvm_bc_module *mod = NULL;
    cvm_diag d;
    cvm_vm_program *prog = NULL;
    if (cvm_bc_assemble(vadd_src, strlen(vadd_src), "v.cbs", NULL, NULL, &mod, &d) != CVM_OK) {
        ok(0, "assemble vadd");
        return;
    }
    uint32_t *code = mod->kernels[0].code, saved = code[0];
    code[0] = (saved & ~0xffffu) | 0x11f; /* an unused opcode number */
    cvm_status st = cvm_vm_program_build(mod, NULL, NULL, NULL, &prog, &d);
    ok(st == CVM_VERIFY && !prog && strstr(d.message, "unknown opcode") && strstr(d.message, "pc 0"),
       "program_build refuses an unknown opcode (%s)", d.message);
    code[0] = CVM_BC_W0(CVM_OP_IF, 0); /* if without its condition operand */
    st = cvm_vm_program_build(mod, NULL, NULL, NULL, &prog, &d);
    ok(st != CVM_OK && !prog, "program_build refuses malformed control flow (%s)", d.message);
    code[0] = saved;
    st = cvm_vm_program_build(mod, NULL, NULL, NULL, &prog, &d);
    ok(st == CVM_OK && prog, "the restored module builds");
    cvm_vm_program_free(prog);
    cvm_bc_module_free(mod);
}

int main(void)
{
    test_vadd();
    test_if_else_partial();
    test_loop_continue_break();
    test_switch();
    test_block_exit();
    test_return_before_barrier();
    test_shared_reduction();
    test_pingpong();
    test_deadlock();
    test_oob();
    test_division();
    test_step_budget();
    test_shuffle_reduction();
    test_ballot_synccheck();
    test_atomics_print();
    test_lines_local_const();
    test_switch_no_default();
    test_barrier_divergence_line();
    test_uniform();
    test_uniform_fused();
    test_unit_x_index();
    test_unit_x_loops();
    test_divrem_in_place();
    test_derived_presets();
    test_slot_allocation();
    test_more_atomics_misaligned();
    test_assert_trap();
    test_named_barrier();
    test_op_coverage_and_bad_code();
    return done_testing();
}
