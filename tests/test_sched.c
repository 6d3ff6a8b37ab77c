/*
 * test_sched.c - the cube scheduler: the example kernels (block reduction
 * over many planes with sync_cube, plane reduction, shared histogram),
 * planes ping-ponging a shared flag with volatile spin loops, deadlocks
 * and endless spins that must fault instead of hanging, barrier
 * divergence, named barriers (producer/consumer), the step budget, assert
 * and trap messages, and print output. Expected values are computed in C.
 */
#include "kern.h"

static cvm_status run_file(const char *path, const char *name, const cvm_launch_config *cfg,
                           const cvm_arg *args, uint32_t nargs, cvm_diag *d)
{
    cvm_module *mod = NULL;
    const cvm_kernel *k = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_module_load_file(kern_dev, path, &mod, d);
    if (st == CVM_OK)
        st = cvm_kernel_get(mod, name, &k, d);
    if (st == CVM_OK)
        st = cvm_launch(kern_stream(), k, cfg, args, nargs, d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), d);
    if (mod)
        cvm_module_free(mod);
    return st;
}

/* docs/examples/reduce_block.cbs and reduce_plane.cbs: integer-valued floats, so sums are exact. */
static void test_reductions(uint32_t width)
{
    enum { N = 300, GRID = 3, BLOCK = 128 };
    float in[N], blk[GRID], pl[GRID * BLOCK / 8];
    uint32_t n = N, nplanes = GRID * BLOCK / width;
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 37) % 101) - 50.0f;
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bb = kern_buf("out", sizeof blk, NULL),
               *bp = kern_buf("out", sizeof pl, NULL);
    cvm_arg a1[] = {kern_arg_buf(bi), kern_arg_buf(bb), kern_arg_u32(&n)};
    cvm_arg a2[] = {kern_arg_buf(bi), kern_arg_buf(bp), kern_arg_u32(&n)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cfg.plane_width = width;
    cvm_diag d;
    cvm_status st = run_file("docs/examples/reduce_block.cbs", "reduce_block", &cfg, a1, 3, &d);
    if (ok(st == CVM_OK, "reduce_block width %u: runs (%s)", width, d.message) &&
        kern_read(bb, blk, sizeof blk)) {
        int good = 1;
        for (int c = 0; c < GRID; c++) {
            float s = 0;
            for (int i = c * BLOCK; i < (c + 1) * BLOCK && i < N; i++)
                s += in[i];
            good &= blk[c] == s;
        }
        ok(good, "reduce_block width %u: one exact partial per cube over %u planes", width,
           BLOCK / width);
    }
    st = run_file("docs/examples/reduce_plane.cbs", "reduce_plane", &cfg, a2, 3, &d);
    if (ok(st == CVM_OK, "reduce_plane width %u: runs (%s)", width, d.message) &&
        kern_read(bp, pl, sizeof pl)) {
        int good = 1;
        for (uint32_t p = 0; p < nplanes; p++) {
            float s = 0;
            for (uint32_t i = p * width; i < (p + 1) * width && i < N; i++)
                s += in[i];
            good &= pl[p] == s;
        }
        ok(good, "reduce_plane width %u: one exact sum per plane", width);
    }
    cvm_buffer_free(bi);
    cvm_buffer_free(bb);
    cvm_buffer_free(bp);
}

static void test_histogram(void)
{
    enum { N = 1000 };
    uint32_t data[N], bins[64], want[64] = {0}, n = N;
    for (uint32_t i = 0; i < N; i++) {
        data[i] = i * 2654435761u;
        want[data[i] & 63]++;
    }
    cvm_buffer *bd = kern_buf("data", sizeof data, data), *bb = kern_buf("bins", sizeof bins, NULL);
    cvm_arg args[] = {kern_arg_buf(bd), kern_arg_buf(bb), kern_arg_u32(&n)};
    cvm_launch_config cfg = kern_cfg(8, 128);
    cvm_diag d;
    cvm_status st = run_file("docs/examples/histogram.cbs", "histogram", &cfg, args, 3, &d);
    if (ok(st == CVM_OK, "histogram: runs (%s)", d.message) && kern_read(bb, bins, sizeof bins))
        ok(memcmp(bins, want, sizeof bins) == 0, "histogram: shared then global atomics count exactly");
    cvm_buffer_free(bd);
    cvm_buffer_free(bb);
}

/*
 * Lane 0 of plane 0 and lane 0 of plane 1 take turns: plane p waits with a
 * volatile spin until flag == 2k + p, then sets it to 2k + p + 1.
 */
static const char pingpong_src[] =
    ".kernel pingpong\n.param out buffer u32 write\n.param rounds scalar u32\n.shared 16\n"
    ".plane_width 32\n"
    ".reg u32 %t, %lane, %plane, %k, %want, %f, %c0, %c1, %c2, %r\n"
    ".reg bool %p, %q\n.reg ptr.shared %s\n.reg ptr.global %po\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %lane, unit_pos_plane\n    sreg.u32 %plane, plane_pos\n"
    "    param.u32 %r, rounds, 0\n    const.u32 %c0, 0\n    const.u32 %c1, 1\n    const.u32 %c2, 2\n"
    "    const.ptr.shared %s, 0\n    eq.u32 %p, %t, %c0\n"
    "    if %p\n        st.volatile.u32 [%s], %c0\n    end\n"
    "    sync_cube\n"
    "    eq.u32 %p, %lane, %c0\n    lt.u32 %q, %plane, %c2\n    and.bool %p, %p, %q\n"
    "    if %p\n"
    "        const.u32 %k, 0\n"
    "        loop\n"
    "            mul.u32 %want, %k, %c2\n            add.u32 %want, %want, %plane\n"
    "            loop\n                ld.volatile.u32 %f, [%s]\n"
    "            continuing\n                eq.u32 %q, %f, %want\n                break_if %q\n"
    "            end\n"
    "            add.u32 %f, %want, %c1\n            st.volatile.u32 [%s], %f\n"
    "            add.u32 %k, %k, %c1\n"
    "        continuing\n            ge.u32 %q, %k, %r\n            break_if %q\n"
    "        end\n"
    "    end\n"
    "    sync_cube\n"
    "    eq.u32 %p, %t, %c0\n"
    "    if %p\n        ld.volatile.u32 %f, [%s]\n        param.ptr.global %po, out, 0\n"
    "        st.u32 [%po], %f\n    end\n"
    "    return\n.end\n";

static void test_pingpong(void)
{
    uint32_t rounds = 200, got = 0;
    cvm_buffer *b = kern_buf("out", 4, NULL);
    cvm_arg args[] = {kern_arg_buf(b), kern_arg_u32(&rounds)};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    cvm_status st = kern_exec(pingpong_src, "pingpong", &cfg, args, 2, &d);
    if (ok(st == CVM_OK, "pingpong: two planes alternate through a volatile flag (%s %s)",
           cvm_status_str(st), d.message) &&
        kern_read(b, &got, 4))
        is_int(got, 2 * rounds, "pingpong: flag ends at 2 x rounds");
    cvm_buffer_free(b);
}

/* Plane 0 spins on a flag that plane 1 sets only after a sync_cube plane 0 never reaches. */
static const char spin_src[] =
    ".kernel spin\n.param out buffer u32 write\n.shared 16\n.plane_width 32\n"
    ".reg u32 %plane, %f, %c0, %c1\n.reg bool %p, %q\n.reg ptr.shared %s\n"
    "    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n    const.u32 %c1, 1\n"
    "    const.ptr.shared %s, 0\n    eq.u32 %p, %plane, %c0\n"
    "    if %p\n"
    "        loop\n            ld.volatile.u32 %f, [%s]\n"
    "        continuing\n            eq.u32 %q, %f, %c1\n            break_if %q\n        end\n"
    "    else\n"
    "        sync_cube\n        st.volatile.u32 [%s], %c1\n"
    "    end\n"
    "    return\n.end\n";

/* Plane 0 waits at named barrier 1, plane 1 at named barrier 2: a barrier-wait cycle. */
static const char cycle_src[] =
    ".kernel cycle\n.param out buffer u32 write\n.plane_width 32\n"
    ".reg u32 %plane, %c0, %b1, %b2, %n\n.reg bool %p\n"
    "    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n    const.u32 %b1, 1\n"
    "    const.u32 %b2, 2\n    const.u32 %n, 64\n    eq.u32 %p, %plane, %c0\n"
    "    if %p\n        bar.sync %b1, %n\n    else\n        bar.sync %b2, %n\n    end\n"
    "    return\n.end\n";

static void test_hangs(void)
{
    cvm_buffer *b = kern_buf("out", 4, NULL);
    cvm_arg args[] = {kern_arg_buf(b)};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cfg.step_budget = 200000;
    cfg.timeout_s = 5;
    cvm_diag d;
    cvm_status st = kern_exec(spin_src, "spin", &cfg, args, 1, &d);
    ok(st == CVM_FAULT || st == CVM_TIMEOUT, "spin-wait on a flag set behind a barrier stops (%s: %s)",
       cvm_status_str(st), d.message);
    cfg = kern_cfg(1, 64);
    st = kern_exec(cycle_src, "cycle", &cfg, args, 1, &d);
    ok(st == CVM_FAULT && d.has_fault, "barrier-wait cycle is a deadlock fault (%s: %s)",
       cvm_status_str(st), d.message);
    cvm_buffer_free(b);
}

/* sync_cube under an if taken by units 0..4 only. */
static const char diverge_src[] =
    ".kernel diverge\n.param out buffer u32 write\n"
    ".reg u32 %t, %c5\n.reg bool %p\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c5, 5\n    lt.u32 %p, %t, %c5\n"
    "    if %p\n        sync_cube\n    end\n"
    "    return\n.end\n";

static void test_divergence(void)
{
    cvm_buffer *b = kern_buf("out", 4, NULL);
    cvm_arg args[] = {kern_arg_buf(b)};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    cvm_status st = kern_exec(diverge_src, "diverge", &cfg, args, 1, &d);
    /* a verifier that proves the divergence may reject it at load instead */
    ok((st == CVM_FAULT && d.has_fault) || st == CVM_VERIFY,
       "sync_cube under a lane-divergent if faults (%s: %s)", cvm_status_str(st), d.message);
    cvm_buffer_free(b);
}

/* Plane 0 produces buf[lane] and arrives at barrier 1; plane 1 waits there, then consumes. */
static const char prodcons_src[] =
    ".kernel prodcons\n.param out buffer u32 write\n.shared 256\n.plane_width 32\n"
    ".reg u32 %lane, %plane, %c0, %c3, %id, %n, %v\n.reg bool %p\n.reg i64 %off, %four\n"
    ".reg ptr.shared %s\n.reg ptr.global %po\n"
    "    sreg.u32 %lane, unit_pos_plane\n    sreg.u32 %plane, plane_pos\n    const.u32 %c0, 0\n"
    "    const.u32 %c3, 3\n    const.u32 %id, 1\n    const.u32 %n, 64\n"
    "    cvt.i64 %off, %lane\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    const.ptr.shared %s, 0\n    ptr.add.ptr.shared %s, %s, %off\n"
    "    eq.u32 %p, %plane, %c0\n"
    "    if %p\n"
    "        mul.u32 %v, %lane, %c3\n        add.u32 %v, %v, %id\n        st.u32 [%s], %v\n"
    "        bar.arrive %id, %n\n"
    "    else\n"
    "        bar.sync %id, %n\n        ld.u32 %v, [%s]\n"
    "        param.ptr.global %po, out, 0\n        ptr.add.ptr.global %po, %po, %off\n"
    "        st.u32 [%po], %v\n"
    "    end\n"
    "    return\n.end\n";

static void test_named_barriers(void)
{
    uint32_t got[32];
    cvm_buffer *b = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(b)};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    cvm_status st = kern_exec(prodcons_src, "prodcons", &cfg, args, 1, &d);
    if (ok(st == CVM_OK, "bar.arrive / bar.sync producer-consumer runs (%s %s)", cvm_status_str(st),
           d.message) &&
        kern_read(b, got, sizeof got)) {
        int good = 1;
        for (uint32_t l = 0; l < 32; l++)
            good &= got[l] == l * 3 + 1;
        ok(good, "consumer sees every value the producer wrote before bar.arrive");
    }
    cvm_buffer_free(b);
}

/* A loop whose exit condition is never true (n = 0 is passed): only the budget stops it. */
static const char endless_src[] =
    ".kernel endless\n.param n scalar u32\n"
    ".reg u32 %n, %k, %c1\n.reg bool %p\n"
    "    param.u32 %n, n, 0\n    const.u32 %c1, 1\n    const.u32 %k, 1\n"
    "    loop\n        add.u32 %k, %k, %c1\n        or.u32 %k, %k, %c1\n"
    "    continuing\n        eq.u32 %p, %k, %n\n        break_if %p\n    end\n"
    "    return\n.end\n";

static const char assert_src[] =
    ".kernel asrt\n.reg u32 %t, %c7\n.reg bool %p\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c7, 7\n    ne.u32 %p, %t, %c7\n"
    "    assert %p, \"unit seven is not welcome\"\n    return\n.end\n";

static const char trap_src[] =
    ".kernel trp\n.reg u32 %t, %c9\n.reg bool %p\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c9, 9\n    eq.u32 %p, %t, %c9\n"
    "    if %p\n        trap \"boom at nine\"\n    end\n    return\n.end\n";

static void test_faults(void)
{
    uint32_t zero = 0;
    cvm_arg args[] = {kern_arg_u32(&zero)};
    cvm_launch_config cfg = kern_cfg(1, 32);
    cfg.step_budget = 10000;
    cvm_diag d;
    cvm_status st = kern_exec(endless_src, "endless", &cfg, args, 1, &d);
    ok(st == CVM_FAULT && d.has_fault, "step budget stops an endless loop (%s: %s)",
       cvm_status_str(st), d.message);
    cfg = kern_cfg(1, 32);
    st = kern_exec(assert_src, "asrt", &cfg, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "unit seven is not welcome"),
       "assert faults with its message (%s)", d.message);
    ok(d.has_fault && d.fault.unit[0] == 7, "assert fault names unit 7 (got %u)", d.fault.unit[0]);
    st = kern_exec(trap_src, "trp", &cfg, NULL, 0, &d);
    ok(st == CVM_FAULT && strstr(d.message, "boom at nine"), "trap faults with its message (%s)",
       d.message);
    ok(d.has_fault && d.fault.unit[0] == 9, "trap fault names unit 9 (got %u)", d.fault.unit[0]);
}

static const char print_src[] =
    ".kernel prt\n.reg u32 %t, %c3\n.reg i32 %neg\n.reg bool %p\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c3, 3\n    lt.u32 %p, %t, %c3\n"
    "    cvt.i32 %neg, %t\n    neg.i32 %neg, %neg\n"
    "    if %p\n        print \"[u=%u n=%d]\", %t, %neg\n    end\n    return\n.end\n";

static void test_print(void)
{
    cvm_launch_config cfg = kern_cfg(1, 8);
    cvm_diag d;
    cvm_status st = kern_exec(print_src, "prt", &cfg, NULL, 0, &d);
    const char *out = st == CVM_OK ? cvm_stream_output(kern_stream()) : "";
    ok(st == CVM_OK, "print kernel runs (%s)", d.message);
    ok(out && strstr(out, "[u=0 n=0]") && strstr(out, "[u=1 n=-1]") && strstr(out, "[u=2 n=-2]"),
       "print output of every active unit reaches cvm_stream_output");
    ok(out && !strstr(out, "[u=3"), "inactive units print nothing");
    if (out)
        diag("output: %s", out);
}


/* sync_cube.count/.and/.or: every unit gets the cube-wide count, and, or of (t % 3 == 0). */
static const char syncpred_src[] =
    ".kernel syncpred\n.param out buffer u32 write\n"
    ".reg u32 %t, %c3, %m, %zero, %cnt, %a32, %o32, %idx, %three\n"
    ".reg bool %p, %a, %o\n.reg i64 %off, %c12\n.reg ptr.global %po\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %c3, 3\n    const.u32 %zero, 0\n"
    "    rem.u32 %m, %t, %c3\n    eq.u32 %p, %m, %zero\n"
    "    sync_cube.count %cnt, %p\n    sync_cube.and %a, %p\n    sync_cube.or %o, %p\n"
    "    cvt.u32 %a32, %a\n    cvt.u32 %o32, %o\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %off, %t\n    const.i64 %c12, 12\n"
    "    mul.i64 %off, %off, %c12\n    ptr.add.ptr.global %po, %po, %off\n"
    "    st.u32 [%po], %cnt\n    const.i64 %off, 4\n    ptr.add.ptr.global %po, %po, %off\n"
    "    st.u32 [%po], %a32\n    ptr.add.ptr.global %po, %po, %off\n    st.u32 [%po], %o32\n"
    "    return\n.end\n";

static void test_syncpred(uint32_t units)
{
    uint32_t got[3 * 200];
    cvm_buffer *b = kern_buf("out", 12u * units, NULL);
    cvm_arg args[] = {kern_arg_buf(b)};
    cvm_launch_config cfg = kern_cfg(1, units);
    cvm_diag d;
    cvm_status st = kern_exec(syncpred_src, "syncpred", &cfg, args, 1, &d);
    uint32_t want_count = (units + 2) / 3; /* t = 0, 3, 6, ... below units */
    uint32_t want_and = units == 1, want_or = 1;
    int good = st == CVM_OK && kern_read(b, got, 12u * units);
    for (uint32_t t = 0; good && t < units; t++)
        good = got[3 * t] == want_count && got[3 * t + 1] == want_and && got[3 * t + 2] == want_or;
    ok(good, "sync_cube.count/.and/.or over %u units: %u, %u, %u on every unit (%s)", units,
       want_count, want_and, want_or, d.message);
    cvm_buffer_free(b);
}

/*
 * The "last cube" reduction: each cube stores a partial sum, issues
 * fence.acq_rel.device, then takes a ticket with atom.add; the cube that
 * draws the last ticket adds all partials. Checks fence + atomics across cubes.
 */
static const char lastcube_src[] =
    ".kernel lastcube\n.param part buffer u32 readwrite\n.param ticket buffer u32 readwrite\n"
    ".param total buffer u32 write\n"
    ".reg u32 %t, %c, %g, %v, %one, %zero, %old, %last, %i, %sum, %x\n"
    ".reg bool %p, %q\n.reg i64 %off, %four\n.reg ptr.global %pp, %pt, %ps, %pi\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %g, cube_count.x\n"
    "    const.u32 %one, 1\n    const.u32 %zero, 0\n    const.i64 %four, 4\n"
    "    eq.u32 %p, %t, %zero\n"
    "    if %p\n"
    "        mul.u32 %v, %c, %c\n        add.u32 %v, %v, %one\n"
    "        param.ptr.global %pp, part, 0\n        cvt.i64 %off, %c\n        mul.i64 %off, %off, %four\n"
    "        ptr.add.ptr.global %pi, %pp, %off\n        st.u32 [%pi], %v\n"
    "        fence.acq_rel.device\n"
    "        param.ptr.global %pt, ticket, 0\n"
    "        atom.add.acq_rel.device.u32 %old, [%pt], %one\n"
    "        sub.u32 %last, %g, %one\n        eq.u32 %q, %old, %last\n"
    "        if %q\n"
    "            fence.acq_rel.device\n            const.u32 %sum, 0\n            const.u32 %i, 0\n"
    "            loop\n                ge.u32 %q, %i, %g\n                if %q\n                    break\n                end\n"
    "                cvt.i64 %off, %i\n                mul.i64 %off, %off, %four\n"
    "                ptr.add.ptr.global %pi, %pp, %off\n                ld.u32 %x, [%pi]\n"
    "                add.u32 %sum, %sum, %x\n                add.u32 %i, %i, %one\n            end\n"
    "            param.ptr.global %ps, total, 0\n            st.u32 [%ps], %sum\n"
    "        end\n"
    "    end\n"
    "    return\n.end\n";

static void test_lastcube(void)
{
    enum { G = 37 };
    uint32_t total = 0, ticket = 0, want = 0;
    for (uint32_t c = 0; c < G; c++)
        want += c * c + 1;
    cvm_buffer *bp = kern_buf("part", 4 * G, NULL), *bt = kern_buf("ticket", 4, NULL),
               *bs = kern_buf("total", 4, NULL);
    cvm_arg args[] = {kern_arg_buf(bp), kern_arg_buf(bt), kern_arg_buf(bs)};
    cvm_launch_config cfg = kern_cfg(G, 32);
    cvm_diag d;
    cvm_status st = kern_exec(lastcube_src, "lastcube", &cfg, args, 3, &d);
    if (ok(st == CVM_OK, "lastcube: fence + ticket launch runs (%s %s)", cvm_status_str(st),
           d.message) &&
        kern_read(bs, &total, 4) && kern_read(bt, &ticket, 4)) {
        is_int(ticket, G, "lastcube: every cube drew a ticket");
        is_int(total, want, "lastcube: the last cube sums every partial (sum of c*c+1)");
    }
    cvm_buffer_free(bp);
    cvm_buffer_free(bt);
    cvm_buffer_free(bs);
}

int main(void)
{
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    test_reductions(32);
    test_reductions(8);
    test_histogram();
    test_pingpong();
    test_hangs();
    test_divergence();
    test_named_barriers();
    test_faults();
    test_print();
    test_syncpred(1);
    test_syncpred(64);
    test_syncpred(100);
    test_lastcube();
    kern_close();
    return done_testing();
}
