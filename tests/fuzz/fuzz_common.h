/*
 * fuzz_common.h - what the fuzz harnesses share: the failure hook and the
 * counting allocator they hand to the library. The allocator keeps live
 * byte and block counts so a harness can check after each input that
 * everything was given back (a leak the library's own accounting would
 * hide from ASan), and fails on a single request no small input should need
 * (a size read from the input and trusted). Under libFuzzer a failure traps;
 * tests/test_fuzz_replay.c defines FUZZ_FAIL to count and name it instead.
 */
#ifndef CVM_FUZZ_COMMON_H
#define CVM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../count_alloc.h"

#ifndef FUZZ_FAIL
#define FUZZ_FAIL(what) __builtin_trap()
#endif
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            FUZZ_FAIL(#cond);                                                                      \
    } while (0)

#define FUZZ_MAX_REQUEST ((size_t)256 << 20)

/* Atomic: the device's worker threads allocate and free too, and lost
 * updates of plain counters showed up as a rare false leak report. */
typedef struct fuzz_heap {
    _Atomic long long bytes;  /* live bytes */
    _Atomic long long blocks; /* live blocks */
} fuzz_heap;

static inline void *fuzz_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    fuzz_heap *h = user;
    if (new_size == 0) {
        if (ptr) {
            h->bytes -= (long long)old_size;
            h->blocks--;
            free(ptr);
        }
        return NULL;
    }
    if (new_size > FUZZ_MAX_REQUEST) {
        FUZZ_FAIL("huge allocation: an input-controlled size reached the allocator unchecked");
        return NULL;
    }
    void *p = test_block_move(ptr, old_size, new_size);
    if (!p)
        return NULL;
    if (ptr) {
        h->bytes -= (long long)old_size;
        h->blocks--;
    }
    h->bytes += (long long)new_size;
    h->blocks++;
    return p;
}

/* Live memory of the current input. */
static fuzz_heap heap;

/* FNV-1a of the input: the harnesses pick options by it (a last byte is
 * the same newline for every text seed). */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ull;
    return h;
}

#endif
