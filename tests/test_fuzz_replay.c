/*
 * test_fuzz_replay.c - runs both fuzz harnesses (tests/fuzz/) as a plain
 * test on every .cbs and .cbc of the repository and on every input kept
 * under tests/fuzz/regress/ (reproducers of fixed bugs), so the harnesses'
 * checks (clean statuses, canonical text round trip, nothing leaked) hold
 * in every `make check` build, not only in the clang fuzz build.
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

#include "tap.h"

typedef struct counts {
    int files, modules, failed;
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

/* One input through both harnesses; .cbs text is also assembled for fuzz_exec. */
static void replay(const char *path, counts *c)
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
    fuzz_load_one(data, size);
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
    free(data);
    heap.bytes = heap.blocks = 0; /* a leak was reported once; do not blame the next file */
    if (replay_failures != before)
        c->failed++;
}

/* Every .cbs/.cbc under dir (build outputs and hidden directories skipped); everything under regress/. */
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
        size_t len = strlen(n);
        if (S_ISDIR(st.st_mode))
            walk(path, all, c);
        else if (all ? strcmp(n, "README") != 0
                     : len > 4 && (!strcmp(n + len - 4, ".cbs") || !strcmp(n + len - 4, ".cbc")))
            replay(path, c);
    }
    closedir(d);
}

int main(void)
{
    counts repo = {0}, reg = {0};
    walk(".", false, &repo);
    ok(repo.files > 100 && repo.modules > 50, "the repository has %d .cbs/.cbc files, %d assemble",
       repo.files, repo.modules);
    is_int(repo.failed, 0, "both harnesses pass on every one of them");
    ok(exec_launched > 100, "fuzz_exec ran %lu launches (%lu syncs reported a fault or error)", exec_launched,
       exec_faulted);
    walk("tests/fuzz/regress", true, &reg);
    is_int(reg.failed, 0, "both harnesses pass on the %d reproducers in tests/fuzz/regress", reg.files);
    return done_testing();
}
