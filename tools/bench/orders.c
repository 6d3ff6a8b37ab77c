/*
 * orders.c - plain C models of the orders in which cubevm's CPU engine
 * touches memory for two bench kernels, to tell what the order costs
 * from what the engine's code costs (not part of `make bench`; see
 * docs/performance.md "Where the rest of the time goes").
 *
 *   cc -std=c11 -O2 -march=native -fopenmp tools/bench/orders.c -o /tmp/orders
 *   OMP_NUM_THREADS=2 /tmp/orders [-r runs]
 *
 * sum: the first pass of kernels/bench.cu's sum over 2^24 f32, 1024
 * cubes of 256 units, so every unit reads 64 elements 1 MiB apart. The
 * engine runs a cube's eight planes one after the other, each through
 * all its rounds ("plane-major": 64 reads of 128 bytes 1 MiB apart, then
 * the next plane); a GPU runs them side by side, so a cube reads 1 KiB
 * at a time ("round-major", here with K rounds of one plane before the
 * next, K = 1, 4, 16).
 *
 * transpose: 4096^2 f32 through a 32x33 tile per cube of 32x8 units, the
 * cubes in linear order; each cube reads 32 rows of 128 bytes and writes
 * 32 rows of 128 bytes, as the kernel does.
 *
 * Both with buffers on 2 MiB huge pages (madvise, as cubevm's buffers of
 * 4 MiB and more) and without. Prints the fastest of the runs, in ms.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { SUM_N = 1 << 24, CUBES = 1024, CUBE = 256, PLANE = 32, SIDE = 4096, TILE = 32 };

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static float *buffer(size_t n, int huge)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, n * sizeof(float))) {
        fprintf(stderr, "orders: out of memory\n");
        exit(1);
    }
    if (huge)
        madvise(p, n * sizeof(float), MADV_HUGEPAGE);
    float *f = p;
    for (size_t i = 0; i < n; i++)
        f[i] = (float)(i % 1000) * 0.001f;
    return f;
}

/* The sum's first pass with k rounds of a plane before the next plane
 * (k = 0: all of a plane's rounds first, the engine's order). */
static double sum_pass(const float *in, int k)
{
    const long stride = (long)CUBES * CUBE, rounds = SUM_N / stride;
    const long step = k ? k : rounds;
    double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 64)
    for (int c = 0; c < CUBES; c++) {
        float s[CUBE / PLANE][PLANE] = {{0}};
        for (long r0 = 0; r0 < rounds; r0 += step)
            for (int p = 0; p < CUBE / PLANE; p++)
                for (long r = r0; r < r0 + step && r < rounds; r++) {
                    const float *q = in + (long)c * CUBE + p * PLANE + r * stride;
                    for (int l = 0; l < PLANE; l++)
                        s[p][l] += q[l];
                }
        for (int p = 0; p < CUBE / PLANE; p++)
            for (int l = 0; l < PLANE; l++)
                total += s[p][l];
    }
    return total;
}

static void transpose(const float *in, float *out)
{
    const long g = SIDE / TILE;
#pragma omp parallel for schedule(dynamic, 64)
    for (long i = 0; i < g * g; i++) {
        const long bx = i % g, by = i / g;
        float tile[TILE][TILE + 1];
        for (int y = 0; y < TILE; y++)
            for (int x = 0; x < TILE; x++)
                tile[y][x] = in[(by * TILE + y) * SIDE + bx * TILE + x];
        for (int y = 0; y < TILE; y++)
            for (int x = 0; x < TILE; x++)
                out[(bx * TILE + y) * SIDE + by * TILE + x] = tile[x][y];
    }
}

int main(int argc, char **argv)
{
    int runs = 7;
    if (argc == 3 && !strcmp(argv[1], "-r"))
        runs = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: orders [-r runs]\n");
        return 2;
    }
    if (runs < 1)
        runs = 1;
    printf("threads %d, fastest of %d runs (ms)\n", omp_get_max_threads(), runs);
    for (int huge = 0; huge < 2; huge++) {
        const char *pages = huge ? "huge pages" : "4 KiB pages";
        float *in = buffer(SUM_N, huge);
        static const int ks[] = {0, 1, 4, 16};
        for (unsigned j = 0; j < sizeof ks / sizeof *ks; j++) {
            double best = 1e30, v = 0;
            for (int r = 0; r <= runs; r++) { /* run 0 warms up */
                const double t0 = now_ms();
                v = sum_pass(in, ks[j]);
                const double t = now_ms() - t0;
                if (r && t < best)
                    best = t;
            }
            if (ks[j])
                printf("sum  %-11s round-major, %2d rounds per plane  %7.2f  (%g)\n", pages, ks[j], best, v);
            else
                printf("sum  %-11s plane-major (the engine's order)  %7.2f  (%g)\n", pages, best, v);
        }
        free(in);
        float *a = buffer((size_t)SIDE * SIDE, huge), *b = buffer((size_t)SIDE * SIDE, huge);
        double best = 1e30;
        for (int r = 0; r <= runs; r++) {
            const double t0 = now_ms();
            transpose(a, b);
            const double t = now_ms() - t0;
            if (r && t < best)
                best = t;
        }
        for (long i = 0; i < (long)SIDE * SIDE; i += 4097) /* the model is a transpose */
            if (b[(i % SIDE) * SIDE + i / SIDE] != a[i]) {
                fprintf(stderr, "orders: transpose wrong at %ld\n", i);
                return 1;
            }
        printf("transpose %-11s 32x33 tiles, linear cube order  %7.2f\n", pages, best);
        free(a), free(b);
    }
    return 0;
}
