/*
 * init.c - the uninitialized-read checker (docs/debugging.md
 * "Uninitialized reads").
 *
 * On a GPU a cube's shared memory and a unit's local memory (arrays,
 * structs, variables whose address is taken) start with whatever was
 * there; the cpu device fills both with zeros, so a kernel that reads
 * them before writing them works here and fails there. The checker keeps
 * one bit per byte of the cube's shared memory and of every unit's local
 * memory, set by each store and atomic (of any unit, for shared memory; of
 * the unit itself, for local), all clear when a cube starts. A load or an
 * atomic (which reads the old value) of a byte whose bit is clear is a
 * fault. Global memory is not checked: buffers are zero-filled when made
 * (cvm_buffer_create), which is their defined contents.
 */
#include "init.h"

#include <stdio.h>
#include <string.h>

struct cvm_vm_init {
    cvm_alloc_fn alloc;
    void *alloc_user;
    uint64_t shared, local; /* the bytes the bit blocks cover */
    uint8_t *bits;          /* shared bits, then local bits (every unit's area in turn) */
};

static size_t nbytes(uint64_t shared, uint64_t local)
{
    return (size_t)((shared + 7) / 8 + (local + 7) / 8);
}

uint64_t cvm_vm_init_bytes(uint64_t shared, uint64_t local)
{
    return sizeof(cvm_vm_init) + nbytes(shared, local);
}

cvm_vm_init *cvm_vm_init_new(cvm_alloc_fn fn, void *user, uint64_t shared, uint64_t local)
{
    cvm_alloc_fn a = fn ? fn : cvm_default_alloc;
    cvm_vm_init *c = a(user, NULL, 0, sizeof *c);
    if (!c)
        return NULL;
    c->alloc = fn;
    c->alloc_user = user;
    c->shared = shared;
    c->local = local;
    c->bits = a(user, NULL, 0, nbytes(shared, local) ? nbytes(shared, local) : 1);
    if (!c->bits) {
        a(user, c, sizeof *c, 0);
        return NULL;
    }
    return c;
}

void cvm_vm_init_free(cvm_vm_init *c)
{
    if (!c)
        return;
    cvm_alloc_fn a = c->alloc ? c->alloc : cvm_default_alloc;
    const size_t n = nbytes(c->shared, c->local);
    a(c->alloc_user, c->bits, n ? n : 1, 0);
    a(c->alloc_user, c, sizeof *c, 0);
}

void cvm_vm_init_cube(cvm_vm_exec *x)
{
    cvm_vm_init *c = x->init;
    memset(c->bits, 0, nbytes(x->shared_size, (uint64_t)x->units * x->local_bytes));
}

/* The first byte of [at, at + n) of bit block `b` whose bit is clear; n if none. */
static unsigned first_clear(const uint8_t *b, uint64_t at, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!(b[(at + i) >> 3] >> ((at + i) & 7) & 1))
            return i;
    return n;
}

static void set_bits(uint8_t *b, uint64_t at, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b[(at + i) >> 3] |= (uint8_t)(1u << ((at + i) & 7));
}

bool cvm_vm_init_step(cvm_vm_exec *x, cvm_vm_plane *p)
{
    const cvm_vm_dinsn *in = &x->code[p->pc];
    const int kind = cvm_vm_mem_kind(in->h);
    if (kind == CVM_VM_MK_NONE || (in->ea != CVM_T_PTR_SHARED && in->ea != CVM_T_PTR_LOCAL))
        return true;
    cvm_vm_init *c = x->init;
    const bool shared = in->ea == CVM_T_PTR_SHARED;
    const bool reads = cvm_vm_mem_reads(kind), writes = cvm_vm_mem_writes(kind);
    const unsigned size = cvm_vm_mem_size(in, kind);
    const uint32_t limit = shared ? x->shared_size : x->local_bytes;
    uint8_t *local_bits = c->bits + (x->shared_size + 7) / 8;
    const uint8_t *ptr = cvm_vm_reg(x, p, in->a);
    for (unsigned l = 0; l < p->nlanes; l++) {
        if (!(p->active >> l & 1))
            continue;
        const uint32_t off = (uint32_t)cvm_vm_get_bits(ptr, in->ea, l);
        if (off > limit || limit - off < size)
            continue; /* out of bounds: the instruction itself faults */
        uint8_t *b = shared ? c->bits : local_bits;
        const uint64_t at = shared ? off : (uint64_t)(p->index * x->W + l) * x->local_bytes + off;
        if (reads) {
            const unsigned i = first_clear(b, at, size);
            if (i < size) {
                char from[32] = "";
                if (i)
                    snprintf(from, sizeof from, " (from byte %u)", off + i);
                cvm_vm_fault(x, p, l, CVM_FAULT,
                             "uninitialized read: this %s of %u bytes at %s offset %u reads bytes %s%s "
                             "(a GPU leaves %s memory undefined; the cpu device fills it with zeros)",
                             cvm_vm_mem_kind_name(kind), size, shared ? "shared" : "local", off,
                             shared ? "no unit of this cube has written" : "this unit has not written",
                             from, shared ? "shared" : "local");
                return false;
            }
        }
        if (writes)
            set_bits(b, at, size);
    }
    return true;
}
