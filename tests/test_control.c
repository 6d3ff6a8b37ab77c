/*
 * test_control.c - structured control flow under divergence (docs/design.md
 * "The bytecode" item 4): if/else, loop/continuing with break, break_if and
 * continue, switch with case lists, fallthrough and default, block/exit,
 * return, and return before sync_cube. Every kernel computes a per-unit
 * value v from the unit index t with lane-dependent control flow and
 * stores it to out[t]; each has a plain C function below that runs the same
 * per-unit program, and the test compares all units at several plane
 * widths (so the same program diverges inside planes of 8, 32 and 64).
 */
#include "kern.h"

/* Parameters, the common registers, and v = t. */
#define HEAD(name)                                                                         \
    ".kernel " name "\n.param out buffer u32 write\n"
#define PRO                                                                                \
    ".reg u32 %t, %v, %k, %m, %c0, %c1, %tmp\n"                                            \
    ".reg bool %p, %q\n.reg i64 %off, %four\n.reg ptr.global %po\n"                        \
    "    sreg.u32 %t, unit_pos.x\n    mov.u32 %v, %t\n"                                    \
    "    const.u32 %c0, 0\n    const.u32 %c1, 1\n"
/* out[t] = v */
#define STORE                                                                              \
    "    cvt.i64 %off, %t\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"        \
    "    param.ptr.global %po, out, 0\n    ptr.add.ptr.global %po, %po, %off\n"            \
    "    st.u32 [%po], %v\n"
#define TAIL "    return\n.end\n"

/* ---- if/else, nested, and an if no lane takes ---- */
static const char if_src[] = HEAD("ifs") PRO
    "    const.u32 %tmp, 1\n    and.u32 %m, %t, %tmp\n    ne.u32 %p, %m, %c0\n"
    "    if %p\n"
    "        const.u32 %tmp, 3\n        rem.u32 %m, %t, %tmp\n        eq.u32 %q, %m, %c0\n"
    "        if %q\n"
    "            const.u32 %tmp, 100\n            add.u32 %v, %v, %tmp\n"
    "        else\n"
    "            const.u32 %tmp, 200\n            add.u32 %v, %v, %tmp\n"
    "        end\n"
    "    else\n"
    "        const.u32 %tmp, 1000\n        add.u32 %v, %v, %tmp\n"
    "        const.u32 %tmp, 10\n        lt.u32 %q, %t, %tmp\n"
    "        if %q\n            add.u32 %v, %v, %v\n        end\n"
    "    end\n"
    "    const.u32 %tmp, 1000\n    gt.u32 %p, %t, %tmp\n"
    "    if %p\n        const.u32 %v, 5\n    end\n"
    STORE TAIL;

static uint32_t if_sim(uint32_t t)
{
    uint32_t v = t;
    if (t & 1) {
        v += (t % 3 == 0) ? 100 : 200;
    } else {
        v += 1000;
        if (t < 10)
            v += v;
    }
    return v;
}

/* ---- for (k = 0; k < t % 7; k++) { if (k & 1) continue; v += k + 16; } ---- */
static const char for_src[] = HEAD("forloop") PRO
    "    const.u32 %tmp, 7\n    rem.u32 %m, %t, %tmp\n    const.u32 %k, 0\n"
    "    loop\n"
    "        ge.u32 %p, %k, %m\n        if %p\n            break\n        end\n"
    "        and.u32 %tmp, %k, %c1\n        ne.u32 %q, %tmp, %c0\n"
    "        if %q\n            continue\n        end\n"
    "        add.u32 %v, %v, %k\n        const.u32 %tmp, 16\n        add.u32 %v, %v, %tmp\n"
    "    continuing\n"
    "        add.u32 %k, %k, %c1\n"
    "    end\n"
    STORE TAIL;

static uint32_t for_sim(uint32_t t)
{
    uint32_t v = t;
    for (uint32_t k = 0; k < t % 7; k++) {
        if (k & 1)
            continue;
        v += k + 16;
    }
    return v;
}

/* ---- do { v += 3; k++; } while (k < t % 5) via break_if ---- */
static const char dowhile_src[] = HEAD("dowhile") PRO
    "    const.u32 %tmp, 5\n    rem.u32 %m, %t, %tmp\n    const.u32 %k, 0\n"
    "    loop\n"
    "        const.u32 %tmp, 3\n        add.u32 %v, %v, %tmp\n        add.u32 %k, %k, %c1\n"
    "    continuing\n"
    "        ge.u32 %p, %k, %m\n        break_if %p\n"
    "    end\n"
    STORE TAIL;

static uint32_t dowhile_sim(uint32_t t)
{
    uint32_t v = t, k = 0;
    do {
        v += 3;
        k++;
    } while (k < t % 5);
    return v;
}

/*
 * ---- a switch inside a loop; break inside the switch leaves only the
 * switch; case lists, fallthrough, default, implicit end of a case ----
 */
static const char switch_src[] = HEAD("switchloop") PRO
    "    const.u32 %k, 0\n"
    "    loop\n"
    "        add.u32 %m, %t, %k\n        const.u32 %tmp, 5\n        rem.u32 %m, %m, %tmp\n"
    "        switch %m\n"
    "        case 0\n"
    "            add.u32 %v, %v, %c1\n"
    "            break\n"
    "            const.u32 %tmp, 999\n            add.u32 %v, %v, %tmp\n"
    "        case 1, 2\n"
    "            const.u32 %tmp, 10\n            add.u32 %v, %v, %tmp\n"
    "            fallthrough\n"
    "        case 3\n"
    "            const.u32 %tmp, 100\n            add.u32 %v, %v, %tmp\n"
    "        default\n"
    "            const.u32 %tmp, 1000\n            add.u32 %v, %v, %tmp\n"
    "        end\n"
    "        const.u32 %tmp, 5\n        add.u32 %v, %v, %tmp\n"
    "        add.u32 %k, %k, %c1\n        const.u32 %tmp, 3\n        ge.u32 %p, %k, %tmp\n"
    "        if %p\n            break\n        end\n"
    "    end\n"
    "    const.u32 %tmp, 4\n    rem.u32 %m, %t, %tmp\n"
    "    switch %m\n"
    "    case 2\n"
    "        const.u32 %tmp, 70000\n        add.u32 %v, %v, %tmp\n"
    "    end\n"
    STORE TAIL;

static uint32_t switch_sim(uint32_t t)
{
    uint32_t v = t;
    for (uint32_t k = 0; k < 3; k++) {
        switch ((t + k) % 5) {
        case 0:
            v += 1;
            break;
        case 1:
        case 2:
            v += 10;
            /* fall through */
        case 3:
            v += 100;
            break;
        default:
            v += 1000;
            break;
        }
        v += 5;
    }
    if (t % 4 == 2)
        v += 70000;
    return v;
}

/* ---- block/exit: exit 1 leaves two blocks, exit 0 the inner one ---- */
static const char block_src[] = HEAD("blocks") PRO
    "    const.u32 %tmp, 3\n    rem.u32 %m, %t, %tmp\n"
    "    block\n"
    "        add.u32 %v, %v, %c1\n"
    "        block\n"
    "            const.u32 %tmp, 2\n            add.u32 %v, %v, %tmp\n"
    "            eq.u32 %p, %m, %c0\n            if %p\n                exit 1\n            end\n"
    "            const.u32 %tmp, 4\n            add.u32 %v, %v, %tmp\n"
    "            eq.u32 %p, %m, %c1\n            if %p\n                exit 0\n            end\n"
    "            const.u32 %tmp, 8\n            add.u32 %v, %v, %tmp\n"
    "        end\n"
    "        const.u32 %tmp, 16\n        add.u32 %v, %v, %tmp\n"
    "    end\n"
    "    const.u32 %tmp, 32\n    add.u32 %v, %v, %tmp\n"
    STORE TAIL;

static uint32_t block_sim(uint32_t t)
{
    uint32_t v = t + 1 + 2;
    if (t % 3 == 0)
        goto out;
    v += 4;
    if (t % 3 == 1)
        goto inner_end;
    v += 8;
inner_end:
    v += 16;
out:
    return v + 32;
}

/* ---- exit from inside a loop inside a block ---- */
static const char loopexit_src[] = HEAD("loopexit") PRO
    "    block\n"
    "        const.u32 %tmp, 6\n        rem.u32 %m, %t, %tmp\n        const.u32 %k, 0\n"
    "        loop\n"
    "            eq.u32 %p, %k, %m\n            if %p\n                exit 0\n            end\n"
    "            add.u32 %v, %v, %c1\n            add.u32 %k, %k, %c1\n"
    "            const.u32 %tmp, 4\n            ge.u32 %q, %k, %tmp\n"
    "            if %q\n                break\n            end\n"
    "        end\n"
    "        const.u32 %tmp, 100\n        add.u32 %v, %v, %tmp\n"
    "    end\n"
    "    const.u32 %tmp, 1000\n    add.u32 %v, %v, %tmp\n"
    STORE TAIL;

static uint32_t loopexit_sim(uint32_t t)
{
    uint32_t v = t;
    for (uint32_t k = 0;; ) {
        if (k == t % 6)
            goto done;
        v++;
        k++;
        if (k >= 4)
            break;
    }
    v += 100;
done:
    return v + 1000;
}

/* ---- return in one branch; later ends must not revive returned lanes ---- */
static const char ret_src[] = HEAD("retbranch") PRO
    "    and.u32 %m, %t, %c1\n    ne.u32 %p, %m, %c0\n"
    "    if %p\n        const.u32 %v, 7\n" STORE "        return\n    end\n"
    "    const.u32 %tmp, 4\n    rem.u32 %m, %t, %tmp\n    eq.u32 %q, %m, %c0\n"
    "    if %q\n        add.u32 %v, %v, %c1\n"
    "    else\n        const.u32 %tmp, 2\n        add.u32 %v, %v, %tmp\n    end\n"
    "    const.u32 %k, 0\n"
    "    loop\n"
    "        const.u32 %tmp, 10\n        add.u32 %v, %v, %tmp\n        add.u32 %k, %k, %c1\n"
    "    continuing\n"
    "        const.u32 %tmp, 3\n        ge.u32 %p, %k, %tmp\n        break_if %p\n"
    "    end\n"
    STORE TAIL;

static uint32_t ret_sim(uint32_t t)
{
    if (t & 1)
        return 7;
    return t + (t % 4 == 0 ? 1 : 2) + 30;
}

/* ---- return from inside a loop ---- */
static const char loopret_src[] = HEAD("loopret") PRO
    "    const.u32 %tmp, 8\n    rem.u32 %m, %t, %tmp\n    const.u32 %k, 0\n"
    "    loop\n"
    "        add.u32 %v, %v, %c1\n"
    "        eq.u32 %p, %k, %m\n        if %p\n" STORE "            return\n        end\n"
    "        add.u32 %k, %k, %c1\n        const.u32 %tmp, 5\n        ge.u32 %q, %k, %tmp\n"
    "        if %q\n            break\n        end\n"
    "    end\n"
    "    const.u32 %tmp, 500\n    add.u32 %v, %v, %tmp\n"
    STORE TAIL;

static uint32_t loopret_sim(uint32_t t)
{
    uint32_t m = t % 8;
    return m < 5 ? t + m + 1 : t + 5 + 500;
}

/*
 * ---- units t >= 40 return before a sync_cube (one plane partly, the
 * others wholly at width 32 with 96 units); the rest exchange values
 * through shared memory across it ----
 */
static const char early_src[] = ".kernel early\n.param out buffer u32 write\n.shared 512\n" PRO
    ".reg ptr.shared %sb, %sp\n"
    "    const.u32 %tmp, 40\n    ge.u32 %p, %t, %tmp\n"
    "    if %p\n        const.u32 %v, 0xdead\n" STORE "        return\n    end\n"
    "    const.ptr.shared %sb, 0\n"
    "    cvt.i64 %off, %t\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.shared %sp, %sb, %off\n    st.u32 [%sp], %t\n"
    "    sync_cube\n"
    "    add.u32 %k, %t, %c1\n    const.u32 %tmp, 40\n    rem.u32 %k, %k, %tmp\n"
    "    cvt.i64 %off, %k\n    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.shared %sp, %sb, %off\n    ld.u32 %v, [%sp]\n"
    STORE TAIL;

static uint32_t early_sim(uint32_t t) { return t >= 40 ? 0xdead : (t + 1) % 40; }

typedef uint32_t (*sim_fn)(uint32_t t);

/* Runs `name` with one cube of `block` units at plane width `width`; compares with `sim`. */
static void check(const char *src, const char *name, sim_fn sim, uint32_t block, uint32_t width)
{
    uint32_t got[128], want[128];
    cvm_diag d;
    cvm_buffer *out = kern_buf("out", block * 4u, NULL);
    if (!out) {
        ok(0, "%s width %u: buffer", name, width);
        return;
    }
    cvm_arg args[] = {kern_arg_buf(out)};
    cvm_launch_config cfg = kern_cfg(1, block);
    cfg.plane_width = width;
    cvm_status st = kern_exec(src, name, &cfg, args, 1, &d);
    if (!ok(st == CVM_OK, "%s width %u: runs", name, width)) {
        diag("  %s: %s", cvm_status_str(st), d.message);
        cvm_buffer_free(out);
        return;
    }
    int same = kern_read(out, got, block * 4u);
    uint32_t bad = block;
    for (uint32_t t = 0; t < block; t++) {
        want[t] = sim(t);
        if (same && got[t] != want[t] && bad == block)
            bad = t;
    }
    if (!ok(same && bad == block, "%s width %u: every unit matches the C model", name, width) &&
        bad < block)
        diag("  unit %u: got %u, want %u", bad, got[bad], want[bad]);
    cvm_buffer_free(out);
}

int main(void)
{
    static const struct {
        const char *src, *name;
        sim_fn sim;
        uint32_t block;
    } cases[] = {
        {if_src, "ifs", if_sim, 64},
        {for_src, "forloop", for_sim, 64},
        {dowhile_src, "dowhile", dowhile_sim, 64},
        {switch_src, "switchloop", switch_sim, 64},
        {block_src, "blocks", block_sim, 64},
        {loopexit_src, "loopexit", loopexit_sim, 64},
        {ret_src, "retbranch", ret_sim, 64},
        {loopret_src, "loopret", loopret_sim, 64},
        {early_src, "early", early_sim, 96},
    };
    static const uint32_t widths[] = {32, 8, 64};
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            check(cases[i].src, cases[i].name, cases[i].sim, cases[i].block, widths[w]);
    kern_close();
    return done_testing();
}
