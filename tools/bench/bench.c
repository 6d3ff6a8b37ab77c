/*
 * bench.c - `make bench`: runs every case on every contender, interleaved
 * round by round, checks each output against the plain C result before its
 * times count, prints a table and writes build/bench/results.json.
 *
 *   bench [--threads N] [--cases a,b] [--contenders a,b] [--quick] [--runs N]
 *
 * PERF.md (shared) states the rules: medians of >= 10 runs after warm-up,
 * same threads for every contender, random inputs, ratios in the same run.
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int g_threads;
const char *g_root = ".";
const char *g_outdir = "build/bench";

#define MAX_CONT 16
#define MAX_RUNS 1000

typedef struct result {
    const char *cname, *contender;
    char status[300]; /* "ok", "wrong: ...", "unavailable: ...", "failed: ..." */
    double median, min, max;
    int runs;
    double bytes, flops;
} result;

static result results[128];
static int g_quick;
static const char *g_contenders; /* --contenders a,b: only these take part */
static int selected(const char *list, const char *name);
static int n_results;

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void *xalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? (bytes + 63) / 64 * 64 : 64)) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* xorshift64*: fixed seed, uniform in [lo, hi) */
void fill_random(float *p, size_t n, uint64_t seed, float lo, float hi)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
        uint32_t r = (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 40); /* 24 bits */
        p[i] = lo + (hi - lo) * (float)r * (1.0f / 16777216.0f);
    }
}

static bench_case all_cases[] = {
    { .name = "max_pool2d_k5s1p2", .kind = K_POOL, .n = 2, .c = 32, .h = 512, .w = 512, .k = 5, .s = 1, .p = 2 },
    { .name = "max_pool2d_k2s2", .kind = K_POOL, .n = 2, .c = 32, .h = 512, .w = 512, .k = 2, .s = 2, .p = 0 },
    { .name = "vadd", .kind = K_VADD, .len = 16L << 20 },
    { .name = "saxpy", .kind = K_SAXPY, .len = 16L << 20, .alpha = 1.7f },
    { .name = "sum", .kind = K_SUM, .len = 16L << 20 },
    { .name = "softmax", .kind = K_SOFTMAX, .rows = 4096, .cols = 1024 },
    { .name = "transpose", .kind = K_TRANSPOSE, .rows = 4096, .cols = 4096 },
    { .name = "conv2d", .kind = K_CONV, .n = 2, .ci = 32, .co = 32, .h = 128, .w = 128, .k = 3, .p = 1 },
    { .name = "matmul", .kind = K_MATMUL, .rows = 1024 },
    { .name = "launch", .kind = K_LAUNCH },
};
#define N_CASES (int)(sizeof all_cases / sizeof all_cases[0])

/* which contenders take part in which case */
static int applies(const contender *ct, const bench_case *bc)
{
    if (ct == &torch_nchw_contender || ct == &onednn_contender)
        return bc->kind == K_POOL || (ct == &onednn_contender && bc->kind == K_CONV);
    if (ct == &openblas_contender) return bc->kind == K_MATMUL;
    if (ct == &torch_contender || ct == &floor_contender) return bc->kind != K_LAUNCH;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* max |got - ref| beyond the case's tolerance: 0 when the output passes */
static int check_output(const bench_case *bc, const float *got, char *why, size_t whylen)
{
    if (!got) { snprintf(why, whylen, "wrong: no output"); return -1; }
    size_t n = bc->kind == K_LAUNCH ? 0 : bc->out_count;
    for (size_t i = 0; i < n; i++) {
        double r = bc->ref[i], g = got[i];
        if (!(fabs(g - r) <= bc->atol + bc->rtol * fabs(r))) {
            snprintf(why, whylen, "wrong: element %zu is %.9g, expected %.9g", i, g, r);
            return -1;
        }
    }
    return 0;
}

static result *add_result(const bench_case *bc, const char *contender_name)
{
    result *r = &results[n_results++];
    memset(r, 0, sizeof *r);
    r->cname = bc->name;
    r->contender = contender_name;
    r->bytes = bc->bytes;
    r->flops = bc->flops;
    r->median = r->min = r->max = NAN;
    return r;
}

static void summarize(result *r, double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof(double), cmp_double);
    r->median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    r->min = ms[0];
    r->max = ms[n - 1];
    r->runs = n;
}

static void run_case(bench_case *bc, contender **cts, int n_ct, int runs, int warmups)
{
    static double ms[MAX_CONT][MAX_RUNS];
    result *res[MAX_CONT];
    int active[MAX_CONT];
    char why[300];

    fprintf(stderr, "== %s: preparing inputs and the C reference\n", bc->name);
    c_prepare_case(bc);
    if (bc->kind == K_LAUNCH) runs = runs * 20 > MAX_RUNS ? MAX_RUNS : runs * 20;
    for (int i = 0; i < n_ct; i++) {
        res[i] = NULL;
        active[i] = 0;
        if (!applies(cts[i], bc) || !selected(g_contenders, cts[i]->name)) continue;
        res[i] = add_result(bc, cts[i]->name);
        why[0] = 0;
        int prep = cts[i]->setup(bc, why, sizeof why);
        if (prep != PREP_OK) {
            snprintf(res[i]->status, sizeof res[i]->status, "unavailable: %s", why);
            continue;
        }
        active[i] = 1;
        for (int w = 0; w < warmups && active[i]; w++)
            if (cts[i]->run(bc, why, sizeof why) < 0) {
                snprintf(res[i]->status, sizeof res[i]->status, "failed: %s", why);
                active[i] = 0;
            }
        if (active[i] && check_output(bc, cts[i]->output(bc), why, sizeof why)) {
            snprintf(res[i]->status, sizeof res[i]->status, "%s", why);
            active[i] = 0;
        }
        if (!active[i]) cts[i]->teardown(bc);
        else snprintf(res[i]->status, sizeof res[i]->status, "ok");
        fprintf(stderr, "   %-14s %s\n", cts[i]->name, res[i]->status);
    }
    /* interleaved rounds; the starting contender rotates */
    for (int r = 0; r < runs; r++)
        for (int j = 0; j < n_ct; j++) {
            int i = (j + r) % n_ct;
            if (!active[i]) continue;
            double t = cts[i]->run(bc, why, sizeof why);
            if (t < 0) {
                snprintf(res[i]->status, sizeof res[i]->status, "failed: %s", why);
                active[i] = 0;
                cts[i]->teardown(bc);
                continue;
            }
            ms[i][r] = t;
        }
    for (int i = 0; i < n_ct; i++) {
        if (!active[i]) continue;
        /* the last output is checked too: a contender must stay right */
        if (check_output(bc, cts[i]->output(bc), why, sizeof why)) {
            snprintf(res[i]->status, sizeof res[i]->status, "%s (after the timed runs)", why);
        } else {
            summarize(res[i], ms[i], runs);
        }
        cts[i]->teardown(bc);
    }
    c_release_case(bc);
}

static void fmt_ms(char *out, size_t n, double v)
{
    if (isnan(v)) snprintf(out, n, "-");
    else if (v < 0.1) snprintf(out, n, "%.4f", v);
    else if (v < 100) snprintf(out, n, "%.2f", v);
    else snprintf(out, n, "%.0f", v);
}

static void print_table(FILE *f)
{
    fprintf(f, "| case | contender | median ms | min | max | vs floor | vs c | GB/s | GFLOP/s | status |\n");
    fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < n_results; i++) {
        result *r = &results[i], *fl = NULL, *c = NULL;
        for (int j = 0; j < n_results; j++)
            if (!strcmp(results[j].cname, r->cname)) {
                if (!strcmp(results[j].contender, "floor")) fl = &results[j];
                if (!strcmp(results[j].contender, "c")) c = &results[j];
            }
        char a[32], b[32], cc[32], vf[32] = "-", vc[32] = "-", gb[32] = "-", gf[32] = "-";
        fmt_ms(a, sizeof a, r->median);
        fmt_ms(b, sizeof b, r->min);
        fmt_ms(cc, sizeof cc, r->max);
        if (!isnan(r->median)) {
            if (fl && !isnan(fl->median) && r != fl) snprintf(vf, sizeof vf, "%.2fx", r->median / fl->median);
            if (c && !isnan(c->median) && r != c) snprintf(vc, sizeof vc, "%.2fx", r->median / c->median);
            if (r->bytes > 0) snprintf(gb, sizeof gb, "%.1f", r->bytes / (r->median * 1e6));
            if (r->flops > 0) snprintf(gf, sizeof gf, "%.1f", r->flops / (r->median * 1e6));
        }
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->cname, r->contender,
                a, b, cc, vf, vc, gb, gf, r->status);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v)) fprintf(f, "null");
    else fprintf(f, "%.6g", v);
}

static int write_json(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return -1; }
    fprintf(f, "[\n");
    for (int i = 0; i < n_results; i++) {
        result *r = &results[i];
        fprintf(f, "  {\"name\": ");
        json_str(f, r->cname);
        fprintf(f, ", \"contender\": ");
        json_str(f, r->contender);
        fprintf(f, ", \"threads\": %d, \"median_ms\": ", g_threads);
        json_num(f, r->median);
        fprintf(f, ", \"min_ms\": ");
        json_num(f, r->min);
        fprintf(f, ", \"max_ms\": ");
        json_num(f, r->max);
        fprintf(f, ", \"runs\": %d, \"bytes\": %.0f, \"flops\": %.0f, \"status\": ", r->runs, r->bytes, r->flops);
        json_str(f, r->status);
        if (!strcmp(r->cname, "launch") && !strncmp(r->contender, "cubevm", 6) && !strcmp(r->status, "ok"))
            fprintf(f, ", \"enqueue_per_s\": %.0f", cubevm_enqueue_per_s());
        fprintf(f, "}%s\n", i + 1 < n_results ? "," : "");
    }
    fprintf(f, "]\n");
    return fclose(f);
}

static int selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench [--threads N] [--cases a,b] [--contenders a,b] [--quick] [--runs N]\ncases:");
    for (int i = 0; i < N_CASES; i++) fprintf(stderr, " %s", all_cases[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv)
{
    /* OpenMP threads (plain C, oneDNN, the LibTorch driver) that spin after
     * each parallel region hold the cores while the next contender runs:
     * with 2 cores that made cubevm's launch + sync 20x slower in a full
     * run than alone, and its vadd 1.4x the floor where it is 1.05x.
     * Passive waiting puts them to sleep at once (unless the caller chose
     * a policy). libgomp reads its environment when it is loaded, before
     * main, so the harness runs itself again with the policy set. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "bench: could not run itself again with OMP_WAIT_POLICY=PASSIVE; "
                        "OpenMP threads will spin between contenders\n");
    }
    const char *cases = NULL;
    int quick = 0, runs = 0;
    g_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) g_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = argv[++i];
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--contenders") && i + 1 < argc) g_contenders = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--")) continue;
        else usage();
    }
    if (g_threads < 1 || g_threads > 1024) usage();
    g_quick = quick;
    if (runs < 10) runs = quick ? 10 : 20; /* PERF.md: never fewer than 10 */
    if (runs > MAX_RUNS / 20) runs = MAX_RUNS / 20;
    if (getenv("BENCH_ROOT")) g_root = getenv("BENCH_ROOT");
    if (getenv("BENCH_OUT")) g_outdir = getenv("BENCH_OUT");
    /* PoCL's pthread device reads its worker count when it starts */
    char nthreads[16];
    snprintf(nthreads, sizeof nthreads, "%d", g_threads);
    setenv("POCL_MAX_PTHREAD_COUNT", nthreads, 1);
    if (cases)
        for (const char *p = cases; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int ok = 0;
            for (int i = 0; i < N_CASES; i++)
                if (strlen(all_cases[i].name) == len && !strncmp(all_cases[i].name, p, len)) ok = 1;
            if (!ok) { fprintf(stderr, "bench: unknown case '%.*s'\n", (int)len, p); usage(); }
            if (!e) break;
            p = e + 1;
        }

    char why[300] = "";
    if (cubevm_global_init(why, sizeof why)) {
        fprintf(stderr, "bench: cubevm: %s\n", why);
        return 1;
    }
    contender *cts[] = { &cubevm_contender, &cubevm_interp_contender, &cubevm_native_contender, &torch_contender,
                         &torch_nchw_contender, &onednn_contender, &pocl_contender, &c_contender,
                         &openblas_contender, &floor_contender, &lavapipe_contender };
    int n_ct = (int)(sizeof cts / sizeof cts[0]);
    _Static_assert(sizeof cts / sizeof cts[0] <= MAX_CONT, "MAX_CONT is smaller than the contender list");

    fprintf(stderr, "== probes: STREAM triad, read-only sum, FMA peak (%d threads)\n", g_threads);
    probe_init();
    double bw_triad = probe_gbs(0, 10), bw_read = probe_gbs(1, 10), fma_peak = probe_peak_gflops();

    for (int i = 0; i < N_CASES; i++)
        if (selected(cases, all_cases[i].name)) run_case(&all_cases[i], cts, n_ct, runs, quick ? 1 : 2);

    printf("\nthreads %d, %d runs per case (launch: %d), interleaved; before the cases: triad %.1f GB/s, read-only %.1f GB/s; FMA peak %.0f GFLOP/s\n"
           "(the floor re-measures the bandwidth in every round: triad, or read-only for sum)\n\n",
           g_threads, runs, runs * 20 > MAX_RUNS ? MAX_RUNS : runs * 20, bw_triad, bw_read, fma_peak);
    print_table(stdout);
    for (int i = 0; i < n_results; i++)
        if (!strcmp(results[i].cname, "launch") && !strcmp(results[i].contender, "cubevm") &&
            !strcmp(results[i].status, "ok"))
            printf("\ncubevm enqueue throughput (launches queued back to back, one sync): %.0f launches/s\n",
                   cubevm_enqueue_per_s());
    printf("\n");
    for (int i = 0; i < n_ct; i++) {
        int took_part = 0; /* notes only for contenders in the table */
        for (int j = 0; j < n_results; j++) took_part |= !strcmp(results[j].contender, cts[i]->name);
        if (cts[i]->note[0] && took_part) printf("note: %s\n", cts[i]->note);
    }

    char path[1024];
    snprintf(path, sizeof path, "%s/results.json", g_outdir);
    int rc = write_json(path) ? 1 : 0;
    if (!rc) printf("wrote %s\n", path);
    torch_global_fini();
    cubevm_global_fini();
    lavapipe_global_fini();
    probe_fini();
    return rc;
}
