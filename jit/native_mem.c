/*
 * native_mem.c - the native tier's loads and stores (native.h): a line-1
 * ld or st of global or shared memory as LLVM IR. Every access first
 * takes a quick path where its lanes pass a bounds and alignment test
 * that the interpreter's checks imply: for a global `P + i * size`
 * (affine_address) a range of i that depends on P alone (quick_range);
 * with every lane active and i known consecutive, only i's scalar is
 * tested (full_plane); else a vector access when the lanes are
 * consecutive, one scalar load when they read one element, two when the
 * plane's halves read two runs, else a gather or scatter of the lanes
 * that pass (for shared memory at a per-lane pointer plus one value, the
 * forms, lanes a constant step apart among them, tested on the per-lane
 * part alone: shared_split); an access
 * that fails the test runs through the interpreter, which reports its
 * fault.
 */
#include "native.h"

/* The alignment an access's lanes need: its own, else its element's
 * size up to 16 bytes. */
static uint64_t access_align(const cvm_vm_dinsn *in)
{
    return in->align_log2 ? UINT64_C(1) << in->align_log2 : (in->esz < 16 ? in->esz : 16);
}

/* The alignment in's quick paths test on an offset made from slots a
 * and b (a sum: UINT32_MAX for none): in's own, or 1 where every value
 * of both is a multiple of it wherever in runs (gen's tz). */
static uint64_t align_to_test(const gen *g, const cvm_vm_dinsn *in, uint32_t a, uint32_t b)
{
    const uint64_t align = access_align(in);
    const unsigned need = (unsigned)__builtin_ctzll(align);
    const bool known = (align & (align - 1)) == 0 && a < g->nslots && g->tz[a] >= need &&
                       (b == UINT32_MAX || (b < g->nslots && g->tz[b] >= need));
    return known ? 1 : align;
}

/* ok, and x a multiple of align (a power of two; 1: ok itself). */
static LLVMValueRef and_aligned(const gen *g, LLVMValueRef ok, LLVMValueRef x, uint64_t align)
{
    if (align <= 1)
        return ok;
    LLVMValueRef low = llvm.BuildAnd(g->B, x, llvm.ConstInt(llvm.TypeOf(x), align - 1, false), "");
    return llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, low, llvm.ConstNull(llvm.TypeOf(x)), ""), "");
}

/* Whether the code being emitted is inside a loop. */
static bool in_loop(const gen *g)
{
    for (unsigned d = 0; d < g->depth; d++)
        if (g->con[d].kind == CVM_VM_F_LOOP)
            return true;
    return false;
}

/*
 * A plane's consecutive global load of `span` bytes at `first` inside a
 * loop also asks for the span after it (up to four cache lines): the next
 * plane's or the next cube's part of the same rows, which the hardware
 * prefetchers miss when a cube's rows lie far apart. A transpose's cube
 * reads 32 rows 16 KiB apart, 128 bytes of each, and the next cube (the
 * same worker's next, in order) the 128 bytes after: 4096^2 with two
 * threads went from 19.2-23.1 to 15.9-20.6 ms (medians, six interleaved
 * rounds, faster in each). Outside loops a plane's code is short and the
 * next plane reads that span at once, so asking early gains nothing: vadd
 * was no faster, if anything slower (docs/performance.md). Prefetches do
 * not fault, so the end of a buffer needs no test.
 */
static void prefetch_next(const gen *g, LLVMValueRef first, uint64_t span)
{
    for (uint64_t o = 0; o < span && o < 256; o += 64) {
        LLVMValueRef a = llvm.BuildAdd(g->B, first, c64(g, span + o), "");
        intrinsic(g, "llvm.prefetch", (LLVMTypeRef[]){g->i8p}, 1,
                  (LLVMValueRef[]){llvm.BuildIntToPtr(g->B, a, g->i8p, ""), c32(g, 0), c32(g, 3), c32(g, 1)}, 4);
    }
}

/* An address the quick path can test without its vector: global pointer
 * P + ext(I) * esz, computed in the access's own run of code (so for the
 * same active lanes) by ptr.add of a plane-uniform P (the verifier's
 * fact, CVM_VM_UNI_A) and an offset mul of a 64-bit cvt of the 32-bit I
 * by the constant esz, P and I unchanged since (or of a 64-bit I itself:
 * `wide`). Then the lanes are consecutive when I's are, which is one
 * compare shared by every access indexed by I in the run (32-bit where I
 * is), lane f's address is scalar arithmetic (the frontend's code for
 * a[i]), and the bounds are a range of I that depends on P only. */
typedef struct affine {
    uint32_t P, I;
    bool sext, wide; /* wide: I is the 64-bit offset in elements itself (no cvt) */
    /* split (a wide I only): I = U + ext(J) of a 64-bit U and a 32-bit J
     * (jsext: sign-extended), made in the run, neither changed since: a
     * convolution's ((b * ci + c) * h + yy) * w + xx */
    bool split, jsext;
    uint32_t U, J;
} affine;

/*
 * Whether the ptr.add at pc (a shared pointer) is left to the access
 * that reads it: its register, local, is read once, by a shared ld or st
 * of the same run that takes it as its pointer, with the add's operands
 * kept. shared_split's paths read those operands, not the add's lanes,
 * which only its general path needs: made where the add stood, LLVM kept
 * them on every path (matmul's `kk` round made ta's and tb's, 12
 * instructions). cvm_nat_memory makes them (deferred_lanes).
 */
bool cvm_nat_deferred_add(const gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *add = &g->code[pc];
    const uint32_t d = add->d;
    if (add->h != CVM_OP_PTR_ADD || add->elem != CVM_T_PTR_SHARED || add->line != 1 || d >= g->nslots ||
        !g->local[d] || g->puni[d] || g->cst[d] || g->remat[d] || !g->reads_at ||
        g->reads_at[d + 1] - g->reads_at[d] != 1)
        return false;
    const uint32_t at = g->reads[g->reads_at[d]];
    const cvm_vm_dinsn *in = &g->code[at];
    return at > pc && (in->h == CVM_OP_LD || in->h == CVM_OP_ST) && in->line == 1 && in->elem != CVM_T_BOOL &&
           in->ea == CVM_T_PTR_SHARED && in->a == d && (in->h == CVM_OP_LD ? in->d : in->b) != d &&
           cvm_nat_run_writer(g, at, d) == pc && cvm_nat_kept(g, pc, at, add->a) &&
           cvm_nat_kept(g, pc, at, add->b);
}

/* The lanes of the deferred add at pa (cvm_nat_deferred_add), made here
 * for the access that reads them next. */
static void deferred_lanes(gen *g, uint32_t pa)
{
    const cvm_vm_dinsn *add = &g->code[pa];
    LLVMValueRef r = cvm_nat_ptr_add(g, add);
    slot_put(g, add->d, r);
    forward(g, add->d, F_VAR, NULL, r);
}

/* The 64-bit constant register k holds wherever it is read, if it has one
 * (at pc 0 no run of code comes before: its only writer). */
static bool const_slot(const gen *g, uint32_t k, uint64_t *v)
{
    int64_t c;
    if (k >= g->nslots || cvm_vm_esz(g->slot_elem[k]) != 8 || !cvm_nat_const_at(g, 0, k, &c))
        return false;
    *v = (uint64_t)c;
    return true;
}

static bool affine_address(const gen *g, uint32_t pc, affine *af)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    af->split = false;
    const uint32_t pa = cvm_nat_run_writer(g, pc, in->a);
    if (pa == UINT32_MAX)
        return false;
    const cvm_vm_dinsn *add = &g->code[pa];
    if (add->h != CVM_OP_PTR_ADD || add->elem != CVM_T_PTR_GLOBAL || add->line != 1 ||
        !(add->uni & CVM_VM_UNI_A) || (add->eb != CVM_T_I64 && add->eb != CVM_T_U64) ||
        !cvm_nat_kept(g, pa, pc, add->a))
        return false;
    const uint32_t pm = cvm_nat_run_writer(g, pa, add->b);
    if (pm == UINT32_MAX)
        return false;
    const cvm_vm_dinsn *mul = &g->code[pm];
    uint64_t k;
    uint32_t x;
    if (mul->h != CVM_OP_MUL || mul->line != 1 || cvm_vm_esz(mul->elem) != 8 || !is_int(mul->elem))
        return false;
    if (const_slot(g, mul->b, &k))
        x = mul->a;
    else if (const_slot(g, mul->a, &k))
        x = mul->b;
    else
        return false;
    if (k != in->esz)
        return false;
    af->P = add->a;
    const uint32_t pcv = cvm_nat_run_writer(g, pm, x);
    const cvm_vm_dinsn *cvt = pcv == UINT32_MAX ? NULL : &g->code[pcv];
    if (cvt && cvt->h == CVM_OP_CVT && cvt->line == 1 &&
        (cvt->k == CVM_VM_CVT_SEXT32 || cvt->k == CVM_VM_CVT_ZEXT32) && cvm_nat_kept(g, pcv, pc, cvt->a)) {
        af->I = cvt->a;
        af->sext = cvt->k == CVM_VM_CVT_SEXT32;
        af->wide = false;
        return true;
    }
    /* else the 64-bit offset itself (pooling's ((b * h + y) * w + x) * c + ch) */
    if (x >= g->nslots || width_at(g, x) != 1 || !cvm_nat_kept(g, pm, pc, x))
        return false;
    af->I = x;
    af->sext = af->wide = true;
    const uint32_t pad = cvm_nat_run_writer(g, pm, x);
    const cvm_vm_dinsn *ad = pad == UINT32_MAX ? NULL : &g->code[pad];
    if (!ad || ad->h != CVM_OP_ADD || ad->line != 1 || cvm_vm_esz(ad->elem) != 8 || !is_int(ad->elem))
        return true;
    for (unsigned side = 0; side < 2 && !af->split; side++) {
        const uint32_t u = side ? ad->b : ad->a, e = side ? ad->a : ad->b, pe = cvm_nat_run_writer(g, pad, e);
        const cvm_vm_dinsn *cv = pe == UINT32_MAX ? NULL : &g->code[pe];
        if (cv && cv->h == CVM_OP_CVT && cv->line == 1 &&
            (cv->k == CVM_VM_CVT_SEXT32 || cv->k == CVM_VM_CVT_ZEXT32) && u < g->nslots && width_at(g, u) == 1 &&
            cvm_nat_kept(g, pad, pc, u) && cvm_nat_kept(g, pe, pc, cv->a)) {
            af->U = u, af->J = cv->a;
            af->jsext = cv->k == CVM_VM_CVT_SEXT32;
            af->split = true;
        }
    }
    return true;
}

/* The buffer table's entry for global pointer ptr's tag: out[0] the tag,
 * out[1] the entry's tag, out[2] its first address, out[3] its end for a
 * load (ld) or a store. */
static void buffer_of(const gen *g, LLVMValueRef ptr, bool ld, LLVMValueRef *out)
{
    LLVMValueRef t = llvm.BuildLShr(g->B, ptr, c64(g, CVM_VM_PTR_TAG_SHIFT), "");
    LLVMValueRef tab = load_fixed(g, g->x, offsetof(cvm_vm_exec, jtab), g->i8p);
    LLVMValueRef eoff = llvm.BuildMul(g->B, llvm.BuildURem(g->B, t, c64(g, CVM_JIT_TAB), ""),
                                     c64(g, sizeof(cvm_jit_region)), "");
    LLVMValueRef e = llvm.BuildGEP2(g->B, g->i8, tab, &eoff, 1, "");
    out[0] = t;
    out[1] = load_fixed(g, e, offsetof(cvm_jit_region, tag), g->i64);
    out[2] = load_fixed(g, e, offsetof(cvm_jit_region, lo), g->i64);
    out[3] = load_fixed(g, e, ld ? offsetof(cvm_jit_region, end) : offsetof(cvm_jit_region, wend), g->i64);
}

/* The buffer table's entry (buffer_of) for the pointer p of an access
 * (for a quick one, its P): a launch constant's is looked up once, at
 * the function's entry, and kept in g->cbuf; others here, into here. */
static LLVMValueRef *buffer_entry(gen *g, bool quick, const affine *af, LLVMValueRef p, bool ld, LLVMValueRef *here)
{
    LLVMValueRef *c = quick && g->cst[af->P] ? &g->cbuf[8 * af->P + 4 * ld] : NULL;
    if (c && !c[0]) {
        LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
        llvm.PositionBuilderAtEnd(g->B, g->entry);
        buffer_of(g, p, ld, c);
        llvm.PositionBuilderAtEnd(g->B, cur);
    }
    if (!c)
        buffer_of(g, p, ld, c = here);
    return c;
}

/* Index value x of an affine address (scalar or vector) as 64 bits. */
static LLVMValueRef index64(const gen *g, const affine *af, LLVMValueRef x, LLVMTypeRef t64)
{
    if (af->wide)
        return x;
    return af->sext ? llvm.BuildSExt(g->B, x, t64, "") : llvm.BuildZExt(g->B, x, t64, "");
}

/* The quick path's facts about P alone, from its table entry c
 * (buffer_of): out[0] whether P's tag names the entry and P's address is
 * an aligned element of the buffer; then the range [out[1], out[2]] of
 * x (signed, within 2^48 of 0 when out[0]) for which P + x * esz is an
 * element of it: loop-invariant where P is, so that in a loop each access
 * only compares its first and last lanes' x. */
static void quick_range(const gen *g, LLVMValueRef P, const LLVMValueRef *c, uint64_t esz, uint64_t align,
                        LLVMValueRef *out)
{
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMValueRef t = c[0], etag = c[1], lo = c[2], end = c[3];
    LLVMValueRef pa = llvm.BuildAnd(g->B, P, c64(g, low), ""), lim = llvm.BuildSub(g->B, end, c64(g, esz), "");
    LLVMValueRef ok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""),
                                    llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, end, c64(g, esz), ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, pa, lo, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntULE, pa, lim, ""), "");
    out[0] = and_aligned(g, ok, pa, align);
    out[1] = llvm.BuildSub(g->B, c64(g, 0), llvm.BuildUDiv(g->B, llvm.BuildSub(g->B, pa, lo, ""), c64(g, esz), ""), "");
    out[2] = llvm.BuildUDiv(g->B, llvm.BuildSub(g->B, lim, pa, ""), c64(g, esz), "");
}

/* Two-run loads (a plane's halves, H = W / 2 lanes each): lanes 0 and H
 * of V, each across its half. */
static LLVMValueRef half_heads(const gen *g, LLVMValueRef V)
{
    LLVMValueRef pick[CVM_BC_MAX_PLANE], undef = llvm.GetUndef(llvm.TypeOf(V));
    for (unsigned l = 0; l < g->W; l++)
        pick[l] = c32(g, l < g->W / 2 ? 0 : 1);
    LLVMValueRef two = llvm.BuildInsertElement(g->B, undef, llvm.BuildExtractElement(g->B, V, c32(g, 0), ""),
                                               c32(g, 0), "");
    two = llvm.BuildInsertElement(g->B, two, llvm.BuildExtractElement(g->B, V, c32(g, g->W / 2), ""), c32(g, 1), "");
    return llvm.BuildShuffleVector(g->B, two, undef, llvm.ConstVector(pick, g->W), "");
}

/* (l mod H) * k in each lane l, as integers of type t. */
static LLVMValueRef half_steps(const gen *g, LLVMTypeRef t, uint64_t k)
{
    LLVMValueRef step[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        step[l] = llvm.ConstInt(t, (l % (g->W / 2)) * k, false);
    return llvm.ConstVector(step, g->W);
}

/* The W lanes of two vectors of H: v0's, then v1's. */
static LLVMValueRef join_halves(const gen *g, LLVMValueRef v0, LLVMValueRef v1)
{
    LLVMValueRef whole[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        whole[l] = c32(g, l);
    return llvm.BuildShuffleVector(g->B, v0, v1, llvm.ConstVector(whole, g->W), "");
}

/* Whether the 32-bit offsets R are, in every lane, each half's first
 * plus (l mod H) * esz (*cons), or each half's first (*uni). */
static void half_forms(const gen *g, LLVMValueRef R, unsigned esz, LLVMValueRef *cons, LLVMValueRef *uni)
{
    LLVMValueRef base = half_heads(g, R);
    *cons = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, llvm.BuildICmp(g->B, LLVMIntNE, R,
                                   llvm.BuildAdd(g->B, base, half_steps(g, g->i32, esz), ""), "")), c64(g, 0), "");
    *uni = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, llvm.BuildICmp(g->B, LLVMIntNE, R, base, "")), c64(g, 0), "");
}

/* Goes on in a new block if c holds, else to `no`: the tests of a
 * quick path that a loop keeps come first, in their own branch, so that
 * a plane that fails them does not compute the others (LLVM kept the
 * order of a single `and`'s operands, testing an alignment first). */
static void only_if(gen *g, LLVMValueRef c, LLVMBasicBlockRef no)
{
    LLVMBasicBlockRef yes = block(g, "then");
    llvm.BuildCondBr(g->B, c, yes, no);
    llvm.PositionBuilderAtEnd(g->B, yes);
}

/* shared_halves' load (below), its runs' forms known: h0 and h1 the
 * halves' first offsets (32 bits) less u (32 bits, one value; NULL:
 * none); the load when cons or uni holds. The ends are tested in 64
 * bits, as the larger of h0 and h1 (which LLVM takes out of a loop that
 * keeps them) plus u: a sum past 2^32, which the 32-bit offsets would
 * wrap, is past the shared bytes and goes to `no`. */
static void halves_load(gen *g, const cvm_vm_dinsn *in, LLVMValueRef h0, LLVMValueRef h1, LLVMValueRef u,
                        uint64_t align, LLVMValueRef cons, LLVMValueRef uni, LLVMValueRef act, LLVMValueRef shared_p,
                        LLVMValueRef size, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    const unsigned W = g->W, H = W / 2, esz = in->esz;
    LLVMTypeRef st = scalar(g, in->elem), ht = llvm.VectorType(st, H);
    /* a form, every lane active (what a loop that keeps V keeps), then
     * each run inside the shared bytes, aligned */
    only_if(g, llvm.BuildAnd(g->B, all_lanes(g, act), llvm.BuildOr(g->B, cons, uni, ""), ""), no);
    LLVMValueRef w0 = llvm.BuildZExt(g->B, h0, g->i64, ""), w1 = llvm.BuildZExt(g->B, h1, g->i64, "");
    LLVMValueRef uz = u ? llvm.BuildZExt(g->B, u, g->i64, "") : c64(g, 0);
    LLVMValueRef o0 = llvm.BuildAdd(g->B, w0, uz, ""), o1 = llvm.BuildAdd(g->B, w1, uz, "");
    LLVMValueRef hi = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntUGT, w0, w1, ""), w0, w1, "");
    LLVMValueRef span = llvm.BuildSelect(g->B, cons, c64(g, (uint64_t)H * esz), c64(g, esz), "");
    LLVMValueRef ok = llvm.BuildICmp(g->B, LLVMIntULE, llvm.BuildAdd(g->B, llvm.BuildAdd(g->B, hi, span, ""), uz, ""),
                                     size, "");
    ok = and_aligned(g, ok, llvm.BuildOr(g->B, o0, o1, ""), align);
    LLVMBasicBlockRef bc = block(g, "runs"), bu = block(g, "runs1"), go = block(g, "halves");
    llvm.BuildCondBr(g->B, ok, go, no);
    llvm.PositionBuilderAtEnd(g->B, go);
    const uint32_t d = in->d;
    LLVMValueRef p0 = llvm.BuildGEP2(g->B, g->i8, shared_p, &o0, 1, ""), p1 = llvm.BuildGEP2(g->B, g->i8, shared_p, &o1, 1, "");
    llvm.BuildCondBr(g->B, cons, bc, bu);
    llvm.PositionBuilderAtEnd(g->B, bc);
    {
        LLVMTypeRef hp = llvm.PointerType(ht, 0);
        LLVMValueRef v0 = llvm.BuildLoad2(g->B, ht, llvm.BuildBitCast(g->B, p0, hp, ""), "");
        LLVMValueRef v1 = llvm.BuildLoad2(g->B, ht, llvm.BuildBitCast(g->B, p1, hp, ""), "");
        llvm.SetAlignment(v0, esz);
        llvm.SetAlignment(v1, esz);
        slot_put(g, d, join_halves(g, v0, v1));
        llvm.BuildBr(g->B, done);
    }
    llvm.PositionBuilderAtEnd(g->B, bu);
    {
        LLVMTypeRef sp = llvm.PointerType(st, 0);
        LLVMValueRef s0 = llvm.BuildLoad2(g->B, st, llvm.BuildBitCast(g->B, p0, sp, ""), "");
        LLVMValueRef s1 = llvm.BuildLoad2(g->B, st, llvm.BuildBitCast(g->B, p1, sp, ""), "");
        llvm.SetAlignment(s0, esz);
        llvm.SetAlignment(s1, esz);
        LLVMValueRef v = llvm.BuildInsertElement(g->B, llvm.GetUndef(vec(g, in->elem)), s0, c32(g, 0), "");
        v = llvm.BuildInsertElement(g->B, v, s1, c32(g, H), "");
        slot_put(g, d, half_heads(g, v));
        llvm.BuildBr(g->B, done);
    }
}

/* A shared-memory load whose plane reads two runs, every lane active:
 * each half of the lanes at consecutive offsets, or at one offset (a
 * 16x16 cube's plane of 32 covers two rows of a tile: matmul's tb[k][tx]
 * and ta[ty][k]). Two vector or two scalar loads instead of a gather; to
 * `done`, or to `no` for the per-lane test. R: the lanes' 32-bit offsets;
 * size: the cube's shared bytes (at most 2^31, so the offsets and the
 * sums below cannot wrap in 64 bits). */
static void shared_halves(gen *g, const cvm_vm_dinsn *in, LLVMValueRef R, LLVMValueRef act,
                          LLVMValueRef shared_p, LLVMValueRef size, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    LLVMValueRef cons, uni;
    half_forms(g, R, in->esz, &cons, &uni);
    halves_load(g, in, llvm.BuildExtractElement(g->B, R, c32(g, 0), ""),
                llvm.BuildExtractElement(g->B, R, c32(g, g->W / 2), ""), NULL, align_to_test(g, in, in->a, UINT32_MAX),
                cons, uni, act, shared_p, size, no, done);
}

/*
 * A guess at the step between neighbouring lanes of what register slot
 * holds at pc (lane l holding lane 0's value + l * *k), from the writers
 * that make it: in pc's run of code, else a launch constant's or a
 * plane-uniform register's (no step) or gen's remat (made from unit
 * positions), as in cubes of rows (unit_pos.x consecutive, .y and .z one
 * value). Transpose's `&tile[threadIdx.x][0]` steps by 132 bytes. Only a
 * guess (the cube may not be of rows, conversions are not followed
 * modulo their widths): whoever relies on it tests the lanes. False: no
 * guess.
 */
static bool lane_step(const gen *g, uint32_t pc, uint32_t slot, unsigned depth, int64_t *k)
{
    if (slot >= g->nslots || width_at(g, slot) != 1 || depth > 8)
        return false;
    uint32_t w = cvm_nat_run_writer(g, pc, slot);
    if (w == UINT32_MAX) {
        if (g->cst[slot] || g->puni[slot]) {
            *k = 0;
            return true;
        }
        if (!g->remat[slot])
            return false;
        w = g->remat[slot] - 1;
    }
    const cvm_vm_dinsn *in = &g->code[w];
    int64_t ka, kb, c;
    if (in->line != 1)
        return false;
    switch (in->h) {
    case CVM_OP_CONST: case CVM_OP_PARAM:
        *k = 0;
        return true;
    case CVM_OP_SREG:
        *k = in->aux == CVM_SREG_UNIT_POS_X;
        return true;
    case CVM_OP_MOV: case CVM_OP_CVT:
        return lane_step(g, w, in->a, depth + 1, k);
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_PTR_ADD:
        if (!lane_step(g, w, in->a, depth + 1, &ka) || !lane_step(g, w, in->b, depth + 1, &kb))
            return false;
        *k = in->h == CVM_OP_SUB ? ka - kb : ka + kb;
        break;
    case CVM_OP_MUL: /* (by a small constant) */
        if (cvm_nat_const_at(g, w, in->b, &c) && c > -(INT64_C(1) << 24) && c < (INT64_C(1) << 24) &&
            lane_step(g, w, in->a, depth + 1, &ka))
            *k = ka * c;
        else if (cvm_nat_const_at(g, w, in->a, &c) && c > -(INT64_C(1) << 24) && c < (INT64_C(1) << 24) &&
                 lane_step(g, w, in->b, depth + 1, &kb))
            *k = kb * c;
        else
            return false;
        break;
    case CVM_OP_SHL:
        if (!cvm_nat_const_at(g, w, in->b, &c) || c < 0 || c > 20 || !lane_step(g, w, in->a, depth + 1, &ka))
            return false;
        *k = ka * ((int64_t)1 << c);
        break;
    default:
        return false;
    }
    /* (small steps only: their operands' are, and the constants, so no
     * product overflows; the depth bounds the calls at 2^9) */
    return *k > -(INT64_C(1) << 24) && *k < (INT64_C(1) << 24);
}

/*
 * shared_split's access at offsets o0 + l * k (its test of V passed, k a
 * constant step of more than one element): every lane active, the last
 * lane's element inside the shared bytes, aligned; then one scalar load
 * or store per lane at constant distances from o0 (transpose's
 * `tile[threadIdx.x][ty + j]`, 33 floats apart, was a gather: LLVM
 * scalarizes it on x86 without AVX-512, with a vector of addresses). To
 * `done`, or to `no`.
 */
static void strided_access(gen *g, const cvm_vm_dinsn *in, LLVMValueRef o0, int64_t k, uint64_t align, LLVMValueRef act,
                           LLVMValueRef shared_p, LLVMValueRef size, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    const bool ld = in->h == CVM_OP_LD;
    const unsigned W = g->W, esz = in->esz;
    LLVMValueRef ok = llvm.BuildAnd(g->B, all_lanes(g, act),
                                    llvm.BuildICmp(g->B, LLVMIntULE,
                                                   llvm.BuildAdd(g->B, o0, c64(g, (uint64_t)(W - 1) * (uint64_t)k + esz), ""),
                                                   size, ""), "");
    ok = and_aligned(g, ok, o0, align);
    LLVMBasicBlockRef go = block(g, "strided");
    llvm.BuildCondBr(g->B, ok, go, no);
    llvm.PositionBuilderAtEnd(g->B, go);
    LLVMTypeRef st = scalar(g, in->elem), sp = llvm.PointerType(st, 0);
    LLVMValueRef base = llvm.BuildGEP2(g->B, g->i8, shared_p, &o0, 1, "");
    LLVMValueRef v = ld ? llvm.GetUndef(vec(g, in->elem)) : reg_out(g, in->b, false);
    for (unsigned l = 0; l < W; l++) {
        LLVMValueRef at = c64(g, (uint64_t)l * (uint64_t)k);
        LLVMValueRef p = llvm.BuildBitCast(g->B, llvm.BuildGEP2(g->B, g->i8, base, &at, 1, ""), sp, "");
        LLVMValueRef a;
        if (ld) {
            a = llvm.BuildLoad2(g->B, st, p, "");
            v = llvm.BuildInsertElement(g->B, v, a, c32(g, l), "");
        } else {
            a = llvm.BuildStore(g->B, llvm.BuildExtractElement(g->B, v, c32(g, l), ""), p);
        }
        llvm.SetAlignment(a, esz);
    }
    if (ld)
        slot_put(g, in->d, v);
    llvm.BuildBr(g->B, done);
}

/*
 * A shared access at `ptr.add V, u` or `ptr.add u, V` of its own run of
 * code, u one value (forwarded, or a launch constant) and V per lane,
 * every lane active (else to `no`): the offsets are V's 32 bits plus u,
 * so whether they are consecutive (a vector access), or a load's two runs
 * (shared_halves' forms), is a test of V alone, which LLVM takes out of
 * a loop that does not change V, and each access tests only where its
 * ends fall. Matmul's `ta[ty][kk]` and `tb[kk][tx]` in its versioned `kk`
 * loop (u is kk's offset, V threadIdx's): the general path tested both
 * forms on the sums each round. False, nothing emitted: not such an
 * access; true: the code goes on at `no`, where the builder is left.
 * There, with every lane active, V has neither form (u is one value, so
 * the sums have none either) or the access faults: the general path goes
 * straight to its per-lane test, which takes any lanes (transpose's
 * `tile[threadIdx.x][ty + j]`, 33 floats apart, tested both forms again
 * on the sums: ~110 of its ~470 instructions a plane and round).
 */
static bool shared_split(gen *g, uint32_t pc, LLVMValueRef act, LLVMValueRef shared_p, LLVMValueRef size,
                         LLVMBasicBlockRef done)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const bool ld = in->h == CVM_OP_LD;
    const unsigned W = g->W, esz = in->esz;
    const uint64_t align = access_align(in);
    const uint32_t pa = cvm_nat_run_writer(g, pc, in->a);
    if (pa == UINT32_MAX || W < 8 || align > esz)
        return false;
    const cvm_vm_dinsn *add = &g->code[pa];
    if (add->h != CVM_OP_PTR_ADD || add->elem != CVM_T_PTR_SHARED || add->line != 1 || !cvm_nat_kept(g, pa, pc, add->a) ||
        !cvm_nat_kept(g, pa, pc, add->b))
        return false;
    const bool wide = add->eb == CVM_T_I64 || add->eb == CVM_T_U64;
    LLVMValueRef sa, sb, V, u;
    const uint8_t fa = form_at(g, add->a, &sa), fb = form_at(g, add->b, &sb);
    int64_t k;
    bool stepped;
    if (fb == F_UNI) { /* a per-lane pointer plus one offset */
        V = reg_get(g, add->a);
        u = wide ? llvm.BuildTrunc(g->B, sb, g->i32, "") : sb;
        stepped = lane_step(g, pa, add->a, 0, &k);
    } else if (fa == F_UNI) { /* one pointer plus per-lane offsets */
        V = reg_get(g, add->b);
        if (wide)
            V = llvm.BuildTrunc(g->B, V, llvm.VectorType(g->i32, W), "");
        u = sa;
        stepped = lane_step(g, pa, add->b, 0, &k);
    } else {
        return false;
    }
    /* a step the consecutive path does not take, within the shared bytes' 2^31 */
    stepped = stepped && k > (int64_t)esz && (uint64_t)k * (W - 1) < (UINT64_C(1) << 31) && k % (int64_t)align == 0;
    const uint64_t test = align_to_test(g, in, add->a, add->b); /* (1: known) */
    LLVMBasicBlockRef no = block(g, "shared"), bv = block(g, "plane"), other = ld ? block(g, "runs") : no;
    LLVMBasicBlockRef after = stepped ? block(g, "step") : other;
    /* V's forms: nothing here reads u */
    LLVMValueRef v0 = llvm.BuildExtractElement(g->B, V, c32(g, 0), "");
    LLVMValueRef vh = llvm.BuildExtractElement(g->B, V, c32(g, W / 2), "");
    LLVMValueRef steps = llvm.BuildMul(g->B, iota(g, g->i32), splat(g, c32(g, esz)), "");
    LLVMValueRef off = llvm.BuildICmp(g->B, LLVMIntNE, V, llvm.BuildAdd(g->B, splat(g, v0), steps, ""), "");
    LLVMValueRef cons = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), "");
    /* every lane active, consecutive; then lane 0's offset, the plane's W
     * elements inside the shared bytes, aligned */
    only_if(g, llvm.BuildAnd(g->B, all_lanes(g, act), cons, ""), after);
    LLVMValueRef o0 = llvm.BuildZExt(g->B, llvm.BuildAdd(g->B, v0, u, ""), g->i64, "");
    LLVMValueRef ok = llvm.BuildICmp(g->B, LLVMIntULE, llvm.BuildAdd(g->B, o0, c64(g, (uint64_t)W * esz), ""), size, "");
    ok = and_aligned(g, ok, o0, test);
    llvm.BuildCondBr(g->B, ok, bv, after);
    if (stepped) { /* V's lanes k bytes apart (its test, like cons's, taken out of a loop that keeps V) */
        llvm.PositionBuilderAtEnd(g->B, after);
        LLVMValueRef ks = llvm.BuildMul(g->B, iota(g, g->i32), splat(g, c32(g, (uint64_t)k)), "");
        LLVMValueRef koff = llvm.BuildICmp(g->B, LLVMIntNE, V, llvm.BuildAdd(g->B, splat(g, v0), ks, ""), "");
        LLVMBasicBlockRef bk = block(g, "steps");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, koff), c64(g, 0), ""), bk, other);
        llvm.PositionBuilderAtEnd(g->B, bk);
        strided_access(g, in, llvm.BuildZExt(g->B, llvm.BuildAdd(g->B, v0, u, ""), g->i64, ""), k, test, act,
                       shared_p, size, other, done);
    }
    llvm.PositionBuilderAtEnd(g->B, bv);
    LLVMTypeRef vt = vec(g, in->elem);
    LLVMValueRef vptr = llvm.BuildBitCast(g->B, llvm.BuildGEP2(g->B, g->i8, shared_p, &o0, 1, ""),
                                          llvm.PointerType(vt, 0), "");
    if (ld) {
        LLVMValueRef v = llvm.BuildLoad2(g->B, vt, vptr, "");
        llvm.SetAlignment(v, esz);
        slot_put(g, in->d, v);
    } else {
        llvm.SetAlignment(llvm.BuildStore(g->B, reg_out(g, in->b, false), vptr), esz);
    }
    llvm.BuildBr(g->B, done);
    if (ld) { /* two runs */
        llvm.PositionBuilderAtEnd(g->B, other);
        LLVMValueRef hc, hu;
        half_forms(g, V, esz, &hc, &hu);
        halves_load(g, in, v0, vh, u, test, hc, hu, act, shared_p, size, no, done);
    }
    llvm.PositionBuilderAtEnd(g->B, no);
    return true;
}

/* A quick-path load (P + I * esz) whose plane reads two runs of the
 * buffer, every lane active: each half's I consecutive (a 16x16 cube's
 * plane covers two rows of a tile: matmul's a[row * n + t + tx]). Each
 * run's first and last index in P's range qr (quick_range), and, for a
 * 32-bit I, no wrap inside a run (its last lane's index, widened, is the
 * first's plus H - 1); then two vector loads. To `done`, or to `no`. */
static void global_halves(gen *g, const cvm_vm_dinsn *in, const affine *af, LLVMValueRef P, const LLVMValueRef *qr,
                          LLVMValueRef act, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    const unsigned W = g->W, H = W / 2, esz = in->esz;
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMTypeRef st = scalar(g, in->elem), ht = llvm.VectorType(st, H);
    LLVMValueRef I = reg_made(g, af->I);
    LLVMValueRef off = llvm.BuildICmp(g->B, LLVMIntNE, I,
                                      llvm.BuildAdd(g->B, half_heads(g, I), half_steps(g, af->wide ? g->i64 : g->i32, 1), ""), "");
    LLVMValueRef full = all_lanes(g, act);
    LLVMValueRef ok = llvm.BuildAnd(g->B, full, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), ""), "");
    ok = llvm.BuildAnd(g->B, ok, qr[0], "");
    LLVMValueRef x[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef a = llvm.BuildExtractElement(g->B, I, c32(g, h * H), "");
        LLVMValueRef b = llvm.BuildExtractElement(g->B, I, c32(g, h * H + H - 1), "");
        a = index64(g, af, a, g->i64), b = index64(g, af, b, g->i64);
        /* b = a + H - 1 exactly, a >= lo's index, b <= the last's (no overflow: the range is within 2^48) */
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, b, llvm.BuildAdd(g->B, a, c64(g, H - 1), ""), ""), "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSGE, a, qr[1], ""), "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSLE, a, llvm.BuildSub(g->B, qr[2], c64(g, H - 1), ""), ""), "");
        x[h] = a;
    }
    LLVMBasicBlockRef go = block(g, "runs2");
    llvm.BuildCondBr(g->B, ok, go, no);
    llvm.PositionBuilderAtEnd(g->B, go);
    LLVMValueRef pa = llvm.BuildAnd(g->B, P, c64(g, low), ""), v[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef at = llvm.BuildAdd(g->B, pa, llvm.BuildMul(g->B, x[h], c64(g, esz), ""), "");
        v[h] = llvm.BuildLoad2(g->B, ht, llvm.BuildIntToPtr(g->B, at, llvm.PointerType(ht, 0), ""), "");
        llvm.SetAlignment(v[h], esz);
    }
    slot_put(g, in->d, join_halves(g, v[0], v[1]));
    llvm.BuildBr(g->B, done);
}

/* The start of a full plane's quick access (full_plane, one_element):
 * on in a new block when every lane is active, else to rest; *p the
 * scalar of P, qr its range (quick_range). */
static void full_start(gen *g, const affine *af, unsigned esz, uint64_t align, bool ld, LLVMValueRef act,
                       LLVMBasicBlockRef rest, LLVMValueRef *p, LLVMValueRef *qr)
{
    LLVMBasicBlockRef bf = block(g, "full");
    llvm.BuildCondBr(g->B, all_lanes(g, act), bf, rest);
    llvm.PositionBuilderAtEnd(g->B, bf);
    if (form_at(g, af->P, p) != F_UNI)
        *p = llvm.BuildExtractElement(g->B, reg_get(g, af->P), c32(g, 0), "");
    LLVMValueRef here[4], *c = buffer_entry(g, true, af, *p, ld, here);
    quick_range(g, *p, c, esz, align, qr);
}

/* A quick load (P + I * esz) whose I is known to be one value (a forwarded
 * form: a convolution's weight, w[((oc * ci + c) * k + ky) * k + kx]), when
 * every lane is active: one element, in P's range, loaded once into every
 * lane, to bj; else on in a new block, to the general code (its test of
 * one offset in all lanes, or the slow path). */
static void one_element(gen *g, const cvm_vm_dinsn *in, const affine *af, uint64_t align, LLVMValueRef act,
                        LLVMValueRef s, LLVMBasicBlockRef bj)
{
    LLVMValueRef p, qr[3];
    LLVMBasicBlockRef bo = block(g, "oneload"), rest = block(g, "partial");
    full_start(g, af, in->esz, align, true, act, rest, &p, qr);
    LLVMValueRef x0 = index64(g, af, s, g->i64);
    LLVMValueRef ok = llvm.BuildAnd(g->B, qr[0], llvm.BuildICmp(g->B, LLVMIntSGE, x0, qr[1], ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSLE, x0, qr[2], ""), "");
    llvm.BuildCondBr(g->B, ok, bo, rest);
    llvm.PositionBuilderAtEnd(g->B, bo);
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMValueRef at = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, p, c64(g, low), ""), llvm.BuildMul(g->B, x0, c64(g, in->esz), ""), "");
    LLVMTypeRef st = scalar(g, in->elem);
    LLVMValueRef v = llvm.BuildLoad2(g->B, st, llvm.BuildIntToPtr(g->B, at, llvm.PointerType(st, 0), ""), "");
    llvm.SetAlignment(v, in->esz);
    slot_put(g, in->d, splat(g, v));
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, rest);
}

/*
 * A quick access (P + I * esz) when every lane is active and I is
 * consecutive: known so (a forwarded form, a versioned loop's index), or
 * tested here (probe: I's lanes equal I[0] + l, one vector compare; an
 * index made from unit_pos.x, vadd's `blockIdx.x * blockDim.x +
 * threadIdx.x`). Lanes 0 to W - 1 are then at the scalar s, so the
 * test is that s to s + W - 1 do not wrap and lie in P's range, and the
 * access one plain vector, to bj. Else (some lane inactive, another
 * form, or out of range) on in a new block, where the general code makes
 * its own test from the first and last active lanes and reaches the same
 * vector access or the slow path. In sum's and pooling's loops the
 * general code's lane arithmetic (cttz, ctlz, the no-wrap and range
 * tests from them) was about a third of the loop's instructions; in
 * vadd's full planes, its test of I and the first lane's extraction were
 * some 80 of 215 instructions a plane on x86-64-v3.
 */
static void full_plane(gen *g, const cvm_vm_dinsn *in, const affine *af, uint64_t align, LLVMValueRef act,
                       LLVMBasicBlockRef bj)
{
    LLVMValueRef s = NULL, p, su = NULL, sj = NULL;
    const uint8_t k = form_at(g, af->I, &s);
    /* a split I whose U is one value and J consecutive is consecutive
     * from U + ext(J's scalar) where J's lanes do not wrap (tested below) */
    const bool split = k != F_CONS && af->split && form_at(g, af->U, &su) == F_UNI && form_at(g, af->J, &sj) == F_CONS;
    if (k == F_UNI && in->h == CVM_OP_LD) {
        one_element(g, in, af, align, act, s, bj);
        return;
    }
    /* any other I is tested here: consecutive from its lane 0 */
    const bool probe = k != F_CONS && !split;
    if (probe && k == F_UNI)
        return;
    const bool ld = in->h == CVM_OP_LD;
    const unsigned esz = in->esz;
    const uint32_t vslot = ld ? in->d : in->b;
    LLVMBasicBlockRef bv = block(g, "fullvector"), rest = block(g, "partial");
    LLVMValueRef qr[3];
    full_start(g, af, esz, align, ld, act, rest, &p, qr);
    /* s's lanes fit where qr[1] <= x0 and x0 + W - 1 <= hi, hi being
     * qr[2] or, for a 32-bit I, the type's largest value if less (so that
     * s + W - 1 does not wrap): one unsigned compare of x0 - qr[1] with
     * the count of such x0 (0 unless qr[0]; qr[1] <= 0 <= hi then), which
     * depends on P alone, so that a loop computes it once */
    LLVMValueRef hi = qr[2];
    if (!af->wide) {
        LLVMValueRef top = c64(g, af->sext ? INT32_MAX : UINT32_MAX);
        hi = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntSGT, hi, top, ""), top, hi, "");
    }
    LLVMValueRef room = llvm.BuildSub(g->B, hi, qr[1], "");
    LLVMValueRef fits = llvm.BuildAnd(g->B, qr[0], llvm.BuildICmp(g->B, LLVMIntSGE, room, c64(g, g->W - 1), ""), "");
    LLVMValueRef count = llvm.BuildSelect(g->B, fits, llvm.BuildSub(g->B, room, c64(g, g->W - 2), ""), c64(g, 0), "");
    LLVMValueRef x0, ok;
    if (split) {
        x0 = llvm.BuildAdd(g->B, su, af->jsext ? llvm.BuildSExt(g->B, sj, g->i64, "") : llvm.BuildZExt(g->B, sj, g->i64, ""), "");
        ok = af->jsext ? llvm.BuildICmp(g->B, LLVMIntSLE, sj, c32(g, INT32_MAX - (g->W - 1)), "")
                       : llvm.BuildICmp(g->B, LLVMIntULE, sj, c32(g, UINT32_MAX - (g->W - 1)), "");
    } else if (probe) {
        /* I's lanes are I[0] + l in I's type; then, as for a forwarded
         * form, I[0]'s range says that they do not wrap */
        LLVMValueRef I = reg_get(g, af->I);
        s = llvm.BuildExtractElement(g->B, I, c32(g, 0), "");
        LLVMValueRef steps = llvm.BuildAdd(g->B, splat(g, s), iota(g, af->wide ? g->i64 : g->i32), "");
        LLVMValueRef off = llvm.BuildICmp(g->B, LLVMIntNE, I, steps, "");
        x0 = index64(g, af, s, g->i64);
        ok = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), "");
    } else {
        x0 = index64(g, af, s, g->i64);
        ok = llvm.ConstInt(g->i1, 1, false);
    }
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntULT, llvm.BuildSub(g->B, x0, qr[1], ""), count, ""), "");
    llvm.BuildCondBr(g->B, ok, bv, rest);
    llvm.PositionBuilderAtEnd(g->B, bv);
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMValueRef first = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, p, c64(g, low), ""),
                                       llvm.BuildMul(g->B, x0, c64(g, esz), ""), "");
    LLVMTypeRef vt = vec(g, in->elem);
    LLVMValueRef vptr = llvm.BuildIntToPtr(g->B, first, llvm.PointerType(vt, 0), "");
    if (ld && in_loop(g))
        prefetch_next(g, first, (uint64_t)g->W * esz);
    LLVMValueRef a = ld ? llvm.BuildLoad2(g->B, vt, vptr, "") : llvm.BuildStore(g->B, reg_out(g, vslot, false), vptr);
    llvm.SetAlignment(a, esz);
    if (ld)
        slot_put(g, vslot, a);
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, rest);
}

/* What a load's inactive lanes keep: its register's lanes, or nothing
 * (kept_value: NULL, kept_lanes: undefined lanes) for a local register
 * (gen's local: they are never read). Else the old
 * value lives on, a loop-carried vector (pooling's tap, kept from round
 * to round for the masked and gathered paths alone). */
static LLVMValueRef kept_value(const gen *g, uint32_t slot)
{
    return g->local[slot] ? NULL : reg_get(g, slot);
}

static LLVMValueRef kept_lanes(const gen *g, uint32_t slot, LLVMTypeRef vt)
{
    LLVMValueRef k = kept_value(g, slot);
    return k ? k : llvm.GetUndef(vt);
}

/* The frame's buffer `*at` of n bytes, made at the function's entry on first use. */
static LLVMValueRef frame_buffer(gen *g, LLVMValueRef *at, unsigned n)
{
    if (!*at) {
        *at = cvm_nat_entry_alloca(g, llvm.VectorType(g->i8, n), "lanebuf");
        llvm.SetAlignment(*at, 64);
    }
    return llvm.BuildBitCast(g->B, *at, g->i8p, "");
}

/* Whether a masked access of some lanes of esz bytes each goes through
 * the tier's helpers (lanes_call) rather than LLVM's masked intrinsics:
 * outside loops, where the CPU has no instruction for it, so that LLVM
 * would expand it into a test, a branch and a block per lane. x86 has
 * masked loads and stores of 4- and 8-byte lanes from AVX on and of 1-
 * and 2-byte lanes with AVX-512BW; gathers and scatters of 4- and 8-byte
 * lanes with AVX-512 (AVX2's gathers LLVM uses on some Intel cores
 * only), of 1- and 2-byte lanes never. Measured on test_ops' kernels,
 * AVX2: the inline forms were a third of the code generator's time; the
 * helper's loop over the set lanes costs about what the expanded blocks
 * do. Inside loops they stay inline: the calls, even where none ran,
 * made sum's and pool2's loops 2-4% longer (every vector register is
 * the caller's to save; docs/performance.md). */
static bool lanes_out_of_line(const gen *g, unsigned esz, bool gather)
{
    if (in_loop(g))
        return false;
    return gather ? esz < 4 || !cvm_llvm_avx512 : esz < 4 && !cvm_llvm_avx512;
}

/* A masked access of vector type vt through the tier's helpers (vm/jit.h
 * cvm_jit_gather): a gather or scatter (ld or not) of the lanes'
 * addresses `addr` (i64 lanes), or with addr a scalar (i64), the lanes
 * of the run of elements there (cvm_jit_load_run). The addresses and
 * values go through the frame's buffers. A load returns the loaded
 * lanes, the others `vals`' (NULL: undefined, not stored). */
static LLVMValueRef lanes_call(gen *g, bool ld, LLVMTypeRef vt, unsigned esz, LLVMValueRef addr, LLVMValueRef m,
                               LLVMValueRef vals)
{
    const bool run = llvm.TypeOf(addr) == g->i64;
    LLVMValueRef ab, vb = frame_buffer(g, &g->lane_vals, 8 * g->W);
    if (run) {
        ab = llvm.BuildIntToPtr(g->B, addr, g->i8p, "");
    } else {
        ab = frame_buffer(g, &g->lane_addr, 8 * g->W);
        LLVMValueRef st = llvm.BuildStore(g->B, addr, llvm.BuildBitCast(g->B, ab, llvm.PointerType(llvm.TypeOf(addr), 0), ""));
        llvm.SetAlignment(st, 64);
    }
    LLVMValueRef vp = llvm.BuildBitCast(g->B, vb, llvm.PointerType(vt, 0), "");
    if (vals)
        llvm.SetAlignment(llvm.BuildStore(g->B, vals, vp), 64);
    LLVMValueRef fn = run ? (ld ? g->fn_load_run : g->fn_store_run) : (ld ? g->fn_gather : g->fn_scatter);
    LLVMValueRef call = llvm.BuildCall2(g->B, g->ty_lanes, fn, (LLVMValueRef[]){vb, ab, mask_bits(g, m), c32(g, esz)}, 4, "");
    /* cold: LLVM then keeps this path's spills and reloads (every vector
     * register is the caller's to save) in its blocks, off the hot path */
    const unsigned cold = llvm.GetEnumAttributeKindForName("cold", 4);
    llvm.AddCallSiteAttribute(call, LLVMAttributeFunctionIndex, llvm.CreateEnumAttribute(g->C, cold, 0));
    if (!ld)
        return NULL;
    LLVMValueRef v = llvm.BuildLoad2(g->B, vt, vp, "");
    llvm.SetAlignment(v, 64);
    return v;
}

/* The general path's last resort: every active lane's (m's) address
 * tested, then one gather or scatter, to bj; to bs if a lane fails. A:
 * the lanes' tagged global pointers (buf: the first active lane's tag,
 * its table entry's tag, its buffer's start and end) or 32-bit shared
 * offsets (shared_p and size, the cube's shared bytes). */
static void each_lane(gen *g, const cvm_vm_dinsn *in, LLVMValueRef A, LLVMValueRef m, bool all, const LLVMValueRef *buf,
                      LLVMValueRef shared_p, LLVMValueRef size, LLVMBasicBlockRef bj, LLVMBasicBlockRef bs)
{
    const bool ld = in->h == CVM_OP_LD, global = in->ea == CVM_T_PTR_GLOBAL;
    const unsigned esz = in->esz;
    const uint64_t align = access_align(in);
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    const uint32_t vslot = ld ? in->d : in->b;
    LLVMTypeRef vt = vec(g, in->elem), vpv = llvm.VectorType(llvm.PointerType(scalar(g, in->elem), 0), g->W);
    LLVMValueRef alignv = c32(g, esz), t = NULL, etag = NULL, lo = NULL, end = NULL;
    if (global)
        t = buf[0], etag = buf[1], lo = buf[2], end = buf[3];
    LLVMBasicBlockRef bgat = block(g, "gather");
    LLVMValueRef addr, okv, ok;
    if (global) {
        addr = llvm.BuildAnd(g->B, A, splat(g, c64(g, low)), "");
        LLVMValueRef tags = llvm.BuildLShr(g->B, A, splat(g, c64(g, CVM_VM_PTR_TAG_SHIFT)), "");
        okv = llvm.BuildICmp(g->B, LLVMIntEQ, tags, splat(g, t), "");
        okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntUGE, addr, splat(g, lo), ""), "");
        ok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""),
                           llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""), "");
    } else {
        addr = A;
        okv = NULL;
        ok = llvm.ConstInt(g->i1, 1, false);
    }
    /* addr + esz <= limit, written so that it cannot wrap: addr <= limit - esz, limit >= esz
     * (shared: 32-bit offsets against a size of at most 2^31) */
    LLVMValueRef limit = global ? end : size;
    LLVMTypeRef et = global ? g->i64 : g->i32;
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, limit, c64(g, esz), ""), "");
    LLVMValueRef lim = llvm.BuildSub(g->B, limit, c64(g, esz), "");
    LLVMValueRef in_b = llvm.BuildICmp(g->B, LLVMIntULE, addr, splat(g, global ? lim : llvm.BuildTrunc(g->B, lim, g->i32, "")), "");
    okv = okv ? llvm.BuildAnd(g->B, okv, in_b, "") : in_b;
    if (align > 1)
        okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntEQ,
                                                    llvm.BuildAnd(g->B, addr, splat(g, llvm.ConstInt(et, align - 1, false)), ""),
                                                    llvm.ConstNull(llvm.VectorType(et, g->W)), ""), "");
    LLVMValueRef bad = llvm.BuildAnd(g->B, m, llvm.BuildNot(g->B, okv, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, bad), c64(g, 0), ""), "");
    llvm.BuildCondBr(g->B, ok, bgat, bs);
    llvm.PositionBuilderAtEnd(g->B, bgat);
    /* shared: base + 32-bit offsets (below 2^31: the same signed), so 32-bit gather indexes */
    LLVMValueRef at = global ? NULL : llvm.BuildGEP2(g->B, g->i8, shared_p, &addr, 1, "");
    if (!all && lanes_out_of_line(g, esz, true)) { /* some lanes may be off: the helper */
        LLVMValueRef a64 = global ? addr : llvm.BuildPtrToInt(g->B, at, llvm.VectorType(g->i64, g->W), "");
        LLVMValueRef v = lanes_call(g, ld, vt, esz, a64, m, ld ? kept_value(g, vslot) : reg_out(g, vslot, false));
        if (ld)
            slot_put(g, vslot, v);
    } else {
        LLVMValueRef ptrs = global ? llvm.BuildIntToPtr(g->B, addr, vpv, "") : llvm.BuildBitCast(g->B, at, vpv, "");
        if (ld) {
            LLVMValueRef v = intrinsic(g, "llvm.masked.gather", (LLVMTypeRef[]){vt, vpv}, 2,
                                       (LLVMValueRef[]){ptrs, alignv, m, kept_lanes(g, vslot, vt)}, 4);
            slot_put(g, vslot, v);
        } else {
            /* overlapping lanes store in lane order, as the interpreter does */
            intrinsic(g, "llvm.masked.scatter", (LLVMTypeRef[]){vt, vpv}, 2,
                      (LLVMValueRef[]){reg_out(g, vslot, false), ptrs, alignv, m}, 4);
        }
    }
    llvm.BuildBr(g->B, bj);
}

/* A plain ld or st of global or shared memory: the quick path when every
 * active lane's access lies in one buffer (or in shared memory), aligned;
 * the interpreter otherwise. Consecutive lanes (the common case) are
 * tested once, as a vector compare, and then only their first and last
 * active lanes are checked, as scalars, before one masked vector access;
 * other addresses are checked lane by lane and gathered or scattered. */
void cvm_nat_memory(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const bool ld = in->h == CVM_OP_LD, global = in->ea == CVM_T_PTR_GLOBAL;
    const unsigned esz = in->esz;
    const uint64_t align = access_align(in);
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    const uint32_t vslot = ld ? in->d : in->b;
    LLVMTypeRef wt = llvm.VectorType(g->i64, g->W);
    LLVMValueRef act = get_active(g);
    LLVMBasicBlockRef bj = block(g, "joined");
    affine af;
    const bool quick = global && align <= esz && esz % align == 0 && affine_address(g, pc, &af);
    LLVMValueRef shared_p = NULL, size = NULL; /* shared memory's base and bytes (at most 2^31) */
    if (!global) {
        size = llvm.BuildZExt(g->B, load_fixed(g, g->x, offsetof(cvm_vm_exec, shared_size), g->i32), g->i64, "");
        shared_p = load_fixed(g, g->x, offsetof(cvm_vm_exec, shared), g->i8p);
    }
    const uint32_t pa = global ? UINT32_MAX : cvm_nat_run_writer(g, pc, in->a);
    const bool deferred = pa != UINT32_MAX && cvm_nat_deferred_add(g, pa);
    bool split = false; /* shared_split's: its forms failed, and with every lane active the sums' fail too */
    if (quick)
        full_plane(g, in, &af, align, act, bj);
    else if (!global)
        split = shared_split(g, pc, act, shared_p, size, bj);
    if (deferred) /* (after shared_split's paths, where it took the access) */
        deferred_lanes(g, pa);
    /* (what full_plane's path needs not: made after it) */
    LLVMValueRef m = lane_mask(g, act), A = reg_get(g, in->a);
    /* the first and last active lanes (act is not empty where code runs) */
    LLVMValueRef f = first_lane(g, act);
    LLVMValueRef f64 = llvm.BuildZExt(g->B, f, g->i64, "");
    LLVMValueRef lz = intrinsic(g, "llvm.ctlz", (LLVMTypeRef[]){g->i64}, 1,
                                (LLVMValueRef[]){act, llvm.ConstInt(g->i1, 0, false)}, 2);
    LLVMValueRef last = llvm.BuildSub(g->B, c64(g, 63), lz, "");
    /* each lane's pointer as 64 bits: global ones tagged, shared offsets widened */
    LLVMValueRef R = NULL, r0 = NULL, d = NULL, sf = NULL, P = NULL, i_f = NULL, xf = NULL;
    LLVMTypeRef it = quick && af.wide ? g->i64 : g->i32; /* I's lanes */
    if (quick) { /* lane f's index, I[f], and as 64 bits, xf */
        LLVMValueRef is;
        /* (a forwarded form says it: consecutive, I[l] - l is its scalar) */
        d = form_at(g, af.I, &is) == F_CONS ? splat(g, is) : llvm.BuildSub(g->B, reg_get(g, af.I), iota(g, it), "");
        sf = llvm.BuildExtractElement(g->B, d, f, ""); /* I[l] - l, the same in consecutive lanes */
        i_f = llvm.BuildAdd(g->B, sf, af.wide ? f64 : f, "");
        xf = index64(g, &af, i_f, g->i64);
        P = form_at(g, af.P, &is) == F_UNI ? is : llvm.BuildExtractElement(g->B, reg_get(g, af.P), f, "");
    } else {
        R = A; /* shared memory: 32-bit offsets, kept 32-bit in vectors */
        r0 = llvm.BuildExtractElement(g->B, R, f, "");
        if (!global)
            r0 = llvm.BuildZExt(g->B, r0, g->i64, "");
    }
    LLVMValueRef fsz = llvm.BuildMul(g->B, f64, c64(g, esz), "");
    LLVMValueRef t = NULL, etag = NULL, lo = NULL, end = NULL, shared = NULL;
    LLVMValueRef i_l = NULL; /* quick: lane last's index */
    if (global) { /* the buffer of the first active lane's tag (quick: P's, the same or the slow path) */
        LLVMValueRef here[4], *c = buffer_entry(g, quick, &af, quick ? P : r0, ld, here);
        t = c[0], etag = c[1], lo = c[2], end = c[3];
    } else {
        shared = llvm.BuildPtrToInt(g->B, shared_p, g->i64, "");
    }
    LLVMTypeRef vt = vec(g, in->elem), st = scalar(g, in->elem);
    LLVMTypeRef sp = llvm.PointerType(st, 0), vp = llvm.PointerType(vt, 0);
    LLVMValueRef alignv = c32(g, esz);
    LLVMBasicBlockRef bc = block(g, "consecutive"), bl = block(g, "lanes"), bv = block(g, "vector"),
                      bs = block(g, "slow"), bper = NULL;

    /* consecutive: lane l at lane f's pointer + (l - f) * esz (an
     * alignment above the element size needs every lane's test) */
    if (quick) {
        /* I[l] = I[f] + (l - f) (in 32 bits where I is), and no wrap between lanes f and last */
        LLVMValueRef off = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, d, splat(g, sf), ""), "");
        LLVMValueRef cons = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), "");
        i_l = llvm.BuildAdd(g->B, sf, af.wide ? last : llvm.BuildTrunc(g->B, last, g->i32, ""), "");
        cons = llvm.BuildAnd(g->B, cons, llvm.BuildICmp(g->B, af.sext ? LLVMIntSGE : LLVMIntUGE, i_l, i_f, ""), "");
        llvm.BuildCondBr(g->B, cons, bc, bl);
    } else if (align <= esz) {
        if (split) {
            LLVMBasicBlockRef test = block(g, "forms");
            bper = block(g, "perlane");
            llvm.BuildCondBr(g->B, all_lanes(g, act), bper, test);
            llvm.PositionBuilderAtEnd(g->B, test);
        }
        /* (shared: modulo 2^32, and the first and last lanes' offsets are
         * then tested in 64 bits below 2^31: no lane between wraps) */
        LLVMTypeRef et = global ? g->i64 : g->i32;
        LLVMValueRef base = llvm.BuildSub(g->B, r0, fsz, "");
        LLVMValueRef expect = llvm.BuildAdd(g->B, splat(g, global ? base : llvm.BuildTrunc(g->B, base, g->i32, "")),
                                            llvm.BuildMul(g->B, iota(g, et), splat(g, llvm.ConstInt(et, esz, false)), ""), "");
        LLVMValueRef off = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, R, expect, ""), "");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), ""), bc, bl);
    } else {
        llvm.BuildBr(g->B, bl);
    }
    llvm.PositionBuilderAtEnd(g->B, bc);
    LLVMValueRef cok, first, inside = NULL; /* cok: the consecutive path's test; inside (ld): the whole vector lies in the buffer */
    if (quick) {
        /* lanes f to last, consecutive, in bounds: I[f] and I[last] in P's range */
        LLVMValueRef xl = index64(g, &af, i_l, g->i64);
        LLVMValueRef x0 = llvm.BuildSub(g->B, xf, f64, ""); /* lane 0's index */
        /* computed where they are used: at the function's entry, or
         * before the branch to here, vadd and saxpy (no loop to take them
         * out of) ran slower (docs/performance.md) */
        LLVMValueRef qr[3];
        quick_range(g, P, (LLVMValueRef[]){t, etag, lo, end}, esz, align, qr);
        cok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, xf, qr[1], ""),
                           llvm.BuildICmp(g->B, LLVMIntSLE, xl, qr[2], ""), "");
        cok = llvm.BuildAnd(g->B, qr[0], cok, "");
        first = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, P, c64(g, low), ""), llvm.BuildMul(g->B, x0, c64(g, esz), ""), "");
        if (ld)
            inside = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, x0, qr[1], ""),
                                   llvm.BuildICmp(g->B, LLVMIntSLE, x0, llvm.BuildSub(g->B, qr[2], c64(g, g->W - 1), ""), ""), "");
    } else {
        /* the last active lane's pointer, r0 + (last - f) * esz */
        LLVMValueRef rl = llvm.BuildAdd(g->B, r0, llvm.BuildMul(g->B, llvm.BuildSub(g->B, last, f64, ""),
                                                               c64(g, esz), ""), "");
        LLVMValueRef a0 = global ? llvm.BuildAnd(g->B, r0, c64(g, low), "") : r0;
        LLVMValueRef al = global ? llvm.BuildAnd(g->B, rl, c64(g, low), "") : rl;
        LLVMValueRef lim = llvm.BuildSub(g->B, global ? end : size, c64(g, esz), "");
        /* in bounds without wrapping: lim computed only when the limit is >= esz */
        cok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntUGE, global ? end : size, c64(g, esz), ""),
                           llvm.BuildICmp(g->B, LLVMIntULE, al, lim, ""), "");
        if (global) {
            /* one tag on both ends, not carried into (rl >= r0), the table's entry */
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntEQ,
                                                        llvm.BuildLShr(g->B, rl, c64(g, CVM_VM_PTR_TAG_SHIFT), ""), t, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntUGE, rl, r0, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntUGE, a0, lo, ""), "");
        }
        cok = and_aligned(g, cok, a0, align);
        /* lane 0's host address (lanes before f are masked off, never touched) */
        LLVMValueRef at = llvm.BuildSub(g->B, a0, fsz, ""); /* lane 0's address or shared offset */
        first = global ? at : llvm.BuildAdd(g->B, at, shared, "");
        if (ld) {
            const uint64_t span = (uint64_t)g->W * esz;
            LLVMValueRef top = global ? end : size, bottom = global ? lo : c64(g, 0);
            inside = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntUGE, at, bottom, ""),
                                   llvm.BuildICmp(g->B, LLVMIntUGE, top, c64(g, span), ""), "");
            inside = llvm.BuildAnd(g->B, inside, llvm.BuildICmp(g->B, LLVMIntULE, at,
                                                                 llvm.BuildSub(g->B, top, c64(g, span), ""), ""), "");
        }
    }
    llvm.BuildCondBr(g->B, cok, bv, bl); /* bl fails too, to the slow path */
    llvm.PositionBuilderAtEnd(g->B, bv);
    LLVMValueRef vptr = llvm.BuildIntToPtr(g->B, first, vp, "");
    if (ld && global && in_loop(g))
        prefetch_next(g, first, (uint64_t)g->W * esz);
    /* A plain vector access where it may touch every lane's element:
     * a load whose whole vector lies in the buffer, into a local
     * register (the inactive lanes' elements are read and nobody
     * reads them after) or with every lane active; a store of a full
     * plane. Masked accesses cost several times as much on this
     * development VM's AMD cores (docs/performance.md, "The native
     * tier"); a select after a load would be folded into one. */
    LLVMBasicBlockRef bwhole = block(g, "whole"), bmask = block(g, "masked");
    LLVMValueRef whole, full = all_lanes(g, act);
    if (ld) {
        whole = inside;
        if (!g->local[vslot])
            whole = llvm.BuildAnd(g->B, whole, full, "");
    } else {
        whole = full;
    }
    llvm.BuildCondBr(g->B, whole, bwhole, bmask);
    llvm.PositionBuilderAtEnd(g->B, bwhole);
    if (ld) {
        LLVMValueRef v = llvm.BuildLoad2(g->B, vt, vptr, "");
        llvm.SetAlignment(v, esz);
        slot_put(g, vslot, v);
    } else {
        LLVMValueRef sv = llvm.BuildStore(g->B, reg_out(g, vslot, false), vptr);
        llvm.SetAlignment(sv, esz);
    }
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bmask);
    if (lanes_out_of_line(g, esz, false)) {
        LLVMValueRef v = lanes_call(g, ld, vt, esz, first, m, ld ? kept_value(g, vslot) : reg_out(g, vslot, false));
        if (ld)
            slot_put(g, vslot, v);
    } else if (ld) {
        LLVMValueRef v = intrinsic(g, "llvm.masked.load", (LLVMTypeRef[]){vt, vp}, 2,
                                   (LLVMValueRef[]){vptr, alignv, m, kept_lanes(g, vslot, vt)}, 4);
        slot_put(g, vslot, v); /* masked: inactive lanes kept (kept_lanes) */
    } else {
        intrinsic(g, "llvm.masked.store", (LLVMTypeRef[]){vt, vp}, 2,
                  (LLVMValueRef[]){reg_out(g, vslot, false), vptr, alignv, m}, 4);
    }
    llvm.BuildBr(g->B, bj);

    /* other addresses: one address in every active lane (a quick load),
     * two runs of shared memory, else every active lane tested */
    llvm.PositionBuilderAtEnd(g->B, bl);
    if (quick && ld) { /* I[l] = I[f]: one element, loaded once (conv2d's weight) */
        LLVMBasicBlockRef bu = block(g, "one"), each = block(g, "each");
        LLVMValueRef same = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, reg_made(g, af.I), splat(g, i_f), ""), "");
        LLVMValueRef qr[3];
        quick_range(g, P, (LLVMValueRef[]){t, etag, lo, end}, esz, align, qr);
        LLVMValueRef one = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, same), c64(g, 0), ""), qr[0], "");
        one = llvm.BuildAnd(g->B, one, llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, xf, qr[1], ""),
                                                     llvm.BuildICmp(g->B, LLVMIntSLE, xf, qr[2], ""), ""), "");
        llvm.BuildCondBr(g->B, one, bu, each);
        llvm.PositionBuilderAtEnd(g->B, bu);
        LLVMValueRef at = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, P, c64(g, low), ""), llvm.BuildMul(g->B, xf, c64(g, esz), ""), "");
        LLVMValueRef v = llvm.BuildLoad2(g->B, st, llvm.BuildIntToPtr(g->B, at, sp, ""), "");
        llvm.SetAlignment(v, esz);
        v = splat(g, v);
        if (!g->local[vslot])
            v = llvm.BuildSelect(g->B, m, v, reg_get(g, vslot), "");
        slot_put(g, vslot, v);
        llvm.BuildBr(g->B, bj);
        llvm.PositionBuilderAtEnd(g->B, each);
        if (g->W >= 8) { /* two runs of the buffer (matmul's tile loads: two rows of 16) */
            LLVMBasicBlockRef other = block(g, "each");
            global_halves(g, in, &af, P, qr, act, other, bj);
            llvm.PositionBuilderAtEnd(g->B, other);
        }
    }
    if (!global && ld && align <= esz && g->W >= 8) {
        LLVMBasicBlockRef each = block(g, "each");
        shared_halves(g, in, R, act, shared_p, size, each, bj);
        llvm.PositionBuilderAtEnd(g->B, each);
    }
    if (quick && g->local[in->a]) {
        /* the address register made again here from P and I (the same
         * value in the active lanes, and a local register's other lanes
         * are never read), so that the chain that computed it is dead
         * code where only quick accesses read it */
        LLVMValueRef I = index64(g, &af, llvm.BuildFreeze(g->B, reg_made(g, af.I), ""), wt);
        A = llvm.BuildAdd(g->B, reg_get(g, af.P), llvm.BuildMul(g->B, I, splat(g, c64(g, esz)), ""), "");
        slot_put(g, in->a, A);
    }
    each_lane(g, in, global ? A : R, m, false, (LLVMValueRef[]){t, etag, lo, end}, shared_p, size, bj, bs);
    if (bper) { /* every lane active: the gather or scatter needs no lane's test */
        llvm.PositionBuilderAtEnd(g->B, bper);
        each_lane(g, in, R, lane_mask(g, c64(g, ~UINT64_C(0))), true, NULL, shared_p, size, bj, bs);
    }

    llvm.PositionBuilderAtEnd(g->B, bs);
    cvm_nat_fallback(g, pc);
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bj);
    /* every path stored a load's register to its slot: what was forwarded
     * is older (the fallback's reload also drops it, but for its own path) */
    if (ld)
        g->fwd[vslot] = (fval){0};
    if (deferred) /* (made on the general path only: read nowhere else) */
        g->fwd[in->a] = (fval){0};
}
