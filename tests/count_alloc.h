/*
 * count_alloc.h - a counting allocator (cvm_alloc_fn) for the tests that
 * check that every byte is given back and that each allocation can fail
 * cleanly. Header-only and static, like tap.h.
 *
 *   counting c = {0, 0, -1};        never fails
 *   counting f = {0, 0, k};         fails the (k+1)-th allocation
 *   ... pass count_alloc, &c ... ;  then c.live == 0 when all was freed
 */
#ifndef CVM_TEST_COUNT_ALLOC_H
#define CVM_TEST_COUNT_ALLOC_H

#include <stdlib.h>
#include <string.h>

typedef struct counting {
    long long live;      /* bytes held */
    long calls, fail_at; /* fail the allocation numbered fail_at from 0 (-1 = never) */
} counting;

/* What the tests' allocators (this one, tests/test_oom.c's and the fuzz
 * harnesses') share: a 64-byte aligned block of new_size bytes, as the
 * library's default allocator gives, holding ptr's first bytes (ptr is
 * then freed); NULL, with ptr kept, when there is no memory. */
static inline void *test_block_move(void *ptr, size_t old_size, size_t new_size)
{
    void *p = aligned_alloc(64, (new_size + 63) & ~(size_t)63);
    if (p && ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
    }
    return p;
}

static inline void *count_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting *c = user;
    if (new_size == 0) {
        if (ptr) {
            c->live -= (long long)old_size;
            free(ptr);
        }
        return NULL;
    }
    if (c->calls++ == c->fail_at)
        return NULL;
    void *p = test_block_move(ptr, old_size, new_size);
    if (!p)
        return NULL;
    if (ptr)
        c->live -= (long long)old_size;
    c->live += (long long)new_size;
    return p;
}

#endif
