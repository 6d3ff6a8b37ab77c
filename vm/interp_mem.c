/*
 * interp_mem.c - loads, stores and atomics of the plane interpreter.
 *
 * A pointer register holds a host address (ptr.global) or a 32-bit byte
 * offset into the cube's shared memory, the unit's local area or the
 * module's constant data. Shared, local and constant offsets are always
 * checked against their sizes (cheap, and a bad offset must never reach
 * host memory); global accesses are checked in checked mode against the
 * launch's sorted region table, which names the buffer in the fault.
 * Only active lanes touch memory, in lane order. Volatile and atomic
 * accesses use the compiler's __atomic builtins (docs/design.md "Memory
 * model"); read-modify-write atomics run a compare-and-swap loop unless a
 * direct builtin exists.
 */
#include "interp.h"

/* As in interp_run.c: let -O2 vectorize the lane loops of the fast path
 * (address facts, the consecutive test) although their trip count is the
 * plane width, and the float selects without trapping math. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap", "no-trapping-math")
#endif

#include <string.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "numerics.h"

static const char *const kind_name[] = {"load", "store", "atomic"};
enum { K_LOAD, K_STORE, K_ATOMIC };

/*
 * Checks an access of `size` bytes at untagged address `addr` through a
 * pointer with provenance `tag`: the access must lie in that buffer
 * (cvm_vm_region_of), so running off the end of one buffer into its
 * neighbour is reported against the first one.
 */
static bool check_global(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t lane, uint64_t addr,
                         uint16_t tag, size_t size, int kind)
{
    const cvm_vm_region *r = cvm_vm_region_of(x->L, addr, tag);
    if (tag) { /* found by address, r's base is at most addr */
        if (!r) {
            cvm_vm_fault(x, p, lane, CVM_FAULT,
                         "invalid %s of %zu bytes: the pointer's buffer is not live in this launch",
                         kind_name[kind], size);
            return false;
        }
        if (addr < r->base) {
            cvm_vm_fault(x, p, lane, CVM_FAULT,
                         "out-of-bounds %s of %zu bytes at offset -%llu of buffer '%s' (size %zu)",
                         kind_name[kind], size, (unsigned long long)(r->base - addr),
                         r->name ? r->name : "?", r->size);
            return false;
        }
    }
    if (!r || (!tag && addr - r->base > (uint64_t)r->size + (1u << 20))) {
        cvm_vm_fault(x, p, lane, CVM_FAULT, "invalid %s of %zu bytes: address 0x%llx is not in any buffer",
                     kind_name[kind], size, (unsigned long long)addr);
        return false;
    }
    uint64_t off = addr - r->base;
    if (off > r->size || r->size - off < size) {
        cvm_vm_fault(x, p, lane, CVM_FAULT,
                     "out-of-bounds %s of %zu bytes at offset %llu of buffer '%s' (size %zu)",
                     kind_name[kind], size, (unsigned long long)off, r->name ? r->name : "?",
                     r->size);
        return false;
    }
    if (kind != K_LOAD && !r->writable) {
        cvm_vm_fault(x, p, lane, CVM_FAULT, "%s of %zu bytes to read-only buffer '%s' at offset %llu",
                     kind_name[kind], size, r->name ? r->name : "?", (unsigned long long)off);
        return false;
    }
    return true;
}

/* Host address of an access of `size` bytes by lane l, or NULL after recording a fault. */
static uint8_t *resolve(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t l, unsigned space,
                        uint64_t addr, size_t size, size_t align, int kind)
{
    const bool checked = x->L->checked;
    if (checked && align > 1 && addr % align) {
        /* a global address is named by its buffer and offset, as a bounds fault is */
        const uint64_t a = CVM_VM_PTR_ADDR(addr);
        const cvm_vm_region *r =
            space == CVM_T_PTR_GLOBAL ? cvm_vm_region_of(x->L, a, CVM_VM_PTR_TAG(addr)) : NULL;
        if (r && a >= r->base && a - r->base <= r->size)
            cvm_vm_fault(x, p, l, CVM_FAULT, "misaligned %s of %zu bytes at offset %llu of buffer '%s' "
                         "(alignment %zu)", kind_name[kind], size, (unsigned long long)(a - r->base),
                         r->name ? r->name : "?", align);
        else
            cvm_vm_fault(x, p, l, CVM_FAULT, "misaligned %s of %zu bytes at %s 0x%llx (alignment %zu)",
                         kind_name[kind], size, space == CVM_T_PTR_GLOBAL ? "address" : "offset",
                         (unsigned long long)(space == CVM_T_PTR_GLOBAL ? a : addr), align);
        return NULL;
    }
    uint32_t off = (uint32_t)addr, limit;
    const char *what;
    uint8_t *base;
    switch (space) {
    case CVM_T_PTR_GLOBAL:
        if (checked && !check_global(x, p, l, CVM_VM_PTR_ADDR(addr), CVM_VM_PTR_TAG(addr), size, kind))
            return NULL;
        return (uint8_t *)(uintptr_t)CVM_VM_PTR_ADDR(addr);
    case CVM_T_PTR_SHARED:
        limit = x->shared_size, what = "shared", base = x->shared;
        break;
    case CVM_T_PTR_LOCAL:
        limit = x->local_bytes, what = "local";
        base = x->local + (size_t)(p->index * x->W + l) * x->local_bytes;
        break;
    default:
        limit = x->L->const_size, what = "constant";
        base = (uint8_t *)(uintptr_t)x->L->const_data;
        if (kind != K_LOAD) {
            cvm_vm_fault(x, p, l, CVM_FAULT, "%s of %zu bytes to constant memory at offset %u",
                         kind_name[kind], size, off);
            return NULL;
        }
        break;
    }
    if (off > limit || limit - off < size || !base) {
        /* past the static shared memory with no dynamic part: extern __shared__ without its size
         * (a kernel without one overran a static array: no hint) */
        const bool no_dyn = space == CVM_T_PTR_SHARED && !x->L->dyn_shared && off >= x->dyn_base &&
                            x->kp->reads_dyn_shared;
        cvm_vm_fault(x, p, l, CVM_FAULT, "out-of-bounds %s %s of %zu bytes at offset %u (%s size %u%s)",
                     what, kind_name[kind], size, off, what, limit,
                     no_dyn ? "; the launch gave no dynamic shared memory: --shared BYTES, or the launch "
                              "config's shared_bytes" : "");
        return NULL;
    }
    return base + off;
}

static int mo(unsigned order)
{
    switch (order) {
    case CVM_ORDER_RELAXED: return __ATOMIC_RELAXED;
    case CVM_ORDER_ACQUIRE: return __ATOMIC_ACQUIRE;
    case CVM_ORDER_RELEASE: return __ATOMIC_RELEASE;
    case CVM_ORDER_ACQ_REL: return __ATOMIC_ACQ_REL;
    default: return __ATOMIC_SEQ_CST;
    }
}

static uint64_t atomic_load(const uint8_t *m, unsigned size, int order)
{
    switch (size) {
    case 1: return __atomic_load_n(m, order);
    case 2: return __atomic_load_n((const uint16_t *)(const void *)m, order);
    case 4: return __atomic_load_n((const uint32_t *)(const void *)m, order);
    default: return __atomic_load_n((const uint64_t *)(const void *)m, order);
    }
}

static void atomic_store(uint8_t *m, unsigned size, uint64_t v, int order)
{
    switch (size) {
    case 1: __atomic_store_n(m, (uint8_t)v, order); break;
    case 2: __atomic_store_n((uint16_t *)(void *)m, (uint16_t)v, order); break;
    case 4: __atomic_store_n((uint32_t *)(void *)m, (uint32_t)v, order); break;
    default: __atomic_store_n((uint64_t *)(void *)m, v, order); break;
    }
}

/* The access alignment: the attribute, or the access size capped at 16. */
static size_t access_align(const cvm_vm_dinsn *in, size_t size)
{
    if (in->align_log2)
        return (size_t)1 << in->align_log2;
    return size < 16 ? size : 16;
}

/* The lowest set bit's index (m != 0). */
static inline unsigned first_lane(uint64_t m)
{
    return (unsigned)__builtin_ctzll(m);
}

/* The default plane width (cvm_config.plane_width): its loops get a constant trip count. */
enum { PLANE_W = 32 };

/*
 * Address facts of the active lanes: lowest and highest address, the OR of
 * all addresses (alignment) and the OR of each one's difference from the
 * first active lane's (a global pointer's tag bits must all agree). The
 * full-plane loop has no mask test, so the compiler vectorizes it.
 */
#define ADDR_FACT(T, val)                                                                  \
    do {                                                                                   \
        const T v = (val);                                                                 \
        lo_ = v < lo_ ? v : lo_;                                                           \
        hi_ = v > hi_ ? v : hi_;                                                           \
        or_ |= v;                                                                          \
        df_ |= v ^ f_;                                                                     \
    } while (0)
#define ADDR_FACTS(T)                                                                      \
    do {                                                                                   \
        const T *a_ = (const T *)(const void *)ptr, f_ = a_[first_lane(act)];              \
        T lo_ = f_, hi_ = f_, or_ = 0, df_ = 0;                                            \
        if (full && nl == PLANE_W) { /* a constant trip count: vector code */             \
            for (unsigned l = 0; l < PLANE_W; l++)                                         \
                ADDR_FACT(T, a_[l]);                                                       \
        } else if (full) {                                                                 \
            for (unsigned l = 0; l < nl; l++)                                              \
                ADDR_FACT(T, a_[l]);                                                       \
        } else {                                                                           \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    ADDR_FACT(T, a_[l]);                                                   \
        }                                                                                  \
        lo = lo_, hi = hi_, bits = or_, diff = df_;                                        \
    } while (0)

/*
 * Whether the n addresses at a are a[0], a[0] + step, a[0] + 2 step, ...
 * The expected address is an induction, not a[0] + l * step: AVX2 has no
 * 64-bit multiply, which kept the loop scalar (~110 instructions per
 * plane). Called with the default plane width as a constant trip count,
 * it is a handful of vector instructions.
 */
#define CONSECUTIVE_FN(name, T)                                                            \
    static inline bool name(const uint8_t *ptr, unsigned n, T step)                        \
    {                                                                                      \
        const T *a = (const T *)(const void *)ptr;                                         \
        T bad = 0, e = a[0];                                                               \
        for (unsigned l = 0; l < n; l++) {                                                 \
            bad |= a[l] ^ e;                                                               \
            e += step;                                                                     \
        }                                                                                  \
        return bad == 0;                                                                   \
    }
CONSECUTIVE_FN(consecutive64, uint64_t)
CONSECUTIVE_FN(consecutive32, uint32_t)
#undef CONSECUTIVE_FN


static bool consecutive_lanes(const uint8_t *ptr, bool wide, unsigned nl, unsigned esz)
{
    if (wide)
        return nl == PLANE_W ? consecutive64(ptr, PLANE_W, esz) : consecutive64(ptr, nl, esz);
    return nl == PLANE_W ? consecutive32(ptr, PLANE_W, esz) : consecutive32(ptr, nl, esz);
}

/* n bytes, a multiple of 32 known at the call: vector moves (GCC expands
 * some constant-size memcpy as `rep movs`, slower than the copy at these
 * sizes). */
static inline void copy32s(uint8_t *dst, const uint8_t *src, size_t n)
{
#if defined(__AVX__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
    for (size_t i = 0; i < n; i += 32)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            _mm256_loadu_si256((const __m256i *)(const void *)(src + i)));
#else
    memcpy(dst, src, n);
#endif
}

/* A plane's block copy; the default plane's sizes are constants, so these
 * are inline vector moves instead of a libc call (copy32s: GCC's own
 * expansion of a 128-byte memcpy moves 16 bytes at a time). */
static inline void block_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    switch (n) {
    case 4 * PLANE_W: copy32s(dst, src, 4 * PLANE_W); break;
    case 8 * PLANE_W: copy32s(dst, src, 8 * PLANE_W); break;
    default: memcpy(dst, src, n); break;
    }
}

/* Whether r is the buffer of tag and holds accesses of `size` bytes from lo to hi. */
static inline bool region_holds(const cvm_vm_region *r, uint16_t tag, uint64_t lo, uint64_t hi,
                                size_t size, bool load)
{
    return r && r->tag == tag && lo >= r->base && hi >= lo && hi - r->base <= r->size &&
           r->size - (hi - r->base) >= size && (load || r->writable);
}

/*
 * Checked mode: whether every access of `size` bytes from lo to hi (tagged
 * global addresses, tags in agreement when diff has no tag bits) lies in
 * the buffer the tag names, aligned (bits: the OR of the addresses) and,
 * for a store, writable. Exactly the per-lane check_global's conditions,
 * once for the range. The worker's recent region for the tag is tried
 * first: live buffers are distinct allocations, so a region with the
 * pointer's tag that holds the range is the one the per-lane lookup by
 * address finds.
 */
static bool global_range_ok(cvm_vm_exec *x, uint64_t lo, uint64_t hi, uint64_t bits,
                            uint64_t diff, size_t size, size_t align, bool load)
{
    const uint16_t tag = CVM_VM_PTR_TAG(lo);
    if (diff >> CVM_VM_PTR_TAG_SHIFT || !tag || (align > 1 && bits % align))
        return false;
    lo = CVM_VM_PTR_ADDR(lo), hi = CVM_VM_PTR_ADDR(hi);
    const cvm_vm_region **slot = &x->recent[tag & 3];
    if (region_holds(*slot, tag, lo, hi, size, load))
        return true;
    const cvm_vm_region *r = cvm_vm_region_of(x->L, lo, tag);
    if (!region_holds(r, tag, lo, hi, size, load))
        return false;
    *slot = r;
    return true;
}

/* One element per lane (line 1), active lanes in lane order; addr(l) is the
 * lane's host address. Stores in lane order keep the per-lane path's
 * result when lanes overlap. */
#define LANES_COPY(T, ADDR)                                                                \
    do {                                                                                   \
        T *v_ = (T *)(void *)val;                                                          \
        for (unsigned l = 0; l < nl; l++) {                                                \
            if (!(act >> l & 1))                                                           \
                continue;                                                                  \
            uint8_t *m_ = (ADDR);                                                          \
            if (load)                                                                      \
                memcpy(&v_[l], m_, sizeof(T));                                             \
            else                                                                           \
                memcpy(m_, &v_[l], sizeof(T));                                             \
        }                                                                                  \
    } while (0)

#define LANES_BY_SIZE(ADDR)                                                                \
    do {                                                                                   \
        switch (esz) {                                                                     \
        case 1: LANES_COPY(uint8_t, ADDR); break;                                          \
        case 2: LANES_COPY(uint16_t, ADDR); break;                                         \
        case 4: LANES_COPY(uint32_t, ADDR); break;                                         \
        default: LANES_COPY(uint64_t, ADDR); break;                                        \
        }                                                                                  \
    } while (0)

/* One lane's element copies between memory at m and the value register. */
#define LANE_COPY(T)                                                                       \
    do {                                                                                   \
        T *v_ = (T *)(void *)val;                                                          \
        if (load)                                                                          \
            memcpy(&v_[l], m, sizeof(T));                                                  \
        else                                                                               \
            memcpy(m, &v_[l], sizeof(T));                                                  \
    } while (0)

/*
 * A plain ld or st (line 1) of every plane of a cube in lockstep
 * (interp_lockstep.c) when all of them are full and each plane's addresses
 * are consecutive (the planes anywhere: a row of an image each, or one
 * range across the cube): one range check for the cube, then one block
 * copy per plane, in plane order. False without touching anything
 * otherwise; the caller then runs the planes one by one.
 */
bool cvm_vm_mem_cube(cvm_vm_exec *x, const cvm_vm_dinsn *in)
{
    const unsigned esz = in->esz, G = x->nplanes;
    const bool global = in->ea == CVM_T_PTR_GLOBAL;
    const uint64_t span = (uint64_t)esz * (PLANE_W - 1);
    uint64_t at[CVM_VM_LOCKSTEP_MAX_PLANES], lo = 0;
    bool adjacent = true;
    if (in->line != 1 || esz == 0 || x->W != PLANE_W || G > CVM_VM_LOCKSTEP_MAX_PLANES)
        return false;
    for (unsigned g = 0; g < G; g++) {
        const cvm_vm_plane *q = &x->planes[g];
        const uint8_t *ptr = cvm_vm_reg(x, q, in->a);
        const uint64_t first = global ? ((const uint64_t *)(const void *)ptr)[0]
                                      : ((const uint32_t *)(const void *)ptr)[0];
        const uint64_t last = global ? ((const uint64_t *)(const void *)ptr)[PLANE_W - 1]
                                     : ((const uint32_t *)(const void *)ptr)[PLANE_W - 1];
        /* the last lane's address first: most planes that are not
         * consecutive fail it, and it costs two loads (a plane whose
         * addresses wrap fails it too: last < first) */
        if (q->active != q->live || q->nlanes != PLANE_W || last < first || last - first != span ||
            !consecutive_lanes(ptr, global, PLANE_W, esz))
            return false;
        adjacent = adjacent && (!g || first == at[g - 1] + span + esz);
        at[g] = first;
        lo = g ? lo : first;
    }
    return cvm_vm_mem_cube_range(x, in, adjacent ? NULL : at, lo);
}

bool cvm_vm_mem_cube_range(cvm_vm_exec *x, const cvm_vm_dinsn *in, const uint64_t *at, uint64_t lo)
{
    const cvm_vm_launch *L = x->L;
    const unsigned esz = in->esz, G = x->nplanes;
    const bool load = in->h == CVM_OP_LD, global = in->ea == CVM_T_PTR_GLOBAL;
    const size_t bytes = (size_t)esz * PLANE_W;
    const uint64_t span = bytes - esz; /* a plane's first to last element */
    uint64_t hi = lo + (uint64_t)G * bytes - esz, bits = lo;
    uint8_t *base = NULL;
    if (at) { /* the cube's lowest and highest address over the planes' runs */
        lo = UINT64_MAX, hi = 0, bits = 0;
        for (unsigned g = 0; g < G; g++) {
            if (at[g] + span < at[g])
                return false; /* the plane's addresses wrap */
            lo = at[g] < lo ? at[g] : lo;
            hi = at[g] + span > hi ? at[g] + span : hi;
            bits |= at[g];
        }
    }
    if (hi < lo)
        return false; /* the range wrapped */
    if (global) {
        if (L->checked && !global_range_ok(x, lo, hi, bits | esz, lo ^ hi, esz,
                                           access_align(in, esz), load))
            return false;
    } else {
        uint32_t limit;
        if (in->ea == CVM_T_PTR_SHARED)
            limit = x->shared_size, base = x->shared;
        else if (in->ea == CVM_T_PTR_CONST && load)
            limit = L->const_size, base = (uint8_t *)(uintptr_t)L->const_data;
        else
            return false;
        const size_t align = access_align(in, esz);
        if (hi > limit || limit - hi < esz || (L->checked && align > 1 && (bits | esz) % align))
            return false;
    }
    const uint32_t v = load ? in->d : in->b;
#define AT(a) (global ? (uint8_t *)(uintptr_t)CVM_VM_PTR_ADDR(a) : base + (a))
    if (!at) {
        uint8_t *const m = AT(lo);
        for (unsigned g = 0; g < G; g++) {
            uint8_t *val = cvm_vm_reg(x, &x->planes[g], v);
            if (load)
                block_copy(val, m + g * bytes, bytes);
            else
                block_copy(m + g * bytes, val, bytes);
        }
        return true;
    }
    for (unsigned g = 0; g < G; g++) {
        uint8_t *val = cvm_vm_reg(x, &x->planes[g], v);
        if (load)
            block_copy(val, AT(at[g]), bytes);
        else
            block_copy(AT(at[g]), val, bytes);
    }
#undef AT
    return true;
}

/* A full default-width plane's 4- or 8-byte elements at the lanes'
 * addresses (global when base is NULL, else base + the 32-bit offset),
 * copied in lane order: stores to one address keep the last lane's, as on
 * the per-lane path. Straight loops without mask tests. */
#define FULL_COPY(T, ADDR)                                                                 \
    do {                                                                                   \
        T *v_ = (T *)(void *)val;                                                          \
        if (load)                                                                          \
            for (unsigned l = 0; l < PLANE_W; l++)                                         \
                memcpy(&v_[l], (ADDR), sizeof(T));                                         \
        else                                                                               \
            for (unsigned l = 0; l < PLANE_W; l++)                                         \
                memcpy((ADDR), &v_[l], sizeof(T));                                         \
    } while (0)
/* COPY(T, address of lane IDX) for the element size (4 or 8) and the
 * pointer kind: global when base is NULL (the address without its tag),
 * else base + the lane's 32-bit offset. */
#define BY_KIND(COPY, IDX)                                                                 \
    do {                                                                                   \
        const uint64_t *ga_ = (const uint64_t *)(const void *)ptr;                         \
        const uint32_t *sa_ = (const uint32_t *)(const void *)ptr;                         \
        if (!base && esz == 4)                                                             \
            COPY(uint32_t, (uint8_t *)(uintptr_t)(ga_[IDX] & mask));                       \
        else if (!base)                                                                    \
            COPY(uint64_t, (uint8_t *)(uintptr_t)(ga_[IDX] & mask));                       \
        else if (esz == 4)                                                                 \
            COPY(uint32_t, base + sa_[IDX]);                                               \
        else                                                                               \
            COPY(uint64_t, base + sa_[IDX]);                                               \
    } while (0)
static void lanes_full(uint8_t *val, const uint8_t *ptr, uint8_t *base, uint64_t mask,
                       unsigned esz, bool load)
{
    BY_KIND(FULL_COPY, l);
}

/*
 * Tile-shaped accesses of a full default-width plane. The lanes of a cube
 * 16 units wide are two rows of 16, so a tiled kernel's lanes address in
 * runs: R lanes (32, 16 or 8) reading one element (d = 0: a row of the
 * a-tile of a tiled matmul, or a weight every unit shares) or R
 * consecutive elements (d = the element size: a row read along the run;
 * R = 32 is a consecutive plane). Each run is one copy or fill instead of
 * one per lane, and the range facts come from the runs' ends.
 */
typedef struct tile_shape {
    unsigned R;       /* lanes per run; 0: not tile-shaped */
    uint64_t d;       /* address step within a run: 0 or the element size */
    uint64_t lo, hi;  /* lowest and highest address */
    uint64_t bits;    /* OR of the addresses' low bits that alignment reads */
    uint64_t diff;    /* OR of each run end's difference from lane 0's */
} tile_shape;

/* Whether every run of R lanes of a[] steps by d: a vector compare of
 * each eight (four) lanes against their run's first address. */
#if defined(__AVX2__)
static inline bool tile_runs32(const uint32_t *a, unsigned R, uint32_t d)
{
    const __m256i step =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)d));
    __m256i bad = _mm256_setzero_si256();
    for (unsigned k = 0; k < PLANE_W; k += 8) {
        const unsigned g = k & ~(R - 1);
        const __m256i e = _mm256_add_epi32(_mm256_set1_epi32((int)(a[g] + (k - g) * d)), step);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + k));
        bad = _mm256_or_si256(bad, _mm256_xor_si256(v, e));
    }
    return _mm256_testz_si256(bad, bad);
}
static inline bool tile_runs64(const uint64_t *a, unsigned R, uint64_t d)
{
    const __m256i step = _mm256_setr_epi64x(0, (long long)d, (long long)(2 * d), (long long)(3 * d));
    __m256i bad = _mm256_setzero_si256();
    for (unsigned k = 0; k < PLANE_W; k += 4) {
        const unsigned g = k & ~(R - 1);
        const __m256i e = _mm256_add_epi64(_mm256_set1_epi64x((long long)(a[g] + (k - g) * d)), step);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + k));
        bad = _mm256_or_si256(bad, _mm256_xor_si256(v, e));
    }
    return _mm256_testz_si256(bad, bad);
}
#else
#define TILE_RUNS_FN(name, T)                                                              \
    static inline bool name(const T *a, unsigned R, T d)                                   \
    {                                                                                      \
        T bad = 0;                                                                         \
        for (unsigned k = 0; k < PLANE_W; k += R) {                                        \
            T e = a[k];                                                                    \
            for (unsigned j = 0; j < R; j++, e += d)                                       \
                bad |= a[k + j] ^ e;                                                       \
        }                                                                                  \
        return bad == 0;                                                                   \
    }
TILE_RUNS_FN(tile_runs32, uint32_t)
TILE_RUNS_FN(tile_runs64, uint64_t)
#undef TILE_RUNS_FN
#endif

/* The shape of a[] (T: the pointer's width) into t. The run length is
 * guessed from the lanes where a 32- or 16-lane run would break, then
 * checked over every lane. */
#define TILE_SHAPE(T, a, esz, t)                                                           \
    do {                                                                                   \
        const T d_ = (T)((a)[1] - (a)[0]);                                                 \
        bool ok_ = false;                                                                  \
        (t).R = 0;                                                                         \
        if (d_ != 0 && d_ != (T)(esz))                                                     \
            break;                                                                         \
        const unsigned r_ = (a)[16] == (T)((a)[15] + d_) ? 32u                             \
                          : (a)[8] == (T)((a)[7] + d_)   ? 16u                             \
                                                         : 8u;                             \
        ok_ = sizeof(T) == 8 ? tile_runs64((const uint64_t *)(const void *)(a), r_, d_)    \
                             : tile_runs32((const uint32_t *)(const void *)(a), r_, (uint32_t)d_); \
        if (!ok_)                                                                          \
            break;                                                                         \
        const T span_ = (T)(d_ * (r_ - 1));                                                \
        T lo_ = (a)[0], hi_ = (a)[0], bits_ = 0, diff_ = 0;                                \
        bool wrap_ = false;                                                                \
        for (unsigned g_ = 0; g_ < PLANE_W; g_ += r_) { /* one pass when r_ is 32 */      \
            const T s_ = (a)[g_], e_ = (T)(s_ + span_);                                    \
            lo_ = s_ < lo_ ? s_ : lo_;                                                     \
            hi_ = e_ > hi_ ? e_ : hi_;                                                     \
            bits_ |= s_;                                                                   \
            diff_ |= (s_ ^ (a)[0]) | (e_ ^ (a)[0]);                                        \
            wrap_ |= e_ < s_;                                                              \
        }                                                                                  \
        if (wrap_) /* a run wrapped: hi < lo fails the range check */                      \
            lo_ = 1, hi_ = 0;                                                              \
        (t).R = r_, (t).d = d_, (t).lo = lo_, (t).hi = hi_;                                \
        (t).bits = bits_ | (d_ ? (T)(esz) : 0), (t).diff = diff_;                          \
    } while (0)

/* The runs' copies or fills, R a constant; `at(g)` is lane g's address.
 * Stores keep lane order: a run storing to one address leaves its last
 * lane's value, and a later run overwrites an earlier one. */
#define TILE_COPY(T, R, at, d, load)                                                       \
    do {                                                                                   \
        for (unsigned g = 0; g < PLANE_W; g += (R)) {                                      \
            uint8_t *const m_ = (at);                                                      \
            T *const v_ = (T *)(void *)val + g;                                            \
            if ((d) && (load)) {                                                           \
                copy32s((uint8_t *)(void *)v_, m_, (R) * sizeof(T));                       \
            } else if (d) {                                                                \
                copy32s(m_, (const uint8_t *)(const void *)v_, (R) * sizeof(T));           \
            } else if (load) {                                                             \
                T x_;                                                                      \
                memcpy(&x_, m_, sizeof(T));                                                \
                for (unsigned j_ = 0; j_ < (R); j_++)                                      \
                    v_[j_] = x_;                                                           \
            } else {                                                                       \
                memcpy(m_, &v_[(R) - 1], sizeof(T));                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)
#define TILE_COPY_R(T, at)                                                                 \
    do {                                                                                   \
        switch (t->R) {                                                                    \
        case 32: TILE_COPY(T, 32, at, t->d, load); break;                                  \
        case 16: TILE_COPY(T, 16, at, t->d, load); break;                                  \
        default: TILE_COPY(T, 8, at, t->d, load); break;                                   \
        }                                                                                  \
    } while (0)
static void tile_copy(const tile_shape *t, uint8_t *val, const uint8_t *ptr, uint8_t *base,
                      uint64_t mask, unsigned esz, bool load)
{
    BY_KIND(TILE_COPY_R, g); /* (a consecutive plane took block_copy before) */
}
#undef BY_KIND
#undef TILE_COPY_R

/*
 * Whether the active lanes of a partial default-width plane, one run
 * f..l of lanes (act's set bits are contiguous), hold consecutive
 * elements: a[j] = a[f] + (j - f) esz. The inactive lanes' addresses are
 * masked out of the compare (they may hold anything).
 */
#if defined(__AVX2__)
static inline bool span64(const uint64_t *a, uint64_t act, unsigned f, uint64_t esz)
{
    const uint64_t e = a[f] - (uint64_t)f * esz;
    const __m256i one = _mm256_set1_epi64x(1), bits = _mm256_set1_epi64x((long long)act);
    const __m256i four = _mm256_set1_epi64x(4), step = _mm256_set1_epi64x((long long)(4 * esz));
    __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3), bad = _mm256_setzero_si256();
    __m256i want = _mm256_add_epi64(_mm256_set1_epi64x((long long)e),
                                    _mm256_setr_epi64x(0, (long long)esz, (long long)(2 * esz),
                                                       (long long)(3 * esz)));
    for (unsigned j = 0; j < PLANE_W; j += 4) {
        const __m256i on = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_srlv_epi64(bits, idx), one), one);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + j));
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_xor_si256(v, want), on));
        want = _mm256_add_epi64(want, step);
        idx = _mm256_add_epi64(idx, four);
    }
    return _mm256_testz_si256(bad, bad);
}
static inline bool span32(const uint32_t *a, uint64_t act, unsigned f, uint32_t esz)
{
    const uint32_t e = a[f] - f * esz;
    const __m256i one = _mm256_set1_epi32(1), bits = _mm256_set1_epi32((int)(uint32_t)act);
    const __m256i eight = _mm256_set1_epi32(8), step = _mm256_set1_epi32((int)(8 * esz));
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), bad = _mm256_setzero_si256();
    __m256i want = _mm256_add_epi32(
        _mm256_set1_epi32((int)e),
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)esz)));
    for (unsigned j = 0; j < PLANE_W; j += 8) {
        const __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_srlv_epi32(bits, idx), one), one);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + j));
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_xor_si256(v, want), on));
        want = _mm256_add_epi32(want, step);
        idx = _mm256_add_epi32(idx, eight);
    }
    return _mm256_testz_si256(bad, bad);
}
#else
#define SPAN_FN(name, T)                                                                   \
    static inline bool name(const T *a, uint64_t act, unsigned f, T esz)                   \
    {                                                                                      \
        T bad = 0, want = (T)(a[f] - f * esz);                                             \
        for (unsigned j = 0; j < PLANE_W; j++, want += esz)                                \
            bad |= (a[j] ^ want) & (T)(0 - (act >> j & 1));                                \
        return bad == 0;                                                                   \
    }
SPAN_FN(span64, uint64_t)
SPAN_FN(span32, uint32_t)
#undef SPAN_FN
#endif

/* What fast_access needs of an ld or st that is the same for every plane:
 * taken once per instruction when lockstep runs it over a cube's planes. */
typedef struct access {
    unsigned esz, ne;
    size_t size, align;
    bool load, global, checked;
    bool local;     /* local memory: per unit, base NULL (local_access) */
    uint8_t *base;  /* shared or constant memory (with limit); NULL for global */
    uint32_t limit;
    uint32_t ptr, val; /* the address and value registers' slots */
} access;

/* The facts of plain ld or st `in`; false when the fast path never takes
 * it (no element size). */
static bool access_of(const cvm_vm_exec *x, const cvm_vm_dinsn *in, access *A)
{
    const cvm_vm_launch *L = x->L;
    A->load = in->h == CVM_OP_LD;
    A->esz = in->esz, A->ne = in->line;
    A->size = (size_t)A->esz * A->ne, A->align = access_align(in, A->size);
    A->global = in->ea == CVM_T_PTR_GLOBAL, A->checked = L->checked;
    A->base = NULL, A->limit = 0, A->local = false;
    A->ptr = in->a, A->val = A->load ? in->d : in->b;
    if (A->esz == 0)
        return false;
    if (in->ea == CVM_T_PTR_SHARED)
        A->limit = x->shared_size, A->base = x->shared;
    else if (in->ea == CVM_T_PTR_CONST && A->load)
        A->limit = L->const_size, A->base = (uint8_t *)(uintptr_t)L->const_data;
    else if (in->ea == CVM_T_PTR_LOCAL)
        A->limit = x->local_bytes, A->local = x->local != NULL;
    else if (!A->global)
        return false; /* a store to constant memory: the per-lane path faults */
    return A->global || A->base || A->local;
}

/* tile_access32 for runs of R lanes (a constant at each call, so the
 * checks and copies unroll): a[] the lanes' offsets, v the value slot, d
 * the step within a run (0 or 4). */
static inline bool tile_runs_at(const uint32_t *a, uint32_t *v, const access *A, uint32_t d,
                                const unsigned R)
{
    uint8_t *const base = A->base;
    if (!tile_runs32(a, R, d))
        return false;
    const uint32_t span = d * (R - 1);
    uint32_t hi = 0, bits = d;
    bool wrap = false;
    for (unsigned g = 0; g < PLANE_W; g += R) {
        const uint32_t s = a[g], e = s + span;
        hi = e > hi ? e : hi;
        bits |= s;
        wrap |= e < s;
    }
    if (wrap || hi > A->limit || A->limit - hi < 4 ||
        (A->checked && A->align > 1 && bits % A->align))
        return false;
    uint8_t *const val = (uint8_t *)(void *)v;
    TILE_COPY(uint32_t, R, base + a[g], d, A->load);
    return true;
}
#undef TILE_COPY

/*
 * fast_access's commonest per-plane shape under lockstep, on its own: a
 * full default-width plane's 4-byte element in shared or constant memory
 * (32-bit offsets) whose lanes are runs of 32, 16 or 8 lanes, each one
 * element or consecutive ones (tile_shape; a run of 32 consecutive is a
 * consecutive plane). The same checks and lane-order copies as
 * fast_access's, without its general address facts: the range is the
 * runs' ends. False (nothing done) for any other shape, or when a check
 * fails; fast_access then decides.
 */
static inline bool tile_access32(const cvm_vm_exec *x, cvm_vm_plane *p, const access *A)
{
    const uint32_t *a = (const uint32_t *)(const void *)cvm_vm_reg(x, p, A->ptr);
    uint32_t *v = (uint32_t *)(void *)cvm_vm_reg(x, p, A->val);
    const uint32_t d = a[1] - a[0];
    if (d != 0 && d != 4)
        return false;
    if (a[16] == a[15] + d)
        return tile_runs_at(a, v, A, d, 32);
    if (a[8] == a[7] + d)
        return tile_runs_at(a, v, A, d, 16);
    return tile_runs_at(a, v, A, d, 8);
}

/* Lane l's element e: its local memory at its offset, or its slot. */
#define LOCAL_COPY(T)                                                                      \
    do {                                                                                   \
        T *const v_ = (T *)(void *)(val + ((size_t)e << x->rshift));                       \
        if (load) {                                                                        \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    memcpy(&v_[l], m0 + l * lb + off[l] + e * sizeof(T), sizeof(T));       \
        } else {                                                                           \
            for (unsigned l = 0; l < nl; l++)                                              \
                if (act >> l & 1)                                                          \
                    memcpy(m0 + l * lb + off[l] + e * sizeof(T), &v_[l], sizeof(T));       \
        }                                                                                  \
    } while (0)

/*
 * ld and st of local memory (a local array, a variable whose address is
 * taken): each unit has its own local_bytes at local + unit *
 * local_bytes, so lane l's access is there at its offset. Every active
 * lane's offset is checked at once (the highest against the size, the
 * OR of all for the alignment: resolve's conditions), then each lane
 * copies without a lookup. False (nothing done) when a check fails.
 */
static bool local_access(cvm_vm_exec *x, cvm_vm_plane *p, const access *A)
{
    const uint64_t act = p->active;
    const unsigned nl = p->nlanes, esz = A->esz;
    const bool load = A->load;
    const uint32_t *const off = (const uint32_t *)(const void *)cvm_vm_reg(x, p, A->ptr);
    uint8_t *const val = cvm_vm_reg(x, p, A->val);
    const size_t lb = x->local_bytes;
    uint32_t hi = 0, bits = 0;
    if (act == UINT64_C(0xffffffff) && nl == PLANE_W) {
        for (unsigned l = 0; l < PLANE_W; l++) {
            hi = off[l] > hi ? off[l] : hi;
            bits |= off[l];
        }
    } else {
        for (unsigned l = 0; l < nl; l++)
            if (act >> l & 1) {
                hi = off[l] > hi ? off[l] : hi;
                bits |= off[l];
            }
    }
    if (!act || hi > lb || lb - hi < A->size || (A->checked && A->align > 1 && bits % A->align))
        return false;
    uint8_t *const m0 = x->local + (size_t)p->index * x->W * lb;
    for (unsigned e = 0; e < A->ne; e++) {
        switch (esz) {
        case 1: LOCAL_COPY(uint8_t); break;
        case 2: LOCAL_COPY(uint16_t); break;
        case 4: LOCAL_COPY(uint32_t); break;
        default: LOCAL_COPY(uint64_t); break;
        }
    }
    return true;
}
#undef LOCAL_COPY

/*
 * ld and st without per-lane checks, the common case: every active lane's
 * access lies in the one global buffer its pointer's tag names (or in
 * shared or constant memory), aligned, which is checked once over the
 * lanes' lowest and highest address (for a full plane of consecutive
 * addresses, the first and last lane's). Lanes then copy in lane order, or
 * as one block when the full plane's addresses are consecutive. Returns
 * false without touching anything when that does not hold; the per-lane
 * path then runs and reports the fault exactly.
 */
static inline bool fast_access(cvm_vm_exec *x, cvm_vm_plane *p, const access *A)
{
    const unsigned esz = A->esz, ne = A->ne, nl = p->nlanes;
    const size_t size = A->size, align = A->align;
    const uint64_t act = p->active;
    const bool full = act == p->live, global = A->global, load = A->load;
    const uint8_t *ptr = cvm_vm_reg(x, p, A->ptr);
    uint8_t *val = cvm_vm_reg(x, p, A->val);
    uint64_t lo, hi, bits, diff, mask = UINT64_MAX;
    uint8_t *const base = A->base;
    const uint32_t limit = A->limit;
    if (A->local)
        return local_access(x, p, A);
    if (!act)
        return false;
    /* consecutive elements (the last lane's address says whether to look):
     * lane 1's address is lane 0's + esz, so the OR of lanes 0 and 1 tells
     * the alignment of all */
    const uint64_t span_all = (uint64_t)(nl - 1) * esz;
    const bool consecutive =
        full && ne == 1 &&
        (global ? ((const uint64_t *)(const void *)ptr)[nl - 1] - ((const uint64_t *)(const void *)ptr)[0]
                : (uint32_t)(((const uint32_t *)(const void *)ptr)[nl - 1] -
                             ((const uint32_t *)(const void *)ptr)[0])) == span_all &&
        consecutive_lanes(ptr, global, nl, esz);
    /* whole lines of 4- or 8-byte elements, lane l's at lane 0's + l * size
     * (`float4 v = a[i]`): one pass per element of the line */
    const uint64_t span_lines = (uint64_t)(nl - 1) * size;
    const bool lines =
        full && ne > 1 && (esz == 4 || esz == 8) &&
        (global ? ((const uint64_t *)(const void *)ptr)[nl - 1] - ((const uint64_t *)(const void *)ptr)[0]
                : (uint32_t)(((const uint32_t *)(const void *)ptr)[nl - 1] -
                             ((const uint32_t *)(const void *)ptr)[0])) == span_lines &&
        consecutive_lanes(ptr, global, nl, (unsigned)size);
    /* else a full default-width plane of 4- or 8-byte elements: tile-shaped,
     * or each lane on its own */
    tile_shape t = {0};
    const bool tiled = !consecutive && full && ne == 1 && nl == PLANE_W && (esz == 4 || esz == 8);
    if (tiled && global) {
        TILE_SHAPE(uint64_t, (const uint64_t *)(const void *)ptr, esz, t);
    } else if (tiled) {
        TILE_SHAPE(uint32_t, (const uint32_t *)(const void *)ptr, esz, t);
    }
    /* a partial plane whose active lanes are one run sf..sl of consecutive
     * elements (at the edge of an image row or a tile) or of one element:
     * one copy or fill */
    unsigned sf = 0, sl = 0;
    uint64_t sd = esz; /* the step: esz or 0 */
    bool span = !full && ne == 1 && nl == PLANE_W && (esz == 4 || esz == 8);
    if (span) {
        sf = first_lane(act), sl = 63u - (unsigned)__builtin_clzll(act);
        span = !((act >> sf) & ((act >> sf) + 1)); /* the active lanes are one run */
    }
    if (span && sl > sf)
        sd = global ? ((const uint64_t *)(const void *)ptr)[sf + 1] - ((const uint64_t *)(const void *)ptr)[sf]
                    : (uint32_t)(((const uint32_t *)(const void *)ptr)[sf + 1] -
                                 ((const uint32_t *)(const void *)ptr)[sf]);
    span = span && (sd == esz || sd == 0) &&
           (global ? span64((const uint64_t *)(const void *)ptr, act, sf, sd)
                   : span32((const uint32_t *)(const void *)ptr, act, sf, (uint32_t)sd));
    if (t.R) {
        lo = t.lo, hi = t.hi, bits = t.bits, diff = t.diff;
    } else if (span) {
        lo = global ? ((const uint64_t *)(const void *)ptr)[sf] : ((const uint32_t *)(const void *)ptr)[sf];
        hi = global ? ((const uint64_t *)(const void *)ptr)[sl] : ((const uint32_t *)(const void *)ptr)[sl];
        bits = lo | (sl > sf ? sd : 0), diff = global ? lo ^ hi : 0;
    } else if ((consecutive || lines) && global) { /* lane l at lane 0's + l * step */
        const uint64_t *a = (const uint64_t *)(const void *)ptr, step = consecutive ? esz : size;
        lo = a[0], hi = a[nl - 1], bits = lo | (nl > 1 ? step : 0), diff = lo ^ hi;
    } else if (consecutive || lines) {
        const uint32_t *a = (const uint32_t *)(const void *)ptr;
        lo = a[0], hi = a[nl - 1], bits = lo | (nl > 1 ? (consecutive ? esz : size) : 0), diff = 0;
    } else if (global) {
        ADDR_FACTS(uint64_t);
    } else {
        ADDR_FACTS(uint32_t);
    }
    if (global) {
        if (A->checked && !global_range_ok(x, lo, hi, bits, diff, size, align, load))
            return false;
        mask = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    } else if (!base || hi < lo || hi > limit || limit - hi < size ||
               (A->checked && align > 1 && bits % align)) {
        return false; /* hi < lo: consecutive offsets that wrapped */
    }
#define LANE_ADDR(l)                                                                       \
    (global ? (uint8_t *)(uintptr_t)(((const uint64_t *)(const void *)ptr)[l] & mask)      \
            : base + ((const uint32_t *)(const void *)ptr)[l])
    if (consecutive) {
        if (load)
            block_copy(val, LANE_ADDR(0), (size_t)nl * esz);
        else
            block_copy(LANE_ADDR(0), val, (size_t)nl * esz);
        return true;
    }
    if (lines) { /* element e of every lane's line is slot e of the value */
        uint8_t *const m0 = LANE_ADDR(0);
#define LINE_PASSES(T, N)                                                                  \
    for (unsigned e = 0; e < ne; e++) {                                                    \
        uint8_t *const v = val + ((size_t)e << x->rshift), *const m = m0 + e * sizeof(T);  \
        if (load)                                                                          \
            for (unsigned l = 0; l < (N); l++)                                             \
                memcpy(v + l * sizeof(T), m + l * size, sizeof(T));                        \
        else                                                                               \
            for (unsigned l = 0; l < (N); l++)                                             \
                memcpy(m + l * size, v + l * sizeof(T), sizeof(T));                        \
    }
        if (esz == 4 && nl == PLANE_W) {
            LINE_PASSES(uint32_t, PLANE_W)
        } else if (esz == 4) {
            LINE_PASSES(uint32_t, nl)
        } else {
            LINE_PASSES(uint64_t, nl)
        }
#undef LINE_PASSES
        return true;
    }
    if (t.R) {
        tile_copy(&t, val, ptr, global ? NULL : base, mask, esz, load);
        return true;
    }
    if (span && sd) {
        if (load)
            memcpy(val + (size_t)sf * esz, LANE_ADDR(sf), (size_t)(sl - sf + 1) * esz);
        else
            memcpy(LANE_ADDR(sf), val + (size_t)sf * esz, (size_t)(sl - sf + 1) * esz);
        return true;
    }
    if (span) { /* one element: a load fills the run, a store leaves its last lane's value */
        if (!load) {
            memcpy(LANE_ADDR(sf), val + (size_t)sl * esz, esz);
        } else if (esz == 4) {
            uint32_t v, *d = (uint32_t *)(void *)val;
            memcpy(&v, LANE_ADDR(sf), 4);
            for (unsigned j = sf; j <= sl; j++)
                d[j] = v;
        } else {
            uint64_t v, *d = (uint64_t *)(void *)val;
            memcpy(&v, LANE_ADDR(sf), 8);
            for (unsigned j = sf; j <= sl; j++)
                d[j] = v;
        }
        return true;
    }
    if (tiled) {
        lanes_full(val, ptr, global ? NULL : base, mask, esz, load);
        return true;
    }
    if (ne == 1) {
        const uint64_t *ga = (const uint64_t *)(const void *)ptr;
        const uint32_t *sa = (const uint32_t *)(const void *)ptr;
        if (global)
            LANES_BY_SIZE((uint8_t *)(uintptr_t)(ga[l] & mask));
        else
            LANES_BY_SIZE(base + sa[l]);
        return true;
    }
    /* lanes in order, each with all its elements (overlapping stores resolve
     * as in the per-lane path) */
    for (unsigned l = 0; l < nl; l++) {
        if (!(act >> l & 1))
            continue;
        uint8_t *const lane_mem = LANE_ADDR(l), *const first = val;
        for (unsigned e = 0; e < ne; e++) {
            uint8_t *m = lane_mem + (size_t)e * esz;
            val = first + ((size_t)e << x->rshift);
            switch (esz) {
            case 1: LANE_COPY(uint8_t); break;
            case 2: LANE_COPY(uint16_t); break;
            case 4: LANE_COPY(uint32_t); break;
            default: LANE_COPY(uint64_t); break;
            }
        }
        val = first;
    }
#undef LANE_ADDR
    return true;
}

/* One of the ld forms (ld, ld.volatile, ld.atomic): by ops.def, a memory
 * op of a destination and one pointer (a store has no destination, an
 * atom.* more operands). */
static bool is_load(const cvm_vm_dinsn *in)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
    return oi && (oi->flags & CVM_OPF_MEM) && !strcmp(oi->format, "dr");
}

/* Every ld/st/volatile/atomic access lane by lane, each checked (kept out
 * of line so the fast path's caller stays small). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int mem_lanes(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    const bool load = is_load(in);
    const bool plain = in->h == CVM_OP_LD || in->h == CVM_OP_ST;
    const int order = in->h == CVM_OP_LD_ATOMIC || in->h == CVM_OP_ST_ATOMIC ? mo(in->order)
                                                                             : __ATOMIC_RELAXED;
    const unsigned esz = cvm_vm_esz(in->elem), ne = in->line;
    const size_t size = (size_t)esz * ne, align = access_align(in, size);
    const uint8_t *ptr = cvm_vm_reg(x, p, in->a);
    uint8_t *val = cvm_vm_reg(x, p, load ? in->d : in->b);
    bool faulted = false;
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        uint64_t addr = cvm_vm_get_bits(ptr, in->ea, l);
        uint8_t *m = resolve(x, p, l, in->ea, addr, size, align, load ? K_LOAD : K_STORE);
        if (!m) {
            faulted = true;
            continue;
        }
        if (faulted)
            continue; /* keep counting faulting lanes, touch nothing more */
        for (unsigned e = 0; e < ne; e++) {
            uint8_t *slot = val + ((size_t)e << x->rshift) + (size_t)l * esz;
            uint8_t *mem = m + (size_t)e * esz;
            if (plain && load)
                memcpy(slot, mem, esz);
            else if (plain)
                memcpy(mem, slot, esz);
            else if (load)
                cvm_vm_set_bits(val + ((size_t)e << x->rshift), in->elem, l,
                                atomic_load(mem, esz, order));
            else
                atomic_store(mem, esz, cvm_vm_get_bits(val + ((size_t)e << x->rshift), in->elem, l),
                             order);
        }
    }
    return faulted ? CVM_VM_R_FAULT : 0;
}

void cvm_vm_bool_loaded(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    for (unsigned e = 0; e < in->line; e++) {
        uint8_t *r = cvm_vm_reg(x, p, in->d + e);
        for (unsigned l = 0; l < p->nlanes; l++)
            r[l] = r[l] != 0;
    }
}

int cvm_vm_mem(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    access A;
    int r = (in->h == CVM_OP_LD || in->h == CVM_OP_ST) && access_of(x, in, &A) && fast_access(x, p, &A)
                ? 0 : mem_lanes(x, p, in);
    if (!r && in->elem == CVM_T_BOOL && is_load(in))
        cvm_vm_bool_loaded(x, p, in);
    return r;
}

/* v[l] = the T at m for the active lanes of act (every lane of a full
 * default-width plane: vector stores). */
#define FILL_ACTIVE(T)                                                                     \
    do {                                                                                   \
        T x_, *v_ = (T *)(void *)val;                                                      \
        memcpy(&x_, m, sizeof x_);                                                         \
        if (act == FULL_PLANE) {                                                           \
            for (unsigned l = 0; l < PLANE_W; l++)                                         \
                v_[l] = x_;                                                                \
        } else {                                                                           \
            for (unsigned l = 0; l < PLANE_W; l++)                                         \
                if (act >> l & 1)                                                          \
                    v_[l] = x_;                                                            \
        }                                                                                  \
    } while (0)

/*
 * Every active lane of the cube addressing one element (a weight or a
 * scalar each unit reads, whatever the planes' masks): one check, then a
 * load fills the active lanes with the element, and a store writes the
 * value of the last active lane of the last plane with any, which is what
 * the planes storing in order leave. False (nothing done) for any other
 * shape or a check that fails; two loads per plane say no to most.
 */
static inline bool cube_one(cvm_vm_exec *x, const access *A)
{
    const uint64_t FULL_PLANE = 0xffffffffu;
    const unsigned esz = A->esz;
    const bool global = A->global;
    uint64_t a0 = 0;
    unsigned last = UINT32_MAX;
    if (A->ne != 1 || (esz != 4 && esz != 8) || x->W != PLANE_W || A->local)
        return false; /* local memory: one element per unit, not per cube */
    for (unsigned g = 0; g < x->nplanes; g++) {
        const cvm_vm_plane *q = &x->planes[g];
        const uint64_t act = q->active;
        if (!act)
            continue;
        const uint8_t *ptr = cvm_vm_reg(x, q, A->ptr);
        const unsigned f = first_lane(act), l = 63u - (unsigned)__builtin_clzll(act);
        const uint64_t af = global ? ((const uint64_t *)(const void *)ptr)[f]
                                   : ((const uint32_t *)(const void *)ptr)[f];
        const uint64_t al = global ? ((const uint64_t *)(const void *)ptr)[l]
                                   : ((const uint32_t *)(const void *)ptr)[l];
        if (last == UINT32_MAX)
            a0 = af;
        if (af != a0 || al != a0 || q->nlanes != PLANE_W ||
            !(global ? span64((const uint64_t *)(const void *)ptr, act, f, 0)
                     : span32((const uint32_t *)(const void *)ptr, act, f, 0)))
            return false;
        last = g;
    }
    if (last == UINT32_MAX)
        return false; /* no plane has active lanes: nothing to do */
    uint8_t *m;
    if (global) {
        if (A->checked && !global_range_ok(x, a0, a0, a0, 0, esz, A->align, A->load))
            return false;
        m = (uint8_t *)(uintptr_t)CVM_VM_PTR_ADDR(a0);
    } else {
        if (a0 > A->limit || A->limit - a0 < esz || (A->checked && A->align > 1 && a0 % A->align))
            return false;
        m = A->base + a0;
    }
    if (!A->load) {
        const cvm_vm_plane *q = &x->planes[last];
        const unsigned l = 63u - (unsigned)__builtin_clzll(q->active);
        memcpy(m, cvm_vm_reg(x, q, A->val) + (size_t)l * esz, esz);
        return true;
    }
    for (unsigned g = 0; g <= last; g++) {
        const cvm_vm_plane *q = &x->planes[g];
        const uint64_t act = q->active;
        uint8_t *val = cvm_vm_reg(x, q, A->val);
        if (esz == 4)
            FILL_ACTIVE(uint32_t);
        else
            FILL_ACTIVE(uint64_t);
    }
    return true;
}
#undef FILL_ACTIVE

unsigned cvm_vm_mem_planes(cvm_vm_exec *x, const cvm_vm_dinsn *in, int *r)
{
    access A;
    const bool fast = access_of(x, in, &A);
    const bool tiles = fast && A.base && A.esz == 4 && A.ne == 1 && x->W == PLANE_W;
    if (fast && cube_one(x, &A))
        return x->nplanes;
    for (unsigned g = 0; g < x->nplanes; g++) {
        cvm_vm_plane *q = &x->planes[g];
        if (!q->active)
            continue;
        if (tiles && q->active == q->live && q->nlanes == PLANE_W && tile_access32(x, q, &A))
            continue;
        if (fast && fast_access(x, q, &A))
            continue;
        if ((*r = mem_lanes(x, q, in)) != 0)
            return g;
    }
    return x->nplanes;
}

/* ---- read-modify-write atomics ---- */

static uint64_t f2b(unsigned elem, double v)
{
    return elem == CVM_T_F32 ? cvm_n_f32_bits((float)v) : cvm_n_f64_bits(v);
}

static double b2f(unsigned elem, uint64_t b)
{
    return elem == CVM_T_F32 ? (double)cvm_n_f32_from((uint32_t)b) : cvm_n_f64_from(b);
}

/* The new memory value of an atomic op (bits zero-extended to 64). */
static uint64_t atom_new(unsigned op, unsigned elem, uint64_t old, uint64_t b, uint64_t c)
{
    const unsigned bits = cvm_vm_esz(elem) * 8;
    const bool flt = cvm_bc_elem_is_float(elem), sgn = cvm_bc_elem_is_signed(elem);
    switch (op) {
    case CVM_OP_ATOM_ADD:
        if (elem == CVM_T_F32)
            return cvm_n_f32_bits(cvm_n_qf(cvm_n_f32_from((uint32_t)old) + cvm_n_f32_from((uint32_t)b)));
        if (flt)
            return cvm_n_f64_bits(cvm_n_q(cvm_n_f64_from(old) + cvm_n_f64_from(b)));
        return cvm_n_add(old, b, bits);
    case CVM_OP_ATOM_SUB: return cvm_n_sub(old, b, bits);
    case CVM_OP_ATOM_MIN: case CVM_OP_ATOM_MAX: {
        bool mn = op == CVM_OP_ATOM_MIN;
        if (elem == CVM_T_F32) {
            float a = cvm_n_f32_from((uint32_t)old), v = cvm_n_f32_from((uint32_t)b);
            return cvm_n_f32_bits(mn ? cvm_n_fminf(a, v) : cvm_n_fmaxf(a, v));
        }
        if (flt)
            return f2b(elem, mn ? cvm_n_fmin(b2f(elem, old), b2f(elem, b))
                                : cvm_n_fmax(b2f(elem, old), b2f(elem, b)));
        if (sgn) {
            int64_t a = cvm_n_sext(old, bits), v = cvm_n_sext(b, bits);
            return cvm_n_zext((uint64_t)(mn ? cvm_n_smin(a, v) : cvm_n_smax(a, v)), bits);
        }
        return mn ? cvm_n_umin(old, b) : cvm_n_umax(old, b);
    }
    case CVM_OP_ATOM_AND: return old & b;
    case CVM_OP_ATOM_OR: return old | b;
    case CVM_OP_ATOM_XOR: return old ^ b;
    case CVM_OP_ATOM_EXCH: return b;
    case CVM_OP_ATOM_INC: return old >= b ? 0 : cvm_n_add(old, 1, bits);
    case CVM_OP_ATOM_DEC: return old == 0 || old > b ? b : old - 1;
    default: /* CAS: bit compare */
        return old == b ? c : old;
    }
}

/* Applies one lane's atomic at m; returns the old value. */
static uint64_t atom_apply(const cvm_vm_dinsn *in, uint8_t *m, unsigned size, uint64_t b,
                           uint64_t c)
{
    const int order = mo(in->order);
    const int fail = order == __ATOMIC_RELEASE ? __ATOMIC_RELAXED
                   : order == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : order;
    const bool direct = !cvm_bc_elem_is_float(in->elem);
    if (size == 4) {
        uint32_t *q = (uint32_t *)(void *)m, v = (uint32_t)b;
        if (direct)
            switch (in->h) {
            case CVM_OP_ATOM_ADD: return __atomic_fetch_add(q, v, order);
            case CVM_OP_ATOM_SUB: return __atomic_fetch_sub(q, v, order);
            case CVM_OP_ATOM_AND: return __atomic_fetch_and(q, v, order);
            case CVM_OP_ATOM_OR: return __atomic_fetch_or(q, v, order);
            case CVM_OP_ATOM_XOR: return __atomic_fetch_xor(q, v, order);
            case CVM_OP_ATOM_EXCH: return __atomic_exchange_n(q, v, order);
            default: break;
            }
        uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED);
        for (;;) {
            uint32_t nv = (uint32_t)atom_new(in->h, in->elem, old, b, c);
            if (in->h == CVM_OP_ATOM_CAS && old != (uint32_t)b)
                return old; /* compare failed: nothing to write */
            if (__atomic_compare_exchange_n(q, &old, nv, false, order, fail))
                return old;
        }
    }
    uint64_t *q = (uint64_t *)(void *)m;
    if (direct)
        switch (in->h) {
        case CVM_OP_ATOM_ADD: return __atomic_fetch_add(q, b, order);
        case CVM_OP_ATOM_SUB: return __atomic_fetch_sub(q, b, order);
        case CVM_OP_ATOM_AND: return __atomic_fetch_and(q, b, order);
        case CVM_OP_ATOM_OR: return __atomic_fetch_or(q, b, order);
        case CVM_OP_ATOM_XOR: return __atomic_fetch_xor(q, b, order);
        case CVM_OP_ATOM_EXCH: return __atomic_exchange_n(q, b, order);
        default: break;
        }
    uint64_t old = __atomic_load_n(q, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t nv = atom_new(in->h, in->elem, old, b, c);
        if (in->h == CVM_OP_ATOM_CAS && old != b)
            return old;
        if (__atomic_compare_exchange_n(q, &old, nv, false, order, fail))
            return old;
    }
}

int cvm_vm_atomic(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in)
{
    const unsigned size = cvm_vm_esz(in->elem);
    const uint8_t *ptr = cvm_vm_reg(x, p, in->a), *vb = cvm_vm_reg(x, p, in->b);
    const uint8_t *vc = cvm_vm_reg(x, p, in->c);
    uint8_t *d = cvm_vm_reg(x, p, in->d);
    bool faulted = false;
    if (size != 4 && size != 8)
        return 0; /* the verifier allows 32- and 64-bit atomics only */
    /* global atomics in checked mode: one check of the plane's address
     * range (global_range_ok: the per-lane conditions, once), else each
     * lane's own, which names the fault */
    const uint64_t act = p->active;
    const unsigned nl = p->nlanes;
    const bool full = act == p->live;
    bool range_ok = false;
    if (in->ea == CVM_T_PTR_GLOBAL && x->L->checked && act) {
        uint64_t lo, hi, bits, diff;
        ADDR_FACTS(uint64_t);
        range_ok = global_range_ok(x, lo, hi, bits, diff, size, size, false);
    }
    for (unsigned l = 0; l < nl; l++) {
        if (!(act >> l & 1))
            continue;
        uint64_t addr = cvm_vm_get_bits(ptr, in->ea, l);
        uint8_t *m = range_ok ? (uint8_t *)(uintptr_t)CVM_VM_PTR_ADDR(addr)
                              : resolve(x, p, l, in->ea, addr, size, size, K_ATOMIC);
        if (!m) {
            faulted = true;
            continue;
        }
        if (faulted)
            continue;
        uint64_t b = cvm_vm_get_bits(vb, in->elem, l);
        uint64_t c = in->h == CVM_OP_ATOM_CAS ? cvm_vm_get_bits(vc, in->elem, l) : 0;
        cvm_vm_set_bits(d, in->elem, l, atom_apply(in, m, size, b, c));
    }
    return faulted ? CVM_VM_R_FAULT : 0;
}

const char *cvm_vm_string_at(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t lane,
                             unsigned elem, uint64_t addr, size_t *out_max)
{
    uint32_t off = (uint32_t)addr;
    switch (elem) {
    case CVM_T_PTR_GLOBAL: {
        addr = CVM_VM_PTR_ADDR(addr);
        const cvm_vm_region *r = cvm_vm_region_below(x->L, addr);
        if (!r || addr - r->base >= r->size)
            return NULL;
        *out_max = r->size - (size_t)(addr - r->base);
        return (const char *)(uintptr_t)addr;
    }
    case CVM_T_PTR_SHARED:
        if (off >= x->shared_size)
            return NULL;
        *out_max = x->shared_size - off;
        return (const char *)x->shared + off;
    case CVM_T_PTR_LOCAL:
        if (off >= x->local_bytes)
            return NULL;
        *out_max = x->local_bytes - off;
        return (const char *)x->local + (size_t)(p->index * x->W + lane) * x->local_bytes + off;
    case CVM_T_PTR_CONST:
        if (off >= x->L->const_size || !x->L->const_data)
            return NULL;
        *out_max = x->L->const_size - off;
        return (const char *)x->L->const_data + off;
    default:
        return NULL;
    }
}
