/*
 * tap.h - a tiny TAP producer for cubevm's test programs.
 *
 *   ok(cond, "name %d", i);   is_int(got, want, "name");   is_str(got, want, "name");
 *   diag("note");  skip("reason");  return done_testing();
 *
 * Header-only on purpose (each test is one program); static inline functions,
 * so a test that uses only some of them still builds with -Werror.
 */
#ifndef CVM_TAP_H
#define CVM_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

#if defined(__GNUC__)
#define TAP_FMT(a, b) __attribute__((format(printf, a, b)))
#else
#define TAP_FMT(a, b)
#endif

static inline TAP_FMT(2, 0) int tap_vok(int cond, const char *fmt, va_list ap)
{
    tap_n++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

static inline TAP_FMT(2, 3) int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vok(cond, fmt, ap);
    va_end(ap);
    return r;
}

static inline TAP_FMT(1, 2) void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

static inline TAP_FMT(3, 4) int is_int(long long got, long long want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vok(got == want, fmt, ap);
    va_end(ap);
    if (!r)
        diag("  got %lld, want %lld", got, want);
    return r;
}

static inline TAP_FMT(3, 4) int is_str(const char *got, const char *want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vok(got && want && strcmp(got, want) == 0, fmt, ap);
    va_end(ap);
    if (!r)
        diag("  got \"%s\"\n#   want \"%s\"", got ? got : "(null)", want ? want : "(null)");
    return r;
}

static inline TAP_FMT(1, 2) void skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_n++;
    printf("ok %d # skip ", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* The native tier's counters (vm/jit.h), when the program links libcubevm. */
typedef struct tap_jit_counts {
    uint64_t compiled, refused, launches, narrow_stacks;
} tap_jit_counts;
void cvm_jit_counts_get(tap_jit_counts *out) __attribute__((weak));
void cvm_jit_last_refusal(char *buf, size_t n) __attribute__((weak));

static inline int done_testing(void)
{
    /* CVM_TEST_JIT_REPORT=1 (tests/test_native_corpus.sh): how many launches
     * the native tier ran, the proof that a rerun under CUBEVM_JIT=on used it */
    if (getenv("CVM_TEST_JIT_REPORT") && cvm_jit_counts_get) {
        tap_jit_counts c;
        char why[512] = "";
        cvm_jit_counts_get(&c);
        cvm_jit_last_refusal(why, sizeof why);
        diag("native: %llu launches, %llu compiles (kernel, width, shape), %llu refused, %llu narrow stacks%s%s",
             (unsigned long long)c.launches, (unsigned long long)c.compiled,
             (unsigned long long)c.refused, (unsigned long long)c.narrow_stacks,
             why[0] ? "; last: " : "", why);
    }
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
