/*
 * test_fuzz_replay.c - runs the fuzz harnesses (tests/fuzz/) as a plain
 * test on the repository's files (modules through fuzz_load, fuzz_exec and
 * fuzz_spirv, .cu sources through fuzz_cuda, .npy files through fuzz_npy)
 * and every input kept under tests/fuzz/regress/ (reproducers of fixed
 * bugs) through all five, so the harnesses' checks (clean statuses,
 * canonical text round trip, output that verifies, nothing leaked) hold in
 * every `make check` build, not only in the clang fuzz build.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int replay_failures;
static const char *replay_input; /* the file being replayed */

static void replay_fail(const char *harness, int line, const char *what)
{
    replay_failures++;
    printf("# %s:%d on %s: %s\n", harness, line, replay_input, what);
}

#define FUZZ_FAIL(what) replay_fail(__FILE__, __LINE__, what)

#define LLVMFuzzerTestOneInput fuzz_load_one
#include "fuzz/fuzz_load.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_exec_one
#include "fuzz/fuzz_exec.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_spirv_one
#include "fuzz/fuzz_spirv.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cuda_one
#include "fuzz/fuzz_cuda.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_npy_one
#include "fuzz/fuzz_npy.c"
#undef LLVMFuzzerTestOneInput

#include "tap.h"

typedef struct counts {
    int files, modules, sources, failed;
} counts;

/* Exactly the file's bytes, no NUL after them: text input is not NUL-terminated. */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc(n ? (size_t)n : 1)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (f)
        fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return p;
}

enum { MODULE = 1, CUDA = 2, NPY = 4, EVERY = 7 };

/* Which harnesses a repository file goes through, by its name (0: none). */
static int harnesses_of(const char *name)
{
    size_t len = strlen(name);
    if (len > 4 && (!strcmp(name + len - 4, ".cbs") || !strcmp(name + len - 4, ".cbc")))
        return MODULE;
    if (len > 3 && !strcmp(name + len - 3, ".cu"))
        return CUDA;
    if (len > 4 && !strcmp(name + len - 4, ".npy"))
        return NPY;
    return 0;
}

/* One input through the harnesses of `which`; .cbs text is also assembled for fuzz_exec. */
static void replay(const char *path, int which, counts *c)
{
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    int before = replay_failures;
    replay_input = path;
    if (!data) {
        replay_fail("replay", __LINE__, "cannot read the file");
        c->failed++;
        return;
    }
    c->files++;
    if (which & MODULE) {
        fuzz_load_one(data, size);
        fuzz_spirv_one(data, size);
        void *bytes = NULL;
        size_t nbytes = 0;
        cvm_diag d;
        size_t len = strlen(path);
        if (len > 4 && !strcmp(path + len - 4, ".cbs") &&
            cvm_assemble((const char *)data, size, path, &bytes, &nbytes, &d) == CVM_OK) {
            fuzz_exec_one(bytes, nbytes);
            c->modules++;
            cvm_free_bytes(bytes);
        } else {
            fuzz_exec_one(data, size);
        }
    }
    if (which & CUDA) {
        fuzz_cuda_one(data, size);
        c->sources++;
    }
    if (which & NPY)
        fuzz_npy_one(data, size);
    free(data);
    heap.bytes = heap.blocks = 0; /* a leak was reported once; do not blame the next file */
    if (replay_failures != before)
        c->failed++;
}

/* The inputs: a path and the harnesses it goes through. */
typedef struct input {
    char *path;
    int which;
} input;

typedef struct inputs {
    input *v;
    size_t n, cap;
    bool lost; /* a path that did not fit, or no memory for the list */
} inputs;

static void add(inputs *in, const char *path, int which)
{
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 256;
        input *v = realloc(in->v, cap * sizeof *v);
        if (!v) {
            in->lost = true;
            return;
        }
        in->v = v, in->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) {
        in->lost = true;
        return;
    }
    in->v[in->n++] = (input){copy, which};
}

/* The repository's modules, sources and .npy files under dir (build outputs
 * and hidden directories skipped), or (all) every file under regress/, in
 * the order readdir gives. */
static void walk(const char *dir, bool all, inputs *in)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (n[0] == '.' || !strncmp(n, "build", 5))
            continue;
        char path[1024];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, n) >= (int)sizeof path) {
            in->lost = true;
            continue;
        }
        if (stat(path, &st) != 0)
            continue;
        int which = all ? (strcmp(n, "README") ? EVERY : 0) : harnesses_of(n);
        if (S_ISDIR(st.st_mode))
            walk(path, all, in);
        else if (which)
            add(in, path, which);
    }
    closedir(d);
}

/* What one worker sends back: its counts for both lists and the fuzz_exec totals. */
typedef struct result {
    counts repo, reg;
    unsigned long launched, faulted;
} result;

/* Worker k of n: every n-th input of both lists from the k-th. */
static result work(const inputs *repo, const inputs *reg, unsigned k, unsigned n)
{
    result r;
    memset(&r, 0, sizeof r);
    for (size_t i = k; i < repo->n; i += n)
        replay(repo->v[i].path, repo->v[i].which, &r.repo);
    for (size_t i = k; i < reg->n; i += n)
        replay(reg->v[i].path, reg->v[i].which, &r.reg);
    r.launched = exec_launched, r.faulted = exec_faulted;
    return r;
}

static void add_result(result *to, const result *r)
{
    to->repo.files += r->repo.files, to->repo.modules += r->repo.modules;
    to->repo.sources += r->repo.sources, to->repo.failed += r->repo.failed;
    to->reg.files += r->reg.files, to->reg.failed += r->reg.failed;
    to->launched += r->launched, to->faulted += r->faulted;
}

/* The inputs are split over one process per core (at most 4; the
 * harnesses are single-threaded, and under valgrind this test alone took
 * 164 s of CI's Valgrind stage, the rest of it ~50 s on the other core).
 * Each worker is a child that writes its result to a pipe and exits 0
 * (exit: stdio flushed, and a sanitizer's leak check runs in it too);
 * its exit status is checked, so a crash, or valgrind's error exit code
 * for what it found in that child, fails the test. Until the fork this
 * process has called no harness (no device, no thread). */
static bool replay_all(const inputs *repo, const inputs *reg, result *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned n = cores < 1 ? 1 : cores > 4 ? 4 : (unsigned)cores;
    const char *force = getenv("CVM_REPLAY_JOBS"); /* 1: no child at all (debugging) */
    if (force && atoi(force) >= 1 && atoi(force) <= 16)
        n = (unsigned)atoi(force);
    memset(out, 0, sizeof *out);
    if (n == 1) {
        *out = work(repo, reg, 0, 1);
        return true;
    }
    pid_t pid[16];
    int fd[16];
    bool ok = true;
    for (unsigned k = 0; k < n; k++)
        pid[k] = -1, fd[k] = -1;
    fflush(stdout);
    for (unsigned k = 0; k < n; k++) {
        int p[2];
        if (pipe(p) != 0) {
            ok = false;
            break;
        }
        pid[k] = fork();
        if (pid[k] == 0) {
            close(p[0]);
            result r = work(repo, reg, k, n);
            exit(write(p[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
        }
        close(p[1]);
        fd[k] = p[0];
        if (pid[k] < 0) {
            ok = false;
            break;
        }
    }
    for (unsigned k = 0; k < n; k++) {
        result r;
        if (fd[k] >= 0) {
            if (read(fd[k], &r, sizeof r) == (ssize_t)sizeof r)
                add_result(out, &r);
            else
                ok = false;
            close(fd[k]);
        }
        int st = 0;
        if (pid[k] > 0 && (waitpid(pid[k], &st, 0) != pid[k] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            printf("# replay worker %u of %u: %s %d\n", k + 1, n,
                   WIFSIGNALED(st) ? "killed by signal" : "exit status",
                   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            ok = false;
        }
    }
    return ok;
}

int main(void)
{
    inputs repo = {0}, reg = {0};
    walk(".", false, &repo);
    walk("tests/fuzz/regress", true, &reg);
    ok(!repo.lost && !reg.lost, "every input's path fits and is listed");
    result r;
    ok(replay_all(&repo, &reg, &r), "every replay worker ran to its end and exited 0");
    ok(r.repo.files > 250 && r.repo.modules > 50 && r.repo.sources > 150,
       "the repository has %d modules, .cu and .npy files: %d .cbs assemble, %d .cu", r.repo.files,
       r.repo.modules, r.repo.sources);
    is_int(r.repo.failed, 0, "the harnesses pass on every one of them");
    ok(r.launched > 100, "fuzz_exec ran %lu launches (%lu syncs reported a fault or error)", r.launched,
       r.faulted);
    ok(reg.n > 0 && (size_t)r.reg.files == reg.n, "the %zu reproducers in tests/fuzz/regress were all read",
       reg.n);
    is_int(r.reg.failed, 0, "every harness passes on the %d reproducers in tests/fuzz/regress", r.reg.files);
    for (size_t i = 0; i < repo.n; i++)
        free(repo.v[i].path);
    for (size_t i = 0; i < reg.n; i++)
        free(reg.v[i].path);
    free(repo.v), free(reg.v);
    return done_testing();
}
