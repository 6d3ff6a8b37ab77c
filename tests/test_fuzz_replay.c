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

/* The repository's modules, sources and .npy files under dir (build outputs
 * and hidden directories skipped), or (all) every file under regress/. */
static void walk(const char *dir, bool all, counts *c)
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
        if (snprintf(path, sizeof path, "%s/%s", dir, n) >= (int)sizeof path || stat(path, &st) != 0)
            continue;
        int which = all ? (strcmp(n, "README") ? EVERY : 0) : harnesses_of(n);
        if (S_ISDIR(st.st_mode))
            walk(path, all, c);
        else if (which)
            replay(path, which, c);
    }
    closedir(d);
}

int main(void)
{
    counts repo = {0}, reg = {0};
    walk(".", false, &repo);
    ok(repo.files > 250 && repo.modules > 50 && repo.sources > 150,
       "the repository has %d modules, .cu and .npy files: %d .cbs assemble, %d .cu", repo.files, repo.modules,
       repo.sources);
    is_int(repo.failed, 0, "the harnesses pass on every one of them");
    ok(exec_launched > 100, "fuzz_exec ran %lu launches (%lu syncs reported a fault or error)", exec_launched,
       exec_faulted);
    walk("tests/fuzz/regress", true, &reg);
    is_int(reg.failed, 0, "every harness passes on the %d reproducers in tests/fuzz/regress", reg.files);
    return done_testing();
}
