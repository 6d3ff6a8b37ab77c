/*
 * torch.c - the libtorch and libtorch-nchw contenders: one long-lived
 * /usr/bin/python3 process running torch_driver.py, driven line by line
 * over pipes so its runs interleave with the others'. Inputs and outputs
 * travel as raw f32 files under build/bench/data (outside the timing).
 */
#include "bench.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child = -1;
static FILE *to_py, *from_py;
static int started;               /* 1: tried to start; child >= 0 if running */
static char unavailable[256];     /* reason, when the driver could not start */
static char data_case[64];        /* case whose inputs are on disk */
static float *out_host;

contender torch_contender, torch_nchw_contender;

static int ask(const char *cmd, char *reply, size_t len)
{
    if (fprintf(to_py, "%s\n", cmd) < 0 || fflush(to_py)) return -1;
    if (!fgets(reply, (int)len, from_py)) return -1;
    reply[strcspn(reply, "\n")] = 0;
    return 0;
}

static void start_driver(void)
{
    int in[2], out[2];
    char threads[16], script[1024], line[512];
    started = 1;
    snprintf(unavailable, sizeof unavailable, "the driver did not start");
    snprintf(script, sizeof script, "%s/tools/bench/torch_driver.py", g_root);
    snprintf(threads, sizeof threads, "%d", g_threads);
    if (access("/usr/bin/python3", X_OK)) {
        snprintf(unavailable, sizeof unavailable, "no /usr/bin/python3");
        return;
    }
    if (pipe(in) || pipe(out)) { snprintf(unavailable, sizeof unavailable, "pipe: %s", strerror(errno)); return; }
    child = fork();
    if (child == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        /* OpenBLAS 0.3.21 does not know the AVX-512 CPUs of PERF.md; torch's matmul uses it.
           Forcing SKYLAKEX elsewhere would run instructions the CPU lacks. */
        if (__builtin_cpu_supports("avx512f")) setenv("OPENBLAS_CORETYPE", "SKYLAKEX", 1);
        execl("/usr/bin/python3", "python3", script, threads, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (child < 0) { snprintf(unavailable, sizeof unavailable, "fork failed"); return; }
    to_py = fdopen(in[1], "w");
    from_py = fdopen(out[0], "r");
    if (!to_py || !from_py || !fgets(line, sizeof line, from_py)) return;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "hello ", 6)) {
        unavailable[0] = 0;
        snprintf(torch_contender.note, sizeof torch_contender.note, "libtorch: %s", line + 6);
    } else {
        snprintf(unavailable, sizeof unavailable, "%s", !strncmp(line, "unavailable ", 12) ? line + 12 : line);
    }
}

void torch_global_fini(void)
{
    if (to_py) fclose(to_py); /* EOF ends the driver */
    if (from_py) fclose(from_py);
    to_py = from_py = NULL;
    if (child > 0) waitpid(child, NULL, 0);
    child = -1;
}

static int write_inputs(const bench_case *bc, char *why, size_t whylen)
{
    char path[1024];
    if (!strcmp(data_case, bc->name)) return 0;
    snprintf(path, sizeof path, "%s/data", g_outdir);
    mkdir(path, 0777);
    for (int i = 0; i < bc->n_in; i++) {
        snprintf(path, sizeof path, "%s/data/%s_in%d.f32", g_outdir, bc->name, i);
        FILE *f = fopen(path, "wb");
        size_t n = f ? fwrite(bc->in[i], 4, bc->in_count[i], f) : 0;
        if (!f || fclose(f) || n != bc->in_count[i]) {
            snprintf(why, whylen, "cannot write %s", path);
            return -1;
        }
    }
    snprintf(data_case, sizeof data_case, "%s", bc->name);
    return 0;
}

static const char *kind_name(enum case_kind k)
{
    static const char *names[] = { "pool", "vadd", "saxpy", "sum", "softmax", "transpose", "conv", "matmul", "launch" };
    return names[k];
}

static int t_setup_as(const char *name, const bench_case *bc, char *why, size_t whylen)
{
    char cmd[1024], reply[512];
    if (!started) start_driver();
    if (unavailable[0]) { snprintf(why, whylen, "%s", unavailable); return PREP_UNAVAILABLE; }
    if (write_inputs(bc, why, whylen)) return PREP_UNAVAILABLE;
    snprintf(cmd, sizeof cmd,
             "setup %s %s %s %s/data n=%d h=%d w=%d c=%d k=%d s=%d p=%d ci=%d co=%d rows=%d cols=%d len=%ld alpha=%.9g",
             name, bc->name, kind_name(bc->kind), g_outdir, bc->n, bc->h, bc->w, bc->c, bc->k, bc->s, bc->p,
             bc->ci, bc->co, bc->rows, bc->cols, bc->len, bc->alpha);
    if (ask(cmd, reply, sizeof reply)) { snprintf(why, whylen, "the torch driver died"); return PREP_UNAVAILABLE; }
    if (strcmp(reply, "ok")) {
        snprintf(why, whylen, "%s", !strncmp(reply, "unavailable ", 12) ? reply + 12 : reply);
        return PREP_UNAVAILABLE;
    }
    return PREP_OK;
}

static double t_run_as(const char *name, char *why, size_t whylen)
{
    char cmd[128], reply[512];
    snprintf(cmd, sizeof cmd, "run %s", name);
    if (ask(cmd, reply, sizeof reply)) { snprintf(why, whylen, "the torch driver died"); return -1; }
    char *end;
    double ms = strtod(reply, &end);
    if (end == reply) { snprintf(why, whylen, "%s", reply); return -1; }
    return ms;
}

static const float *t_output_as(const char *name, const bench_case *bc)
{
    char cmd[1200], reply[512], path[1024];
    snprintf(path, sizeof path, "%s/data/out.f32", g_outdir);
    snprintf(cmd, sizeof cmd, "output %s %s", name, path);
    if (ask(cmd, reply, sizeof reply) || strcmp(reply, "ok")) return NULL;
    free(out_host);
    out_host = xalloc((bc->out_count ? bc->out_count : 1) * 4);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(out_host, 4, bc->out_count, f) : 0;
    if (f) fclose(f);
    remove(path);
    return n == bc->out_count ? out_host : NULL;
}

static void t_teardown_as(const char *name)
{
    char cmd[128], reply[512];
    snprintf(cmd, sizeof cmd, "teardown %s", name);
    if (child > 0) ask(cmd, reply, sizeof reply);
    free(out_host);
    out_host = NULL;
}

static int t1_setup(const bench_case *bc, char *w, size_t n) { return t_setup_as("libtorch", bc, w, n); }
static double t1_run(const bench_case *bc, char *w, size_t n) { (void)bc; return t_run_as("libtorch", w, n); }
static const float *t1_output(const bench_case *bc) { return t_output_as("libtorch", bc); }
static void t1_teardown(const bench_case *bc) { (void)bc; t_teardown_as("libtorch"); }
static int t2_setup(const bench_case *bc, char *w, size_t n) { return t_setup_as("libtorch-nchw", bc, w, n); }
static double t2_run(const bench_case *bc, char *w, size_t n) { (void)bc; return t_run_as("libtorch-nchw", w, n); }
static const float *t2_output(const bench_case *bc) { return t_output_as("libtorch-nchw", bc); }
static void t2_teardown(const bench_case *bc) { (void)bc; t_teardown_as("libtorch-nchw"); }

contender torch_contender = { "libtorch", t1_setup, t1_run, t1_output, t1_teardown, "" };
contender torch_nchw_contender = { "libtorch-nchw", t2_setup, t2_run, t2_output, t2_teardown, "" };
