/*
 * slurp.h - a whole file into memory, for the tests that read their
 * inputs and expectations from files. Header-only and static, like tap.h.
 */
#ifndef CVM_TEST_SLURP_H
#define CVM_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path` followed by a NUL (malloc'ed; free it), their count
 * in *len; NULL when the file cannot be opened or read. */
static inline char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (f)
        fclose(f);
    if (p) {
        p[n] = 0;
        *len = (size_t)n;
    }
    return p;
}

#endif
